//! Merging a sweep's shards: every shard and every point present exactly once, all from one
//! plan; then `results.csv`, `results.json` and the plots.
//!
//! The merged files leave out which shard ran a point, so a sweep run as one process and the
//! same sweep run as shards merge to the same bytes.

use crate::plan::Plan;
use crate::record::Record;
use crate::run::Shard;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Why shards cannot be merged: one line naming the shard or file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct MergeError(pub String);

/// A merged sweep.
#[derive(Debug, Clone)]
pub struct Merged {
    pub plan: Plan,
    pub plan_hash: String,
    pub gpu: String,
    /// Every point's record, by point index.
    pub records: Vec<Record>,
    pub shards: usize,
}

/// The shard files in `dir`: (index, count, path), sorted.
fn shard_files(dir: &Path) -> Result<Vec<(usize, usize, PathBuf)>, MergeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| MergeError(format!("{}: {e}", dir.display())))?;
    let mut found = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("shard-") && name.ends_with(".jsonl")) {
            continue;
        }
        let Some(s) = Shard::of_file_name(&name) else { return Err(MergeError(format!("{}: not a shard file name (shard-I-of-N.jsonl)", e.path().display()))) };
        found.push((s.index, s.count, e.path()));
    }
    found.sort();
    Ok(found)
}

/// Read and check every shard in `dir`.
pub fn merge(dir: &Path) -> Result<Merged, MergeError> {
    let copy = crate::copy::read(dir)
        .map_err(MergeError)?
        .ok_or_else(|| MergeError(format!("{}: not found (is {} a sweep's output directory?)", dir.join("plan.json").display(), dir.display())))?;
    // The copy is a file like any other: its plan is checked as a plan file is, and its point
    // count must be the plan's.
    let bad_copy = |e: String| MergeError(format!("{}: plan: {e}", dir.join("plan.json").display()));
    crate::validate::check(&copy.plan).map_err(bad_copy)?;
    let total = crate::points::count(&copy.plan).map_err(bad_copy)?;
    if total != copy.points {
        return Err(MergeError(format!("{}: says {} points, but its plan has {total}", dir.join("plan.json").display(), copy.points)));
    }
    let total = total as usize;
    // A workload file edited since the shards ran: their results are not this file's.
    crate::inputs::verify(&copy.inputs, dir).map_err(MergeError)?;
    let hash = copy.plan_hash.clone();
    let files = shard_files(dir)?;
    let Some(&(_, count, _)) = files.first() else { return Err(MergeError(format!("{}: no shard files (shard-I-of-N.jsonl)", dir.display()))) };
    if let Some((_, n, f)) = files.iter().find(|(_, n, _)| *n != count) {
        return Err(MergeError(format!("{}: a shard of {n}, but {} has shards of {count}: results of two shardings are mixed", f.display(), dir.display())));
    }
    // Checked before anything loops over the shards: the count is part of a file name.
    if count == 0 || count > total.max(1) {
        return Err(MergeError(format!("{}: shards of {count}, but the plan has {total} points (at most one shard per point)", dir.display())));
    }
    if let Some((i, _, f)) = files.iter().find(|(i, _, _)| *i >= count) {
        return Err(MergeError(format!("{}: shard {i} of {count} does not exist (0 <= I < N)", f.display())));
    }
    for i in 0..count {
        if !files.iter().any(|(j, _, _)| *j == i) {
            return Err(MergeError(format!("shard {i}/{count} is missing ({} not found)", Shard { index: i, count }.file(dir).display())));
        }
    }
    let mut by_point: BTreeMap<usize, (Record, PathBuf)> = BTreeMap::new();
    for (i, _, file) in &files {
        // A line without its newline was cut short by an interruption: its point is missing.
        let shard = crate::record::read_shard(file).map_err(MergeError)?.unwrap_or_default();
        for (n, r) in shard.records {
            let at = || format!("{}:{n}", file.display());
            if r.plan_hash != hash {
                return Err(MergeError(format!("{}: plan hash {} is not the plan's {hash} (results of another plan)", at(), r.plan_hash)));
            }
            if r.point >= total || r.point % count != *i {
                return Err(MergeError(format!("{}: point {} does not belong to shard {i}/{count} of {total} points", at(), r.point)));
            }
            if let Some((_, other)) = by_point.get(&r.point) {
                return Err(MergeError(format!("{}: point {} again (also in {})", at(), r.point, other.display())));
            }
            by_point.insert(r.point, (r, file.clone()));
        }
    }
    for i in 0..count {
        let missing: Vec<String> = (i..total).step_by(count).filter(|p| !by_point.contains_key(p)).map(|p| p.to_string()).collect();
        if !missing.is_empty() {
            let shown: Vec<&str> = missing.iter().take(10).map(String::as_str).collect();
            return Err(MergeError(format!(
                "shard {i}/{count} ({}): {} point(s) missing ({}{}): the shard did not finish; run it again to resume",
                Shard { index: i, count }.file(dir).display(),
                missing.len(),
                shown.join(", "),
                if missing.len() > 10 { ", …" } else { "" }
            )));
        }
    }
    let records = by_point.into_values().map(|(r, _)| r).collect();
    Ok(Merged { plan: copy.plan, plan_hash: hash, gpu: copy.gpu, records, shards: count })
}

impl Merged {
    /// The config fields the points set, in axis order.
    pub fn fields(&self) -> Vec<String> {
        let mut fields: Vec<String> = Vec::new();
        for r in &self.records {
            for (f, _) in &r.params {
                if !fields.contains(f) {
                    fields.push(f.clone());
                }
            }
        }
        fields
    }

    /// The plan's metrics by the names results carry them under.
    pub fn metric_names(&self) -> Vec<String> {
        self.plan.metrics.iter().map(|m| crate::metrics::Metric::parse(m).map_or_else(|_| m.clone(), |x| x.to_string())).collect()
    }

    /// `results.json`: the plan's hash and GPU, and every point (shards left out).
    pub fn json(&self) -> String {
        let points: Vec<serde_json::Value> = self
            .records
            .iter()
            .map(|r| {
                let params: serde_json::Map<String, serde_json::Value> = r.params.iter().map(|(f, v)| (f.clone(), v.to_json())).collect();
                let mut point = serde_json::json!({
                    "point": r.point, "workload": r.workload, "seed": r.seed, "base": r.base,
                    "params": params, "metrics": r.metrics, "error": r.error, "hipscope": r.hipscope,
                });
                // Sampled metrics are estimates: the point says so, with the estimated error.
                if let Some(s) = &r.sampled {
                    point["sampled"] = serde_json::json!(s);
                    point["sampled"]["summary"] = serde_json::json!(s.label());
                }
                point
            })
            .collect();
        let doc = serde_json::json!({ "plan_hash": self.plan_hash, "gpu": self.gpu, "points": points });
        serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
    }

    /// `results.csv`: a row per point; a column per config field set and per metric.
    pub fn csv(&self) -> Result<String, MergeError> {
        let fields = self.fields();
        let metrics = self.metric_names();
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut head = vec!["point".to_string(), "workload".into(), "seed".into(), "base".into()];
        head.extend(fields.iter().cloned());
        head.extend(metrics.iter().cloned());
        head.push("error".into());
        let sampled = self.records.iter().any(|r| r.sampled.is_some());
        if sampled {
            head.extend(["sampled".to_string(), "sample_error_percent".into()]);
        }
        w.write_record(&head).map_err(|e| MergeError(e.to_string()))?;
        for r in &self.records {
            let mut row = vec![r.point.to_string(), r.workload.clone(), r.seed.to_string(), r.base.to_string()];
            for f in &fields {
                row.push(r.params.iter().find(|(g, _)| g == f).map_or_else(String::new, |(_, v)| plain(&v.to_json())));
            }
            for m in &metrics {
                row.push(r.metrics.get(m).map_or_else(String::new, plain));
            }
            row.push(r.error.clone().unwrap_or_default());
            if sampled {
                row.push(r.sampled.as_ref().map_or_else(String::new, |s| s.label()));
                row.push(r.sampled.as_ref().map_or_else(String::new, |s| format!("{:.4}", s.estimated_error_percent)));
            }
            w.write_record(&row).map_err(|e| MergeError(e.to_string()))?;
        }
        let bytes = w.into_inner().map_err(|e| MergeError(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| MergeError(e.to_string()))
    }

    /// Points run sampled, and the largest estimated error among them (%), or `None` when no
    /// point was sampled.
    pub fn sampled(&self) -> Option<(usize, f64)> {
        let errors: Vec<f64> = self.records.iter().filter_map(|r| r.sampled.as_ref()).map(|s| s.estimated_error_percent).collect();
        (!errors.is_empty()).then(|| (errors.len(), errors.iter().copied().fold(0.0, f64::max)))
    }

    /// Write `results.csv`, `results.json` and the plots into `dir`; returns the files written.
    pub fn write(&self, dir: &Path) -> Result<Vec<PathBuf>, MergeError> {
        let put = |name: &str, text: String| -> Result<PathBuf, MergeError> {
            let p = dir.join(name);
            std::fs::write(&p, text).map_err(|e| MergeError(format!("{}: {e}", p.display())))?;
            Ok(p)
        };
        let mut out = vec![put("results.csv", self.csv()?)?, put("results.json", self.json())?];
        out.extend(crate::plot::all(self, &dir.join("plots")).map_err(MergeError)?);
        Ok(out)
    }
}

/// A JSON value as a CSV cell.
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
