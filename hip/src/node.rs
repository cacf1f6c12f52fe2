//! The GPUs of the simulated node a program sees (`hipGetDeviceCount`), each with its own
//! simulated device, heap and hostcall buffer, and the node-wide facts the runtime asks of
//! them: where an address lives, which GPU may reach which, what a copy between two costs.
//!
//! Unified addressing: GPU `i`'s allocations (and its runtime structures) come from its own
//! range of the address space, [`range_of`]; host-visible memory (`hipHostMalloc`,
//! `hipMallocManaged`) from the host's range above them. A pointer therefore names its
//! device, as on a real ROCm system, and `hipPointerGetAttributes` can say which.
//!
//! Configured by `HIPSCOPE_NODE` (a built-in node or a node file, `sim::node`), or
//! `HIPSCOPE_GPU` and `HIPSCOPE_DEVICES=N` (N identical GPUs; default 1).

use crate::heap::Heap;
use crate::hostcall::Hostcall;
use hipscope_sim::gpus::{self, GpuConfig};
use hipscope_sim::memory::{Memory, HEAP_BASE};
use hipscope_sim::node::{Agent, Node};
use hipscope_sim::Device;
use std::collections::BTreeSet;

/// GPUs one node may have: 16 ranges of [`DEVICE_RANGE_BYTES`] and the host's above them
/// stay below 2^47, the top of a Linux x86-64 process's address space, where host-visible
/// memory is mapped at its simulated address.
pub const MAX_DEVICES: usize = 16;

/// Address space each GPU's allocations come from: 4 TiB, far more than any GPU's memory
/// (192 GiB on MI300X), because freed addresses are not reused.
pub const DEVICE_RANGE_BYTES: u64 = 1 << 42;

/// Where host-visible allocations start: above every GPU's range.
pub const HOST_BASE: u64 = HEAP_BASE + MAX_DEVICES as u64 * DEVICE_RANGE_BYTES;

// Host-visible memory is mapped at its simulated address: the host's range (as large as a
// GPU's) must end below 2^47, where Linux x86-64 user space ends.
const _: () = assert!(HOST_BASE + DEVICE_RANGE_BYTES < 1 << 47);

/// The first address of GPU `ordinal`'s range, and the end of it.
pub fn range_of(ordinal: usize) -> (u64, u64) {
    let start = HEAP_BASE + ordinal as u64 * DEVICE_RANGE_BYTES;
    (start, start + DEVICE_RANGE_BYTES)
}

/// Whose address range an address is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Home {
    /// Below the device heaps: a code object's sections, which every GPU maps for itself.
    Image,
    Gpu(usize),
    Host,
}

pub fn home_of(address: u64) -> Home {
    if address < HEAP_BASE {
        Home::Image
    } else if address >= HOST_BASE {
        Home::Host
    } else {
        Home::Gpu(((address - HEAP_BASE) / DEVICE_RANGE_BYTES) as usize)
    }
}

/// One GPU of the node.
pub struct Gpu {
    pub config: GpuConfig,
    pub device: Device,
    /// Where its `hipMalloc` memory is carved from.
    pub heap: Heap,
    /// Bytes allocated on it (for `hipMemGetInfo`).
    pub in_use: u64,
    /// The hostcall buffer (device `printf`), placed at its first kernel that has one.
    pub hostcall: Option<Hostcall>,
    /// The GPUs whose memory this one's kernels may reach (`hipDeviceEnablePeerAccess`).
    pub peers: BTreeSet<usize>,
}

impl Gpu {
    /// GPU `ordinal` of the node, its address space in its own range.
    /// In timing mode on a named node (`links`), its accesses to host memory and its peers'
    /// memory travel that node's links.
    pub fn new(config: GpuConfig, ordinal: usize, timing: bool, links: Option<&Node>) -> Result<Gpu, String> {
        let mut device = Device::for_gpu(&config);
        device.mem = Memory::with_base(range_of(ordinal).0);
        if timing {
            device.enable_timing(&config)?;
            if let Some(node) = links {
                device.set_node(node, ordinal)?;
            }
        }
        Ok(Gpu { config, device, heap: Heap::default(), in_use: 0, hostcall: None, peers: BTreeSet::new() })
    }
}

/// The node the program runs on: `HIPSCOPE_NODE` (a built-in node or a node file,
/// `hipscope exec --node`), else `HIPSCOPE_DEVICES` copies of `HIPSCOPE_GPU` (default one).
#[derive(Debug, Clone)]
pub struct NodeSpec {
    /// The node; for `HIPSCOPE_DEVICES`, the lone GPU's ([`Node::single`]).
    node: Node,
    /// `HIPSCOPE_DEVICES=N`: `N` copies of the node's one GPU, each on the same host link,
    /// every pair joined by a link with the GPU config's own device-to-device copy figures
    /// (`timing.copy_engine.d2d_*`; assumed: the shorthand names no interconnect, `--node`
    /// does). 1 for a node.
    copies: usize,
    gpus: Vec<GpuConfig>,
    name: String,
    /// `HIPSCOPE_NODE` named the node: its links time kernels' accesses to other agents'
    /// memory. A lone GPU's link ([`Node::single`]) has only its copy engine's figures (a DMA
    /// transfer's setup, not a load's latency), so without a node those accesses keep their
    /// local cost.
    named: bool,
}

impl NodeSpec {
    /// The node the environment names; the error says what is wrong.
    pub fn from_env() -> Result<NodeSpec, String> {
        if let Some(name) = std::env::var_os("HIPSCOPE_NODE") {
            let node = Node::load(&name.to_string_lossy()).map_err(|e| e.to_string())?;
            if node.gpus.len() > MAX_DEVICES {
                return Err(format!("node {}: {} GPUs, at most {MAX_DEVICES}", node.name(), node.gpus.len()));
            }
            let (gpus, name) = (node.gpus.clone(), node.name().to_string());
            return Ok(NodeSpec { node, copies: 1, gpus, name, named: true });
        }
        let name = std::env::var("HIPSCOPE_GPU").unwrap_or_else(|_| "mi300a".into());
        let gpu = gpus::resolve(&name).map_err(|e| e.to_string())?;
        let copies = match std::env::var("HIPSCOPE_DEVICES") {
            Ok(n) => n
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&n| (1..=MAX_DEVICES).contains(&n))
                .ok_or_else(|| format!("HIPSCOPE_DEVICES={n}: expected 1 to {MAX_DEVICES}"))?,
            Err(_) => 1,
        };
        let name = if copies == 1 { gpu.name.clone() } else { format!("{copies} x {}", gpu.name) };
        Ok(NodeSpec { gpus: vec![gpu.clone(); copies], node: Node::single(gpu), copies, name, named: false })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn gpus(&self) -> &[GpuConfig] {
        &self.gpus
    }

    /// The node whose links kernels' remote accesses travel: the named node only.
    pub fn links(&self) -> Option<&Node> {
        self.named.then_some(&self.node)
    }

    /// What one host load or store to host memory costs (ns): the named node's host
    /// `memory_latency_ns`. A lone GPU's node has no host figures ([`Node::single`]), so it
    /// borrows those of the first built-in node that holds the same GPU, or, for a GPU none
    /// holds, the slowest built-in host (`configs/nodes/*.ron`): a host access is never free,
    /// which would let a spinning host thread take no simulated time at all.
    pub fn host_memory_latency_ns(&self) -> f64 {
        if self.named {
            return self.node.config.host.memory_latency_ns;
        }
        let builtins = Node::builtins();
        let gpu = self.gpus.first().map(|g| g.name.as_str()).unwrap_or_default();
        match builtins.iter().find(|n| n.config.gpus.iter().any(|g| g == gpu)) {
            Some(n) => n.config.host.memory_latency_ns,
            None => builtins.iter().map(|n| n.config.host.memory_latency_ns).fold(0.0, f64::max),
        }
    }

    /// Whether a kernel on GPU `from` may load, store and update atomically the memory of GPU
    /// `to` once peer access is enabled: the node links them for loads and stores.
    pub fn can_access_peer(&self, from: usize, to: usize) -> bool {
        if self.copies > 1 {
            return from != to && from < self.copies && to < self.copies;
        }
        self.node.link(Agent::Gpu(from), Agent::Gpu(to)).is_some_and(|l| l.carries.loads_stores)
    }

    /// Nanoseconds a copy of `bytes` from `from` to `to` takes: on their link, or staged
    /// through the host when no link carries copies between two GPUs.
    pub fn copy_ns(&self, from: Agent, to: Agent, bytes: u64) -> Option<f64> {
        if self.copies > 1 {
            return self.copies_ns(from, to, bytes);
        }
        let direct = self.node.link(from, to).filter(|l| l.carries.copies).and_then(|_| self.node.copy_ns(from, to, bytes));
        direct.or_else(|| Some(self.node.copy_ns(from, Agent::Host, bytes)? + self.node.copy_ns(Agent::Host, to, bytes)?))
    }

    /// [`NodeSpec::copy_ns`] on `HIPSCOPE_DEVICES` copies of one GPU.
    fn copies_ns(&self, from: Agent, to: Agent, bytes: u64) -> Option<f64> {
        match (from, to) {
            (Agent::Gpu(_), Agent::Gpu(_)) => {
                let c = self.gpus[0].timing.as_ref()?.copy_engine.as_ref()?;
                Some(f64::from(c.d2d_latency_ns) + bytes as f64 / f64::from(c.d2d_bandwidth_bytes_per_ns.max(1)))
            }
            (Agent::Host, Agent::Gpu(_)) => self.node.copy_ns(Agent::Host, Agent::Gpu(0), bytes),
            (Agent::Gpu(_), Agent::Host) => self.node.copy_ns(Agent::Gpu(0), Agent::Host, bytes),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_names_its_device() {
        assert_eq!(home_of(range_of(0).0), Home::Gpu(0));
        assert_eq!(home_of(range_of(3).1 - 1), Home::Gpu(3));
        assert_eq!(home_of(range_of(MAX_DEVICES - 1).1), Home::Host);
        assert_eq!(home_of(0x4000), Home::Image);
    }
}
