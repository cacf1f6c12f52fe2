//! `hipscope sweep PLAN.ron`: a plan's points run in parallel (or one shard of them), results
//! appended per point so that an interrupted sweep resumes; `--slurm` writes (and `--submit`
//! submits) a job array with a dependent merge job; `hipscope sweep merge DIR` checks the
//! shards and writes results.csv, results.json and plots.

use super::CliError;
use hipscope_sweep::record::Record;
use hipscope_sweep::run::{self, Shard};
use hipscope_sweep::{merge, slurm, workload};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
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
    /// Points simulated at once (threads).
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
    /// The repository's workloads directory (the scope suite's code objects) [default:
    /// ./workloads, else the one of the source tree this binary was built from].
    #[arg(long, value_name = "DIR")]
    pub workloads: Option<PathBuf>,
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
}

fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    if let Some(Sub::Merge { dir }) = &args.merge {
        return merge_dir(dir);
    }
    let plan_path = args.plan.as_ref().ok_or_else(|| CliError::BadInput("sweep: give a plan (PLAN.ron) or `sweep merge DIR`".into()))?;
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(CliError::BadInput)?,
        None => Shard::ALL,
    };
    if args.jobs == 0 {
        return Err(CliError::BadInput("--jobs 0: at least one".into()));
    }
    let prepared = run::prepare(plan_path).map_err(|e| CliError::BadInput(e.to_string()))?;
    let out = args.out.clone().unwrap_or_else(|| Path::new("sweeps").join(plan_path.file_stem().unwrap_or_default()));
    if args.slurm {
        return write_slurm(args, plan_path, &out, prepared.points.len());
    }
    let workloads = super::locate(&args.workloads, "workloads", "--workloads")?;
    run::open(&prepared, &out, shard).map_err(|e| CliError::BadInput(e.to_string()))?;
    // Per shard: shards of one sweep may run at once in the same directory.
    let scratch = out.join(format!("scratch-{}-of-{}", shard.index, shard.count));
    std::fs::create_dir_all(&scratch).map_err(|e| CliError::BadInput(format!("{}: {e}", scratch.display())))?;
    let cx = workload::Context {
        plan_dir: plan_path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        workloads,
        hipscope: std::env::current_exe().ok(),
        scratch: scratch.clone(),
    };
    eprintln!(
        "hipscope: {}: {} point(s) on {} (plan {}){}; results in {}",
        plan_path.display(),
        prepared.points.len(),
        prepared.base.name,
        prepared.hash,
        if shard == Shard::ALL { String::new() } else { format!(", shard {}/{}", shard.index, shard.count) },
        out.display()
    );
    let bar = Bar::new();
    let summary = run::run(&prepared, &cx, &out, shard, args.jobs, &bar).map_err(|e| CliError::BadInput(e.to_string()))?;
    bar.0.finish_and_clear();
    let _ = std::fs::remove_dir(&scratch);
    eprintln!(
        "hipscope: shard {}/{}: {} point(s): {} run now, {} from an earlier run{}",
        shard.index,
        shard.count,
        summary.shard_points,
        summary.ran,
        summary.resumed,
        if summary.failed > 0 { format!(", {} failed (see their `error`)", summary.failed) } else { String::new() }
    );
    if shard == Shard::ALL && !args.no_merge {
        merge_dir(&out)?;
    }
    Ok(if summary.faults > 0 { ExitCode::from(3) } else { ExitCode::SUCCESS })
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
    println!(
        "{}: {} point(s) from {} shard(s), plan {}{}",
        dir.display(),
        merged.records.len(),
        merged.shards,
        merged.plan_hash,
        if failed > 0 { format!(", {failed} without metrics") } else { String::new() }
    );
    for f in files {
        println!("  {}", f.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn write_slurm(args: &Args, plan: &Path, out: &Path, points: usize) -> Result<ExitCode, CliError> {
    if args.shards == 0 {
        return Err(CliError::BadInput("--shards 0: at least one".into()));
    }
    if args.shard.is_some() {
        return Err(CliError::BadInput("--shard with --slurm: the job array runs every shard".into()));
    }
    let exe = std::env::current_exe().map_err(|e| CliError::BadInput(format!("cannot find the hipscope executable: {e}")))?;
    let o = slurm::Options { shards: args.shards, partition: args.partition.clone(), time: args.time.clone(), cpus: args.jobs };
    let scripts = slurm::write(&exe, plan, out, &o).map_err(CliError::BadInput)?;
    println!("{} point(s) in {} shard(s): {} (array), {} (merge)", points, args.shards, scripts.array.display(), scripts.merge.display());
    if args.submit {
        let (array, merge) = scripts.submit().map_err(CliError::BadInput)?;
        println!("submitted: job array {array}, merge job {merge} (after the array succeeds)");
    } else {
        println!("{}", scripts.command());
    }
    Ok(ExitCode::SUCCESS)
}
