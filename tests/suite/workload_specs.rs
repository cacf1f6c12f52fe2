//! Every launch spec in `workloads/` on every code object it lists (18 configs), each on the
//! built-in GPU of the object's processor, checked against the CPU references. Failures must be
//! listed with a reason in `tests/workload-known-failures.txt` (which shrinks as instruction
//! semantics land); run with `--nocapture` for the spec × config table. The same runs in timing
//! mode (caches holding data, per-XCD L2s) must give the same checked results.

use crate::spec_harness;

use spec_harness::{report, run_spec, specs_in};
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn every_workload_spec_on_every_config() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let specs = specs_in(&root.join("workloads"));
    assert!(specs.len() >= 12, "expected the workload specs in workloads/*.ron, found {}", specs.len());
    let mut results = BTreeMap::new();
    let mut configs = Vec::new();
    for s in &specs {
        run_spec(s, false, &mut results, &mut configs);
    }
    report("workload specs (workloads/*.ron) × code objects:", &results, &configs, &root.join("tests/workload-known-failures.txt"));
}

#[test]
fn every_workload_spec_on_every_config_in_timing_mode() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let specs = specs_in(&root.join("workloads"));
    assert!(specs.len() >= 12, "expected the workload specs in workloads/*.ron, found {}", specs.len());
    let mut results = BTreeMap::new();
    let mut configs = Vec::new();
    for s in &specs {
        run_spec(s, true, &mut results, &mut configs);
    }
    report("workload specs (workloads/*.ron) × code objects, timing mode:", &results, &configs, &root.join("tests/workload-known-failures.txt"));
}
