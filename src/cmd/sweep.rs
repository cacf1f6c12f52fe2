//! `hipscope sweep PLAN.ron`: a plan's points run in parallel (or one shard of them), results
//! appended per point so that an interrupted sweep resumes; `--slurm` writes (and `--submit`
//! submits) a job array with a dependent merge job; `hipscope sweep merge DIR` checks the
//! shards and writes results.csv, results.json and plots.

use super::common_args::{SampleArgs, WorkloadsArg};
use super::CliError;
use hipscope_sim::sample::SamplePolicy;
use hipscope_sweep::record::Record;
use hipscope_sweep::run::{self, Shard};
use hipscope_sweep::worker::Isolation;
use hipscope_sweep::{merge, slurm, workload};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The exit statuses, for `--help`.
const EXIT_STATUS: &str = "Exit status: 0 every point has its metrics; 1 some points failed (their `error` says \
why: a config the workload does not fit, a workload that crashed its worker process) and \
none faulted; 2 bad input (plan, options, results directory; nothing more runs); 3 some \
point's kernel faulted. A failed point is recorded and the sweep goes on; the merge and the \
shard runs report how many failed. Each point runs in a worker process (`hipscope sweep \
worker`, one per job), so a workload that overflows its stack or aborts fails that point only. \
With --slurm an array task whose points failed (1, 3) counts as done, so that the merge runs \
and reports them.";

/// Plans of at least this many points say that their configs are being checked (a second or
/// more) before anything else is printed.
const NOTICE_POINTS: u64 = 10_000;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true, after_help = EXIT_STATUS)]
pub struct Args {
    #[command(subcommand)]
    pub merge: Option<Sub>,
    /// The sweep plan (RON): workloads × a base GPU × config axes × seeds, and the metrics.
    #[arg(value_name = "PLAN.ron", required = true)]
    pub plan: Option<PathBuf>,
    /// Output directory: one results file per shard, the plan's copy, the merged results.
    /// [default: sweeps/<plan name>]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run only shard I of N: the points whose index ≡ I (mod N).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Points simulated at once (worker processes), at most 4 per core here (with --slurm:
    /// per array task, its --cpus-per-task, at most 1024).
    #[arg(long, value_name = "N", default_value_t = default_jobs())]
    pub jobs: usize,
    /// Write a Slurm job array (one shard per task) and a merge job that waits for it, and
    /// print the sbatch command that submits them.
    #[arg(long)]
    pub slurm: bool,
    /// With --slurm: shards (array tasks).
    #[arg(long, value_name = "N", default_value_t = 4, requires = "slurm")]
    pub shards: usize,
    /// With --slurm: the partition.
    #[arg(long, value_name = "P", requires = "slurm")]
    pub partition: Option<String>,
    /// With --slurm: each task's time limit, as sbatch --time takes it.
    #[arg(long, value_name = "T", requires = "slurm")]
    pub time: Option<String>,
    /// With --slurm: also submit (sbatch must be on the PATH).
    #[arg(long, requires = "slurm")]
    pub submit: bool,
    #[command(flatten)]
    pub workloads: WorkloadsArg,
    /// Sampling of every point (the plan's `sample` field says it too; this overrides it).
    #[command(flatten)]
    pub sample: SampleArgs,
    /// Without a merge after a one-process run.
    #[arg(long)]
    pub no_merge: bool,
}

#[derive(clap::Subcommand)]
pub enum Sub {
    /// Check that every shard and point of a sweep is present exactly once, from one plan, and
    /// write results.csv, results.json and plots/ into its directory.
    Merge {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// (Internal) run the points a sweep sends on stdin, one per line, answering on stdout.
    #[command(hide = true)]
    Worker,
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    match &args.merge {
        Some(Sub::Merge { dir }) => return merge_dir(dir),
        Some(Sub::Worker) => return serve_worker(),
        None => {}
    }
    let plan_path = args.plan.as_ref().ok_or_else(|| CliError::BadInput("sweep: give a plan (PLAN.ron) or `sweep merge DIR`".into()))?;
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(CliError::BadInput)?,
        None => Shard::ALL,
    };
    let cores = default_jobs();
    run::check_jobs(args.jobs, cores, args.slurm).map_err(CliError::BadInput)?;
    // The scope suite's code objects are among the files the plan hash covers.
    let workloads = args.workloads.locate();
    // Checking every point's config takes about 40 µs a point: say so when it takes a while.
    if let Some(n) = hipscope_sweep::plan::load(plan_path).ok().and_then(|p| hipscope_sweep::points::count(&p).ok()).filter(|&n| n >= NOTICE_POINTS) {
        eprintln!("hipscope: {}: checking the configs of {n} points", plan_path.display());
    }
    let sample = args.sample.sample.map(SamplePolicy::from);
    let prepared = run::prepare_sampled(plan_path, workloads.as_ref().ok().map(PathBuf::as_path), sample).map_err(|e| CliError::BadInput(e.to_string()))?;
    let points = prepared.points.len();
    if shard.count > points {
        return Err(CliError::BadInput(format!(
            "--shard {}/{}: {} shards for {points} point(s) (at most one shard per point)",
            shard.index, shard.count, shard.count
        )));
    }
    let out = args.out.clone().unwrap_or_else(|| Path::new("sweeps").join(plan_path.file_stem().unwrap_or_default()));
    if args.slurm {
        return write_slurm(args, plan_path, &out, points, sample);
    }
    let workloads = workloads?;
    run::open(&prepared, &out, shard).map_err(|e| CliError::BadInput(e.to_string()))?;
    // Per shard: shards of one sweep may run at once in the same directory.
    let scratch = out.join(format!("scratch-{}-of-{}", shard.index, shard.count));
    std::fs::create_dir_all(&scratch).map_err(|e| CliError::BadInput(format!("{}: {e}", scratch.display())))?;
    let exe = std::env::current_exe().map_err(|e| CliError::BadInput(format!("cannot find the hipscope executable: {e}")))?;
    let cx = workload::Context {
        plan_dir: plan_path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        workloads,
        hipscope: Some(exe.clone()),
        scratch: scratch.clone(),
        sample: prepared.plan.sample_policy(),
    };
    let policy = prepared.plan.sample_policy();
    eprintln!(
        "hipscope: {}: {points} point(s) on {}{} (plan {}){}; results in {}",
        plan_path.display(),
        prepared.base.name,
        if policy.any() { format!(", sampled ({})", policy.name()) } else { String::new() },
        prepared.hash,
        if shard == Shard::ALL { String::new() } else { format!(", shard {}/{}", shard.index, shard.count) },
        out.display()
    );
    let bar = Bar::new();
    let isolation = Isolation::Processes { exe };
    let summary = run::run_isolated(&prepared, &cx, &out, shard, args.jobs, &isolation, &bar).map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.0.finish_and_clear();
    let _ = std::fs::remove_dir(&scratch);
    eprintln!(
        "hipscope: shard {}/{}: {} point(s): {} run now, {} from an earlier run",
        shard.index, shard.count, summary.shard_points, summary.ran, summary.resumed
    );
    if shard == Shard::ALL && !args.no_merge {
        return merge_dir(&out);
    }
    Ok(status(summary.failed, summary.faults, summary.shard_points))
}

/// The exit status for `failed` points (`faults` of them kernel faults) of `total`, said on
/// stderr ([`EXIT_STATUS`]).
fn status(failed: usize, faults: usize, total: usize) -> ExitCode {
    if failed == 0 {
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "hipscope: {failed} of {total} point(s) failed{}; their `error` says why",
        if faults > 0 { format!(" ({faults} with a kernel fault)") } else { String::new() }
    );
    ExitCode::from(if faults > 0 { 3 } else { 1 })
}

/// `hipscope sweep worker`: jobs on stdin, outcomes on stdout, until stdin ends.
fn serve_worker() -> Result<ExitCode, CliError> {
    let (stdin, stdout) = (std::io::stdin(), std::io::stdout());
    hipscope_sweep::worker::serve(stdin.lock(), stdout.lock()).map_err(|e| CliError::BadInput(format!("sweep worker: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// A line on stdout. The results are written before anything is printed, so a reader that
/// went away (`| head -1`) costs nothing but the line.
fn say(line: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// The progress bar: points done, with the time left.
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
        let b = ProgressBar::new(0);
        if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} points, {eta} left {msg}") {
            b.set_style(style);
        }
        Bar(b)
    }
}

impl run::Progress for Bar {
    fn started(&self, todo: usize) {
        self.0.set_length(todo as u64);
    }
    fn finished(&self, r: &Record) {
        self.0.set_message(format!("(last: point {} {})", r.point, r.workload));
        self.0.inc(1);
    }
}

fn merge_dir(dir: &Path) -> Result<ExitCode, CliError> {
    let merged = merge::merge(dir).map_err(|e| CliError::BadInput(e.to_string()))?;
    let files = merged.write(dir).map_err(|e| CliError::BadInput(e.to_string()))?;
    let failed = merged.records.iter().filter(|r| r.error.is_some()).count();
    let faults = merged.records.iter().filter(|r| r.fault).count();
    say(&format!(
        "{}: {} point(s) from {} shard(s), plan {}{}",
        dir.display(),
        merged.records.len(),
        merged.shards,
        merged.plan_hash,
        if failed > 0 { format!(", {failed} without metrics") } else { String::new() }
    ));
    if let Some((n, error)) = merged.sampled() {
        say(&format!(
            "  sampled: {n} of {} point(s) ran with sampled timing, estimated error up to ±{error:.2} % (per point: results.csv `sampled`, results.json `\"sampled\"`)",
            merged.records.len()
        ));
    }
    for f in files {
        say(&format!("  {}", f.display()));
    }
    Ok(status(failed, faults, merged.records.len()))
}

fn write_slurm(args: &Args, plan: &Path, out: &Path, points: usize, sample: Option<SamplePolicy>) -> Result<ExitCode, CliError> {
    if args.shards == 0 || args.shards > points {
        return Err(CliError::BadInput(format!("--shards {}: from 1 to the plan's {points} point(s)", args.shards)));
    }
    if args.shard.is_some() {
        return Err(CliError::BadInput("--shard with --slurm: the job array runs every shard".into()));
    }
    let exe = std::env::current_exe().map_err(|e| CliError::BadInput(format!("cannot find the hipscope executable: {e}")))?;
    let o = slurm::Options {
        shards: args.shards,
        partition: args.partition.clone(),
        time: args.time.clone(),
        cpus: args.jobs,
        sample: sample.map(|s| s.name().to_string()),
    };
    let scripts = slurm::write(&exe, plan, out, &o).map_err(CliError::BadInput)?;
    say(&format!("{} point(s) in {} shard(s): {} (array), {} (merge)", points, args.shards, scripts.array.display(), scripts.merge.display()));
    if args.submit {
        let (array, merge) = scripts.submit().map_err(CliError::BadInput)?;
        say(&format!("submitted: job array {array}, merge job {merge} (after the array succeeds)"));
    } else {
        say(&scripts.command());
    }
    Ok(ExitCode::SUCCESS)
}
