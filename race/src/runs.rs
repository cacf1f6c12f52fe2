//! Grading compiled kernels: each dispatch of a launch spec run over seeded schedules with the
//! race detector attached, and what a student needs to read the verdict: every racing pair
//! with its source lines, the instructions the compiler emitted for each atomic, fence and
//! barrier, the outcomes the runs produced (with a seed that replays each), a fix hint, and
//! in timing mode what the simulated GPU did with a race ([`crate::story`]).
//!
//! One schedule can hide a race (a consumer that happens to run after the producer has
//! finished shows no conflict in most detectors, and a different wave order shows different
//! values), so a kernel is run `runs` times with seeds `first_seed..`; the verdict is "race"
//! if any run shows one. Results are deterministic per seed.

use crate::detector::{Ambiguity, Detector, Race, Rule, Side};
use crate::story::{Describe, Focus, Story, Told};
use hipscope_isa::codeobj::lines::{LineTable, SourceLine};
use hipscope_isa::decode::Ctx;
use hipscope_isa::print::format_inst;
use hipscope_mm::lower::Op;
use hipscope_mm::recover::What;
use hipscope_sim::fault::FaultKind;
use hipscope_sim::kernel::{CodeSlot, LoadedKernel};
use hipscope_sim::launch::Hooks;
use hipscope_sim::spec::{RunError, RunOptions, Session, Spec};
use std::collections::HashSet;
use std::path::Path;

/// A racing pair as reported: the race, both sides' source lines, a fix hint.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Found {
    #[serde(flatten)]
    pub race: Race,
    pub first_line: Option<SourceLine>,
    pub second_line: Option<SourceLine>,
    pub fix: String,
    /// The seeds whose runs showed it.
    pub seeds: Vec<u64>,
}

/// A pair the code cannot decide, with its source lines.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Undecided {
    #[serde(flatten)]
    pub ambiguity: Ambiguity,
    pub first_line: Option<SourceLine>,
    pub second_line: Option<SourceLine>,
}

/// An atomic, fence or barrier of the kernel as compiled.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct SyncOp {
    pub pc: u64,
    pub line: Option<SourceLine>,
    /// The operations this code is the lowering of (more than one: they compile alike here).
    pub readings: Vec<String>,
    /// The instruction sequence, waits and cache maintenance included.
    pub instructions: Vec<String>,
    /// The scope another target's code of the same kernel decided, and how
    /// ([`crate::siblings`]): "agent scope, recovered from the gfx942 code of the same kernel".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided: Option<String>,
}

/// One final state of the buffers, and how often the runs ended in it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// Words that differ from the buffers' initial contents (`out[0]=42`), a few per buffer.
    pub state: String,
    pub runs: u64,
    /// Replays it: `--seed N`.
    pub seed: u64,
}

/// The verdict on one kernel.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct KernelGrade {
    pub kernel: String,
    pub target: String,
    pub runs: u64,
    pub race: bool,
    pub races: Vec<Found>,
    /// Pairs that are race-free as compiled only if atomics are wider than work-group scope,
    /// which the code cannot show on this target.
    pub undecided: Vec<Undecided>,
    pub sync: Vec<SyncOp>,
    pub outcomes: Vec<Outcome>,
    /// Timing mode: a racing read against its racing write in replays of the racing seeds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub story: Option<RaceStory>,
    /// A run in which the kernel stopped making progress (a livelock, or the no-progress
    /// bound reached): the engine's facts, the first such run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stuck: Option<StuckRun>,
}

/// The engine's facts about a run that stopped making progress, with the source line of
/// each PC its waves stopped at.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct StuckRun {
    pub seed: u64,
    pub facts: hipscope_sim::fault::Stuck,
    pub lines: Vec<PcLine>,
}

/// A PC and its source line (when the code object has a line table).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PcLine {
    pub pc: u64,
    pub line: Option<SourceLine>,
}

impl StuckRun {
    /// `facts` of a run with `seed`, the PCs its waves stopped and loop at located in
    /// `lines`.
    pub fn new(facts: hipscope_sim::fault::Stuck, seed: u64, lines: &LineTable) -> StuckRun {
        let mut pcs: Vec<u64> = facts.waves.iter().flat_map(|w| [Some(w.pc), w.loop_pc]).flatten().collect();
        pcs.sort_unstable();
        pcs.dedup();
        let lines = pcs.into_iter().map(|pc| PcLine { pc, line: lines.at(pc) }).collect();
        StuckRun { seed, facts, lines }
    }

    /// The source line of `pc`, if known.
    pub fn line_of(&self, pc: u64) -> Option<&SourceLine> {
        self.lines.iter().find(|l| l.pc == pc).and_then(|l| l.line.as_ref())
    }
}

/// What the timing model did with a race over the seeds that showed it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct RaceStory {
    /// The race told (its two source lines).
    pub first_line: Option<SourceLine>,
    pub second_line: Option<SourceLine>,
    /// Seeds replayed; in how many the racing read returned an older value although the
    /// racing write had completed before it issued (`stale`), and in how many it returned the
    /// value written (`hidden`: the run hid the race).
    pub replays: u64,
    pub stale: u64,
    pub hidden: u64,
    /// One replay told: the one that shows most (stale before in flight before the rest).
    pub told: Told,
}

/// How many seeded runs per kernel, from which seed; which dispatches.
#[derive(Clone, Debug)]
pub struct Plan {
    pub runs: u64,
    pub first_seed: u64,
    /// Only kernels whose name contains this (all if `None`).
    pub only: Option<String>,
}

/// Grade every dispatch of the spec at `path` (its code object chosen by `opts`).
pub fn grade_spec(spec: &Spec, path: &Path, opts: &RunOptions, plan: &Plan) -> Result<Vec<KernelGrade>, RunError> {
    let mut session = Session::new(spec, path, opts)?;
    // The session loaded this file already; only its line tables are read again here.
    let bytes = std::fs::read(&session.object_path).map_err(|e| RunError::from(hipscope_sim::spec::SpecError::whole(&session.object_path, e.to_string())))?;
    let lines = hipscope_isa::codeobj::load(&bytes, Some(session.gpu.processor.name())).map(|co| co.lines).unwrap_or_default();
    let names: Vec<String> = spec.buffers.0.iter().map(|(n, _)| n.clone()).collect();
    let mut grades = Vec::new();
    for i in 0..session.dispatch_count() {
        let Some(kernel) = session.kernel(i).cloned() else { continue };
        if plan.only.as_ref().is_some_and(|o| !kernel.name.contains(o.as_str())) {
            continue;
        }
        grades.push(grade_dispatch(&mut session, i, &kernel, &names, &lines, plan)?);
    }
    Ok(grades)
}

fn grade_dispatch(session: &mut Session, i: usize, kernel: &LoadedKernel, names: &[String], lines: &LineTable, plan: &Plan) -> Result<KernelGrade, RunError> {
    let mut grade = KernelGrade::new(kernel, &session.key);
    for seed in plan.first_seed..plan.first_seed + plan.runs {
        session.reset()?;
        let initial = read_all(session, names);
        let mut det = Detector::new();
        let launched = session.launch_hooked(i, seed, Hooks { observer: Some(&mut det), ..Hooks::default() });
        if let Some(facts) = stuck_facts(&launched) {
            // Every seed would run to the same stop: one run tells it.
            let fit = session.geometry(i).and_then(|geo| gpu_groups_fit(&session.gpu, kernel, geo));
            grade.stuck = Some(StuckRun::new(hipscope_sim::fault::Stuck { gpu_groups_fit: fit, ..facts }, seed, lines));
            grade.add_run(&det, kernel, lines, seed, "stopped: no progress".into());
            break;
        }
        launched?;
        let outcome = changes(&initial, &read_all(session, names));
        grade.add_run(&det, kernel, lines, seed, outcome);
    }
    grade.finish();
    if session.device.timing.is_some() {
        grade.story = race_story(session, i, kernel, lines, &grade)?;
    }
    Ok(grade)
}

/// The facts of a launch stopped by a livelock or the no-progress bound.
fn stuck_facts<T>(r: &Result<T, RunError>) -> Option<hipscope_sim::fault::Stuck> {
    match r {
        Err(RunError::Fault { fault, .. }) => match &fault.kind {
            FaultKind::Livelock(s) | FaultKind::NoProgressBound(s) => Some((**s).clone()),
            _ => None,
        },
        _ => None,
    }
}

/// Work-groups of `kernel` launched with `geo` that a GPU of `config` holds at once, by the
/// timing engine's placement rules (its CUs' wave slots, VGPRs, LDS, work-group slots);
/// `None` for a config without a timing section.
pub fn gpu_groups_fit(config: &hipscope_sim::gpus::GpuConfig, kernel: &LoadedKernel, geo: hipscope_sim::Geometry) -> Option<u64> {
    let t = config.timing.as_ref()?;
    let lanes = if kernel.wave64 { 64 } else { 32 };
    let waves = geo.block.iter().product::<u32>().max(1).div_ceil(lanes);
    let occ = hipscope_sim::timing::placement::Occupancy::of(kernel, waves, kernel.descriptor.group_segment_fixed_size + geo.dynamic_lds);
    Some(occ.max_resident_groups(t, config.compute_units))
}

/// Replays kept for a story at most.
pub const STORY_REPLAYS: usize = 64;

/// The race a story tells (the first between a read and a write of different waves, else the
/// first), and what to watch for it.
pub fn story_focus(grade: &KernelGrade) -> Option<(&Found, Focus)> {
    let pick = grade.races.iter().find(|f| f.race.first.write != f.race.second.write && f.race.first.wave != f.race.second.wave);
    let found = pick.or(grade.races.first())?;
    Some((found, Focus { race: found.race.clone(), pcs: grade.sync.iter().map(|s| s.pc).collect() }))
}

/// The replays of `found`'s seeds, told, as one story: counted, and the first of the replays
/// that show most told ([`crate::story::Shows`] orders them).
pub fn assemble_story(found: &Found, replays: impl IntoIterator<Item = Told>) -> Option<RaceStory> {
    use crate::story::Shows;
    let (mut count, mut stale, mut hidden, mut told) = (0, 0, 0, None::<Told>);
    for t in replays {
        count += 1;
        stale += u64::from(t.shows == Shows::Stale);
        hidden += u64::from(t.shows == Shows::Hidden);
        if told.as_ref().is_none_or(|x| t.shows < x.shows) {
            told = Some(t);
        }
    }
    told.map(|told| RaceStory { first_line: found.first_line.clone(), second_line: found.second_line.clone(), replays: count, stale, hidden, told })
}

/// Replay the seeds that showed the kernel's race with a [`Story`] watching, and tell one.
fn race_story(session: &mut Session, i: usize, kernel: &LoadedKernel, lines: &LineTable, grade: &KernelGrade) -> Result<Option<RaceStory>, RunError> {
    let Some((found, focus)) = story_focus(grade) else { return Ok(None) };
    let names = Names::new(kernel, lines);
    let mut told = Vec::new();
    for &seed in found.seeds.iter().take(STORY_REPLAYS) {
        session.reset()?;
        let mut story = Story::new(focus.clone());
        session.launch_hooked(i, seed, Hooks { observer: Some(&mut story), ..Hooks::default() })?;
        told.push(crate::story::tell(&story, seed, &names));
    }
    Ok(assemble_story(found, told))
}

/// A kernel's instructions and lines, for stories.
pub struct Names<'a> {
    kernel: &'a LoadedKernel,
    ctx: Ctx,
    lines: &'a LineTable,
}

impl<'a> Names<'a> {
    pub fn new(kernel: &'a LoadedKernel, lines: &'a LineTable) -> Names<'a> {
        Names { kernel, ctx: Ctx::new(kernel.processor, kernel.wave64, false), lines }
    }
}

impl Describe for Names<'_> {
    fn instruction(&self, pc: u64) -> String {
        instruction_text(self.kernel, &self.ctx, pc)
    }
    fn line(&self, pc: u64) -> Option<String> {
        self.lines.at(pc).map(|l| l.to_string())
    }
}

/// The instruction at `pc`, as `llvm-objdump` prints it.
fn instruction_text(kernel: &LoadedKernel, ctx: &Ctx, pc: u64) -> String {
    match kernel.index_of(pc).ok().and_then(|i| kernel.code.get(i)) {
        Some(CodeSlot::Inst(e)) => format_inst(&e.inst, ctx),
        _ => format!("(no instruction at {pc:#x})"),
    }
}

impl KernelGrade {
    /// No runs yet, of `kernel` built for `target`.
    pub fn new(kernel: &LoadedKernel, target: &str) -> KernelGrade {
        KernelGrade {
            kernel: hipscope_isa::codeobj::demangle(&kernel.name).unwrap_or_else(|| kernel.name.clone()),
            target: target.to_string(),
            runs: 0,
            race: false,
            races: Vec::new(),
            undecided: Vec::new(),
            sync: Vec::new(),
            outcomes: Vec::new(),
            story: None,
            stuck: None,
        }
    }

    /// Add one run: what the detector `det` saw of `kernel` with `seed`, and the run's outcome.
    pub fn add_run(&mut self, det: &Detector, kernel: &LoadedKernel, lines: &LineTable, seed: u64, outcome: String) {
        self.runs += 1;
        self.add_launch(det, kernel, lines, seed);
        self.add_outcome(Outcome { state: outcome, runs: 1, seed });
    }

    /// Add what the detector saw of one launch of `kernel` (a run may launch it many times).
    pub fn add_launch(&mut self, det: &Detector, kernel: &LoadedKernel, lines: &LineTable, seed: u64) {
        for race in det.races().iter().filter(|r| r.kernel == kernel.name) {
            match self.races.iter_mut().find(|f| same_pair(&f.race, race)) {
                Some(f) => f.seeds.push(seed),
                None => self.races.push(Found {
                    race: race.clone(),
                    // A host thread's side has no line of the kernel's.
                    first_line: lines.at(race.first.pc).filter(|_| !race.first.host),
                    second_line: lines.at(race.second.pc).filter(|_| !race.second.host),
                    fix: fix_hint(race),
                    seeds: vec![seed],
                }),
            }
        }
        for a in det.ambiguities().iter().filter(|a| a.kernel == kernel.name) {
            if !self.undecided.iter().any(|u| u.ambiguity == *a) {
                self.undecided.push(Undecided { ambiguity: a.clone(), first_line: lines.at(a.first_pc), second_line: lines.at(a.second_pc) });
            }
        }
        if self.sync.is_empty() {
            self.sync = sync_ops(det, kernel, lines);
        }
        self.race = !self.races.is_empty();
    }

    /// Count a run that ended in `o`.
    pub fn add_outcome(&mut self, o: Outcome) {
        match self.outcomes.iter_mut().find(|x| x.state == o.state) {
            Some(x) => {
                x.runs += o.runs;
                x.seed = x.seed.min(o.seed);
            }
            None => self.outcomes.push(o),
        }
    }

    /// Fold in the runs of the same kernel graded elsewhere (another process's runs).
    pub fn merge(&mut self, other: KernelGrade) {
        self.runs += other.runs;
        for f in other.races {
            match self.races.iter_mut().find(|x| same_pair(&x.race, &f.race)) {
                Some(x) => x.seeds.extend(f.seeds),
                None => self.races.push(f),
            }
        }
        for u in other.undecided {
            if !self.undecided.iter().any(|x| x.ambiguity == u.ambiguity) {
                self.undecided.push(u);
            }
        }
        if self.sync.is_empty() {
            self.sync = other.sync;
        }
        if self.story.is_none() {
            self.story = other.story;
        }
        if self.stuck.is_none() {
            self.stuck = other.stuck;
        }
        for o in other.outcomes {
            self.add_outcome(o);
        }
        self.race = !self.races.is_empty();
    }

    /// Most frequent outcome first; seeds in order.
    pub fn finish(&mut self) {
        self.outcomes.sort_by_key(|o| (std::cmp::Reverse(o.runs), o.seed));
        for f in &mut self.races {
            f.seeds.sort_unstable();
            f.seeds.dedup();
        }
    }
}

/// The same two instructions breaking the same rule, in either order.
fn same_pair(a: &Race, b: &Race) -> bool {
    // A host thread's side has no instruction: whether it wrote tells its accesses apart.
    let end = |s: &Side| (s.pc, s.host && s.write);
    let pcs = |r: &Race| {
        let (x, y) = (end(&r.first), end(&r.second));
        if x <= y {
            (x, y)
        } else {
            (y, x)
        }
    };
    a.rule == b.rule && pcs(a) == pcs(b)
}

fn read_all(session: &mut Session, names: &[String]) -> Vec<(String, Vec<u8>)> {
    names.iter().filter_map(|n| session.read_buffer(n).map(|b| (n.clone(), b))).collect()
}

/// The words (as i32) that a run changed, a few per buffer: `out[0]=42 out[1]=7`.
fn changes(before: &[(String, Vec<u8>)], after: &[(String, Vec<u8>)]) -> String {
    const SHOWN: usize = 6;
    let mut parts = Vec::new();
    for ((name, a), (_, b)) in before.iter().zip(after) {
        let words = |v: &[u8]| v.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect::<Vec<_>>();
        let (wa, wb) = (words(a), words(b));
        let changed: Vec<usize> = (0..wa.len().min(wb.len())).filter(|&j| wa[j] != wb[j]).collect();
        for &j in changed.iter().take(SHOWN) {
            parts.push(format!("{name}[{j}]={}", wb[j]));
        }
        if changed.len() > SHOWN {
            parts.push(format!("({} more in {name})", changed.len() - SHOWN));
        }
    }
    if parts.is_empty() {
        "(no buffer changed)".into()
    } else {
        parts.join(" ")
    }
}

/// Every atomic, fence and barrier the recogniser tagged in the kernel's own code.
fn sync_ops(det: &Detector, kernel: &LoadedKernel, lines: &LineTable) -> Vec<SyncOp> {
    let Some(tags) = det.kernel_tags().find(|t| t.name == kernel.name) else { return Vec::new() };
    let ctx = Ctx::new(kernel.processor, kernel.wave64, false);
    let text = |pc: u64| instruction_text(kernel, &ctx, pc);
    let end = kernel.code_end;
    tags.recovery
        .ops
        .iter()
        .filter(|r| r.pc >= kernel.entry && r.pc < end)
        .filter(|r| matches!(r.what, What::Fence | What::Barrier) || r.readings.iter().all(is_atomic))
        .map(|r| SyncOp {
            pc: r.pc,
            line: lines.at(r.pc),
            readings: summarise(&r.readings),
            instructions: r.parts.iter().map(|&pc| format!("{pc:#x}: {}", text(pc))).collect(),
            decided: tags.decided_how(r.pc).map(|d| format!("{} scope, {}", format!("{:?}", d.scope).to_lowercase(), d.how)),
        })
        .collect()
}

/// The readings of one instruction in a few words: per kind of operation, the orders and
/// scopes it may have been written with (`atomic rmw: relaxed|acquire, workgroup|agent scope`).
fn summarise(readings: &[Op]) -> Vec<String> {
    use hipscope_mm::Access;
    let low = |x: &dyn std::fmt::Debug| format!("{x:?}").to_lowercase();
    let mut groups: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    for op in readings {
        let (kind, order, scope) = match op {
            Op::Load { access: Access::Atomic { order, scope }, .. } => ("atomic load", low(order), low(scope)),
            Op::Store { access: Access::Atomic { order, scope }, .. } => ("atomic store", low(order), low(scope)),
            Op::Rmw { access: Access::Atomic { order, scope }, .. } => ("atomic rmw", low(order), low(scope)),
            Op::Fence { order, scope, .. } => ("fence", low(order), low(scope)),
            other => {
                groups.push((op_text(other), Vec::new(), Vec::new()));
                continue;
            }
        };
        match groups.iter_mut().find(|g| g.0 == kind) {
            Some(g) => {
                if !g.1.contains(&order) {
                    g.1.push(order);
                }
                if !g.2.contains(&scope) {
                    g.2.push(scope);
                }
            }
            None => groups.push((kind.to_string(), vec![order], vec![scope])),
        }
    }
    groups.dedup_by(|a, b| a.0 == b.0 && a.1.is_empty());
    groups
        .into_iter()
        .map(|(kind, orders, scopes)| if orders.is_empty() { kind } else { format!("{kind}: {}; {} scope", orders.join("|"), scopes.join("|")) })
        .collect()
}

fn is_atomic(op: &Op) -> bool {
    use hipscope_mm::Access;
    match op {
        Op::Load { access, .. } | Op::Store { access, .. } => matches!(access, Access::Atomic { .. }),
        Op::Rmw { .. } => true,
        Op::Fence { .. } | Op::Barrier { .. } => false,
    }
}

/// An operation in words: `acquire load, agent scope`.
pub fn op_text(op: &Op) -> String {
    use hipscope_mm::Access;
    let low = |x: &dyn std::fmt::Debug| format!("{x:?}").to_lowercase();
    let access = |a: &Access| match a {
        Access::Plain => "plain".to_string(),
        Access::Atomic { order, scope } => format!("{} atomic, {} scope", low(order), low(scope)),
    };
    match op {
        Op::Load { access: a, .. } => format!("load ({})", access(a)),
        Op::Store { access: a, .. } => format!("store ({})", access(a)),
        Op::Rmw { rmw, access: a, .. } => format!("{} ({})", low(rmw), access(a)),
        Op::Fence { order, scope, .. } => format!("{} fence, {} scope", low(order), low(scope)),
        Op::Barrier { .. } => "barrier (__syncthreads)".into(),
    }
}

/// What to change so that the pair no longer races.
pub fn fix_hint(r: &Race) -> String {
    if r.first.host || r.second.host {
        return with_host_hint(r);
    }
    if let (Some(a), Some(b)) = (r.first.gpu, r.second.gpu) {
        if a != b {
            return across_gpus_hint(r, a, b);
        }
    }
    let same_group = r.first.wave.workgroup == r.second.wave.workgroup;
    let narrow = |s: &Side| s.atomic.as_deref().is_some_and(|sc| sc == "workgroup" || sc == "wavefront");
    match r.rule {
        Rule::ScopeRace => {
            let which = match (narrow(&r.first), narrow(&r.second)) {
                (true, true) => "both atomics".to_string(),
                (true, false) => format!("the atomic at {:#x}", r.first.pc),
                _ => format!("the atomic at {:#x}", r.second.pc),
            };
            format!("widen the scope of {which} to agent (__HIP_MEMORY_SCOPE_AGENT, or atomicAdd/atomicExch/atomicCAS, which are agent scope): its work-group scope does not include the other work-group")
        }
        Rule::LaneRace => "lanes of one wave are not ordered by running in lockstep: separate the accesses with __syncthreads(), or make them atomic".into(),
        Rule::DataRace if r.lds => "order the LDS accesses with __syncthreads() between them".into(),
        Rule::DataRace if r.note.is_some() => "the synchronisation between the two is too narrow (see the note): use agent scope on both sides (__threadfence(), or release/acquire atomics with __HIP_MEMORY_SCOPE_AGENT)".into(),
        Rule::DataRace if same_group => "order the accesses: __syncthreads() between them, or a release/acquire pair (a flag) at work-group scope or wider".into(),
        Rule::DataRace => "a barrier does not span work-groups: publish with a release store (or __threadfence() then a flag store) and read after an acquire load of the flag (or the flag load then __threadfence()), both at agent scope; or make both accesses atomic at agent scope".into(),
    }
}

/// What to change so that a pair of accesses by kernels on GPUs `a` and `b` no longer races:
/// only system scope includes threads of another agent (HIP's memory scopes; LLVM
/// AMDGPUUsage, "Memory Scopes": agent scope is one GPU).
fn across_gpus_hint(r: &Race, a: u32, b: u32) -> String {
    let gpus = format!("GPU {a} and GPU {b} are different agents, and agent scope includes the threads of one GPU only");
    match r.rule {
        Rule::ScopeRace => format!(
            "widen both atomics to system scope (__HIP_MEMORY_SCOPE_SYSTEM, or atomicAdd_system/atomicExch_system/atomicCAS_system): {gpus}"
        ),
        _ if r.note.is_some() => format!(
            "the synchronisation between the GPUs is too narrow (see the note): release and acquire at system scope on both sides (__hip_atomic_store/load with __HIP_MEMORY_SCOPE_SYSTEM, or __threadfence_system() around the flag): {gpus}"
        ),
        _ => format!(
            "order the accesses across the GPUs: publish with a system-scope release store of a flag and read after a system-scope acquire load of it (__HIP_MEMORY_SCOPE_SYSTEM), or run the kernels one after the other: {gpus}"
        ),
    }
}

/// What to change so that a kernel's access and a host thread's no longer race: the host's
/// side is taken to be a system-scope atomic already (`detector::host`), so the kernel's side
/// is the one to change; only system scope includes the host (LLVM AMDGPUUsage, "Memory
/// Scopes").
fn with_host_hint(r: &Race) -> String {
    let kernel = if r.first.host { &r.second } else { &r.first };
    let host = "the host is another agent, and agent scope includes the threads of one GPU only";
    match (&kernel.atomic, &r.note) {
        (Some(_), _) => format!(
            "widen the kernel's atomic at {:#x} to system scope (__hip_atomic_load/store with __HIP_MEMORY_SCOPE_SYSTEM, or atomicAdd_system/atomicExch_system/atomicCAS_system): {host}",
            kernel.pc
        ),
        (None, Some(_)) => format!("the synchronisation with the host is too narrow (see the note): release and acquire at system scope in the kernel: {host}"),
        (None, None) => format!(
            "make the kernel's access at {:#x} a system-scope atomic, or order it by a flag the kernel reads with a system-scope acquire (after the host's release store) or writes with a system-scope release: {host}",
            kernel.pc
        ),
    }
}

/// A grade as text: verdict, races with lines and fixes, the compiled synchronisation and the
/// outcomes.
pub fn render(g: &KernelGrade) -> String {
    let mut out = format!("{} on {}: {} ({} run(s))\n", g.kernel, g.target, if g.race { "RACE" } else { "race-free" }, g.runs);
    let mut seen = HashSet::new();
    for f in &g.races {
        let r = &f.race;
        if !seen.insert((r.first.pc, r.second.pc, r.rule)) {
            continue;
        }
        out.push_str(&format!("  {} on {} {:#x}\n", r.rule.describe(), if r.lds { "LDS offset" } else { "address" }, r.address));
        for (s, line) in [(&r.first, &f.first_line), (&r.second, &f.second_line)] {
            out.push_str(&format!("    {}\n", side_text(s, line.as_ref())));
        }
        if let Some(n) = &r.note {
            out.push_str(&format!("    note: {n}\n"));
        }
        let seeds: Vec<String> = f.seeds.iter().take(8).map(u64::to_string).collect();
        out.push_str(&format!("    seen in {} of {} run(s) (seeds {}{})\n", f.seeds.len(), g.runs, seeds.join(","), if f.seeds.len() > 8 { ",…" } else { "" }));
        out.push_str(&format!("    fix: {}\n", f.fix));
    }
    for u in &g.undecided {
        let at = |pc: u64, l: &Option<SourceLine>| l.as_ref().map_or_else(|| format!("{pc:#x}"), |l| format!("{l} [{pc:#x}]"));
        out.push_str(&format!(
            "  undecided: {}
    {} and {}
",
            u.ambiguity.what,
            at(u.ambiguity.first_pc, &u.first_line),
            at(u.ambiguity.second_pc, &u.second_line)
        ));
    }
    if !g.sync.is_empty() {
        out.push_str("  synchronisation as compiled:\n");
        for s in &g.sync {
            let at = s.line.as_ref().map_or_else(String::new, |l| format!(" ({l})"));
            out.push_str(&format!("    {:#x}{at}: {}\n", s.pc, s.readings.join(" | ")));
            if let Some(d) = &s.decided {
                out.push_str(&format!("      the source's scope: {d}\n"));
            }
            for i in &s.instructions {
                out.push_str(&format!("        {i}\n"));
            }
        }
    }
    if let Some(s) = &g.story {
        let at = |l: &Option<SourceLine>| l.as_ref().map_or_else(|| "?".to_string(), |l| l.to_string());
        let verdict = if s.told.shows == crate::story::Shows::Writes {
            format!("{} racing run(s)", s.replays)
        } else if s.hidden == s.replays {
            format!("every one of the {} racing run(s) hid the race: on this GPU the program passes by luck", s.replays)
        } else {
            format!("the read returned a stale value in {} and the value written in {} of {} racing run(s)", s.stale, s.hidden, s.replays)
        };
        out.push_str(&format!(
            "  what the simulated GPU shows (the race between {} and {} replayed in the timing model): {verdict}. Seed {}:\n",
            at(&s.first_line),
            at(&s.second_line),
            s.told.seed
        ));
        for l in &s.told.lines {
            out.push_str(&format!("    {l}\n"));
        }
        out.push_str(&format!("    so: {}\n", s.told.conclusion));
    }
    if !g.outcomes.is_empty() {
        out.push_str("  outcomes:\n");
    }
    for o in &g.outcomes {
        out.push_str(&format!("    {} run(s), replay with --seed {}: {}\n", o.runs, o.seed, o.state));
    }
    out
}

fn side_text(s: &Side, line: Option<&SourceLine>) -> String {
    if s.host {
        return format!(
            "{} by a host thread (the host agent; counted as a system-scope atomic {}: the host's side is not seen to be atomic or not)",
            if s.write { "write" } else { "read" },
            if s.write { "release store" } else { "acquire load" }
        );
    }
    let what = match (&s.atomic, &s.scope_from) {
        (None, _) => "plain".to_string(),
        (Some(scope), None) => format!("atomic, {scope} scope"),
        (Some(scope), Some(how)) => format!("atomic, {scope} scope, {how}"),
    };
    let [x, y, z] = s.wave.workgroup;
    // Kernels run together on several GPUs: which GPU, and which kernel, made the access.
    let on = match (s.gpu, &s.kernel) {
        (Some(g), Some(k)) => format!(" on GPU {g} ({})", hipscope_isa::codeobj::demangle(k).unwrap_or_else(|| k.clone())),
        (Some(g), None) => format!(" on GPU {g}"),
        _ => String::new(),
    };
    format!(
        "{} at {}{}{on} by block ({x},{y},{z}) wave {} lane {} ({what}{})",
        if s.write { "write" } else { "read" },
        line.map_or_else(|| "?".to_string(), |l| l.to_string()),
        format_args!(" [{:#x}]", s.pc),
        s.wave.wave,
        s.lane,
        if s.shared_code { "; the same code is another scope's too" } else { "" }
    )
}
