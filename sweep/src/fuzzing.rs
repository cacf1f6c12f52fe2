//! The sweep plan reader on arbitrary bytes: the `sweep_plan` cargo-fuzz target and
//! `sweep/tests/plan_robustness.rs` both run [`fuzz_one`], so that whatever a plan file says
//! it ends in a plan or a one-line error, never a panic, an abort, a hang or an allocation the
//! plan's size does not justify.
//!
//! The input is the plan's text. It is parsed and checked as `hipscope sweep` does, its points
//! counted arithmetically, and, when there are at most [`MAX_EXPANDED_POINTS`], expanded with
//! every config built and checked. Nothing runs and no file is read: the base GPU is the
//! built-in the plan names, or MI210 for a config file.

use crate::plan;
use crate::points;
use hipscope_sim::gpus::{self, GpuConfig};
use std::path::Path;
use std::sync::OnceLock;

/// Points expanded per input at most (each combination's config is built and checked, about
/// 10 µs each); larger plans are only counted.
pub const MAX_EXPANDED_POINTS: u64 = 2_000;

/// How one input ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// Not UTF-8 text.
    NotText,
    /// Not a plan, or a plan that fails a check (the error is one line naming the field).
    Refused,
    /// A valid plan of this many points, too many to expand here.
    Counted,
    /// A plan whose points were all made and whose configs all passed their checks.
    Expanded,
    /// A plan whose points were made, one of whose configs a check refused.
    ConfigRefused,
}

/// The built-in GPU configs, parsed once.
fn builtins() -> &'static [GpuConfig] {
    static GPUS: OnceLock<Vec<GpuConfig>> = OnceLock::new();
    GPUS.get_or_init(gpus::builtins)
}

/// Read the input as a plan (see the module documentation). Panics only if the reader breaks
/// its own contract: a plan that passed the checks whose expansion does not have the counted
/// number of points, or an error message that is not one line.
pub fn fuzz_one(data: &[u8]) -> Outcome {
    let Ok(text) = std::str::from_utf8(data) else { return Outcome::NotText };
    let file = Path::new("fuzz.ron");
    let plan = match plan::parse(text, file) {
        Ok(p) => p,
        Err(e) => {
            one_line(&e.to_string());
            return Outcome::Refused;
        }
    };
    let Some(base) = builtins().iter().find(|g| g.name == plan.gpu).or_else(|| builtins().iter().find(|g| g.name == "mi210")) else {
        return Outcome::Refused;
    };
    let n = match points::count(&plan) {
        Ok(n) => n,
        Err(e) => panic!("a plan that passed its checks cannot be counted: {e}"),
    };
    if n > MAX_EXPANDED_POINTS {
        return Outcome::Counted;
    }
    match points::expand(&plan, base, file) {
        Ok(pts) => {
            assert_eq!(pts.len() as u64, n, "the points made are the points counted");
            assert!(pts.iter().enumerate().all(|(i, p)| p.index == i), "points are numbered in order");
            Outcome::Expanded
        }
        Err(e) => {
            one_line(&e.to_string());
            Outcome::ConfigRefused
        }
    }
}

fn one_line(message: &str) {
    assert!(!message.contains('\n'), "an error of more than one line: {message}");
}
