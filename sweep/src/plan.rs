//! A sweep plan, as its RON file states it: workloads × a base GPU × parameter axes × seeds,
//! and the metrics to collect.
//!
//! ```ron
//! Sweep(
//!     gpu: "mi210",
//!     workloads: [Spec(name: "vcopy", path: "../validation/vcopy.ron")],
//!     axes: [Axis(field: "timing.l2.size_bytes", values: ["2 MiB", "4 MiB", "8 MiB"])],
//!     seeds: [0],
//!     metrics: ["duration_us", "counter:TCC_HIT_sum"],
//! )
//! ```
//!
//! An axis names a field of the GPU config by its path (`timing.l2.size_bytes`, `compute_units`,
//! `mode`) and gives its values as a list (`Axis`), an inclusive range (`Range`), or several
//! axes moving together (`Zip`). Byte sizes may carry a unit (`"2 MiB"`).

use hipscope_sim::Mode;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The plan file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename = "Sweep", deny_unknown_fields)]
pub struct Plan {
    /// A title for the plots (default: the plan file's name).
    #[serde(default)]
    pub title: Option<String>,
    /// The base GPU: a built-in name or a config file (relative to the plan).
    pub gpu: String,
    /// `Timing` (default) or `Functional`.
    #[serde(default = "timing")]
    pub mode: Mode,
    pub workloads: Vec<Workload>,
    /// Axes, the first varying slowest. No axes: the base config only.
    #[serde(default)]
    pub axes: Vec<Axis>,
    #[serde(default = "one_seed")]
    pub seeds: Vec<u64>,
    /// What to collect: `cycles`, `duration_us`, `instructions`, `waves`, `counter:NAME`,
    /// `scope:OP:SCOPE[:FOOTPRINT[:CONTENTION]]`, `observed` (litmus).
    pub metrics: Vec<String>,
    /// Sampled timing (`off`, `on`, `kernels`, `work-groups`; default off), as `hipscope run
    /// --sample` does it ([`hipscope_sim::sample`]); `hipscope sweep --sample` overrides it.
    /// Every sampled point's result says so and carries its estimated error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<String>,
}

impl Plan {
    /// The sampling policy the plan asks for (off when it names none; a bad name is refused
    /// when the plan is read).
    pub fn sample_policy(&self) -> hipscope_sim::sample::SamplePolicy {
        self.sample.as_deref().and_then(hipscope_sim::sample::SamplePolicy::parse).unwrap_or_default()
    }
}

fn one_seed() -> Vec<u64> {
    vec![0]
}

/// Plans run the timing engine unless they say otherwise.
fn timing() -> Mode {
    Mode::Timing
}

/// Something to run on every configuration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Workload {
    /// A launch spec (relative to the plan), its code object chosen for the point's GPU and
    /// mode unless `code_object` names one; `params` replace the spec's parameters.
    Spec {
        name: String,
        path: String,
        #[serde(default)]
        code_object: Option<String>,
        #[serde(default)]
        params: BTreeMap<String, i64>,
    },
    /// The scope microbenchmark suite, or the part of it the lists name (empty: all).
    Scopes {
        name: String,
        #[serde(default)]
        ops: Vec<String>,
        #[serde(default)]
        scopes: Vec<String>,
        #[serde(default)]
        footprints: Vec<u64>,
        #[serde(default)]
        contentions: Vec<String>,
        /// Run the tgsplit build (GFX90A, GFX942).
        #[serde(default)]
        tgsplit: bool,
    },
    /// A HIP program under `hipscope exec` (relative to the plan).
    Exec {
        name: String,
        program: String,
        #[serde(default)]
        args: Vec<String>,
    },
    /// A litmus test on the hardware layer: how often its condition is observed.
    Litmus {
        name: String,
        path: String,
        #[serde(default = "litmus_runs")]
        runs: u64,
    },
}

fn litmus_runs() -> u64 {
    100
}

impl Workload {
    /// Which metrics it gives.
    pub fn gives(&self) -> crate::metrics::Source {
        use crate::metrics::Source;
        match self {
            Workload::Spec { .. } | Workload::Exec { .. } => Source::Kernels,
            Workload::Scopes { .. } => Source::Scopes,
            Workload::Litmus { .. } => Source::Litmus,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Workload::Spec { name, .. } | Workload::Scopes { name, .. } | Workload::Exec { name, .. } | Workload::Litmus { name, .. } => name,
        }
    }
}

/// A parameter axis. A key the variant does not have (`Axis(field: …, values: …, step: 2)`)
/// is an error listing the ones it has, not ignored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Axis {
    /// The listed values of one field.
    Axis { field: String, values: Vec<Value> },
    /// `start, start + step, …` up to and including `end`.
    Range { field: String, start: Value, end: Value, step: Value },
    /// Axes moving together (all of the same length): one point per position.
    Zip(Vec<Axis>),
}

/// A value in a plan: a number, or text (a byte size with a unit, or an enum variant such as
/// `"WGP"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Int(i64),
    Float(f64),
    Text(String),
}

impl Value {
    /// As the config's JSON form has it: a byte size with a unit becomes its number.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Int(i) => serde_json::json!(i),
            Value::Float(f) => serde_json::json!(f),
            Value::Text(t) => match bytes_with_unit(t) {
                Some(n) => serde_json::json!(n),
                None => serde_json::json!(t),
            },
        }
    }

    /// The number it stands for, if it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Float(f) => Some(*f),
            Value::Text(t) => bytes_with_unit(t).map(|n| n as f64),
        }
    }

    /// As written in the plan (for labels); a float of more than [`LABEL_DIGITS`] digits in
    /// scientific notation (`1e-300`, not three hundred zeros).
    pub fn label(&self) -> String {
        match self {
            Value::Int(i) => i.to_string(),
            Value::Float(f) => {
                let plain = f.to_string();
                if plain.len() > LABEL_DIGITS {
                    format!("{f:e}")
                } else {
                    plain
                }
            }
            Value::Text(t) => t.clone(),
        }
    }
}

/// Longest float label written out in full.
pub const LABEL_DIGITS: usize = 24;

/// `"2 MiB"`, `"512KiB"`, `"4 GB"` as bytes.
pub fn bytes_with_unit(text: &str) -> Option<u64> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().ok()?;
    let mult: u64 = match unit.trim() {
        "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        _ => return None,
    };
    n.checked_mul(mult)
}

/// Why a plan cannot be used: one line naming the file and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {message}")]
pub struct PlanError {
    pub file: String,
    pub message: String,
}

impl PlanError {
    pub fn new(file: &Path, message: impl Into<String>) -> PlanError {
        PlanError { file: file.display().to_string(), message: message.into() }
    }
}

/// Largest plan file read: plans are short text (a plan of [`crate::points::MAX_POINTS`]
/// points written out value by value is about a megabyte).
pub const MAX_PLAN_BYTES: u64 = 16 << 20;

/// Read and check a plan file (its structure and its point count; the points' configs are
/// checked by [`crate::points::expand`]).
pub fn load(path: &Path) -> Result<Plan, PlanError> {
    let text = hipscope_sim::spec::files::read_text(path, MAX_PLAN_BYTES).map_err(|e| PlanError::new(path, e))?;
    parse(&text, path)
}

/// Parse a plan's text (`path` names it in errors).
pub fn parse(text: &str, path: &Path) -> Result<Plan, PlanError> {
    let plan: Plan = ron::from_str(text).map_err(|e| PlanError::new(path, format!("{}:{}: {}", e.span.start.line, e.span.start.col, e.code)))?;
    crate::validate::check(&plan).map_err(|m| PlanError::new(path, m))?;
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(bytes_with_unit("2 MiB"), Some(2 << 20));
        assert_eq!(bytes_with_unit("512KiB"), Some(512 << 10));
        assert_eq!(bytes_with_unit("4 GB"), Some(4_000_000_000));
        assert_eq!(bytes_with_unit("WGP"), None);
        assert_eq!(bytes_with_unit("3 parsecs"), None);
        assert_eq!(Value::Text("1 KiB".into()).to_json(), serde_json::json!(1024));
        assert_eq!(Value::Text("CU".into()).to_json(), serde_json::json!("CU"));
    }

    #[test]
    fn a_plan_reads_and_bad_ones_name_the_field() {
        let p = Path::new("p.ron");
        let good = r#"Sweep(gpu: "mi210", workloads: [Spec(name: "v", path: "v.ron")],
            axes: [Axis(field: "timing.l2.size_bytes", values: ["2 MiB", 4194304]), Range(field: "compute_units", start: 8, end: 104, step: 8)],
            metrics: ["duration_us", "counter:TCC_HIT_sum"])"#;
        let plan = parse(good, p).unwrap();
        assert_eq!(plan.seeds, [0]);
        assert_eq!(plan.mode, Mode::Timing);
        assert!(matches!(&plan.axes[0], Axis::Axis { values, .. } if values[0] == Value::Text("2 MiB".into()) && values[1] == Value::Int(4194304)));
        let bad = |text: &str, want: &str| {
            let e = parse(text, p).unwrap_err().to_string();
            assert!(e.starts_with("p.ron: ") && e.contains(want), "{e}");
        };
        bad(r#"Sweep(gpu: "mi210", workloads: [], metrics: ["cycles"])"#, "workloads: empty");
        bad(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "v", path: "v.ron")], metrics: [])"#, "metrics: empty");
        bad(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "v", path: "v.ron")], metrics: ["speed"])"#, "metrics[0]");
        bad(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "v", path: "v.ron")], metrics: ["cycles", "observed"])"#, "metrics[1]: no workload gives observed");
        bad(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "v", path: "v.ron")], seeds: [], metrics: ["cycles"])"#, "seeds: empty");
        bad(r#"Sweep(gpu: "mi210", workload: [], metrics: ["cycles"])"#, "1:");
    }
}
