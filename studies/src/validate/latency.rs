//! Pointer-chase latency against working-set size (gpu-benches gpu-latency: MI210 and RX 6900 XT
//! in `gpu-benches/<commit>/gpu-latency/`, MI300X in the SC25 artifact's `gpu-latency.out`),
//! against our `workloads/src/latency.hip` in timing mode: one lane follows a random cycle of
//! pointers spaced one L2 line apart, after its wave has read the working set once in the
//! chase's order (which leaves the caches as the real benchmark's million-hop chase does).
//!
//! Plateaus: per cache level, the median measured latency over the working sets that level
//! holds (windows derived from the GPU config's capacities, away from the steps) against one
//! simulated chase in the middle of the window; ±10 %. Breakpoints: where the measured curve
//! crosses halfway between two plateaus; the simulation must be on the lower plateau at 0.8×
//! that working set and on the upper one at 1.25× (it steps within that band).

use super::import::gpu_benches::read_latency;
use super::import::DataError;
use super::{median, object_dir, run_timed, u32_arg, Curve, Level, Row, Tolerance};
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::spec::model::{Arg, Buffer, Dispatch, Init};
use hipscope_sim::spec::{Spec, SpecBuilder};
use std::path::{Path, PathBuf};

/// One measured point: working set (bytes) and cycles per hop.
pub type Point = (f64, f64);

/// Read a gpu-latency output: (working set, cycles per hop) per line.
pub fn read_curve(path: &Path) -> Result<Vec<Point>, DataError> {
    Ok(read_latency(path)?.into_iter().map(|p| (p.working_set_bytes, p.cycles)).collect())
}

/// (our GPU, measured curve relative to the device-data directory, levels whose plateau is
/// compared). The RX 6900 XT's DRAM figure is left out: the measurement ran with the memory
/// clock idling (gpu-benches README).
pub const GPUS: &[(&str, &str, &[Level])] = &[
    ("mi210", "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-latency/mi210.txt", &[Level::L1, Level::L2, Level::Dram]),
    (
        "mi300x",
        "SC25_AMD_CDNA3_Artifact/06e081116edc81315bc5c8d143badc53e096ccd8/data/5_Memory/MI300X/exec/gpu-latency.out",
        &[Level::L1, Level::L2, Level::Mall, Level::Dram],
    ),
    ("rx6900xt", "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-latency/rx6900xt.txt", &[Level::L1, Level::Gl1, Level::L2, Level::Mall]),
];

/// Capacities of the levels a single wave's chase can use, smallest first.
fn capacities(g: &GpuConfig) -> Vec<(Level, f64)> {
    let Some(t) = &g.timing else { return Vec::new() };
    let mut v = vec![(Level::L1, t.vector_l1.size_bytes as f64)];
    if let Some(c) = &t.gl1 {
        v.push((Level::Gl1, c.size_bytes as f64));
    }
    v.push((Level::L2, t.l2.size_bytes as f64));
    if let Some(m) = &t.mall {
        v.push((Level::Mall, m.size_bytes as f64));
    }
    v
}

/// Working-set window (bytes) whose latency is level `l`'s plateau.
fn window(g: &GpuConfig, l: Level) -> Option<(f64, f64)> {
    let caps = capacities(g);
    let i = caps.iter().position(|(k, _)| *k == l);
    let below = match i {
        Some(0) => 4096.0,
        Some(i) => 2.0 * caps[i - 1].1,
        None => 2.0 * caps.last()?.1,
    };
    let above = match i {
        Some(i) => 0.5 * caps[i].1,
        // DRAM: two to four times the last cache (beyond, TLB misses add to the measured
        // latency; the model has no TLB).
        None => 4.0 * caps.last()?.1,
    };
    (above > below).then_some((below, above))
}

/// The chase spec for working set `ws` bytes with entries `spacing` bytes apart.
fn chase_spec(g: &GpuConfig, ws: u64, spacing: u64, steps: u32) -> Result<SpecBuilder, String> {
    let key = g.processor.name();
    // Relative to the spec, which is placed in `workloads` (the spec's own directory is the base
    // of its relative paths, whether `workloads` itself is relative or absolute).
    let co = format!("bin/{}/latency.co", object_dir(g));
    let entries = ws / spacing;
    let wave = g.wave_size;
    let (grid, entries32, su) = (u32_arg(entries.div_ceil(256) * 256)?, u32_arg(entries)?, u32_arg(spacing / 8)?);
    Ok(Spec::builder()
        .code_object(key, co)
        .buffer("buf", Buffer::zeroed(ws).init(Init::PointerCycle(1, spacing)))
        .buffer("visits", Buffer::zeroed(4 * entries).init(Init::PointerCycleVisits(1, spacing)))
        .buffer("out", Buffer::zeroed(24))
        .dispatch(Dispatch::linear("chase_prepare", grid, 256, vec![Arg::Buffer("buf".into()), Arg::U32(entries32), Arg::U32(su)]))
        .dispatch(Dispatch::linear(
            "latency_chase",
            wave,
            wave,
            vec![Arg::Buffer("buf".into()), Arg::Buffer("visits".into()), Arg::U32(entries32), Arg::U32(su), Arg::U32(steps), Arg::Buffer("out".into())],
        )))
}

/// Simulated cycles per hop at working set `ws`.
pub fn simulate(workloads: &Path, g: &GpuConfig, ws: u64) -> Result<f64, String> {
    let spacing = g.timing.as_ref().map_or(64, |t| t.l2.line_bytes.max(64) as u64);
    let ws = ws.div_ceil(spacing) * spacing;
    let steps = 2048;
    let path: PathBuf = workloads.join(format!("latency-{}-{ws}.ron", g.name));
    let (session, _) = run_timed(chase_spec(g, ws, spacing, steps)?, &path, g)?;
    let out = session.device.mem.find("out").ok_or("no out buffer")?;
    let cycles = u64::from_le_bytes(out.data[..8].try_into().map_err(|_| "short out buffer")?);
    Ok(cycles as f64 / steps as f64)
}

/// Plateau and breakpoint rows for one GPU.
pub fn compare(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Row>, String> {
    let gpu = g.name.as_str();
    let (_, file, levels) = GPUS.iter().find(|(g, ..)| *g == gpu).ok_or_else(|| format!("no latency data for {gpu}"))?;
    let curve = read_curve(&data.join(file)).map_err(|e| e.to_string())?;
    let mut rows = Vec::new();
    let mut plateaus = Vec::new();
    for &l in levels.iter() {
        let Some((lo, hi)) = window(g, l) else { continue };
        let Some(measured) = median(curve.iter().filter(|(w, _)| *w >= lo && *w <= hi).map(|p| p.1).collect()) else { continue };
        let ws = (lo * hi).sqrt() as u64;
        let simulated = simulate(workloads, g, ws)?;
        plateaus.push((l, measured));
        rows.push(Row {
            gpu: gpu.into(),
            case: format!("{} plateau", l.name()),
            metric: "cycles per hop".into(),
            measured,
            simulated,
            tolerance: Tolerance::Relative { fraction: 0.10, floor: 0.0 },
        });
    }
    // Breakpoints between consecutive compared plateaus.
    for pair in plateaus.windows(2) {
        let ((l0, p0), (l1, p1)) = (pair[0], pair[1]);
        let mid = (p0 + p1) / 2.0;
        let lo_edge = window(g, l0).map_or(0.0, |w| w.0);
        let Some(step) = curve.iter().find(|(w, c)| *w > lo_edge && *c > mid).map(|p| p.0) else { continue };
        let below = simulate(workloads, g, (0.8 * step) as u64)?;
        let above = simulate(workloads, g, (1.25 * step) as u64)?;
        let case = format!("{}→{} step", l0.name(), l1.name());
        // Encoded as two rows: below must be under the midpoint, above over it.
        rows.push(Row {
            gpu: gpu.into(),
            case: case.clone(),
            metric: format!("cycles at 0.8 × {:.0} KiB (< {mid:.0})", step / 1024.0),
            measured: mid,
            simulated: below,
            tolerance: Tolerance::Below,
        });
        rows.push(Row {
            gpu: gpu.into(),
            case,
            metric: format!("cycles at 1.25 × {:.0} KiB (> {mid:.0})", step / 1024.0),
            measured: mid,
            simulated: above,
            tolerance: Tolerance::Above,
        });
    }
    Ok(rows)
}

/// Simulated points of a curve: log-spaced working sets from the smallest measured one up to the
/// largest, but no further than 4 × the last cache (the DRAM window's end; the model has no TLB
/// and each point's set-up grows with the working set).
const CURVE_POINTS: usize = 16;

/// The measured latency curve and a simulated sweep over the same working sets.
pub fn curves(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Curve>, String> {
    let gpu = g.name.as_str();
    let (_, file, _) = GPUS.iter().find(|(g, ..)| *g == gpu).ok_or_else(|| format!("no latency data for {gpu}"))?;
    let measured = read_curve(&data.join(file)).map_err(|e| e.to_string())?;
    let lo = measured.iter().map(|p| p.0).fold(f64::INFINITY, f64::min).max(4096.0);
    let cap = capacities(g).last().map_or(f64::INFINITY, |c| 4.0 * c.1);
    let hi = measured.iter().map(|p| p.0).fold(0.0, f64::max).min(cap);
    let mut simulated = Vec::new();
    if hi > lo {
        for i in 0..CURVE_POINTS {
            let ws = lo * (hi / lo).powf(i as f64 / (CURVE_POINTS - 1) as f64);
            simulated.push((ws, simulate(workloads, g, ws as u64)?));
        }
    }
    Ok(vec![Curve {
        gpu: gpu.to_string(),
        title: format!("Pointer-chase latency, {}", g.marketing_name),
        x_label: "working set (bytes)".into(),
        y_label: "cycles per hop".into(),
        log_x: true,
        measured,
        simulated,
    }])
}
