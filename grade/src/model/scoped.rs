//! The scoped axioms: which candidate executions are consistent, and which conflicting
//! accesses race, under HIP's scoped C++ model and its two relatives.
//!
//! The shape is RC11 (Lahav et al., PLDI'17) without its `po ∪ rf` acyclicity axiom —
//! libhipcxx follows ISO C++, which allows relaxed load buffering, and AMD GPUs show it —
//! with synchronization restricted to operations whose scopes include each other
//! (libhipcxx memory_model.rst: "each operation … specifies a scope that includes the
//! thread that performed each other operation"), and happens-before one transitive
//! closure across scopes (HRF-indirect; HSA and OpenCL agree, mm-grading.md §3).

use super::event::{Event, Kind};
use super::execution::Execution;
use super::relation::{bits, Rel};
use crate::litmus::{Placement, Scope};

/// The memory model to grade under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// libhipcxx's scoped C++ (the default).
    Hip,
    /// The HSA 1.0 model (herd's `hsa.cat`): scopes inclusive as in HIP, but sequentially
    /// consistent fences do not order stores before loads (SB with fences is allowed).
    Hsa,
    /// The OpenCL 2.0 model (Dartagnan's `opencl.cat`): two operations synchronize only when
    /// both name the same scope and share that scope's instance.
    Opencl,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Hip => "hip",
            Model::Hsa => "hsa",
            Model::Opencl => "opencl",
        }
    }

    /// Scope inclusion of two operations' scopes (see [`Model::Opencl`]).
    fn scopes_include(self, a: (Placement, Scope), b: (Placement, Scope)) -> bool {
        let both = a.0.shares(&b.0, a.1) && b.0.shares(&a.0, b.1);
        match self {
            Model::Hip | Model::Hsa => both,
            Model::Opencl => both && a.1 == b.1,
        }
    }

    /// Do sequentially consistent fences take part in the SC order?
    fn sc_fences_order(self) -> bool {
        !matches!(self, Model::Hsa)
    }
}

/// Why two accesses race.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceKind {
    /// At least one access is not atomic.
    Data,
    /// Both are atomic, but a scope does not include the other thread.
    Scope,
    /// Both are atomic with overlapping but different byte ranges.
    MixedSize,
}

/// Which consistency axiom an execution breaks (for explanations and tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Broken {
    HappensBefore,
    Coherence,
    Atomicity,
    SeqCst,
    /// A value justified by itself: a cycle of dependencies and reads-from.
    ThinAir,
}

/// The relations derived from one execution under one model.
pub struct Derived {
    pub hb: Rel,
    pub sw: Rel,
    pub fr: Rel,
    /// Pairs of operations whose scopes include each other.
    pub incl: Rel,
}

/// The threads' placements, indexed by thread; initial writes have none.
pub struct Context<'a> {
    pub model: Model,
    pub placements: &'a [Placement],
}

impl Context<'_> {
    fn placement(&self, e: &Event) -> Option<Placement> {
        self.placements.get(e.thread as usize).copied()
    }

    /// `incl`: both events are atomic accesses or fences whose scopes include each other.
    fn inclusion(&self, x: &Execution) -> Rel {
        let n = x.n();
        let mut incl = Rel::empty(n);
        let scoped: Vec<Option<(Placement, Scope)>> = x.events.iter().map(|e| Some((self.placement(e)?, e.order_scope()?.1))).collect();
        for a in 0..n {
            for b in 0..n {
                if let (Some(sa), Some(sb)) = (scoped[a], scoped[b]) {
                    if self.model.scopes_include(sa, sb) {
                        incl.add(a, b);
                    }
                }
            }
        }
        incl
    }

    /// Derives hb and friends; `None` if the execution is inconsistent.
    pub fn judge(&self, x: &Execution) -> Result<Derived, Broken> {
        let n = x.n();
        let incl = self.inclusion(x);
        let fr = x.fr();
        let sw = self.synchronizes_with(x, &incl);
        let init = x.set(Event::is_init);
        let mut base = x.po.union(&sw);
        base.union_with(&Rel::product(n, init, !init & mask(n)));
        base.union_with(&barrier_sync(self, x));
        let hb = base.closure();
        if !hb.is_irreflexive() {
            return Err(Broken::HappensBefore);
        }
        let eco = x.rf.union(&x.co).union(&fr).closure();
        if !eco.is_irreflexive() || !hb.then(&eco.reflexive()).is_irreflexive() {
            return Err(Broken::Coherence);
        }
        let rmw = x.set(|e| matches!(e.kind, Kind::Rmw { .. }));
        if !fr.then(&x.co).restrict(rmw, rmw).is_irreflexive() {
            return Err(Broken::Atomicity);
        }
        // C++ asks implementations not to produce out-of-thin-air values ([atomics.order]);
        // as herd's models do, a cycle through dependencies and reads-from is rejected,
        // while relaxed load buffering without dependencies stays allowed.
        if !x.dep.union(&x.rf).is_acyclic() {
            return Err(Broken::ThinAir);
        }
        if !self.seq_cst_acyclic(x, &hb, &fr, &eco, &incl) {
            return Err(Broken::SeqCst);
        }
        Ok(Derived { hb, sw, fr, incl })
    }

    /// `sw`: a release (a releasing write, or a releasing fence before an atomic write)
    /// whose release sequence is read, by a morally strong read, by an acquire (an acquiring
    /// read, or an atomic read before an acquiring fence), the release and the acquire
    /// including each other's scope.
    fn synchronizes_with(&self, x: &Execution, incl: &Rel) -> Rel {
        let n = x.n();
        let atomic_w = x.set(|e| e.writes() && e.is_atomic());
        let atomic_r = x.set(|e| e.reads() && e.is_atomic());
        let releasing = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.releases()));
        let acquiring = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.acquires()));
        let fences = x.set(|e| matches!(e.kind, Kind::Fence { .. }));
        let head = Rel::identity_on(n, releasing & atomic_w).union(&x.po.restrict(releasing & fences, atomic_w));
        let rmw = x.set(|e| matches!(e.kind, Kind::Rmw { .. }));
        let release_sequence = x.rf.restrict(atomic_w, rmw).closure().reflexive().restrict(atomic_w, mask(n));
        let strong_rf = x.rf.intersect(incl);
        let tail = Rel::identity_on(n, acquiring & atomic_r).union(&x.po.restrict(atomic_r, acquiring & fences));
        let sw = head.then(&release_sequence).then(&strong_rf).then(&tail).intersect(incl);
        different_threads(x, &sw)
    }

    /// The SC axiom of RC11 (`psc` acyclic), with each edge kept only between operations
    /// whose scopes include each other (OpenCL's `O-Sscoped`, mm-grading.md §8).
    fn seq_cst_acyclic(&self, x: &Execution, hb: &Rel, fr: &Rel, eco: &Rel, incl: &Rel) -> bool {
        let n = x.n();
        let is_sc = |e: &Event| e.order_scope().is_some_and(|(o, _)| o == crate::litmus::Order::SeqCst);
        let sc_access = x.set(|e| is_sc(e) && e.cell().is_some());
        let sc_fence = if self.model.sc_fences_order() { x.set(|e| is_sc(e) && matches!(e.kind, Kind::Fence { .. })) } else { 0 };
        if (sc_access | sc_fence).count_ones() < 2 {
            return true;
        }
        let same_loc = same_location(x);
        let po_other = x.po.minus(&same_loc);
        let scb = x.po.union(&po_other.then(hb).then(&po_other)).union(&hb.intersect(&same_loc)).union(&x.co).union(fr);
        let all = mask(n);
        let left = Rel::identity_on(n, sc_access).union(&Rel::identity_on(n, sc_fence).then(&hb.reflexive()));
        let right = Rel::identity_on(n, sc_access).union(&hb.reflexive().restrict(all, sc_fence));
        let mut psc = left.then(&scb).then(&right);
        let fence_hb = hb.union(&hb.then(eco).then(hb));
        psc.union_with(&fence_hb.restrict(sc_fence, sc_fence));
        psc.intersect(incl).is_acyclic()
    }

    /// Every pair of conflicting accesses of different threads that no happens-before
    /// orders and that are not both atomic at scopes including each other.
    pub fn races(&self, x: &Execution, d: &Derived) -> Vec<(usize, usize, RaceKind)> {
        let mut out = Vec::new();
        for a in 0..x.n() {
            for b in a + 1..x.n() {
                if let Some(kind) = self.race(x, d, a, b) {
                    out.push((a, b, kind));
                }
            }
        }
        out
    }

    fn race(&self, x: &Execution, d: &Derived, a: usize, b: usize) -> Option<RaceKind> {
        let (ea, eb) = (&x.events[a], &x.events[b]);
        let conflicting = ea.thread != eb.thread && !ea.is_init() && !eb.is_init() && ea.overlaps(eb) && (ea.writes() || eb.writes());
        if !conflicting || d.hb.has(a, b) || d.hb.has(b, a) {
            return None;
        }
        if !ea.is_atomic() || !eb.is_atomic() {
            return Some(RaceKind::Data);
        }
        if ea.bytes() != eb.bytes() {
            return Some(RaceKind::MixedSize);
        }
        (!d.incl.has(a, b)).then_some(RaceKind::Scope)
    }
}

/// Work-group barriers: everything before a thread's barrier happens before everything
/// after the matching barrier of each other thread of the same work-group.
fn barrier_sync(ctx: &Context<'_>, x: &Execution) -> Rel {
    let n = x.n();
    let mut meet = Rel::empty(n);
    for (a, ea) in x.events.iter().enumerate() {
        for (b, eb) in x.events.iter().enumerate() {
            if let (Kind::Barrier { key: ka, .. }, Kind::Barrier { key: kb, .. }) = (&ea.kind, &eb.kind) {
                let same_group = match (ctx.placement(ea), ctx.placement(eb)) {
                    (Some(pa), Some(pb)) => pa.shares(&pb, Scope::Workgroup),
                    _ => false,
                };
                if ka == kb && ea.thread != eb.thread && same_group {
                    meet.add(a, b);
                }
            }
        }
    }
    let barriers = x.set(|e| matches!(e.kind, Kind::Barrier { .. }));
    x.po.restrict(mask(n), barriers).then(&meet).then(&x.po.restrict(barriers, mask(n)))
}

/// Pairs of memory events on the same cell.
fn same_location(x: &Execution) -> Rel {
    let n = x.n();
    let mut r = Rel::empty(n);
    for a in 0..n {
        for b in 0..n {
            if x.events[a].cell().is_some() && x.events[a].cell() == x.events[b].cell() {
                r.add(a, b);
            }
        }
    }
    r
}

fn different_threads(x: &Execution, r: &Rel) -> Rel {
    let mut out = Rel::empty(x.n());
    for (a, b) in r.pairs() {
        if x.events[a].thread != x.events[b].thread {
            out.add(a, b);
        }
    }
    out
}

/// All events `0..n` as a set.
pub fn mask(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Used by explanations: the events of a set, in order.
pub fn members(set: u128) -> Vec<usize> {
    bits(set).collect()
}
