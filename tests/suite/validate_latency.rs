//! Pointer-chase latency plateaus and steps against the real MI210, MI300X and RX 6900 XT
//! curves in `../shared/device-data` (prints `SKIPPED` without it); see
//! `studies/src/validate/latency.rs` for the method. Known misses are listed with reasons in
//! `studies/src/validate/known.rs`; the test fails on any other miss and on a listed one that passes.

use crate::common;

use common::builtin;
use hipscope_studies::validate::latency;

#[test]
fn latency_plateaus_and_steps_against_real_curves() {
    let Some((workloads, data)) = common::dirs("") else { return };
    let rows = latency::GPUS.iter().flat_map(|(gpu, ..)| latency::compare(&workloads, &data, &builtin(gpu)).unwrap_or_else(|e| panic!("{gpu}: {e}")));
    common::check_rows("latency", rows);
}
