//! Loads performed at their L2 channel, not at issue (seeded reordering, `memsys::late`):
//! a store a CU issues after its load may be performed first, at another channel, and be
//! what another CU's load takes — load buffering, which AMD GPUs show (Alglave et al.,
//! ASPLOS'15 on GCN; Kirkham et al., OOPSLA'20 on Vega 64) — while coherence holds: a load
//! never takes its own CU's later store to the same location (CoRW), and two stores to one
//! location end in one order for every reader.

use hipscope_sim::gpus;
use hipscope_sim::memory::{Memory, MemoryKind};
use hipscope_sim::memsys::{LateRead, MemSystem, OpKind, OpSpec, Policy, Unit};

fn system() -> MemSystem {
    let g = gpus::builtin("mi210").unwrap();
    MemSystem::new(g.timing.as_ref().unwrap(), g.compute_units)
}

/// An L1-bypassing load (a relaxed agent-scope atomic load: `glc`), its lane-0 reads still to
/// land appended to `late`; returns the value taken at issue.
fn load(ms: &mut MemSystem, mem: &mut Memory, cu: usize, a: u64, at: u64, late: &mut Vec<LateRead>) -> u32 {
    let policy = Policy { bypass_l1: true, ..Policy::default() };
    ms.begin(OpSpec { cu, unit: Unit::Vector, kind: OpKind::Load, policy, at });
    let mut b = [0u8; 4];
    ms.read(mem, 0, a, &mut b).unwrap();
    ms.end(mem);
    ms.take_late_reads(late);
    u32::from_le_bytes(b)
}

fn store(ms: &mut MemSystem, mem: &mut Memory, cu: usize, a: u64, v: u32, at: u64) {
    ms.begin(OpSpec { cu, unit: Unit::Vector, kind: OpKind::Store, policy: Policy::default(), at });
    ms.write(mem, 0, a, &v.to_le_bytes()).unwrap();
    ms.end(mem);
}

fn landed(ms: &MemSystem, mem: &Memory, r: &LateRead) -> u32 {
    let mut b = [0u8; 4];
    ms.landed(mem, r, &mut b);
    u32::from_le_bytes(b)
}

/// CU 0: `r0 = x; y = 1`; CU 1: `r1 = y; x = 1` (x and y on different channels). Returns
/// (r0, r1) as the loads take them at their arrival.
fn lb(seed: u64) -> (u32, u32) {
    let mut ms = system();
    ms.set_seed(seed);
    let mut mem = Memory::new();
    let base = mem.alloc("xy", 4096, MemoryKind::Device);
    let (x, y) = (base, base + 256);
    let (mut l0, mut l1) = (Vec::new(), Vec::new());
    let i0 = load(&mut ms, &mut mem, 0, x, 100, &mut l0);
    let i1 = load(&mut ms, &mut mem, 1, y, 100, &mut l1);
    store(&mut ms, &mut mem, 0, y, 1, 101);
    store(&mut ms, &mut mem, 1, x, 1, 101);
    if seed == 0 {
        assert!(l0.is_empty() && l1.is_empty(), "seed 0: loads take their value at issue");
        return (i0, i1);
    }
    assert_eq!((l0.len(), l1.len()), (1, 1), "each load lands late");
    (landed(&ms, &mem, &l0[0]), landed(&ms, &mem, &l1[0]))
}

#[test]
fn a_later_store_may_be_performed_before_an_earlier_load_of_another_channel() {
    assert_eq!(lb(0), (0, 0), "in issue order nothing is reordered");
    let outcomes: Vec<(u32, u32)> = (1..200).map(lb).collect();
    let both = outcomes.iter().filter(|&&o| o == (1, 1)).count();
    assert!(both > 0, "load buffering never seen: {outcomes:?}");
    assert!(outcomes.contains(&(0, 0)), "nor the in-order outcome");
}

#[test]
fn a_load_never_takes_its_own_later_store_to_the_same_location() {
    for seed in 1..300 {
        let mut ms = system();
        ms.set_seed(seed);
        let mut mem = Memory::new();
        let x = mem.alloc("x", 4096, MemoryKind::Device);
        let mut late = Vec::new();
        load(&mut ms, &mut mem, 0, x, 100, &mut late);
        store(&mut ms, &mut mem, 0, x, 1, 101);
        // Another CU's store, issued later, may still be performed before the load.
        store(&mut ms, &mut mem, 1, x, 2, 102);
        let r0 = landed(&ms, &mem, &late[0]);
        assert_ne!(r0, 1, "seed {seed}: CoRW broken");
        let mut now = Vec::new();
        let last = load(&mut ms, &mut mem, 2, x, 5000, &mut now);
        let last = now.first().map_or(last, |r| landed(&ms, &mem, r));
        // If the load took CU 1's store, that store is coherence-before CU 0's: x ends as 1.
        if r0 == 2 {
            assert_eq!(last, 1, "seed {seed}: CoRW: read 2 before its own store of 1, yet x ends as {last}");
        }
    }
}
