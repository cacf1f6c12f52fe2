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
use super::scoped::{barrier_sync, different_threads, mask, same_location, space_tags, Broken, Context, Derived, SpaceTags};

/// Derives hb and friends; `None` if the execution is inconsistent.
pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let incl = ctx.inclusion(x);
    let fr = x.fr();
    let (hb, sw) = happens_before(ctx, x, &incl);
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
    Ok(Derived { hb, sw, incl })
}

/// Happens-before and synchronizes-with. Without local (`__shared__`) memory, hb is
/// `(po ∪ sw ∪ barriers ∪ init)⁺`. With it, as in OpenCL's model, each memory space has
/// its own hb built from that space's accesses and fences: synchronizing through a
/// `__shared__` flag orders shared-memory accesses only (mm-grading.md §7.4 case 10, after
/// OpenCL's ISA2_broken), unless the operations are seq_cst or fence both spaces
/// (`__threadfence*`, `__syncthreads` do).
fn happens_before(ctx: &Context, x: &Execution, incl: &Rel) -> (Rel, Rel) {
    let n = x.n();
    let all = mask(n);
    let init = x.set(Event::is_init);
    let SpaceTags { global, local } = space_tags(ctx, x, true);
    let barriers = barrier_sync(ctx, x);
    let init_first = Rel::product(n, init, !init & all);
    if local & !init == 0 {
        let sw = synchronizes_with(x, incl, all);
        let base = x.po.union(&sw).union(&init_first).union(&barriers);
        return (base.closure(), sw);
    }
    let (sw_g, sw_l) = (synchronizes_with(x, incl, global), synchronizes_with(x, incl, local));
    let sc = x.set(|e| e.order_scope().is_some_and(|(o, _)| o == hipscope_mm::Order::SeqCst));
    let both = global & local;
    let bridge = Rel::product(n, sc, sc).union(&Rel::product(n, both, both));
    let per_space = |tag: u128, own: &Rel, other: &Rel| {
        let sw = own.union(&bridge.intersect(other));
        let base = x.po.restrict(tag, tag).union(&init_first.restrict(tag, tag)).union(&sw).union(&barriers.restrict(tag, tag));
        (base.closure(), sw)
    };
    let (ghb, gsw) = per_space(global, &sw_g, &sw_l);
    let (lhb, lsw) = per_space(local, &sw_l, &sw_g);
    (ghb.union(&lhb), gsw.union(&lsw))
}

/// `sw`: a release (a releasing write, or a releasing fence before an atomic write)
/// whose release sequence is read, by a morally strong read, by an acquire (an acquiring
/// read, or an atomic read before an acquiring fence), the release and the acquire
/// including each other's scope — all of it among the events of `space` (a memory space's
/// accesses and the fences that order it).
fn synchronizes_with(x: &Execution, incl: &Rel, space: u128) -> Rel {
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
    let sw = head.then(&release_sequence).then(&strong_rf.restrict(space, space)).then(&tail).intersect(incl);
    different_threads(x, &sw.restrict(space, space))
}

/// The SC axiom of RC11 (`psc` acyclic), with each edge kept only between operations
/// whose scopes include each other (OpenCL's `O-Sscoped`, mm-grading.md §8).
fn seq_cst_acyclic(x: &Execution, hb: &Rel, fr: &Rel, eco: &Rel, incl: &Rel) -> bool {
    let n = x.n();
    let is_sc = |e: &Event| e.order_scope().is_some_and(|(o, _)| o == hipscope_mm::Order::SeqCst);
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
