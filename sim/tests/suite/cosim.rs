//! Kernels on two GPUs run together on one timeline (`run_together`): a flag handed back and
//! forth through peer memory with system-scope atomics, in both modes, with results that do
//! not depend on the host's thread scheduling; a kernel spinning on a flag only its partner
//! sets waits instead of faulting; and when every kernel spins, each faults naming all.
//!
//! The kernels are `data/cosim/pingpong.hip`, built by `data/cosim/build.sh` into the
//! committed gfx942 `pingpong.co`. Expected values follow from the kernels' code (a ping-pong
//! of `rounds` rounds leaves 2·rounds in GPU 0's flag and 2·rounds − 1 in GPU 1's).

use hipscope_isa::codeobj;
use hipscope_sim::cosim::{run_together, Launch};
use hipscope_sim::memory::{Memory, MemoryKind, Owner, HEAP_BASE};
use hipscope_sim::node::{Agent, Node};
use hipscope_sim::{Device, DispatchStats, EngineOptions, FaultKind, Geometry, LaunchError};
use std::path::Path;

const PEER_RANGE: u64 = 1 << 40;

fn code_object() -> codeobj::CodeObject {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cosim/pingpong.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    codeobj::load(&bytes, None).unwrap()
}

/// Two MI300X GPUs of the `mi300x-8` node (in timing mode on its xGMI links), each with a flag
/// word, an output word and a scratch word in its memory, and each mapping the other's memory.
struct Pair {
    devs: Vec<Device>,
    flag: [u64; 2],
    out: [u64; 2],
    scratch: [u64; 2],
}

fn pair(timing: bool) -> Pair {
    let node = Node::built_in("mi300x-8").unwrap();
    let mut devs = Vec::new();
    let (mut flag, mut out, mut scratch) = ([0; 2], [0; 2], [0; 2]);
    for g in 0..2 {
        let cfg = &node.gpus[g];
        let mut d = Device::new(cfg.processor);
        d.mem = Memory::with_base(HEAP_BASE + g as u64 * PEER_RANGE);
        if timing {
            d.enable_timing(cfg).unwrap();
            d.set_node(&node, g).unwrap();
        }
        flag[g] = d.alloc("flag", 256, MemoryKind::Device);
        out[g] = d.alloc("out", 256, MemoryKind::Device);
        scratch[g] = d.alloc("scratch", 256, MemoryKind::Device);
        devs.push(d);
    }
    for (me, other) in [(0, 1), (1, 0)] {
        let view = devs[other].mem.share(flag[other]).unwrap();
        devs[me].mem.map_view(view, Owner::Gpu(other as u32)).unwrap();
    }
    Pair { devs, flag, out, scratch }
}

fn arg(v: u64) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

fn arg32(v: u32) -> Vec<u8> {
    v.to_le_bytes().to_vec()
}

/// Run kernel `names[g]` with `args[g]` on GPU g of `p`, both together, one wave each.
fn together(p: &mut Pair, names: [&str; 2], args: [Vec<Vec<u8>>; 2], seed: u64) -> Vec<Result<DispatchStats, LaunchError>> {
    let co = code_object();
    let kernels: Vec<_> = (0..2).map(|g| p.devs[g].load_kernel(&co, names[g]).unwrap()).collect();
    let geo = Geometry { grid: [64, 1, 1], block: [64, 1, 1], dynamic_lds: 0 };
    let opts = EngineOptions { seed, ..EngineOptions::default() };
    let (d0, d1) = p.devs.split_at_mut(1);
    let mut launches = vec![
        Launch { device: &mut d0[0], gpu: 0, kernel: &kernels[0], geo, args: &args[0], opts, start_ns: 0.0, host: None, observer: None },
        Launch { device: &mut d1[0], gpu: 1, kernel: &kernels[1], geo, args: &args[1], opts, start_ns: 0.0, host: None, observer: None },
    ];
    run_together(&mut launches)
}

fn word(d: &mut Device, address: u64) -> u32 {
    d.synchronize();
    d.mem.read_u32(address).unwrap()
}

/// The ping-pong of `rounds` rounds: each GPU's flag and last value seen, and what each
/// launch did.
fn pingpong(timing: bool, rounds: u32) -> ([u32; 4], Vec<String>) {
    let mut p = pair(timing);
    let args = |me: usize| vec![arg(p.flag[me]), arg(p.flag[1 - me]), arg(p.out[me]), arg32(me as u32), arg32(rounds)];
    let args = [args(0), args(1)];
    let r = together(&mut p, ["pingpong", "pingpong"], args, 7);
    let stats: Vec<String> = r.into_iter().map(|r| format!("{:?}", r.unwrap_or_else(|e| panic!("{e}")))).collect();
    let (f, o) = (p.flag, p.out);
    let words = [word(&mut p.devs[0], f[0]), word(&mut p.devs[1], f[1]), word(&mut p.devs[0], o[0]), word(&mut p.devs[1], o[1])];
    (words, stats)
}

fn check_pingpong(timing: bool) {
    let rounds = 100;
    let (words, stats) = pingpong(timing, rounds);
    assert_eq!(words, [2 * rounds, 2 * rounds - 1, 2 * rounds, 2 * rounds - 1], "flags and last values seen (GPU 0, GPU 1)");
    for run in 1..3 {
        assert_eq!(pingpong(timing, rounds), (words, stats.clone()), "run {run} differs");
    }
    if timing {
        // A round trip carries the flag over the xGMI link and back: at least twice the
        // link's one-way latency (the node config's figure) per round.
        let node = Node::built_in("mi300x-8").unwrap();
        let link = node.link(Agent::Gpu(0), Agent::Gpu(1)).unwrap();
        let clock = node.gpus[0].timing.as_ref().unwrap().clock_mhz;
        let floor = (rounds as f64 * 2.0 * link.latency_ns * clock as f64 / 1000.0) as u64;
        for s in &stats {
            let cycles: u64 = s.split("cycles: Some(").nth(1).and_then(|r| r.split(')').next()).and_then(|c| c.parse().ok()).unwrap();
            assert!(cycles >= floor, "{cycles} cycles for {rounds} round trips, at least {floor}");
            println!("{cycles} cycles for {rounds} round trips ({:.0} ns each)", cycles as f64 * 1000.0 / clock as f64 / rounds as f64);
        }
    }
}

#[test]
fn a_flag_ping_pongs_100_times_between_two_gpus_functional() {
    check_pingpong(false);
}

#[test]
fn a_flag_ping_pongs_100_times_between_two_gpus_timing() {
    check_pingpong(true);
}

/// GPU 0 spins on its flag long enough for its livelock search to prove it loops, while GPU
/// 1 works and then sets it: GPU 0 waits instead of faulting, and sees the 1.
#[test]
fn a_spinning_kernel_waits_for_its_partner_instead_of_faulting() {
    for timing in [false, true] {
        let mut p = pair(timing);
        // Each step is a store (progress) on GPU 1; GPU 0's search proves its loop within a
        // few hundred instructions (`progress::DEFAULT_CHECK_AFTER`) or, in timing mode,
        // 100 000 cycles (`progress::SETTLE_CYCLES`).
        let steps = if timing { 40_000 } else { 20_000 };
        let args = [vec![arg(p.flag[0]), arg(p.out[0])], vec![arg(p.flag[0]), arg(p.scratch[1]), arg32(steps)]];
        let r = together(&mut p, ["wait_forever", "set_after"], args, 1);
        for x in &r {
            assert!(x.is_ok(), "timing {timing}: {x:?}");
        }
        let out = p.out[0];
        assert_eq!(word(&mut p.devs[0], out), 1, "timing {timing}");
        assert_eq!(word(&mut p.devs[1], p.scratch[1]), steps - 1);
    }
}

/// Both GPUs wait for flags nobody sets: each launch faults with a livelock that names both
/// kernels and GPUs.
#[test]
fn when_every_kernel_spins_each_faults_naming_all() {
    for timing in [false, true] {
        let mut p = pair(timing);
        let args = [vec![arg(p.flag[0]), arg(p.out[0])], vec![arg(p.flag[1]), arg(p.out[1])]];
        for r in together(&mut p, ["wait_forever", "wait_forever"], args, 3) {
            let Err(LaunchError::Fault(f)) = r else { panic!("timing {timing}: {r:?}") };
            let FaultKind::Livelock(stuck) = &f.kind else { panic!("timing {timing}: {f}") };
            let text = &stuck.text;
            for who in ["kernel 'wait_forever' on GPU 0", "kernel 'wait_forever' on GPU 1"] {
                assert!(text.contains(who), "timing {timing}: {text}");
            }
        }
    }
}
