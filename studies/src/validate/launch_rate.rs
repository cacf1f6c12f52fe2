//! Work-group launch rate (gpu-benches gpu-small-kernels, MI210): a `scale` kernel (8 bytes
//! read, 8 written per item) launched back to back over 2 084 864 items with groups of 16, 32,
//! 64 and 128 items. Groups of up to 64 items are one wave each and move 16 bytes an item, so
//! the measured bandwidths of those columns — doubling with the group size, 210 → 414 → 804
//! GB/s — are bound by how fast the GPU starts work-groups, not by its memory; 128-item groups
//! reach the memory's rate. Our `vecCopy` (`workloads/bin/*/vecCopy.co`) moves the same bytes
//! per item; it runs the measured grid (`items / group + 1` groups) twice, and the second
//! launch's time gives the simulated bandwidth, within 15 % of the measured one.

use super::import::gpu_benches::read_small_kernels;
use super::{run_timed, Row, Tolerance};
use hipscope_sim::gpus::GpuConfig;
use std::path::Path;

/// (our GPU, its gpu-small-kernels file in the device data).
pub const GPUS: &[(&str, &str)] = &[("mi210", "gpu-benches/1c36d509ee717dca9215c27135fa1e611bb03ed1/gpu-small-kernels/mi210.txt")];

/// The measured problem size compared (large enough that the launch's fixed cost is ~2 % of it).
const ITEMS: u64 = 2_084_864;
/// Bytes one item moves (a double read, a double written).
const BYTES_PER_ITEM: u64 = 16;
const TOLERANCE: Tolerance = Tolerance::Relative { fraction: 0.15, floor: 0.0 };

/// Simulated GB/s of one work-group size: the second of two back-to-back launches.
fn simulate(workloads: &Path, g: &GpuConfig, group: u64) -> Result<f64, String> {
    let grid = (ITEMS / group + 1) * group;
    let spec = super::vcopy::profile_spec(ITEMS, grid, group, 2)?;
    let (_, cycles) = run_timed(spec, &workloads.join("validation/launch-rate.ron"), g)?;
    let last = cycles.last().copied().filter(|&c| c > 0).ok_or("the launch reported no cycles")?;
    let clock_mhz = g.timing.as_ref().map(|t| t.clock_mhz).ok_or("the config has no timing parameters")?;
    let seconds = last as f64 / (f64::from(clock_mhz) * 1e6);
    Ok((ITEMS * BYTES_PER_ITEM) as f64 / seconds / 1e9)
}

pub fn compare(workloads: &Path, data: &Path, g: &GpuConfig) -> Result<Vec<Row>, String> {
    let file = GPUS.iter().find(|(n, _)| *n == g.name).map(|(_, f)| data.join(f)).ok_or_else(|| format!("no gpu-small-kernels data for {}", g.name))?;
    let points = read_small_kernels(&file).map_err(|e| e.to_string())?;
    let point = points.iter().find(|p| p.items == ITEMS).ok_or_else(|| format!("{}: no row of {ITEMS} items", file.display()))?;
    let mut rows = Vec::new();
    for &(group, measured) in &point.gbps {
        if group > 128 {
            continue;
        }
        rows.push(Row {
            gpu: g.name.clone(),
            case: format!("{group}-item groups"),
            metric: "GB/s".into(),
            measured,
            simulated: simulate(workloads, g, u64::from(group))?,
            tolerance: TOLERANCE,
        });
    }
    Ok(rows)
}
