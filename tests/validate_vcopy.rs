//! vcopy against the real MI100, MI210, MI300A and MI300X profiles in
//! `../shared/device-data` (prints `SKIPPED` without it). Prints measured vs simulated for
//! every compared figure. Figures the model does not reach yet are listed with the reason in
//! `sim/src/validate/known.rs` (and reports/calibration.md); the test fails on any other miss
//! and on a listed one that starts to pass, so the list only shrinks.

use hipscope_sim::validate::known::{judge, Verdict};
use hipscope_sim::validate::vcopy;
use std::path::Path;

#[test]
fn vcopy_counters_and_durations_against_real_profiles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.join("derived/vcopy_counters_summary.csv").is_file() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let workloads = root.join("workloads");
    let mut unexpected = Vec::new();
    println!("{:<7} {:<6} {:<30} {:>12} {:>12} {:>8}  ok", "gpu", "case", "metric", "measured", "simulated", "err %");
    for (gpu, _) in vcopy::GPUS {
        let rows = vcopy::compare(&workloads, &data, gpu).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert!(rows.len() >= 14, "{gpu}: expected at least 14 compared figures, got {}", rows.len());
        for r in rows {
            let verdict = judge("vcopy", &r);
            let known = match verdict {
                Verdict::KnownMiss(k) | Verdict::FixedKnownMiss(k) => format!(" (known: {})", k.reason),
                _ => String::new(),
            };
            println!("{:<7} {:<6} {:<30} {:>12.0} {:>12.0} {:>8.2}  {}{known}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match verdict {
                Verdict::Miss => unexpected.push(format!("{} {} {}: measured {} simulated {}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                Verdict::FixedKnownMiss(_) => unexpected.push(format!("{} {} {} now passes: remove it from KNOWN_MISSES (sim/src/validate/known.rs)", r.gpu, r.case, r.metric)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
