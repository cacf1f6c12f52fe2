//! What the three models share: scope inclusion, the derived relations a judged execution
//! yields, barrier synchronization, and the race rule (two conflicting accesses of
//! different threads, unordered by happens-before, not both atomic at scopes including
//! each other). Each model's consistency axioms are in its own module.

use super::event::{Event, Kind};
use super::execution::Execution;
use super::relation::Rel;

use crate::litmus::{for_each_stmt, Dialect, Litmus, LocId, Placement, Stmt};

use hipscope_mm::{Access, Scope, Space};

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
    /// NVIDIA PTX 6.0 (Dartagnan's `ptx-v6.0.cat`): morally strong operations, causality
    /// order, coherence that need not be total.
    #[serde(rename = "ptx6.0")]
    Ptx60,
    /// NVIDIA PTX 7.5 (Dartagnan's `ptx-v7.5.cat`): PTX 6.0 with proxies (surface, texture,
    /// constant) and virtual aliases, ordered only through proxy and alias fences.
    #[serde(rename = "ptx7.5")]
    Ptx75,
    /// The Vulkan memory model (Dartagnan's `vulkan.cat`): availability and visibility
    /// chains, storage classes, and its data-race rule.
    Vulkan,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Hip => "hip",
            Model::Hsa => "hsa",
            Model::Opencl => "opencl",
            Model::Ptx60 => "ptx6.0",
            Model::Ptx75 => "ptx7.5",
            Model::Vulkan => "vulkan",
        }
    }

    /// Scope inclusion of two operations' scopes (see [`Model::Opencl`]).
    fn scopes_include(self, a: (Placement, Scope), b: (Placement, Scope)) -> bool {
        let both = a.0.shares(&b.0, a.1) && b.0.shares(&a.0, b.1);
        match self {
            Model::Hip | Model::Hsa | Model::Ptx60 | Model::Ptx75 | Model::Vulkan => both,
            Model::Opencl => both && a.1 == b.1,
        }
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
    /// Pairs of operations whose scopes include each other.
    pub incl: Rel,
}

/// What the axioms need to know of the test beyond the execution.
pub struct Context {
    pub model: Model,
    /// Each thread's placement, by thread index (initial writes have none).
    pub placements: Vec<Placement>,
    /// Each location's memory space, by location id.
    pub spaces: Vec<Space>,
    /// Locations OpenCL treats as non-atomic (`NAL`): declared with a non-atomic type in
    /// OpenCL tests; in other dialects, never accessed atomically.
    pub nonatomic: Vec<bool>,
    /// PTX proxies and Vulkan availability/visibility marks, by statement.
    pub marks: crate::litmus::marks::GpuMarks,
}

impl Context {
    pub fn new(test: &Litmus, model: Model) -> Context {
        let mut accessed_atomically = vec![false; test.locations.len()];
        for t in &test.threads {
            mark_atomic(&t.body, &mut accessed_atomically);
        }
        let nonatomic =
            test.locations.iter().zip(&accessed_atomically).map(|(l, atomic)| if test.dialect == Dialect::OpenCl { !l.atomic_type } else { !atomic }).collect();
        Context {
            model,
            placements: test.threads.iter().map(|t| t.placement).collect(),
            spaces: test.locations.iter().map(|l| l.space).collect(),
            nonatomic,
            marks: test.marks.clone(),
        }
    }

    pub fn space(&self, loc: LocId) -> Space {
        self.spaces.get(loc.0 as usize).copied().unwrap_or(Space::Global)
    }

    pub fn nonatomic(&self, loc: LocId) -> bool {
        self.nonatomic.get(loc.0 as usize).copied().unwrap_or(true)
    }
}

/// Sets `atomic[loc]` for every location some statement of `body` accesses atomically.
fn mark_atomic(body: &[Stmt], atomic: &mut [bool]) {
    for_each_stmt(body, &mut |_, stmt| {
        if let Some((target, accesses)) = stmt.accesses() {
            if accesses.iter().flatten().any(|a| matches!(a, Access::Atomic { .. })) {
                if let Some(slot) = atomic.get_mut(target.loc.0 as usize) {
                    *slot = true;
                }
            }
        }
    });
}

impl Context {
    pub fn placement(&self, e: &Event) -> Option<Placement> {
        self.placements.get(e.thread as usize).copied()
    }

    /// `incl`: both events are atomic accesses or fences whose scopes include each other.
    pub fn inclusion(&self, x: &Execution) -> Rel {
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

    /// Derives hb and friends under the context's model; `Err` names the axiom an
    /// inconsistent execution breaks.
    pub fn judge(&self, x: &Execution) -> Result<Derived, Broken> {
        match self.model {
            Model::Hip => super::hip::judge(self, x),
            Model::Hsa => super::hsa::judge(self, x),
            Model::Opencl => super::opencl::judge(self, x),
            Model::Ptx60 | Model::Ptx75 => super::ptx::judge(self, x),
            Model::Vulkan => super::vulkan::judge(self, x),
        }
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

/// Barriers that meet: two threads of one work-group at barriers with the same key, both
/// events in `tag` (the barriers ordering a given memory space; all events for every space).
pub fn barrier_meetings(ctx: &Context, x: &Execution, tag: u128) -> Rel {
    let mut meet = Rel::empty(x.n());
    for (a, ea) in x.events.iter().enumerate() {
        for (b, eb) in x.events.iter().enumerate() {
            if let (Kind::Barrier { key: ka, .. }, Kind::Barrier { key: kb, .. }) = (&ea.kind, &eb.kind) {
                let same_group = matches!((ctx.placement(ea), ctx.placement(eb)), (Some(pa), Some(pb)) if pa.shares(&pb, Scope::Workgroup));
                if ka == kb && ea.thread != eb.thread && same_group && tag >> a & 1 == 1 && tag >> b & 1 == 1 {
                    meet.add(a, b);
                }
            }
        }
    }
    meet
}

/// Work-group barriers: everything before a thread's barrier happens before everything
/// after the matching barrier of each other thread of the same work-group.
pub fn barrier_sync(ctx: &Context, x: &Execution) -> Rel {
    let all = mask(x.n());
    let barriers = x.set(|e| matches!(e.kind, Kind::Barrier { .. }));
    x.po.restrict(all, barriers).then(&barrier_meetings(ctx, x, all)).then(&x.po.restrict(barriers, all))
}

/// The events of each memory space: accesses by their cell's space, fences and barriers by
/// the spaces they name.
#[derive(Clone, Copy)]
pub struct SpaceTags {
    pub global: u128,
    pub local: u128,
}

/// Tags every event with its memory spaces. Generic-space accesses count as global when
/// `generic_is_global`; OpenCL's model (as Dartagnan reads it) puts them in neither.
pub fn space_tags(ctx: &Context, x: &Execution, generic_is_global: bool) -> SpaceTags {
    let in_space = |e: &Event, space: Space| match &e.kind {
        Kind::Fence { spaces, .. } | Kind::Barrier { spaces, .. } => spaces.contains(space),
        _ => e.cell().is_some_and(|c| match ctx.space(c.loc) {
            Space::Generic => generic_is_global && space == Space::Global,
            own => own == space,
        }),
    };
    SpaceTags { global: x.set(|e| in_space(e, Space::Global)), local: x.set(|e| in_space(e, Space::Local)) }
}

/// Pairs of memory events on the same cell.
pub fn same_location(x: &Execution) -> Rel {
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

pub fn different_threads(x: &Execution, r: &Rel) -> Rel {
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

/// PTX and Vulkan barriers that meet: barriers with the same id of two threads of one
/// work-group (CTA), the second one waiting (a PTX `bar.arrive` does not wait, so nothing
/// after it is ordered). A barrier with a quorum smaller than the threads meeting at it
/// releases some of them without the others: it synchronizes nothing here — more
/// behaviours than a model that also tracks which thread is left waiting, never fewer.
pub fn gpu_barrier_meetings(ctx: &Context, x: &Execution) -> Rel {
    use crate::litmus::marks::bit;
    let ev = &x.events;
    let key = |e: &Event| match &e.kind {
        Kind::Barrier { key, .. } => Some(key.clone()),
        _ => None,
    };
    let same_group = |a: &Event, b: &Event| matches!((ctx.placement(a), ctx.placement(b)), (Some(pa), Some(pb)) if pa.shares(&pb, Scope::Workgroup));
    let short_quorum = |e: &Event| {
        let Some(q) = ctx.marks.get(e.thread, e.span).quorum else { return false };
        let meeting: std::collections::BTreeSet<u16> =
            ev.iter().filter(|o| key(o).is_some() && key(o) == key(e) && same_group(o, e)).map(|o| o.thread).collect();
        usize::from(q) < meeting.len()
    };
    Rel::from_fn(x.n(), |a, b| {
        let (ea, eb) = (&ev[a], &ev[b]);
        let waits = ctx.marks.get(eb.thread, eb.span).bits & bit::ARRIVE == 0;
        key(ea).is_some() && key(ea) == key(eb) && ea.thread != eb.thread && same_group(ea, eb) && waits && !short_quorum(ea) && !short_quorum(eb)
    })
}
