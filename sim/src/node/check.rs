//! What a node file must satisfy before a [`super::Node`] is built from it: known GPUs, links
//! between agents that exist and are distinct, each GPU pair and each GPU's host link given
//! once, and every figure a positive finite number within the GPU configs' bounds. `Err` is
//! the message after the file name: the field, then what is wrong.

use super::{resolve_gpu, HostCpu, Link, NodeConfig};
use crate::gpus::{bounds, GpuConfig};
use std::collections::BTreeMap;
use std::path::Path;

/// The most GPUs a node may have: a bound on the work a file can ask for (each GPU is a
/// config parsed and, in a run, a device built). Today's largest nodes have 8 or 16.
pub const MAX_GPUS: usize = 64;

/// Resolve every GPU the node lists (a built-in name or a config file).
pub(super) fn resolve_gpus(names: &[String], dir: Option<&Path>) -> Result<Vec<GpuConfig>, String> {
    if names.is_empty() {
        return Err("gpus: the list is empty; a node has at least one GPU".to_string());
    }
    if names.len() > MAX_GPUS {
        return Err(format!("gpus: {} GPUs is more than {MAX_GPUS}", names.len()));
    }
    names.iter().enumerate().map(|(i, n)| resolve_gpu(n, dir).map_err(|e| format!("gpus[{i}]: {e}"))).collect()
}

/// The host link of each GPU (by index) and the peer links by ordered pair.
#[allow(clippy::type_complexity)]
pub(super) fn links(c: &NodeConfig) -> Result<(Vec<Link>, BTreeMap<(usize, usize), Link>), String> {
    let n = c.gpus.len();
    let mut host: Vec<Option<Link>> = vec![None; n];
    for (g, group) in c.host_links.iter().enumerate() {
        let field = format!("host_links[{g}]");
        figures(&format!("{field}.link"), &group.link)?;
        if group.gpus.is_empty() {
            return Err(format!("{field}.gpus: the list is empty"));
        }
        for &i in &group.gpus {
            let slot = host.get_mut(i).ok_or_else(|| out_of_range(&format!("{field}.gpus"), i, n))?;
            if slot.is_some() {
                return Err(format!("{field}.gpus: gpu {i} already has a host link"));
            }
            *slot = Some(group.link.clone());
        }
    }
    let host = host
        .into_iter()
        .enumerate()
        .map(|(i, l)| l.ok_or_else(|| format!("host_links: gpu {i} ({}) has no host link", c.gpus[i])))
        .collect::<Result<Vec<_>, _>>()?;
    let mut peer = BTreeMap::new();
    for (g, group) in c.peer_links.iter().enumerate() {
        let field = format!("peer_links[{g}]");
        figures(&format!("{field}.link"), &group.link)?;
        if group.pairs.is_empty() {
            return Err(format!("{field}.pairs: the list is empty"));
        }
        for &(a, b) in &group.pairs {
            for i in [a, b] {
                if i >= n {
                    return Err(out_of_range(&format!("{field}.pairs"), i, n));
                }
            }
            if a == b {
                return Err(format!("{field}.pairs: ({a}, {b}) links gpu {a} to itself"));
            }
            if peer.insert((a.min(b), a.max(b)), group.link.clone()).is_some() {
                return Err(format!("{field}.pairs: ({a}, {b}) is linked twice"));
            }
        }
    }
    Ok((host, peer))
}

fn out_of_range(field: &str, i: usize, n: usize) -> String {
    format!("{field}: gpu {i} does not exist (the node has {n} GPU{}: 0..{n})", if n == 1 { "" } else { "s" })
}

/// A link's latencies and bandwidths, both directions.
fn figures(field: &str, l: &Link) -> Result<(), String> {
    latency(&format!("{field}.latency_ns"), l.latency_ns)?;
    bandwidth(&format!("{field}.bandwidth_bytes_per_ns"), l.bandwidth_bytes_per_ns)?;
    if let Some(r) = &l.reverse {
        latency(&format!("{field}.reverse.latency_ns"), r.latency_ns)?;
        bandwidth(&format!("{field}.reverse.bandwidth_bytes_per_ns"), r.bandwidth_bytes_per_ns)?;
    }
    Ok(())
}

/// The host CPU's figures.
pub(super) fn host(h: &HostCpu) -> Result<(), String> {
    if h.cores == 0 {
        return Err("host.cores: 0; a host has at least one core".to_string());
    }
    latency("host.memory_latency_ns", h.memory_latency_ns)?;
    bandwidth("host.memory_bandwidth_bytes_per_ns", h.memory_bandwidth_bytes_per_ns)
}

/// A latency: positive, finite, at most the longest copy latency a GPU config may give.
fn latency(field: &str, v: f64) -> Result<(), String> {
    positive(field, v, bounds::MAX_COPY_LATENCY_NS as f64, "ns")
}

/// A bandwidth: positive, finite, at most the highest a GPU config may give (bytes per ns is
/// numerically GB/s).
fn bandwidth(field: &str, v: f64) -> Result<(), String> {
    positive(field, v, bounds::MAX_BANDWIDTH_GB_PER_S as f64, "bytes/ns")
}

fn positive(field: &str, v: f64, max: f64, unit: &str) -> Result<(), String> {
    if !v.is_finite() {
        Err(format!("{field}: {v} is not a finite number"))
    } else if v <= 0.0 {
        Err(format!("{field}: {v} is not positive"))
    } else if v > max {
        Err(format!("{field}: {v} is more than {max} {unit}"))
    } else {
        Ok(())
    }
}
