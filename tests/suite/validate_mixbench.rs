//! mixbench-ro float sweep against the real MI100 and MI210 durations in
//! `../shared/device-data/derived/mixbench_ro_summary.csv` (prints `SKIPPED` without it); see
//! `studies/src/validate/mixbench.rs` for the method. A subset of the compute-intensity points keeps
//! the test quick (`hipscope validate --only mixbench` runs all 33); their duration MAPE must
//! stay under 15 % unless listed in `studies/src/validate/known.rs`.

use crate::common;

use common::builtin;
use hipscope_studies::validate::mixbench;

/// Memory-bound, the knee, and compute-bound points.
const POINTS: &[u32] = &[0, 8, 24, 40, 64, 96, 128];

#[test]
fn mixbench_duration_mape_against_real_sweeps() {
    let Some((workloads, data)) = common::dirs("derived/mixbench_ro_summary.csv") else { return };
    let mut rows = Vec::new();
    for (gpu, _) in mixbench::GPUS {
        let r = mixbench::compare_points(&workloads, &data, &builtin(gpu), Some(POINTS)).unwrap_or_else(|e| panic!("{gpu}: {e}"));
        assert_eq!(r.len(), POINTS.len() + 1, "{gpu}: every point has a measurement, plus the MAPE row");
        rows.extend(r);
    }
    common::check_rows("mixbench", rows);
}
