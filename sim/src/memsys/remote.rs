//! Memory of another agent: the node-side view of one GPU's memory system.
//!
//! An access to memory another agent owns — the host's (pinned or managed memory, reached over
//! the GPU's host link) or a peer GPU's (mapped after peer access is enabled, over the link
//! between the two GPUs) — leaves the GPU: it crosses the link to the far agent, is served by
//! that agent's memory, and its answer crosses back. Its time is the link's one-way latency
//! each way plus the far memory's latency, and the link's bandwidth limits how fast requests
//! follow each other: each direction of each link is a queue ([`Pipe`]) of its bytes per
//! cycle, so a stream of loads from the host is paced by the link's return direction.
//!
//! The figures come from the node config (`configs/nodes/*.ron`, [`crate::node::Node`]),
//! converted from nanoseconds to the GPU's cycles at its clock. The far memory's latency is
//! the host's `memory_latency_ns` for host memory, and for a peer GPU its own config's DRAM
//! latency (its cycles at its clock, in ns) — its MALL and its queues are not modelled: the
//! peer's memory system is not co-simulated with this one. An APU's host link
//! ([`LinkKind::SharedMemory`]) is no link at all: host memory is the same HBM the GPU
//! reaches through its own memory channels, so it has no remote path.
//!
//! Atomics on remote memory are performed at the far agent (PCIe AtomicOps at the host's root
//! complex, xGMI atomics at the peer GPU) when the link carries atomics; the far side's atomic
//! unit is one queue per link, assumed to run at this GPU's L2 atomic rate (no public source
//! gives the rate of a root complex's or a peer's atomic unit for remote requests), each lane
//! on one address one pass after the other ([`super::atomics`]).

use super::pipe::{occupancy, Pipe};
use crate::memory::{Memory, MemoryKind, Owner};
use crate::node::{Agent, LinkKind, Node};

/// One remote path: the link to a far agent, both ways, and the far agent's memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RemotePath {
    /// One-way latency from this GPU to the far agent.
    pub there_cycles: u64,
    /// One-way latency from the far agent back.
    pub back_cycles: u64,
    /// Bytes per cycle the link carries towards the far agent (stores, atomics' operands).
    pub there_bytes_per_cycle: f64,
    /// Bytes per cycle it carries back (load data).
    pub back_bytes_per_cycle: f64,
    /// Latency of the far agent's memory.
    pub far_memory_cycles: u64,
    /// The link carries atomics, performed at the far agent.
    pub atomics: bool,
}

/// A GPU's remote paths: to host memory and to each peer GPU's memory (by GPU ordinal).
/// `None` where no link carries loads and stores, or (host of an APU) where none is needed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RemotePaths {
    pub host: Option<RemotePath>,
    pub peers: Vec<Option<RemotePath>>,
}

/// Nanoseconds to cycles of a `clock_mhz` clock, rounded to the nearest cycle.
pub fn ns_to_cycles(ns: f64, clock_mhz: u32) -> u64 {
    (ns * clock_mhz as f64 / 1000.0).round().max(0.0) as u64
}

impl RemotePaths {
    /// The paths of GPU `gpu` of `node`, in cycles of `clock_mhz` (its clock).
    pub fn from_node(node: &Node, gpu: usize, clock_mhz: u32) -> RemotePaths {
        let me = Agent::Gpu(gpu);
        let path = |far: Agent, far_memory_ns: f64| -> Option<RemotePath> {
            let link = node.link(me, far).filter(|l| l.carries.loads_stores && l.kind != LinkKind::SharedMemory)?;
            let (there, back) = (node.direction(me, far)?, node.direction(far, me)?);
            let per_cycle = |bytes_per_ns: f64| bytes_per_ns * 1000.0 / clock_mhz.max(1) as f64;
            Some(RemotePath {
                there_cycles: ns_to_cycles(there.latency_ns, clock_mhz),
                back_cycles: ns_to_cycles(back.latency_ns, clock_mhz),
                there_bytes_per_cycle: per_cycle(there.bandwidth_bytes_per_ns),
                back_bytes_per_cycle: per_cycle(back.bandwidth_bytes_per_ns),
                far_memory_cycles: ns_to_cycles(far_memory_ns, clock_mhz),
                atomics: link.carries.atomics,
            })
        };
        let peers = node
            .gpus
            .iter()
            .enumerate()
            .map(|(j, g)| {
                // The peer's DRAM latency in its own cycles, at its own clock.
                let dram_ns = g.timing.as_ref().map_or(0.0, |t| t.dram.latency_cycles as f64 * 1000.0 / t.clock_mhz.max(1) as f64);
                if j == gpu {
                    None
                } else {
                    path(Agent::Gpu(j), dram_ns)
                }
            })
            .collect();
        RemotePaths { host: path(Agent::Host, node.config.host.memory_latency_ns), peers }
    }
}

/// The remote paths of a memory system with the queues of their links. Path 0 is the host's,
/// path `1 + j` peer GPU `j`'s.
#[derive(Debug, Clone, Default)]
pub(super) struct Remote {
    paths: Vec<Option<RemotePath>>,
    there: Vec<Pipe>,
    back: Vec<Pipe>,
}

impl Remote {
    pub fn new(p: &RemotePaths) -> Remote {
        let paths: Vec<Option<RemotePath>> = std::iter::once(p.host).chain(p.peers.iter().copied()).collect();
        let n = paths.len();
        Remote { paths, there: vec![Pipe::default(); n], back: vec![Pipe::default(); n] }
    }

    pub fn clear(&mut self) {
        for p in self.there.iter_mut().chain(&mut self.back) {
            p.clear();
        }
    }

    pub fn path(&self, n: usize) -> Option<RemotePath> {
        self.paths.get(n).copied().flatten()
    }

    /// The path an access at `address` takes, if its memory is another agent's: the host's
    /// (mapped host memory; in a lone device's own address space, its pinned and managed
    /// allocations) or a peer GPU's.
    pub fn path_of(&self, mem: &Memory, address: u64) -> Option<usize> {
        if self.paths.iter().all(Option::is_none) {
            return None;
        }
        let a = mem.allocation_at(address)?;
        let n = match a.owner {
            Owner::Host => 0,
            Owner::Gpu(j) => 1 + j as usize,
            Owner::Local if matches!(a.kind, MemoryKind::HostPinned | MemoryKind::HostNonCoherent | MemoryKind::Managed) => 0,
            Owner::Local => return None,
        };
        self.path(n).map(|_| n)
    }

    /// A read of `bytes` over path `n` leaving at `at`: the request crosses, the far memory
    /// answers, the data queues on the return direction and crosses back. When the data is
    /// here (`None`: no such path).
    pub fn read(&mut self, n: usize, bytes: u32, at: u64) -> Option<u64> {
        let p = self.path(n)?;
        let answered = at + p.there_cycles + p.far_memory_cycles;
        let start = self.back.get_mut(n)?.reserve(answered, occupancy(bytes as u64, p.back_bytes_per_cycle));
        Some(start + p.back_cycles)
    }

    /// A write of `bytes` over path `n` leaving at `at`: the data queues on the way there, the
    /// far memory takes it, and its acknowledgement crosses back. When the acknowledgement is
    /// here.
    pub fn write(&mut self, n: usize, bytes: u32, at: u64) -> Option<u64> {
        let p = self.path(n)?;
        let start = self.there.get_mut(n)?.reserve(at, occupancy(bytes as u64, p.there_bytes_per_cycle));
        Some(start + p.there_cycles + p.far_memory_cycles + p.back_cycles)
    }

    /// Number of paths (the host's and one per GPU of the node).
    pub fn len(&self) -> usize {
        self.paths.len()
    }
}
