//! Read-bandwidth plateaus (L1, L2, MALL, DRAM) against the real MI210, MI300X and RX 6900 XT
//! gpu-cache / gpu-l2-cache curves in `../shared/device-data` (prints `SKIPPED` without it); see
//! `sim/src/validate/bandwidth.rs` for the method. Known misses are listed with reasons; the
//! test fails on any other miss and on a listed one that passes.

use hipscope_sim::validate::bandwidth;
use std::path::Path;

/// (gpu, case, reason).
const KNOWN_MISSES: &[(&str, &str, &str)] = &[];

/// Elements per work-item in the slice kernels: fewer than the benchmark's 32 keeps the test
/// quick; the bandwidth is a difference of two dispatches, so it barely depends on it.
const PER_ITEM: u64 = 8;

#[test]
fn bandwidth_plateaus_against_real_curves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.is_dir() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let workloads = root.join("workloads");
    let mut unexpected = Vec::new();
    for (gpu, ..) in bandwidth::GPUS {
        let rows = bandwidth::compare(&workloads, &data, gpu, PER_ITEM).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for r in rows {
            let known = KNOWN_MISSES.iter().find(|k| k.0 == r.gpu && k.1 == r.case);
            println!("{:<9} {:<14} {:<24} measured {:>9.0} simulated {:>9.0} {:>7.1} %  {}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match (r.ok(), known.is_some()) {
                (false, false) => unexpected.push(format!("{} {} {}: measured {:.0} simulated {:.0}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                (true, true) => unexpected.push(format!("{} {} now passes: remove it from KNOWN_MISSES", r.gpu, r.case)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
