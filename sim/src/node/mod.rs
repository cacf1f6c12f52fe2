//! Node configurations: a host CPU and the GPUs beside it, and the links between them — the
//! agents of system scope. The built-in nodes of `configs/nodes/*.ron` are embedded in the
//! binary; user files in the same format load by path.
//!
//! A node file lists its GPUs by built-in GPU name or config file ([`crate::gpus`]), one host
//! link per GPU (PCIe, or the shared HBM of an APU) and the links between GPU pairs (xGMI),
//! each with its latency, its per-direction bandwidth and what it carries (copies, loads and
//! stores, atomics). A file is checked ([`check`]) before a [`Node`] is built from it; every
//! error is one line naming the file and the field. A run without a node file runs on
//! [`Node::single`]: the one GPU on the host link its own config's copy engine describes.

pub mod check;
pub mod cpu;
pub mod turns;

use crate::gpus::{self, GpuConfig};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// An agent of the node: the host CPU or the GPU at an index of [`NodeConfig::gpus`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Agent {
    Host,
    Gpu(usize),
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Agent::Host => f.write_str("host"),
            Agent::Gpu(i) => write!(f, "gpu {i}"),
        }
    }
}

/// What a link is physically.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
pub enum LinkKind {
    /// PCI Express of a generation (4, 5, ...) and width in lanes.
    Pcie { gen: u32, lanes: u32 },
    /// AMD Infinity Fabric between GPU packages (xGMI).
    Xgmi,
    /// No link: the CPU and GPU of an APU share one memory (MI300A's HBM).
    SharedMemory,
    /// A lone GPU's config gives its copy engine's figures but not the bus ([`Node::single`]);
    /// not for node files.
    #[serde(skip_deserializing)]
    Unspecified,
}

impl std::fmt::Display for LinkKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkKind::Pcie { gen, lanes } => write!(f, "PCIe gen{gen} x{lanes}"),
            LinkKind::Xgmi => f.write_str("xGMI"),
            LinkKind::SharedMemory => f.write_str("shared memory"),
            LinkKind::Unspecified => f.write_str("host link"),
        }
    }
}

/// What traffic a link carries between its two agents.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Carries {
    /// DMA copies (`hipMemcpy`, `hipMemcpyPeer`).
    pub copies: bool,
    /// Loads and stores of one agent to the other's memory (peer access, host-pinned memory).
    pub loads_stores: bool,
    /// Atomics performed at the far agent (PCIe AtomicOps, xGMI atomics).
    pub atomics: bool,
}

impl std::fmt::Display for Carries {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = [(self.copies, "copies"), (self.loads_stores, "loads/stores"), (self.atomics, "atomics")]
            .into_iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| n)
            .collect();
        f.write_str(&if names.is_empty() { "nothing".to_string() } else { names.join(", ") })
    }
}

/// The figures of one direction of a link.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Direction {
    /// One-way time of a transfer's first byte from one agent to the other.
    pub latency_ns: f64,
    /// Bytes per ns in this direction (numerically GB/s).
    pub bandwidth_bytes_per_ns: f64,
}

/// One link between two agents.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub kind: LinkKind,
    /// One-way latency, from the first agent to the second (host to GPU; lower GPU index to
    /// higher), and the other way unless `reverse` says otherwise.
    pub latency_ns: f64,
    /// Bytes per ns per direction (numerically GB/s), likewise.
    pub bandwidth_bytes_per_ns: f64,
    /// The figures from the second agent to the first, when they differ.
    #[serde(default)]
    pub reverse: Option<Direction>,
    pub carries: Carries,
}

impl Link {
    /// The figures from the link's first agent to its second (`forward`), or back.
    pub fn direction(&self, forward: bool) -> Direction {
        match (forward, self.reverse) {
            (false, Some(d)) => d,
            _ => Direction { latency_ns: self.latency_ns, bandwidth_bytes_per_ns: self.bandwidth_bytes_per_ns },
        }
    }
}

/// The host CPU (all its sockets) and its memory.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostCpu {
    /// What it is (`"2x AMD EPYC 9654"`).
    pub model: String,
    /// Cores over all sockets.
    pub cores: u32,
    /// Load-to-use latency of a CPU core's access to its memory (a DRAM pointer chase).
    pub memory_latency_ns: f64,
    /// Sustained bandwidth of the host memory (numerically GB/s).
    pub memory_bandwidth_bytes_per_ns: f64,
}

/// One host link figure shared by the GPUs listed.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct HostLinks {
    /// Indices into [`NodeConfig::gpus`]; each GPU has exactly one host link.
    pub gpus: Vec<usize>,
    pub link: Link,
}

/// One link figure shared by the GPU pairs listed.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PeerLinks {
    /// Pairs of indices into [`NodeConfig::gpus`]; a pair appears at most once, either way round.
    pub pairs: Vec<(usize, usize)>,
    pub link: Link,
}

/// A node configuration, as stored in `configs/nodes/<name>.ron`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(rename = "Node", deny_unknown_fields)]
pub struct NodeConfig {
    pub name: String,
    pub description: String,
    pub host: HostCpu,
    /// Built-in GPU names, or GPU config files (relative to the node file's directory).
    pub gpus: Vec<String>,
    pub host_links: Vec<HostLinks>,
    #[serde(default)]
    pub peer_links: Vec<PeerLinks>,
    /// Where the config came from (`configs/nodes/<name>.ron` or the file given), for errors.
    #[serde(skip)]
    pub origin: String,
}

/// Why a node could not be loaded. `Display` is one line naming the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NodeError {
    #[error("unknown node '{0}' (built-in: {list}; or give a node file path)", list = Node::names().join(", "))]
    Unknown(String),
    #[error("{0}: cannot read: {1}")]
    Read(String, String),
    #[error("{0}:{1}:{2}: {3}")]
    Parse(String, usize, usize, String),
    #[error("{0}: {1}")]
    Invalid(String, String),
}

/// A node ready to run: its checked config, its GPUs' configs in index order and its links.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub config: NodeConfig,
    pub gpus: Vec<GpuConfig>,
    /// The host link of each GPU, by GPU index.
    host_links: Vec<Link>,
    /// Peer links by (lower index, higher index).
    peer_links: std::collections::BTreeMap<(usize, usize), Link>,
}

/// The built-in nodes, in the order `hipscope nodes` lists them.
const BUILTIN: &[(&str, &str)] = &[
    ("mi300x-8", include_str!("../../../configs/nodes/mi300x-8.ron")),
    ("mi300a-4", include_str!("../../../configs/nodes/mi300a-4.ron")),
    ("rx7900xtx-pcie", include_str!("../../../configs/nodes/rx7900xtx-pcie.ron")),
];

impl Node {
    /// Names of the built-in nodes.
    pub fn names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _)| *n).collect()
    }

    /// The built-in node files as written (name, RON text), comments included.
    pub fn builtin_texts() -> &'static [(&'static str, &'static str)] {
        BUILTIN
    }

    /// Every built-in node (they are checked by the tests, so a broken one is a build bug).
    pub fn builtins() -> Vec<Node> {
        BUILTIN.iter().filter_map(|(n, _)| Node::built_in(n).ok()).collect()
    }

    /// A built-in node by name.
    pub fn built_in(name: &str) -> Result<Node, NodeError> {
        let (n, text) = BUILTIN.iter().find(|(n, _)| *n == name).ok_or_else(|| NodeError::Unknown(name.to_string()))?;
        Node::from_ron(text, &format!("configs/nodes/{n}.ron"), None)
    }

    /// `--node NAME|FILE`: a built-in name, else a path to a node file.
    pub fn load(name_or_path: &str) -> Result<Node, NodeError> {
        if BUILTIN.iter().any(|(n, _)| *n == name_or_path) {
            return Node::built_in(name_or_path);
        }
        let path = Path::new(name_or_path);
        if name_or_path.ends_with(".ron") || path.exists() {
            let text = std::fs::read_to_string(path).map_err(|e| NodeError::Read(name_or_path.to_string(), e.to_string()))?;
            return Node::from_ron(&text, name_or_path, path.parent());
        }
        Err(NodeError::Unknown(name_or_path.to_string()))
    }

    /// Parse and check a node file. `origin` names it in errors; GPU config files it names
    /// are looked up under `dir` (the node file's directory).
    pub fn from_ron(text: &str, origin: &str, dir: Option<&Path>) -> Result<Node, NodeError> {
        let mut config: NodeConfig =
            ron::from_str(text).map_err(|e| NodeError::Parse(origin.to_string(), e.span.start.line, e.span.start.col, e.code.to_string()))?;
        config.origin = origin.to_string();
        Node::build(config, dir)
    }

    /// Check a config and resolve its GPUs and links.
    pub fn build(config: NodeConfig, dir: Option<&Path>) -> Result<Node, NodeError> {
        let invalid = |m: String| NodeError::Invalid(config.origin.clone(), m);
        let gpus = check::resolve_gpus(&config.gpus, dir).map_err(invalid)?;
        let (host_links, peer_links) = check::links(&config).map_err(invalid)?;
        check::host(&config.host).map_err(invalid)?;
        Ok(Node { config, gpus, host_links, peer_links })
    }

    /// A lone GPU on the host link its config's copy engine describes (`timing.copy_engine`:
    /// h2d one way, d2h back; without it, a link no transfer pays for). An integrated GPU's
    /// link is the memory it shares with the CPU. The host has no figures of its own (memory
    /// latency 0, unbounded bandwidth): host accesses cost nothing, as before nodes existed. So
    /// every run has a node.
    pub fn single(gpu: GpuConfig) -> Node {
        let kind = if gpu.hip.integrated { LinkKind::SharedMemory } else { LinkKind::Unspecified };
        let copy = gpu.timing.as_ref().and_then(|t| t.copy_engine.clone());
        let (forward, back) = match copy {
            Some(c) => (
                Direction { latency_ns: c.h2d_latency_ns as f64, bandwidth_bytes_per_ns: c.h2d_bandwidth_bytes_per_ns as f64 },
                Direction { latency_ns: c.d2h_latency_ns as f64, bandwidth_bytes_per_ns: c.d2h_bandwidth_bytes_per_ns as f64 },
            ),
            None => {
                (Direction { latency_ns: 0.0, bandwidth_bytes_per_ns: f64::INFINITY }, Direction { latency_ns: 0.0, bandwidth_bytes_per_ns: f64::INFINITY })
            }
        };
        let link = Link {
            kind,
            latency_ns: forward.latency_ns,
            bandwidth_bytes_per_ns: forward.bandwidth_bytes_per_ns,
            reverse: Some(back),
            carries: Carries { copies: true, loads_stores: true, atomics: gpu.hip.host_native_atomic_supported },
        };
        let config = NodeConfig {
            name: gpu.name.clone(),
            description: format!("one {} on its host link", gpu.marketing_name),
            host: HostCpu { model: "unspecified".to_string(), cores: 1, memory_latency_ns: 0.0, memory_bandwidth_bytes_per_ns: f64::INFINITY },
            gpus: vec![gpu.name.clone()],
            host_links: vec![HostLinks { gpus: vec![0], link: link.clone() }],
            peer_links: Vec::new(),
            origin: gpu.origin.clone(),
        };
        Node { config, gpus: vec![gpu], host_links: vec![link], peer_links: Default::default() }
    }

    /// `gpu` alone on this node's host and on the host link of this node's GPU `like`: a
    /// one-GPU node for a GPU no built-in node holds, borrowing a real host link's figures.
    /// `None` when this node has no GPU `like`.
    pub fn alone_like(&self, gpu: GpuConfig, like: usize) -> Option<Node> {
        let link = self.host_links.get(like)?.clone();
        let config = NodeConfig {
            name: format!("{}-alone", gpu.name),
            description: format!("one {} on the host and host link of {}'s GPU {like}", gpu.marketing_name, self.name()),
            host: self.config.host.clone(),
            gpus: vec![gpu.name.clone()],
            host_links: vec![HostLinks { gpus: vec![0], link: link.clone() }],
            peer_links: Vec::new(),
            origin: self.config.origin.clone(),
        };
        Some(Node { config, gpus: vec![gpu], host_links: vec![link], peer_links: Default::default() })
    }

    /// The node's name.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// Every agent: the host, then the GPUs by index.
    pub fn agents(&self) -> Vec<Agent> {
        std::iter::once(Agent::Host).chain((0..self.gpus.len()).map(Agent::Gpu)).collect()
    }

    /// The link between two agents, either way round: host and GPU `i`, GPUs `i` and `j`.
    /// `None` for an agent and itself, an index out of range, or a GPU pair without a link.
    pub fn link(&self, a: Agent, b: Agent) -> Option<&Link> {
        match (a, b) {
            (Agent::Host, Agent::Gpu(i)) | (Agent::Gpu(i), Agent::Host) => self.host_links.get(i),
            (Agent::Gpu(i), Agent::Gpu(j)) if i != j => self.peer_links.get(&(i.min(j), i.max(j))),
            _ => None,
        }
    }

    /// `hipDeviceCanAccessPeer(i, j)`: two distinct GPUs whose link carries loads and stores.
    pub fn can_access_peer(&self, i: usize, j: usize) -> bool {
        self.link(Agent::Gpu(i), Agent::Gpu(j)).is_some_and(|l| l.carries.loads_stores)
    }

    /// The figures of the link from `from` to `to` in that direction.
    pub fn direction(&self, from: Agent, to: Agent) -> Option<Direction> {
        let link = self.link(from, to)?;
        // A link's first agent is the host, or the lower GPU index.
        let forward = match (from, to) {
            (Agent::Host, _) => true,
            (Agent::Gpu(i), Agent::Gpu(j)) => i < j,
            _ => false,
        };
        Some(link.direction(forward))
    }

    /// Time of a transfer of `bytes` from `from` to `to` over their link: latency plus
    /// bytes / bandwidth. `None` where no link joins them.
    pub fn copy_ns(&self, from: Agent, to: Agent, bytes: u64) -> Option<f64> {
        let d = self.direction(from, to)?;
        Some(d.latency_ns + bytes as f64 / d.bandwidth_bytes_per_ns)
    }

    /// Every link once: host links by GPU, then peer links by pair.
    pub fn links(&self) -> Vec<(Agent, Agent, &Link)> {
        let host = self.host_links.iter().enumerate().map(|(i, l)| (Agent::Host, Agent::Gpu(i), l));
        let peer = self.peer_links.iter().map(|(&(i, j), l)| (Agent::Gpu(i), Agent::Gpu(j), l));
        host.chain(peer).collect()
    }
}

/// A GPU of a node file: a built-in name, else a config file under `dir`.
fn resolve_gpu(name: &str, dir: Option<&Path>) -> Result<GpuConfig, gpus::GpuError> {
    if gpus::builtin_names().contains(&name) {
        return gpus::builtin(name);
    }
    match dir.map(|d| d.join(name)) {
        Some(p) if p.exists() => gpus::resolve(&p.to_string_lossy()),
        _ => gpus::resolve(name),
    }
}
