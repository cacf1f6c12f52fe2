//! Comparing simulations with real device measurements (`../shared/device-data`): readers for
//! the measurement tables and one comparison per dataset. Each comparison runs our own
//! workload with the measured launch configuration in timing mode and lists measured against
//! simulated values with the tolerance the product promises.

pub mod device_data;
pub mod latency;
pub mod vcopy;

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
        }
    }
}
