//! `hipscope grade --spec SPEC.ron` and `hipscope grade --exec -- PROGRAM ARGS…`: scoped race
//! detection on compiled kernels (a launch spec's dispatches, or every kernel a HIP program
//! launches), over seeded runs, with source lines, the code emitted for each atomic and fence,
//! the outcomes and a fix hint per race.

use super::grade::{Args, Expect};
use super::CliError;
use hipscope_race::runs::{self, KernelGrade, Outcome, Plan};
use hipscope_sim::spec::{self, RunError, RunOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

/// Runs per kernel when `--runs` is not given (a litmus test's default of 1000 would be long
/// for a whole kernel).
const DEFAULT_RUNS: u64 = 8;

fn run_error(e: RunError) -> CliError {
    match e {
        RunError::Spec(e) => CliError::BadInput(e.to_string()),
        fault @ RunError::Fault { .. } => CliError::Fault(fault.to_string()),
    }
}

/// `--no-progress-cycles`, on by default when grading: a student's counter-bounded spin is
/// reported instead of running to the runaway limit.
fn no_progress(args: &Args) -> u64 {
    args.no_progress_cycles.unwrap_or(hipscope_sim::sched::DEFAULT_NO_PROGRESS)
}

fn check_expect(args: &Args) -> Result<(), CliError> {
    match args.expect {
        Some(Expect::Allowed | Expect::Forbidden) => {
            Err(CliError::BadInput("--expect allowed|forbidden is about a litmus test's condition; for compiled kernels use --expect race-free".into()))
        }
        _ => Ok(()),
    }
}

/// The one GPU `--gpu` names, if any.
fn one_gpu(args: &Args) -> Result<Option<String>, CliError> {
    match args.gpu.as_deref() {
        Some(list) if list.contains(',') => Err(CliError::BadInput(format!("--gpu {list}: grading compiled kernels runs on one GPU"))),
        other => Ok(other.map(str::to_string)),
    }
}

/// `--spec`: every dispatch of the launch spec, each from fresh buffers, `--runs` times.
pub fn run_spec(args: &Args, path: &Path) -> Result<ExitCode, CliError> {
    check_expect(args)?;
    let spec = spec::load(path).map_err(|e| CliError::BadInput(e.to_string()))?;
    // The spec's expectations are validated (not evaluated) when its session is set up.
    let references = Some(hipscope_studies::references::BUILT_IN);
    let opts = RunOptions {
        gpu: one_gpu(args)?,
        code_object: args.code_object.clone(),
        mode: args.engine_mode(),
        references,
        no_progress: Some(no_progress(args)),
        ..RunOptions::default()
    };
    let plan = Plan { runs: args.runs.unwrap_or(DEFAULT_RUNS), first_seed: args.seed, only: args.only.clone() };
    let grades = runs::grade_spec(&spec, path, &opts, &plan).map_err(run_error)?;
    if grades.is_empty() {
        return Err(CliError::BadInput(format!("{}: no dispatch of a kernel matching --only {}", path.display(), args.only.as_deref().unwrap_or(""))));
    }
    report(args, &grades, None)
}

/// `--exec`: the program `runs` times under `hipscope exec`'s runtime with seeds `seed..`,
/// the detector on every launch; the program's exit status and output are its outcome.
pub fn run_exec(args: &Args) -> Result<ExitCode, CliError> {
    check_expect(args)?;
    let (program, rest) = args.command.split_first().ok_or_else(|| CliError::BadInput("--exec: no program given after --".into()))?;
    let mut prepared = match &args.node.node {
        Some(node) => hipscope_studies::program::Environment::for_node(&super::exec::executable()?, node, args.engine_mode()).map_err(CliError::BadInput)?,
        None => super::exec::environment(&one_gpu(args)?.unwrap_or_else(|| "mi300a".into()), args.engine_mode())?,
    };
    prepared.set_no_progress(no_progress(args));
    let count = args.runs.unwrap_or(DEFAULT_RUNS);
    let log = std::env::temp_dir().join(format!("hipscope-grade-{}.json", std::process::id()));
    let bar = super::progress(count as usize);
    let mut kernels: BTreeMap<String, KernelGrade> = BTreeMap::new();
    let mut outcomes: Vec<Outcome> = Vec::new();
    for seed in args.seed..args.seed + count {
        bar.set_message(format!("{program} --seed {seed}"));
        let _ = std::fs::remove_file(&log);
        let mut cmd = prepared.command(program, rest);
        cmd.env("HIPSCOPE_SEED", seed.to_string()).env("HIPSCOPE_RACES", &log);
        let out = cmd.output().map_err(|e| CliError::BadInput(format!("{program}: cannot run: {e}")))?;
        let text = std::fs::read_to_string(&log).map_err(|e| {
            CliError::BadInput(format!(
                "{program}: no race report from hipscope's HIP runtime ({e}); does it use HIP (libamdhip64)? {}",
                last_line(&out.stderr)
            ))
        })?;
        let found: Vec<KernelGrade> = serde_json::from_str(&text).map_err(|e| CliError::BadInput(format!("{}: {e}", log.display())))?;
        for mut g in found {
            g.runs = 1;
            match kernels.get_mut(&g.kernel) {
                Some(k) => k.merge(g),
                None => {
                    kernels.insert(g.kernel.clone(), g);
                }
            }
        }
        let state = format!("exit {}: {}", out.status.code().map_or_else(|| "by signal".into(), |c| c.to_string()), one_line(&out.stdout));
        match outcomes.iter_mut().find(|o| o.state == state) {
            Some(o) => o.runs += 1,
            None => outcomes.push(Outcome { state, runs: 1, seed }),
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let _ = std::fs::remove_file(&log);
    outcomes.sort_by_key(|o| (std::cmp::Reverse(o.runs), o.seed));
    let mut grades: Vec<KernelGrade> = kernels.into_values().collect();
    for g in &mut grades {
        g.finish();
        if args.timing {
            g.story = exec_story(&prepared, program, rest, g)?;
        }
    }
    if grades.is_empty() {
        return Err(CliError::BadInput(format!("{program}: launched no kernel")));
    }
    report(args, &grades, Some((program, &outcomes)))
}

/// Program runs a race's story replays at most (each is a whole run of the program).
const EXEC_STORY_REPLAYS: usize = 16;

/// Timing mode: run the program again on the seeds that showed `g`'s race, with the runtime
/// watching the race's granule and waves (`HIPSCOPE_STORY`), and tell one run.
fn exec_story(prepared: &hipscope_studies::program::Environment, program: &str, rest: &[String], g: &KernelGrade) -> Result<Option<runs::RaceStory>, CliError> {
    let Some((found, focus)) = runs::story_focus(g) else { return Ok(None) };
    let path = std::env::temp_dir().join(format!("hipscope-story-{}.json", std::process::id()));
    let seeds: Vec<u64> = found.seeds.iter().copied().take(EXEC_STORY_REPLAYS).collect();
    let focus_json = serde_json::to_string(&focus).map_err(|e| CliError::BadInput(e.to_string()))?;
    let bar = super::progress(seeds.len());
    let mut told = Vec::new();
    for seed in seeds {
        bar.set_message(format!("{program} --seed {seed}: what the memory system did with the race in {}", g.kernel));
        // Each run replaces the file's contents with its story: the race to watch goes back in.
        std::fs::write(&path, &focus_json).map_err(|e| CliError::BadInput(format!("{}: {e}", path.display())))?;
        let mut cmd = prepared.command(program, rest);
        cmd.env("HIPSCOPE_SEED", seed.to_string()).env("HIPSCOPE_STORY", &path);
        cmd.output().map_err(|e| CliError::BadInput(format!("{program}: cannot run: {e}")))?;
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if let Ok(Some(t)) = serde_json::from_str::<Option<hipscope_race::story::Told>>(&text) {
            told.push(t);
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let _ = std::fs::remove_file(&path);
    Ok(runs::assemble_story(found, told))
}

/// The last non-empty line of a program's output (at most 160 characters).
fn last_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    line.chars().take(160).collect()
}

/// A program's output as one line: its non-empty lines joined (at most 240 characters).
fn one_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let joined = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" | ");
    joined.chars().take(240).collect()
}

/// The explanation of a kernel that stopped making progress in some run, if one did.
fn stuck(g: &KernelGrade) -> Option<hipscope_grade::explain::stuck::Explanation> {
    let s = g.stuck.as_ref()?;
    Some(hipscope_grade::explain::stuck::explain(&s.facts, &g.target, &|pc| s.line_of(pc).map(|l| l.to_string())))
}

/// Text: a stuck kernel's explanation and its waves, indented under the kernel.
fn render_stuck(g: &KernelGrade) -> String {
    let (Some(e), Some(s)) = (stuck(g), g.stuck.as_ref()) else { return String::new() };
    let mut out = format!(
        "  {} (replay with --seed {}): {}
",
        e.verdict, s.seed, e.explanation
    );
    for w in &e.waves {
        out.push_str(&format!(
            "    {w}
"
        ));
    }
    if s.facts.live_waves > e.waves.len() as u64 {
        out.push_str(&format!("    … {} more live wave(s)\n", s.facts.live_waves - e.waves.len() as u64));
    }
    out
}

fn report(args: &Args, grades: &[KernelGrade], program: Option<(&String, &Vec<Outcome>)>) -> Result<ExitCode, CliError> {
    if args.json {
        let mut kernels = serde_json::to_value(grades).unwrap_or_default();
        for (k, g) in kernels.as_array_mut().into_iter().flatten().zip(grades) {
            if let (Some(e), Some(obj)) = (stuck(g), k.as_object_mut()) {
                obj.insert("progress".into(), serde_json::to_value(e).unwrap_or_default());
            }
        }
        let doc = match program {
            None => serde_json::json!({ "kernels": kernels }),
            Some((name, outcomes)) => serde_json::json!({ "program": name, "outcomes": outcomes, "kernels": kernels }),
        };
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
    } else {
        for g in grades {
            println!("{}{}", runs::render(g), render_stuck(g));
        }
        if let Some((name, outcomes)) = program {
            println!("{name}: what the program printed, over {} run(s):", outcomes.iter().map(|o| o.runs).sum::<u64>());
            for o in outcomes {
                println!("  {} run(s), replay with --seed {}: {}", o.runs, o.seed, o.state);
            }
        }
        let racy = grades.iter().filter(|g| g.race).count();
        let undecided = grades.iter().filter(|g| !g.race && !g.undecided.is_empty()).count();
        println!(
            "{} kernel(s): {racy} race, {undecided} race-free as compiled but undecided (see above), {} race-free",
            grades.len(),
            grades.len() - racy - undecided
        );
    }
    if args.expect == Some(Expect::RaceFree) && grades.iter().any(|g| g.race) {
        eprintln!("hipscope grade: --expect race-free does not hold");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
