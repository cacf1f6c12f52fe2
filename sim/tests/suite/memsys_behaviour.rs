//! The memory system on its own: data-carrying caches make stale data observable, cache
//! policies and kernel boundaries restore coherence, and request counts follow the rules the
//! real profiles show (see `memsys::coalesce`).

use hipscope_sim::counters::Counter;
use hipscope_sim::gpus;
use hipscope_sim::memory::{Memory, MemoryKind};
use hipscope_sim::memsys::{Level, MemSystem, OpKind, OpResult, OpSpec, Policy, Unit};

fn system(gpu: &str) -> (MemSystem, u32) {
    let g = gpus::builtin(gpu).unwrap();
    let t = g.timing.clone().unwrap();
    (MemSystem::new(&t, g.compute_units), g.compute_units)
}

fn spec(cu: usize, kind: OpKind, policy: Policy, at: u64) -> OpSpec {
    OpSpec { cu, unit: Unit::Vector, kind, policy, at }
}

fn load_u32(ms: &mut MemSystem, mem: &mut Memory, cu: usize, a: u64, policy: Policy, at: u64) -> (u32, u64) {
    ms.begin(spec(cu, OpKind::Load, policy, at));
    let mut b = [0u8; 4];
    ms.read(mem, 0, a, &mut b).unwrap();
    let r = ms.end(mem);
    (u32::from_le_bytes(b), r.done)
}

fn store_u32(ms: &mut MemSystem, mem: &mut Memory, cu: usize, a: u64, v: u32, policy: Policy, at: u64) -> u64 {
    ms.begin(spec(cu, OpKind::Store, policy, at));
    ms.write(mem, 0, a, &v.to_le_bytes()).unwrap();
    ms.end(mem).done
}

#[test]
fn a_stale_l1_line_returns_stale_data_until_bypassed_or_invalidated() {
    let (mut ms, _) = system("mi210");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    mem.write(a, &7u32.to_le_bytes()).unwrap();
    let plain = Policy::default();
    assert_eq!(load_u32(&mut ms, &mut mem, 0, a, plain, 0).0, 7);
    store_u32(&mut ms, &mut mem, 1, a, 8, plain, 1000);
    assert_eq!(load_u32(&mut ms, &mut mem, 0, a, plain, 2000).0, 7, "CU 0's L1 still holds the old line");
    assert_eq!(load_u32(&mut ms, &mut mem, 1, a, plain, 2000).0, 8, "the writer's L1 had no copy: it reads the L2");
    let glc = Policy { bypass_l1: true, ..Policy::default() };
    assert_eq!(load_u32(&mut ms, &mut mem, 0, a, glc, 3000).0, 8, "a glc load reads the L2");
    store_u32(&mut ms, &mut mem, 1, a, 9, plain, 4000);
    ms.invalidate_l1(0);
    assert_eq!(load_u32(&mut ms, &mut mem, 0, a, plain, 5000).0, 9, "after buffer_wbinvl1_vol");
    // Memory itself is behind the write-back L2 until flushed.
    assert_eq!(mem.read_u32(a).unwrap(), 7);
    ms.flush_to(&mut mem);
    assert_eq!(mem.read_u32(a).unwrap(), 9);
}

#[test]
fn another_xcd_reads_memory_until_the_kernel_end_writes_the_l2_back() {
    let (mut ms, cus) = system("mi300x");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    let (cu0, cu_other) = (0usize, cus as usize - 1);
    assert_ne!(ms.xcd_of(cu0), ms.xcd_of(cu_other));
    let plain = Policy::default();
    store_u32(&mut ms, &mut mem, cu0, a, 5, plain, 0);
    assert_eq!(load_u32(&mut ms, &mut mem, cu_other, a, plain, 1000).0, 0, "the other XCD's L2 misses and reads memory");
    let sc1 = Policy { bypass_l1: true, ..plain };
    assert_eq!(load_u32(&mut ms, &mut mem, cu_other, a, sc1, 1500).0, 0, "its L2 now holds the stale line");
    // Kernel boundary: the end writes dirty L2 lines back, the next start drops clean ones.
    ms.end_kernel(&mut mem, 2000);
    ms.begin_kernel();
    assert_eq!(load_u32(&mut ms, &mut mem, cu_other, a, plain, 3000).0, 5);
}

/// A GFX942 `sc1` store writes through its L2 and probes the other L2s' copies away.
#[test]
fn a_write_through_store_reaches_other_xcds() {
    let (mut ms, cus) = system("mi300x");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    let (cu0, cu_other) = (0usize, cus as usize - 1);
    let plain = Policy::default();
    let glc = Policy { bypass_l1: true, ..plain };
    assert_eq!(load_u32(&mut ms, &mut mem, cu_other, a, glc, 0).0, 0);
    store_u32(&mut ms, &mut mem, cu0, a, 6, Policy { write_through: true, ..plain }, 100);
    assert_eq!(mem.read_u32(a).unwrap(), 6, "written through to memory");
    assert_eq!(load_u32(&mut ms, &mut mem, cu_other, a, glc, 200).0, 6, "the reader's L2 copy was probed away");
}

/// One wave64 `global_load_dwordx2` and `global_store_dwordx2` over 512 consecutive bytes,
/// as vcopy does: the per-instruction rates of the real profiles (16 tag accesses; 8 reads of
/// 64 B on MI210, 4 of 128 B on MI300; 8 writes of 64 B).
#[test]
fn vcopy_wave_request_counts() {
    for (gpu, reads) in [("mi100", 8), ("mi210", 8), ("mi300x", 4)] {
        let (mut ms, _) = system(gpu);
        let mut mem = Memory::new();
        let src = mem.alloc("a", 1 << 16, MemoryKind::Device);
        let dst = mem.alloc("c", 1 << 16, MemoryKind::Device);
        ms.begin(spec(0, OpKind::Load, Policy::default(), 0));
        let mut b = [0u8; 8];
        for lane in 0..64u32 {
            ms.read(&mem, lane, src + 8 * lane as u64, &mut b).unwrap();
        }
        let r = ms.end(&mut mem);
        assert_eq!(r.tag_accesses, 16, "{gpu}");
        assert_eq!(ms.counters.get(Counter::TcpTccReadReq), reads, "{gpu}");
        ms.begin(spec(0, OpKind::Store, Policy::default(), 1000));
        for lane in 0..64u32 {
            ms.write(&mut mem, lane, dst + 8 * lane as u64, &[1; 8]).unwrap();
        }
        ms.end(&mut mem);
        assert_eq!(ms.counters.get(Counter::TcpTotalCacheAccesses), 32, "{gpu}");
        assert_eq!(ms.counters.get(Counter::TcpTccWriteReq), 8, "{gpu}");
    }
}

/// A lone access's latency is the sum of the levels it passes (configured from the measured
/// pointer-chase plateaus): L1 hit, L2 hit, memory.
#[test]
fn lone_access_latency_is_the_sum_of_its_levels() {
    let g = gpus::builtin("mi210").unwrap();
    let t = g.timing.clone().unwrap();
    let (mut ms, _) = system("mi210");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 1 << 20, MemoryKind::Device);
    let (l1, l2, dram) = (t.vector_l1.hit_latency_cycles as u64, t.l2.hit_latency_cycles as u64, t.dram.latency_cycles as u64);
    let (_, done) = load_u32(&mut ms, &mut mem, 0, a, Policy::default(), 10_000);
    assert_eq!(done - 10_000, l1 + l2 + dram, "cold miss");
    let (_, done) = load_u32(&mut ms, &mut mem, 0, a, Policy::default(), 20_000);
    assert_eq!(done - 20_000, l1, "L1 hit");
    let (_, done) = load_u32(&mut ms, &mut mem, 1, a, Policy::default(), 30_000);
    assert_eq!(done - 30_000, l1 + l2, "L2 hit from another CU");
}

#[test]
fn unmapped_lanes_are_reported() {
    let (mut ms, _) = system("mi210");
    let mut mem = Memory::new();
    ms.begin(spec(0, OpKind::Load, Policy::default(), 0));
    let mut b = [0u8; 4];
    let e = ms.read(&mem, 3, 0x10, &mut b).unwrap_err();
    assert_eq!(e.address, 0x10);
    ms.end(&mut mem);
}

/// One access of one lane; the result says which level served it.
fn access(ms: &mut MemSystem, mem: &mut Memory, unit: Unit, kind: OpKind, cu: usize, a: u64, at: u64) -> OpResult {
    ms.begin(OpSpec { cu, unit, kind, policy: Policy::default(), at });
    let mut b = [0u8; 4];
    match kind {
        OpKind::Load => ms.read(mem, 0, a, &mut b).unwrap(),
        _ => ms.write(mem, 0, a, &b).unwrap(),
    }
    ms.end(mem)
}

/// The level an access reports is where its line really was: cold memory, then the MALL
/// for another XCD (the memory-side cache filled on the first read), the L2 for a neighbour
/// CU, the L1 for the same CU; stores are acknowledged by the L2; scalar loads hit the
/// scalar cache.
#[test]
fn accesses_report_the_level_that_served_them() {
    let (mut ms, cus) = system("mi300x");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    let (cu0, cu_near, cu_far) = (0usize, 1usize, cus as usize - 1);
    assert_eq!(ms.xcd_of(cu0), ms.xcd_of(cu_near));
    assert_ne!(ms.xcd_of(cu0), ms.xcd_of(cu_far));
    let load = |ms: &mut MemSystem, mem: &mut Memory, cu, at| access(ms, mem, Unit::Vector, OpKind::Load, cu, a, at);
    let first = load(&mut ms, &mut mem, cu0, 0);
    assert_eq!(first.level, Some(Level::Dram));
    assert_eq!(first.lines[Level::Dram as usize], 1);
    assert_eq!(first.lines.iter().sum::<u32>(), 1, "one lane, one line");
    assert_eq!(load(&mut ms, &mut mem, cu0, 5000).level, Some(Level::L1));
    assert_eq!(load(&mut ms, &mut mem, cu_near, 5000).level, Some(Level::L2));
    assert_eq!(load(&mut ms, &mut mem, cu_far, 5000).level, Some(Level::Mall));
    assert_eq!(access(&mut ms, &mut mem, Unit::Vector, OpKind::Store, cu0, a, 6000).level, Some(Level::L2));
    assert_eq!(access(&mut ms, &mut mem, Unit::Scalar, OpKind::Load, cu0, a + 256, 7000).level, Some(Level::Dram));
    assert_eq!(access(&mut ms, &mut mem, Unit::Scalar, OpKind::Load, cu0, a + 256, 9000).level, Some(Level::Scalar));
    ms.begin(OpSpec { cu: cu0, unit: Unit::Vector, kind: OpKind::Load, policy: Policy::default(), at: 9000 });
    let none = ms.end(&mut mem);
    assert_eq!((none.level, none.lines), (None, [0; Level::COUNT]), "no lane touched memory");
}

/// `end` closes the access: a lane access after it is part of no access (it goes straight
/// to memory, as before the first `begin`), so it neither reaches the caches nor changes what
/// the ended access counted.
#[test]
fn an_access_after_end_is_outside_the_ended_one() {
    let (mut ms, _) = system("mi210");
    let mut mem = Memory::new();
    let a = mem.alloc("x", 4096, MemoryKind::Device);
    mem.write(a, &5u32.to_le_bytes()).unwrap();
    load_u32(&mut ms, &mut mem, 0, a, Policy::default(), 0);
    let counted = ms.counters.clone();
    // Memory changes behind the caches; a read outside an access sees memory, not the L1.
    mem.write(a, &6u32.to_le_bytes()).unwrap();
    let mut b = [0u8; 4];
    ms.read(&mem, 0, a, &mut b).unwrap();
    assert_eq!(u32::from_le_bytes(b), 6, "outside an access, reads are memory's");
    assert_eq!(ms.counters.since(&counted).get(Counter::TcpTccReadReq), 0);
    // The next access still sees the line its L1 holds.
    assert_eq!(load_u32(&mut ms, &mut mem, 0, a, Policy::default(), 1000).0, 5, "the L1 kept its copy");
}
