//! Running a shard of a plan's points in parallel, one result line appended per point as it
//! finishes, resuming where an earlier run of the same shard stopped.

use crate::inputs::{self, Input};
use crate::metrics::Metric;
use crate::plan::{Plan, PlanError, Workload};
use crate::points::{self, Point};
use crate::record::{self, Record};
use crate::worker::{self, Isolation, Job, WorkerProcess};
use crate::workload::{Context, Outcome};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::sample::SamplePolicy;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

/// Shard `index` of `count`: the points whose index ≡ `index` (mod `count`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    /// `I/N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let (i, n) = text.split_once('/').ok_or_else(|| format!("--shard {text}: write I/N (shard I of N, 0 <= I < N)"))?;
        let num = |s: &str| s.trim().parse::<usize>().map_err(|_| format!("--shard {text}: \"{s}\" is not a number"));
        let (index, count) = (num(i)?, num(n)?);
        if count == 0 || index >= count {
            return Err(format!("--shard {text}: shard {index} of {count} does not exist (0 <= I < N)"));
        }
        Ok(Shard { index, count })
    }

    pub fn has(&self, point: usize) -> bool {
        point % self.count == self.index
    }

    /// Its results file in `dir`.
    pub fn file(&self, dir: &Path) -> PathBuf {
        dir.join(format!("shard-{}-of-{}.jsonl", self.index, self.count))
    }

    /// The shard whose results file is named `name` (index and count as written, checked by
    /// the merge).
    pub fn of_file_name(name: &str) -> Option<Shard> {
        let (i, n) = name.strip_prefix("shard-")?.strip_suffix(".jsonl")?.split_once("-of-")?;
        Some(Shard { index: i.parse().ok()?, count: n.parse().ok()? })
    }
}

/// Most points run at once per core of this machine: a point is CPU-bound, so more only
/// adds memory (each job slot is a worker process with its own simulation).
pub const JOBS_PER_CORE: usize = 4;
/// Most points run at once in any case (and the most `--cpus-per-task` a Slurm array task
/// is given): each job slot is a thread and a worker process.
pub const MAX_JOBS: usize = 1024;

/// Check `--jobs`: from 1 to [`JOBS_PER_CORE`] × `cores` here, to [`MAX_JOBS`] for a Slurm
/// task (whose node's cores are not this machine's).
pub fn check_jobs(jobs: usize, cores: usize, slurm: bool) -> Result<(), String> {
    let most = if slurm { MAX_JOBS } else { (JOBS_PER_CORE * cores.max(1)).min(MAX_JOBS) };
    if jobs == 0 || jobs > most {
        let why = if slurm { "MAX_JOBS for an array task".to_string() } else { format!("{JOBS_PER_CORE} per core on this machine's {cores}") };
        return Err(format!("--jobs {jobs}: from 1 to {most} ({why})"));
    }
    Ok(())
}

/// Largest GPU config file a plan may name (built-in configs are a few kilobytes).
pub const MAX_GPU_CONFIG_BYTES: u64 = 1 << 20;

/// A plan ready to run: its points, base config, the files it reads and its hash.
pub struct Prepared {
    pub plan: Plan,
    pub path: PathBuf,
    pub base: GpuConfig,
    pub points: Vec<Point>,
    pub metrics: Vec<Metric>,
    /// The files the workloads read, with their digests (part of the hash).
    pub inputs: Vec<Input>,
    pub hash: String,
}

/// [`prepare_in`] without the repository's workloads directory (the scope suite's code
/// objects are then not part of the hash).
pub fn prepare(path: &Path) -> Result<Prepared, PlanError> {
    prepare_in(path, None)
}

/// Read `path`, resolve its GPU, check every point and digest the files it reads
/// (`workloads`: the repository's workloads directory, for the scope suite's code objects).
pub fn prepare_in(path: &Path, workloads: Option<&Path>) -> Result<Prepared, PlanError> {
    prepare_sampled(path, workloads, None)
}

/// [`prepare_in`] with the plan's `sample` replaced by `sample` when it is given (`hipscope
/// sweep --sample`); the policy is part of the plan and so of its hash, and `off` leaves the
/// hash of a plan that names none.
pub fn prepare_sampled(path: &Path, workloads: Option<&Path>, sample: Option<SamplePolicy>) -> Result<Prepared, PlanError> {
    let mut plan = crate::plan::load(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let err = |m: String| PlanError::new(path, m);
    if let Some(policy) = sample {
        plan.sample = policy.any().then(|| policy.name().to_string());
        crate::validate::sample(&plan).map_err(|m| PlanError::new(path, format!("--sample: {m}")))?;
    }
    let base = base_gpu(&plan, dir).map_err(err)?;
    if plan.mode.is_timing() && base.timing.is_none() {
        return Err(err(format!("gpu: {} has no timing section (mode: Functional runs without)", base.name)));
    }
    // Checked by `plan::load`.
    let metrics: Vec<Metric> = plan.metrics.iter().map(|m| Metric::parse(m)).collect::<Result<_, _>>().map_err(err)?;
    for (i, w) in plan.workloads.iter().enumerate() {
        let file = match w {
            Workload::Spec { path, .. } | Workload::Litmus { path, .. } => Some(path),
            Workload::Exec { program, .. } => Some(program),
            Workload::Scopes { .. } => None,
        };
        if let Some(f) = file.filter(|f| !dir.join(f).is_file()) {
            return Err(err(format!("workloads[{i}] ({}): {} not found", w.name(), dir.join(f).display())));
        }
    }
    // The scope suite's build for each processor and mode a point runs in.
    let mut suite_dirs = BTreeSet::new();
    let scopes: Vec<bool> = plan.workloads.iter().filter_map(|w| if let Workload::Scopes { tgsplit, .. } = w { Some(*tgsplit) } else { None }).collect();
    let points = points::expand_with(&plan, &base, path, &mut |cfg| {
        for &tgsplit in &scopes {
            suite_dirs.insert(hipscope_studies::scopes::Target { gpu: cfg.clone(), mode: cfg.mode, tgsplit }.object_dir());
        }
    })?;
    let inputs = inputs::collect(&plan, dir, workloads, &suite_dirs).map_err(err)?;
    let hash = record::plan_hash(&plan, &base, &inputs);
    Ok(Prepared { plan, path: path.to_path_buf(), base, points, metrics, inputs, hash })
}

/// The plan's base GPU: a built-in name, or a config file relative to the plan.
fn base_gpu(plan: &Plan, dir: &Path) -> Result<GpuConfig, String> {
    use hipscope_sim::gpus;
    let names = gpus::builtin_names();
    if names.contains(&plan.gpu.as_str()) {
        return gpus::builtin(&plan.gpu).map_err(|e| format!("gpu: {e}"));
    }
    if !plan.gpu.ends_with(".ron") {
        return Err(format!("gpu: \"{}\" is neither a built-in GPU ({}) nor a config file (NAME.ron)", plan.gpu.escape_debug(), names.join(", ")));
    }
    let file = dir.join(&plan.gpu);
    let text = hipscope_sim::spec::files::read_text(&file, MAX_GPU_CONFIG_BYTES).map_err(|e| format!("gpu: {e}"))?;
    GpuConfig::from_ron(&text, &file.display().to_string()).map_err(|e| format!("gpu: {e}"))
}

/// What a shard run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Points of the shard.
    pub shard_points: usize,
    /// Found in the results file from an earlier run.
    pub resumed: usize,
    pub ran: usize,
    /// Points of the shard (run now or earlier) that have no metrics: input errors for their
    /// config, kernel faults, a workload that crashed its worker.
    pub failed: usize,
    /// Of those, kernel faults.
    pub faults: usize,
}

/// Why a shard could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Plan(#[from] PlanError),
    #[error("{file}: {message}")]
    Results { file: String, message: String },
    /// A message that names its file: results made from other inputs (naming the file that
    /// changed), an unreadable or foreign line in a results file.
    #[error("{0}")]
    Named(String),
}

/// Told as points finish (from worker threads).
pub trait Progress: Sync {
    fn started(&self, _todo: usize) {}
    fn finished(&self, _r: &Record) {}
}

impl Progress for () {}

/// The points a shard's results file already holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resumed {
    pub done: BTreeSet<usize>,
    /// Of those, the points without metrics, and the kernel faults among them.
    pub failed: usize,
    pub faults: usize,
}

/// Make `out` ready for `shard` of `p`: the plan's copy written (or found to be this plan's),
/// and the points an earlier run of the shard finished. Errors if `out` holds another plan's
/// results, naming the file that changed.
pub fn open(p: &Prepared, out: &Path, shard: Shard) -> Result<Resumed, RunError> {
    std::fs::create_dir_all(out).map_err(|e| results_err(out, e.to_string()))?;
    crate::copy::write(p, out)?;
    resume(&shard.file(out), p, shard)
}

/// Run `shard` of `p` with `jobs` threads (points in this process, [`Isolation::Threads`]),
/// appending to its results file in `out`.
pub fn run(p: &Prepared, cx: &Context, out: &Path, shard: Shard, jobs: usize, progress: &dyn Progress) -> Result<Summary, RunError> {
    run_isolated(p, cx, out, shard, jobs, &Isolation::Threads, progress)
}

/// What the job slots share.
struct Slots<'a> {
    p: &'a Prepared,
    cx: &'a Context,
    shard: Shard,
    todo: Vec<&'a Point>,
    next: AtomicUsize,
    stop: AtomicBool,
    writer: Mutex<std::fs::File>,
    progress: &'a dyn Progress,
}

/// Run `shard` of `p` with `jobs` points at once, kept apart as `isolation` says.
pub fn run_isolated(
    p: &Prepared,
    cx: &Context,
    out: &Path,
    shard: Shard,
    jobs: usize,
    isolation: &Isolation,
    progress: &dyn Progress,
) -> Result<Summary, RunError> {
    let resumed = open(p, out, shard)?;
    let file = shard.file(out);
    let mine: Vec<&Point> = p.points.iter().filter(|pt| shard.has(pt.index)).collect();
    let todo: Vec<&Point> = mine.iter().copied().filter(|pt| !resumed.done.contains(&pt.index)).collect();
    let writer = std::fs::OpenOptions::new().create(true).append(true).open(&file).map_err(|e| results_err(&file, e.to_string()))?;
    if matches!(isolation, Isolation::Processes { .. }) {
        std::fs::create_dir_all(&cx.scratch).map_err(|e| results_err(&cx.scratch, e.to_string()))?;
    }
    progress.started(todo.len());
    let slots = jobs.clamp(1, todo.len().max(1));
    let shared = Slots { p, cx, shard, todo, next: AtomicUsize::new(0), stop: AtomicBool::new(false), writer: Mutex::new(writer), progress };
    let tallies: Vec<Result<Summary, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..slots)
            .map(|slot| {
                std::thread::Builder::new().name(format!("sweep-slot-{slot}")).spawn_scoped(s, {
                    let shared = &shared;
                    move || slot_loop(shared, slot, isolation)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h {
                Ok(h) => h.join().unwrap_or_else(|_| Err("a job slot panicked".into())),
                Err(e) => {
                    shared.stop.store(true, Ordering::SeqCst);
                    Err(format!("cannot start a job thread: {e} (try a smaller --jobs)"))
                }
            })
            .collect()
    });
    let mut s =
        Summary { shard_points: mine.len(), resumed: mine.len() - shared.todo.len(), failed: resumed.failed, faults: resumed.faults, ..Summary::default() };
    for t in tallies {
        let t = t.map_err(|m| results_err(&file, m))?;
        s.ran += t.ran;
        s.failed += t.failed;
        s.faults += t.faults;
    }
    Ok(s)
}

/// One job slot: points taken in turn until none is left, each run, recorded and reported.
fn slot_loop(sh: &Slots<'_>, slot: usize, isolation: &Isolation) -> Result<Summary, String> {
    let mut process = match isolation {
        Isolation::Threads => None,
        Isolation::Processes { exe } => {
            worker::block_sigpipe_on_this_thread();
            Some(WorkerProcess::new(exe, sh.cx.scratch.join(format!("worker-{slot}.stderr"))))
        }
    };
    let mut tally = Summary::default();
    while !sh.stop.load(Ordering::SeqCst) {
        let Some(pt) = sh.todo.get(sh.next.fetch_add(1, Ordering::SeqCst)) else { break };
        let outcome = match process.as_mut() {
            Some(w) => w.run(&job(sh.p, sh.cx, pt)),
            None => run_here(sh.p, sh.cx, pt),
        };
        let r = record(sh.p, pt, sh.shard, outcome);
        if let Err(e) = append(&sh.writer, &r) {
            sh.stop.store(true, Ordering::SeqCst);
            return Err(e);
        }
        tally.ran += 1;
        tally.failed += usize::from(r.error.is_some());
        tally.faults += usize::from(r.fault);
        sh.progress.finished(&r);
    }
    if let Some(w) = process {
        drop(w);
        let _ = std::fs::remove_file(sh.cx.scratch.join(format!("worker-{slot}.stderr")));
    }
    Ok(tally)
}

fn append(writer: &Mutex<std::fs::File>, r: &Record) -> Result<(), String> {
    let mut line = serde_json::to_string(r).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut w = writer.lock().map_err(|_| "the results file's lock was poisoned".to_string())?;
    w.write_all(line.as_bytes()).and_then(|()| w.flush()).map_err(|e| e.to_string())
}

fn results_err(file: &Path, message: String) -> RunError {
    RunError::Results { file: file.display().to_string(), message }
}

/// The points already in the shard's results file, checking they are this plan's and this
/// shard's, each once. A line cut short by an interruption is dropped (the file is truncated
/// after the last whole line); any other unreadable line is an error naming it.
fn resume(file: &Path, p: &Prepared, shard: Shard) -> Result<Resumed, RunError> {
    let Some(sf) = record::read_shard(file).map_err(RunError::Named)? else {
        return Ok(Resumed::default());
    };
    if sf.whole_bytes < sf.total_bytes {
        let f = std::fs::OpenOptions::new().write(true).open(file).map_err(|e| results_err(file, e.to_string()))?;
        f.set_len(sf.whole_bytes).map_err(|e| results_err(file, e.to_string()))?;
    }
    let mut r = Resumed::default();
    for (n, rec) in sf.records {
        let at = format!("{}:{n}", file.display());
        if rec.plan_hash != p.hash {
            return Err(RunError::Named(format!("{at}: a result of another plan (hash {}, this plan's is {}): use another --out", rec.plan_hash, p.hash)));
        }
        if rec.point >= p.points.len() || !shard.has(rec.point) {
            return Err(RunError::Named(format!("{at}: point {} is not one of shard {}/{} of {} points", rec.point, shard.index, shard.count, p.points.len())));
        }
        if !r.done.insert(rec.point) {
            return Err(RunError::Named(format!("{at}: point {} again", rec.point)));
        }
        r.failed += usize::from(rec.error.is_some());
        r.faults += usize::from(rec.fault);
    }
    Ok(r)
}

/// The job a worker process runs for `pt`.
fn job(p: &Prepared, cx: &Context, pt: &Point) -> Job {
    Job {
        point: pt.clone(),
        workload: p.plan.workloads[pt.workload].clone(),
        mode: p.plan.mode,
        metrics: p.plan.metrics.clone(),
        base: p.base.clone(),
        origin: p.base.origin.clone(),
        cx: cx.clone(),
    }
}

/// Run `pt` in this process, on a thread of its own ([`worker::run_guarded`]).
fn run_here(p: &Prepared, cx: &Context, pt: &Point) -> Outcome {
    let Some(w) = p.plan.workloads.get(pt.workload) else { return Outcome::Failed { fault: false, message: format!("no workload {}", pt.workload) } };
    worker::run_guarded(|| worker::execute(pt, w, p.plan.mode, &p.metrics, &p.base, cx))
}

/// Run one point in this process and make its record.
pub fn run_point(p: &Prepared, cx: &Context, pt: &Point, shard: Shard) -> Record {
    record(p, pt, shard, run_here(p, cx, pt))
}

/// The record of `pt` that ended in `outcome`.
fn record(p: &Prepared, pt: &Point, shard: Shard, outcome: Outcome) -> Record {
    let workload = p.plan.workloads.get(pt.workload).map_or_else(String::new, |w| w.name().to_string());
    let mut r = Record {
        plan_hash: p.hash.clone(),
        point: pt.index,
        points: p.points.len(),
        shard: (shard.index, shard.count),
        workload,
        seed: pt.seed,
        base: pt.base,
        params: pt.params.clone(),
        metrics: Default::default(),
        error: None,
        fault: false,
        sampled: None,
        hipscope: record::version(),
    };
    match outcome {
        Outcome::Metrics(m, sampled) => (r.metrics, r.sampled) = (m, sampled),
        Outcome::Failed { fault, message } => {
            r.error = Some(record::error_text(message));
            r.fault = fault;
        }
    }
    r
}
