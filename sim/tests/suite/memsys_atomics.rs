//! Contended atomics as the hardware performs them: each lane's read-modify-write is done by
//! the atomic unit where the memory lives (an L2 channel, or past the L2s a memory channel),
//! lanes on one address one pass after another at the GPU config's `l2.atomic_ops_per_cycle`,
//! lanes on addresses in different channels in parallel. Expected times come from that
//! configured rate, and values from a CPU reference; timing changes, results do not.

use hipscope_sim::gpus;
use hipscope_sim::memory::{Memory, MemoryKind};
use hipscope_sim::memsys::{MemSystem, OpKind, OpSpec, Policy, Unit};
use hipscope_sim::spec::model::Init;
use hipscope_sim::spec::{self, RunOptions};
use std::path::Path;

fn system(gpu: &str) -> (MemSystem, u32, f64) {
    let g = gpus::builtin(gpu).unwrap();
    let t = g.timing.clone().unwrap();
    // Cycles one pass of the atomic unit takes.
    let slot = 1.0 / t.l2.atomic_ops_per_cycle as f64;
    (MemSystem::new(&t, g.compute_units), g.compute_units, slot)
}

/// One wave-wide `atomicAdd(address(lane), lane + 1)` with return, from `cu` at `at`, done
/// as the timing engine does it (each lane reads, then writes): returns the pre-op values
/// and when the access completes.
fn atomic_add(ms: &mut MemSystem, mem: &mut Memory, cu: usize, lanes: u32, address: impl Fn(u32) -> u64, at: u64) -> (Vec<u32>, u64) {
    ms.begin(OpSpec { cu, unit: Unit::Vector, kind: OpKind::Atomic { returns: true }, policy: Policy::default(), at });
    let mut old = Vec::new();
    for lane in 0..lanes {
        let a = address(lane);
        let mut b = [0u8; 4];
        ms.read(mem, lane, a, &mut b).unwrap();
        let v = u32::from_le_bytes(b);
        old.push(v);
        ms.write(mem, lane, a, &(v + lane + 1).to_le_bytes()).unwrap();
    }
    (old, ms.end(mem).done)
}

/// Completion time (after `at`) of one warm wave atomic of `lanes` lanes on a fresh memory
/// system: the lines are brought into the caches first, long before.
fn warm_atomic(gpu: &str, lanes: u32, stride: u64) -> (u64, f64) {
    let (mut ms, _, slot) = system(gpu);
    let mut mem = Memory::new();
    let base = mem.alloc("x", 64 * 4096, MemoryKind::Device);
    atomic_add(&mut ms, &mut mem, 0, 64, |l| base + l as u64 * stride, 0);
    let at = 1_000_000;
    let (_, done) = atomic_add(&mut ms, &mut mem, 0, lanes, |l| base + l as u64 * stride, at);
    (done - at, slot)
}

/// A wave's 64 atomicAdds to one address take at least 64 passes of the L2 channel's atomic
/// unit (mi210: one L2, device memory cached there), and the time grows with the lanes at
/// the configured rate: 64 lanes take 63 passes longer than one.
#[test]
fn one_address_serialises_at_the_l2_atomic_unit() {
    let (one, slot) = warm_atomic("mi210", 1, 0);
    let (all, _) = warm_atomic("mi210", 64, 0);
    assert!(all as f64 >= 64.0 * slot, "64 lanes on one address done in {all} cycles");
    let grown = (all - one) as f64;
    assert!(grown >= 63.0 * slot && grown <= 63.0 * slot + 2.0, "64 lanes vs 1: {grown} cycles more, expected 63 passes of {slot}");
    let (half, _) = warm_atomic("mi210", 32, 0);
    assert!(((half - one) as f64 - 31.0 * slot).abs() <= 2.0, "32 lanes vs 1: {} cycles more", half - one);
}

/// Eight CUs' waves at once, 64 lanes each: on one address they take 8 × 64 passes of one
/// unit; on addresses a channel interleave apart (lane `l` of every CU in block `l`) each
/// channel's unit sees a few passes, so they finish far sooner. (One wave alone does not
/// show it: its CU sends 64 separate line requests one a cycle, which takes as long as 64
/// passes.)
#[test]
fn addresses_in_different_channels_proceed_in_parallel() {
    let g = gpus::builtin("mi210").unwrap();
    let t = g.timing.unwrap();
    let stride = t.l2.channel_interleave_bytes as u64;
    let run = |address: &dyn Fn(usize, u32) -> u64| {
        let (mut ms, _, slot) = system("mi210");
        let mut mem = Memory::new();
        let base = mem.alloc("x", 64 * 4096, MemoryKind::Device);
        for cu in 0..8 {
            atomic_add(&mut ms, &mut mem, cu, 64, |l| base + address(cu, l), 0);
        }
        let at = 1_000_000;
        let last = (0..8).map(|cu| atomic_add(&mut ms, &mut mem, cu, 64, |l| base + address(cu, l), at).1).max().unwrap();
        (last - at, slot)
    };
    let (same, slot) = run(&|_, _| 0);
    let (spread, _) = run(&|cu, l| l as u64 * stride + cu as u64 * 4);
    assert!(same as f64 >= 8.0 * 64.0 * slot, "8 waves on one address: {same} cycles");
    assert!(same as f64 >= spread as f64 + 6.0 * 64.0 * slot, "one address {same} cycles, spread over channels {spread}");
}

/// With several L2s (mi300x) atomics are performed past them, at the memory channel: the same
/// serialisation holds there, and the value is the sum.
#[test]
fn past_the_l2s_the_memory_channel_serialises_them() {
    let (one, slot) = warm_atomic("mi300x", 1, 0);
    let (all, _) = warm_atomic("mi300x", 64, 0);
    assert!((all - one) as f64 >= 63.0 * slot, "mi300x: 64 lanes {all} cycles, one lane {one}");
}

/// Waves of different CUs on one address queue on the same unit: the second wave's atomic
/// completes at least 64 passes after the first's.
#[test]
fn waves_on_one_address_queue_behind_each_other() {
    let (mut ms, _, slot) = system("mi210");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    atomic_add(&mut ms, &mut mem, 0, 1, |_| a, 0);
    let at = 1_000_000;
    let (_, first) = atomic_add(&mut ms, &mut mem, 0, 64, |_| a, at);
    let (_, second) = atomic_add(&mut ms, &mut mem, 1, 64, |_| a, at);
    assert!((second - first) as f64 >= 64.0 * slot - 1.0, "first {first}, second {second}");
}

/// The values are unchanged: each lane sees the sum of the lanes before it, and memory ends
/// with the CPU's sum.
#[test]
fn contended_values_are_the_cpu_sum() {
    let (mut ms, _, _) = system("mi210");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    let (old, _) = atomic_add(&mut ms, &mut mem, 0, 64, |_| a, 0);
    let mut sum = 0u32;
    for (lane, v) in old.iter().enumerate() {
        assert_eq!(*v, sum, "lane {lane}");
        sum += lane as u32 + 1;
    }
    ms.flush_to(&mut mem);
    assert_eq!(mem.read_u32(a).unwrap(), 64 * 65 / 2);
}

/// A compiled kernel (workloads/histogram.ron: `atomicAdd(&bins[in[i] % nbins], 1)` per lane)
/// on mi210 in timing mode: with every input 0, all 20000 lanes update one bin, so the
/// dispatch takes at least 20000 passes of one channel's atomic unit; random inputs spread
/// over 61 bins (a few passes per request) run much faster. Both counts match a CPU histogram.
#[test]
fn a_kernel_histogram_into_one_bin_is_bound_by_the_atomic_unit() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/histogram.ron");
    let mut parsed = spec::load(&path).unwrap();
    parsed.expect.clear();
    let opts = RunOptions {
        code_object: Some("gfx90a".into()),
        gpu: Some("mi210".into()),
        mode: hipscope_sim::Mode::Timing,
        dump: vec!["in".into(), "bins".into()],
        ..RunOptions::default()
    };
    let (_, _, slot) = system("mi210");
    let random = spec::run(&parsed, &path, &opts).unwrap();
    for (name, b) in parsed.buffers.0.iter_mut() {
        if name == "in" {
            b.init = Init::Zero;
        }
    }
    let zeros = spec::run(&parsed, &path, &opts).unwrap();
    for r in [&random, &zeros] {
        let input: Vec<u32> = r.dumps[0].1.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let mut want = vec![0u32; 61];
        for v in &input[..20000] {
            want[(*v % 61) as usize] += 1;
        }
        let got: Vec<u32> = r.dumps[1].1.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(got, want);
    }
    let (cr, cz) = (random.dispatches[0].cycles.unwrap(), zeros.dispatches[0].cycles.unwrap());
    assert!(cz as f64 >= 20000.0 * slot, "one bin: {cz} cycles");
    assert!(cz > 2 * cr, "one bin {cz} cycles, 61 bins {cr}");
}
