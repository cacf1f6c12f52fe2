//! `plan.json`, the plan as a sweep ran it, in its output directory: the plan, its hash, the
//! base GPU, the point count and the files the workloads read with their digests (paths
//! relative to the directory). Every shard writes the same text; the first one to start
//! writes it and the others check theirs against it, so a plan, config or workload file that
//! changed between shards is found and named before anything runs. The merge reads it.

use crate::inputs::{self, Input};
use crate::plan::Plan;
use crate::run::{Prepared, RunError};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Largest `plan.json` read (a plan of at most [`crate::plan::MAX_PLAN_BYTES`] as pretty JSON).
pub const MAX_COPY_BYTES: u64 = 64 << 20;

/// The contents of `plan.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanCopy {
    pub plan_hash: String,
    pub plan_file: String,
    /// The base GPU's name.
    pub gpu: String,
    /// SHA-256 of the base config's serde form (to say when it is what changed).
    #[serde(default)]
    pub gpu_config_sha256: Option<String>,
    pub points: u64,
    pub plan: Plan,
    /// Absent in results of versions before the inputs were recorded.
    #[serde(default)]
    pub inputs: Vec<Input>,
}

impl PlanCopy {
    /// The copy of `p` as written into `out`.
    pub fn of(p: &Prepared, out: &Path) -> PlanCopy {
        PlanCopy {
            plan_hash: p.hash.clone(),
            plan_file: p.path.display().to_string(),
            gpu: p.base.name.clone(),
            gpu_config_sha256: Some(config_digest(&p.base)),
            points: p.points.len() as u64,
            plan: p.plan.clone(),
            inputs: inputs::relative(&p.inputs, out),
        }
    }
}

fn config_digest(cfg: &hipscope_sim::gpus::GpuConfig) -> String {
    use sha2::{Digest, Sha256};
    inputs::hex(&Sha256::digest(serde_json::to_string(cfg).unwrap_or_default().as_bytes()))
}

/// `dir/plan.json`, or `None` if there is none. Unreadable or not a plan copy: an error
/// naming it.
pub fn read(dir: &Path) -> Result<Option<PlanCopy>, String> {
    let path = dir.join("plan.json");
    if !path.exists() {
        return Ok(None);
    }
    let text = hipscope_sim::spec::files::read_text(&path, MAX_COPY_BYTES)?;
    let copy: PlanCopy = serde_json::from_str(&text).map_err(|e| format!("{}: not a sweep's plan copy: {e}", path.display()))?;
    Ok(Some(copy))
}

/// Write `p`'s copy into `out`, or check that the one there is the same plan.
pub fn write(p: &Prepared, out: &Path) -> Result<(), RunError> {
    let path = out.join("plan.json");
    let io = |file: &Path, e: std::io::Error| RunError::Results { file: file.display().to_string(), message: e.to_string() };
    let copy = PlanCopy::of(p, out);
    if let Some(old) = read(out).map_err(RunError::Named)? {
        return compare(&old, &copy, p, out);
    }
    let text = serde_json::to_string_pretty(&copy).map_err(|e| RunError::Results { file: path.display().to_string(), message: e.to_string() })? + "\n";
    // Shards may start at once. Each writes its own file and links it into place, which fails
    // if another shard's copy got there first: that one is then checked against ours.
    let tmp = out.join(format!("plan.json.{}", std::process::id()));
    std::fs::write(&tmp, text).map_err(|e| io(&tmp, e))?;
    match std::fs::hard_link(&tmp, &path) {
        Ok(()) => {
            let _ = std::fs::remove_file(&tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let _ = std::fs::remove_file(&tmp);
            let old = read(out).map_err(RunError::Named)?.ok_or_else(|| io(&path, e))?;
            compare(&old, &copy, p, out)
        }
        // A file system without hard links: the last shard to start writes it (the same
        // text when the plans agree; the merge finds lines of another plan by their hash).
        Err(_) => std::fs::rename(&tmp, &path).map_err(|e| io(&path, e)),
    }
}

/// `old` (in `out`) and `new` must be the same plan; if not, say what changed, naming the
/// file where a workload's file is what changed.
fn compare(old: &PlanCopy, new: &PlanCopy, p: &Prepared, out: &Path) -> Result<(), RunError> {
    if old.plan_hash == new.plan_hash {
        return Ok(());
    }
    let at = out.join("plan.json");
    let hashes = format!("plan hash {} there, {} now", old.plan_hash, new.plan_hash);
    if let Some(m) = inputs::explain(&old.inputs, &p.inputs, out) {
        return Err(RunError::Named(m));
    }
    let same_plan = serde_json::to_value(&old.plan).ok() == serde_json::to_value(&new.plan).ok();
    let older = old.gpu_config_sha256.is_none() && old.inputs.is_empty();
    let message = if !same_plan {
        format!("{}: holds the results of another plan ({}, {hashes}); {} differs from it: use another --out", at.display(), old.plan_file, p.path.display())
    } else if older {
        format!(
            "{}: results of this plan by an earlier hipscope, whose plan hash did not cover the workloads' files ({hashes}): use another --out, or remove {} to run the plan again",
            at.display(),
            out.display()
        )
    } else if old.gpu_config_sha256 != new.gpu_config_sha256 {
        format!("{}: the base GPU config ({}) changed since these results were made ({hashes}): restore it or use another --out", at.display(), p.plan.gpu)
    } else if old.inputs.len() != new.inputs.len() || old.inputs.iter().zip(&new.inputs).any(|(a, b)| (&a.role, &a.name) != (&b.role, &b.name)) {
        let list = |v: &[Input]| v.iter().map(|i| format!("{} {}", i.role, i.name)).collect::<Vec<_>>().join(", ");
        format!("{}: the workloads read other files now ({hashes}): then {}; now {}: use another --out", at.display(), list(&old.inputs), list(&p.inputs))
    } else {
        format!("{}: holds results of another plan ({hashes}; made by another hipscope version?): use another --out", at.display())
    };
    Err(RunError::Named(message))
}
