//! Readers for the measurement tables under `../shared/device-data`.

use std::collections::BTreeMap;
use std::path::Path;

/// Why a table could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {what}")]
pub struct DataError {
    pub file: String,
    pub what: String,
}

/// `derived/vcopy_counters_summary.csv`: (gpu, dispatch class, counter) → median over the
/// repeat profiles.
pub fn vcopy_counter_medians(root: &Path) -> Result<BTreeMap<(String, String, String), f64>, DataError> {
    let path = root.join("derived/vcopy_counters_summary.csv");
    let err = |what: String| DataError { file: path.display().to_string(), what };
    let mut r = csv::Reader::from_path(&path).map_err(|e| err(e.to_string()))?;
    let headers = r.headers().map_err(|e| err(e.to_string()))?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name).ok_or_else(|| err(format!("no column '{name}'")));
    let (g, c, k, m) = (col("gpu")?, col("dispatch_class")?, col("counter")?, col("median")?);
    let mut out = BTreeMap::new();
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| err(e.to_string()))?;
        let field = |j: usize| rec.get(j).unwrap_or("");
        let v: f64 = field(m).parse().map_err(|_| err(format!("row {}: median '{}' is not a number", i + 2, field(m))))?;
        out.insert((field(g).to_string(), field(c).to_string(), field(k).to_string()), v);
    }
    Ok(out)
}

/// `derived/vcopy_durations_summary.csv`: (gpu, dispatch class) → median duration in ns.
pub fn vcopy_duration_medians(root: &Path) -> Result<BTreeMap<(String, String), f64>, DataError> {
    let path = root.join("derived/vcopy_durations_summary.csv");
    let err = |what: String| DataError { file: path.display().to_string(), what };
    let mut r = csv::Reader::from_path(&path).map_err(|e| err(e.to_string()))?;
    let headers = r.headers().map_err(|e| err(e.to_string()))?.clone();
    let find = |names: &[&str]| headers.iter().position(|h| names.contains(&h));
    let g = find(&["gpu", "gpu_dir"]).ok_or_else(|| err("no gpu column".into()))?;
    let c = find(&["dispatch_class", "class"]).ok_or_else(|| err("no dispatch class column".into()))?;
    let m = find(&["median_ns", "median"]).ok_or_else(|| err("no median column".into()))?;
    let mut out = BTreeMap::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| err(e.to_string()))?;
        if let Ok(v) = rec.get(m).unwrap_or("").parse::<f64>() {
            out.insert((rec.get(g).unwrap_or("").to_string(), rec.get(c).unwrap_or("").to_string()), v);
        }
    }
    Ok(out)
}
