//! Recovering the language's memory operations from compiled code: the lowering
//! ([`crate::lower`]) run backwards.
//!
//! [`recover`] reads a kernel's instructions and tags every atomic access, fence and barrier
//! with the operations ([`Op`]: kind, order, scope, spaces) whose lowering on the target is
//! what the code shows. It reads straight-line code only (a branch or a branch target ends a
//! sequence) and looks at what the memory model puts in code: an access's coherence bits, the
//! writebacks and waits before it (its release side), the waits and invalidates after it (its
//! acquire side). Several operations often compile to the same code (on GFX9 wavefront and
//! work-group scope are both free; on gfx90a a relaxed work-group atomic load is a plain
//! load); a tag then keeps every reading, so reports can say the target cannot tell them
//! apart.
//!
//! Reading rules, in order:
//! 1. each access and barrier takes the writebacks right before it and the invalidates right
//!    after it; of the operations whose bits and maintenance match, the ones whose waits are
//!    present and which explain the most of the code win (a full drain before a store makes
//!    it a release: on gfx90a that drain is all an agent-scope release is);
//! 2. maintenance left over is read as fences, the longest fence first;
//! 3. anything still unexplained (maintenance no fence uses, an access with bits no operation
//!    gives) is listed as untagged. Waits on their own are not fences: the compiler emits them
//!    for data dependencies too.

mod pieces;
mod shapes;

pub use pieces::{coherence_bits, counter_of, maintenance_counter, piece_of, Kind, Piece, Where};
pub use shapes::{all_ops, shape, Catalogue, Shape};

use crate::lower::{Op, Target};
use crate::wait::{Counter, Wait};
use hipscope_isa::decode::Inst;
use hipscope_isa::decode::Reg;
use hipscope_isa::tables::flags;
use std::collections::HashSet;

/// What the tagged instruction is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum What {
    Access { kind: Kind, place: Where, mnemonic: &'static str },
    Fence,
    Barrier,
}

/// One recovered operation.
#[derive(Clone, Debug)]
pub struct Recovered {
    /// The instruction it is named by: the access, the barrier, or a fence's first
    /// maintenance instruction.
    pub pc: u64,
    pub what: What,
    /// Every operation whose lowering this code is (at least one).
    pub readings: Vec<Op>,
    /// Addresses of the sequence's instructions (waits and maintenance included), in order.
    pub parts: Vec<u64>,
}

/// An instruction of the memory model that no operation explains.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untagged {
    pub pc: u64,
    pub mnemonic: &'static str,
    pub why: &'static str,
}

/// What [`recover`] found in a kernel.
#[derive(Clone, Debug, Default)]
pub struct Recovery {
    /// Ordered by `pc`.
    pub ops: Vec<Recovered>,
    pub untagged: Vec<Untagged>,
}

impl Recovery {
    /// The operation named by the instruction at `pc`.
    pub fn at(&self, pc: u64) -> Option<&Recovered> {
        self.ops.binary_search_by_key(&pc, |r| r.pc).ok().map(|i| &self.ops[i])
    }
}

/// Tag the memory operations of a kernel's code (its instructions in address order) built
/// for `target`.
pub fn recover<'i>(code: impl IntoIterator<Item = &'i Inst>, target: &Target) -> Recovery {
    let code: Vec<&Inst> = code.into_iter().collect();
    let cat = Catalogue::new(target);
    let family = target.family();
    let branch_targets: HashSet<u64> = code.iter().filter(|i| i.has(hipscope_isa::tables::flags::ISBRANCH)).filter_map(|i| i.branch_target()).collect();
    let mut pieces = Vec::new();
    for inst in &code {
        if branch_targets.contains(&inst.address) {
            pieces.push((inst.address, Piece::Break));
        }
        if let Some(p) = piece_of(inst, family) {
            pieces.push((inst.address, p));
        }
    }
    let data = data_waits(&code, family);
    let mut out = Recovery::default();
    for window in pieces.split(|(_, p)| *p == Piece::Break) {
        Window::new(window, &cat, &data).read(&mut out);
    }
    out.ops.sort_by_key(|r| r.pc);
    out.untagged.sort_by_key(|u| u.pc);
    out
}

/// The vector-memory waits that a later instruction needs for a loaded value: a wait after a
/// load (or returning RMW) whose destination registers an instruction soon after the wait
/// reads. Such a wait is there for the data, so it is no evidence of a release or acquire
/// (`x += 1` is load, wait, add, store: the wait before the store does not make it a release).
fn data_waits(code: &[&Inst], family: hipscope_isa::Family) -> HashSet<u64> {
    // How far after a wait a use of the loaded value still explains it.
    const LOOKAHEAD: usize = 8;
    let mut pending: Vec<Reg> = Vec::new();
    let mut out = HashSet::new();
    for (k, inst) in code.iter().enumerate() {
        if let Some(Piece::Wait(w)) = piece_of(inst, family) {
            if !w.0.iter().any(|(c, _)| matches!(c, Counter::Vm | Counter::Load)) {
                continue;
            }
            let used = code[k + 1..].iter().take(LOOKAHEAD).any(|later| {
                let skip = usize::from(!is_vector_access(later) && later.operands.len() > 1);
                later.operands.iter().skip(skip).filter_map(|o| o.reg()).any(|r| pending.iter().any(|p| overlaps(p, &r)))
            });
            if used {
                out.insert(inst.address);
            }
            if w.0.iter().any(|(c, v)| matches!(c, Counter::Vm | Counter::Load) && *v == 0) {
                pending.clear();
            }
        } else if is_vector_access(inst) && (inst.has(flags::MAYLOAD) || inst.has(flags::ISATOMICRET)) && !inst.has(flags::DS) {
            if let Some(r) = inst.operands.first().and_then(|o| o.reg()) {
                pending.push(r);
            }
        }
    }
    out
}

fn is_vector_access(inst: &Inst) -> bool {
    inst.has(flags::FLAT | flags::MUBUF | flags::MTBUF)
}

fn overlaps(a: &Reg, b: &Reg) -> bool {
    match (a, b) {
        (Reg::Vgpr { index: i, count: n }, Reg::Vgpr { index: j, count: m }) | (Reg::Agpr { index: i, count: n }, Reg::Agpr { index: j, count: m }) => {
            let (i, n, j, m) = (u32::from(*i), u32::from(*n).max(1), u32::from(*j), u32::from(*m).max(1));
            i < j + m && j < i + n
        }
        _ => false,
    }
}

/// One run of straight-line code being read.
struct Window<'a> {
    pieces: &'a [(u64, Piece)],
    cat: &'a Catalogue,
    claimed: Vec<bool>,
    /// Waits there for a loaded value ([`data_waits`]), by address.
    data: &'a HashSet<u64>,
}

/// What the code around an anchor shows: the access's kind, place and bits (`None`: a
/// barrier), the writebacks before it, the invalidates after it, and the waits on each side.
struct Seen<'s> {
    want: Option<(Kind, Where, u32)>,
    wb: &'s [usize],
    inv: &'s [usize],
    before: &'s Wait,
    after: &'s Wait,
    /// The waits actually in the code (without the idle counters).
    before_seen: &'s Wait,
    after_seen: &'s Wait,
}

/// How many of the vector-memory waits `need` asks for the code really has. Only vector
/// drains count as evidence of a release or acquire: an LDS or scalar wait before an access
/// is as often there for a data dependency (kernel arguments, an LDS value).
fn evidence(seen: &Wait, need: &Wait) -> usize {
    need.0.iter().filter(|(c, v)| is_vector(*c) && seen.0.iter().any(|(sc, sv)| sc == c && sv <= v)).count()
}

fn is_vector(c: Counter) -> bool {
    matches!(c, Counter::Vm | Counter::Vs | Counter::Load | Counter::Store)
}

/// Whether waiting for `have` also waits for everything `need` waits for.
fn implies(have: &Wait, need: &Wait) -> bool {
    need.0.iter().all(|(c, v)| have.0.iter().any(|(hc, hv)| hc == c && hv <= v))
}

impl<'a> Window<'a> {
    fn new(pieces: &'a [(u64, Piece)], cat: &'a Catalogue, data: &'a HashSet<u64>) -> Window<'a> {
        Window { pieces, cat, claimed: vec![false; pieces.len()], data }
    }

    fn is_anchor(&self, i: usize) -> bool {
        matches!(self.pieces[i].1, Piece::Access { .. } | Piece::Barrier { .. })
    }

    fn read(mut self, out: &mut Recovery) {
        let anchors: Vec<usize> = (0..self.pieces.len()).filter(|&i| self.is_anchor(i)).collect();
        let mut skip_to = 0;
        for (n, &a) in anchors.iter().enumerate() {
            if a < skip_to {
                continue;
            }
            let prev = if n == 0 { 0 } else { anchors[n - 1] + 1 };
            // GFX12's barrier is two instructions (signal, wait): one anchor.
            let end = self.barrier_end(a);
            skip_to = end + 1;
            let next = anchors.iter().copied().find(|&x| x > end).unwrap_or(self.pieces.len());
            self.read_anchor(prev, a, end, next, out);
        }
        self.read_fences(out);
    }

    /// The last piece of the barrier starting at `a` (`a` itself unless a second barrier
    /// instruction follows with only waits between).
    fn barrier_end(&self, a: usize) -> usize {
        if !matches!(self.pieces[a].1, Piece::Barrier { .. }) {
            return a;
        }
        let mut end = a;
        for j in a + 1..self.pieces.len() {
            match self.pieces[j].1 {
                Piece::Wait(_) => {}
                Piece::Barrier { .. } => end = j,
                _ => break,
            }
        }
        end
    }

    /// The unclaimed writebacks right before `a` (back to `from`, skipping waits), nearest last.
    fn writebacks_before(&self, from: usize, a: usize) -> Vec<usize> {
        let mut v = Vec::new();
        for j in (from..a).rev() {
            match &self.pieces[j].1 {
                Piece::Wait(_) => {}
                Piece::Maint { mnemonic, cpol } if !self.claimed[j] && self.cat.is_writeback(mnemonic, *cpol) => v.push(j),
                _ => break,
            }
        }
        v.reverse();
        v
    }

    /// The invalidates right after `end` (up to `to`, skipping waits).
    fn invalidates_after(&self, end: usize, to: usize) -> Vec<usize> {
        let mut v = Vec::new();
        for j in end + 1..to {
            match &self.pieces[j].1 {
                Piece::Wait(_) => {}
                Piece::Maint { mnemonic, cpol } if self.cat.is_invalidate(mnemonic, *cpol) => v.push(j),
                _ => break,
            }
        }
        v
    }

    /// A zero wait on every counter with nothing in flight at piece `upto` (as far as the
    /// window shows: it is taken to start idle), the waits the compiler leaves out.
    fn idle_at(&self, upto: usize) -> Wait {
        let mut busy: Vec<Counter> = Vec::new();
        for (_, p) in &self.pieces[..upto.min(self.pieces.len())] {
            match p {
                Piece::Access { kind, place, .. } => busy.push(counter_of(self.family(), *kind, *place)),
                Piece::Maint { mnemonic, .. } => busy.extend(maintenance_counter(self.family(), mnemonic)),
                Piece::Wait(w) => busy.retain(|c| !w.0.iter().any(|(wc, v)| wc == c && *v == 0)),
                _ => {}
            }
        }
        let mut w = Wait::default();
        for c in [Counter::Vm, Counter::Vs, Counter::Lgkm, Counter::Exp, Counter::Load, Counter::Store, Counter::Ds, Counter::Km] {
            if !busy.contains(&c) {
                w.add(c, 0);
            }
        }
        w
    }

    fn waits(&self, range: std::ops::Range<usize>) -> Wait {
        let mut w = Wait::default();
        for (_, p) in &self.pieces[range] {
            if let Piece::Wait(x) = p {
                w.merge(x);
            }
        }
        w
    }

    /// The waits in `range` that are not there for a loaded value.
    fn evidence_waits(&self, range: std::ops::Range<usize>) -> Wait {
        let mut w = Wait::default();
        for (pc, p) in &self.pieces[range] {
            if let Piece::Wait(x) = p {
                if !self.data.contains(pc) {
                    w.merge(x);
                }
            }
        }
        w
    }

    fn maint_of(&self, i: usize) -> (&str, u32) {
        match &self.pieces[i].1 {
            Piece::Maint { mnemonic, cpol } => (mnemonic, cpol.0),
            _ => ("", 0),
        }
    }

    fn same_maint(&self, idx: &[usize], want: &[shapes::Maint]) -> bool {
        idx.len() == want.len() && idx.iter().zip(want).all(|(&i, (m, c))| self.maint_of(i) == (m.as_str(), *c))
    }

    /// Read the access or barrier at `a..=end`, with the code since `prev` before it and up
    /// to `next` after it.
    fn read_anchor(&mut self, prev: usize, a: usize, end: usize, next: usize, out: &mut Recovery) {
        let (pc, piece) = &self.pieces[a];
        let (what, want) = match piece {
            Piece::Access { kind, place, mnemonic, cpol } => {
                let bits = coherence_bits(self.family(), *kind, *cpol);
                (What::Access { kind: *kind, place: *place, mnemonic }, Some((*kind, *place, bits)))
            }
            _ => (What::Barrier, None),
        };
        let wb = self.writebacks_before(prev, a);
        let inv = self.invalidates_after(end, next);
        // Waits the compiler dropped because their counter was idle count as present.
        let mut before = self.waits(prev..a);
        before.merge(&self.idle_at(a));
        let after_to = inv.last().map_or(next, |&l| l);
        let mut after = self.waits(end + 1..after_to);
        after.merge(&self.idle_at(after_to));
        let (before_seen, after_seen) = (self.evidence_waits(prev..a), self.evidence_waits(end + 1..after_to));
        let seen = Seen { want, wb: &wb, inv: &inv, before: &before, after: &after, before_seen: &before_seen, after_seen: &after_seen };
        // Waits first count: a wait the compiler dropped because its counter was idle is the
        // only reason to read without them.
        let mut best = self.best_shapes(&seen, true);
        if best.is_empty() {
            best = self.best_shapes(&seen, false);
        }
        let Some(first) = best.first() else {
            out.untagged.push(Untagged { pc: *pc, mnemonic: mnemonic_of(piece), why: "cache bits no memory operation of this target uses" });
            return;
        };
        let used: Vec<usize> = wb[wb.len() - first.pre_maint.len()..].iter().chain(&inv[..first.post_maint.len()]).copied().collect();
        for &u in &used {
            self.claimed[u] = true;
        }
        let lo = used.iter().copied().chain([a]).min().unwrap_or(a);
        let hi = used.iter().copied().chain([end]).max().unwrap_or(end);
        let parts =
            (lo..=hi).filter(|&j| j == a || j == end || used.contains(&j) || matches!(self.pieces[j].1, Piece::Wait(_))).map(|j| self.pieces[j].0).collect();
        let readings = dedup(best.iter().map(|s| s.op));
        out.ops.push(Recovered { pc: *pc, what, readings, parts });
    }

    /// The shapes that explain the most of what was seen around an anchor; `strict`: only
    /// those whose waits are all present.
    fn best_shapes(&self, seen: &Seen, strict: bool) -> Vec<&'a Shape> {
        let mut best: Vec<&Shape> = Vec::new();
        let mut best_score = 0;
        let (wb, inv) = (seen.wb, seen.inv);
        for s in &self.cat.shapes {
            let fits_kind = match seen.want {
                Some(w) => s.access == Some(w),
                None => matches!(s.op, Op::Barrier { .. }),
            };
            if !fits_kind || s.pre_maint.len() > wb.len() || s.post_maint.len() > inv.len() {
                continue;
            }
            if !self.same_maint(&wb[wb.len() - s.pre_maint.len()..], &s.pre_maint) || !self.same_maint(&inv[..s.post_maint.len()], &s.post_maint) {
                continue;
            }
            let waits_present = implies(seen.before, &s.pre_wait) && implies(seen.after, &s.post_wait);
            if strict && !waits_present {
                continue;
            }
            let waits = if waits_present { evidence(seen.before_seen, &s.pre_wait) + evidence(seen.after_seen, &s.post_wait) } else { 0 };
            let score = s.pre_maint.len() + s.post_maint.len() + waits;
            if best.is_empty() || score > best_score {
                best = vec![s];
                best_score = score;
            } else if score == best_score {
                best.push(s);
            }
        }
        best
    }

    fn family(&self) -> hipscope_isa::Family {
        self.cat.family
    }

    /// Read the maintenance no access claimed as fences: each run of unclaimed maintenance
    /// (waits between allowed), the longest fence that starts it first.
    fn read_fences(&mut self, out: &mut Recovery) {
        let mut i = 0;
        while i < self.pieces.len() {
            if self.claimed[i] || !matches!(self.pieces[i].1, Piece::Maint { .. }) {
                i += 1;
                continue;
            }
            let run: Vec<usize> = self.run_from(i);
            let mut taken = 0;
            while taken < run.len() {
                let rest = &run[taken..];
                let found = (1..=rest.len()).rev().find_map(|n| {
                    let ops: Vec<Op> = self
                        .cat
                        .shapes
                        .iter()
                        .filter(|s| matches!(s.op, Op::Fence { .. }) && self.same_maint(&rest[..n], &s.pre_maint))
                        .map(|s| s.op)
                        .collect();
                    (!ops.is_empty()).then_some((n, ops))
                });
                match found {
                    Some((n, ops)) => {
                        let (lo, hi) = (rest[0], rest[n - 1]);
                        let parts =
                            (lo..=hi).filter(|&j| rest[..n].contains(&j) || matches!(self.pieces[j].1, Piece::Wait(_))).map(|j| self.pieces[j].0).collect();
                        out.ops.push(Recovered { pc: self.pieces[lo].0, what: What::Fence, readings: dedup(ops.into_iter()), parts });
                        taken += n;
                    }
                    None => {
                        let (pc, p) = &self.pieces[rest[0]];
                        out.untagged.push(Untagged {
                            pc: *pc,
                            mnemonic: mnemonic_of(p),
                            why: "cache maintenance no fence or atomic of this target emits here",
                        });
                        taken += 1;
                    }
                }
            }
            for &j in &run {
                self.claimed[j] = true;
            }
            i = run.last().map_or(i, |&l| l) + 1;
        }
    }

    /// Unclaimed maintenance from `i` on, through waits, up to anything else.
    fn run_from(&self, i: usize) -> Vec<usize> {
        let mut run = Vec::new();
        for j in i..self.pieces.len() {
            match self.pieces[j].1 {
                Piece::Wait(_) => {}
                Piece::Maint { .. } if !self.claimed[j] => run.push(j),
                _ => break,
            }
        }
        run
    }
}

fn mnemonic_of(p: &Piece) -> &'static str {
    match p {
        Piece::Access { mnemonic, .. } | Piece::Maint { mnemonic, .. } | Piece::Barrier { mnemonic } => mnemonic,
        Piece::Wait(_) => "s_waitcnt",
        Piece::Break => "",
    }
}

fn dedup(ops: impl Iterator<Item = Op>) -> Vec<Op> {
    let mut v: Vec<Op> = Vec::new();
    for op in ops {
        if !v.contains(&op) {
            v.push(op);
        }
    }
    v
}
