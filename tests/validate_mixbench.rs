//! mixbench-ro float sweep against the real MI100 and MI210 durations in
//! `../shared/device-data/derived/mixbench_ro_summary.csv` (prints `SKIPPED` without it); see
//! `sim/src/validate/mixbench.rs` for the method. A subset of the compute-intensity points keeps
//! the test quick (`hipscope validate --only mixbench` runs all 33); their duration MAPE must
//! stay under 15 % unless listed in `sim/src/validate/known.rs`.

use hipscope_sim::validate::known::{judge, Verdict};
use hipscope_sim::validate::mixbench;
use std::path::Path;

/// Memory-bound, the knee, and compute-bound points.
const POINTS: &[u32] = &[0, 8, 24, 40, 64, 96, 128];

#[test]
fn mixbench_duration_mape_against_real_sweeps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = root.join("../shared/device-data");
    if !data.is_dir() {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", data.display());
        return;
    }
    let workloads = root.join("workloads");
    let mut unexpected = Vec::new();
    for (gpu, _) in mixbench::GPUS {
        let rows = mixbench::compare_points(&workloads, &data, gpu, Some(POINTS)).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert_eq!(rows.len(), POINTS.len() + 1, "{gpu}: every point has a measurement, plus the MAPE row");
        for r in rows {
            println!("{:<7} {:<10} {:<26} measured {:>10.0} simulated {:>10.0} {:>7.1} %  {}", r.gpu, r.case, r.metric, r.measured, r.simulated, r.error_percent(), if r.ok() { "ok" } else { "MISS" });
            match judge("mixbench", &r) {
                Verdict::Miss => unexpected.push(format!("{} {} {}: measured {:.1} simulated {:.1}", r.gpu, r.case, r.metric, r.measured, r.simulated)),
                Verdict::FixedKnownMiss(_) => unexpected.push(format!("{} {} now passes: remove it from KNOWN_MISSES (sim/src/validate/known.rs)", r.gpu, r.case)),
                _ => {}
            }
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
