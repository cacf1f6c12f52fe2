//! The HSA 1.0 memory model, as herd's `hsa.cat` (HSA Foundation, herdtools7 @4666f839,
//! catalogue/hsa/cats) states it.
//!
//! Differences from the scoped C++ model: coherence is one order per location over reads
//! and writes that extends program order (so even ordinary accesses are coherent);
//! synchronization needs only a release write coherence-before an acquire read (no release
//! sequences); sequential consistency is a total order per scope instance over the
//! *synchronizing* operations (release/acquire, not relaxed), which fences join but which
//! only coherence and happens-before constrain — so SC fences do not forbid store
//! buffering; and no value may depend on itself (`acyclic coh | addr | data | ctrl`).

use super::execution::Execution;
use super::relation::Rel;
use super::scoped::{mask, same_location, Broken, Context, Derived};
use hipscope_mm::Order;

pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let n = x.n();
    let incl = ctx.inclusion(x);
    let fr = x.fr();
    // CohPoCons / LoadCons: a per-location order of all accesses extending po exists iff
    // po restricted to the location, rf, co and fr have no cycle.
    let coh = x.po.intersect(&same_location(x)).union(&x.rf).union(&x.co).union(&fr).closure();
    if !coh.is_irreflexive() {
        return Err(Broken::Coherence);
    }
    let rmw = x.set(|e| matches!(e.kind, super::event::Kind::Rmw { .. }));
    if !fr.then(&x.co).restrict(rmw, rmw).is_irreflexive() {
        return Err(Broken::Atomicity);
    }
    if !coh.union(&x.dep).is_acyclic() {
        return Err(Broken::ThinAir);
    }
    let sw = acquire_release(x, &incl);
    let init = x.set(|e| e.is_init());
    let mut base = x.po.union(&sw);
    base.union_with(&Rel::product(n, init, !init & mask(n)));
    let hhb = base.closure();
    if !hhb.is_irreflexive() {
        return Err(Broken::HappensBefore);
    }
    if !hhb.then(&coh).is_irreflexive() {
        return Err(Broken::Coherence);
    }
    // The SC orders: one per scope instance over its synchronizing operations, extending
    // po, coh and hhb; they exist together iff the union restricted to matching pairs of
    // synchronizing operations is acyclic.
    let synchronizing = x.set(|e| e.order_scope().is_some_and(|(o, _)| o != Order::Relaxed));
    let sc = x.po.union(&coh).union(&hhb).restrict(synchronizing, synchronizing).intersect(&incl);
    if !sc.is_acyclic() {
        return Err(Broken::SeqCst);
    }
    Ok(Derived { hb: hhb, sw, incl })
}

/// `acq-rel` of hsa.cat restricted to matching scope instances: a release write and an
/// acquire read coherence-after it, or the same with a release fence before the write or an
/// acquire fence after the read.
fn acquire_release(x: &Execution, incl: &Rel) -> Rel {
    let all = mask(x.n());
    let releasing = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.releases()));
    let acquiring = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.acquires()));
    let fences = x.set(|e| matches!(e.kind, super::event::Kind::Fence { .. }));
    let writes = x.set(|e| e.writes());
    let reads = x.set(|e| e.reads());
    // W coh R: R reads W or a write coherence-after W.
    let write_then_read = x.co.reflexive().then(&x.rf);
    let direct = write_then_read.restrict(releasing & writes, acquiring & reads);
    let fence_first = x.po.restrict(releasing & fences, writes).then(&write_then_read).then(&x.po.reflexive().restrict(reads, all)).restrict(all, acquiring);
    let fence_last = x.po.reflexive().restrict(releasing, writes).then(&write_then_read).then(&x.po.restrict(reads, acquiring & fences));
    direct.union(&fence_first).union(&fence_last).intersect(incl)
}
