//! Does every thread of a litmus test terminate under a GPU progress model?
//!
//! The reference is Dartagnan's liveness check (`Property.TERMINATION`): a test fails to
//! terminate when some consistent execution has a thread stuck in a loop for ever
//! (`NonTerminationEncoder`) while every thread the progress model guarantees to be
//! scheduled has done all it can (`ProgramEncoder.ForwardProgressEncoder`). Concretely, an
//! execution witnesses non-termination when
//!
//! - each thread has run to its end, is stuck in a loop (its last iteration, or for a loop
//!   that stores its last iterations, whose last ones repeat the infix iterations before
//!   them, repeat for ever: [`super::unroll`]), is blocked at a barrier (below), or has
//!   stopped anywhere (not started at all, or part-way), and no loop wanted more iterations
//!   than the bound;
//! - at least one thread is stuck;
//! - the repetition is fair: a stuck iteration's reads read the coherence-last write of
//!   their location or a write of the repeated iterations, no other read reads a write of
//!   the repeated suffix, earlier writes are coherence-before the suffix's, and the
//!   reads-from and coherence edges among the infix iterations are those among the suffix
//!   iterations they match (the suffix's last ones);
//! - the threads that stopped are ones the progress model lets stay unscheduled.
//!
//! Progress is granted down the scope hierarchy (root, agent, work-group, wavefront,
//! thread), as Dartagnan's `ThreadHierarchy`: the root has progress; a group with
//! progress gives it to children as its model says (`ProgressModel`): fair, every child;
//! HSA, each child no lower-id sibling of which can still be scheduled; OBE, each child
//! that has started; HSA_OBE, both; LOBE, each child with a same- or higher-id sibling that
//! has started; unfair, none. A group with progress and a schedulable child also gives
//! progress to some schedulable child. A thread with progress does not stop: it ends,
//! or is stuck. Threads that ended are not schedulable; stuck and stopped ones are.
//! A thread also stays stuck when it waits at a barrier whose quorum more threads than can
//! reach it would have to meet (`bar.cta.sync 1, 1, 4` with three threads); other control
//! barriers do not block here (a thread waiting at a barrier nobody else reaches is not
//! detected).

use std::collections::BTreeMap;
use std::ops::Range;

use super::event::{Event, Kind};
use super::execution::{self, Execution};
use super::scoped::Context;
use super::traces::{self, Run, Runs};
use super::unroll::{RunEnd, Stuck};
use super::{BoundReached, CheckError, Model};
use crate::litmus::{Litmus, Span};

/// A GPU forward-progress model (Sorensen et al., "Specifying and testing GPU workgroup
/// progress models", OOPSLA 2021; Dartagnan's `ProgressModel`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    Fair,
    Hsa,
    Obe,
    HsaObe,
    Lobe,
    Unfair,
}

impl Progress {
    pub const ALL: [Progress; 6] = [Progress::Fair, Progress::Hsa, Progress::Obe, Progress::HsaObe, Progress::Lobe, Progress::Unfair];

    /// The command-line name (`fair`, `hsa`, `obe`, `hsa-obe`, `lobe`, `unfair`).
    pub fn name(self) -> &'static str {
        match self {
            Progress::Fair => "fair",
            Progress::Hsa => "hsa",
            Progress::Obe => "obe",
            Progress::HsaObe => "hsa-obe",
            Progress::Lobe => "lobe",
            Progress::Unfair => "unfair",
        }
    }

    pub fn from_name(name: &str) -> Option<Progress> {
        Progress::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// What the liveness check says of one test.
#[derive(Clone, Debug)]
pub struct Liveness {
    pub progress: Progress,
    pub terminates: bool,
    /// The thread stuck in the witnessing execution, if one does not terminate.
    pub stuck: Option<StuckThread>,
    /// A loop the bound cut (the answer holds up to the bound).
    pub bound_reached: Option<BoundReached>,
}

/// A thread that may loop for ever, and the threads the progress model leaves unscheduled.
#[derive(Clone, Debug, PartialEq)]
pub struct StuckThread {
    pub thread: u16,
    pub label: String,
    pub span: Span,
    /// Whether the loop stores (a loop that only reads is a spin loop).
    pub stores: bool,
    /// Threads that stopped (never ran, or stopped part-way) in the witness.
    pub unscheduled: Vec<u16>,
    /// Set when the thread waits at a barrier rather than loops (`label` is then empty).
    pub barrier: Option<Blocked>,
    /// The other threads stuck in the witness (looping with it, or blocked).
    pub also_stuck: Vec<u16>,
}

/// How a thread's run ends in a liveness candidate.
#[derive(Clone, Debug, PartialEq)]
enum Status {
    Done,
    Stuck(Stuck),
    /// Stopped after `events` events (0: never started).
    Stopped {
        events: usize,
    },
    /// Waiting for ever after `events` events at a barrier that never gathers its quorum.
    Blocked(Blocked),
}

/// A barrier a thread waits at for ever: its quorum is more than the barrier events with
/// its id that its work-group's threads can reach (Dartagnan's `NamedBarrier`: a barrier
/// with a quorum executes only once that many barriers of its id synchronize).
#[derive(Clone, Debug, PartialEq)]
pub struct Blocked {
    pub events: usize,
    pub span: Span,
    pub quorum: u16,
    /// The most barrier events with its id its work-group can reach.
    pub reachable: usize,
}

impl Status {
    fn schedulable(&self) -> bool {
        !matches!(self, Status::Done)
    }
    fn started(&self) -> bool {
        !matches!(self, Status::Stopped { events: 0 })
    }
    /// Stuck for ever: in a loop, or at a barrier.
    fn stuck(&self) -> bool {
        matches!(self, Status::Stuck(_) | Status::Blocked(_))
    }
}

/// Judges whether every thread of `test` terminates under `progress`, with loops unrolled
/// `bound` times and executions consistent under `model`.
///
/// The bound is deepened from 1: an execution cut at a smaller bound is one at the larger
/// bound too (with the same iterations), so a witness found early is one at `bound`, and
/// most non-terminating tests are settled before the executions of the full bound are
/// enumerated.
pub fn terminates(test: &Litmus, model: Model, progress: Progress, bound: u32) -> Result<Liveness, CheckError> {
    let mut at = 1;
    loop {
        let found = terminates_at(test, model, progress, at.min(bound))?;
        if !found.terminates || at >= bound {
            return Ok(found);
        }
        at += 1;
    }
}

fn terminates_at(test: &Litmus, model: Model, progress: Progress, bound: u32) -> Result<Liveness, CheckError> {
    let mut all = traces::runs_bounded(test, model != Model::Opencl, bound)?;
    all.chain_rmws = !matches!(model, Model::Ptx60 | Model::Ptx75);
    let bound_reached = first_bound(&all, bound);
    let ctx = Context::new(test, model);
    let short = short_barriers(test, &ctx, &all);
    let (runs, statuses) = candidates(all, &short);
    let tree = Tree::of(test);
    let mut stuck = None;
    let accept = |choice: &[usize]| {
        let st: Vec<&Status> = choice.iter().enumerate().map(|(t, c)| &statuses[t][*c]).collect();
        st.iter().any(|s| s.stuck()) && tree.allows(progress, &st)
    };
    // Cuts made while reads-from is chosen: only a stuck suffix reads a suffix's writes
    // (as `fair_repetition` requires), and, under Vulkan, coherence follows program order.
    let sealed = |choice: &[usize]| suffix_set(&runs, &statuses, choice);
    let vulkan_po = super::vulkan::po_coherent(&ctx);
    let prune = execution::Prune { po_coherent: (model == Model::Vulkan).then_some(&vulkan_po as _), sealed: Some(&sealed) };
    execution::for_each_pruned(&runs, execution::MAX_CANDIDATES, accept, &prune, |x| {
        if stuck.is_some() || ctx.judge(x).is_err() {
            return;
        }
        let st: Vec<&Status> = x.run_of_thread.iter().enumerate().map(|(t, c)| &statuses[t][*c]).collect();
        if fair_repetition(x, &runs, &st) {
            stuck = witness(&st);
        }
    })?;
    Ok(Liveness { progress, terminates: stuck.is_none(), stuck, bound_reached })
}

fn first_bound(runs: &Runs, bound: u32) -> Option<BoundReached> {
    runs.per_thread.iter().enumerate().find_map(|(t, per)| {
        per.iter().find_map(|r| match &r.end {
            RunEnd::Bound { label, span } => Some(BoundReached { thread: t as u16, label: label.clone(), span: *span, bound }),
            _ => None,
        })
    })
}

fn witness(st: &[&Status]) -> Option<StuckThread> {
    let unscheduled: Vec<u16> = st.iter().enumerate().filter(|(_, s)| matches!(s, Status::Stopped { .. })).map(|(t, _)| t as u16).collect();
    let stuck: Vec<u16> = st.iter().enumerate().filter(|(_, s)| s.stuck()).map(|(t, _)| t as u16).collect();
    let also = |t: usize| stuck.iter().copied().filter(|o| usize::from(*o) != t).collect::<Vec<u16>>();
    st.iter().enumerate().find_map(|(t, s)| match s {
        Status::Stuck(k) => Some(StuckThread {
            thread: t as u16,
            label: k.label.clone(),
            span: k.span,
            stores: k.infix.is_some(),
            unscheduled: unscheduled.clone(),
            barrier: None,
            also_stuck: also(t),
        }),
        Status::Blocked(b) => Some(StuckThread {
            thread: t as u16,
            label: String::new(),
            span: b.span,
            stores: false,
            unscheduled: unscheduled.clone(),
            barrier: Some(b.clone()),
            also_stuck: also(t),
        }),
        _ => None,
    })
}

/// Per thread: its finished runs, its stuck runs, and the distinct prefixes of any run (a
/// thread stopped there), each with its status. Only prefixes that are empty or end with a
/// write are kept: a later read or fence of a stopped thread adds constraints and nothing
/// another thread could observe, and starting only obliges the scheduler more.
fn candidates(all: Runs, short: &impl Fn(&Event) -> Option<Blocked>) -> (Runs, Vec<Vec<Status>>) {
    let mut per_thread = Vec::new();
    let mut statuses = Vec::new();
    for runs in all.per_thread {
        let mut kept: Vec<Run> = Vec::new();
        let mut st = Vec::new();
        let mut prefixes: Vec<Run> = Vec::new();
        let mut blocked: Vec<(Run, Blocked)> = Vec::new();
        for run in runs {
            for (n, b) in run.events.iter().enumerate().filter_map(|(n, e)| Some((n, short(e)?))) {
                let events = run.events[..n].to_vec();
                if !blocked.iter().any(|(p, _)| p.events == events) {
                    blocked.push((Run { events, regs: run.regs.clone(), end: RunEnd::Exit }, Blocked { events: n, ..b }));
                }
            }
            for n in (0..=run.events.len()).filter(|n| *n == 0 || run.events[n - 1].writes()) {
                let events = run.events[..n].to_vec();
                if !prefixes.iter().any(|p| p.events == events) {
                    prefixes.push(Run { events, regs: run.regs.clone(), end: RunEnd::Exit });
                }
            }
            match &run.end {
                RunEnd::Exit => st.push(Status::Done),
                RunEnd::Stuck(k) => st.push(Status::Stuck(k.clone())),
                RunEnd::Bound { .. } => continue,
            }
            kept.push(run);
        }
        for p in prefixes {
            st.push(Status::Stopped { events: p.events.len() });
            kept.push(p);
        }
        for (p, b) in blocked {
            st.push(Status::Blocked(b));
            kept.push(p);
        }
        per_thread.push(kept);
        statuses.push(st);
    }
    (Runs { per_thread, cells: all.cells, chain_rmws: all.chain_rmws }, statuses)
}

/// The barriers that never gather their quorum: per barrier event, its quorum and the
/// most barrier events with its id the threads of its work-group can reach (each thread's
/// run with the most), when the quorum is more. A barrier that only arrives (`bar.arrive`)
/// does not wait. Barriers without a quorum, which wait for every thread of the
/// work-group that reaches one of their id, are not judged here.
fn short_barriers<'a>(test: &'a Litmus, ctx: &'a Context, all: &Runs) -> impl Fn(&Event) -> Option<Blocked> + 'a {
    let group = |t: u16| test.threads.get(usize::from(t)).map(|th| (th.placement.agent, th.placement.workgroup));
    let key = |e: &Event| match &e.kind {
        Kind::Barrier { key, .. } => Some(key.clone()),
        _ => None,
    };
    // Per (work-group, barrier id): the most events of that id each thread's runs have.
    let mut most: BTreeMap<((u32, u32), String), BTreeMap<u16, usize>> = BTreeMap::new();
    for runs in &all.per_thread {
        for run in runs {
            let mut count: BTreeMap<(u16, String), usize> = BTreeMap::new();
            for e in &run.events {
                if let Some(k) = key(e) {
                    *count.entry((e.thread, k)).or_default() += 1;
                }
            }
            for ((t, k), c) in count {
                if let Some(g) = group(t) {
                    let slot = most.entry((g, k)).or_default().entry(t).or_default();
                    *slot = (*slot).max(c);
                }
            }
        }
    }
    move |e: &Event| {
        let mark = ctx.marks.get(e.thread, e.span);
        let quorum = mark.quorum?;
        if mark.bits & crate::litmus::marks::bit::ARRIVE != 0 {
            return None;
        }
        let reachable: usize = most.get(&(group(e.thread)?, key(e)?)).map_or(0, |m| m.values().sum());
        (usize::from(quorum) > reachable).then_some(Blocked { events: 0, span: e.span, quorum, reachable })
    }
}

/// The events of the stuck threads' repeated suffixes, for the combination of runs `choice`.
fn suffix_set(runs: &Runs, statuses: &[Vec<Status>], choice: &[usize]) -> u128 {
    let mut offset = runs.cells.len();
    let mut suffix = 0u128;
    for (t, c) in choice.iter().enumerate() {
        if let Status::Stuck(k) = &statuses[t][*c] {
            suffix |= span_set(&k.suffix, offset);
        }
        offset += runs.per_thread[t][*c].events.len();
    }
    suffix
}

/// Is repeating the stuck threads' suffixes for ever fair and consistent in `x`
/// (`NonTerminationEncoder`'s strong suffix extension and infix-suffix equivalence)?
fn fair_repetition(x: &Execution, runs: &Runs, st: &[&Status]) -> bool {
    let mut offset = runs.cells.len();
    let (mut suffix, mut infix, mut pairs) = (0u128, 0u128, Vec::new());
    for (t, s) in st.iter().enumerate() {
        if let Status::Stuck(k) = s {
            suffix |= span_set(&k.suffix, offset);
            if let Some(i) = &k.infix {
                infix |= span_set(i, offset);
                // Each infix event with its match among the suffix's last iterations.
                let tail = k.suffix.end.saturating_sub(i.len())..k.suffix.end;
                pairs.extend(i.clone().zip(tail).map(|(a, b)| (a + offset, b + offset)));
            }
        }
        offset += runs.per_thread[t][x.run_of_thread[t]].events.len();
    }
    let prefix = !(suffix | infix);
    let writes = x.set(|e| e.writes());
    let co_last = |w: usize| (0..x.n()).all(|v| !x.co.has(w, v));
    // Earlier writes are coherence-before the suffix's writes.
    let co_ok = super::relation::bits(suffix & writes).all(|s| (0..x.n()).all(|w| prefix & writes & 1 << w == 0 || !x.co.has(s, w)));
    let rf_ok = (0..x.n()).all(|r| match x.rf_source[r] {
        // Only the suffix reads the suffix's writes, and it reads earlier writes only when
        // they are coherence-last.
        Some(w) => (suffix & 1 << w == 0 || suffix & 1 << r != 0) && (suffix & 1 << r == 0 || prefix & 1 << w == 0 || co_last(w)),
        None => true,
    });
    co_ok && rf_ok && mirrored(x, &pairs)
}

/// The reads-from and coherence edges among infix events are those among their suffix matches.
fn mirrored(x: &Execution, pairs: &[(usize, usize)]) -> bool {
    pairs.iter().all(|(a, a2)| pairs.iter().all(|(b, b2)| x.rf.has(*a, *b) == x.rf.has(*a2, *b2) && x.co.has(*a, *b) == x.co.has(*a2, *b2)))
}

fn span_set(range: &Range<usize>, offset: usize) -> u128 {
    range.clone().fold(0, |acc, i| acc | 1u128.checked_shl((i + offset) as u32).unwrap_or(0))
}

/// The scope hierarchy progress is granted down: agents, work-groups, wavefronts, threads.
enum Tree {
    Group(Vec<(u32, Tree)>),
    Thread(usize),
}

impl Tree {
    fn of(test: &Litmus) -> Tree {
        let levels: [fn(&crate::litmus::Placement) -> u32; 3] = [|p| p.agent, |p| p.workgroup, |p| p.wave];
        Tree::build(test, &(0..test.threads.len()).collect::<Vec<_>>(), &levels)
    }

    fn build(test: &Litmus, threads: &[usize], levels: &[fn(&crate::litmus::Placement) -> u32]) -> Tree {
        let Some((level, rest)) = levels.split_first() else {
            return Tree::Group(threads.iter().map(|t| (*t as u32, Tree::Thread(*t))).collect());
        };
        let mut ids: Vec<u32> = threads.iter().map(|t| level(&test.threads[*t].placement)).collect();
        ids.sort_unstable();
        ids.dedup();
        let children = ids
            .into_iter()
            .map(|id| {
                let inside: Vec<usize> = threads.iter().copied().filter(|t| level(&test.threads[*t].placement) == id).collect();
                (id, Tree::build(test, &inside, rest))
            })
            .collect();
        Tree::Group(children)
    }

    fn any(&self, st: &[&Status], f: fn(&Status) -> bool) -> bool {
        match self {
            Tree::Thread(t) => st.get(*t).is_some_and(|s| f(s)),
            Tree::Group(cs) => cs.iter().any(|(_, c)| c.any(st, f)),
        }
    }

    /// Can this node have progress with the threads' statuses `st` (no thread with
    /// progress stopped)? The root always has it.
    fn allows(&self, model: Progress, st: &[&Status]) -> bool {
        let children = match self {
            Tree::Thread(t) => return !matches!(st.get(*t), Some(Status::Stopped { .. })),
            Tree::Group(cs) => cs,
        };
        let sched: Vec<bool> = children.iter().map(|(_, c)| c.any(st, Status::schedulable)).collect();
        let started: Vec<bool> = children.iter().map(|(_, c)| c.any(st, Status::started)).collect();
        let forced = |i: usize| {
            let hsa = !sched[..i].iter().any(|s| *s);
            let obe = started[i];
            match model {
                Progress::Fair => true,
                Progress::Hsa => hsa,
                Progress::Obe => obe,
                Progress::HsaObe => hsa || obe,
                Progress::Lobe => started[i..].iter().any(|s| *s),
                Progress::Unfair => false,
            }
        };
        let ok: Vec<bool> = children.iter().map(|(_, c)| c.allows(model, st)).collect();
        let obligations = (0..children.len()).all(|i| !forced(i) || ok[i]);
        let someone = !sched.iter().any(|s| *s) || (0..children.len()).any(|i| sched[i] && ok[i]);
        obligations && someone
    }
}
