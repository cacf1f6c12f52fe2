//! Pointer-chase latency plateaus and steps against the real MI210, MI300X and RX 6900 XT
//! curves in `../shared/device-data` (prints `SKIPPED` without it); see
//! `sim/src/validate/latency.rs` for the method. Known misses are listed with reasons in
//! `sim/src/validate/known.rs`; the test fails on any other miss and on a listed one that passes.

use hipscope_sim::validate::known::{judge, Verdict};
use hipscope_sim::validate::latency;
use std::path::Path;

#[test]
fn latency_plateaus_and_steps_against_real_curves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.is_dir() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let workloads = root.join("workloads");
    let mut unexpected = Vec::new();
    for (gpu, ..) in latency::GPUS {
        let rows = latency::compare(&workloads, &data, gpu).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        for r in rows {
            let verdict = judge("latency", &r);
            println!("{:<9} {:<14} {:<40} measured {:>8.1} simulated {:>8.1} {:>7.1} %  {}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match verdict {
                Verdict::Miss => unexpected.push(format!("{} {} {}: measured {:.1} simulated {:.1}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                Verdict::FixedKnownMiss(_) => unexpected.push(format!("{} {} now passes: remove it from KNOWN_MISSES (sim/src/validate/known.rs)", r.gpu, r.case)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
