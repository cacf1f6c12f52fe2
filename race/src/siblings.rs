//! Scopes one target's code cannot show, read from the same kernel's code for the other
//! targets of its fat binary.
//!
//! A HIP program built for several processors carries one code object per processor in an
//! offload bundle, each compiled from the same source. Where one target compiles two scopes
//! alike (on gfx1100 in WGP mode a work-group-scope release store is the agent-scope one: both
//! are waits and a plain store; LLVM AMDGPUUsage, "Memory Model GFX11"), another may not (on
//! gfx942 the agent-scope release writes back the L2 first, the work-group one does not;
//! AMDGPUUsage, "Memory Model GFX942"). The source asked for one operation, and every target's
//! code is a lowering of it: of the operations this code may be, only those the other targets'
//! code may be too remain (an empty remainder means the pairing is wrong: undecided).
//!
//! Which instruction of the other code is the same source operation:
//! * with line tables on both sides, the operations of the same kind on the same source line
//!   (several on one line are paired in address order, only if both codes have as many);
//! * without, the atomics and fences of both codes in address order, only if both codes have
//!   the same sequence of kinds.
//!
//! When no pairing can be established, or the other targets cannot tell the scopes apart
//! either, or the targets' codes have no operation in common, the operation stays undecided
//! and [`Decided::why_not`] says why.

use crate::detector::interp::KernelTags;
use hipscope_isa::codeobj::lines::{LineTable, SourceLine};
use hipscope_isa::codeobj::{self, CodeObject};
use hipscope_mm::lower::Op;
use hipscope_mm::recover::{Recovered, What};
use hipscope_mm::{Access, Order, Scope};
use hipscope_sim::kernel::LoadedKernel;
use std::collections::HashMap;

/// What the other targets' code decided for one operation of the running code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The readings of the running code that the other code shares.
    pub readings: Vec<Op>,
    /// The widest scope among them.
    pub scope: Scope,
    /// How it was decided, for reports: "recovered from the gfx942 code of the same kernel".
    pub how: String,
}

/// Decisions for one kernel of the running code, by the address of the tagged instruction.
#[derive(Clone, Debug, Default)]
pub struct Decided {
    pub by_pc: HashMap<u64, Decision>,
    /// Operations that stay undecided, and why.
    pub why_not: HashMap<u64, String>,
}

/// The other targets' code objects of a bundle (loaded once per module).
pub struct Siblings {
    /// (target id, the code object or why it could not be loaded).
    objects: Vec<(String, Result<CodeObject, String>)>,
}

impl Siblings {
    /// Every AMDGPU code object of `image` (a bundle or a host file's fat binary) but the
    /// entry `running` (the bundle entry id the device runs).
    pub fn load(image: &[u8], running: Option<&str>) -> Siblings {
        let entries = codeobj::list_targets(image).map(|l| l.entries).unwrap_or_default();
        let objects = entries
            .iter()
            .filter(|e| e.is_amdgpu() && Some(e.id.as_str()) != running)
            .map(|e| {
                let name = e.target_id.clone().unwrap_or_else(|| e.id.clone());
                (name, codeobj::load_entry_at(image, e, 0).map_err(|err| err.to_string()))
            })
            .collect();
        Siblings { objects }
    }

    /// Code objects given as (target id, code object): tests, and callers that loaded them.
    pub fn from_objects(objects: Vec<(String, CodeObject)>) -> Siblings {
        Siblings { objects: objects.into_iter().map(|(n, co)| (n, Ok(co))).collect() }
    }
}

/// The decisions for `kernel` (the running code, with its line table `lines`) from the other
/// targets' code (`siblings`, asked for only if some operation of the kernel needs it): for
/// each atomic or fence whose readings span several scopes of work-group and wider. (Accesses
/// that may also be plain are left as they are: the detector reads them as plain whatever
/// their atomic readings, and on gfx11 every plain store is one, so looking would load every
/// other target's code for nearly every kernel.)
pub fn decide<'s>(kernel: &LoadedKernel, lines: &LineTable, siblings: impl FnOnce() -> &'s Siblings) -> Decided {
    let tags = KernelTags::new(kernel);
    let mut out = Decided::default();
    let open: Vec<&Recovered> = tags.recovery.ops.iter().filter(|r| is_sync(r) && spans_scopes(&r.readings)).collect();
    if open.is_empty() {
        return out;
    }
    let others: Vec<(&str, Result<Other, String>)> = siblings().objects.iter().map(|(name, co)| (name.as_str(), Other::of(co, &kernel.name))).collect();
    let mine = Code { ops: &tags.recovery.ops, lines };
    for r in open {
        match decide_one(r, &mine, &others) {
            Ok(d) => {
                out.by_pc.insert(r.pc, d);
            }
            Err(why) => {
                out.why_not.insert(r.pc, why);
            }
        }
    }
    out
}

/// The same kernel in another target's code object.
struct Other {
    tags: KernelTags,
    lines: LineTable,
}

impl Other {
    fn of(co: &Result<CodeObject, String>, name: &str) -> Result<Other, String> {
        let co = co.as_ref().map_err(|e| format!("its code object could not be read ({e})"))?;
        let device = hipscope_sim::Device::new(co.target.processor);
        let k = device.load_kernel(co, name).map_err(|e| format!("the kernel could not be loaded from it ({e})"))?;
        Ok(Other { tags: KernelTags::new(&k), lines: co.lines.clone() })
    }
}

/// One target's tagged operations and line table.
struct Code<'a> {
    ops: &'a [Recovered],
    lines: &'a LineTable,
}

/// Decide `r` from every other target: the operations both codes may be, over every target
/// whose code pairs with it.
fn decide_one(r: &Recovered, mine: &Code, others: &[(&str, Result<Other, String>)]) -> Result<Decision, String> {
    if others.is_empty() {
        return Err("the program holds no other target's code of this kernel to compare with".into());
    }
    let mut common: Vec<Op> = r.readings.clone();
    let mut from: Vec<&str> = Vec::new();
    let mut reasons = Vec::new();
    for (name, other) in others {
        let twin =
            other.as_ref().map_err(String::clone).and_then(|o| pair(r, mine, &Code { ops: &o.tags.recovery.ops, lines: &o.lines }).map(|t| t.readings.clone()));
        match twin {
            Ok(theirs) => {
                let keys: Vec<Key> = theirs.iter().filter_map(key).collect();
                let shared = |ops: &[Op]| -> Vec<Op> { ops.iter().filter(|op| key(op).is_some_and(|k| keys.contains(&k))).copied().collect() };
                let kept = shared(&common);
                if kept.is_empty() {
                    return Err(format!("the {name} code for it is none of the operations the code of the other targets may be, so the pairing is doubtful"));
                }
                // Credited: the targets whose code alone tells more than this code.
                if scopes(&shared(&r.readings)) != scopes(&r.readings) {
                    from.push(name);
                }
                common = kept;
            }
            Err(why) => reasons.push(format!("{name}: {why}")),
        }
    }
    if from.is_empty() {
        let why = if reasons.is_empty() { String::new() } else { format!("; {}", reasons.join("; ")) };
        return Err(format!("no other target of the program tells the scopes apart{why}"));
    }
    let scope = scopes(&common).last().copied().unwrap_or(Scope::Workgroup);
    Ok(Decision { readings: common, scope, how: format!("recovered from the {} code of the same kernel", names(&from)) })
}

/// `a`, `a and b`, `a, b and c`.
fn names(v: &[&str]) -> String {
    match v {
        [] => String::new(),
        [one] => one.to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The operation of `theirs` that is the same source operation as `r` of `mine`.
fn pair<'t>(r: &Recovered, mine: &Code, theirs: &Code<'t>) -> Result<&'t Recovered, String> {
    let kind = kind_of(r.what);
    match mine.lines.at(r.pc).filter(|_| !theirs.lines.is_empty()) {
        Some(line) => {
            let on = |c: &Code, l: &SourceLine| -> Vec<u64> {
                c.ops.iter().filter(|o| kind_of(o.what) == kind && c.lines.at(o.pc).as_ref() == Some(l)).map(|o| o.pc).collect()
            };
            let (here, there) = (on(mine, &line), on(theirs, &line));
            if there.is_empty() {
                return Err(format!("its code has no {} at {line}", kind_name(kind)));
            }
            if here.len() != there.len() {
                return Err(format!("its code has {} {}s at {line}, this code {}: they cannot be paired", there.len(), kind_name(kind), here.len()));
            }
            let i = here.iter().position(|&pc| pc == r.pc).unwrap_or(0);
            theirs.ops.iter().find(|o| o.pc == there[i]).ok_or_else(|| "internal: lost operation".to_string())
        }
        None => {
            // No line tables: atomics and fences in address order, if the sequences agree.
            let seq = |ops: &[Recovered]| -> Vec<(u64, Kind)> { ops.iter().filter(|o| is_sync(o)).map(|o| (o.pc, kind_of(o.what))).collect() };
            let (here, there) = (seq(mine.ops), seq(theirs.ops));
            let same = here.len() == there.len() && here.iter().zip(&there).all(|(a, b)| a.1 == b.1);
            let i = here.iter().position(|(pc, _)| *pc == r.pc);
            match (same, i) {
                (true, Some(i)) => theirs.ops.iter().find(|o| o.pc == there[i].0).ok_or_else(|| "internal: lost operation".to_string()),
                _ => Err(format!(
                    "without line tables atomics and fences are paired in address order, but its code has {} of them and this code {}, not of the same kinds in the same order",
                    there.len(),
                    here.len()
                )),
            }
        }
    }
}

/// What kind of operation a tagged instruction is, for pairing.
type Kind = Option<hipscope_mm::recover::Kind>;

fn kind_of(w: What) -> Kind {
    match w {
        What::Access { kind, .. } => Some(kind),
        What::Fence | What::Barrier => None,
    }
}

fn kind_name(k: Kind) -> &'static str {
    use hipscope_mm::recover::Kind as K;
    match k {
        Some(K::Load) => "atomic load",
        Some(K::Store) => "atomic store",
        Some(K::Rmw { .. }) => "atomic read-modify-write",
        None => "fence",
    }
}

/// An atomic or fence (no plain reading), as address-order pairing counts them.
fn is_sync(r: &Recovered) -> bool {
    !matches!(r.what, What::Barrier) && r.readings.iter().all(|op| key(op).is_some_and(|k| k.1.is_some()))
}

/// An operation as two targets' readings are compared: its kind, and order and scope if
/// atomic (the address space is left out: a flat access on one target may be a global one on
/// another).
type Key = (u8, Option<(Order, Scope)>);

fn key(op: &Op) -> Option<Key> {
    let atomic = |a: &Access| match a {
        Access::Plain => None,
        Access::Atomic { order, scope } => Some((*order, *scope)),
    };
    match op {
        Op::Load { access, .. } => Some((0, atomic(access))),
        Op::Store { access, .. } => Some((1, atomic(access))),
        Op::Rmw { access, .. } => Some((2, atomic(access))),
        Op::Fence { order, scope, .. } => Some((3, Some((*order, *scope)))),
        Op::Barrier { .. } => None,
    }
}

/// The scopes of the atomic readings that tell other threads apart (work-group and wider:
/// wavefront-scope atomics are the bare instruction on every target), narrowest first.
fn scopes(readings: &[Op]) -> Vec<Scope> {
    let mut v: Vec<Scope> = readings.iter().filter_map(|op| key(op)?.1.map(|(_, s)| s)).filter(|s| *s >= Scope::Workgroup).collect();
    v.sort();
    v.dedup();
    v
}

/// Whether the readings leave the scope open: several scopes of work-group or wider.
fn spans_scopes(readings: &[Op]) -> bool {
    scopes(readings).len() > 1
}
