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
use hipscope_sim::spec::{self, model::OrderedMap, run_file, RunOptions};
use std::path::Path;

#[test]
fn a_work_group_sees_its_own_stores_and_atomics_on_every_gpu() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/spin_wg.ron");
    let mut failures = Vec::new();
    for gpu in gpus::builtin_names() {
        for timing in [false, true] {
            let opts = RunOptions { gpu: Some(gpu.to_string()), timing, ..RunOptions::default() };
            let mode = if timing { "timing" } else { "functional" };
            match run_file(&spec, &opts) {
                Ok(r) => {
                    for c in &r.checks {
                        println!("{gpu:<10} {mode:<10} {:<14} {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
                        if !c.ok {
                            failures.push(format!("{gpu} {mode} {}: {}", c.buffer, c.detail));
                        }
                    }
                }
                Err(e) => failures.push(format!("{gpu} {mode}: {e}")),
            }
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
    for (gpu, dir) in [("mi210", "gfx90a-tgsplit"), ("mi250x", "gfx90a-tgsplit"), ("mi300x", "gfx942-tgsplit"), ("mi300a", "gfx942-tgsplit")] {
        let mut s = spec::load(&path).expect("workloads/spin_wg.ron loads");
        s.code_objects = OrderedMap(vec![(dir.to_string(), format!("bin/{dir}/spin_wg.co"))]);
        let opts = RunOptions { gpu: Some(gpu.to_string()), timing: true, ..RunOptions::default() };
        match spec::run(&s, &path, &opts) {
            Ok(r) => {
                for c in &r.checks {
                    println!("{gpu:<10} {dir:<16} {:<14} {} ({})", c.buffer, if c.ok { "ok" } else { "FAIL" }, c.detail);
                    if !c.ok {
                        failures.push(format!("{gpu} {dir} {}: {}", c.buffer, c.detail));
                    }
                }
            }
            Err(e) => failures.push(format!("{gpu} {dir}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
