//! Work-group launch rate against the real MI210's gpu-small-kernels bandwidths in
//! `../shared/device-data` (prints `SKIPPED` without it); see
//! `studies/src/validate/launch_rate.rs` for the method. A GPU that starts one work-group a
//! cycle at 1.7 GHz would run the 16-item column 92 % and the 64-item one 44 % too fast.

use crate::common;

use common::builtin;
use hipscope_studies::validate::launch_rate;

#[test]
fn launch_rate_against_real_small_kernels() {
    let Some((workloads, data)) = common::dirs("") else { return };
    let rows = launch_rate::GPUS.iter().flat_map(|(gpu, ..)| launch_rate::compare(&workloads, &data, &builtin(gpu)).unwrap_or_else(|e| panic!("{gpu}: {e}")));
    common::check_rows("launch-rate", rows);
}
