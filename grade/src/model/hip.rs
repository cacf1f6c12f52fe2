//! libhipcxx's scoped C++ model, the default grade.
//!
//! The shape is RC11 (Lahav et al., PLDI'17) without its `po ∪ rf` acyclicity axiom —
//! libhipcxx follows ISO C++, which allows relaxed load buffering, and AMD GPUs show it —
//! with synchronization restricted to operations whose scopes include each other
//! (libhipcxx memory_model.rst: "each operation … specifies a scope that includes the
//! thread that performed each other operation"), and happens-before one transitive
//! closure across scopes (HRF-indirect; HSA and OpenCL agree, mm-grading.md §3).

use super::event::{Event, Kind};
use super::execution::Execution;
use super::relation::Rel;
use super::scoped::{barrier_sync, different_threads, mask, same_location, Broken, Context, Derived};

/// Derives hb and friends; `None` if the execution is inconsistent.
pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let n = x.n();
    let incl = ctx.inclusion(x);
    let fr = x.fr();
    let sw = synchronizes_with(x, &incl);
    let init = x.set(Event::is_init);
    let mut base = x.po.union(&sw);
    base.union_with(&Rel::product(n, init, !init & mask(n)));
    base.union_with(&barrier_sync(ctx, x));
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
    if !seq_cst_acyclic(x, &hb, &fr, &eco, &incl) {
        return Err(Broken::SeqCst);
    }
    Ok(Derived { hb, sw, fr, incl })
}

/// `sw`: a release (a releasing write, or a releasing fence before an atomic write)
/// whose release sequence is read, by a morally strong read, by an acquire (an acquiring
/// read, or an atomic read before an acquiring fence), the release and the acquire
/// including each other's scope.
fn synchronizes_with(x: &Execution, incl: &Rel) -> Rel {
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
fn seq_cst_acyclic(x: &Execution, hb: &Rel, fr: &Rel, eco: &Rel, incl: &Rel) -> bool {
    let n = x.n();
    let is_sc = |e: &Event| e.order_scope().is_some_and(|(o, _)| o == crate::litmus::Order::SeqCst);
    let sc_access = x.set(|e| is_sc(e) && e.cell().is_some());
    let sc_fence = x.set(|e| is_sc(e) && matches!(e.kind, Kind::Fence { .. }));
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
