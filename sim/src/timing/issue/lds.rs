//! The LDS unit: a DS instruction takes the LDS of its placement unit (a WGP's two CUs share
//! one) for as many passes as its lanes' bank conflicts need ([`crate::timing::lds_banks`]),
//! and at least as many cycles as its lanes' bytes take at the LDS's bandwidth
//! (`lds.bandwidth_bytes_per_cycle`); its completion goes to the wave's LDS queue. It issues
//! once the LDS is free to take it ([`reserve`]), so back-to-back DS instructions issue at the
//! LDS's rate, not the wave's.

use super::{Finish, Pipes};
use crate::counters::Counter;
use crate::memsys::pipe::SUB;
use crate::timing::lds_banks;
use crate::timing::waitcnt::Queue;

/// The CU whose pipes hold the LDS `cu` uses (the first CU of its placement unit).
#[inline]
fn lds_cu(cu: usize, cus_per_unit: usize) -> usize {
    cu - cu % cus_per_unit.max(1)
}

/// The issue cycle of a DS instruction of a wave on `cu` ready at `t`: the first cycle from
/// `t` its LDS has capacity. The LDS takes instructions in the order it can serve them; a
/// queue in front of it is not modelled (assumed: a wave's next DS instruction waits in the
/// wave until the LDS can start it).
#[inline]
pub(super) fn reserve(pipes: &[Pipes], cu: usize, cus_per_unit: usize, t: u64) -> u64 {
    pipes.get(lds_cu(cu, cus_per_unit)).map_or(t, |p| p.lds.free_from(t))
}

/// Book the LDS passes from the issue cycle, count them and their conflicts, and queue the
/// completion.
#[inline]
pub(super) fn finish(f: &mut Finish, dwords: u32, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsLds);
    let lds = &f.t.lds;
    let mut accesses = f.port.lds.borrow_mut();
    let lanes = if f.wave64 { 64 } else { 32 };
    let (passes, bytes) = if accesses.is_empty() {
        // No per-lane addresses (e.g. every lane inactive, or a DS op without a data
        // access): the instruction's width over the banks.
        ((lanes * dwords).div_ceil(lds.banks.max(1)) as u64, 0)
    } else {
        let c = lds_banks::cycles(&accesses, lds.banks, lds.bank_width_bytes);
        f.counters.add(Counter::SqLdsBankConflict, c.conflicts);
        (c.busy, accesses.iter().map(|a| a.2 as u64).sum::<u64>())
    };
    accesses.clear();
    drop(accesses);
    let busy = passes.max(bytes.div_ceil(lds.bandwidth_bytes_per_cycle.max(1) as u64));
    let start = f.pipes[lds_cu(f.wave.x.cu, f.cus_per_unit)].lds.reserve(f.issue, busy * SUB);
    f.counters.add(Counter::SqLdsIdxActive, busy);
    f.wave.x.out.push(f.fam, Queue::Lds, start + busy + lds.latency_cycles as u64);
    next
}
