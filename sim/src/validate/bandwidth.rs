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

use super::device_data::DataError;
use super::{object_dir, run_timed, Row, Tolerance};
use crate::gpus::{self, GpuConfig};
use std::path::{Path, PathBuf};

/// One measured point: working set (bytes) and GB/s.
pub type Point = (f64, f64);

/// Bytes per element: the benchmarks read float4.
const ELEMENT_BYTES: u64 = 16;
/// Work-items per group of the L2/MALL/DRAM kernel, as gpu-l2-cache.
const RUN_BLOCK: u64 = 1024;
/// Work-items per group of the L1 kernel, as gpu-cache.
const REPEAT_BLOCK: u64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    L1,
    L2,
    Mall,
    Dram,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::L2 => "L2",
            Level::Mall => "MALL",
            Level::Dram => "DRAM",
        }
    }
}

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

/// Read a gpu-cache or gpu-l2-cache output. Measurement lines hold sizes followed by `kB`
/// (gpu-cache: the data set; gpu-l2-cache: one group's share, then the data set) and the
/// effective bandwidth as the first figure followed by `GB/s`; other lines are headers.
pub fn read_curve(path: &Path) -> Result<Vec<Point>, DataError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| DataError { file: file.clone(), what: e.to_string() })?;
    let mut out = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let before = |unit: &'static str| words.windows(2).filter(move |w| w[1] == unit).filter_map(|w| w[0].parse::<f64>().ok()).collect::<Vec<_>>();
        if let (Some(&kib), Some(&gbs)) = (before("kB").last(), before("GB/s").first()) {
            out.push((kib * 1024.0, gbs));
        }
    }
    if out.is_empty() {
        return Err(DataError { file, what: "no measurement lines (`<size> kB ... <bw> GB/s`)".into() });
    }
    Ok(out)
}

/// Total capacity a level offers the whole GPU: the L1 per CU (every group reads the same
/// data), the L2 once per XCD (work-groups go round-robin to XCDs, each slice to one XCD).
fn capacity(g: &GpuConfig, l: Level) -> Option<f64> {
    let t = g.timing.as_ref()?;
    match l {
        Level::L1 => Some(t.vector_l1.size_bytes as f64),
        Level::L2 => Some(t.l2.size_bytes as f64 * t.topology.xcds.max(1) as f64),
        Level::Mall => t.mall.as_ref().map(|m| m.size_bytes as f64),
        Level::Dram => None,
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
    };
    (hi >= lo).then_some((lo, hi))
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// GB/s from bytes and shader cycles at the config's clock.
fn gb_per_s(g: &GpuConfig, bytes: u64, cycles: u64) -> f64 {
    let mhz = g.timing.as_ref().map_or(1, |t| t.clock_mhz) as f64;
    bytes as f64 * mhz / cycles.max(1) as f64 / 1000.0
}

fn code_object(workloads: &Path, g: &GpuConfig) -> PathBuf {
    workloads.join("bin").join(object_dir(g)).join("bandwidth.co")
}

/// gpu-cache: every CU's group reads the same `ws` bytes, `k` then `3k` times (after a warm-up).
fn simulate_l1(workloads: &Path, g: &GpuConfig, ws: u64) -> Result<f64, String> {
    let n = (ws / ELEMENT_BYTES).max(REPEAT_BLOCK);
    // Passes come in eights (the kernel's unrolled step); k of them make 32+ loads per item.
    let k = (32 * REPEAT_BLOCK / n).max(1).next_multiple_of(8);
    let groups = g.compute_units as u64;
    let launch = |iters: u64| {
        format!("(kernel: \"bw_block_repeat\", grid: ({grid}, 1, 1), block: ({REPEAT_BLOCK}, 1, 1), args: [Buffer(\"b\"), U32({n}), U32({iters}), U32(0), Buffer(\"out\")]),", grid = groups * REPEAT_BLOCK)
    };
    let text = spec_text(workloads, g, &[("b", n * ELEMENT_BYTES)], &[launch(k), launch(k), launch(3 * k)]);
    let (_, c) = run_timed(&text, &spec_path(workloads, g, "l1", ws), g)?;
    Ok(gb_per_s(g, groups * n * ELEMENT_BYTES * 2 * k, c[2].saturating_sub(c[1])))
}

/// gpu-l2-cache: groups reading slices of a `ws`-byte working set, after a warm-up over all of
/// it (`fresh`: two cold buffers instead, every read a miss).
fn simulate_run(workloads: &Path, g: &GpuConfig, ws: u64, per_item: u64, fresh: bool) -> Result<f64, String> {
    let slice = per_item * RUN_BLOCK * ELEMENT_BYTES;
    let xcds = g.timing.as_ref().map_or(1, |t| t.topology.xcds.max(1)) as u64;
    let (g1, g2) = (4 * g.compute_units as u64, 8 * g.compute_units as u64);
    let launch = |buf: &str, groups: u64, run: u64| {
        format!("(kernel: \"bw_block_run\", grid: ({grid}, 1, 1), block: ({RUN_BLOCK}, 1, 1), args: [Buffer(\"{buf}\"), U32({per_item}), U32({run}), Buffer(\"out\")]),", grid = groups * RUN_BLOCK)
    };
    let text = if fresh {
        spec_text(workloads, g, &[("a", g1 * slice), ("b", g2 * slice)], &[launch("a", g1, g1), launch("b", g2, g2)])
    } else {
        // A multiple of the XCD count keeps each slice on one XCD's L2, as on the real GPU.
        let run = (ws / slice).max(1).next_multiple_of(xcds);
        spec_text(workloads, g, &[("b", run * slice)], &[launch("b", run, run), launch("b", g1, run), launch("b", g2, run)])
    };
    let (_, c) = run_timed(&text, &spec_path(workloads, g, if fresh { "dram" } else { "run" }, ws), g)?;
    let (t1, t2) = (c[c.len() - 2], c[c.len() - 1]);
    Ok(gb_per_s(g, (g2 - g1) * slice, t2.saturating_sub(t1)))
}

fn spec_path(workloads: &Path, g: &GpuConfig, what: &str, ws: u64) -> PathBuf {
    workloads.join(format!("bandwidth-{what}-{}-{ws}.ron", g.name))
}

fn spec_text(workloads: &Path, g: &GpuConfig, buffers: &[(&str, u64)], launches: &[String]) -> String {
    let key = g.processor.name();
    let co = code_object(workloads, g);
    let bufs: String = buffers.iter().map(|(n, b)| format!("\"{n}\": (bytes: {b}), ")).collect();
    format!(
        "Run(code_objects: {{\"{key}\": {co:?}}},\n  buffers: {{ {bufs}\"out\": (bytes: {out}) }},\n  dispatches: [\n    {}\n  ],\n  expect: [],\n)",
        launches.join("\n    "),
        out = RUN_BLOCK * ELEMENT_BYTES,
    )
}

/// Simulated GB/s of level `l` at working set `ws` bytes; `per_item` elements per work-item in
/// the slice kernels (gpu-l2-cache uses 32; fewer is faster to simulate and, the bandwidth
/// being a difference of two dispatches, changes it little).
pub fn simulate(workloads: &Path, g: &GpuConfig, l: Level, ws: u64, per_item: u64) -> Result<f64, String> {
    match l {
        Level::L1 => simulate_l1(workloads, g, ws),
        Level::L2 | Level::Mall => simulate_run(workloads, g, ws, per_item, false),
        Level::Dram => simulate_run(workloads, g, ws, per_item, true),
    }
}

/// Plateau rows for one GPU (`per_item` as in [`simulate`]).
pub fn compare(workloads: &Path, data: &Path, gpu: &str, per_item: u64) -> Result<Vec<Row>, String> {
    let (_, l1_file, run_file, levels) = GPUS.iter().find(|(g, ..)| *g == gpu).ok_or_else(|| format!("no bandwidth data for {gpu}"))?;
    let g = gpus::builtin(gpu).map_err(|e| e.to_string())?;
    let l1_curve = read_curve(&data.join(l1_file)).map_err(|e| e.to_string())?;
    let run_curve = read_curve(&data.join(run_file)).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    for &l in levels.iter() {
        let curve = if l == Level::L1 { &l1_curve } else { &run_curve };
        let Some((lo, hi)) = window(&g, l) else { continue };
        let inside: Vec<Point> = curve.iter().copied().filter(|(w, _)| *w >= lo && *w <= hi).collect();
        let Some(measured) = median(inside.iter().map(|p| p.1).collect()) else { continue };
        let ws = median(inside.iter().map(|p| p.0).collect()).unwrap_or(lo) as u64;
        let simulated = simulate(workloads, &g, l, ws, per_item)?;
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
