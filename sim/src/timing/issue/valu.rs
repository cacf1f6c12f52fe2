//! The VALU unit: a vector ALU instruction occupies its wave's SIMD for the cycles its class
//! gives (`timing::class`).

use super::{occupy, Finish};
use crate::counters::Counter;

/// Take the SIMD (free from `*free`) for `cycles` from `t` or when it frees; the issue cycle.
#[inline]
pub(super) fn reserve(free: &mut u64, cycles: u32, t: u64) -> u64 {
    occupy(free, cycles as u64, t)
}

/// Count it; on RDNA the wave issues again once the instruction has left the SIMD, on
/// GCN/CDNA after the issue interval (`next`).
#[inline]
pub(super) fn finish(f: &mut Finish, cycles: u32, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsValu);
    if f.fam.is_rdna() {
        f.issue + cycles as u64
    } else {
        next
    }
}
