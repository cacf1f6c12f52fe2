//! Waves of one work-group waiting for each other through global memory
//! (`workloads/spin_wg.ron`, kernels in `workloads/src/spin_wg.hip`): a plain store polled with
//! work-group-scope acquire loads, a plain store polled with read-modify-writes, and an atomic
//! add polled with acquire loads after a plain initialising store. The waves share a CU (or,
//! in WGP mode, a workgroup processor and its GL1), so the hardware shows every publication
//! within a few polls; the spec's reference requires every polling lane to see it. Run on all
//! nine built-in GPUs in both modes: on MI300 an atomic performed past the L2s once missed
//! the plain store its own L2 held (and left the L2's copy stale), and on RDNA an atomic left
//! the shader array's GL1 copy stale, so the pollers timed out.

use hipscope_sim::gpus;
use hipscope_sim::spec::{self, model::OrderedMap, RunOptions};
use hipscope_studies::references::BUILT_IN;
use std::path::Path;

/// Run `s` on `gpu`; print every check and collect the failures under `label`.
fn run_checked(s: &spec::Spec, path: &Path, gpu: &str, timing: bool, label: &str, failures: &mut Vec<String>) {
    let opts = RunOptions { gpu: Some(gpu.to_string()), mode: hipscope_sim::Mode::with_timing(timing), references: Some(BUILT_IN), ..RunOptions::default() };
    match spec::run(s, path, &opts) {
        Ok(r) => {
            for c in &r.checks {
                println!("{gpu:<10} {label:<16} {:<14} {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
                if !c.ok {
                    failures.push(format!("{gpu} {label} {}: {}", c.buffer, c.detail));
                }
            }
        }
        Err(e) => failures.push(format!("{gpu} {label}: {e}")),
    }
}

#[test]
fn a_work_group_sees_its_own_stores_and_atomics_on_every_gpu() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/spin_wg.ron");
    let s = spec::load(&path).expect("workloads/spin_wg.ron loads");
    let mut failures = Vec::new();
    for gpu in gpus::builtin_names() {
        for timing in [false, true] {
            run_checked(&s, &path, gpu, timing, if timing { "timing" } else { "functional" }, &mut failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The same kernels built in tgsplit mode (gfx90a, gfx942), whose work-groups spread over
/// several CUs: the pollers' work-group-scope acquires then bypass and invalidate the L1 (the
/// tgsplit lowering), so they still see the publication made on another CU.
#[test]
fn a_tgsplit_work_group_spread_over_cus_sees_its_own_stores() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/spin_wg.ron");
    let mut failures = Vec::new();
    for (gpu, dir) in
        [("mi210", "gfx90a-tgsplit"), ("mi250x", "gfx90a-tgsplit"), ("mi300x", "gfx942-tgsplit"), ("mi300a", "gfx942-tgsplit"), ("mi355x", "gfx950-tgsplit")]
    {
        let mut s = spec::load(&path).expect("workloads/spin_wg.ron loads");
        s.code_objects = OrderedMap(vec![(dir.to_string(), format!("bin/{dir}/spin_wg.co"))]);
        run_checked(&s, &path, gpu, true, dir, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
