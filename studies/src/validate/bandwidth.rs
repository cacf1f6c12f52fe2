//! Read bandwidth against working-set size (gpu-benches gpu-cache and gpu-l2-cache: MI210 and
//! RX 6900 XT in `gpu-benches/<commit>/`, MI300X in the SC25 artifact's `*.out`), against our
//! `workloads/src/bandwidth.hip`, which reads the way those benchmarks read.
//!
//! Plateaus: per level, the median measured bandwidth over the working sets that level holds
//! (windows from the GPU config's capacities, away from the steps) against one simulated
//! working set in the middle of the window; ±15 %. The simulated bandwidth is a difference of
//! two dispatches in the same cache state (bytes read by the larger minus the smaller, over
//! the difference of their cycles), so the cold first pass, launch and drain cancel as they
//! do in the real benchmarks' long runs:
//! - L1 (gpu-cache): one 256-item work-group per CU, all reading the same data set; `k` and
//!   `3k` passes after a warm-up dispatch.
//! - L2 and MALL (gpu-l2-cache): 1024-item work-groups, each reading one slice of the working
//!   set; after a warm-up dispatch that reads every slice once, two and four work-groups per
//!   CU.
//! - DRAM: the same kernel over two fresh buffers (two and four work-groups per CU), so every
//!   read misses, as it does in steady state on a working set twice the last cache.

use super::import::gpu_benches;
use super::{median, object_dir, run_timed, u32_arg, Curve, Level, Row, Tolerance};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch};
use hipscope_sim::spec::{Spec, SpecBuilder};
use std::path::{Path, PathBuf};

/// One measured point: working set (bytes) and GB/s.
pub type Point = (f64, f64);

/// Bytes per element: the benchmarks read float4.
const ELEMENT_BYTES: u64 = 16;
/// Work-items per group of the L2/MALL/DRAM kernel, as gpu-l2-cache.
const RUN_BLOCK: u64 = 1024;
/// Work-items per group of the L1 kernel, as gpu-cache.
const REPEAT_BLOCK: u64 = 256;

/// (our GPU, gpu-cache output, gpu-l2-cache output, levels compared), files relative to the
/// device-data directory.
pub const GPUS: &[(&str, &str, &str, &[Level])] = &[
    (
        "mi210",
        "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-cache/mi210.txt",
        "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-l2-cache/mi210.txt",
        &[Level::L1, Level::L2, Level::Dram],
    ),
    (
        "mi300x",
        "SC25_AMD_CDNA3_Artifact/06e081116edc81315bc5c8d143badc53e096ccd8/data/5_Memory/MI300X/exec/gpu-cache.out",
        "SC25_AMD_CDNA3_Artifact/06e081116edc81315bc5c8d143badc53e096ccd8/data/5_Memory/MI300X/exec/gpu-l2-cache.out",
        &[Level::L1, Level::L2, Level::Mall, Level::Dram],
    ),
    (
        "rx6900xt",
        "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-cache/rx6900xt.txt",
        "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-l2-cache/rx6900xt.txt",
        &[Level::L1, Level::L2, Level::Mall, Level::Dram],
    ),
];

/// The measured curves: gpu-cache (data set → GB/s) and gpu-l2-cache (data set → GB/s).
fn measured(data: &Path, l1_file: &str, run_file: &str) -> Result<(Vec<Point>, Vec<Point>), String> {
    let l1 = gpu_benches::read_cache(&data.join(l1_file)).map_err(|e| e.to_string())?;
    let run = gpu_benches::read_l2_cache(&data.join(run_file)).map_err(|e| e.to_string())?;
    Ok((l1.iter().map(|p| (p.data_set_bytes, p.bandwidth_gbps)).collect(), run.iter().map(|p| (p.data_set_bytes, p.bandwidth_gbps)).collect()))
}

/// Total capacity a level offers the whole GPU: the L1 per CU (every group reads the same
/// data), the L2 once per XCD (work-groups go round-robin to XCDs, each slice to one XCD).
fn capacity(g: &GpuConfig, l: Level) -> Option<f64> {
    let t = g.timing.as_ref()?;
    match l {
        Level::L1 => Some(t.vector_l1.size_bytes as f64),
        Level::L2 => Some(t.l2.size_bytes as f64 * t.topology.xcds.max(1) as f64),
        Level::Mall => t.mall.as_ref().map(|m| m.size_bytes as f64),
        // Neither benchmark isolates the RDNA GL1, and DRAM holds everything.
        Level::Gl1 | Level::Dram => None,
    }
}

/// Working-set window (bytes) whose bandwidth is level `l`'s plateau.
fn window(g: &GpuConfig, l: Level) -> Option<(f64, f64)> {
    let last_cache = capacity(g, Level::Mall).or_else(|| capacity(g, Level::L2))?;
    let (lo, hi) = match l {
        Level::L1 => (4096.0, 0.5 * capacity(g, l)?),
        Level::L2 => (0.0, 0.5 * capacity(g, l)?),
        Level::Mall => (2.0 * capacity(g, Level::L2)?, 0.5 * capacity(g, l)?),
        // DRAM: far beyond the last cache (MI210's curve still mixes L2 hits in at 2-4× its
        // L2, MI300X's reads MALL-like to 1.6× its MALL).
        Level::Dram => (8.0 * last_cache, 32.0 * last_cache),
        Level::Gl1 => return None,
    };
    (hi >= lo).then_some((lo, hi))
}

/// GB/s from bytes and shader cycles at the config's clock.
fn gb_per_s(g: &GpuConfig, bytes: u64, cycles: u64) -> f64 {
    let mhz = g.timing.as_ref().map_or(1, |t| t.clock_mhz) as f64;
    bytes as f64 * mhz / cycles.max(1) as f64 / 1000.0
}

/// Our code object, relative to the generated spec (which names a file in `workloads/`).
fn code_object(g: &GpuConfig) -> String {
    format!("bin/{}/bandwidth.co", object_dir(g))
}

/// gpu-cache: every CU's group reads the same `ws` bytes, `k` then `3k` times (after a warm-up).
fn simulate_l1(workloads: &Path, g: &GpuConfig, ws: u64) -> Result<f64, String> {
    let n = (ws / ELEMENT_BYTES).max(REPEAT_BLOCK);
    // Passes come in eights (the kernel's unrolled step); k of them make 32+ loads per item.
    let k = (32 * REPEAT_BLOCK / n).max(1).next_multiple_of(8);
    let groups = g.compute_units as u64;
    let launch = |iters: u64| -> Result<Dispatch, String> {
        let args = vec![Arg::Buffer("b".into()), Arg::U32(u32_arg(n)?), Arg::U32(u32_arg(iters)?), Arg::U32(0), Arg::Buffer("out".into())];
        Ok(Dispatch::linear("bw_block_repeat", u32_arg(groups * REPEAT_BLOCK)?, REPEAT_BLOCK as u32, args))
    };
    let spec = bandwidth_spec(g, &[("b", n * ELEMENT_BYTES)], [launch(k)?, launch(k)?, launch(3 * k)?]);
    let (_, c) = run_timed(spec, &spec_path(workloads, g, "l1", ws), g)?;
    Ok(gb_per_s(g, groups * n * ELEMENT_BYTES * 2 * k, c[2].saturating_sub(c[1])))
}

/// gpu-l2-cache: groups reading slices of a `ws`-byte working set, after a warm-up over all of
/// it (`fresh`: two cold buffers instead, every read a miss).
fn simulate_run(workloads: &Path, g: &GpuConfig, ws: u64, per_item: u64, fresh: bool) -> Result<f64, String> {
    let slice = per_item * RUN_BLOCK * ELEMENT_BYTES;
    let xcds = g.timing.as_ref().map_or(1, |t| t.topology.xcds.max(1)) as u64;
    let (g1, g2) = (4 * g.compute_units as u64, 8 * g.compute_units as u64);
    let launch = |buf: &str, groups: u64, run: u64| -> Result<Dispatch, String> {
        let args = vec![Arg::Buffer(buf.into()), Arg::U32(u32_arg(per_item)?), Arg::U32(u32_arg(run)?), Arg::Buffer("out".into())];
        Ok(Dispatch::linear("bw_block_run", u32_arg(groups * RUN_BLOCK)?, RUN_BLOCK as u32, args))
    };
    let spec = if fresh {
        bandwidth_spec(g, &[("a", g1 * slice), ("b", g2 * slice)], [launch("a", g1, g1)?, launch("b", g2, g2)?])
    } else {
        // A multiple of the XCD count keeps each slice on one XCD's L2, as on the real GPU.
        let run = (ws / slice).max(1).next_multiple_of(xcds);
        bandwidth_spec(g, &[("b", run * slice)], [launch("b", run, run)?, launch("b", g1, run)?, launch("b", g2, run)?])
    };
    let (_, c) = run_timed(spec, &spec_path(workloads, g, if fresh { "dram" } else { "run" }, ws), g)?;
    let (t1, t2) = (c[c.len() - 2], c[c.len() - 1]);
    Ok(gb_per_s(g, (g2 - g1) * slice, t2.saturating_sub(t1)))
}

fn spec_path(workloads: &Path, g: &GpuConfig, what: &str, ws: u64) -> PathBuf {
    workloads.join(format!("bandwidth-{what}-{}-{ws}.ron", g.name))
}

/// Our code object, the `buffers` and an `out` buffer, and the `launches` in order.
fn bandwidth_spec(g: &GpuConfig, buffers: &[(&str, u64)], launches: impl IntoIterator<Item = Dispatch>) -> SpecBuilder {
    let mut spec = Spec::builder().code_object(g.processor.name(), code_object(g));
    for &(name, bytes) in buffers {
        spec = spec.buffer(name, Buffer::zeroed(bytes));
    }
    spec = spec.buffer("out", Buffer::zeroed(RUN_BLOCK * ELEMENT_BYTES));
    launches.into_iter().fold(spec, SpecBuilder::dispatch)
}

/// Simulated GB/s of level `l` at working set `ws` bytes; `per_item` elements per work-item in
/// the slice kernels (gpu-l2-cache uses 32; fewer is faster to simulate and, the bandwidth
/// being a difference of two dispatches, changes it little).
pub fn simulate(workloads: &Path, g: &GpuConfig, l: Level, ws: u64, per_item: u64) -> Result<f64, String> {
    match l {
        Level::L1 => simulate_l1(workloads, g, ws),
        Level::L2 | Level::Mall => simulate_run(workloads, g, ws, per_item, false),
        Level::Dram => simulate_run(workloads, g, ws, per_item, true),
        Level::Gl1 => Err(format!("{}: no GL1 bandwidth kernel (gpu-cache reads the L1, gpu-l2-cache the L2 and beyond)", g.name)),
    }
}

/// Elements per work-item of the slice kernels in comparisons: fewer than the benchmark's 32
/// keeps them quick; the bandwidth being a difference of two dispatches barely depends on it.
pub const PER_ITEM: u64 = 8;

/// Plateau rows for one GPU.
pub fn compare(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Row>, String> {
    let gpu = g.name.as_str();
    let per_item = PER_ITEM;
    let (_, l1_file, run_file, levels) = GPUS.iter().find(|(g, ..)| *g == gpu).ok_or_else(|| format!("no bandwidth data for {gpu}"))?;
    let (l1_curve, run_curve) = measured(data, l1_file, run_file)?;
    let mut rows = Vec::new();
    for &l in levels.iter() {
        let curve = if l == Level::L1 { &l1_curve } else { &run_curve };
        let Some((lo, hi)) = window(g, l) else { continue };
        let inside: Vec<Point> = curve.iter().copied().filter(|(w, _)| *w >= lo && *w <= hi).collect();
        let Some(measured) = median(inside.iter().map(|p| p.1).collect()) else { continue };
        let ws = median(inside.iter().map(|p| p.0).collect()).unwrap_or(lo) as u64;
        let simulated = simulate(workloads, g, l, ws, per_item)?;
        rows.push(Row {
            gpu: gpu.into(),
            case: format!("{} plateau", l.name()),
            metric: format!("GB/s at {:.0} KiB", ws as f64 / 1024.0),
            measured,
            simulated,
            tolerance: Tolerance::Relative { fraction: 0.15, floor: 0.0 },
        });
    }
    Ok(rows)
}

/// Simulated points per curve.
const CURVE_POINTS: usize = 10;

/// The level whose kernel set-up simulates working set `ws` of the gpu-l2-cache sweep: warm
/// slices while the data fits (or nearly fits) the last cache, fresh buffers beyond.
fn run_level(g: &GpuConfig, ws: f64) -> Level {
    let last = capacity(g, Level::Mall).or_else(|| capacity(g, Level::L2)).unwrap_or(f64::INFINITY);
    if ws > 2.0 * last {
        Level::Dram
    } else {
        Level::L2
    }
}

/// Measured and simulated bandwidth against working set: gpu-cache (one group per CU reading
/// one data set) and gpu-l2-cache (slices of a working set).
pub fn curves(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Curve>, String> {
    let gpu = g.name.as_str();
    let (_, l1_file, run_file, _) = GPUS.iter().find(|(g, ..)| *g == gpu).ok_or_else(|| format!("no bandwidth data for {gpu}"))?;
    let (l1_curve, run_curve) = measured(data, l1_file, run_file)?;
    let sweep = |curve: &[Point], cap: f64, sim: &dyn Fn(f64) -> Result<f64, String>| -> Result<Vec<Point>, String> {
        let lo = curve.iter().map(|p| p.0).fold(f64::INFINITY, f64::min).max(4096.0);
        let hi = curve.iter().map(|p| p.0).fold(0.0, f64::max).min(cap);
        (0..CURVE_POINTS).filter(|_| hi > lo).map(|i| lo * (hi / lo).powf(i as f64 / (CURVE_POINTS - 1) as f64)).map(|ws| Ok((ws, sim(ws)?))).collect()
    };
    let l1_sim = sweep(&l1_curve, 1048576.0, &|ws| simulate(workloads, g, Level::L1, ws as u64, PER_ITEM))?;
    let last = capacity(g, Level::Mall).or_else(|| capacity(g, Level::L2)).unwrap_or(f64::INFINITY);
    let run_sim = sweep(&run_curve, 8.0 * last, &|ws| simulate(workloads, g, run_level(g, ws), ws as u64, PER_ITEM))?;
    let curve = |title: &str, measured: Vec<Point>, simulated: Vec<Point>| Curve {
        gpu: gpu.to_string(),
        title: format!("{title}, {}", g.marketing_name),
        x_label: "working set (bytes)".into(),
        y_label: "GB/s".into(),
        log_x: true,
        measured,
        simulated,
    };
    Ok(vec![
        curve("Read bandwidth, one data set per CU (gpu-cache)", l1_curve, l1_sim),
        curve("Read bandwidth, sliced working set (gpu-l2-cache)", run_curve, run_sim),
    ])
}
