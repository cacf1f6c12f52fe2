//! The SMEM unit: scalar memory instructions issue when the wave is ready; the memory system
//! says when each completes, and the wave's scalar-memory counter holds it until then.

use super::Finish;
use crate::counters::Counter;
use crate::timing::waitcnt::Queue;

/// Count it and put its completion in the wave's scalar-memory queue.
#[inline]
pub(super) fn finish(f: &mut Finish, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsSmem);
    f.wave.x.out.push(f.fam, Queue::Smem, f.done.unwrap_or(f.issue));
    next
}
