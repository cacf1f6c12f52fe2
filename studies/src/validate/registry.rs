//! The datasets `hipscope validate`, the calibration report and the tests run. A comparison
//! module plugs in with one entry here: its name, the GPUs it has data for, a sentence on the
//! method, and its `compare` (and optionally `curves`) function, all with the signatures
//! below.

use super::{bandwidth, latency, launch_rate, mixbench, vcopy, Curve, Row};
use hipscope_sim::gpus::GpuConfig;
use std::path::Path;

/// `compare(workloads, data, gpu)`: `workloads` is the repository's `workloads/` directory,
/// `data` the device-data directory, `gpu` the config to simulate; its `name` picks the
/// measurements (one of the dataset's GPUs), so a config file named like a built-in is
/// compared with that GPU's data.
pub type CompareFn = fn(&Path, &Path, &GpuConfig) -> Result<Vec<Row>, String>;
/// `curves(workloads, data, gpu)`: measured and simulated curves for plots.
pub type CurvesFn = fn(&Path, &Path, &GpuConfig) -> Result<Vec<Curve>, String>;

pub struct Dataset {
    /// Short name (`--only NAME`, file names, known-miss entries).
    pub name: &'static str,
    /// Heading in reports.
    pub title: &'static str,
    /// The method in a sentence or two (for the report).
    pub method: &'static str,
    /// Built-in GPU names with data, in report order.
    pub gpus: fn() -> Vec<&'static str>,
    pub compare: CompareFn,
    pub curves: Option<CurvesFn>,
}

pub const DATASETS: &[Dataset] = &[
    Dataset {
        name: "vcopy",
        title: "vcopy counters and durations (rocprof-compute profiles)",
        method: "rocprof-compute's `vcopy -n 1048576 -b 256 -i 3` against `workloads/validation/vcopy.ron` (same kernel, grid and three dispatches) in timing mode; dispatch 0 against the medians of the first dispatches of ~35 repeat profiles, dispatch 2 against those of the later ones. Vector-L1 request counts exact; L2 hits and misses within 2 % of the L2's requests; L2-to-memory requests within 5 %; later-dispatch duration within 25 % (first: 100 %, it depends on what the host's copies left in the caches).",
        gpus: || vcopy::GPUS.iter().map(|g| g.0).collect(),
        compare: vcopy::compare,
        curves: None,
    },
    Dataset {
        name: "latency",
        title: "pointer-chase latency (gpu-benches gpu-latency)",
        method: "One wave follows a random pointer cycle spaced one L2 line apart (`workloads/src/latency.hip`) after reading the working set once in chase order. Per cache level, the median measured latency over the working sets that level holds (windows from the GPU config's capacities) against one simulated chase mid-window, ±10 %; at each step between levels the simulation must be on the lower plateau at 0.8× the measured step and on the upper one at 1.25×.",
        gpus: || latency::GPUS.iter().map(|g| g.0).collect(),
        compare: latency::compare,
        curves: Some(latency::curves),
    },
    Dataset {
        name: "bandwidth",
        title: "read bandwidth (gpu-benches gpu-cache, gpu-l2-cache)",
        method: "Our kernels read float4 as gpu-cache (one 256-item group per CU, all reading one data set, repeatedly) and gpu-l2-cache (1024-item groups each reading one slice of a working set) do (`workloads/src/bandwidth.hip`). Per level (L1, L2, MALL, DRAM) the median measured bandwidth over the working sets that level holds against one simulated working set mid-window, ±15 %. The simulated bandwidth is the extra bytes over the extra cycles between two dispatches in the same cache state (k and 3k passes; four and eight groups per CU, after a warm-up pass, or over fresh buffers for DRAM), so launch, ramp and the cold pass cancel as in the real long runs.",
        gpus: || bandwidth::GPUS.iter().map(|g| g.0).collect(),
        compare: bandwidth::compare,
        curves: Some(bandwidth::curves),
    },
    Dataset {
        name: "mixbench",
        title: "mixbench-ro float sweep (rocprof-compute profiles, MI100 and MI210)",
        method: "`workloads/src/mixbench_ro.hip` (4 194 304 work-items in groups of 256, 8 floats each, N multiply-adds per float) at every measured N from 0 to 512. Each point is simulated at 1/16 and 1/8 of the grid over fresh memory and extrapolated linearly to the full grid; every point is listed, and the duration MAPE over the sweep must stay under 15 %.",
        gpus: || mixbench::GPUS.iter().map(|g| g.0).collect(),
        compare: mixbench::compare,
        curves: Some(mixbench::curves),
    },
    Dataset {
        name: "launch-rate",
        title: "work-group launch rate (gpu-benches gpu-small-kernels)",
        method: "A kernel moving 16 bytes an item (our `vecCopy`, as gpu-small-kernels' `scale`) over 2 084 864 items with groups of 16, 32, 64 and 128 items, launched twice back to back; the second launch's bandwidth against the measured one, ±15 %. Groups of up to 64 items are single waves whose bandwidth doubles with the group size: the rate at which work-groups start bounds them, not the memory.",
        gpus: || launch_rate::GPUS.iter().map(|g| g.0).collect(),
        compare: launch_rate::compare,
        curves: None,
    },
];

pub fn find(name: &str) -> Option<&'static Dataset> {
    DATASETS.iter().find(|d| d.name == name)
}

pub fn names() -> Vec<&'static str> {
    DATASETS.iter().map(|d| d.name).collect()
}
