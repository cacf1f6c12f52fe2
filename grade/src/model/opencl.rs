//! The OpenCL 2.0 scoped model of Batty, Donaldson and Wickerson (POPL'16), in the form of
//! Dartagnan's `cat/opencl.cat` (Dat3M @30640123).
//!
//! What sets it apart: two operations are *inclusive* only when both name the same scope
//! and share its instance (a work-group-scope store and a device-scope load never
//! synchronize); happens-before is split into a global and a local relation, each built
//! from the accesses and fences of its memory space (a chain through local memory orders
//! nothing in global memory unless the operations are SC or fence both spaces); non-atomic
//! locations have no modification order; barriers synchronize the work-items of one
//! work-group that meet at the same barrier.
//! A load of a non-atomic location must read a store visible to it (`O-NaRf`). Pointers
//! without an address-space qualifier are in OpenCL's generic space, which Dartagnan tags
//! neither global nor local: their accesses join neither happens-before nor `O-NaRf`
//! (herd's LB and ISA2 with unqualified `volatile int*` are reachable and racy there).

use super::event::{Event, Kind};
use super::execution::Execution;
use super::relation::Rel;
use super::scoped::{barrier_meetings, different_threads, mask, same_location, space_tags, Broken, Context, Derived};
use hipscope_mm::{Order, Scope};

pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let n = x.n();
    let all = mask(n);
    let incl = ctx.inclusion(x);
    let tags = space_tags(ctx, x, false);
    let atomic_loc = x.set(|e| e.cell().is_some_and(|c| !ctx.nonatomic(c.loc)));
    let mo = x.co.restrict(atomic_loc, atomic_loc);
    let rb = {
        let mut r = x.rf.inverse().then(&mo);
        for a in 0..n {
            r.remove(a, a);
        }
        r
    };
    let sc = x.set(|e| e.order_scope().is_some_and(|(o, _)| o == Order::SeqCst));
    let both = tags.global & tags.local;
    let scf = Rel::product(n, sc, sc).union(&Rel::product(n, both, both));
    let sw_g = release_acquire(x, &incl, &mo, tags.global);
    let sw_l = release_acquire(x, &incl, &mo, tags.local);
    let gsw = sw_g.union(&barrier_meetings(ctx, x, tags.global)).union(&scf.intersect(&sw_l));
    let lsw = sw_l.union(&barrier_meetings(ctx, x, tags.local)).union(&scf.intersect(&sw_g));
    let ghb = happens_before(x, tags.global, &gsw);
    let lhb = happens_before(x, tags.local, &lsw);
    let hb = ghb.union(&lhb);
    if !ghb.is_irreflexive() || !lhb.is_irreflexive() {
        return Err(Broken::HappensBefore);
    }
    let coh = |hb: &Rel| x.rf.inverse().reflexive().then(&mo).then(&x.rf.reflexive()).then(hb);
    if !coh(&ghb).is_irreflexive() || !coh(&lhb).is_irreflexive() || !x.rf.then(&hb).is_irreflexive() {
        return Err(Broken::Coherence);
    }
    // O-NaRf: a load of a non-atomic location reads a store visible to it.
    let nal_reads = x.set(|e| e.reads() && e.cell().is_some_and(|c| ctx.nonatomic(c.loc)));
    for (space_tag, space_hb) in [(tags.global, &ghb), (tags.local, &lhb)] {
        let must_see = x.rf.restrict(all, nal_reads & space_tag);
        if !must_see.minus(&visible(x, space_hb)).is_empty() {
            return Err(Broken::Coherence);
        }
    }
    let rmw = x.set(|e| matches!(e.kind, Kind::Rmw { .. }));
    if !x.fr().then(&x.co).restrict(rmw, rmw).is_irreflexive() {
        return Err(Broken::Atomicity);
    }
    let fences = x.set(|e| matches!(e.kind, Kind::Fence { .. }));
    let fence_po = x.po.restrict(fences, all).reflexive();
    let po_fence = x.po.restrict(all, fences).reflexive();
    let scp = fence_po.then(&rb.union(&mo).union(&hb)).then(&po_fence);
    if !scp.restrict(sc, sc).intersect(&incl).is_acyclic() {
        return Err(Broken::SeqCst);
    }
    Ok(Derived { hb, sw: gsw.union(&lsw), incl })
}

/// `ra_sw(r)`: a release (or a release fence before a write), its release sequence, a read
/// of it, and an acquire (or an acquire fence after the read), all in the space `tag`,
/// the release and the acquire inclusive, in different work-items; work-item-scope
/// accesses never synchronize.
fn release_acquire(x: &Execution, incl: &Rel, mo: &Rel, tag: u128) -> Rel {
    let n = x.n();
    let all = mask(n);
    let releasing = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.releases()) && (e.writes() || is_fence(e)));
    let acquiring = x.set(|e| e.order_scope().is_some_and(|(o, _)| o.acquires()) && (e.reads() || is_fence(e)));
    let work_item = x.set(|e| e.order_scope().is_some_and(|(_, s)| s == Scope::WorkItem));
    let fences = x.set(is_fence);
    // Plain stores carry work-item scope in Dartagnan (DEFAULT_WEAK_SCOPE), so only atomic
    // writes can be read to synchronize.
    let writes = x.set(|e| e.writes() && e.is_atomic()) & !work_item;
    let reads = x.set(|e| e.reads()) & !work_item;
    let start = Rel::identity_on(n, releasing & tag).then(&x.po.restrict(fences, all).reflexive()).restrict(all, writes);
    let rs = release_sequence(x, mo).reflexive().restrict(all, tag);
    let end = x.po.restrict(all, fences).reflexive().restrict(all, acquiring & tag);
    let sw = start.then(&rs).then(&x.rf.restrict(all, reads)).then(&end).intersect(incl);
    different_threads(x, &sw)
}

/// `rs`: the writes `mo`-after a write that are RMWs or by the same work-item, with no
/// other write in between.
fn release_sequence(x: &Execution, mo: &Rel) -> Rel {
    let n = x.n();
    let rmw = x.set(|e| matches!(e.kind, Kind::Rmw { .. }));
    let mut prime = Rel::product(n, mask(n), rmw);
    for (a, ea) in x.events.iter().enumerate() {
        for (b, eb) in x.events.iter().enumerate() {
            if ea.thread == eb.thread {
                prime.add(a, b);
            }
        }
    }
    let broken = mo.minus(&prime).then(mo);
    mo.intersect(&prime).minus(&broken)
}

/// `(([tag]; po; [tag]) | ([tag]; IW × ¬IW; [tag]) | sw)⁺ \ id`.
fn happens_before(x: &Execution, tag: u128, sw: &Rel) -> Rel {
    let n = x.n();
    let init = x.set(|e| e.is_init());
    let mut base = x.po.restrict(tag, tag);
    base.union_with(&Rel::product(n, init & tag, !init & tag & mask(n)));
    base.union_with(sw);
    let mut hb = base.closure();
    for a in 0..n {
        hb.remove(a, a);
    }
    hb
}

/// `vis(hb)`: a write hb-before a read of its location with no write hb-between them.
fn visible(x: &Execution, hb: &Rel) -> Rel {
    let n = x.n();
    let writes = x.set(|e| e.writes());
    let reads = x.set(|e| e.reads());
    let hb_loc = hb.intersect(&same_location(x));
    let hidden = hb_loc.restrict(mask(n), writes).then(hb);
    hb_loc.restrict(writes, reads).minus(&hidden)
}

fn is_fence(e: &Event) -> bool {
    matches!(e.kind, Kind::Fence { .. })
}
