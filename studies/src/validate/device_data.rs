//! Readers for the derived summary tables under `../shared/device-data/derived/` (medians over
//! the repeat profiles, computed when the data was collected).

use super::import::table::Table;
pub use super::import::DataError;
use std::collections::BTreeMap;
use std::path::Path;

/// `derived/vcopy_counters_summary.csv`: (gpu, dispatch class, counter) → median over the
/// repeat profiles.
pub fn vcopy_counter_medians(root: &Path) -> Result<BTreeMap<(String, String, String), f64>, DataError> {
    let t = Table::read(&root.join("derived/vcopy_counters_summary.csv"))?;
    let (g, c, k, m) = (t.require(&["gpu"])?, t.require(&["dispatch_class"])?, t.require(&["counter"])?, t.require(&["median"])?);
    let mut out = BTreeMap::new();
    for (line, row) in &t.rows {
        let v = t.number(*line, row, m)?;
        out.insert((Table::get(row, g).to_string(), Table::get(row, c).to_string(), Table::get(row, k).to_string()), v);
    }
    Ok(out)
}

/// `derived/vcopy_durations_summary.csv`: (gpu, dispatch class) → median duration in ns. Rows
/// without a median (classes with no dispatches) are left out.
pub fn vcopy_duration_medians(root: &Path) -> Result<BTreeMap<(String, String), f64>, DataError> {
    let t = Table::read(&root.join("derived/vcopy_durations_summary.csv"))?;
    let g = t.require(&["gpu", "gpu_dir"])?;
    let c = t.require(&["dispatch_class", "class"])?;
    let m = t.require(&["median_ns", "median"])?;
    let mut out = BTreeMap::new();
    for (line, row) in &t.rows {
        if let Some(v) = t.optional_number(*line, row, Some(m))? {
            out.insert((Table::get(row, g).to_string(), Table::get(row, c).to_string()), v);
        }
    }
    Ok(out)
}
