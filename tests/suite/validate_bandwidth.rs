//! Read-bandwidth plateaus (L1, L2, MALL, DRAM) against the real MI210, MI300X and RX 6900 XT
//! gpu-cache and gpu-l2-cache curves in `../shared/device-data` (prints `SKIPPED` without it);
//! see `studies/src/validate/bandwidth.rs` for the method. Known misses are listed with reasons in
//! `studies/src/validate/known.rs`; the test fails on any other miss and on a listed one that passes.

use crate::common;

use common::builtin;
use hipscope_studies::validate::bandwidth;

#[test]
fn bandwidth_plateaus_against_real_curves() {
    let Some((workloads, data)) = common::dirs("") else { return };
    let rows = bandwidth::GPUS.iter().flat_map(|(gpu, ..)| bandwidth::compare(&workloads, &data, &builtin(gpu)).unwrap_or_else(|e| panic!("{gpu}: {e}")));
    common::check_rows("bandwidth", rows);
}
