//! The LDS unit: a DS instruction takes the LDS of its placement unit (a WGP's two CUs share
//! one) for as many passes as its lanes' bank conflicts need ([`crate::timing::lds_banks`]);
//! its completion goes to the wave's LDS queue.

use super::Finish;
use crate::counters::Counter;
use crate::memsys::pipe::SUB;
use crate::timing::lds_banks;
use crate::timing::waitcnt::Queue;

/// Book the LDS passes from the issue cycle, count them and their conflicts, and queue the
/// completion.
#[inline]
pub(super) fn finish(f: &mut Finish, dwords: u32, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsLds);
    let lds = &f.t.lds;
    let mut accesses = f.port.lds.borrow_mut();
    let passes = if accesses.is_empty() {
        // No per-lane addresses (e.g. every lane inactive, or a DS op without a data
        // access): the instruction's width over the banks.
        let lanes = if f.wave64 { 64 } else { 32 };
        (lanes * dwords).div_ceil(lds.banks.max(1)) as u64
    } else {
        let c = lds_banks::cycles(&accesses, lds.banks, lds.bank_width_bytes);
        f.counters.add(Counter::SqLdsBankConflict, c.conflicts);
        c.busy
    };
    accesses.clear();
    drop(accesses);
    let cu = f.wave.x.cu;
    let lds_cu = cu - cu % f.cus_per_unit;
    let start = f.pipes[lds_cu].lds.reserve(f.issue, passes * SUB);
    f.counters.add(Counter::SqLdsIdxActive, passes);
    f.wave.x.out.push(f.fam, Queue::Lds, start + passes + lds.latency_cycles as u64);
    next
}
