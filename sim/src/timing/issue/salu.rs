//! The SALU unit: the CU's scalar unit issues one instruction per cycle (scalar ALU work,
//! and branches, waits and the other instructions that issue like it).

use super::{occupy, Finish};
use crate::counters::Counter;

/// Take the scalar unit (free from `*free`) for one cycle from `t` or when it frees; the issue
/// cycle.
#[inline]
pub(super) fn reserve(free: &mut u64, t: u64) -> u64 {
    occupy(free, 1, t)
}

/// Count a scalar ALU instruction.
#[inline]
pub(super) fn finish(f: &mut Finish, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsSalu);
    next
}
