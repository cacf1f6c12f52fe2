//! One result line per point, as the shards write them (JSON Lines) and the merge reads them.

use crate::plan::{Plan, Value};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

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
    /// The hipscope version that ran it.
    pub hipscope: String,
}

/// The hash every result line carries: of the plan as parsed and of the base GPU config, so
/// results of an edited plan or config are never merged with older ones. Hex, 16 digits.
pub fn plan_hash(plan: &Plan, base: &hipscope_sim::gpus::GpuConfig) -> String {
    let mut h = Sha256::new();
    h.update(serde_json::to_string(plan).unwrap_or_default().as_bytes());
    h.update(b"\n");
    h.update(serde_json::to_string(base).unwrap_or_default().as_bytes());
    h.finalize().iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// The version recorded with results.
pub fn version() -> String {
    format!("hipscope {}", env!("CARGO_PKG_VERSION"))
}
