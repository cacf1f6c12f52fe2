//! Running a shard of a plan's points in parallel, one result line appended per point as it
//! finishes, resuming where an earlier run of the same shard stopped.

use crate::metrics::Metric;
use crate::plan::{Plan, PlanError, Workload};
use crate::points::{self, Point};
use crate::record::{self, Record};
use crate::workload::{self, Context, Outcome};
use hipscope_sim::gpus::GpuConfig;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};
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

/// A plan ready to run: its points, base config and hash.
pub struct Prepared {
    pub plan: Plan,
    pub path: PathBuf,
    pub base: GpuConfig,
    pub points: Vec<Point>,
    pub metrics: Vec<Metric>,
    pub hash: String,
}

/// Read `path`, resolve its GPU and check every point.
pub fn prepare(path: &Path) -> Result<Prepared, PlanError> {
    let plan = crate::plan::load(path)?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let err = |m: String| PlanError::new(path, m);
    // A config file is relative to the plan; a built-in is a name.
    let gpu_arg = if plan.gpu.ends_with(".ron") { dir.join(&plan.gpu).display().to_string() } else { plan.gpu.clone() };
    let base = hipscope_sim::gpus::resolve(&gpu_arg).map_err(|e| err(format!("gpu: {e}")))?;
    if plan.mode == crate::plan::RunMode::Timing && base.timing.is_none() {
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
    let points = points::expand(&plan, &base, path)?;
    let hash = record::plan_hash(&plan, &base);
    Ok(Prepared { plan, path: path.to_path_buf(), base, points, metrics, hash })
}

/// What a shard run did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Points of the shard.
    pub shard_points: usize,
    /// Found in the results file from an earlier run.
    pub resumed: usize,
    pub ran: usize,
    /// Points that ran but could not give metrics (input errors / kernel faults).
    pub failed: usize,
    pub faults: usize,
}

/// Why a shard could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Plan(#[from] PlanError),
    #[error("{file}: {message}")]
    Results { file: String, message: String },
}

/// Told as points finish (from worker threads).
pub trait Progress: Sync {
    fn started(&self, _todo: usize) {}
    fn finished(&self, _r: &Record) {}
}

impl Progress for () {}

/// Make `out` ready for `shard` of `p`: the plan's copy written (or found to be this plan's),
/// and the points an earlier run of the shard finished. Errors if `out` holds another plan.
pub fn open(p: &Prepared, out: &Path, shard: Shard) -> Result<BTreeSet<usize>, RunError> {
    std::fs::create_dir_all(out).map_err(|e| results_err(out, e.to_string()))?;
    write_plan_copy(p, out)?;
    resume(&shard.file(out), &p.hash)
}

/// Run `shard` of `p` with `jobs` threads, appending to its results file in `out`.
pub fn run(p: &Prepared, cx: &Context, out: &Path, shard: Shard, jobs: usize, progress: &dyn Progress) -> Result<Summary, RunError> {
    let done = open(p, out, shard)?;
    let file = shard.file(out);
    let mine: Vec<&Point> = p.points.iter().filter(|pt| shard.has(pt.index)).collect();
    let todo: Vec<&Point> = mine.iter().copied().filter(|pt| !done.contains(&pt.index)).collect();
    let writer = Mutex::new(std::fs::OpenOptions::new().create(true).append(true).open(&file).map_err(|e| results_err(&file, e.to_string()))?);
    progress.started(todo.len());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs.max(1)).build().map_err(|e| results_err(out, e.to_string()))?;
    let written: Vec<Result<Record, String>> = pool.install(|| {
        // A point is a whole simulation: each its own task, so no thread waits on a batch.
        todo.par_iter()
            .with_max_len(1)
            .map(|pt| {
                let r = run_point(p, cx, pt, shard);
                let mut line = serde_json::to_string(&r).map_err(|e| e.to_string())?;
                line.push('\n');
                let mut w = writer.lock().map_err(|_| "the results file's lock was poisoned".to_string())?;
                w.write_all(line.as_bytes()).and_then(|()| w.flush()).map_err(|e| e.to_string())?;
                drop(w);
                progress.finished(&r);
                Ok(r)
            })
            .collect()
    });
    let mut s = Summary { shard_points: mine.len(), resumed: mine.len() - todo.len(), ..Summary::default() };
    for r in written {
        let r = r.map_err(|m| results_err(&file, m))?;
        s.ran += 1;
        s.failed += usize::from(r.error.is_some());
        s.faults += usize::from(r.fault);
    }
    Ok(s)
}

fn results_err(file: &Path, message: String) -> RunError {
    RunError::Results { file: file.display().to_string(), message }
}

/// The plan as run, for the merge (its axes and metrics name the plots); every shard writes
/// the same text.
fn write_plan_copy(p: &Prepared, out: &Path) -> Result<(), RunError> {
    let copy = out.join("plan.json");
    let doc =
        serde_json::json!({ "plan_hash": p.hash, "plan_file": p.path.display().to_string(), "gpu": p.base.name, "points": p.points.len(), "plan": p.plan });
    let text = serde_json::to_string_pretty(&doc).map_err(|e| results_err(&copy, e.to_string()))?;
    if let Ok(old) = std::fs::read_to_string(&copy) {
        let old: serde_json::Value = serde_json::from_str(&old).unwrap_or_default();
        if old["plan_hash"] != doc["plan_hash"] {
            return Err(results_err(
                &copy,
                format!(
                    "results of another plan (hash {}) are in this directory; this plan's hash is {}: use another --out",
                    old["plan_hash"].as_str().unwrap_or("?"),
                    p.hash
                ),
            ));
        }
        return Ok(());
    }
    // Shards may start at once: each writes its own file and renames it into place, so a
    // reader sees the whole file or none.
    let tmp = out.join(format!("plan.json.{}", std::process::id()));
    std::fs::write(&tmp, text + "\n").map_err(|e| results_err(&tmp, e.to_string()))?;
    std::fs::rename(&tmp, &copy).map_err(|e| results_err(&copy, e.to_string()))
}

/// The points already in `file`, checking they are this plan's. A line cut short by an
/// interruption is dropped (the file is truncated after the last whole line).
fn resume(file: &Path, hash: &str) -> Result<BTreeSet<usize>, RunError> {
    let Ok(text) = std::fs::read_to_string(file) else { return Ok(BTreeSet::new()) };
    let whole = text.rfind('\n').map_or(0, |i| i + 1);
    if whole < text.len() {
        let f = std::fs::OpenOptions::new().write(true).open(file).map_err(|e| results_err(file, e.to_string()))?;
        f.set_len(whole as u64).map_err(|e| results_err(file, e.to_string()))?;
    }
    let mut done = BTreeSet::new();
    for (n, line) in text[..whole].lines().enumerate() {
        let r: Record = serde_json::from_str(line).map_err(|e| results_err(file, format!("line {}: {e}", n + 1)))?;
        if r.plan_hash != hash {
            return Err(results_err(
                file,
                format!("line {}: a result of another plan (hash {}, this plan's is {}): use another --out", n + 1, r.plan_hash, hash),
            ));
        }
        done.insert(r.point);
    }
    Ok(done)
}

/// Run one point and make its record.
pub fn run_point(p: &Prepared, cx: &Context, pt: &Point, shard: Shard) -> Record {
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
        hipscope: record::version(),
    };
    let cfg = match points::configure(&p.base, &pt.params) {
        Ok(c) => c,
        Err(e) => {
            r.error = Some(e);
            return r;
        }
    };
    match workload::run(&p.plan, &p.metrics, pt, &cfg, cx) {
        Outcome::Metrics(m) => r.metrics = m,
        Outcome::Failed { fault, message } => {
            r.error = Some(message);
            r.fault = fault;
        }
    }
    r
}
