//! The hardware layer on a node: a test whose threads run on several GPUs (`@ device D` in
//! the HIP dialect, `(agent …)` subtrees in a LISA scope tree) runs as one kernel per GPU,
//! launched together on one simulated timeline ([`hipscope_sim::cosim::run_with_agents`]).
//!
//! Agent `D` is GPU `D` of the node that holds the tested GPU (`mi300x` → `mi300x-8`). Each
//! GPU's kernel is the test with only that GPU's threads, compiled as a one-GPU test is; the
//! test's locations live in the memory of the GPU of the lowest agent and the other GPUs reach
//! them as peer memory (in timing mode over the node's links, `Device::set_node`). Each GPU's
//! memory is a range of its own, so an address names its GPU.
//!
//! Threads on the host (`@ host`) run on modelled cores of the node's host CPU, one core each
//! ([`super::host`]), taking turns with the kernels. A test with a host thread keeps all its
//! locations in host memory that every GPU of the node reaches (coherent or not as
//! [`HostAlloc`] says), so the GPUs' accesses travel their links to the host. The tested GPU
//! needs no node of its own: the first built-in node made of it is used (`mi300x` →
//! `mi300x-8`, `mi300a` → `mi300a-4`, `rx7900xtx` → `rx7900xtx-pcie`); a GPU no built-in node
//! holds is refused with the list of nodes. A host thread's start on the timeline is drawn
//! from the seed (the stream of the GPU threads' delays, after them) anywhere from the kernels'
//! launch to the end of the longest kernel of an undelayed run ([`OnNode::calibrate`]), so
//! that seeds put its accesses before, among and after the GPU threads'; a seed replays it.

use super::codegen::{self, ResultSlot, Unsupported};
use super::host::{self, HostAlloc, HostThread};
use super::{assemble, delay_window_cycles, place, slot_type, target_of, FinalValues, HardwareError, Listed, LOCATION_STRIDE, RESULT_STRIDE};
use crate::litmus::{Litmus, RegId, HOST_AGENT};
use hipscope_mm::lower::Target;
use hipscope_mm::{Value, ValueType};
use hipscope_sim::cosim::{run_with_agents, Launch, NodeAgent};
use hipscope_sim::gpus::{GpuConfig, Mode};
use hipscope_sim::kernel::{LoadedKernel, RawKernel};
use hipscope_sim::memory::{Memory, Owner, HEAP_BASE};
use hipscope_sim::node::cpu::CpuCore;
use hipscope_sim::node::Node;
use hipscope_sim::{Device, EngineOptions, Geometry, MemoryKind};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;

/// Distance between two GPUs' address ranges (1 TiB: far more than a test allocates).
const GPU_RANGE: u64 = 1 << 40;

/// Whether `test` puts threads on more than one agent, or on an agent other than GPU 0.
pub fn spans_agents(test: &Litmus) -> bool {
    // The host's agent is not 0 either.
    test.threads.iter().any(|t| t.placement.agent != 0)
}

/// The built-in node whose GPUs are all `gpu` and that has GPUs `0..=highest` (every node
/// has a host CPU; `host` only words the refusal).
fn node_for(gpu: &GpuConfig, highest: u32, host: bool) -> Result<Node, Unsupported> {
    let fits = |n: &Node| n.gpus.len() > highest as usize && n.gpus.iter().all(|g| g.name == gpu.name);
    if let Some(n) = Node::builtins().into_iter().find(fits) {
        return Ok(n);
    }
    let names =
        Node::builtins().iter().map(|n| format!("{} ({} × {})", n.name(), n.gpus.len(), n.gpus.first().map_or("?", |g| g.name.as_str()))).collect::<Vec<_>>();
    let wanted = match (host, highest) {
        (true, 0) => format!("a thread on the host CPU, which runs on a node of {}s, but no built-in node has one", gpu.name),
        (true, _) => format!("a thread on the host CPU and threads on GPUs 0 to {highest}, but no built-in node has {} {}s", highest + 1, gpu.name),
        (false, _) => format!("threads on GPUs 0 to {highest}, but no built-in node has {} {}s", highest + 1, gpu.name),
    };
    Err(Unsupported(format!("the test places {wanted} (built-in nodes: {})", names.join(", "))))
}

/// One GPU's share of the test.
struct Part {
    gpu: usize,
    /// The test's threads it runs, by their index in the test.
    threads: Vec<usize>,
    device: Device,
    kernel: LoadedKernel,
    geometry: Geometry,
    kernarg: Vec<u8>,
    delays_at: usize,
    results: u64,
    /// Per result slot, (thread in the test, register), and its type.
    slots: Vec<ResultSlot>,
    slot_types: Vec<ValueType>,
    listing: Vec<Listed>,
}

/// The test set up on the node, ready to run many times.
pub struct OnNode {
    pub node: String,
    pub target: Target,
    parts: Vec<Part>,
    locations: u64,
    inits: Vec<(Value, ValueType)>,
    first_group: u32,
    max_delay: u64,
    threads: usize,
    gpu: String,
    /// The threads on the host, each on a core of its own.
    hosts: Vec<OnHost>,
    host_latency_ns: f64,
    /// Picoseconds of one cycle of the tested GPU's clock.
    ps_per_cycle: f64,
    /// The widest start a host thread draws (picoseconds; [`OnNode::calibrate`]).
    host_window_ps: u64,
    /// Where the locations live when a thread runs on the host.
    pub host_alloc: Option<HostAlloc>,
}

/// A host thread: its script (copied fresh for each run) and its core's address space.
struct OnHost {
    thread: usize,
    script: HostThread,
    mem: Memory,
}

impl OnNode {
    /// `test` set up on the node of `gpu`; `host_alloc` says how its locations are allocated
    /// when a thread runs on the host.
    pub fn new(test: &Litmus, gpu: &GpuConfig, mode: Mode, one_xcd: bool, host_alloc: HostAlloc) -> Result<OnNode, HardwareError> {
        let on_host: Vec<usize> = (0..test.threads.len()).filter(|&t| test.threads[t].placement.agent == HOST_AGENT).collect();
        if let Some(why) = on_host.iter().find_map(|&t| host::refusal(test, &test.threads[t])) {
            return Err(why.into());
        }
        let mut agents: Vec<u32> = test.threads.iter().map(|t| t.placement.agent).filter(|&a| a != HOST_AGENT).collect();
        agents.sort_unstable();
        agents.dedup();
        let Some(&highest) = agents.last() else {
            return Err(Unsupported(
                "every thread of the test runs on the host: the hardware layer runs host threads beside a GPU's, and there is none".into(),
            )
            .into());
        };
        let node = node_for(gpu, highest, !on_host.is_empty())?;
        let target = target_of(gpu, mode);
        let mut parts = Vec::with_capacity(agents.len());
        for &a in &agents {
            parts.push(part(test, &node, a as usize, &target, one_xcd)?);
        }
        let host_alloc = (!on_host.is_empty()).then_some(host_alloc);
        let (locations, mut host_mems) =
            place_locations(test, &mut parts, host_alloc, on_host.len()).map_err(|message| HardwareError::Gpu { gpu: gpu.name.clone(), message })?;
        let addresses: Vec<u64> = (0..test.locations.len() as u64).map(|k| locations + k * LOCATION_STRIDE).collect();
        let hosts = on_host
            .iter()
            .zip(host_mems.drain(..))
            .map(|(&t, mem)| OnHost { thread: t, script: HostThread::new(test, &test.threads[t], &addresses), mem })
            .collect();
        let clock_mhz = gpu.timing.as_ref().map_or(1000, |t| t.clock_mhz).max(1);
        let mut on = OnNode {
            node: node.name().to_string(),
            target,
            parts,
            locations,
            inits: test.locations.iter().map(|l| (l.init, l.ty)).collect(),
            first_group: test.threads.first().map_or(0, |t| t.placement.workgroup),
            max_delay: delay_window_cycles(gpu) / super::CYCLES_PER_DELAY_ITERATION,
            threads: test.threads.len(),
            gpu: gpu.name.clone(),
            hosts,
            host_latency_ns: node.config.host.memory_latency_ns,
            ps_per_cycle: 1e6 / f64::from(clock_mhz),
            host_window_ps: 0,
            host_alloc,
        };
        on.calibrate()?;
        Ok(on)
    }

    /// The threads that run on the host.
    pub fn host_threads(&self) -> usize {
        self.hosts.len()
    }

    /// The GPUs the test runs on.
    pub fn gpus(&self) -> Vec<usize> {
        self.parts.iter().map(|p| p.gpu).collect()
    }

    /// Each GPU's code, its threads named by their index in the test.
    pub fn listing(&self) -> Vec<Listed> {
        self.parts.iter().flat_map(|p| p.listing.iter().cloned()).collect()
    }

    /// One run from empty caches with `seed`: every register and location value.
    pub fn run_once(&mut self, seed: u64) -> Result<FinalValues, HardwareError> {
        // Each thread's start delay, drawn in the test's thread order (a stream apart from
        // the engines'), whichever GPU runs it; then each host thread's start.
        let mut rng = StdRng::seed_from_u64(seed ^ 0x6c69_746d_7573_0001);
        let delays: Vec<u32> = (0..self.threads).map(|_| rng.random_range(0..=self.max_delay) as u32).collect();
        let starts: Vec<u64> = self.hosts.iter().map(|_| rng.random_range(0..=self.host_window_ps)).collect();
        self.run_from(seed, &delays, &starts).map(|(values, _)| values)
    }

    /// Where a host thread may start: anywhere from the kernels' launch to the end of the
    /// longest of them, as a run with no delays and every host thread starting at the launch
    /// takes (seed 0: no variation), so that seeds put the host's accesses before, among and
    /// after the GPU threads'.
    fn calibrate(&mut self) -> Result<(), HardwareError> {
        if !self.hosts.is_empty() {
            let (delays, starts) = (vec![0; self.threads], vec![0; self.hosts.len()]);
            self.host_window_ps = self.run_from(0, &delays, &starts)?.1;
        }
        Ok(())
    }

    /// One run with the GPU threads' `delays` (loop iterations) and the host threads' `starts`
    /// (picoseconds): its values, and when its longest kernel ended (picoseconds).
    fn run_from(&mut self, seed: u64, delays: &[u32], starts: &[u64]) -> Result<(FinalValues, u64), HardwareError> {
        let fault = |message: String| HardwareError::Fault { gpu: self.gpu.clone(), seed, message };
        for p in &mut self.parts {
            p.device.reset_caches();
            for slot in 0..p.slots.len() as u64 {
                p.device.write(p.results + RESULT_STRIDE * slot, &[0; RESULT_STRIDE as usize]).map_err(|e| fault(format!("{e:?}")))?;
            }
        }
        for (k, (init, ty)) in self.inits.iter().enumerate() {
            let bytes = (*init as u64).to_le_bytes();
            self.parts[0].device.write(self.locations + k as u64 * LOCATION_STRIDE, &bytes[..usize::from(ty.bytes())]).map_err(|e| fault(format!("{e:?}")))?;
        }
        for p in &mut self.parts {
            for (j, &t) in p.threads.iter().enumerate() {
                let at = p.delays_at + 4 * j;
                p.kernarg[at..at + 4].copy_from_slice(&delays[t].to_le_bytes());
            }
        }
        let opts = EngineOptions { seed, ..EngineOptions::default() };
        let mut launches: Vec<Launch> = self
            .parts
            .iter_mut()
            .map(|p| Launch {
                device: &mut p.device,
                gpu: p.gpu,
                kernel: &p.kernel,
                geo: p.geometry,
                args: std::slice::from_ref(&p.kernarg),
                opts,
                start_ns: 0.0,
                host: None,
                observer: None,
            })
            .collect();
        let host_threads: Vec<usize> = self.hosts.iter().map(|h| h.thread).collect();
        let mut cores: Vec<CpuCore<&mut Memory, HostThread>> = self
            .hosts
            .iter_mut()
            .enumerate()
            .map(|(k, h)| {
                let mut core = CpuCore::new(&format!("host core {k}"), &mut h.mem, h.script.clone(), self.host_latency_ns);
                core.start_ps = starts.get(k).copied().unwrap_or(0);
                core
            })
            .collect();
        let mut agents: Vec<&mut dyn NodeAgent> = cores.iter_mut().map(|c| c as &mut dyn NodeAgent).collect();
        let (results, host_results) = run_with_agents(&mut launches, &mut agents);
        drop((launches, agents));
        let mut cycles = 0;
        for r in results {
            cycles = cycles.max(r.map_err(|e| fault(e.to_string()))?.cycles.unwrap_or(0));
        }
        if let Some(Err(e)) = host_results.into_iter().find(Result::is_err) {
            return Err(fault(e.0));
        }
        let host_regs: Vec<(usize, Vec<Value>)> = host_threads.into_iter().zip(&cores).map(|(t, c)| (t, c.script.registers().to_vec())).collect();
        drop(cores);
        Ok((self.read(seed, host_regs)?, (cycles as f64 * self.ps_per_cycle).round() as u64))
    }

    /// The values a run ended with.
    fn read(&mut self, seed: u64, host_regs: Vec<(usize, Vec<Value>)>) -> Result<FinalValues, HardwareError> {
        let fault = |message: String| HardwareError::Fault { gpu: self.gpu.clone(), seed, message };
        for p in &mut self.parts {
            p.device.synchronize();
        }
        let value = |mem: &Memory, addr: u64, ty: ValueType| {
            let bits = if ty.wide() { mem.read_u64(addr) } else { mem.read_u32(addr).map(u64::from) };
            bits.map(|b| ty.wrap(Value::from(b))).map_err(|e| fault(format!("{e:?}")))
        };
        let (mut regs, mut local) = (BTreeMap::new(), BTreeMap::new());
        for p in &self.parts {
            for (slot, key) in p.slots.iter().enumerate() {
                let ty = p.slot_types.get(slot).copied().unwrap_or(ValueType::INT);
                let v = value(&p.device.mem, p.results + RESULT_STRIDE * slot as u64, ty)?;
                match *key {
                    ResultSlot::Reg(t, r) => regs.insert((t, r), v),
                    ResultSlot::Local(w, loc) => local.insert((w, loc), v),
                };
            }
        }
        for (t, values) in host_regs {
            for (r, v) in values.into_iter().enumerate() {
                regs.insert((t, RegId(r as u16)), v);
            }
        }
        let home = &self.parts[0].device.mem;
        let memory =
            self.inits.iter().enumerate().map(|(k, (_, ty))| value(home, self.locations + k as u64 * LOCATION_STRIDE, *ty)).collect::<Result<Vec<_>, _>>()?;
        Ok(FinalValues { regs, memory, local, first_group: self.first_group })
    }
}

/// The test's locations, every kernel argument naming them filled in: in the memory of the
/// lowest agent's GPU, mapped into the other GPUs' as peer memory; or, with threads on the host
/// (`host`), in host memory allocated as `host` says, mapped into every GPU's address space as
/// the host's and into one address space per host thread (`hosts` of them, returned).
fn place_locations(test: &Litmus, parts: &mut [Part], host: Option<HostAlloc>, hosts: usize) -> Result<(u64, Vec<Memory>), String> {
    let kind = match host {
        None => MemoryKind::Device,
        Some(HostAlloc::Coherent) => MemoryKind::HostPinned,
        Some(HostAlloc::NonCoherent) => MemoryKind::HostNonCoherent,
    };
    let (first, rest) = parts.split_first_mut().ok_or("no GPU runs a thread of the test")?;
    let locations = first.device.alloc("litmus locations", (LOCATION_STRIDE as usize) * test.locations.len().max(1), kind);
    let owner = if host.is_some() {
        first.device.mem.set_owner(locations, Owner::Host);
        Owner::Host
    } else {
        Owner::Gpu(first.gpu as u32)
    };
    for p in rest {
        p.device.mem.map_view(first.device.mem.share(locations)?, owner)?;
    }
    let mut host_mems = Vec::with_capacity(hosts);
    for _ in 0..hosts {
        let mut mem = Memory::new();
        mem.map_view(first.device.mem.share(locations)?, Owner::Local)?;
        host_mems.push(mem);
    }
    for p in parts.iter_mut() {
        for k in 0..test.locations.len() as u64 {
            p.kernarg[8 * k as usize..8 * k as usize + 8].copy_from_slice(&(locations + k * LOCATION_STRIDE).to_le_bytes());
        }
    }
    Ok((locations, host_mems))
}

/// GPU `gpu`'s share of `test`: its threads compiled as a one-GPU test, on a device of its
/// own in the node (the locations' addresses are filled in by the caller).
fn part(test: &Litmus, node: &Node, gpu: usize, target: &Target, one_xcd: bool) -> Result<Part, HardwareError> {
    let cfg = &node.gpus[gpu];
    let err = |message: String| HardwareError::Gpu { gpu: cfg.name.clone(), message };
    let threads: Vec<usize> = (0..test.threads.len()).filter(|&i| test.threads[i].placement.agent as usize == gpu).collect();
    let mut sub = test.clone();
    sub.threads = threads
        .iter()
        .map(|&i| {
            let mut t = test.threads[i].clone();
            t.placement.agent = 0;
            t
        })
        .collect();
    let xcds = cfg.timing.as_ref().map_or(1, |t| t.topology.xcds.max(1));
    let groups = place(&sub, xcds, one_xcd);
    let kernel = codegen::generate(&sub, target, target.wave64, &groups, None)?;
    let asm = assemble::assemble(&kernel, cfg.processor, target.wave64).map_err(|e| err(format!("internal: {e}")))?;
    let mut device = Device::for_gpu(cfg);
    device.mem = Memory::with_base(HEAP_BASE + gpu as u64 * GPU_RANGE);
    device.enable_timing(cfg).map_err(err)?;
    device.set_node(node, gpu).map_err(err)?;
    let kernarg_bytes = (8 * (kernel.locations + kernel.results.len()) + 4 * sub.threads.len()) as u32;
    let descriptor = assemble::descriptor(cfg.processor, target.wave64, target.wgp_mode, target.tgsplit, kernel.vgprs, kernarg_bytes, kernel.lds_bytes);
    let name = format!("litmus:{}:gpu{gpu}", test.name);
    let raw =
        RawKernel { name: &name, processor: cfg.processor, wave64: target.wave64, descriptor, vgprs: kernel.vgprs, code: &asm.code, entry: assemble::ENTRY };
    let loaded = device.load_code(&raw).map_err(|e| err(e.to_string()))?;
    let lanes: u32 = if target.wave64 { 64 } else { 32 };
    let waves = sub.threads.iter().map(|t| t.placement.wave + 1).max().unwrap_or(1);
    let block = waves * lanes;
    let group_count = groups.iter().copied().max().unwrap_or(0) + 1;
    let geometry = Geometry { grid: [group_count * block, 1, 1], block: [block, 1, 1], dynamic_lds: 0 };
    let results = device.alloc("litmus results", (RESULT_STRIDE as usize) * kernel.results.len().max(1), MemoryKind::Device);
    let mut kernarg = vec![0; 8 * kernel.locations];
    for slot in 0..kernel.results.len() as u64 {
        kernarg.extend_from_slice(&(results + RESULT_STRIDE * slot).to_le_bytes());
    }
    let delays_at = kernarg.len();
    kernarg.resize(delays_at + 4 * sub.threads.len(), 0);
    // Back to the test's thread numbers.
    let slots: Vec<ResultSlot> = kernel
        .results
        .iter()
        .map(|s| match *s {
            ResultSlot::Reg(t, r) => ResultSlot::Reg(threads[t], r),
            local => local,
        })
        .collect();
    let listing = asm.listing.into_iter().map(|l| Listed { thread: l.thread.map(|t| threads[t]), ..l }).collect();
    Ok(Part {
        gpu,
        slot_types: slots.iter().map(|s| slot_type(test, *s)).collect(),
        slots,
        threads,
        device,
        kernel: loaded,
        geometry,
        kernarg,
        delays_at,
        results,
        listing,
    })
}
