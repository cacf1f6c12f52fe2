//! `hipscope grade`: memory-model verdicts for litmus tests — outcome allowed or forbidden,
//! every scoped race with the rule it breaks, a witness execution and a checked fix hint.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use super::CliError;
use hipscope_grade::litmus;
use hipscope_grade::model::Model;
use hipscope_grade::report::{self, Outcome, Report};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ModelArg {
    /// libhipcxx's scoped C++ model (HIP's own).
    Hip,
    /// The HSA 1.0 model (herd's hsa.cat): SC fences do not forbid store buffering.
    Hsa,
    /// The OpenCL 2.0 model (Dartagnan's opencl.cat): synchronization needs equal scopes.
    Opencl,
    /// NVIDIA PTX 6.0 (Dartagnan's ptx-v6.0.cat): morally strong operations, causality order.
    #[value(name = "ptx6.0")]
    Ptx60,
    /// NVIDIA PTX 7.5 (Dartagnan's ptx-v7.5.cat): PTX 6.0 with proxies and virtual aliases.
    #[value(name = "ptx7.5")]
    Ptx75,
    /// The Vulkan memory model (Dartagnan's vulkan.cat): availability/visibility chains, storage classes.
    Vulkan,
}

/// `--progress`: which threads the scheduler guarantees to run (Sorensen et al., OOPSLA 2021).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressArg {
    /// Every thread that can run eventually runs.
    Fair,
    /// Only the lowest-id thread (work-group) that has not finished is guaranteed to run.
    Hsa,
    /// Occupancy-bound: a thread (work-group) that has run once keeps being scheduled.
    Obe,
    /// HSA and OBE together.
    HsaObe,
    /// Linear OBE: once a thread has run, it and every lower-id one keep being scheduled.
    Lobe,
    /// No guarantee: any thread may never be scheduled.
    Unfair,
}

impl ProgressArg {
    fn model(self) -> hipscope_grade::model::progress::Progress {
        use hipscope_grade::model::progress::Progress;
        match self {
            ProgressArg::Fair => Progress::Fair,
            ProgressArg::Hsa => Progress::Hsa,
            ProgressArg::Obe => Progress::Obe,
            ProgressArg::HsaObe => Progress::HsaObe,
            ProgressArg::Lobe => Progress::Lobe,
            ProgressArg::Unfair => Progress::Unfair,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Expect {
    /// The condition's outcome is reachable.
    Allowed,
    /// The condition's outcome is unreachable.
    Forbidden,
    /// No execution has a race.
    RaceFree,
}

#[derive(clap::Args)]
pub struct Args {
    /// Litmus files (Dartagnan OpenCL/PTX/Vulkan, herd LISA, or the HIP dialect), or
    /// directories searched for `*.litmus`.
    #[arg(required_unless_present_any = ["spec", "exec"])]
    pub inputs: Vec<PathBuf>,
    /// Grade compiled kernels instead: every dispatch of this launch spec, each run
    /// `--runs` times from fresh buffers with scoped race detection.
    #[arg(long, value_name = "SPEC.ron", conflicts_with_all = ["inputs", "exec"])]
    pub spec: Option<PathBuf>,
    /// Grade a HIP program: run it (the command after `--`) `--runs` times with hipscope's
    /// HIP runtime, race detection on every kernel it launches.
    #[arg(long, requires = "command", conflicts_with = "inputs")]
    pub exec: bool,
    /// `--spec`: the code object of the spec to run (a key of its `code_objects`).
    #[arg(long, value_name = "KEY")]
    pub code_object: Option<String>,
    /// `--spec` / `--exec`: only kernels whose name contains this.
    #[arg(long, value_name = "NAME")]
    pub only: Option<String>,
    /// `--spec` / `--exec`: run the timing model (caches, queues) instead of the functional one,
    /// and replay each race's racing seeds to tell what the memory system did with it (a stale
    /// line, a write held in another XCD's L2, or a run that hid the race).
    #[arg(long)]
    pub timing: bool,
    /// `--exec`: the program and its arguments.
    #[arg(last = true, value_name = "PROGRAM ARGS")]
    pub command: Vec<String>,
    /// The memory model to grade under.
    #[arg(long, value_enum, default_value = "hip")]
    pub model: ModelArg,
    /// Unroll each loop of a litmus test at most this many times (Dartagnan's default, 4);
    /// the verdict says when an execution needed more.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub bound: u32,
    /// Also decide whether every thread terminates under this GPU progress model (JSON
    /// `terminates`), naming the thread and loop that may spin for ever.
    #[arg(long, value_enum)]
    pub progress: Option<ProgressArg>,
    /// Print one JSON report per test (an array), for autograders.
    #[arg(long)]
    pub json: bool,
    /// Write each test's witness execution (or its first race's execution) as Graphviz DOT
    /// into this directory.
    #[arg(long, value_name = "DIR")]
    pub dot: Option<PathBuf>,
    /// Exit 1 unless every test meets this.
    #[arg(long, value_enum)]
    pub expect: Option<Expect>,
    /// List what clang-19 (clang-22 for gfx950) emits for each atomic, fence and barrier on
    /// these builds (comma-separated: gfx803, gfx900, gfx908, gfx90a[-tgsplit], gfx942[-tgsplit],
    /// gfx950[-tgsplit], gfx1010-w32-wgp, gfx1030-w32-wgp, gfx1100-w64-cu, …, gfx1201; `none`
    /// for no listing).
    #[arg(long, value_name = "BUILDS", default_value = "gfx942,gfx1100-w32-wgp")]
    pub isa: String,
    /// Also run each test on these simulated GPUs (comma-separated built-in names or config
    /// files: mi210,mi300x,mi355x,rx7900xtx,vega64,rx5700xt) and report the final states they show.
    #[arg(long, value_name = "A,B")]
    pub gpu: Option<String>,
    /// RDNA GPUs: run the code built for CU or WGP mode (default: the GPU's own mode).
    // `--mode`, its old name, stays a hidden alias for scripts written for it (`--mode` means
    // functional/timing in `run` and `exec`).
    #[arg(long, value_enum, alias = "mode")]
    pub cu_mode: Option<CuModeArg>,
    /// Seeded runs per GPU (litmus tests: default 1000), or per kernel / program (`--spec`,
    /// `--exec`: default 8).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub runs: Option<u64>,
    /// First seed (runs use seed, seed+1, …); replay a run with `--seed S --runs 1`.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub seed: u64,
    /// On GPUs with several XCDs, put every work-group on one XCD instead of spreading them
    /// (the same as `--placement same-xcd`).
    #[arg(long, conflicts_with = "placement")]
    pub one_xcd: bool,
    // `--exec --node NAME`: the program runs on the node's GPUs; kernels on different GPUs run
    // together, and a race between them is a race between agents (system scope needed).
    #[command(flatten)]
    pub node: super::common_args::NodeArg,
    /// Where the test's work-groups run on the simulated GPU: `spread` (different CUs, over the
    /// XCDs round-robin: the default), `same-cu` (one CU, or one WGP in WGP mode), `same-xcd`
    /// (different CUs of one XCD), `other-xcd` (an XCD each). A thread naming its XCD keeps it.
    #[arg(long, value_enum)]
    pub placement: Option<PlacementArg>,
    /// Memory stress beside the test's threads on the simulated GPU: `none` (the default),
    /// `default` (groups=16,lines=4,stride=256,pattern=store-load,iterations=64), or
    /// `key=value,…` over the default (keys: groups, lines, stride in bytes, pattern
    /// store-store|store-load|load-store|load-load, iterations).
    #[arg(long, value_name = "default|none|PARAMS")]
    pub stress: Option<String>,
    /// How a test with a thread on the host (`@ host`) allocates its locations on the node:
    /// `coherent` (`hipHostMalloc`, placement host_pinned: the default) or `non-coherent`
    /// (`hipHostMallocNonCoherent`, host_pinned_nc: a GPU's L2 may keep a copy).
    #[arg(long, value_enum, default_value = "coherent")]
    pub host_memory: HostMemoryArg,
    /// `--spec`, `--exec`: a kernel in which nothing visible changes for N cycles (`--timing`)
    /// or N wave-instructions (functional), although its waves are not proven to loop (a spin
    /// counting its polls), stops with a "no progress" report, explained like a livelock: a
    /// bound, not a proof. 0 turns it off. [default: 10000000]
    #[arg(long, value_name = "N")]
    pub no_progress_cycles: Option<u64>,
}

/// `--host-memory`: how the locations of a test with host threads are allocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HostMemoryArg {
    Coherent,
    NonCoherent,
}

/// `--placement`: where the litmus work-groups run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum PlacementArg {
    Spread,
    SameCu,
    SameXcd,
    OtherXcd,
}

/// The hardware layer's placement and stress from `--placement`, `--one-xcd`, `--stress`.
fn setup(args: &Args) -> Result<hipscope_grade::hardware::Setup, CliError> {
    use hipscope_grade::hardware::placement::Where;
    let placement = match (args.placement, args.one_xcd) {
        (Some(PlacementArg::Spread), _) => Some(Where::Spread),
        (Some(PlacementArg::SameCu), _) => Some(Where::SameCu),
        (Some(PlacementArg::SameXcd), _) | (None, true) => Some(Where::SameXcd),
        (Some(PlacementArg::OtherXcd), _) => Some(Where::OtherXcd),
        (None, false) => None,
    };
    let stress = match &args.stress {
        Some(text) => hipscope_grade::hardware::stress::parse(text).map_err(|e| CliError::BadInput(format!("--stress: {e}")))?,
        None => None,
    };
    let host_memory = match args.host_memory {
        HostMemoryArg::Coherent => hipscope_grade::hardware::host::HostAlloc::Coherent,
        HostMemoryArg::NonCoherent => hipscope_grade::hardware::host::HostAlloc::NonCoherent,
    };
    Ok(hipscope_grade::hardware::Setup { placement, stress, host_memory })
}

/// `--cu-mode`: the CU/WGP mode of RDNA GPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CuModeArg {
    Cu,
    Wgp,
}

impl Args {
    /// `--timing`: which engine runs `--spec` and `--exec` kernels.
    pub fn engine_mode(&self) -> hipscope_sim::Mode {
        hipscope_sim::Mode::with_timing(self.timing)
    }
}

/// The GPUs `--gpu` names, each with the mode it runs in.
fn gpus(args: &Args) -> Result<Vec<(hipscope_sim::gpus::GpuConfig, hipscope_sim::gpus::Mode)>, CliError> {
    let Some(list) = &args.gpu else { return Ok(Vec::new()) };
    list.split(',')
        .map(|name| {
            let gpu = hipscope_sim::gpus::resolve(name.trim()).map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
            if gpu.timing.is_none() {
                return Err(CliError::BadInput(format!("--gpu {}: the config has no timing section", gpu.name)));
            }
            let mode = match args.cu_mode {
                Some(CuModeArg::Cu) => hipscope_sim::gpus::Mode::CU,
                Some(CuModeArg::Wgp) => hipscope_sim::gpus::Mode::WGP,
                None => gpu.mode,
            };
            Ok((gpu, mode))
        })
        .collect()
}

/// The builds `--isa` names.
fn isa_targets(list: &str) -> Result<Vec<hipscope_mm::lower::Target>, CliError> {
    if list == "none" {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(|name| {
            let name = name.trim();
            hipscope_mm::lower::CONFIGS.iter().find(|(n, _)| *n == name).map(|(_, t)| *t).ok_or_else(|| {
                let known: Vec<&str> = hipscope_mm::lower::CONFIGS.iter().map(|(n, _)| *n).collect();
                CliError::BadInput(format!("--isa: unknown build `{name}` (known: {}, or none)", known.join(", ")))
            })
        })
        .collect()
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    if let (Some(node), false) = (&args.node.node, args.exec) {
        return Err(CliError::BadInput(format!(
            "--node {node}: only `grade --exec` runs a program on a node (a litmus test's threads name their GPU with `@ device D`)"
        )));
    }
    if let Some(spec) = &args.spec {
        return super::grade_code::run_spec(args, spec);
    }
    if args.exec {
        return super::grade_code::run_exec(args);
    }
    let model = match args.model {
        ModelArg::Hip => Model::Hip,
        ModelArg::Hsa => Model::Hsa,
        ModelArg::Opencl => Model::Opencl,
        ModelArg::Ptx60 => Model::Ptx60,
        ModelArg::Ptx75 => Model::Ptx75,
        ModelArg::Vulkan => Model::Vulkan,
    };
    let targets = isa_targets(&args.isa)?;
    let gpus = gpus(args)?;
    let runs = hipscope_grade::hardware::Runs { count: args.runs.unwrap_or(1000), seed: args.seed, one_xcd: args.one_xcd };
    let setup = setup(args)?;
    let files = collect(&args.inputs)?;
    if let Some(dir) = &args.dot {
        std::fs::create_dir_all(dir).map_err(|e| CliError::BadInput(format!("--dot {}: cannot create: {e}", dir.display())))?;
    }
    // Hardware runs take a while (about a second per test and GPU at 1000 runs): show them.
    let bar = (!gpus.is_empty()).then(|| super::progress(files.len() * gpus.len()));
    let mut reports = Vec::new();
    let mut failed = Vec::new();
    let mut bad = Vec::new();
    for file in &files {
        // One malformed file in a directory of submissions must not hide the others'
        // grades: report it, grade the rest, and exit 2 at the end.
        let opts = report::Options { bound: args.bound, progress: args.progress.map(ProgressArg::model) };
        let (test, mut r, verdict) = match grade_file(file, model, &targets, &opts) {
            Ok(g) => g,
            Err(e) if files.len() > 1 => {
                eprintln!("hipscope: {e}");
                bad.push(file.display().to_string());
                continue;
            }
            Err(e) => return Err(e),
        };
        for g in &gpus {
            if let Some(b) = &bar {
                b.set_message(format!("{} on {}", file.display(), g.0.name));
            }
            for w in hipscope_grade::hardware::placement::warnings(&test, &g.0, g.1) {
                warn(&bar, &format!("{}: {w}", file.display()));
            }
            report::attach_hardware_with(&mut r, &test, std::slice::from_ref(g), runs, &setup);
            if let Some(skipped) = r.hardware.last().and_then(|h| h.skipped.as_ref()) {
                warn(&bar, &format!("{}: {}: {skipped}", file.display(), g.0.name));
            }
            if let Some(b) = &bar {
                b.inc(1);
            }
        }
        if let Some(dir) = &args.dot {
            write_dot(dir, file, &test, &verdict)?;
        }
        if let Some(expect) = args.expect {
            if !meets(&r, expect) {
                failed.push(r.file.clone());
            }
        }
        reports.push(r);
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    print!("{}", render(args, &reports));
    if !bad.is_empty() {
        return Err(CliError::BadInput(format!("{} of {} files could not be graded: {}", bad.len(), files.len(), bad.join(", "))));
    }
    if !failed.is_empty() {
        eprintln!("hipscope grade: --expect {:?} does not hold for {}", args.expect.unwrap_or(Expect::Allowed), failed.join(", "));
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

/// A warning on stderr, one line, above the progress bar if there is one. The grade is
/// still given: a warning is about the hardware runs, not the language verdict.
fn warn(bar: &Option<indicatif::ProgressBar>, message: &str) {
    let line = format!("hipscope: warning: {message}");
    match bar {
        Some(b) => b.suspend(|| eprintln!("{line}")),
        None => eprintln!("{line}"),
    }
}

fn grade_file(
    file: &Path,
    model: Model,
    targets: &[hipscope_mm::lower::Target],
    opts: &report::Options,
) -> Result<(litmus::Litmus, Report, hipscope_grade::model::Verdict), CliError> {
    let (test, source) = parse(file)?;
    let lines: Vec<&str> = source.lines().collect();
    let (r, verdict) = report::grade_for(&file.display().to_string(), &test, model, &lines, targets, opts)
        .map_err(|e| CliError::BadInput(format!("{}: {e}", file.display())))?;
    Ok((test, r, verdict))
}

fn render(args: &Args, reports: &[Report]) -> String {
    if args.json {
        let mut s = serde_json::to_string_pretty(reports).unwrap_or_default();
        s.push('\n');
        return s;
    }
    let mut out: String = reports.iter().map(|r| report::text(r) + "\n").collect();
    if reports.len() > 1 {
        out.push_str(&summary(reports));
    }
    out
}

fn meets(r: &Report, expect: Expect) -> bool {
    match expect {
        Expect::Allowed => r.outcome == Some(Outcome::Allowed),
        Expect::Forbidden => r.outcome == Some(Outcome::Forbidden),
        Expect::RaceFree => r.race_free,
    }
}

/// One line per test: outcome, races, executions, and per simulated GPU how many runs showed
/// the condition (`!` marks a conformance anomaly, `-` a test not run there).
fn summary(reports: &[Report]) -> String {
    let mut o = String::new();
    let width = reports.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
    let gpus: Vec<&str> = reports.first().map(|r| r.hardware.iter().map(|h| h.gpu.as_str()).collect()).unwrap_or_default();
    let _ = write!(o, "{:<width$}  {:<9}  {:<9}  {:>5}  {:>10}", "file", "outcome", "races", "fix", "executions");
    for g in &gpus {
        let _ = write!(o, "  {g:>12}");
    }
    o.push('\n');
    for r in reports {
        let outcome = match r.outcome {
            Some(Outcome::Allowed) => "allowed",
            Some(Outcome::Forbidden) => "forbidden",
            None => "-",
        };
        let races = if r.race_free { "none".to_string() } else { r.races.len().to_string() };
        let fix = if r.fix.is_some() { "yes" } else { "-" };
        let _ = write!(o, "{:<width$}  {:<9}  {:<9}  {:>5}  {:>10}", r.file, outcome, races, fix, r.executions.consistent);
        for h in &r.hardware {
            let cell = match &h.runs {
                Some(x) => format!("{}/{}{}", x.condition_observed, x.runs, if h.anomaly { "!" } else { "" }),
                None => "-".into(),
            };
            let _ = write!(o, "  {cell:>12}");
        }
        o.push('\n');
    }
    o
}

/// Files as given, and `*.litmus` under directories (sorted, so output order is stable).
/// Each file is graded once, under the first name that reaches it (a symbolic link to a
/// file already listed adds nothing). A path that is not a regular file is kept: reading it
/// refuses it by name, without opening it (see [`litmus::read_source`]).
fn collect(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, CliError> {
    let mut files = Vec::new();
    let mut seen = HashSet::new();
    let mut add = |path: PathBuf, files: &mut Vec<PathBuf>| {
        if seen.insert(std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone())) {
            files.push(path);
        }
    };
    for input in inputs {
        let meta = std::fs::metadata(input).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CliError::BadInput(format!("{}: no such file or directory", input.display())),
            _ => CliError::BadInput(format!("{}: cannot read: {e}", input.display())),
        })?;
        if !meta.is_dir() {
            add(input.clone(), &mut files);
            continue;
        }
        let mut found = walk(input)?;
        if found.is_empty() {
            return Err(CliError::BadInput(format!("{}: no *.litmus files in this directory", input.display())));
        }
        found.sort();
        for f in found {
            add(f, &mut files);
        }
    }
    Ok(files)
}

/// The `*.litmus` paths under `root`. Directories are followed through symbolic links, each
/// (by its canonical path) once, so a link back up the tree ends the walk instead of
/// repeating it until the path grows too long. Only metadata is read: nothing is opened but
/// directories.
fn walk(root: &Path) -> Result<Vec<PathBuf>, CliError> {
    let mut out = Vec::new();
    let mut visited = HashSet::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let canonical = std::fs::canonicalize(&dir).map_err(|e| CliError::BadInput(format!("{}: cannot list: {e}", dir.display())))?;
        if !visited.insert(canonical) {
            continue;
        }
        let entries = std::fs::read_dir(&dir).map_err(|e| CliError::BadInput(format!("{}: cannot list: {e}", dir.display())))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "litmus") {
                out.push(path);
            }
        }
    }
    Ok(out)
}

fn parse(file: &Path) -> Result<(litmus::Litmus, String), CliError> {
    let bad = |e: litmus::LitmusError| CliError::BadInput(e.to_string());
    let source = litmus::read_source(file).map_err(bad)?;
    let test = litmus::parse(file, &source).map_err(bad)?;
    Ok((test, source))
}

fn write_dot(dir: &Path, file: &Path, test: &litmus::Litmus, v: &hipscope_grade::model::Verdict) -> Result<(), CliError> {
    let (execution, races) = match (&v.witness, v.races.first()) {
        (_, Some(race)) => (&race.execution, vec![(race.first, race.second)]),
        (Some(w), None) => (w, vec![]),
        (None, None) => return Ok(()),
    };
    let stem = file.file_stem().map_or_else(|| "test".into(), |s| s.to_string_lossy().into_owned());
    let path = dir.join(format!("{stem}.dot"));
    let text = hipscope_grade::explain::dot(test, v.model, execution, &races);
    std::fs::write(&path, text).map_err(|e| CliError::BadInput(format!("{}: cannot write: {e}", path.display())))
}
