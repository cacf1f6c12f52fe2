//! Running one point: a workload on one GPU config with one seed, and the metrics it gives.

use crate::metrics::{Metric, Source};
use crate::plan::Workload;
use crate::points::Point;
use crate::record::Sampling;
use hipscope_sim::counters::{CounterName, Counters};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::sample::{SamplePolicy, SampleSummary};
use hipscope_sim::spec::{self, RunError, RunOptions};
use hipscope_sim::Mode;
use hipscope_studies::program::{exit_code, Bounds, Ending, Environment, Failure, Finished, Output};
use hipscope_studies::references::BUILT_IN;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What running points needs besides the plan.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Context {
    /// The plan's directory: workload paths are relative to it.
    pub plan_dir: PathBuf,
    /// The repository's `workloads/` (the scope suite's code objects).
    pub workloads: PathBuf,
    /// The `hipscope` executable, for `Exec` workloads: their programs run with the HIP
    /// runtime beside it, as under `hipscope exec`.
    pub hipscope: Option<PathBuf>,
    /// Where `Exec` points write their config and report (the sweep's output directory).
    pub scratch: PathBuf,
    /// Sampled timing for `Spec` and `Exec` points (the plan's `sample`).
    #[serde(default)]
    pub sample: SamplePolicy,
}

/// How a point ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Outcome {
    /// Metric name → value (`null` where the metric is not one of this workload's), and what
    /// sampled timing did when the point ran sampled.
    Metrics(BTreeMap<String, Value>, Option<Sampling>),
    /// The workload could not run on this config: bad input (exit 2) or a kernel fault (exit 3).
    Failed { fault: bool, message: String },
}

/// Run workload `w` of `point` on `cfg` in `mode`.
pub fn run(w: &Workload, mode: Mode, metrics: &[Metric], point: &Point, cfg: &GpuConfig, cx: &Context) -> Outcome {
    let result = match w {
        Workload::Spec { path, code_object, params, .. } => {
            let run = SpecRun { code_object, params, mode, seed: point.seed, sample: cx.sample };
            spec_metrics(&cx.plan_dir.join(path), &run, cfg, metrics)
        }
        Workload::Exec { program, args, .. } => exec_metrics(&cx.plan_dir.join(program), args, cfg, mode, point, metrics, cx),
        Workload::Scopes { ops, scopes, footprints, contentions, tgsplit, .. } => {
            let filter =
                hipscope_studies::scopes::Filter { ops: ops.clone(), scopes: scopes.clone(), footprints: footprints.clone(), contentions: contentions.clone() };
            scope_metrics(cfg, *tgsplit, &filter, metrics, cx).map(|m| (m, None))
        }
        Workload::Litmus { path, runs, .. } => litmus_metrics(&cx.plan_dir.join(path), *runs, cfg, point.seed, metrics).map(|m| (m, None)),
    };
    match result {
        Ok((m, sampled)) => Outcome::Metrics(m, sampled),
        Err((fault, message)) => failed(fault, format!("{}: {message}", w.name())),
    }
}

fn failed(fault: bool, message: String) -> Outcome {
    Outcome::Failed { fault, message }
}

type Result<T> = std::result::Result<T, (bool, String)>;

/// A point's metrics and, sampled, what sampling did.
type Measured = (BTreeMap<String, Value>, Option<Sampling>);

fn bad(message: impl std::fmt::Display) -> (bool, String) {
    (false, message.to_string())
}

/// Totals of a workload's kernel launches.
#[derive(Default)]
struct Totals {
    launches: u64,
    cycles: u64,
    duration_us: f64,
    instructions: u64,
    waves: u64,
    /// Timing runs: the counters, summed.
    counters: Option<Counters>,
    /// The GPU names its L2 counters the RDNA way (`GL2C_*`).
    rdna: bool,
    /// Launches whose work-groups were sampled, and Σ cycles × their estimated error (%).
    wg_sampled: u64,
    wg_error_cycles: f64,
}

impl Totals {
    fn for_gpu(cfg: &GpuConfig) -> Totals {
        Totals { rdna: cfg.processor.family().is_rdna(), ..Totals::default() }
    }

    /// A launch of `cycles` whose work-groups were sampled, with its estimated error (%).
    fn work_groups_sampled(&mut self, cycles: u64, error_percent: f64) {
        self.wg_sampled += 1;
        self.wg_error_cycles += cycles as f64 * error_percent.max(0.0);
    }

    /// The account of a run with `policy` (`None` unsampled). With the kernel level on, its
    /// estimate is the run's: it already holds each work-group-sampled launch's error (every
    /// such launch goes through it, [`hipscope_sim::sample::Sampler::extrapolated`]); without
    /// it, a work-group-sampled launch's error is its own time's, so it counts by that time's
    /// share.
    fn sampling(&self, policy: SamplePolicy, kernels: Option<&SampleSummary>) -> Option<Sampling> {
        if !policy.any() {
            return None;
        }
        let wg = if self.cycles == 0 { 0.0 } else { self.wg_error_cycles / self.cycles as f64 };
        Some(Sampling {
            policy: policy.name().to_string(),
            launches: kernels.map_or(self.launches, |k| k.launches),
            predicted: kernels.map_or(0, |k| k.predicted),
            work_group_sampled: self.wg_sampled,
            estimated_error_percent: kernels.map_or(wg, |k| k.error_percent),
        })
    }

    fn metrics(&self, metrics: &[Metric], mode: Mode) -> Result<BTreeMap<String, Value>> {
        let timing = mode.is_timing();
        each(metrics, |m| {
            Ok(match m {
                _ if m.source() != Source::Kernels => Value::Null,
                Metric::Cycles if timing => json!(self.cycles),
                Metric::DurationUs if timing => json!(self.duration_us),
                Metric::Cycles | Metric::DurationUs => Value::Null,
                Metric::Instructions => json!(self.instructions),
                Metric::Waves => json!(self.waves),
                Metric::Counter(name) => match &self.counters {
                    Some(c) if name.reported_by(self.rdna) => json!(c.get(name.counter)),
                    _ if !timing => Value::Null,
                    c => {
                        let mut names: Vec<String> = c.iter().flat_map(|c| c.named(self.rdna)).map(|(n, _)| n).collect();
                        names.sort();
                        return Err(bad(format!("metric {m}: the run has no counter {name} (it has {})", names.join(", "))));
                    }
                },
                _ => Value::Null,
            })
        })
    }
}

/// How a launch spec runs at a point.
struct SpecRun<'a> {
    code_object: &'a Option<String>,
    params: &'a BTreeMap<String, i64>,
    mode: Mode,
    seed: u64,
    sample: SamplePolicy,
}

fn spec_metrics(path: &Path, run: &SpecRun<'_>, cfg: &GpuConfig, metrics: &[Metric]) -> Result<Measured> {
    let params: Vec<(String, i128)> = run.params.iter().map(|(k, v)| (k.clone(), i128::from(*v))).collect();
    let parsed = spec::load_with(path, &params).map_err(bad)?;
    let (mode, seed, sample) = (run.mode, run.seed, run.sample);
    // The checks are not run, but a spec's references are still validated against the models.
    let opts = RunOptions { code_object: run.code_object.clone(), mode, seed, skip_checks: true, references: Some(BUILT_IN), sample, ..RunOptions::default() };
    let report = spec::run_on(&parsed, path, &opts, cfg).map_err(|e| match e {
        RunError::Spec(s) => bad(s),
        f @ RunError::Fault { .. } => (true, f.to_string()),
    })?;
    let mut t = Totals::for_gpu(cfg);
    for d in &report.dispatches {
        t.launches += 1;
        t.cycles += d.cycles.unwrap_or(0);
        t.duration_us += d.duration_ns.unwrap_or(0.0) / 1000.0;
        t.instructions += d.instructions;
        t.waves += d.waves;
        if let Some(c) = &d.counters {
            t.counters.get_or_insert_with(Counters::default).add_all(c);
        }
        if let Some(s) = &d.sampled {
            t.work_groups_sampled(d.cycles.unwrap_or(0), s.error_pct);
        }
    }
    Ok((t.metrics(metrics, mode)?, t.sampling(sample, report.sampled.as_ref())))
}

/// A HIP program on `cfg` as `hipscope exec --gpu CONFIG --report REPORT` runs it
/// ([`hipscope_studies::program`]), its launches summed.
fn exec_metrics(program: &Path, args: &[String], cfg: &GpuConfig, mode: Mode, point: &Point, metrics: &[Metric], cx: &Context) -> Result<Measured> {
    let hipscope = cx.hipscope.as_ref().ok_or_else(|| bad("Exec workloads need the hipscope executable"))?;
    let stem = cx.scratch.join(format!("point-{}", point.index));
    let (config, report) = (stem.with_extension("gpu.ron"), stem.with_extension("report.json"));
    let text = ron::ser::to_string_pretty(cfg, ron::ser::PrettyConfig::default()).map_err(bad)?;
    std::fs::write(&config, text).map_err(|e| bad(format!("{}: {e}", config.display())))?;
    let finished = run_program(hipscope, &config, (mode, cx.sample), point.seed, &report, program, args);
    let _ = std::fs::remove_file(&config);
    let text = std::fs::read_to_string(&report);
    let _ = std::fs::remove_file(&report);
    // Points ran programs under `hipscope exec`, which reported a program it could not start
    // (and any other trouble before the start) and exited with status 2: records keep that form.
    let finished = finished.map_err(|m| bad(format!("{} exited with exit status: 2: hipscope: {m}", program.display())))?;
    match finished.ending {
        Ending::Exited(status) if status.success() => {}
        // As `hipscope exec` exits: the program's code, a signal as 128 + its number.
        Ending::Exited(status) => {
            let code = exit_code(status);
            return Err((code == 3, format!("{} exited with exit status: {code}: {}", program.display(), finished.last_line)));
        }
        // Sweeps set no bounds, so a run only ends by itself.
        Ending::TimedOut(_) | Ending::Faulted(_) => return Err(bad(format!("{}: stopped before its end", program.display()))),
    }
    let doc: Value = serde_json::from_str(&text.map_err(|e| bad(format!("{}: no report ({e})", program.display())))?).map_err(bad)?;
    let clock_mhz = cfg.timing.as_ref().map_or(1.0, |t| f64::from(t.clock_mhz.max(1)));
    let mut t = Totals::for_gpu(cfg);
    for l in doc["launches"].as_array().into_iter().flatten() {
        let cycles = l["cycles"].as_u64().unwrap_or(0);
        t.launches += 1;
        t.cycles += cycles;
        // The runtime states a work-group-sampled launch as a line ending in its estimate.
        if let Some(text) = l["sampled"].as_str() {
            t.work_groups_sampled(cycles, stated_error(text).unwrap_or(0.0));
        }
        t.duration_us += cycles as f64 / clock_mhz;
        t.instructions += l["instructions"].as_u64().unwrap_or(0);
        t.waves += l["waves"].as_u64().unwrap_or(0);
        // The runtime's report names the counters as the GPU's profiler does.
        for (name, v) in l["counters"].as_object().into_iter().flatten() {
            if let Some(name) = CounterName::parse(name) {
                t.counters.get_or_insert_with(Counters::default).add(name.counter, v.as_u64().unwrap_or(0));
            }
        }
    }
    // The runtime's summary: `sampled` as `SampleSummary::to_json` writes it.
    let s = &doc["sampled"];
    let kernels = s.is_object().then(|| SampleSummary {
        launches: s["launches"].as_u64().unwrap_or(0),
        predicted: s["predicted"].as_u64().unwrap_or(0),
        clusters: s["clusters"].as_u64().unwrap_or(0),
        error_percent: s["estimated_error_percent"].as_f64().unwrap_or(0.0),
        skipped_launches: s["not_executed_launches"].as_u64().unwrap_or(0),
        skipped_groups: s["not_executed_work_groups"].as_u64().unwrap_or(0),
        warm_ups: s["untimed_warm_up_launches"].as_u64().unwrap_or(0),
    });
    Ok((t.metrics(metrics, mode)?, t.sampling(cx.sample, kernels.as_ref())))
}

/// The `X` of a line ending in `estimated error ±X %` (and perhaps a parenthesis after it).
fn stated_error(text: &str) -> Option<f64> {
    let (_, rest) = text.split_once("estimated error ±")?;
    rest.split_once(" %").and_then(|(x, _)| x.parse().ok())
}

/// Run `program args...` on the GPU config in file `config` in `mode` with sampling `sample`
/// and seed `seed`, the runtime's report going to `report`; errors as `hipscope exec` words
/// them.
fn run_program(
    hipscope: &Path,
    config: &Path,
    (mode, sample): (Mode, SamplePolicy),
    seed: u64,
    report: &Path,
    program: &Path,
    args: &[String],
) -> std::result::Result<Finished, String> {
    let gpu = config.to_str().ok_or_else(|| format!("--gpu {}: not a UTF-8 path", config.display()))?;
    let mut env = Environment::new(hipscope, gpu, mode)?;
    env.set_seed(seed);
    if sample.any() {
        env.set_sample(sample);
    }
    env.set_output(Output::Report, report).map_err(|e| format!("--report {}: {e}", report.display()))?;
    env.run(program, args, Bounds::default()).map_err(|e| match e {
        Failure::CannotRun(e) => format!("{}: cannot run: {e}", program.display()),
        Failure::NoPipe(what) => what.to_string(),
        Failure::Waiting(e) => format!("waiting for {}: {e}", program.display()),
    })
}

fn scope_metrics(
    cfg: &GpuConfig,
    tgsplit: bool,
    filter: &hipscope_studies::scopes::Filter,
    metrics: &[Metric],
    cx: &Context,
) -> Result<BTreeMap<String, Value>> {
    use hipscope_studies::scopes::{run_target_filtered, Target};
    let target = Target { gpu: cfg.clone(), mode: cfg.mode, tgsplit };
    if !target.available() {
        return Err(bad(format!("the scope suite has no {} build for {} in {} mode", if tgsplit { "tgsplit" } else { "" }, cfg.processor, cfg.mode)));
    }
    let rows = run_target_filtered(&target, &cx.workloads, &(), filter).map_err(|e| (true, e))?;
    each(metrics, |m| {
        Ok(match m {
            Metric::Scope { op, scope, footprint, contention } => rows
                .iter()
                .find(|r| r.op == *op && r.scope.name() == scope && r.footprint_bytes == *footprint && r.contention == *contention)
                .and_then(|r| r.cycles_median)
                .map_or(Value::Null, |c| json!(c)),
            _ => Value::Null,
        })
    })
}

fn litmus_metrics(path: &Path, runs: u64, cfg: &GpuConfig, seed: u64, metrics: &[Metric]) -> Result<BTreeMap<String, Value>> {
    use hipscope_grade::hardware::{self, Runs};
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("{}: cannot read: {e}", path.display())))?;
    let test = hipscope_grade::litmus::parse(path, &text).map_err(bad)?;
    // Seed 0 turns the hardware layer's run-to-run variation off: the plan's seeds start at 1.
    let first = 1 + seed.saturating_mul(runs);
    let report = hardware::run(&test, cfg, cfg.mode, Runs { count: runs, seed: first, one_xcd: false })
        .map_err(|e| (matches!(e, hardware::HardwareError::Fault { .. }), e.to_string()))?;
    let observed = report.condition_observed as f64 / report.runs.max(1) as f64;
    each(metrics, |m| Ok(if *m == Metric::Observed { json!(observed) } else { Value::Null }))
}

/// Every metric by its name, with the value `value` gives it (`null`: not this workload's).
fn each(metrics: &[Metric], value: impl Fn(&Metric) -> Result<Value>) -> Result<BTreeMap<String, Value>> {
    metrics.iter().map(|m| Ok((m.to_string(), value(m)?))).collect()
}
