//! Whole HIP programs written by others against real MI300A times (`validate --only apps`;
//! the command line and the printing are the CLI's).
//!
//! `../shared/apps/mgpusim-gpu-perf` holds prebuilt benchmark programs (`bin/`) and
//! `mi300a-real.csv`: rows `kernel_name,problem_size,iterations,avg_ms,min_ms,max_ms` that the
//! same programs printed on a real MI300A. Each row's command-line arguments follow from the
//! upstream `run_all.sh` sweeps (the table below) and the `problem_size` text each program
//! formats from them; the program then runs unmodified under our HIP runtime in timing mode,
//! as `hipscope exec --gpu mi300a --mode timing` runs it ([`crate::program`]), and prints its
//! own average over timed iterations, which is compared with the real average.
//!
//! Every program times with `bench_common.h`'s `runBenchmark`: one warm-up call (not timed),
//! then `--iterations` timed calls between two `hipEventRecord`s each, reporting their mean.
//! The simulator is deterministic, so one timed call (`--iterations 1`) gives the mean of any
//! number of them.

use super::{Row, Tolerance};
use crate::program::{children_cpu_time, Bounds, Ending, Environment, Failure};
use hipscope_sim::sample::{SamplePolicy, SampleSummary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The GPU the real times were measured on.
pub const GPU: &str = "mi300a";
/// Heading in reports.
pub const TITLE: &str = "whole programs: mgpusim-gpu-perf HIP benchmarks against real MI300A times";
/// The bar on the weighted mean absolute percentage error over the simulated rows.
pub const WMAPE_BAR_PERCENT: f64 = 20.0;
/// Timed iterations each simulated run asks for (see the module comment).
pub const ITERATIONS: u32 = 1;

/// How `validate --only apps` samples and bounds its runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Rows whose program launches kernels are simulated only if their real time per
    /// iteration is at most this (the simulator's cost grows with the GPU work, which the
    /// real time measures); copies-only rows always run.
    pub max_real_ms: f64,
    /// A run still going after this long is stopped and its rows reported as timed out.
    pub timeout: Duration,
    /// `--gpu` as `hipscope exec` takes it: the built-in name or a config file.
    pub gpu: String,
    /// The `hipscope` executable, beside which its HIP runtime is.
    pub hipscope: PathBuf,
    /// Sampled timing for every run (`--sample`; `validate` turns it on for the apps).
    pub sample: SamplePolicy,
    /// Program runs at a time (each a process of its own; `validate` gives the number of
    /// cores, `RAYON_NUM_THREADS` when set). The results do not depend on it.
    pub jobs: usize,
}

/// One program of the data set: its binary, the `kernel_name`s it prints, the argument sets
/// upstream's `run_all.sh` gives it (in the script's order), and the `problem_size` text the
/// program prints for one of them (its `snprintf`).
struct Program {
    name: &'static str,
    kernel_names: &'static [&'static str],
    /// Whether the program launches kernels (every one here but memcopy).
    kernels: bool,
    sweep: fn() -> Vec<Vec<(&'static str, u64)>>,
    problem_size: fn(&[(&'static str, u64)]) -> String,
    /// The bytes a run holds at its peak, host and simulated device memory together (from the
    /// program's allocations; a device allocation is host memory of the simulator's process):
    /// what the scheduler keeps the runs at a time within ([`longest_first`]).
    footprint: fn(&[(&'static str, u64)]) -> u64,
}

fn one(flag: &'static str, values: &[u64]) -> Vec<Vec<(&'static str, u64)>> {
    values.iter().map(|&v| vec![(flag, v)]).collect()
}

fn two(f1: &'static str, v1: &[u64], f2: &'static str, v2: &[u64]) -> Vec<Vec<(&'static str, u64)>> {
    v1.iter().flat_map(|&a| v2.iter().map(move |&b| vec![(f1, a), (f2, b)])).collect()
}

fn arg(args: &[(&'static str, u64)], i: usize) -> u64 {
    args.get(i).map_or(0, |a| a.1)
}

fn pow2(from: u32, to: u32) -> Vec<u64> {
    (from..=to).map(|e| 1u64 << e).collect()
}

/// The 11 programs with real rows; sweeps and size texts from upstream `run_all.sh` and the
/// programs' sources (`src/*.cpp`, the `snprintf(problemSize, ...)` line).
const PROGRAMS: &[Program] = &[
    Program {
        name: "memcopy",
        kernel_names: &["memcopy_h2d", "memcopy_d2h", "memcopy_d2d"],
        kernels: false,
        sweep: || one("--size", &pow2(0, 9)),
        problem_size: |a| format!("{}MB", arg(a, 0)),
        // Two host buffers and two device buffers of --size MiB (memcopy.cpp).
        footprint: |a| 4 * (arg(a, 0) << 20),
    },
    Program {
        name: "floydwarshall",
        kernel_names: &["floydwarshall"],
        kernels: true,
        sweep: || one("--nodes", &[8, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096]),
        problem_size: |a| format!("{}_nodes", arg(a, 0)),
        // Two host and two device matrices of nodes² 32-bit words (floydwarshall.cpp).
        footprint: |a| 16 * arg(a, 0) * arg(a, 0),
    },
    Program {
        name: "bitonicsort",
        kernel_names: &["bitonicsort"],
        kernels: true,
        sweep: || one("--size", &pow2(10, 24)),
        problem_size: |a| format!("{}", arg(a, 0)),
        // The array on the host and the device (bitonicsort.cpp), 32-bit keys.
        footprint: |a| 8 * arg(a, 0),
    },
    Program {
        name: "kmeans",
        kernel_names: &["kmeans"],
        kernels: true,
        sweep: || two("--points", &[1024, 4096, 16384, 65536, 262144], "--features", &[8, 16, 32, 64]),
        // `--clusters` keeps its default, 5.
        problem_size: |a| format!("pts{}_feat{}_clus5", arg(a, 0), arg(a, 1)),
        // Points × features floats, twice on the device and once on the host (kmeans.cpp).
        footprint: |a| 12 * arg(a, 0) * arg(a, 1),
    },
    Program {
        name: "atax",
        kernel_names: &["atax"],
        kernels: true,
        sweep: || one("--size", &[48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768]),
        problem_size: |a| format!("{0}x{0}", arg(a, 0)),
        // The size² float matrix on the host and the device (atax.cpp).
        footprint: |a| 8 * arg(a, 0) * arg(a, 0),
    },
    Program {
        name: "pagerank",
        kernel_names: &["pagerank"],
        kernels: true,
        sweep: || one("--nodes", &[64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152]),
        problem_size: |a| format!("nodes{}_sparsity0.5_priters2", arg(a, 0)),
        // CSR of about nodes²/2 nonzeros (a 32-bit column and a float each) on the host and the
        // device (pagerank.cpp).
        footprint: |a| 8 * arg(a, 0) * arg(a, 0),
    },
    Program {
        name: "stencil2d",
        kernel_names: &["stencil2d"],
        kernels: true,
        sweep: || one("--size", &[64, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536]),
        problem_size: |a| format!("{0}x{0}", arg(a, 0)),
        // The padded size² float grid on the host and twice on the device (stencil2d.cpp).
        footprint: |a| 12 * arg(a, 0) * arg(a, 0),
    },
    Program {
        name: "bfs",
        kernel_names: &["bfs"],
        kernels: true,
        sweep: || two("--nodes", &[1024, 4096, 16384, 65536, 262144], "--degree", &[4, 8, 16, 32]),
        // The degree is not in the text: the rows of one node count come in run_all.sh's
        // degree order (4, 8, 16, 32).
        problem_size: |a| format!("nodes{}", arg(a, 0)),
        // Nodes × degree edges and per-node arrays, host and device (bfs.cpp), 32-bit words.
        footprint: |a| 8 * arg(a, 0) * (arg(a, 1) + 4),
    },
    Program {
        name: "nw",
        kernel_names: &["nw"],
        kernels: true,
        sweep: || {
            one("--size", &[64, 128, 192, 256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584, 4096, 5120, 6144, 7168, 8192])
        },
        problem_size: |a| format!("length={}", arg(a, 0)),
        // Two host and three device (length + 1)² int matrices (nw.cpp).
        footprint: |a| 20 * (arg(a, 0) + 1) * (arg(a, 0) + 1),
    },
    Program {
        name: "nbody",
        kernel_names: &["nbody"],
        kernels: true,
        sweep: || {
            one(
                "--bodies",
                &[256, 512, 768, 1024, 1280, 1536, 2048, 2560, 3072, 4096, 5120, 6144, 8192, 10240, 12288, 16384, 24576, 32768, 49152, 65536, 98304, 131072],
            )
        },
        problem_size: |a| format!("{}_particles", arg(a, 0)),
        // A few float4 arrays of the bodies (nbody.cpp): small.
        footprint: |a| 64 * arg(a, 0),
    },
    Program {
        name: "conv2d",
        kernel_names: &["conv2d"],
        kernels: true,
        sweep: || two("--size", &[8, 16, 32, 64, 128, 256, 512, 1024], "--mask", &[3, 5, 7]),
        problem_size: |a| format!("N1_C1_{0}x{0}_k{1}x{1}_OC3", arg(a, 0), arg(a, 1)),
        // size² images and a mask (conv2d.cpp): small.
        footprint: |a| 32 * arg(a, 0) * arg(a, 0),
    },
];

/// A real row of `mi300a-real.csv`.
#[derive(Debug, Clone)]
pub struct RealRow {
    /// 1-based line in the file.
    pub line: usize,
    pub kernel_name: String,
    pub problem_size: String,
    pub iterations: u32,
    pub avg_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
}

/// What became of one real row.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// The program's printed average, in ms.
    Simulated(f64),
    /// Not run, and why (sampling, no matching arguments).
    Skipped(String),
    /// Run, but no figure came back, and why (fault, timeout, exit status, missing row).
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct AppRow {
    pub real: RealRow,
    pub program: &'static str,
    /// The command-line arguments (without `--iterations`), or empty when unmatched.
    pub args: String,
    pub status: Status,
    /// Sampled timing: what the run of this row predicted and its estimated error.
    pub sampled: Option<SampleSummary>,
    /// CPU seconds of the program run that answered this row (rows of one run share it;
    /// `None`: not run, or /proc could not tell): where the comparison's time goes.
    pub cpu_s: Option<f64>,
}

impl AppRow {
    pub fn simulated(&self) -> Option<f64> {
        match self.status {
            Status::Simulated(v) => Some(v),
            _ => None,
        }
    }
    /// Signed error in percent.
    pub fn error_percent(&self) -> Option<f64> {
        self.simulated().map(|s| 100.0 * (s - self.real.avg_ms) / self.real.avg_ms)
    }
}

/// The comparison: every real row in file order, and the sampling rule that was applied.
#[derive(Debug, Clone)]
pub struct AppsOutcome {
    pub rows: Vec<AppRow>,
    pub max_real_ms: f64,
    pub timeout_s: u64,
    /// The sampled timing the runs used.
    pub sample: SamplePolicy,
    /// What the comparison cost: wall time, the runs' CPU time, and the machine's load.
    pub cost: RunCost,
}

/// What running the comparison cost, for the report (timing a shared machine needs the CPU
/// time and the load beside the wall time).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RunCost {
    pub wall_s: f64,
    /// User + system CPU time of the program runs (this process's waited-for children, all
    /// their threads), `None` where /proc cannot tell.
    pub cpu_s: Option<f64>,
    /// The 1-minute load average (/proc/loadavg) when the runs started and when they ended.
    pub load: Option<(f64, f64)>,
    /// Program runs at a time.
    pub jobs: usize,
}

/// The 1-minute load average.
fn load_1min() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// Per program and overall: rows simulated, MAPE, WMAPE (percent).
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    pub name: String,
    pub simulated: usize,
    pub total: usize,
    pub mape: f64,
    pub wmape: f64,
}

fn score(name: &str, rows: &[&AppRow]) -> Score {
    let sims: Vec<(f64, f64)> = rows.iter().filter_map(|r| r.simulated().map(|s| (r.real.avg_ms, s))).collect();
    let n = sims.len();
    let mape = if n == 0 { f64::NAN } else { 100.0 * sims.iter().map(|(r, s)| ((s - r) / r).abs()).sum::<f64>() / n as f64 };
    let real: f64 = sims.iter().map(|p| p.0).sum();
    let wmape = if real > 0.0 { 100.0 * sims.iter().map(|(r, s)| (s - r).abs()).sum::<f64>() / real } else { f64::NAN };
    Score { name: name.to_string(), simulated: n, total: rows.len(), mape, wmape }
}

impl AppsOutcome {
    /// One score per program (in the order of the programs table, `PROGRAMS`), then the overall one.
    pub fn scores(&self) -> Vec<Score> {
        let mut out: Vec<Score> = PROGRAMS
            .iter()
            .filter_map(|p| {
                let rows: Vec<&AppRow> = self.rows.iter().filter(|r| r.program == p.name).collect();
                (!rows.is_empty()).then(|| score(p.name, &rows))
            })
            .collect();
        out.push(score("all", &self.rows.iter().collect::<Vec<_>>()));
        out
    }

    /// The rows `validate` judges: MAPE per program (not judged) and WMAPE against the bar.
    pub fn summary_rows(&self) -> Vec<Row> {
        let scores = self.scores();
        let mut rows = Vec::new();
        for s in &scores {
            if s.simulated == 0 {
                continue;
            }
            let last = s.name == "all";
            rows.push(Row {
                gpu: GPU.into(),
                case: format!("{} ({} of {} rows)", s.name, s.simulated, s.total),
                metric: if last { format!("WMAPE % (bar {WMAPE_BAR_PERCENT:.0})") } else { "MAPE %".into() },
                measured: if last { WMAPE_BAR_PERCENT } else { 0.0 },
                simulated: if last { s.wmape } else { s.mape },
                tolerance: if last { Tolerance::Below } else { Tolerance::NotJudged },
            });
        }
        rows
    }
}

fn bad(path: &Path, line: usize, what: impl std::fmt::Display) -> String {
    format!("{}:{line}: {what}", path.display())
}

/// Parse `mi300a-real.csv`; a malformed line is one error naming the file, line and field.
pub fn read_real(path: &Path) -> Result<Vec<RealRow>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    const HEADER: [&str; 6] = ["kernel_name", "problem_size", "iterations", "avg_ms", "min_ms", "max_ms"];
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, h)) if h.trim().split(',').map(str::trim).eq(HEADER) => {}
        _ => return Err(bad(path, 1, format!("the header must be `{}`", HEADER.join(",")))),
    }
    let mut rows = Vec::new();
    for (i, l) in lines {
        let line = i + 1;
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').map(str::trim).collect();
        if f.len() != HEADER.len() {
            return Err(bad(path, line, format!("{} fields, expected {}", f.len(), HEADER.len())));
        }
        let ms = |k: usize| -> Result<f64, String> {
            match f[k].parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(bad(path, line, format!("{}: `{}` is not a positive number of milliseconds", HEADER[k], f[k]))),
            }
        };
        let iterations = f[2].parse::<u32>().map_err(|_| bad(path, line, format!("iterations: `{}` is not a count", f[2])))?;
        if f[0].is_empty() || f[1].is_empty() {
            return Err(bad(path, line, if f[0].is_empty() { "kernel_name is empty" } else { "problem_size is empty" }));
        }
        rows.push(RealRow { line, kernel_name: f[0].into(), problem_size: f[1].into(), iterations, avg_ms: ms(3)?, min_ms: ms(4)?, max_ms: ms(5)? });
    }
    if rows.is_empty() {
        return Err(bad(path, 2, "no rows"));
    }
    Ok(rows)
}

fn args_text(args: &[(&'static str, u64)]) -> String {
    args.iter().map(|(f, v)| format!("{f} {v}")).collect::<Vec<_>>().join(" ")
}

/// What one run printed: (kernel_name, problem_size) → avg_ms, with what sampling did; or why
/// it gave nothing.
type Printed = Result<(BTreeMap<(String, String), f64>, Option<SampleSummary>), String>;

/// One program run: which rows it answers.
struct Run {
    program: &'static str,
    args: Vec<(&'static str, u64)>,
    rows: Vec<usize>,
    /// Its program's footprint for these arguments, in bytes.
    footprint: u64,
}

/// The runs the rows need (one per program and argument set, in first-row order) and the
/// rows after matching and sampling, with `Status::Skipped` for those not run.
fn plan(real: &[RealRow], opts: &Options) -> (Vec<Run>, Vec<AppRow>) {
    let mut rows = Vec::new();
    let mut runs: Vec<Run> = Vec::new();
    // (kernel_name, problem_size) → how many earlier rows had it.
    let mut seen: BTreeMap<(String, String), usize> = BTreeMap::new();
    for (i, r) in real.iter().enumerate() {
        let Some(p) = PROGRAMS.iter().find(|p| p.kernel_names.contains(&r.kernel_name.as_str())) else {
            rows.push(AppRow {
                real: r.clone(),
                program: "?",
                args: String::new(),
                status: Status::Skipped(format!("no program prints kernel_name {}", r.kernel_name)),
                sampled: None,
                cpu_s: None,
            });
            continue;
        };
        let k = seen.entry((r.kernel_name.clone(), r.problem_size.clone())).or_insert(0);
        let nth = *k;
        *k += 1;
        let matching: Vec<_> = (p.sweep)().into_iter().filter(|a| (p.problem_size)(a) == r.problem_size).collect();
        let Some(args) = matching.get(nth).cloned() else {
            let why = format!("no run_all.sh arguments of {} give problem_size {} (occurrence {})", p.name, r.problem_size, nth + 1);
            rows.push(AppRow { real: r.clone(), program: p.name, args: String::new(), status: Status::Skipped(why), sampled: None, cpu_s: None });
            continue;
        };
        let text = args_text(&args);
        if p.kernels && r.avg_ms > opts.max_real_ms {
            let why = format!("sampled out: {:.4} ms real > {} ms, the cost cap for simulated kernels", r.avg_ms, opts.max_real_ms);
            rows.push(AppRow { real: r.clone(), program: p.name, args: text, status: Status::Skipped(why), sampled: None, cpu_s: None });
            continue;
        }
        match runs.iter_mut().find(|run| run.program == p.name && run.args == args) {
            Some(run) => run.rows.push(i),
            None => {
                let footprint = (p.footprint)(&args);
                runs.push(Run { program: p.name, args, rows: vec![i], footprint })
            }
        }
        rows.push(AppRow { real: r.clone(), program: p.name, args: text, status: Status::Failed("not run".into()), sampled: None, cpu_s: None });
    }
    (runs, rows)
}

/// What one run printed: (kernel_name, problem_size) → avg_ms; or why it gave nothing. And
/// the CPU seconds it used, when known.
fn run_one(env: &Environment, bin: &Path, run: &Run, timeout: Duration) -> (Printed, Option<f64>) {
    let mut cpu = None;
    let printed = run_and_read(env, bin, run, timeout, &mut cpu);
    (printed, cpu)
}

/// [`run_one`]'s run and reading; `cpu`: the run's CPU seconds once it has ended.
fn run_and_read(env: &Environment, bin: &Path, run: &Run, timeout: Duration, cpu: &mut Option<f64>) -> Printed {
    let mut args = vec!["--iterations".to_string(), ITERATIONS.to_string()];
    for (f, v) in &run.args {
        args.push(f.to_string());
        args.push(v.to_string());
    }
    let program = bin.join(run.program);
    let finished = env.run(&program, &args, Bounds { timeout: Some(timeout), stop_on_fault: true }).map_err(|e| match e {
        Failure::CannotRun(e) => format!("{}: cannot run: {e}", program.display()),
        Failure::NoPipe(what) => what.to_string(),
        Failure::Waiting(e) => format!("waiting for {}: {e}", run.program),
    })?;
    *cpu = finished.cpu.map(|c| c.as_secs_f64());
    let status = match finished.ending {
        Ending::Exited(status) => status,
        Ending::TimedOut(t) => return Err(format!("timed out after {} s of CPU time (or four times that of wall time)", t.as_secs())),
        Ending::Faulted(why) => return Err(why),
    };
    if !status.success() {
        let last = &finished.last_message;
        let detail = if last.is_empty() { String::new() } else { format!(": {}", last.trim_start_matches("hipscope: ")) };
        return Err(format!("exit status {}{detail}", status.code().map_or("signal".to_string(), |c| c.to_string())));
    }
    let mut found = BTreeMap::new();
    for l in finished.stdout.lines() {
        let f: Vec<&str> = l.trim().split(',').collect();
        if f.len() == 6 && f[0] != "kernel_name" {
            if let Ok(v) = f[3].parse::<f64>() {
                found.insert((f[0].to_string(), f[1].to_string()), v);
            }
        }
    }
    Ok((found, finished.sampled))
}

/// The memory runs at a time may hold together ([`longest_first`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    /// What runs together hold at most.
    pub budget: u64,
    /// What a run larger than the budget (which starts only when nothing else runs) may hold
    /// with the small runs started beside it: pagerank of 49 152 nodes holds 19 GB of a
    /// 24 GB host for four minutes, and running alone left the other core idle all along.
    pub limit: u64,
}

impl Room {
    /// No bound.
    pub const ANY: Room = Room { budget: u64::MAX, limit: u64::MAX };

    /// Whether an item of `bytes` fits beside `running` items holding `used` (more than the
    /// budget only while one of them alone is larger than it: runs start within it otherwise).
    fn fits(&self, used: u64, running: usize, bytes: u64) -> bool {
        let cap = if used > self.budget { self.limit } else { self.budget };
        running == 0 || (bytes <= self.budget && used.saturating_add(bytes) <= cap)
    }
}

/// `work(i)` for every `i` of `cost`, on `jobs` threads, each taking the costliest item not
/// yet started (longest processing time first: the runs' costs span five orders of
/// magnitude, and a long run started last would leave one core idle for its whole length)
/// among those whose `bytes` fit beside the items running within `room` (an item larger than
/// the budget starts only when nothing runs, and then others join it within the limit); the
/// results in index order, whatever the order they finish in. Which items run together never
/// changes a result, only when it comes.
pub fn longest_first<T: Send>(cost: &[f64], bytes: &[u64], room: Room, jobs: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let mut order: Vec<usize> = (0..cost.len()).collect();
    // Stable, with NaN last: equal costs keep their order, so the start order is a function
    // of the input alone.
    order.sort_by(|&a, &b| cost[b].partial_cmp(&cost[a]).unwrap_or_else(|| cost[a].is_nan().cmp(&cost[b].is_nan())));
    let size = |i: usize| bytes.get(i).copied().unwrap_or(0);
    // Items not started (in start order), and the bytes and items running.
    let state = Mutex::new((order, 0u64, 0usize));
    let freed = std::sync::Condvar::new();
    let done: Mutex<Vec<Option<T>>> = Mutex::new((0..cost.len()).map(|_| None).collect());
    let take = || -> Option<usize> {
        let mut s = state.lock().ok()?;
        loop {
            let (waiting, used, running) = &mut *s;
            if waiting.is_empty() {
                return None;
            }
            let fits = waiting.iter().position(|&i| room.fits(*used, *running, size(i)));
            if let Some(k) = fits {
                let i = waiting.remove(k);
                (*used, *running) = (used.saturating_add(size(i)), *running + 1);
                return Some(i);
            }
            s = freed.wait(s).ok()?;
        }
    };
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, cost.len().max(1)) {
            scope.spawn(|| {
                while let Some(i) = take() {
                    let r = work(i);
                    if let Ok(mut d) = done.lock() {
                        d[i] = Some(r);
                    }
                    if let Ok(mut s) = state.lock() {
                        (s.1, s.2) = (s.1.saturating_sub(size(i)), s.2.saturating_sub(1));
                    }
                    freed.notify_all();
                }
            });
        }
    });
    // Every index was taken by one worker; a worker that panicked has poisoned the lock and
    // the panic has already gone up through the scope.
    done.into_inner().unwrap_or_else(|e| e.into_inner()).into_iter().flatten().collect()
}

/// The memory the runs at a time may hold together: most of what the host has available when
/// they start (`MemAvailable`, /proc/meminfo), leaving a fifth for everything else (the
/// simulator's own caches and tables, which the footprints leave out); a run larger than that
/// takes all but a twentieth with the small runs beside it. Unbounded where it cannot be read.
fn memory_room() -> Room {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = text.lines().find_map(|l| l.strip_prefix("MemAvailable:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    kib.map_or(Room::ANY, |k| {
        let bytes = k.saturating_mul(1024);
        Room { budget: bytes / 5 * 4, limit: bytes / 20 * 19 }
    })
}

/// Told how many program runs the comparison makes, then after each.
pub trait Progress: Sync {
    fn planned(&self, runs: u64);
    fn ran(&self);
}

impl Progress for () {
    fn planned(&self, _: u64) {}
    fn ran(&self) {}
}

/// Run the comparison. `apps` is the data-set directory (with `bin/` and `mi300a-real.csv`).
pub fn compare(apps: &Path, opts: &Options, progress: &dyn Progress) -> Result<AppsOutcome, String> {
    let real = read_real(&apps.join("mi300a-real.csv"))?;
    let bin: PathBuf = apps.join("bin");
    let (runs, mut rows) = plan(&real, opts);
    let mut env = Environment::new(&opts.hipscope, &opts.gpu, hipscope_sim::Mode::Timing)?;
    if opts.sample.any() {
        env.set_sample(opts.sample);
    }
    progress.planned(runs.len() as u64);
    let (begin, cpu_before, load_before) = (std::time::Instant::now(), children_cpu_time(), load_1min());
    // Each run is a process of its own; results are keyed by run, so the order in which
    // they finish does not matter.
    let cost: Vec<f64> = runs.iter().map(|run| run.rows.iter().map(|&i| real[i].avg_ms).sum()).collect();
    let bytes: Vec<u64> = runs.iter().map(|run| run.footprint).collect();
    let results: Vec<(Printed, Option<f64>)> = longest_first(&cost, &bytes, memory_room(), opts.jobs, |i| {
        let r = run_one(&env, &bin, &runs[i], opts.timeout);
        progress.ran();
        r
    });
    for (run, (result, cpu_s)) in runs.iter().zip(results) {
        for &i in &run.rows {
            let row = &mut rows[i];
            row.cpu_s = cpu_s;
            row.sampled = result.as_ref().ok().and_then(|r| r.1);
            row.status = match result.as_ref().map(|r| &r.0) {
                Ok(found) => match found.get(&(row.real.kernel_name.clone(), row.real.problem_size.clone())) {
                    Some(&v) if v > 0.0 => Status::Simulated(v),
                    Some(&v) => Status::Failed(format!("the program printed avg_ms {v}")),
                    None => Status::Failed(format!("the program printed no {} {} row", row.real.kernel_name, row.real.problem_size)),
                },
                Err(why) => Status::Failed(why.clone()),
            };
        }
    }
    let cost = RunCost {
        wall_s: begin.elapsed().as_secs_f64(),
        cpu_s: children_cpu_time().zip(cpu_before).map(|(after, before)| after.saturating_sub(before).as_secs_f64()),
        load: load_before.zip(load_1min()),
        jobs: opts.jobs,
    };
    Ok(AppsOutcome { rows, max_real_ms: opts.max_real_ms, timeout_s: opts.timeout.as_secs(), sample: opts.sample, cost })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: usize, k: &str, p: &str, ms: f64) -> RealRow {
        RealRow { line, kernel_name: k.into(), problem_size: p.into(), iterations: 51, avg_ms: ms, min_ms: ms, max_ms: ms }
    }

    /// The mapping reproduces run_all.sh: bfs rows of one node count take the degrees in the
    /// script's order, memcopy's three rows share one run, the cap samples kernel rows only.
    #[test]
    fn rows_map_to_run_all_arguments() {
        let real = vec![
            row(2, "memcopy_h2d", "512MB", 9.3),
            row(3, "memcopy_d2h", "512MB", 11.5),
            row(4, "bfs", "nodes1024", 0.35),
            row(5, "bfs", "nodes1024", 0.22),
            row(6, "conv2d", "N1_C1_8x8_k3x3_OC3", 0.01),
            row(7, "floydwarshall", "4096_nodes", 529.6),
            row(8, "floydwarshall", "4095_nodes", 0.1),
            row(9, "nosuch", "1", 0.1),
        ];
        let (runs, rows) = plan(
            &real,
            &Options { max_real_ms: 2.0, timeout: Duration::from_secs(1), gpu: GPU.into(), hipscope: PathBuf::new(), sample: SamplePolicy::OFF, jobs: 1 },
        );
        assert_eq!(runs.len(), 4);
        assert_eq!((runs[0].program, runs[0].rows.clone()), ("memcopy", vec![0, 1]));
        assert_eq!(rows[2].args, "--nodes 1024 --degree 4");
        assert_eq!(rows[3].args, "--nodes 1024 --degree 8");
        assert_eq!(rows[4].args, "--size 8 --mask 3");
        assert!(matches!(&rows[5].status, Status::Skipped(w) if w.starts_with("sampled out")));
        assert!(matches!(&rows[6].status, Status::Skipped(w) if w.contains("no run_all.sh arguments")));
        assert!(matches!(&rows[7].status, Status::Skipped(w) if w.contains("no program")));
    }

    /// Any number of jobs gives the one-job results, in index order; the costliest start first.
    #[test]
    fn runs_start_longest_first_and_results_keep_their_order() {
        let cost = [0.5, 30.0, f64::NAN, 2.0, 30.0, 0.01];
        let started = Mutex::new(Vec::new());
        let one = longest_first(&cost, &[], Room::ANY, 1, |i| {
            started.lock().expect("lock").push(i);
            i * 10
        });
        assert_eq!(one, vec![0, 10, 20, 30, 40, 50]);
        // Longest first; ties in index order; NaN last.
        assert_eq!(*started.lock().expect("lock"), vec![1, 4, 3, 0, 5, 2]);
        for jobs in [2, 3, 64, 0] {
            assert_eq!(longest_first(&cost, &[], Room::ANY, jobs, |i| i * 10), one, "{jobs} jobs");
        }
        assert!(longest_first(&[], &[], Room::ANY, 2, |i| i).is_empty());
    }

    /// Items whose bytes together exceed the budget never run at the same time; one larger
    /// than the budget runs alone; the results are those of one job.
    #[test]
    fn runs_at_a_time_stay_within_the_memory_budget() {
        let cost = [9.0, 8.0, 7.0, 6.0, 5.0, 4.0];
        let bytes = [60, 50, 30, 120, 10, 40];
        let (now, peak, most) = (Mutex::new((0u64, 0usize)), Mutex::new(0u64), Mutex::new(0usize));
        let got = longest_first(&cost, &bytes, Room { budget: 100, limit: 100 }, 3, |i| {
            {
                let mut n = now.lock().expect("lock");
                *n = (n.0 + bytes[i], n.1 + 1);
                let mut p = peak.lock().expect("lock");
                if n.1 > 1 {
                    *p = (*p).max(n.0);
                }
                let mut m = most.lock().expect("lock");
                *m = (*m).max(n.1);
            }
            std::thread::sleep(Duration::from_millis(20));
            let mut n = now.lock().expect("lock");
            *n = (n.0 - bytes[i], n.1 - 1);
            i
        });
        assert_eq!(got, (0..6).collect::<Vec<_>>());
        // Runs together held at most the budget (the 120-byte one ran alone), and some did run
        // together.
        assert!(*peak.lock().expect("lock") <= 100);
        assert!(*most.lock().expect("lock") >= 2);
    }

    /// A run larger than the budget starts only when nothing runs; small runs then join it as
    /// long as together they stay within the limit, and a run that would pass the limit waits.
    #[test]
    fn small_runs_join_one_larger_than_the_budget_within_the_limit() {
        let cost = [9.0, 5.0, 4.0, 3.0];
        let bytes = [150, 20, 20, 60];
        let (now, peak, beside) = (Mutex::new((0u64, 0usize)), Mutex::new(0u64), Mutex::new(Vec::new()));
        let got = longest_first(&cost, &bytes, Room { budget: 100, limit: 200 }, 2, |i| {
            {
                let mut n = now.lock().expect("lock");
                *n = (n.0 + bytes[i], n.1 + 1);
                let mut p = peak.lock().expect("lock");
                *p = (*p).max(n.0);
                if n.0 > bytes[i] && n.0 >= 150 {
                    beside.lock().expect("lock").push(i);
                }
            }
            std::thread::sleep(Duration::from_millis(if i == 0 { 200 } else { 20 }));
            let mut n = now.lock().expect("lock");
            *n = (n.0 - bytes[i], n.1 - 1);
            i
        });
        assert_eq!(got, (0..4).collect::<Vec<_>>());
        assert!(*peak.lock().expect("lock") <= 200, "within the limit");
        let beside = beside.lock().expect("lock").clone();
        assert!(beside.contains(&1) && beside.contains(&2), "the small runs joined the large one: {beside:?}");
        assert!(!beside.contains(&3), "the 60-byte run would have passed the limit beside the 150-byte one: {beside:?}");
    }

    #[test]
    fn scores_weight_by_real_time() {
        let mk = |p: &'static str, real: f64, sim: f64| AppRow {
            real: row(2, p, "x", real),
            program: p,
            args: String::new(),
            status: Status::Simulated(sim),
            sampled: None,
            cpu_s: None,
        };
        let o = AppsOutcome {
            rows: vec![mk("atax", 1.0, 1.5), mk("nw", 9.0, 9.0)],
            max_real_ms: 1.0,
            timeout_s: 1,
            sample: SamplePolicy::OFF,
            cost: RunCost::default(),
        };
        let s = o.scores();
        let all = s.last().expect("overall score");
        assert!((all.mape - 25.0).abs() < 1e-9 && (all.wmape - 5.0).abs() < 1e-9, "{all:?}");
    }

    #[test]
    fn malformed_csv_names_file_line_and_field() {
        let dir = std::env::temp_dir().join(format!("hipscope-apps-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let p = dir.join("real.csv");
        std::fs::write(&p, "kernel_name,problem_size,iterations,avg_ms,min_ms,max_ms\natax,48x48,51,0.02,0.02,0.03\natax,64x64,51,fast,0.02,0.03\n")
            .expect("write");
        let e = read_real(&p).expect_err("malformed");
        assert!(e.ends_with("real.csv:3: avg_ms: `fast` is not a positive number of milliseconds"), "{e}");
        std::fs::write(&p, "a,b\n").expect("write");
        assert!(read_real(&p).expect_err("bad header").contains(":1: the header must be"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
