//! vcopy against the real MI100, MI210, MI300A and MI300X profiles in
//! `../shared/device-data` (prints `SKIPPED` without it). Prints measured vs simulated for
//! every compared figure. Figures the model does not reach yet are listed with the reason in
//! `studies/src/validate/known.rs` (and reports/calibration.md); the test fails on any other miss
//! and on a listed one that starts to pass, so the list only shrinks.

use crate::common;

use common::builtin;
use hipscope_studies::validate::vcopy;

#[test]
fn vcopy_counters_and_durations_against_real_profiles() {
    let Some((workloads, data)) = common::dirs("derived/vcopy_counters_summary.csv") else { return };
    let mut rows = Vec::new();
    for (gpu, _) in vcopy::GPUS {
        let r = vcopy::compare(&workloads, &data, &builtin(gpu)).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert!(r.len() >= 14, "{gpu}: expected at least 14 compared figures, got {}", r.len());
        rows.extend(r);
    }
    common::check_rows("vcopy", rows);
}
