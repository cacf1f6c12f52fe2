//! `hipscope validate`: run the comparisons with real-device measurements and print measured
//! against simulated, grouped by dataset and GPU; `--report DIR` also writes the calibration
//! report and its plots; `--profile DIR` compares one imported rocprof-compute vcopy profile.
//!
//! Exit status: 0 every row is within its tolerance or a known miss, 1 an unexpected miss,
//! 2 bad input (missing or malformed data, unknown GPU, unusable profile).

pub mod apps;
mod output;
mod plot;
mod report;

use super::common_args::WorkloadsArg;
use super::{locate, progress, CliError};
use hipscope_sim::gpus::{self, GpuConfig};
use hipscope_studies::validate::import::rocprof;
use hipscope_studies::validate::known::{self, Verdict};
use hipscope_studies::validate::registry::{self, Dataset};
use hipscope_studies::validate::{vcopy, Curve, Row};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Datasets `--only` accepts: one variant per registry entry (a unit test checks they agree).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Only {
    /// vcopy counters and durations against rocprof-compute profiles.
    Vcopy,
    /// Pointer-chase latency against gpu-benches gpu-latency curves.
    Latency,
    /// L1/L2/MALL/DRAM read-bandwidth plateaus against gpu-benches gpu-cache and gpu-l2-cache.
    Bandwidth,
    /// mixbench-ro float duration sweep (MAPE) against rocprof-compute profiles.
    Mixbench,
    /// Work-group launch rate against gpu-benches gpu-small-kernels bandwidths.
    LaunchRate,
    /// Whole HIP benchmark programs (mgpusim-gpu-perf) against real MI300A times (WMAPE).
    /// Runs processes, so it is not an entry of the datasets' registry.
    Apps,
    // New comparisons get a variant here and an entry in the registry.
}

impl Only {
    fn name(self) -> &'static str {
        match self {
            Only::Vcopy => "vcopy",
            Only::Latency => "latency",
            Only::Bandwidth => "bandwidth",
            Only::Mixbench => "mixbench",
            Only::LaunchRate => "launch-rate",
            Only::Apps => "apps",
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Device-data directory [default: ../shared/device-data, else the one next to the
    /// repository hipscope was built from].
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    #[command(flatten)]
    pub workloads: WorkloadsArg,
    /// Only this GPU: a built-in name, or a config file, which runs against the measurements
    /// of the GPU its `name` field names.
    #[arg(long, value_name = "NAME|FILE")]
    pub gpu: Option<String>,
    /// Only this dataset.
    #[arg(long, value_enum)]
    pub only: Option<Only>,
    /// Print JSON (`{"groups": [{"dataset", "gpu", "rows": [...]}], "errors", "summary"}`).
    #[arg(long)]
    pub json: bool,
    /// Also write DIR/calibration.md and one SVG per curve under DIR/calibration/.
    #[arg(long, value_name = "DIR", conflicts_with = "profile")]
    pub report: Option<PathBuf>,
    /// Compare one rocprof-compute profile folder of a vcopy run instead of the datasets.
    #[arg(long, value_name = "DIR", conflicts_with = "only")]
    pub profile: Option<PathBuf>,
    /// The apps data set: programs in `bin/` and `mi300a-real.csv` [default:
    /// ../shared/apps/mgpusim-gpu-perf, else the one next to the repository].
    #[arg(long, value_name = "DIR")]
    pub apps: Option<PathBuf>,
    /// apps: simulate a row whose program launches kernels only if its real time is at most
    /// this many ms (simulation cost grows with the GPU work); other rows are listed as
    /// sampled out. [default: none with --sample skip (the default for the apps), on or
    /// kernels; 1 with --sample off]
    #[arg(long, value_name = "MS")]
    pub apps_max_real_ms: Option<f64>,
    /// apps: sampled timing of the programs' launches (the other datasets always run in full).
    /// The apps run `skip` unless told otherwise: `--sample on` executes every launch.
    #[command(flatten)]
    pub sample: super::common_args::SampleArgs,
    /// apps: stop a program once it has used this many seconds of CPU time, or four times
    /// that of wall time (its rows are listed as timed out).
    #[arg(long, value_name = "S", default_value_t = 600)]
    pub apps_timeout: u64,
}

/// The rows of one (dataset, GPU) comparison with their verdicts.
pub struct Group {
    pub dataset: &'static str,
    pub title: String,
    pub gpu: String,
    pub rows: Vec<(Row, Verdict)>,
}

impl Group {
    /// `judge`: [`known::judge`] for the datasets, [`known::judge_profile`] for a profile.
    fn new(dataset: &'static str, title: String, gpu: String, rows: Vec<Row>, judge: fn(&str, &Row) -> Verdict) -> Group {
        let rows = rows
            .into_iter()
            .map(|r| {
                let v = judge(dataset, &r);
                (r, v)
            })
            .collect();
        Group { dataset, title, gpu, rows }
    }
}

/// Everything one invocation produced.
pub struct Outcome {
    pub groups: Vec<Group>,
    /// (dataset, GPU, curves).
    pub curves: Vec<(&'static str, String, Vec<Curve>)>,
    /// Comparisons that could not run: "dataset gpu: why".
    pub errors: Vec<String>,
    /// The apps comparison's every row (its summary rows are a group as well).
    pub apps: Option<apps::AppsOutcome>,
}

impl Outcome {
    fn count(&self, f: impl Fn(Verdict) -> bool) -> usize {
        self.groups.iter().flat_map(|g| &g.rows).filter(|(_, v)| f(*v)).count()
    }
    pub fn rows(&self) -> usize {
        self.count(|_| true)
    }
    pub fn ok(&self) -> usize {
        self.count(|v| matches!(v, Verdict::Ok | Verdict::FixedKnownMiss(_)))
    }
    pub fn known_misses(&self) -> usize {
        self.count(|v| matches!(v, Verdict::KnownMiss(_)))
    }
    pub fn unexpected_misses(&self) -> usize {
        self.count(|v| v == Verdict::Miss)
    }
    pub fn stale_known_misses(&self) -> usize {
        self.count(|v| matches!(v, Verdict::FixedKnownMiss(_)))
    }
}

pub fn run(args: &Args) -> Result<ExitCode, CliError> {
    let workloads = args.workloads.locate()?;
    // `--gpu` is resolved once: a config file is simulated as written, whatever its name.
    let gpu = args.gpu.as_deref().map(gpus::resolve).transpose().map_err(|e| CliError::BadInput(format!("--gpu: {e}")))?;
    if let Some(ms) = args.apps_max_real_ms.filter(|ms| ms.is_nan() || *ms <= 0.0) {
        return Err(CliError::BadInput(format!("--apps-max-real-ms {ms}: must be a positive number")));
    }
    let outcome = match &args.profile {
        Some(dir) => run_profile(&workloads, dir, gpu.as_ref())?,
        None => {
            let data = locate(&args.data, "../shared/device-data", "--data")?;
            run_datasets(&workloads, &data, args, gpu.as_ref())?
        }
    };
    let out = if args.json { output::json(&outcome) } else { output::text(&outcome) };
    // The report first: a reader that closes stdout early (SIGPIPE) must not cost the files.
    if let Some(dir) = &args.report {
        report::write(dir, &outcome).map_err(CliError::BadInput)?;
        eprintln!("wrote {}", dir.join("calibration.md").display());
    }
    print!("{out}");
    if !outcome.errors.is_empty() {
        return Err(CliError::BadInput(outcome.errors.join("; ")));
    }
    Ok(if outcome.unexpected_misses() > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Each selected dataset with the configs to compare: `gpu` (a resolved `--gpu`) where the
/// dataset has data for its name, else every built-in it has data for.
fn selected(args: &Args, gpu: Option<&GpuConfig>) -> Result<Vec<(&'static Dataset, Vec<GpuConfig>)>, CliError> {
    let mut plan = Vec::new();
    for d in registry::DATASETS {
        if args.only.is_some_and(|o| o.name() != d.name) {
            continue;
        }
        let names = (d.gpus)();
        let configs: Vec<GpuConfig> = match gpu {
            Some(g) => names.contains(&g.name.as_str()).then(|| g.clone()).into_iter().collect(),
            None => names.iter().map(|n| gpus::builtin(n)).collect::<Result<_, _>>().map_err(|e| CliError::BadInput(e.to_string()))?,
        };
        if !configs.is_empty() {
            plan.push((d, configs));
        }
    }
    if plan.is_empty() {
        let gpu = gpu.map_or("any GPU".to_string(), |g| format!("{} ({})", g.name, g.origin));
        let which = args.only.map_or("no dataset".to_string(), |o| format!("dataset {}", o.name()));
        return Err(CliError::BadInput(format!("{which} has data for {gpu}")));
    }
    Ok(plan)
}

/// Whether the apps comparison runs: selected, and for its GPU.
fn apps_selected(args: &Args, gpu: Option<&GpuConfig>) -> bool {
    args.only.is_none_or(|o| o == Only::Apps) && gpu.is_none_or(|g| g.name == apps::GPU)
}

fn run_datasets(workloads: &Path, data: &Path, args: &Args, gpu: Option<&GpuConfig>) -> Result<Outcome, CliError> {
    let with_apps = apps_selected(args, gpu);
    let plan = if args.only == Some(Only::Apps) {
        if !with_apps {
            let g = gpu.map_or(String::new(), |g| format!("{} ({})", g.name, g.origin));
            return Err(CliError::BadInput(format!("dataset apps has data for {} only, not {g}", apps::GPU)));
        }
        Vec::new()
    } else {
        selected(args, gpu)?
    };
    let with_curves = args.report.is_some();
    let jobs: usize = plan.iter().map(|(d, g)| g.len() * if with_curves && d.curves.is_some() { 2 } else { 1 }).sum();
    let bar = progress(jobs);
    let mut outcome = Outcome { groups: Vec::new(), curves: Vec::new(), errors: Vec::new(), apps: None };
    for (d, configs) in plan {
        for g in &configs {
            let gpu = g.name.as_str();
            bar.set_message(format!("{} {gpu}", d.name));
            match (d.compare)(workloads, data, g) {
                Ok(rows) => outcome.groups.push(Group::new(d.name, d.title.to_string(), gpu.to_string(), rows, known::judge)),
                Err(e) => outcome.errors.push(format!("{} {gpu}: {e}", d.name)),
            }
            bar.inc(1);
            if let (true, Some(curves)) = (with_curves, d.curves) {
                bar.set_message(format!("{} {gpu} (curves)", d.name));
                match curves(workloads, data, g) {
                    Ok(c) => outcome.curves.push((d.name, gpu.to_string(), c)),
                    Err(e) => outcome.errors.push(format!("{} {gpu} curves: {e}", d.name)),
                }
                bar.inc(1);
            }
        }
    }
    if with_apps {
        // A config file given as --gpu runs as written; otherwise the built-in.
        let gpu_arg = args.gpu.clone().unwrap_or_else(|| apps::GPU.to_string());
        let exe = super::exec::executable();
        let dir = locate(&args.apps, "../shared/apps/mgpusim-gpu-perf", "--apps");
        let compared = dir.and_then(|d| {
            let timeout = std::time::Duration::from_secs(args.apps_timeout);
            // Not executing what is predicted: the programs never check their results (they
            // print hipEvent times only), and executing every predicted launch cannot fit.
            let sample = args.sample.policy(hipscope_sim::sample::SamplePolicy::SKIP);
            // Sampled runs lift the cost cap: every row is tried, the time-out still holds.
            let max_real_ms = args.apps_max_real_ms.unwrap_or(if sample.kernels { f64::INFINITY } else { 1.0 });
            let opts = apps::Options { max_real_ms, timeout, gpu: gpu_arg, hipscope: exe?, sample, jobs: rayon::current_num_threads() };
            apps::compare(&d, &opts, &apps::Bar(&bar)).map_err(CliError::BadInput)
        });
        match compared {
            Ok(a) => {
                let rows = a.summary_rows();
                outcome.groups.push(Group::new("apps", apps::TITLE.to_string(), apps::GPU.to_string(), rows, known::judge));
                outcome.apps = Some(a);
            }
            Err(e) => outcome.errors.push(format!("apps {}: {e}", apps::GPU)),
        }
    }
    bar.finish_and_clear();
    Ok(outcome)
}

fn run_profile(workloads: &Path, dir: &Path, gpu: Option<&GpuConfig>) -> Result<Outcome, CliError> {
    let bar = progress(1);
    bar.set_message(format!("profile {}", dir.display()));
    let profile = rocprof::read_profile(dir).map_err(|e| CliError::BadInput(e.to_string()))?;
    if let Some(g) = gpu {
        vcopy::check_profile_gpu(&profile.system, g).map_err(|e| CliError::BadInput(format!("--gpu {}: {e}", g.origin)))?;
    }
    let (gpu, rows) = vcopy::compare_profile(workloads, &profile, gpu).map_err(|e| CliError::BadInput(format!("{}: {e}", dir.display())))?;
    bar.finish_and_clear();
    let title = format!("vcopy profile {} ({}, ROCm {})", dir.display(), profile.system.gpu_model, profile.system.rocm_version);
    Ok(Outcome { groups: vec![Group::new("vcopy", title, gpu, rows, known::judge_profile)], curves: Vec::new(), errors: Vec::new(), apps: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn every_registered_dataset_can_be_selected() {
        for name in registry::names() {
            let o = Only::from_str(name, false).unwrap_or_else(|_| panic!("--only has no value for dataset {name}"));
            assert_eq!(o.name(), name);
        }
        // The registry's datasets, and apps (which runs processes, so is not in the registry).
        assert_eq!(Only::value_variants().len(), registry::DATASETS.len() + 1);
        assert!(registry::find(Only::Apps.name()).is_none());
    }
}
