//! Launch specs for the external code objects (`../shared/external-code-objects`: MGPUSim's
//! gfx803 COv2 and gfx942 COv6 ET_REL kernels), checked against CPU references written from the
//! upstream kernel sources and checks (see `tests/external/*.ron` and
//! `studies/src/references/external.rs`). Failures must be listed in
//! `tests/external/known-failures.txt`. Prints `SKIPPED:` when ../shared is absent.

use crate::spec_harness;

use spec_harness::{report, run_spec, specs_in};
use std::collections::BTreeMap;
use std::path::Path;

#[test]
fn external_objects_match_cpu_references() {
    run_all(false);
}

/// The same in timing mode (the memory system serves the data).
#[test]
fn external_objects_match_cpu_references_in_timing_mode() {
    run_all(true);
}

fn run_all(timing: bool) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../shared/external-code-objects/sarchlab/mgpusim");
    if !shared.is_dir() {
        println!("SKIPPED: {} not found (the external code objects live outside the repository)", shared.display());
        return;
    }
    let dir = root.join("tests/external");
    let specs = specs_in(&dir);
    assert_eq!(specs.len(), 10, "expected 10 external specs in tests/external");
    let mut results = BTreeMap::new();
    let mut configs = Vec::new();
    for s in &specs {
        run_spec(s, timing, &mut results, &mut configs);
    }
    let title =
        if timing { "external specs (tests/external/*.ron) × code objects, timing mode:" } else { "external specs (tests/external/*.ron) × code objects:" };
    report(title, &results, &configs, &dir.join("known-failures.txt"));
}
