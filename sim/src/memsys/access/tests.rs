//! The lane path's shortcuts against the plain per-lane definition. A lane inside the line
//! the previous lane used skips the allocation, remote-path, L2-mode and open-line checks
//! (`LastLine`), and the open-line search is skipped for a key above every one seen
//! (`OpState::top`). The plain definition takes every lane the whole way and searches every
//! time: a second memory system, identical but for those two shortcuts switched off after each
//! lane, must return the same bytes, results, counters and memory — also when the first takes
//! a load's or store's lanes in one call (`read_lanes`, `write_lanes`), which moves lanes
//! following each other in a kept line in one piece.

use super::*;
use crate::gpus;
use crate::memory::{MemoryKind, Owner, HEAP_BASE};
use crate::memsys::RemotePaths;
use crate::node::Node;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Adjacent allocations of odd sizes and different kinds (so different L2 modes and, with a
/// node's links, different remote paths), then a gap, then more: one cache line spans several
/// allocations, and a lane may step from one into the next or into the gap.
const LAYOUT: [(u64, usize, MemoryKind); 10] = [
    (0, 200, MemoryKind::Device),
    (200, 100, MemoryKind::DeviceFineGrain),
    (300, 72, MemoryKind::HostPinned),
    (372, 1000, MemoryKind::Device),
    (1372, 36, MemoryKind::Managed),
    (1408, 4096, MemoryKind::Device),
    (5504, 300, MemoryKind::HostNonCoherent),
    (5804, 2000, MemoryKind::DeviceFineGrain),
    (7844, 500, MemoryKind::Device),
    (8344, 64, MemoryKind::HostPinned),
];
/// Below the heap, where fixed placements go.
const BASE: u64 = 0x40_0000;
/// The peer GPU's allocation, mapped as GPU 1's memory.
const PEER_BYTES: usize = 4096;

/// The allocations above with seeded bytes, and a peer GPU's allocation; returns the memory
/// and the regions lanes draw their addresses from (the cluster, the peer's).
fn memory(seed: u64) -> (Memory, [(u64, u64); 2]) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut mem = Memory::new();
    for (i, &(off, len, kind)) in LAYOUT.iter().enumerate() {
        let data = (0..len).map(|_| rng.random::<u8>()).collect();
        mem.alloc_at(&format!("a{i}"), BASE + off, data, kind).unwrap();
    }
    let mut other = Memory::with_base(HEAP_BASE + (1 << 40));
    let peer = other.alloc_init("peer", (0..PEER_BYTES).map(|_| rng.random::<u8>()).collect(), MemoryKind::Device);
    mem.map_view(other.share(peer).unwrap(), Owner::Gpu(1)).unwrap();
    let (last_off, last_len, _) = LAYOUT[LAYOUT.len() - 1];
    (mem, [(BASE, BASE + last_off + last_len as u64), (peer, peer + PEER_BYTES as u64)])
}

/// One wave access: what it does, and each lane's address and size.
struct Access {
    spec: OpSpec,
    lanes: Vec<(u32, u64, usize)>,
}

fn random_access(rng: &mut StdRng, cus: usize, at: u64, regions: &[(u64, u64); 2]) -> Access {
    let kind = match rng.random_range(0..10) {
        0..=4 => OpKind::Load,
        5..=8 => OpKind::Store,
        _ => OpKind::Atomic { returns: rng.random_bool(0.5) },
    };
    let unit = if kind == OpKind::Load && rng.random_bool(0.2) { Unit::Scalar } else { Unit::Vector };
    let policy =
        Policy { bypass_l1: rng.random_bool(0.2), bypass_gl1: rng.random_bool(0.2), bypass_l2: rng.random_bool(0.1), write_through: rng.random_bool(0.2) };
    let spec = OpSpec { cu: rng.random_range(0..cus), unit, kind, policy, at };
    let (lo, hi) = regions[usize::from(rng.random_bool(0.2))];
    let size = [1, 2, 4, 4, 4, 8, 12, 16][rng.random_range(0..8)];
    let n = rng.random_range(1..=64u64);
    let start = lo + rng.random_range(0..hi - lo);
    let stride = rng.random_range(0..300u64);
    let pattern = rng.random_range(0..5);
    let lanes = (0..n)
        .map(|l| {
            let a = match pattern {
                0 => start + l * size as u64,
                1 => start + l * stride,
                2 => start + (n - 1 - l) * size as u64,
                3 => start + (l / 4) * size as u64,
                _ => lo + rng.random_range(0..hi - lo),
            };
            (l as u32, a, size)
        })
        .collect();
    Access { spec, lanes }
}

/// Switch the shortcuts off for the next lane: no kept line, and a search of the open lines
/// for every key.
fn plain(ms: &mut MemSystem) {
    if let Some(st) = ms.op.as_deref_mut() {
        st.last = None;
        st.top = u64::MAX;
    }
}

/// Run `a` on `ms`: the bytes each lane read (or the fault), and the access's result.
fn run(ms: &mut MemSystem, mem: &mut Memory, a: &Access, per_lane: bool, rng: &mut StdRng) -> (Vec<Result<Vec<u8>, Unmapped>>, OpResult) {
    ms.begin(a.spec);
    let mut got = Vec::new();
    for &(lane, address, size) in &a.lanes {
        let bytes: Vec<u8> = (0..size).map(|_| rng.random::<u8>()).collect();
        let r = match a.spec.kind {
            OpKind::Store => ms.write(mem, lane, address, &bytes).map(|_| Vec::new()),
            OpKind::Load => {
                let mut out = vec![0; size];
                ms.read(mem, lane, address, &mut out).map(|_| out)
            }
            OpKind::Atomic { .. } => {
                let mut out = vec![0; size];
                ms.read(mem, lane, address, &mut out).and_then(|_| ms.write(mem, lane, address, &bytes)).map(|_| out)
            }
        };
        got.push(r);
        if per_lane {
            plain(ms);
        }
    }
    (got, ms.end(mem))
}

/// Run `a` with the lanes of a load or store taken at once ([`MemSystem::read_lanes`],
/// [`MemSystem::write_lanes`]; after a faulting lane, the rest at once again), anything else
/// lane by lane: the same bytes and faults per lane as [`run`].
fn run_lanes(ms: &mut MemSystem, mem: &mut Memory, a: &Access, rng: &mut StdRng) -> (Vec<Result<Vec<u8>, Unmapped>>, OpResult) {
    let size = a.lanes.first().map_or(0, |l| l.2);
    if matches!(a.spec.kind, OpKind::Atomic { .. }) || a.lanes.iter().any(|l| l.2 != size) {
        return run(ms, mem, a, false, rng);
    }
    let lanes: Vec<u32> = a.lanes.iter().map(|l| l.0).collect();
    let addrs: Vec<u64> = a.lanes.iter().map(|l| l.1).collect();
    let data: Vec<u8> = (0..size * lanes.len()).map(|_| rng.random::<u8>()).collect();
    let mut out = vec![0; size * lanes.len()];
    let mut faults = vec![None; lanes.len()];
    ms.begin(a.spec);
    let mut from = 0;
    while from < lanes.len() {
        let r = match a.spec.kind {
            OpKind::Store => ms.write_lanes(mem, &lanes[from..], &addrs[from..], size, &data[from * size..]),
            _ => ms.read_lanes(mem, &lanes[from..], &addrs[from..], size, &mut out[from * size..]),
        };
        match r {
            Ok(()) => break,
            Err((i, e)) => {
                faults[from + i] = Some(e);
                from += i + 1;
            }
        }
    }
    let got = faults
        .into_iter()
        .enumerate()
        .map(|(i, f)| match (f, a.spec.kind) {
            (Some(e), _) => Err(e),
            (None, OpKind::Store) => Ok(Vec::new()),
            (None, _) => Ok(out[i * size..(i + 1) * size].to_vec()),
        })
        .collect();
    (got, ms.end(mem))
}

/// Every byte of the cluster and the peer's allocation, as memory holds them once the caches
/// are written back.
fn contents(ms: &MemSystem, mem: &Memory, regions: &[(u64, u64); 2]) -> Vec<u8> {
    let mut mem = mem.clone();
    ms.flush_to(&mut mem);
    let mut out = Vec::new();
    for &(lo, hi) in regions {
        let mut b = vec![0; (hi - lo) as usize];
        mem.read_clamped(lo, &mut b);
        out.extend(b);
    }
    out
}

/// `ops` random accesses on two copies of `ms` and of the memory, one with the shortcuts
/// (`at_once`: and a load's or store's lanes taken in one call), one without; every lane's
/// bytes, every result, the counters and memory must agree.
fn compare(name: &str, ms: MemSystem, cus: usize, seed: u64, ops: usize, at_once: bool) {
    let (mut mem_fast, regions) = memory(seed);
    let mut mem_plain = mem_fast.clone();
    let (mut fast, mut plain_ms) = (ms.clone(), ms);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x5eed);
    let mut at = 0;
    for i in 0..ops {
        at += rng.random_range(0..400u64);
        let a = random_access(&mut rng, cus, at, &regions);
        let data_seed = rng.random::<u64>();
        let mut data = StdRng::seed_from_u64(data_seed);
        let f = if at_once { run_lanes(&mut fast, &mut mem_fast, &a, &mut data) } else { run(&mut fast, &mut mem_fast, &a, false, &mut data) };
        let p = run(&mut plain_ms, &mut mem_plain, &a, true, &mut StdRng::seed_from_u64(data_seed));
        assert_eq!(f, p, "{name} seed {seed}: access {i} ({:?}, lanes {:?}) differs from the per-lane path", a.spec, a.lanes);
    }
    assert_eq!(fast.counters, plain_ms.counters, "{name} seed {seed}: counters");
    assert_eq!(contents(&fast, &mem_fast, &regions), contents(&plain_ms, &mem_plain, &regions), "{name} seed {seed}: memory");
    assert_eq!(fast.end_kernel(&mut mem_fast, at), plain_ms.end_kernel(&mut mem_plain, at), "{name} seed {seed}: kernel end");
}

#[test]
fn lanes_in_a_kept_line_match_the_per_lane_path() {
    for gpu in ["mi210", "mi300x", "mi355x", "rx7900xtx", "rx6900xt"] {
        let g = gpus::builtin(gpu).unwrap();
        let t = g.timing.clone().unwrap();
        for seed in [1, 2, 3] {
            let mut ms = MemSystem::new(&t, g.compute_units);
            // Seeded reordering (seed 3) keeps stores on the shortcut and loads off it.
            if seed == 3 {
                ms.set_seed(seed);
            }
            compare(gpu, ms.clone(), g.compute_units as usize, seed, 400, false);
            compare(gpu, ms, g.compute_units as usize, seed, 400, true);
        }
    }
}

/// With a node's links, host memory and the peer's memory take remote paths, different from
/// the local allocations beside them in one line.
#[test]
fn lanes_in_a_kept_line_match_the_per_lane_path_across_remote_paths() {
    let node = Node::built_in("mi300x-8").unwrap();
    let g = &node.gpus[0];
    let t = g.timing.clone().unwrap();
    for seed in [4, 5, 6] {
        let mut ms = MemSystem::new(&t, g.compute_units);
        ms.set_remote_paths(&RemotePaths::from_node(&node, 0, t.clock_mhz));
        compare("mi300x-8", ms.clone(), g.compute_units as usize, seed, 400, false);
        compare("mi300x-8", ms, g.compute_units as usize, seed, 400, true);
    }
}
