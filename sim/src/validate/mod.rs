//! Comparing simulations with real device measurements (`../shared/device-data`): importers
//! for the measurement files ([`import`]), one comparison per dataset, the datasets' registry
//! ([`registry`]) and the known misses ([`known`]). Each comparison runs our own workload with
//! the measured launch configuration in timing mode and lists measured against simulated
//! values with the tolerance the product promises.

pub mod device_data;
pub mod import;
pub mod known;
pub mod latency;
pub mod registry;
pub mod vcopy;

pub use import::DataError;

use serde::Serialize;

/// How close a simulated value must be.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Tolerance {
    Exact,
    /// |sim − real| ≤ fraction × max(real, floor): `floor` keeps near-zero counts from
    /// demanding impossible relative precision (e.g. 47 L2 hits among 262 000 requests).
    Relative { fraction: f64, floor: f64 },
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
            if self.simulated == 0.0 { 0.0 } else { f64::INFINITY }
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
