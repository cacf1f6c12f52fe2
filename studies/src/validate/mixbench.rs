//! mixbench-ro float sweep (rocprof-compute's old mixbench workload on MI100 and MI210:
//! `derived/mixbench_ro_summary.csv`, one row per dispatch) against our
//! `workloads/src/mixbench_ro.hip`: 4 194 304 work-items in groups of 256, each loading 8
//! floats and applying N multiply-adds to each, for N from 0 (memory-bound) to 512
//! (compute-bound).
//!
//! The full grid is 65 536 waves of up to 4 100 instructions: too many to simulate at every
//! point, and unnecessary, since past a few rounds of work-groups the duration grows linearly
//! with the grid. Each point is simulated at two partial grids (1/16 and 1/8 of the groups,
//! each over fresh memory as the real 128 MiB buffer is: every read misses the caches) and
//! extrapolated along that line to the full grid; duration MAPE over the points ≤ 15 %.

use super::{object_dir, run_timed, u32_arg, Curve, Row, Tolerance};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch};
use hipscope_sim::spec::Spec;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

/// (our GPU, its `gpu_dir` in the summary).
pub const GPUS: &[(&str, &str)] = &[("mi100", "mi100"), ("mi210", "mi200")];

const SUMMARY: &str = "derived/mixbench_ro_summary.csv";
const BLOCK: u64 = 256;
/// Floats per work-item (mixbench's granularity).
const GRANULARITY: u64 = 8;
/// The compute-iteration counts our code objects have (`mixbench_ro_f32_<N>`).
pub const POINTS: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 28, 32, 40, 48, 56, 64, 80, 96, 128, 256, 512];
/// The product's bar for the sweep's mean absolute percentage error.
pub const MAPE_BAR_PERCENT: f64 = 15.0;
/// Partial grids simulated, as fractions 1/n of the measured one.
const PARTS: (u64, u64) = (16, 8);

#[derive(Debug, Deserialize)]
struct SummaryRow {
    gpu_dir: String,
    dtype: String,
    compute_iters: u32,
    grid_threads: u64,
    wg: u64,
    duration_ns: f64,
}

/// Measured (compute iterations, grid work-items, duration ns) of the float dispatches of one
/// GPU directory, in sweep order.
fn measured(data: &Path, gpu_dir: &str) -> Result<Vec<(u32, u64, f64)>, String> {
    let path = data.join(SUMMARY);
    let mut r = csv::Reader::from_path(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, row) in r.deserialize::<SummaryRow>().enumerate() {
        let row = row.map_err(|e| format!("{}: record {}: {e}", path.display(), i + 1))?;
        if row.gpu_dir == gpu_dir && row.dtype == "float" && row.wg == BLOCK {
            out.push((row.compute_iters, row.grid_threads, row.duration_ns));
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no float rows for {gpu_dir}", path.display()));
    }
    Ok(out)
}

/// Simulated durations already computed in this process, by (GPU, N, groups): the report
/// asks for the rows and then for the curve of the same sweep.
static SIMULATED: Mutex<BTreeMap<(String, u32, u64), f64>> = Mutex::new(BTreeMap::new());

/// Simulated duration (ns) of `groups` work-groups of the N-iteration kernel on fresh memory.
fn simulate_groups(workloads: &Path, g: &GpuConfig, n: u32, groups: u64) -> Result<f64, String> {
    let key = (g.name.clone(), n, groups);
    if let Some(&d) = SIMULATED.lock().ok().and_then(|m| m.get(&key).copied()).as_ref() {
        return Ok(d);
    }
    let d = simulate_groups_uncached(workloads, g, n, groups)?;
    if let Ok(mut m) = SIMULATED.lock() {
        m.insert(key, d);
    }
    Ok(d)
}

fn simulate_groups_uncached(workloads: &Path, g: &GpuConfig, n: u32, groups: u64) -> Result<f64, String> {
    let key = g.processor.name();
    // Relative to the generated spec, which names a file in `workloads/`.
    let co = format!("bin/{}/mixbench_ro.co", object_dir(g));
    let spec = Spec::builder().code_object(key, co).buffer("a", Buffer::zeroed(groups * BLOCK * GRANULARITY * 4)).dispatch(Dispatch::linear(
        format!("mixbench_ro_f32_{n}"),
        u32_arg(groups * BLOCK)?,
        u32_arg(BLOCK)?,
        vec![Arg::F32(0.5), Arg::Buffer("a".into())],
    ));
    let path = workloads.join(format!("mixbench-{}-{n}-{groups}.ron", g.name));
    let (_, cycles) = run_timed(spec, &path, g)?;
    let mhz = g.timing.as_ref().map_or(1, |t| t.clock_mhz.max(1)) as f64;
    Ok(cycles.first().copied().unwrap_or(0) as f64 * 1000.0 / mhz)
}

/// Simulated duration (ns) of the full `grid_items` grid, extrapolated from two partial grids.
pub fn simulate(workloads: &Path, g: &GpuConfig, n: u32, grid_items: u64) -> Result<f64, String> {
    let groups = grid_items.div_ceil(BLOCK);
    let (g1, g2) = ((groups / PARTS.0).max(1), (groups / PARTS.1).max(2));
    let (d1, d2) = (simulate_groups(workloads, g, n, g1)?, simulate_groups(workloads, g, n, g2)?);
    Ok(d2 + (groups - g2) as f64 * (d2 - d1) / (g2 - g1) as f64)
}

/// One row per compute-iteration count in `points` (all of [`POINTS`] when `None`), then the
/// MAPE row.
pub fn compare_points(workloads: &Path, data: &Path, g: &GpuConfig, points: Option<&[u32]>) -> Result<Vec<Row>, String> {
    let gpu = g.name.as_str();
    let (_, dir) = GPUS.iter().find(|(g, _)| *g == gpu).ok_or_else(|| format!("no mixbench data for {gpu}"))?;
    let mut rows = Vec::new();
    for (n, grid, real) in measured(data, dir)? {
        if !POINTS.contains(&n) || points.is_some_and(|p| !p.contains(&n)) {
            continue;
        }
        let sim = simulate(workloads, g, n, grid)?;
        rows.push(Row {
            gpu: gpu.into(),
            case: format!("N = {n}"),
            metric: "duration_ns".into(),
            measured: real,
            simulated: sim,
            tolerance: Tolerance::NotJudged,
        });
    }
    let mape = rows.iter().map(|r| r.error_percent().abs()).sum::<f64>() / rows.len().max(1) as f64;
    // The bar as the "measured" figure: the MAPE must stay below it.
    rows.push(Row {
        gpu: gpu.into(),
        case: format!("{} points", rows.len()),
        metric: "duration MAPE % (bar 15)".into(),
        measured: MAPE_BAR_PERCENT,
        simulated: mape,
        tolerance: Tolerance::Below,
    });
    Ok(rows)
}

/// Every point of the sweep, and the MAPE.
pub fn compare(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Row>, String> {
    compare_points(workloads, data, g, None)
}

/// Duration against compute iterations, measured and simulated.
pub fn curves(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Curve>, String> {
    let gpu = g.name.as_str();
    let rows = compare(workloads, data, g)?;
    let pts = |f: &dyn Fn(&Row) -> f64| {
        rows.iter()
            .filter(|r| r.metric == "duration_ns")
            .filter_map(|r| Some((r.case.strip_prefix("N = ")?.parse::<f64>().ok()?, f(r) / 1000.0)))
            .collect::<Vec<_>>()
    };
    Ok(vec![Curve {
        gpu: gpu.to_string(),
        title: format!("mixbench-ro float duration, {}", g.marketing_name),
        x_label: "multiply-adds per element".into(),
        y_label: "duration (µs)".into(),
        log_x: false,
        measured: pts(&|r| r.measured),
        simulated: pts(&|r| r.simulated),
    }])
}
