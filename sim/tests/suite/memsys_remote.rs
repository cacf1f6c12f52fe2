//! Accesses to another agent's memory travel the node's link: a load from host memory or a
//! peer GPU's memory pays the link's one-way latency each way plus the far memory's latency,
//! a stream of them is paced by the link's bandwidth, atomics are performed at the far agent,
//! and an APU's host memory (the same HBM) pays no link. Expected times come from the node
//! configs' figures (`configs/nodes/*.ron`) and the GPU configs' clocks and latencies, not
//! from the simulator's output.

use hipscope_sim::counters::Counter;
use hipscope_sim::gpus::{self, timing::Timing};
use hipscope_sim::memory::{Memory, MemoryKind, Owner, HEAP_BASE};
use hipscope_sim::memsys::{MemSystem, OpKind, OpSpec, Policy, RemotePaths, Unit};
use hipscope_sim::node::{Agent, Node};

fn cycles(ns: f64, clock_mhz: u32) -> u64 {
    (ns * clock_mhz as f64 / 1000.0).round() as u64
}

/// GPU 0 of `node`'s memory system, with the node's links (`linked`) or without.
fn system(node: &Node, linked: bool) -> (MemSystem, Timing) {
    let g = &node.gpus[0];
    let t = g.timing.clone().unwrap();
    let mut ms = MemSystem::new(&t, g.compute_units);
    if linked {
        ms.set_remote_paths(&RemotePaths::from_node(node, 0, t.clock_mhz));
    }
    (ms, t)
}

/// One wave's load of `lanes` × `bytes` consecutive bytes at `base` from `cu` at `at`: when
/// its data is back.
fn load(ms: &mut MemSystem, mem: &Memory, cu: usize, base: u64, lanes: u32, bytes: usize, at: u64) -> u64 {
    ms.begin(OpSpec { cu, unit: Unit::Vector, kind: OpKind::Load, policy: Policy::default(), at });
    let mut b = vec![0u8; bytes];
    for lane in 0..lanes {
        ms.read(mem, lane, base + lane as u64 * bytes as u64, &mut b).unwrap();
    }
    ms.end(&mut Memory::new()).done
}

/// Memory of this GPU (`Device`, `HostPinned`) and a peer's device memory mapped as GPU 1's.
fn memory(peer_kind: MemoryKind) -> (Memory, u64, u64, u64) {
    let mut mem = Memory::new();
    let device = mem.alloc("device", 1 << 20, MemoryKind::Device);
    let host = mem.alloc("pinned", 1 << 20, MemoryKind::HostPinned);
    let mut other = Memory::with_base(HEAP_BASE + (1 << 40));
    let peer = other.alloc("peer", 1 << 20, peer_kind);
    mem.map_view(other.share(peer).unwrap(), Owner::Gpu(1)).unwrap();
    (mem, device, host, peer)
}

/// The round trip over the link from GPU 0 to `far` in GPU 0's cycles: one-way latency each
/// way plus the far memory's latency.
fn round_trip(node: &Node, far: Agent, far_memory_ns: f64) -> u64 {
    let clock = node.gpus[0].timing.as_ref().unwrap().clock_mhz;
    let there = node.direction(Agent::Gpu(0), far).unwrap().latency_ns;
    let back = node.direction(far, Agent::Gpu(0)).unwrap().latency_ns;
    cycles(there, clock) + cycles(back, clock) + cycles(far_memory_ns, clock)
}

/// Cycles a cold line takes from this GPU's own memory past the L2: the MALL's lookup, then DRAM.
fn local_memory(t: &Timing) -> u64 {
    t.mall.as_ref().map_or(0, |m| m.hit_latency_cycles as u64) + t.dram.latency_cycles as u64
}

/// MI300X on its PCIe gen5 link: a cold load from pinned host memory takes at least twice
/// the link's latency plus the host's memory latency, and exactly that round trip instead of
/// the GPU's own memory path, over the same load without the node's links.
#[test]
fn a_host_load_pays_the_pcie_round_trip() {
    let node = Node::built_in("mi300x-8").unwrap();
    let (mem, device, host, _) = memory(MemoryKind::Device);
    let (mut linked, t) = system(&node, true);
    let (mut alone, _) = system(&node, false);
    let link_ns = node.link(Agent::Host, Agent::Gpu(0)).unwrap().latency_ns;
    let rt = round_trip(&node, Agent::Host, node.config.host.memory_latency_ns);
    let far = load(&mut linked, &mem, 0, host, 1, 4, 0);
    let near = load(&mut alone, &mem, 0, host, 1, 4, 0);
    let local = load(&mut linked, &mem, 1, device, 1, 4, 0);
    assert!(far >= 2 * cycles(link_ns, t.clock_mhz), "host load done at {far}");
    assert_eq!(far - near, rt - local_memory(&t), "the link's round trip replaces the local memory path");
    assert!(far > local, "host {far} vs device {local}");
    assert!(linked.counters.get(Counter::RemoteReadBytes) > 0);
    assert_eq!(alone.counters.get(Counter::RemoteReadBytes), 0);
}

/// A peer's fine-grained memory (MTYPE UC: bypasses the L2) over xGMI: the round trip with
/// the peer's DRAM latency, every time; its coarse-grained memory (MTYPE NC) is cached in the
/// local L2, so a second CU's load of the line pays no link.
#[test]
fn a_peer_load_pays_the_xgmi_round_trip() {
    let node = Node::built_in("mi300x-8").unwrap();
    let peer_t = node.gpus[1].timing.clone().unwrap();
    let peer_dram_ns = peer_t.dram.latency_cycles as f64 * 1000.0 / peer_t.clock_mhz as f64;
    let rt = round_trip(&node, Agent::Gpu(1), peer_dram_ns);
    let (mem, device, _, peer) = memory(MemoryKind::DeviceFineGrain);
    let (mut ms, t) = system(&node, true);
    let local = load(&mut ms, &mem, 0, device, 1, 4, 0);
    let far = load(&mut ms, &mem, 1, peer, 1, 4, 0);
    assert!(far >= 2 * cycles(285.0, t.clock_mhz), "peer load done at {far}");
    assert_eq!(far - local, rt - local_memory(&t), "the xGMI round trip replaces the local memory path");
    // Uncached: another CU pays the link again.
    let again = load(&mut ms, &mem, 2, peer, 1, 4, 100_000) - 100_000;
    assert_eq!(again, far, "fine-grained peer memory is not cached");

    let (mem, _, _, peer) = memory(MemoryKind::Device);
    let (mut ms, t) = system(&node, true);
    let first = load(&mut ms, &mem, 0, peer, 1, 4, 0);
    let second = load(&mut ms, &mem, 1, peer, 1, 4, 100_000) - 100_000;
    assert!(first >= 2 * cycles(285.0, t.clock_mhz), "coarse-grained peer load done at {first}");
    assert!(second < first / 2, "the L2 holds the NC line: {second} vs {first} cycles");
    let l2_hit = (t.vector_l1.hit_latency_cycles + t.l2.hit_latency_cycles) as u64;
    assert!(second <= l2_hit + 4, "second load {second} cycles, an L2 hit is {l2_hit}");
}

/// Streaming N bytes from pinned host memory (every CU's waves at once) takes at least N over
/// the link's bandwidth, and not much more: the link, not the GPU, is the limit.
#[test]
fn a_host_stream_is_paced_by_the_link() {
    let node = Node::built_in("mi300x-8").unwrap();
    let (mem, _, host, _) = memory(MemoryKind::Device);
    let (mut ms, t) = system(&node, true);
    let bw = node.direction(Agent::Host, Agent::Gpu(0)).unwrap().bandwidth_bytes_per_ns;
    let bytes_per_cycle = bw * 1000.0 / t.clock_mhz as f64;
    let (waves, per_wave) = (256u64, 64 * 16u64);
    let done = (0..waves).map(|w| load(&mut ms, &mem, w as usize % 64, host + w * per_wave, 64, 16, 0)).max().unwrap();
    let n = (waves * per_wave) as f64;
    let floor = n / bytes_per_cycle;
    assert!(done as f64 >= floor, "{n} bytes in {done} cycles, the link needs {floor:.0}");
    let rt = round_trip(&node, Agent::Host, node.config.host.memory_latency_ns) as f64;
    assert!((done as f64) < floor + 2.0 * rt, "{n} bytes in {done} cycles: more than the link's pace ({floor:.0}) and a round trip");
}

/// One wave-wide `atomicAdd(p, lane + 1)` with return on one address: values and completion.
fn atomic_add(ms: &mut MemSystem, mem: &mut Memory, address: u64, at: u64) -> (Vec<u32>, u64) {
    ms.begin(OpSpec { cu: 0, unit: Unit::Vector, kind: OpKind::Atomic { returns: true }, policy: Policy::default(), at });
    let mut old = Vec::new();
    for lane in 0..64u32 {
        let mut b = [0u8; 4];
        ms.read(mem, lane, address, &mut b).unwrap();
        let v = u32::from_le_bytes(b);
        old.push(v);
        ms.write(mem, lane, address, &(v + lane + 1).to_le_bytes()).unwrap();
    }
    (old, ms.end(mem).done)
}

/// Atomics on host memory (PCIe AtomicOps) and on a peer's memory (xGMI) are performed at the
/// far agent, once per lane: the sum is the CPU reference's, every lane counts once, and the
/// wave waits the link's round trip plus 64 passes of the far unit.
#[test]
fn remote_atomics_are_performed_at_the_far_agent_once_per_lane() {
    let node = Node::built_in("mi300x-8").unwrap();
    let peer_t = node.gpus[1].timing.clone().unwrap();
    let peer_dram_ns = peer_t.dram.latency_cycles as f64 * 1000.0 / peer_t.clock_mhz as f64;
    for (far, far_ns, which) in [(Agent::Host, node.config.host.memory_latency_ns, 0), (Agent::Gpu(1), peer_dram_ns, 1)] {
        let (mut mem, _, host, peer) = memory(MemoryKind::Device);
        let address = if which == 0 { host } else { peer };
        let (mut ms, t) = system(&node, true);
        let (old, done) = atomic_add(&mut ms, &mut mem, address, 0);
        let expected: u32 = (1..=64).sum();
        assert_eq!(mem.read_u32(address), Ok(expected), "{far}: the far memory holds the sum");
        assert_eq!(old.iter().copied().max(), Some(expected - 64), "{far}: lanes serialised");
        assert_eq!(ms.counters.get(Counter::RemoteAtomics), 64, "{far}: one operation per lane");
        let passes = 64.0 / t.l2.atomic_ops_per_cycle as f64;
        let floor = round_trip(&node, far, far_ns) as f64 + passes;
        assert!(done as f64 >= floor, "{far}: done at {done}, the round trip and 64 passes take {floor}");
    }
}

/// A host link without atomics keeps atomics on host memory where they were: beside the GPU's
/// memory, counted as not atomic, none performed at the host.
#[test]
fn a_link_without_atomics_performs_none_at_the_far_side() {
    let base = Node::built_in("mi300x-8").unwrap();
    let mut config = base.config.clone();
    config.host_links[0].link.carries.atomics = false;
    let node = Node::build(config, None).unwrap();
    let (mut mem, _, host, _) = memory(MemoryKind::Device);
    let (mut ms, _) = system(&node, true);
    atomic_add(&mut ms, &mut mem, host, 0);
    assert_eq!(mem.read_u32(host), Ok((1..=64).sum()));
    assert_eq!(ms.counters.get(Counter::RemoteAtomics), 0);
    assert_eq!(ms.counters.get(Counter::SystemAtomicsNotAtomic), 1);
}

/// MI300A: CPU and GPU share the APU's HBM (a `SharedMemory` host link), so host memory costs
/// what it costs without the node; a peer APU's memory is over xGMI.
#[test]
fn an_apu_pays_no_link_for_host_memory() {
    let node = Node::built_in("mi300a-4").unwrap();
    let (mem, _, host, peer) = memory(MemoryKind::DeviceFineGrain);
    let (mut linked, t) = system(&node, true);
    let (mut alone, _) = system(&node, false);
    assert_eq!(load(&mut linked, &mem, 0, host, 1, 4, 0), load(&mut alone, &mem, 0, host, 1, 4, 0));
    assert_eq!(linked.counters.get(Counter::RemoteReadBytes), 0);
    let far = load(&mut linked, &mem, 1, peer, 1, 4, 0);
    let xgmi = node.link(Agent::Gpu(0), Agent::Gpu(1)).unwrap().latency_ns;
    assert!(far >= 2 * cycles(xgmi, t.clock_mhz), "peer APU load done at {far}");
}

/// A lone GPU ([`Node::single`]) reaches host memory over its host link and has no peers.
#[test]
fn a_lone_gpu_has_its_host_link_and_no_peers() {
    let g = gpus::builtin("mi300x").unwrap();
    let paths = RemotePaths::from_node(&Node::single(g.clone()), 0, g.timing.as_ref().unwrap().clock_mhz);
    assert!(paths.host.is_some(), "Node::single keeps its host link");
    assert!(paths.peers.iter().all(Option::is_none));
}
