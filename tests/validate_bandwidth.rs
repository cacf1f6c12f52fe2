//! Read-bandwidth plateaus (L1, L2, MALL, DRAM) against the real MI210, MI300X and RX 6900 XT
//! gpu-cache and gpu-l2-cache curves in `../shared/device-data` (prints `SKIPPED` without it); see
//! `sim/src/validate/bandwidth.rs` for the method. Known misses are listed with reasons in
//! `sim/src/validate/known.rs`; the test fails on any other miss and on a listed one that passes.

use hipscope_sim::validate::known::{judge, Verdict};
use hipscope_sim::validate::bandwidth;
use std::path::Path;

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
        let rows = bandwidth::compare(&workloads, &data, gpu).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for r in rows {
            let verdict = judge("bandwidth", &r);
            println!("{:<9} {:<14} {:<24} measured {:>8.0} simulated {:>8.0} {:>7.1} %  {}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match verdict {
                Verdict::Miss => unexpected.push(format!("{} {} {}: measured {:.1} simulated {:.1}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                Verdict::FixedKnownMiss(_) => unexpected.push(format!("{} {} now passes: remove it from KNOWN_MISSES (sim/src/validate/known.rs)", r.gpu, r.case)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
