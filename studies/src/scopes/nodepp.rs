//! Ping-pong between agents of a node: round trips of a flag handed back and forth by one wave
//! on GPU 0 and a partner outside it — one wave on GPU 1 through peer memory (`mi300x-8`,
//! xGMI), or a modelled host CPU core through host memory (`mi300a-4`: the HBM the APU's CPU
//! and GPU share; `mi300x-8`: the host's DRAM over PCIe) — at agent and at system scope.
//!
//! The kernels are `workloads/scopes/nodepp.hip` (`npp__<scope>`): each side waits on its own
//! flag with acquire loads and answers in the other's with a release store. The GPUs run
//! together on one timeline ([`hipscope_sim::cosim::run_with_agents`]); the CPU side is a
//! [`CpuCore`] whose script spins on its flag and answers, each access costing the node's
//! host memory latency. GPU 0 times the rounds with its shader clock: a row's cycles are GPU
//! 0's cycles per round trip, its note the same in nanoseconds at GPU 0's clock.

use super::{Row, Scope, Target};
use hipscope_isa::codeobj;
use hipscope_sim::cosim::{run_with_agents, Launch};
use hipscope_sim::memory::{Memory, MemoryKind, Owner, HEAP_BASE};
use hipscope_sim::node::cpu::{CpuCore, HostOp};
use hipscope_sim::node::{Agent, Node};
use hipscope_sim::{Device, EngineOptions, Geometry, NodeAgent};
use std::path::Path;

/// Round trips each ping-pong makes.
pub const ROUNDS: u32 = 16;
/// Address-space stride between the GPUs of one node (each device's allocations in a range of
/// its own, so that an address names its device).
const GPU_RANGE: u64 = 1 << 40;
/// What a wait that gave up leaves in `times[0]` (`nodepp.hip`).
const GAVE_UP: u32 = u32::MAX;
/// Loads a GPU wave makes waiting for one flag value before it gives up (`nodepp.hip`): a
/// stale copy shows in the first few; a partner's answer arrives within a few link round
/// trips, far fewer polls.
pub const GPU_POLLS: u32 = 2000;
/// Reads the CPU core makes waiting for one flag value before it gives up: more than the
/// GPU's [`GPU_POLLS`] loads take at any link latency of the built-in nodes (each at least
/// the core's own access).
const CPU_MAX_POLLS: u64 = 100_000;

/// The partner of GPU 0, and where the flags live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partner {
    /// One wave on GPU 1; each flag in its waiter's own device memory (coarse-grained): each
    /// side stores into the other's memory by peer access and polls its own (as
    /// `sim/tests/suite/cosim.rs`).
    Gpu1,
    /// One wave on GPU 1; each flag in the other GPU's memory: each side polls a line of
    /// peer memory, which its L2 caches as MTYPE NC, and stores into its own.
    Gpu1Pull,
    /// A core of the host CPU; both flags in pinned host memory (`hipHostMalloc`, MTYPE UC).
    Cpu,
    /// A core of the host CPU; both flags in host memory allocated non-coherent (MTYPE NC:
    /// GPU 0's L2 may cache its flag).
    CpuNc,
}

impl Partner {
    /// Rows' `contention` column.
    pub fn name(self) -> &'static str {
        match self {
            Partner::Gpu1 => "gpu0_gpu1",
            Partner::Gpu1Pull => "gpu0_gpu1_pull",
            Partner::Cpu => "gpu0_cpu",
            Partner::CpuNc => "gpu0_cpu_nc",
        }
    }

    /// What the row's `placement` column says.
    fn placement(self) -> &'static str {
        match self {
            Partner::Gpu1 | Partner::Gpu1Pull => "peer",
            Partner::Cpu => "host_pinned",
            Partner::CpuNc => "host_pinned_nc",
        }
    }
}

/// The cases: (node, partner).
pub const CASES: [(&str, Partner); 5] =
    [("mi300x-8", Partner::Gpu1), ("mi300x-8", Partner::Gpu1Pull), ("mi300a-4", Partner::Cpu), ("mi300x-8", Partner::Cpu), ("mi300x-8", Partner::CpuNc)];

/// Whether `t` carries the node ping-pong rows: the MI300X target (not its tgsplit build),
/// which also runs the MI300A case (the same gfx942 code object).
pub fn applies(t: &Target) -> bool {
    t.gpu.name == "mi300x" && !t.tgsplit
}

/// Dispatches [`run`] makes on `t` (for progress).
pub fn count(t: &Target) -> usize {
    if applies(t) {
        CASES.len() * 2
    } else {
        0
    }
}

/// The rows: every case at agent and at system scope.
pub fn run(t: &Target, workloads: &Path, progress: &dyn super::Progress) -> Result<Vec<Row>, String> {
    if !applies(t) {
        return Ok(Vec::new());
    }
    let path = workloads.join(format!("bin/{}/nodepp.co", t.object_dir()));
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let co = codeobj::load(&bytes, None).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (node_name, partner) in CASES {
        let node = Node::built_in(node_name).map_err(|e| e.to_string())?;
        for scope in [Scope::Agent, Scope::System] {
            let got = round_trips(&node, partner, scope, &co).map_err(|e| format!("node ping-pong on {node_name} ({}): {e}", partner.name()))?;
            rows.push(row(&node, partner, scope, &got, t));
            progress.step(&format!("{node_name}: ping-pong {} {}", partner.name(), scope.name()));
        }
    }
    Ok(rows)
}

/// What one ping-pong gave: GPU 0's `times` words, the partner's, and GPU 0's clock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundTrips {
    /// GPU 0: cycles per round trip (or [`GAVE_UP`]), rounds completed, last value read.
    pub gpu0: [u32; 3],
    /// The partner's: GPU 1's words, or the CPU core's (0 or [`GAVE_UP`], rounds answered, last
    /// value read).
    pub partner: [u32; 3],
    pub clock_mhz: u32,
}

impl RoundTrips {
    /// Nanoseconds per round trip, if every round completed.
    pub fn ns(&self) -> Option<f64> {
        (self.gpu0[0] != GAVE_UP).then(|| self.gpu0[0] as f64 * 1000.0 / self.clock_mhz.max(1) as f64)
    }
}

/// A device for GPU `g` of `node` in timing mode on its links.
fn device(node: &Node, g: usize) -> Result<Device, String> {
    let cfg = node.gpus.get(g).ok_or_else(|| format!("node {} has no GPU {g}", node.name()))?;
    let mut d = Device::for_gpu(cfg);
    d.mem = Memory::with_base(HEAP_BASE + g as u64 * GPU_RANGE);
    d.enable_timing(cfg)?;
    d.set_node(node, g)?;
    Ok(d)
}

fn words(d: &mut Device, at: u64) -> [u32; 3] {
    d.synchronize();
    [0, 4, 8].map(|o| d.mem.read_u32(at + o).unwrap_or(GAVE_UP))
}

fn args(mine: u64, theirs: u64, me: u32, times: u64) -> Vec<Vec<u8>> {
    vec![mine.to_le_bytes().to_vec(), theirs.to_le_bytes().to_vec(), me.to_le_bytes().to_vec(), ROUNDS.to_le_bytes().to_vec(), times.to_le_bytes().to_vec()]
}

/// One ping-pong of [`ROUNDS`] rounds on `node` at `scope`; deterministic (seed 0).
pub fn round_trips(node: &Node, partner: Partner, scope: Scope, co: &codeobj::CodeObject) -> Result<RoundTrips, String> {
    let name = format!("npp__{}", scope.name());
    let geo = Geometry { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let opts = EngineOptions::default();
    let mut d0 = device(node, 0)?;
    let clock_mhz = node.gpus[0].timing.as_ref().map_or(1, |t| t.clock_mhz);
    let k0 = d0.load_kernel(co, &name).map_err(|e| e.to_string())?;
    let times0 = d0.alloc("times", 64, MemoryKind::Device);
    match partner {
        Partner::Gpu1 | Partner::Gpu1Pull => {
            let mut d1 = device(node, 1)?;
            let k1 = d1.load_kernel(co, &name).map_err(|e| e.to_string())?;
            let times1 = d1.alloc("times", 64, MemoryKind::Device);
            let flag = [d0.alloc("flag", 64, MemoryKind::Device), d1.alloc("flag", 64, MemoryKind::Device)];
            let v1 = d1.mem.share(flag[1])?;
            d0.mem.map_view(v1, Owner::Gpu(1))?;
            let v0 = d0.mem.share(flag[0])?;
            d1.mem.map_view(v0, Owner::Gpu(0))?;
            // Push: GPU g waits on flag[g] (its own memory); pull: on the other's.
            let (w0, w1) = if partner == Partner::Gpu1 { (flag[0], flag[1]) } else { (flag[1], flag[0]) };
            let (a0, a1) = (args(w0, w1, 0, times0), args(w1, w0, 1, times1));
            let mut launches = [
                Launch { device: &mut d0, gpu: 0, kernel: &k0, geo, args: &a0, opts, start_ns: 0.0, host: None, observer: None },
                Launch { device: &mut d1, gpu: 1, kernel: &k1, geo, args: &a1, opts, start_ns: 0.0, host: None, observer: None },
            ];
            let (r, _) = run_with_agents(&mut launches, &mut []);
            for x in r {
                x.map_err(|e| e.to_string())?;
            }
            Ok(RoundTrips { gpu0: words(&mut d0, times0), partner: words(&mut d1, times1), clock_mhz })
        }
        Partner::Cpu | Partner::CpuNc => {
            // Both flags in host memory: GPU 0 waits on `flag[0]`, the core on `flag[1]`.
            let kind = if partner == Partner::Cpu { MemoryKind::HostPinned } else { MemoryKind::HostNonCoherent };
            let flag = [0, 1].map(|i| d0.alloc(&format!("host flag {i}"), 64, kind));
            let mut host = Memory::new();
            for f in flag {
                d0.mem.set_owner(f, Owner::Host);
                let v = d0.mem.share(f)?;
                host.map_view(v, Owner::Local)?;
            }
            let script = (0..ROUNDS).flat_map(|r| {
                [HostOp::SpinUntil { address: flag[1], value: 2 * r + 1, max_polls: CPU_MAX_POLLS }, HostOp::Store { address: flag[0], value: 2 * r + 2 }]
            });
            let mut core = CpuCore::new("host core 0", host, script.collect::<Vec<_>>(), node.config.host.memory_latency_ns);
            let a0 = args(flag[0], flag[1], 0, times0);
            let mut launches = [Launch { device: &mut d0, gpu: 0, kernel: &k0, geo, args: &a0, opts, start_ns: 0.0, host: None, observer: None }];
            let (r, agents) = run_with_agents(&mut launches, &mut [&mut core as &mut dyn NodeAgent]);
            for x in r {
                x.map_err(|e| e.to_string())?;
            }
            let answered = core.log.iter().filter(|s| matches!(core.script[s.op], HostOp::Store { .. })).count() as u32;
            let last = core.log.iter().rev().find(|s| matches!(core.script[s.op], HostOp::SpinUntil { .. })).map_or(0, |s| s.value);
            let failed = agents.iter().any(|a| a.is_err());
            Ok(RoundTrips { gpu0: words(&mut d0, times0), partner: [if failed { GAVE_UP } else { 0 }, answered, last], clock_mhz })
        }
    }
}

/// The row of one ping-pong.
fn row(node: &Node, partner: Partner, scope: Scope, got: &RoundTrips, t: &Target) -> Row {
    let gpu = node.gpus.first().map_or_else(|| t.gpu.name.clone(), |g| g.name.clone());
    let far = if matches!(partner, Partner::Gpu1 | Partner::Gpu1Pull) { Agent::Gpu(1) } else { Agent::Host };
    let link = node.link(Agent::Gpu(0), far);
    let link = match link {
        // An APU's CPU and GPU share its HBM: no wire (the link's figures are its copies').
        Some(l) if l.kind == hipscope_sim::node::LinkKind::SharedMemory => "none: the APU's CPU and GPU share its HBM".to_string(),
        Some(l) => format!("{}, {} ns one way", l.kind, l.latency_ns),
        None => "no link".to_string(),
    };
    let cycles = (got.gpu0[0] != GAVE_UP).then_some(got.gpu0[0] as u64);
    let mut actions = vec![match got.ns() {
        Some(ns) => format!("{ns:.0} ns per round trip at {} MHz ({} rounds)", got.clock_mhz, got.gpu0[1]),
        None => format!(
            "did not complete: GPU 0 gave up in round {} after {GPU_POLLS} loads reading {} (the partner's last read {}): at this scope its loads keep a stale copy of the flag",
            got.gpu0[1], got.gpu0[2], got.partner[2]
        ),
    }];
    actions.push(format!("link: {link}"));
    if far == Agent::Host {
        actions.push(format!("host core: {} ns per access ({})", node.config.host.memory_latency_ns, node.config.host.model));
    }
    Row {
        gpu,
        mode: "CU".into(),
        op: "node_ping_pong".into(),
        scope,
        footprint_bytes: 0,
        contention: partner.name().into(),
        cycles_median: cycles,
        cycles_min: cycles,
        cycles_max: cycles,
        sequence: Vec::new(),
        actions,
        contended: None,
        placement: Some(partner.placement().into()),
        node: Some(format!("GPU 0 of {} ({})", node.name(), partner.name())),
    }
}
