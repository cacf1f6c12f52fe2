//! One graded test as data (JSON for autograders) and as text (for the teaching assistant).

use std::fmt::Write as _;

use serde::Serialize;

use crate::explain;
use crate::fix::{self, Goal};
use crate::hardware;
use crate::litmus::{for_each_stmt, Dialect, Litmus, Quantifier, Stmt};
use crate::model::progress::Progress;
use crate::model::{self, CheckError, Model, Verdict};
use hipscope_mm::lower;
use hipscope_mm::Access;

/// Schema version of the JSON report; bumped when a field changes meaning.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub schema: u32,
    pub file: String,
    pub test: String,
    pub dialect: &'static str,
    pub model: Model,
    /// `exists`, `~exists` or `forall`, and the proposition as written; absent for race-only tests.
    pub condition: Option<String>,
    /// Is the proposition's outcome reachable in some consistent execution? Absent for
    /// race-only tests (a lone `filter`).
    pub outcome: Option<Outcome>,
    /// Does the condition hold (`exists`: reachable; `~exists`: unreachable; `forall`: every
    /// execution satisfies it)?
    pub condition_holds: Option<bool>,
    pub executions: Counts,
    pub race_free: bool,
    /// `--progress`: does every thread terminate under that progress model (up to the
    /// loop bound)? Absent without `--progress`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminates: Option<bool>,
    /// `--progress`: the model, and the thread and loop that may spin for ever.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub liveness: Option<LivenessReport>,
    /// A loop the unrolling bound cut: executions needing more iterations were not judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_reached: Option<String>,
    pub races: Vec<RaceReport>,
    /// A consistent execution reaching the outcome, as an interleaving.
    pub witness: Option<String>,
    pub fix: Option<FixReport>,
    /// What clang-19 emits for each atomic, fence and barrier, per requested target.
    pub isa: Vec<IsaReport>,
    /// What each requested simulated GPU showed over its seeded runs.
    pub hardware: Vec<HardwareResult>,
}

/// What `--progress` found.
#[derive(Clone, Debug, Serialize)]
pub struct LivenessReport {
    pub progress: &'static str,
    /// The thread that may never leave its loop, the loop, and why (absent when every
    /// thread terminates).
    pub stuck_thread: Option<String>,
    pub stuck_loop: Option<String>,
    pub explanation: Option<String>,
}

/// How to grade: the loop bound, and the progress model to judge termination under.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub bound: u32,
    pub progress: Option<Progress>,
}

impl Default for Options {
    fn default() -> Options {
        Options { bound: crate::model::unroll::DEFAULT_BOUND, progress: None }
    }
}

/// Judges termination under `progress` and records it in `report`.
pub fn attach_liveness(report: &mut Report, test: &Litmus, model: Model, progress: Progress, bound: u32) -> Result<(), CheckError> {
    let l = crate::model::progress::terminates(test, model, progress, bound)?;
    report.terminates = Some(l.terminates);
    let name = |t: u16| test.threads.get(t as usize).map_or_else(|| format!("thread {t}"), |th| th.name.clone());
    let stuck = l.stuck.as_ref();
    let explanation = stuck.map(|s| {
        if let Some(b) = &s.barrier {
            return format!(
                "{} waits for ever at the barrier on line {}: it needs {} threads to meet, and at most {} barrier(s) with its id can be reached in its work-group",
                name(s.thread),
                b.span.line,
                b.quorum,
                b.reachable
            );
        }
        let kind = if s.stores { "a loop that stores" } else { "a spin loop (it only reads)" };
        let others: Vec<String> = s.unscheduled.iter().map(|t| name(*t)).collect();
        let looping: Vec<String> = s.also_stuck.iter().map(|t| name(*t)).collect();
        let left = if others.is_empty() && !looping.is_empty() {
            format!("{} never finish(es) either (in a loop or at a barrier), so the writes that would let it out never come", looping.join(", "))
        } else if others.is_empty() {
            "every other thread has finished, and no write it waits for comes".to_string()
        } else {
            format!(
                "the {progress} progress model lets {} stay unscheduled, so the write it waits for may never come",
                others.join(", "),
                progress = progress.name()
            )
        };
        format!("{} may repeat {kind} for ever: {left}", name(s.thread))
    });
    report.liveness = Some(LivenessReport {
        progress: progress.name(),
        stuck_thread: stuck.map(|s| name(s.thread)),
        stuck_loop: stuck.map(|s| match s.barrier {
            Some(_) => format!("the barrier at line {}", s.span.line),
            None => format!("back to `{}` at line {}", s.label, s.span.line),
        }),
        explanation,
    });
    if report.bound_reached.is_none() {
        report.bound_reached = l.bound_reached.map(|b| bound_words(test, &b));
    }
    Ok(())
}

fn bound_words(test: &Litmus, b: &crate::model::BoundReached) -> String {
    let t = test.threads.get(b.thread as usize).map_or("?", |t| t.name.as_str());
    format!("{t}'s loop back to `{}` (line {}) wants more than {} iterations; longer executions are not judged (raise --bound)", b.label, b.span.line, b.bound)
}

/// One GPU's runs of the test, or why it was not run.
#[derive(Clone, Debug, Serialize)]
pub struct HardwareResult {
    pub gpu: String,
    /// Set when the test could not run there (the language verdict stands alone).
    pub skipped: Option<String>,
    /// The model forbids the condition's outcome, yet the simulated GPU showed it: a
    /// conformance anomaly of the lowering or the simulator, never the student's error.
    pub anomaly: bool,
    #[serde(flatten)]
    pub runs: Option<hardware::HardwareReport>,
}

/// Run the test on each GPU (with its mode) and attach what they showed.
pub fn attach_hardware(report: &mut Report, test: &Litmus, gpus: &[(hipscope_sim::gpus::GpuConfig, hipscope_sim::gpus::Mode)], runs: hardware::Runs) {
    attach_hardware_with(report, test, gpus, runs, &hardware::Setup::default());
}

/// [`attach_hardware`] with `setup`'s placement and stress.
pub fn attach_hardware_with(
    report: &mut Report,
    test: &Litmus,
    gpus: &[(hipscope_sim::gpus::GpuConfig, hipscope_sim::gpus::Mode)],
    runs: hardware::Runs,
    setup: &hardware::Setup,
) {
    for (gpu, mode) in gpus {
        let result = match hardware::run_with(test, gpu, *mode, runs, setup) {
            Ok(r) => {
                let anomaly = report.outcome == Some(Outcome::Forbidden) && r.condition_observed > 0;
                HardwareResult { gpu: gpu.name.clone(), skipped: None, anomaly, runs: Some(r) }
            }
            Err(e) => HardwareResult { gpu: gpu.name.clone(), skipped: Some(e.to_string()), anomaly: false, runs: None },
        };
        report.hardware.push(result);
    }
}

/// The emitted code of one target (a build name such as `gfx942` or `gfx1100-w32-wgp`).
#[derive(Clone, Debug, Serialize)]
pub struct IsaReport {
    pub target: String,
    pub operations: Vec<IsaLine>,
}

#[derive(Clone, Debug, Serialize)]
pub struct IsaLine {
    pub thread: String,
    pub line: u32,
    /// The memory-model part of the code: waits, write-backs, invalidates, the access with
    /// its cache bits (`a ; b ; c`).
    pub code: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Allowed,
    Forbidden,
}

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Counts {
    pub candidates: usize,
    pub consistent: usize,
    /// Consistent executions satisfying the proposition (herd's "Positive").
    pub positive: usize,
    pub negative: usize,
    pub final_states: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct RaceReport {
    pub kind: model::RaceKind,
    pub first: AccessReport,
    pub second: AccessReport,
    pub rule: String,
    /// The execution in which the two accesses are unordered.
    pub execution: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct AccessReport {
    pub thread: String,
    pub agent: u32,
    pub workgroup: u32,
    pub wave: u32,
    pub line: u32,
    pub column: u32,
    pub event: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct FixReport {
    pub changes: Vec<String>,
    /// The outcome after the change (re-checked).
    pub outcome_after: Outcome,
}

pub fn dialect_name(d: Dialect) -> &'static str {
    match d {
        Dialect::OpenCl => "opencl",
        Dialect::Ptx => "ptx",
        Dialect::Vulkan => "vulkan",
        Dialect::Lisa => "lisa",
        Dialect::Hip => "hip",
    }
}

/// The code of every atomic access, fence and barrier of `test` on `target`.
pub fn emitted(test: &Litmus, target: &lower::Target) -> IsaReport {
    let mut operations = Vec::new();
    for thread in &test.threads {
        for_each_stmt(&thread.body, &mut |_, stmt| {
            let synchronizing = match stmt.accesses() {
                Some((_, accesses)) => accesses.iter().flatten().any(|a| matches!(a, Access::Atomic { .. })),
                None => matches!(stmt, Stmt::Fence { .. } | Stmt::Barrier { .. }),
            };
            if let (true, Some(op)) = (synchronizing, stmt.memory_op(&test.locations)) {
                // The access instruction follows the location's type (`global_atomic_umin`, `_x2`).
                let ty = stmt.accesses().map_or(hipscope_mm::ValueType::INT, |(t, _)| test.loc_type(t.loc));
                operations.push(IsaLine { thread: thread.name.clone(), line: stmt.span().line, code: lower::show(&lower::lower_typed(&op, ty, target)) });
            }
        });
    }
    IsaReport { target: target.config_name(), operations }
}

/// Grades one parsed test; `targets` are the builds whose emitted code the report lists.
pub fn grade_for(
    file: &str,
    test: &Litmus,
    model: Model,
    source_lines: &[&str],
    targets: &[lower::Target],
    opts: &Options,
) -> Result<(Report, Verdict), CheckError> {
    let (mut report, verdict) = grade_with(file, test, model, source_lines, opts)?;
    report.isa = targets.iter().map(|t| emitted(test, t)).collect();
    Ok((report, verdict))
}

/// Grades one parsed test (loops unrolled to the default bound, no termination verdict).
pub fn grade(file: &str, test: &Litmus, model: Model, source_lines: &[&str]) -> Result<(Report, Verdict), CheckError> {
    grade_with(file, test, model, source_lines, &Options::default())
}

/// Grades one parsed test with `opts`.
pub fn grade_with(file: &str, test: &Litmus, model: Model, source_lines: &[&str], opts: &Options) -> Result<(Report, Verdict), CheckError> {
    let v = model::check_bounded(test, model, model::execution::MAX_CANDIDATES, opts.bound)?;
    let races = v.races.iter().map(|r| race_report(test, model, r)).collect();
    let condition = test.condition.as_ref().map(|c| {
        let q = match c.quantifier {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        };
        let text = source_lines.get(c.span.line.saturating_sub(1) as usize).map_or("", |l| l.trim());
        if text.starts_with(q) && text.len() > q.len() {
            text.to_string()
        } else {
            format!("{q} (line {})", c.span.line)
        }
    });
    let wants_forbidden = test.condition.as_ref().is_some_and(|c| c.quantifier != Quantifier::Exists);
    let goal = if wants_forbidden && v.reachable() {
        Some(Goal::Forbidden)
    } else if !v.race_free() {
        Some(Goal::RaceFree)
    } else {
        None
    };
    let fix = goal.and_then(|g| fix::suggest(test, model, g)).map(|f| FixReport {
        changes: f.edits.iter().map(|e| e.words(test)).collect(),
        outcome_after: if f.reachable_after { Outcome::Allowed } else { Outcome::Forbidden },
    });
    let report = Report {
        schema: SCHEMA_VERSION,
        file: file.to_string(),
        test: test.name.clone(),
        dialect: dialect_name(test.dialect),
        model,
        condition,
        outcome: test.condition.as_ref().map(|_| if v.reachable() { Outcome::Allowed } else { Outcome::Forbidden }),
        condition_holds: v.holds,
        executions: Counts {
            candidates: v.candidates,
            consistent: v.consistent,
            positive: v.positive,
            negative: v.consistent - v.positive,
            final_states: v.states,
        },
        race_free: v.race_free(),
        terminates: None,
        liveness: None,
        bound_reached: v.bound_reached.as_ref().map(|b| bound_words(test, b)),
        races,
        witness: v.witness.as_ref().map(|x| explain::interleaving(test, x)),
        fix,
        isa: Vec::new(),
        hardware: Vec::new(),
    };
    let mut report = report;
    if let Some(p) = opts.progress {
        attach_liveness(&mut report, test, model, p, opts.bound)?;
    }
    Ok((report, v))
}

fn race_report(test: &Litmus, model: Model, race: &model::Race) -> RaceReport {
    let (a, b) = race.events();
    let access = |e: &model::event::Event| {
        let t = &test.threads[e.thread as usize];
        AccessReport {
            thread: t.name.clone(),
            agent: t.placement.agent,
            workgroup: t.placement.workgroup,
            wave: t.placement.wave,
            line: e.span.line,
            column: e.span.column,
            event: explain::describe(test, e),
        }
    };
    RaceReport {
        kind: race.kind,
        first: access(a),
        second: access(b),
        rule: explain::race_rule(test, model, race),
        execution: explain::interleaving(test, &race.execution),
    }
}

/// The report as text for a person.
pub fn text(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{} — {} ({} dialect), model {}", r.file, r.test, r.dialect, r.model.name());
    let e = &r.executions;
    match r.outcome {
        Some(outcome) => {
            let word = if outcome == Outcome::Allowed { "ALLOWED" } else { "FORBIDDEN" };
            let _ = writeln!(
                o,
                "  outcome: {word} ({} of {} consistent executions reach it; {} candidates, {} final states)",
                e.positive, e.consistent, e.candidates, e.final_states
            );
        }
        None => {
            let _ = writeln!(o, "  no condition: races only ({} consistent executions pass the filter, {} candidates)", e.consistent, e.candidates);
        }
    }
    if let (Some(c), Some(h)) = (&r.condition, r.condition_holds) {
        let _ = writeln!(o, "  condition {c}: {}", if h { "holds" } else { "does not hold" });
    }
    if r.race_free {
        let _ = writeln!(o, "  races: none (race-free under {})", r.model.name());
    } else {
        let _ = writeln!(o, "  races: {} — the program is undefined under {}", r.races.len(), r.model.name());
        for race in &r.races {
            let _ = writeln!(o, "  - {:?} race: {}  ×  {}", race.kind, race.first.event, race.second.event);
            let _ = writeln!(o, "    rule: {}", race.rule);
        }
    }
    if let Some(b) = &r.bound_reached {
        let _ = writeln!(o, "  bound reached: {b}");
    }
    if let (Some(t), Some(l)) = (r.terminates, &r.liveness) {
        match &l.explanation {
            Some(why) if !t => {
                let _ = writeln!(o, "  termination under {} progress: NO — {why}", l.progress);
                let _ = writeln!(o, "    loop: {} of {}", l.stuck_loop.as_deref().unwrap_or("?"), l.stuck_thread.as_deref().unwrap_or("?"));
            }
            _ => {
                let _ = writeln!(o, "  termination under {} progress: every thread terminates", l.progress);
            }
        }
    }
    if let Some(w) = &r.witness {
        let _ = writeln!(o, "  witness (an execution reaching the outcome):");
        for line in w.lines() {
            let _ = writeln!(o, "    {line}");
        }
    }
    if let Some(f) = &r.fix {
        let _ = writeln!(o, "  fix: {} (re-checked: race-free, outcome {:?})", f.changes.join("; and "), f.outcome_after);
    }
    for isa in &r.isa {
        let compiler = lower::CONFIGS.iter().find(|(n, _)| *n == isa.target).map_or("clang-19", |(_, t)| t.compiler());
        let _ = writeln!(o, "  emitted on {} ({compiler}, memory-model part):", isa.target);
        for op in &isa.operations {
            let _ = writeln!(o, "    {} line {}: {}", op.thread, op.line, op.code);
        }
    }
    for h in &r.hardware {
        hardware_text(&mut o, h);
    }
    o
}

/// One GPU's table: every final state seen with its count, the condition's marked with its
/// replay seed.
fn hardware_text(o: &mut String, h: &HardwareResult) {
    let Some(runs) = &h.runs else {
        let _ = writeln!(o, "  on {}: {}", h.gpu, h.skipped.as_deref().unwrap_or("not run"));
        return;
    };
    let seen = match runs.condition_first_seed {
        Some(seed) => format!("condition seen in {}/{} runs (replay: --seed {seed} --runs 1)", runs.condition_observed, runs.runs),
        None => format!("condition never seen in {} runs", runs.runs),
    };
    let _ = writeln!(
        o,
        "  on {} {} mode ({}, {}; seeds {}..{}): {seen}",
        runs.gpu,
        runs.mode,
        runs.build,
        match &runs.stress {
            Some(st) => format!("{}, stress {st}", runs.placement),
            None => runs.placement.clone(),
        },
        runs.first_seed,
        runs.first_seed + runs.runs.saturating_sub(1)
    );
    for out in &runs.outcomes {
        let mark = if out.satisfies { "  <- the condition" } else { "" };
        let _ = writeln!(o, "    {:>6}/{}  {}  (first seed {}){mark}", out.count, runs.runs, out.state, out.first_seed);
    }
    if let Some(seed) = runs.condition_first_seed.filter(|_| !runs.story.is_empty()) {
        let _ = writeln!(o, "    what the memory system did in seed {seed} (accesses in issue order):");
        for line in &runs.story {
            let _ = writeln!(o, "      {line}");
        }
    }
    if h.anomaly {
        let _ = writeln!(o, "    CONFORMANCE ANOMALY: the model forbids this outcome, yet the simulated GPU shows it — a fault of the lowering or the simulator, not of the test");
    }
}
