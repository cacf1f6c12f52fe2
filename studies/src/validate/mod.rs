//! Comparing simulations with real device measurements (`../shared/device-data`): importers
//! for the measurement files ([`import`]), one comparison per dataset, the datasets' registry
//! ([`registry`]) and the known misses ([`known`]). Each comparison runs our own workload with
//! the measured launch configuration in timing mode and lists measured against simulated
//! values with the tolerance the product promises. [`apps`] compares whole HIP programs
//! written by others with real times instead (it runs processes, so it is not a registry
//! entry).

pub mod apps;
pub mod bandwidth;
pub mod device_data;
pub mod import;
pub mod known;
pub mod latency;
pub mod launch_rate;
pub mod mixbench;
pub mod registry;
pub mod vcopy;

pub use import::DataError;

use crate::references::BUILT_IN;
use hipscope_sim::gpus::GpuConfig;
use hipscope_sim::spec::{RunOptions, Session, SpecBuilder};
use serde::Serialize;
use std::path::Path;

/// How close a simulated value must be.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Tolerance {
    Exact,
    /// |sim − real| ≤ fraction × max(real, floor): `floor` keeps near-zero counts from
    /// demanding impossible relative precision (e.g. 47 L2 hits among 262 000 requests).
    Relative {
        fraction: f64,
        floor: f64,
    },
    /// The simulated value must lie below the measured one (a threshold).
    Below,
    /// The simulated value must lie above the measured one.
    Above,
    /// Listed side by side but not judged: a figure the model makes no claim about yet (e.g. a
    /// counter of an imported profile outside the validated set).
    NotJudged,
}

impl Tolerance {
    /// For tables: `exact`, `±2 %`, `±2 % of 262144`, `below`, `above`, `not judged`.
    pub fn describe(&self, measured: f64) -> String {
        match *self {
            Tolerance::Exact => "exact".into(),
            Tolerance::Relative { fraction, floor } if floor > measured.abs() => format!("±{} % of {floor:.0}", fraction * 100.0),
            Tolerance::Relative { fraction, .. } => format!("±{} %", fraction * 100.0),
            Tolerance::Below => "below".into(),
            Tolerance::Above => "above".into(),
            Tolerance::NotJudged => "not judged".into(),
        }
    }
}

/// One measured-versus-simulated figure.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub gpu: String,
    /// Which dispatches (`first`, `later`) or sweep point.
    pub case: String,
    pub metric: String,
    pub measured: f64,
    pub simulated: f64,
    pub tolerance: Tolerance,
}

impl Row {
    /// Signed relative error (simulated − measured) / measured, in percent.
    pub fn error_percent(&self) -> f64 {
        if self.measured == 0.0 {
            if self.simulated == 0.0 {
                0.0
            } else {
                f64::INFINITY
            }
        } else {
            100.0 * (self.simulated - self.measured) / self.measured
        }
    }

    pub fn ok(&self) -> bool {
        match self.tolerance {
            Tolerance::Exact => self.simulated == self.measured,
            Tolerance::Relative { fraction, floor } => (self.simulated - self.measured).abs() <= fraction * self.measured.abs().max(floor),
            Tolerance::Below => self.simulated < self.measured,
            Tolerance::Above => self.simulated > self.measured,
            Tolerance::NotJudged => true,
        }
    }
}

/// The median of `v` (the upper one of an even count); `None` when empty.
pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// The code-object directory of our builds (`workloads/bin/<dir>`) for the GPU's default wave
/// size and CU/WGP mode.
pub fn object_dir(g: &GpuConfig) -> String {
    hipscope_sim::spec::object_dir(g.processor, g.wave_size, g.mode)
}

/// Run every dispatch of a generated spec (built as if read from `path`, which names it in
/// errors) in timing mode on `g`: the finished session (buffers readable) and each dispatch's
/// cycles.
pub fn run_timed(spec: SpecBuilder, path: &Path, g: &GpuConfig) -> Result<(Session, Vec<u64>), String> {
    let s = spec.build(path).map_err(|e| e.to_string())?;
    let opts = RunOptions { code_object: None, seed: 0, mode: hipscope_sim::Mode::Timing, references: Some(BUILT_IN), ..RunOptions::default() };
    let mut session = Session::on(&s, path, &opts, Some(g)).map_err(|e| e.to_string())?;
    let mut cycles = Vec::new();
    for i in 0..session.dispatch_count() {
        let stats = session.launch(i, 0).map_err(|e| e.to_string())?;
        cycles.push(stats.cycles.unwrap_or(0));
    }
    session.device.synchronize();
    Ok((session, cycles))
}

/// `value` as a 32-bit launch parameter (grid size or kernel argument) of a generated spec.
pub(crate) fn u32_arg(value: u64) -> Result<u32, String> {
    u32::try_from(value).map_err(|_| format!("{value} does not fit a 32-bit launch parameter"))
}

/// A level of the memory hierarchy a latency or bandwidth plateau belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    L1,
    /// The RDNA shader-array cache.
    Gl1,
    L2,
    Mall,
    Dram,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::L1 => "L1",
            Level::Gl1 => "GL1",
            Level::L2 => "L2",
            Level::Mall => "MALL",
            Level::Dram => "DRAM",
        }
    }
}

/// A measured curve and the simulated one over the same axis, for plots. Points are (x, y) in
/// the units the labels name.
#[derive(Debug, Clone, Serialize)]
pub struct Curve {
    pub gpu: String,
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Working-set sweeps span decades: plot x logarithmically.
    pub log_x: bool,
    pub measured: Vec<(f64, f64)>,
    pub simulated: Vec<(f64, f64)>,
}
