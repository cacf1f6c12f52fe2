//! What an instruction means to the race detector: the recogniser's readings
//! ([`hipscope_mm::recover`]) folded into one interpretation per instruction.
//!
//! Where a target compiles several operations to the same code, the detector must pick one:
//! * an access with a plain reading is plain (a non-atomic access is the common case, and
//!   calling it atomic would hide races); its report says which atomics share its code;
//!   a plain access that is also a work-group-scope atomic's code is marked so (`maybe`);
//! * of atomic readings, the widest scope counts for atomicity, and for acquire and release
//!   the widest scope at which some reading has them (the code is the same, so the hardware
//!   cannot do less for one than for the other);
//! * where a work-group-scope fence compiles to waits only, an atomic is read as if that fence
//!   stood next to it ([`FreeFences`]).

use crate::siblings::Decided;
use hipscope_mm::lower::{lower, Line, Op, Target};
use hipscope_mm::recover::{recover, Recovery, What};
use hipscope_mm::{Access, Order, Scope, Spaces};
use hipscope_sim::kernel::{CodeSlot, LoadedKernel};
use std::sync::Arc;

/// An atomic access's synchronisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atomic {
    /// The widest scope of atomicity among its readings.
    pub scope: Scope,
    /// The widest scope at which some reading acquires (`None`: relaxed only).
    pub acquire: Option<Scope>,
    /// The widest scope at which some reading releases.
    pub release: Option<Scope>,
    /// Some reading is a work-group-scope atomic although `scope` is wider: the code cannot
    /// tell a work-group-scope atomic from a wider one here (reports say so).
    pub narrow: bool,
    /// `release` comes only from a work-group fence the code cannot show ([`FreeFences`]).
    pub release_implied: bool,
}

/// One instruction's meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interp {
    /// An access; `atomic: None` is a plain access. `shared`: other operations compile to the
    /// same code on this target (reports say so). `rmw`: a read-modify-write. `maybe`: a plain
    /// access whose code is also a work-group-scope atomic's: it does not race with an atomic
    /// of its own work-group, and synchronises as that atomic would.
    Access {
        atomic: Option<Atomic>,
        maybe: Option<Atomic>,
        shared: bool,
        rmw: bool,
    },
    Fence {
        acquire: bool,
        release: bool,
        scope: Scope,
        spaces: Spaces,
    },
}

/// Every tagged instruction of one kernel, by address.
pub struct KernelTags {
    pub name: String,
    pub target: Target,
    pub recovery: Recovery,
    /// The address of the kernel's first instruction.
    base: u64,
    /// By (address - `base`) / 4: asked once per executed instruction, so no hashing.
    by_slot: Vec<Option<Interp>>,
    /// Scopes decided from other targets' code of the same kernel ([`crate::siblings`]).
    pub decided: Option<Arc<Decided>>,
}

impl KernelTags {
    pub fn new(k: &LoadedKernel) -> KernelTags {
        KernelTags::with_decided(k, None)
    }

    /// [`KernelTags::new`], an operation that `decided` decides read as its decision's
    /// readings only.
    pub fn with_decided(k: &LoadedKernel, decided: Option<Arc<Decided>>) -> KernelTags {
        let target = Target::of(k.processor, k.wave64, &k.descriptor);
        let code = k.code.iter().filter_map(|s| if let CodeSlot::Inst(e) = s { Some(&e.inst) } else { None });
        let recovery = recover(code, &target);
        let free = FreeFences::of(&target);
        let base = k.code.first().map_or(k.entry, CodeSlot::address);
        let mut by_slot = Vec::new();
        for r in &recovery.ops {
            let readings = decided.as_ref().and_then(|d| d.by_pc.get(&r.pc)).map_or(&r.readings, |d| &d.readings);
            let Some(i) = interpret(r.what, readings, free) else { continue };
            let Some(slot) = slot_of(base, r.pc) else { continue };
            if by_slot.len() <= slot {
                by_slot.resize(slot + 1, None);
            }
            by_slot[slot] = Some(i);
        }
        KernelTags { name: k.name.clone(), target, recovery, base, by_slot, decided }
    }

    /// How the scope of the operation at `pc` was decided, if another target's code decided it.
    pub fn decided_how(&self, pc: u64) -> Option<&crate::siblings::Decision> {
        self.decided.as_ref()?.by_pc.get(&pc)
    }

    /// Why the operation at `pc` stays undecided, if other targets' code was looked at.
    pub fn why_undecided(&self, pc: u64) -> Option<&str> {
        self.decided.as_ref()?.why_not.get(&pc).map(String::as_str)
    }

    /// The meaning of the instruction at `pc` (`None`: an access the recogniser did not tag,
    /// read as plain, or no memory-model instruction).
    pub fn at(&self, pc: u64) -> Option<Interp> {
        slot_of(self.base, pc).and_then(|s| self.by_slot.get(s).copied().flatten())
    }
}

/// Instructions are dword-aligned (AMDGPU ISA guides: every encoding is a multiple of 4 bytes).
fn slot_of(base: u64, pc: u64) -> Option<usize> {
    let off = pc.checked_sub(base)?;
    (off % 4 == 0).then_some((off / 4) as usize)
}

/// Which work-group-scope fences compile to no instruction but waits on a target. Where one
/// does, the code cannot show whether it is there, so every atomic access is read as if it
/// had it next to it (an acquire fence after a load, a release fence before a store): the
/// hardware cannot do less for one than for the other.
#[derive(Clone, Copy, Debug, Default)]
pub struct FreeFences {
    pub acquire: bool,
    pub release: bool,
}

impl FreeFences {
    pub fn of(target: &Target) -> FreeFences {
        let free = |order| {
            let op = Op::Fence { order, scope: Scope::Workgroup, spaces: Spaces { global: true, local: false } };
            lower(&op, target).iter().all(|l| matches!(l, Line::Wait(_)))
        };
        FreeFences { acquire: free(Order::Acquire), release: free(Order::Release) }
    }
}

/// The widest scope at which one of `accesses` has an order satisfying `has`.
fn widest_with(accesses: &[Access], has: impl Fn(Order) -> bool) -> Option<Scope> {
    accesses.iter().filter_map(|a| if let Access::Atomic { order, scope } = a { has(*order).then_some(*scope) } else { None }).max()
}

/// Fold the atomic readings of an access into one [`Atomic`] (`None` if there are none).
fn fold_atomic(accesses: &[Access], kind: hipscope_mm::recover::Kind, free: FreeFences) -> Option<Atomic> {
    use hipscope_mm::recover::Kind;
    let scope = widest_with(accesses, |_| true)?;
    let mut acquire = widest_with(accesses, Order::acquires);
    let mut release = widest_with(accesses, Order::releases);
    let reads = matches!(kind, Kind::Load | Kind::Rmw { .. });
    let writes = matches!(kind, Kind::Store | Kind::Rmw { .. });
    if free.acquire && reads {
        acquire = acquire.max(Some(Scope::Workgroup));
    }
    let release_implied = free.release && writes && release < Some(Scope::Workgroup);
    if release_implied {
        release = Some(Scope::Workgroup);
    }
    let narrow = scope > Scope::Workgroup && accesses.iter().any(|a| matches!(a, Access::Atomic { scope: Scope::Workgroup, .. }));
    Some(Atomic { scope, acquire, release, narrow, release_implied })
}

/// Fold readings into one interpretation (barriers are seen by the engine, not read here).
fn interpret(what: What, readings: &[Op], free: FreeFences) -> Option<Interp> {
    match what {
        What::Barrier => None,
        What::Access { kind, .. } => {
            let rmw = matches!(kind, hipscope_mm::recover::Kind::Rmw { .. });
            let accesses: Vec<Access> = readings
                .iter()
                .filter_map(|op| match op {
                    Op::Load { access, .. } | Op::Store { access, .. } | Op::Rmw { access, .. } => Some(*access),
                    _ => None,
                })
                .collect();
            // Code shared with another scope that matters (wavefront-scope atomics are the bare
            // instruction everywhere, so they are left out).
            let mut scopes: Vec<Option<Scope>> = accesses
                .iter()
                .filter_map(|a| match a {
                    Access::Plain => Some(None),
                    Access::Atomic { scope, .. } if *scope >= Scope::Workgroup => Some(Some(*scope)),
                    Access::Atomic { .. } => None,
                })
                .collect();
            scopes.sort();
            scopes.dedup();
            let shared = scopes.len() > 1;
            if accesses.contains(&Access::Plain) {
                // The work-group-scope atomics this code also is (wavefront-scope atomics are
                // the bare instruction everywhere, so every plain access is one of those).
                let wg: Vec<Access> = accesses.iter().copied().filter(|a| matches!(a, Access::Atomic { scope: Scope::Workgroup, .. })).collect();
                let maybe = fold_atomic(&wg, kind, free);
                return Some(Interp::Access { atomic: None, maybe, shared, rmw });
            }
            Some(Interp::Access { atomic: Some(fold_atomic(&accesses, kind, free)?), maybe: None, shared, rmw })
        }
        What::Fence => {
            let mut acquire = false;
            let mut release = false;
            let mut scope = None;
            let mut spaces = Spaces { global: false, local: false };
            for op in readings {
                if let Op::Fence { order, scope: s, spaces: sp } = op {
                    acquire |= order.acquires();
                    release |= order.releases();
                    scope = scope.max(Some(*s));
                    spaces.global |= sp.global;
                    spaces.local |= sp.local;
                }
            }
            Some(Interp::Fence { acquire, release, scope: scope?, spaces })
        }
    }
}
