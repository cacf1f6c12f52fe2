//! The Vulkan memory model (Khronos `Vulkan-MemoryModel`), as Dartagnan's `cat/vulkan.cat`
//! (Dat3M @30640123, availability/visibility chains included) states it.
//!
//! Synchronization is C++-like (release sequences through read-modify-writes, fences,
//! control barriers with semantics) but only between operations whose scopes include each
//! other (`inscope`), and happens-before is built per set of storage classes a release or
//! acquire names in its semantics. A plain write reaches a plain read only along an
//! availability chain (the write made available at some scope) and a visibility chain (the
//! read made visible at the same scope) joined by happens-before: that is *location
//! order* (`locord`). Reads may read any write not shadowed in location order, atomics of
//! one scope instance are coherent (`asmo`), and two accesses race unless they are
//! mutually ordered atomics or location order relates them.

use super::event::Kind;
use super::execution::Execution;
use super::relation::Rel;
use super::scoped::{gpu_barrier_meetings, mask, same_location, Broken, Context, Derived};
use crate::litmus::marks::bit;
use hipscope_mm::{Order, Scope};

/// The event sets the model names, as bit sets over the execution's events.
struct Sets {
    n: usize,
    r: u128,
    w: u128,
    init: u128,
    atom: u128,
    rmw: u128,
    rel: u128,
    acq: u128,
    /// Memory-ordering fences: `membar`, and control barriers that name an order.
    f: u128,
    cbar: u128,
    nonpriv: u128,
    avdevice: u128,
    visdevice: u128,
    /// Storage class `i` of an access; storage-class semantics `i` of a synchronizing
    /// operation.
    sc: [u128; 4],
    semsc: [u128; 4],
    av: u128,
    vis: u128,
    semav: u128,
    semvis: u128,
    sg: u128,
    wg: u128,
    qf: u128,
    dv: u128,
}

fn sets(ctx: &Context, x: &Execution) -> Sets {
    let m = |e: &super::event::Event| ctx.marks.get(e.thread, e.span).bits;
    let has = |b: u32| x.set(|e| !e.is_init() && m(e) & b != 0);
    let order = |pred: fn(Order) -> bool| x.set(|e| e.order_scope().is_some_and(|(o, _)| pred(o)));
    let cbar = x.set(|e| matches!(e.kind, Kind::Barrier { .. }));
    let marked_cbar_order = |b: u32| cbar & has(b);
    let devices = has(bit::AVDEVICE | bit::VISDEVICE);
    let fences = x.set(|e| matches!(e.kind, Kind::Fence { .. })) & !devices;
    let rel = order(Order::releases) | marked_cbar_order(bit::CBAR_REL);
    let acq = order(Order::acquires) | marked_cbar_order(bit::CBAR_ACQ);
    let atom = x.set(|e| e.is_atomic());
    let sc = [0, 1, 2, 3].map(|i| has(bit::SC0 << i));
    let semsc = [0, 1, 2, 3].map(|i| has(bit::SEMSC0 << i));
    Sets {
        n: x.n(),
        r: x.set(|e| e.reads()),
        w: x.set(|e| e.writes()),
        init: x.set(|e| e.is_init()),
        atom,
        rmw: x.set(|e| matches!(e.kind, Kind::Rmw { .. })),
        rel,
        acq,
        f: fences | (cbar & (rel | acq)),
        cbar,
        nonpriv: has(bit::NONPRIV) | atom,
        avdevice: has(bit::AVDEVICE),
        visdevice: has(bit::VISDEVICE),
        sc,
        semsc,
        av: has(bit::AV),
        vis: has(bit::VIS),
        semav: has(bit::SEMAV),
        semvis: has(bit::SEMVIS),
        sg: has(bit::SG),
        wg: has(bit::WG),
        qf: has(bit::QF),
        dv: has(bit::DV),
    }
}

/// The instance relations of the thread hierarchy: same subgroup, work-group, queue family.
struct Instances {
    ssg: Rel,
    swg: Rel,
    sqf: Rel,
    int: Rel,
    ext: Rel,
}

fn instances(ctx: &Context, x: &Execution) -> Instances {
    let n = x.n();
    let ev = &x.events;
    let same = |scope: Scope| {
        Rel::from_fn(n, |a, b| match (ctx.placement(&ev[a]), ctx.placement(&ev[b])) {
            (Some(pa), Some(pb)) => pa.shares(&pb, scope),
            _ => false,
        })
    };
    let int = Rel::from_fn(n, |a, b| ev[a].thread == ev[b].thread);
    let ext = Rel::product(n, mask(n), mask(n)).minus(&int);
    Instances { ssg: same(Scope::Wavefront), swg: same(Scope::Workgroup), sqf: same(Scope::Agent), int, ext }
}

pub fn judge(ctx: &Context, x: &Execution) -> Result<Derived, Broken> {
    let s = sets(ctx, x);
    let inst = instances(ctx, x);
    let n = s.n;
    let all = mask(n);
    let loc = same_location(x);
    let vloc = virtual_location(ctx, x);
    let inscope = inscope(&s, &inst);
    let mutordatom = loc.intersect(&vloc).intersect(&inscope).restrict(s.atom, s.atom).irreflexive_part();
    let asmo = x.co.intersect(&mutordatom);
    let ssw = system_sync(ctx, x);
    let sw = synchronizes_with(ctx, x, &s, &inscope, &mutordatom, &asmo);
    let hb = happens_before(x, &s, &sw, &ssw);
    let avvisinc = avvis_include(&s, &loc, &vloc);
    let locord = location_order(x, &s, &inst, &hb, &avvisinc, &ssw, &loc, &vloc);
    let rf_ord = x.rf.intersect(&locord);
    let ww = Rel::product(n, s.w, s.w);
    let mut fr = rf_ord.inverse().then(&ww.intersect(&locord));
    fr.union_with(&x.rf.inverse().then(&asmo));
    let init_rf = x.rf.restrict(s.init, all);
    fr.union_with(&init_rf.inverse().then(&loc.restrict(all, s.w).irreflexive_part()));
    let fr = fr.irreflexive_part();
    if !locord.union(&x.rf).union(&fr).union(&asmo).is_acyclic() {
        return Err(Broken::Coherence);
    }
    let w_locord = locord.restrict(s.w, all);
    let shadowed = w_locord.then(&w_locord.closure());
    if !x.rf.restrict(all, s.r & !s.atom).intersect(&shadowed).is_empty() {
        return Err(Broken::Coherence);
    }
    let fre = fr.intersect(&inst.ext);
    if !fre.then(&asmo.intersect(&inst.ext)).restrict(s.rmw, s.rmw).is_irreflexive() {
        return Err(Broken::Atomicity);
    }
    // Races: hipscope's rule reads `hb` as the order that makes two accesses not race and
    // `incl` as the atomics that never race; Vulkan's are location order and `mutordatom`.
    Ok(Derived { hb: locord, sw, incl: mutordatom })
}

/// Does coherence follow program order from `a` to a later `b` of the same thread at the
/// same cell? It does when both are atomic with a scope and name the cell through one
/// virtual address: location order contains `hb ∩ int ∩ vloc` and `hb` contains `po`, so
/// `b` read by `a` closes a cycle of `locord ∪ rf`, and, both writes, `b` before `a` in
/// coherence is in `asmo` (`mutordatom` holds: atomic, same location and virtual address,
/// each in the other's scope, the same thread being in every instance) and closes one of
/// `locord ∪ asmo` — both forbidden by the coherence axiom [`judge`] checks. The
/// enumeration cuts such candidates early ([`super::execution::Prune`]).
pub fn po_coherent(ctx: &Context) -> impl Fn(&super::event::Event, &super::event::Event) -> bool + '_ {
    let scopes = bit::SG | bit::WG | bit::QF | bit::DV;
    move |a, b| {
        let va = |e: &super::event::Event| e.cell().map(|c| ctx.marks.get(e.thread, e.span).virtual_address.unwrap_or(c.loc.0));
        let scoped = |e: &super::event::Event| e.is_atomic() && ctx.marks.get(e.thread, e.span).bits & scopes != 0;
        a.thread == b.thread && a.cell().is_some() && a.cell() == b.cell() && va(a) == va(b) && scoped(a) && scoped(b)
    }
}

/// `vloc`: the same virtual address (an alias names the same location through another).
fn virtual_location(ctx: &Context, x: &Execution) -> Rel {
    let va = |i: usize| {
        let e = &x.events[i];
        let cell = e.cell()?;
        Some(ctx.marks.get(e.thread, e.span).virtual_address.unwrap_or(cell.loc.0))
    };
    Rel::from_fn(x.n(), |a, b| va(a).is_some() && va(a) == va(b))
}

/// `inscope`: both operations' scopes include the other's thread.
fn inscope(s: &Sets, i: &Instances) -> Rel {
    let n = s.n;
    let dv = s.dv;
    let qf = dv | s.qf;
    let wg = qf | s.wg;
    let sg = wg | s.sg;
    let mut r = Rel::product(n, dv, dv);
    r.union_with(&i.sqf.restrict(qf, qf));
    r.union_with(&i.swg.restrict(wg, wg));
    r.union_with(&i.ssg.restrict(sg, sg));
    r
}

/// `ssw`: the pairs the test declares system-synchronize.
fn system_sync(ctx: &Context, x: &Execution) -> Rel {
    let ev = &x.events;
    Rel::from_fn(x.n(), |a, b| !ev[a].is_init() && !ev[b].is_init() && ctx.marks.ssw.contains(&(ev[a].thread, ev[b].thread)))
}

/// `r \ (r ; r⁺)`.
fn immediate(r: &Rel) -> Rel {
    r.minus(&r.then(&r.closure()))
}

/// `sw`: release/acquire between atomics or fences, through release sequences, and
/// fence → control barrier → control barrier → fence.
fn synchronizes_with(ctx: &Context, x: &Execution, s: &Sets, inscope: &Rel, mutordatom: &Rel, asmo: &Rel) -> Rel {
    let n = s.n;
    let all = mask(n);
    let seq = immediate(asmo).restrict(all, s.rmw).closure().reflexive();
    let rs = seq.restrict(s.rel & s.atom, all);
    let hypors = seq.restrict(s.w & s.atom, all);
    let rf_m = x.rf.intersect(mutordatom);
    let sem_to_sc = sc_sem_po(x, s, false);
    let sc_to_sem = sc_sem_po(x, s, true);
    let rel_atom = Rel::identity_on(n, s.rel & s.atom);
    let rel_f = Rel::identity_on(n, s.rel & s.f);
    let from_fence = rel_f.then(&sem_to_sc).restrict(all, s.atom & s.w).then(&hypors);
    let atom_release = rel_atom.then(&rs);
    let mut sw = atom_release.then(&rf_m).restrict(all, s.acq & s.atom);
    sw.union_with(&from_fence.then(&rf_m).restrict(all, s.acq & s.atom));
    sw.union_with(&atom_release.then(&rf_m).restrict(all, s.atom & s.r).then(&sc_to_sem).restrict(all, s.acq & s.f));
    sw.union_with(&from_fence.then(&rf_m).restrict(all, s.atom & s.r).then(&sc_to_sem).restrict(all, s.acq & s.f));
    let meet = gpu_barrier_meetings(ctx, x).intersect(inscope);
    let po_opt = x.po.reflexive();
    sw.union_with(&rel_f.then(&po_opt).restrict(all, s.cbar).then(&meet).then(&po_opt).restrict(all, s.acq & s.f));
    sw.intersect(inscope)
}

/// `posctosem` (`to_semantics`) or `posemtosc`: program order from an access of storage
/// class `i` to an operation with semantics `i`, or the reverse.
fn sc_sem_po(x: &Execution, s: &Sets, to_semantics: bool) -> Rel {
    let mut r = Rel::empty(s.n);
    for i in 0..4 {
        let (from, to) = if to_semantics { (s.sc[i], s.semsc[i]) } else { (s.semsc[i], s.sc[i]) };
        r.union_with(&x.po.restrict(from, to));
    }
    r
}

/// `hb = po ∪ ⋃ ithbsemsc(SC, SEMSC)` over the fifteen non-empty sets of storage classes.
fn happens_before(x: &Execution, s: &Sets, sw: &Rel, ssw: &Rel) -> Rel {
    let n = s.n;
    let mut hb = x.po.clone();
    for subset in 1u32..16 {
        let classes: Vec<usize> = (0..4).filter(|i| subset >> i & 1 == 1).collect();
        let sc = classes.iter().fold(0u128, |acc, i| acc | s.sc[*i]);
        let semsc = classes.iter().fold(mask(n), |acc, i| acc & s.semsc[*i]);
        let mut step = ssw.clone();
        step.union_with(&sw.restrict(semsc, semsc));
        step.union_with(&x.po.restrict(sc | semsc, s.rel & semsc));
        step.union_with(&x.po.restrict(s.acq & semsc, sc | semsc));
        hb.union_with(&step.closure());
    }
    hb
}

/// `avvisinc`: an availability or visibility operation includes the access (by storage
/// class and semantics, or as the same access).
fn avvis_include(s: &Sets, loc: &Rel, vloc: &Rel) -> Rel {
    let n = s.n;
    let any_sc = s.sc.iter().fold(0, |a, b| a | b);
    let mut r = Rel::product(n, any_sc, s.avdevice);
    r.union_with(&Rel::product(n, s.visdevice, any_sc));
    for i in 0..4 {
        r.union_with(&Rel::product(n, s.sc[i], s.semsc[i] & s.semav));
        r.union_with(&Rel::product(n, s.semsc[i] & s.semvis, s.sc[i]));
    }
    let set = vloc.intersect(loc).restrict(s.av | s.vis, mask(n));
    r.union_with(&set);
    r.union_with(&set.inverse());
    r
}

/// The availability (`av_*`) and visibility (`vis_*`) chain relations of each domain.
struct Chains {
    avsg: Rel,
    avwg: Rel,
    avqf: Rel,
    avsh: Rel,
    avdv: Rel,
    vissg: Rel,
    viswg: Rel,
    visqf: Rel,
    vissh: Rel,
    visdv: Rel,
}

fn chains(s: &Sets, hb: &Rel, inc: &Rel, i: &Instances) -> Chains {
    let n = s.n;
    let e = (s.r | s.w | s.f | s.cbar | s.avdevice | s.visdevice) & !s.init;
    let ch = Rel::product(n, e, e);
    let id = |set: u128| Rel::identity_on(n, set);
    let (av_any, vis_any) = (s.av | s.semav, s.vis | s.semvis);
    let (qf_up, wg_up) = (s.dv | s.qf, s.dv | s.qf | s.wg);
    let x_sg = hb.intersect(&i.ssg).intersect(inc);
    let x_wg = hb.intersect(&i.swg).intersect(inc);
    let x_qf = hb.intersect(&i.sqf).intersect(inc);
    let avsg = id(av_any);
    let avwg = ch.intersect(&avsg.then(&x_sg).reflexive()).restrict(mask(n), av_any & wg_up);
    let avqf = ch.intersect(&avsg.then(&x_sg).reflexive().then(&avwg.then(&x_wg).reflexive())).restrict(mask(n), av_any & qf_up);
    let to_sh = avsg.then(&x_sg).reflexive().then(&avwg.then(&x_wg).reflexive()).then(&avqf.then(&x_qf).reflexive());
    let avsh = ch.intersect(&to_sh).restrict(mask(n), av_any & s.dv);
    let vissg = id(vis_any);
    let viswg = ch.intersect(&x_sg.then(&vissg).reflexive()).restrict(vis_any & wg_up, mask(n));
    let visqf = ch.intersect(&x_wg.then(&viswg).reflexive().then(&x_sg.then(&vissg).reflexive())).restrict(vis_any & qf_up, mask(n));
    let from_sh = x_qf.then(&visqf).reflexive().then(&x_wg.then(&viswg).reflexive()).then(&x_sg.then(&vissg).reflexive());
    let vissh = ch.intersect(&from_sh).restrict(vis_any & s.dv, mask(n));
    Chains { avsg, avwg, avqf, avsh, avdv: id(s.avdevice), vissg, viswg, visqf, vissh, visdv: id(s.visdevice) }
}

/// `locord`: the order between accesses of one location that the model guarantees.
#[allow(clippy::too_many_arguments)]
fn location_order(x: &Execution, s: &Sets, i: &Instances, hb: &Rel, inc: &Rel, ssw: &Rel, loc: &Rel, vloc: &Rel) -> Rel {
    let n = s.n;
    let all = mask(n);
    let c = chains(s, hb, inc, i);
    let np_w = s.w & s.nonpriv;
    let np_r = s.r & s.nonpriv;
    let po_inc = x.po.reflexive().intersect(inc);
    let mut r = hb.intersect(&i.int).intersect(vloc);
    r.union_with(&hb.restrict(np_r, (s.r | s.w) & s.nonpriv));
    r.union_with(&ssw.closure().restrict(s.r, s.r | s.w));
    let start = po_inc.restrict(np_w, all);
    let end = po_inc.restrict(all, np_r);
    let hb_ssg = hb.intersect(&i.ssg);
    let hb_swg = hb.intersect(&i.swg);
    let hb_sqf = hb.intersect(&i.sqf);
    for (av, inst_hb, vis) in [(&c.avsg, &hb_ssg, &c.vissg), (&c.avwg, &hb_swg, &c.viswg), (&c.avqf, &hb_sqf, &c.visqf), (&c.avsh, hb, &c.vissh)] {
        let made = start.then(av).then(inst_hb);
        r.union_with(&vloc.intersect(&made.restrict(all, np_w)));
        r.union_with(&vloc.intersect(&made.then(vis).then(&end)));
    }
    let hb_inc = hb.intersect(inc);
    let device = hb_inc.restrict(s.w, all).then(&c.avdv).then(hb);
    r.union_with(&device.restrict(all, s.w));
    r.union_with(&device.then(&c.visdv).then(&hb_inc).restrict(all, s.r));
    r.intersect(loc)
}
