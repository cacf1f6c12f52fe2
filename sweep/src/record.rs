//! One result line per point, as the shards write them (JSON Lines) and the merge reads them.

use crate::plan::{Plan, Value};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A point's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The plan (and base config) that made the point ([`plan_hash`]).
    pub plan_hash: String,
    pub point: usize,
    /// Points in the whole plan.
    pub points: usize,
    /// The shard that ran it: (index, count).
    pub shard: (usize, usize),
    pub workload: String,
    pub seed: u64,
    pub base: bool,
    /// (config field, value) this point sets.
    pub params: Vec<(String, Value)>,
    /// Metric → value (`null`: not one of this workload's metrics, or not measured).
    pub metrics: BTreeMap<String, serde_json::Value>,
    /// Why the point has no metrics (bad input for this config, or a kernel fault).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default)]
    pub fault: bool,
    /// Sampled timing's account when the point ran sampled: its times are estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Sampling>,
    /// The hipscope version that ran it.
    pub hipscope: String,
}

/// What sampled timing did in a point's run ([`hipscope_sim::sample`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// The policy the point ran with (`on`, `kernels`, `work-groups`).
    pub policy: String,
    /// Kernel launches, and those predicted from like launches instead of simulated.
    pub launches: u64,
    pub predicted: u64,
    /// Launches part of whose work-groups were fast-forwarded and their time extrapolated.
    pub work_group_sampled: u64,
    /// Estimated error of the point's summed time, in percent: the kernel level's estimate
    /// plus each work-group-sampled launch's estimate weighted by its share of the time.
    pub estimated_error_percent: f64,
}

impl Sampling {
    /// One cell or legend entry: `sampled (kernels): 12 of 40 launches predicted, 0
    /// work-group-sampled, estimated error ±0.40 %`.
    pub fn label(&self) -> String {
        format!(
            "sampled ({}): {} of {} launches predicted, {} work-group-sampled, estimated error ±{:.2} %",
            self.policy, self.predicted, self.launches, self.work_group_sampled, self.estimated_error_percent
        )
    }
}

/// The hash every result line carries: of the plan as parsed, of the base GPU config and of
/// the files the workloads read ([`crate::inputs`]), so results of an edited plan, config,
/// launch spec, code object or litmus test are never merged with older ones. Hex, 16 digits.
pub fn plan_hash(plan: &Plan, base: &hipscope_sim::gpus::GpuConfig, inputs: &[crate::inputs::Input]) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_string(plan).unwrap_or_default().as_bytes());
    h.update(b"\n");
    h.update(serde_json::to_string(base).unwrap_or_default().as_bytes());
    h.update(b"\n");
    h.update(crate::inputs::hash_text(inputs).as_bytes());
    crate::inputs::hex(&h.finalize()[..8])
}

/// Longest error kept in a result line (a spec error quoting a long expression is cut here;
/// the line stays far below [`MAX_LINE_BYTES`]).
pub const MAX_ERROR_CHARS: usize = 2000;

/// `message`, cut to [`MAX_ERROR_CHARS`].
pub fn error_text(message: String) -> String {
    if message.chars().count() <= MAX_ERROR_CHARS {
        return message;
    }
    let mut cut: String = message.chars().take(MAX_ERROR_CHARS).collect();
    cut.push_str(" …");
    cut
}

/// Largest results file of a shard read: [`crate::points::MAX_POINTS`] lines of a few
/// kilobytes at most.
pub const MAX_SHARD_BYTES: u64 = 1 << 30;
/// Longest result line read.
pub const MAX_LINE_BYTES: u64 = 1 << 20;

/// A shard's results file as read.
#[derive(Debug, Default)]
pub struct ShardFile {
    /// (line number from 1, record), in file order.
    pub records: Vec<(usize, Record)>,
    /// Bytes up to and including the last newline; anything after it is a line an
    /// interruption cut short.
    pub whole_bytes: u64,
    pub total_bytes: u64,
}

/// Read the shard results at `path` (`None`: there is no such file). Every whole line must be
/// a UTF-8 JSON result line; one that is not is an error naming the file and line, never
/// taken for "no results".
pub fn read_shard(path: &Path) -> Result<Option<ShardFile>, String> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: cannot read: {e}", path.display())),
    };
    let meta = file.metadata().map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > MAX_SHARD_BYTES {
        return Err(format!("{}: {} bytes; a shard's results are at most {MAX_SHARD_BYTES}", path.display(), meta.len()));
    }
    let mut reader = BufReader::new(file);
    let mut out = ShardFile::default();
    let mut buf = Vec::new();
    for n in 1.. {
        buf.clear();
        let read = (&mut reader).take(MAX_LINE_BYTES + 1).read_until(b'\n', &mut buf).map_err(|e| format!("{}:{n}: cannot read: {e}", path.display()))?;
        if read == 0 {
            break;
        }
        out.total_bytes += read as u64;
        if buf.last() != Some(&b'\n') {
            if read as u64 > MAX_LINE_BYTES {
                return Err(format!("{}:{n}: a line of more than {MAX_LINE_BYTES} bytes (not a result line)", path.display()));
            }
            // The last line, cut short by an interruption: its point did not finish.
            continue;
        }
        out.whole_bytes = out.total_bytes;
        let line = std::str::from_utf8(&buf[..buf.len() - 1])
            .map_err(|e| format!("{}:{n}: not UTF-8 (byte {} of the line): not a result line", path.display(), e.valid_up_to() + 1))?;
        let r: Record = serde_json::from_str(line).map_err(|e| format!("{}:{n}: not a result line: {e}", path.display()))?;
        out.records.push((n, r));
    }
    Ok(Some(out))
}

/// The version recorded with results.
pub fn version() -> String {
    format!("hipscope {}", env!("CARGO_PKG_VERSION"))
}
