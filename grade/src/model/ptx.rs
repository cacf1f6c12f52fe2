//! NVIDIA's PTX memory model, versions 6.0 and 7.5, as Dartagnan's `cat/ptx-v6.0.cat` and
//! `cat/ptx-v7.5.cat` (Dat3M @30640123) state it (after Lustig et al., ASPLOS'19, and the
//! PTX ISA's "Memory Consistency Model" chapter).
//!
//! Two operations are *morally strong* when program order relates them, or both are strong
//! (atomic, or fences) at scopes including each other — and, as memory accesses, touch
//! the same bytes (7.5: through the same proxy and the same virtual address). A release
//! pattern observed by an acquire pattern *synchronizes*; SC fences are totally ordered
//! (`sync_fence`) among those that can synchronize; barriers of one CTA with the same id
//! synchronize. *Causality order* chains these with program order, and the axioms say that
//! coherence, SC fences and reads agree with it.
//!
//! Coherence need not be total in PTX: only writes ordered by causality or morally strong
//! to each other must be ordered. The enumeration gives each candidate a total order `T`;
//! the coherence judged is the least one `T` allows, `(init-first ∪ causality-ordered ∪
//! (T ∩ morally strong))⁺`, which must stay inside `T`. Every partial coherence order that
//! satisfies the axioms is such a least order for each of its linear extensions, and the
//! final value of a location is that of a coherence-maximal write, as Dartagnan takes it.

use super::event::{Event, Kind};
use super::execution::Execution;
use super::relation::{bits, Rel};
use super::scoped::{gpu_barrier_meetings, mask, same_location, Broken, Context, Derived, Model};
use crate::litmus::marks::bit;
use crate::litmus::Placement;
use hipscope_mm::{Order, Scope};

/// What every axiom reads, computed once per execution.
struct Base {
    n: usize,
    writes: u128,
    reads: u128,
    rmw: u128,
    sc_fences: u128,
    /// Morally strong pairs.
    ms: Rel,
    /// Same location (physical) and same virtual address.
    loc: Rel,
    vloc: Rel,
    /// Program order on the same virtual address (6.0: the same location).
    po_loc: Rel,
    /// 7.5: the generic proxy (memory accesses and the memory-ordering fences).
    generic: u128,
    /// Same proxy, same CTA: the pairs a proxy fence orders.
    proxy_cta: Rel,
    alias_fences: u128,
    /// Same proxy, same CTA, same virtual address.
    proxy_cta_vloc: Rel,
    po: Rel,
    sync: Rel,
    barriers: Rel,
    /// `observation`: morally strong reads-from, chained through read-modify-writes.
    observation: Rel,
}

pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let v75 = ctx.model == Model::Ptx75;
    let b = base(ctx, x, v75);
    if !x.rf.union(&x.dep).is_acyclic() {
        return Err(Broken::ThinAir);
    }
    let sc: Vec<usize> = bits(b.sc_fences).collect();
    let mut first_error = Broken::SeqCst;
    for order in fence_orders(&sc) {
        let sync_fence = sync_fence(ctx, x, &b, &order);
        match judge_with(ctx, x, &b, &sync_fence, v75) {
            Ok(d) => return Ok(d),
            Err(e) => first_error = e,
        }
    }
    Err(first_error)
}

/// The axioms under one total order of the SC fences.
fn judge_with(ctx: &Context, x: &Execution, b: &Base, sync_fence: &Rel, v75: bool) -> Result<Derived, Broken> {
    let (cause, cause_from_read) = cause(b, sync_fence, v75);
    let n = b.n;
    let init = x.set(|e| e.is_init());
    let init_first = Rel::product(n, init & b.writes, b.writes & !init).intersect(&b.loc);
    let caused = cause.restrict(b.writes, b.writes).intersect(&b.loc);
    let strong_pairs = x.co.intersect(&b.ms).restrict(b.writes, b.writes).intersect(&b.loc);
    let co = init_first.union(&caused).union(&strong_pairs).closure();
    if !co.is_irreflexive() || !co.minus(&x.co).is_empty() {
        return Err(Broken::Coherence);
    }
    let fr = x.rf.inverse().then(&co).irreflexive_part();
    let atomic_break = b.ms.intersect(&fr).then(&b.ms.intersect(&co)).restrict(b.rmw, b.rmw);
    if !atomic_break.is_irreflexive() {
        return Err(Broken::Atomicity);
    }
    let sc_cause = cause.restrict(b.sc_fences, b.sc_fences);
    if !sc_cause.minus(sync_fence).is_empty() {
        return Err(Broken::SeqCst);
    }
    if !v75 && !b.ms.intersect(&x.rf.union(&co).union(&fr)).union(&b.po_loc).is_acyclic() {
        return Err(Broken::Coherence);
    }
    if !x.rf.then(&cause_from_read).is_irreflexive() || !fr.then(&cause).is_irreflexive() {
        return Err(Broken::HappensBefore);
    }
    Ok(Derived { hb: cause, sw: b.sync.clone(), incl: ctx.inclusion(x) })
}

/// Every permutation of the SC fences (one, empty, when there are none).
fn fence_orders(fences: &[usize]) -> Vec<Vec<usize>> {
    if fences.len() <= 1 {
        return vec![fences.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..fences.len() {
        let mut rest = fences.to_vec();
        let first = rest.remove(i);
        for mut tail in fence_orders(&rest) {
            tail.insert(0, first);
            out.push(tail);
        }
    }
    out
}

/// `sync_fence` for one order: SC fences whose scopes include each other's threads, in
/// that order.
fn sync_fence(ctx: &Context, x: &Execution, b: &Base, order: &[usize]) -> Rel {
    let mut r = Rel::empty(b.n);
    for (i, a) in order.iter().enumerate() {
        for c in &order[i + 1..] {
            if mutually_scoped(ctx, &x.events[*a], &x.events[*c]) {
                r.add(*a, *c);
            }
        }
    }
    r
}

/// `sr`: both operations have a scope, and each scope includes the other's thread.
fn mutually_scoped(ctx: &Context, a: &Event, b: &Event) -> bool {
    match (scoped(ctx, a), scoped(ctx, b)) {
        (Some((pa, sa)), Some((pb, sb))) => pa.shares(&pb, sa) && pb.shares(&pa, sb),
        _ => false,
    }
}

fn scoped(ctx: &Context, e: &Event) -> Option<(Placement, Scope)> {
    let m = ctx.marks.get(e.thread, e.span).bits;
    if m & (bit::PROXY_FENCE | bit::ALIAS_FENCE) != 0 {
        return None;
    }
    Some((ctx.placement(e)?, e.order_scope()?.1))
}

fn proxy_of(ctx: &Context, e: &Event) -> Option<u32> {
    let m = ctx.marks.get(e.thread, e.span).bits;
    if m & bit::ALIAS_FENCE != 0 || e.is_init() {
        return None;
    }
    Some(m & (bit::SURFACE | bit::TEXTURE | bit::CONSTANT))
}

fn virtual_address(ctx: &Context, e: &Event) -> Option<u16> {
    let cell = e.cell()?;
    Some(ctx.marks.get(e.thread, e.span).virtual_address.unwrap_or(cell.loc.0))
}

fn base(ctx: &Context, x: &Execution, v75: bool) -> Base {
    let n = x.n();
    let ev = &x.events;
    let fences = x.set(|e| matches!(e.kind, Kind::Fence { .. }));
    let strong = x.set(|e| e.is_atomic()) | fences;
    let loc = same_location(x);
    let vloc = Rel::from_fn(n, |a, c| virtual_address(ctx, &ev[a]).is_some() && virtual_address(ctx, &ev[a]) == virtual_address(ctx, &ev[c]));
    let memory = x.set(|e| e.cell().is_some());
    let po_or_back = x.po.union(&x.po.inverse());
    let mut ms1 = po_or_back.union(&Rel::from_fn(n, |a, c| mutually_scoped(ctx, &ev[a], &ev[c])).restrict(strong, strong));
    ms1 = ms1.restrict(strong | x.set(|e| !e.is_init()), mask(n));
    let same_bytes = Rel::from_fn(n, |a, c| ev[a].bytes() == ev[c].bytes());
    let addr = if v75 { &vloc } else { &loc };
    let ms2 = addr.intersect(&same_bytes).restrict(memory, memory).union(&Rel::product(n, mask(n), mask(n)).minus(&Rel::product(n, memory, memory)));
    let mut ms = ms1.intersect(&ms2);
    let same_proxy = Rel::from_fn(n, |a, c| proxy_of(ctx, &ev[a]).is_some() && proxy_of(ctx, &ev[a]) == proxy_of(ctx, &ev[c]));
    if v75 {
        ms = ms.intersect(&same_proxy);
    }
    let ms = ms.irreflexive_part();
    let writes = x.set(|e| e.writes());
    let reads = x.set(|e| e.reads());
    let rmw = x.set(|e| matches!(e.kind, Kind::Rmw { .. }));
    let po_loc = x.po.intersect(addr);
    let observation = observation(&ms, x, rmw);
    let sync = sync(x, &ms, &po_loc, &observation, writes, reads, strong);
    let scta = Rel::from_fn(n, |a, c| match (ctx.placement(&ev[a]), ctx.placement(&ev[c])) {
        (Some(pa), Some(pc)) => pa.shares(&pc, Scope::Workgroup),
        _ => false,
    });
    let barriers = gpu_barrier_meetings(ctx, x);
    let sc_fences = x.set(|e| matches!(e.kind, Kind::Fence { order: Order::SeqCst, .. }) && scoped(ctx, e).is_some());
    let generic = x.set(|e| proxy_of(ctx, e) == Some(0) && !e.is_init());
    let alias_fences = x.set(|e| ctx.marks.get(e.thread, e.span).bits & bit::ALIAS_FENCE != 0);
    let proxy_cta = same_proxy.intersect(&scta).restrict(fences, memory);
    let proxy_cta_vloc = same_proxy.intersect(&scta).intersect(&vloc).restrict(memory, memory);
    let po = x.po.clone();
    Base { n, writes, reads, rmw, sc_fences, ms, loc, vloc, po_loc, generic, proxy_cta, alias_fences, proxy_cta_vloc, po, sync, barriers, observation }
}

/// `observation`: `ms ∩ rf`, continued through read-modify-writes (which read one write and
/// are read in turn).
fn observation(ms: &Rel, x: &Execution, rmw: u128) -> Rel {
    let o = ms.intersect(&x.rf);
    let through = o.restrict(mask(x.n()), rmw);
    through.closure().reflexive().then(&o)
}

/// `sync = ms ∩ (release-pattern ; observation ; acquire-pattern)`.
fn sync(x: &Execution, ms: &Rel, po_loc: &Rel, observation: &Rel, writes: u128, reads: u128, strong: u128) -> Rel {
    let order = |pred: fn(Order) -> bool| x.set(|e| e.order_scope().is_some_and(|(o, _)| pred(o)));
    let release = order(Order::releases);
    let acquire = order(Order::acquires);
    let fences = x.set(|e| matches!(e.kind, Kind::Fence { .. }));
    let acq_rel_fences = fences & x.set(|e| matches!(e.kind, Kind::Fence { order: Order::AcqRel | Order::SeqCst, .. }));
    let strong_w = strong & writes;
    let strong_r = strong & reads;
    let release_pattern = po_loc.reflexive().restrict(release & writes & !fences, strong_w).union(&x.po.restrict(acq_rel_fences, strong_w));
    let acquire_pattern = po_loc.reflexive().restrict(strong_r, acquire & reads & !fences).union(&x.po.restrict(strong_r, acq_rel_fences));
    release_pattern.then(observation).then(&acquire_pattern).intersect(ms)
}

/// Causality order, and the part of it that does not start with an observation.
///
/// A read-modify-write is one event here where Dartagnan has a read and a write; an
/// observation starts at the write. So a causality edge out of a read-modify-write that
/// starts with an observation leaves its write, and must not close a cycle with a write
/// the read-modify-write read: the Causality axiom reads `rf ; cause_from_read`.
fn cause(b: &Base, sync_fence: &Rel, v75: bool) -> (Rel, Rel) {
    let po_opt = po_reflexive(b);
    let step = b.sync.union(sync_fence).union(&b.barriers).then(&po_opt);
    let base = po_opt.then(&step.closure());
    if !v75 {
        let full = base.union(&b.observation.then(&base.union(&b.po_loc)));
        return (full, base);
    }
    let preserved = proxy_preserved(b, &base.union(&b.po));
    (b.observation.reflexive().then(&preserved), preserved)
}

fn po_reflexive(b: &Base) -> Rel {
    b.po.reflexive()
}

/// 7.5's `proxy-preserved-cause-base`: causality between accesses of one virtual address
/// through the generic proxy, or through one proxy within a CTA, or bridged by proxy
/// fences (and an alias fence, between virtual aliases of one location).
fn proxy_preserved(b: &Base, cb: &Rel) -> Rel {
    let n = b.n;
    let memory = b.writes | b.reads;
    let generic = b.generic;
    let gen_id = Rel::identity_on(n, generic);
    let pfo = &b.proxy_cta;
    let into_fence = cb.intersect(&pfo.inverse());
    let out_of_fence = cb.intersect(pfo);
    let via_alias = cb.then(&Rel::identity_on(n, b.alias_fences)).then(cb);
    let mut r = gen_id.then(&b.vloc.intersect(cb)).then(&gen_id);
    r.union_with(&b.proxy_cta_vloc.intersect(cb).restrict(memory, memory));
    r.union_with(&b.vloc.intersect(&into_fence.then(cb).then(&gen_id)));
    r.union_with(&b.vloc.intersect(&gen_id.then(cb).then(&out_of_fence)));
    r.union_with(&b.vloc.intersect(&into_fence.then(cb).then(&out_of_fence)));
    r.union_with(&b.loc.intersect(&gen_id.then(&via_alias).then(&gen_id)));
    r.union_with(&b.loc.intersect(&into_fence.then(&via_alias).then(&gen_id)));
    r.union_with(&b.loc.intersect(&gen_id.then(&via_alias).then(&out_of_fence)));
    r.union_with(&b.loc.intersect(&into_fence.then(&via_alias).then(&out_of_fence)));
    r
}
