//! Control: branches, the wait instructions, `s_nop`, `s_sleep`, `s_delay_alu`, barriers and
//! the end. They issue like scalar instructions (waits and branches on the scalar unit); what
//! they change is when the wave issues next.

use super::{stalled, Finish, NotReady};
use crate::counters::Counter;
use crate::exec::Flow;
use crate::observe::StallCause;
use crate::timing::waitcnt::{Outstanding, Wait};

/// A wait instruction is not ready before its counters are low enough.
#[inline]
pub(super) fn blocked(wait: Wait, out: &mut Outstanding, t: u64) -> Option<NotReady> {
    let until = out.ready_at(t, &wait);
    (until > t).then_some(NotReady::Waitcnt { wait, until })
}

/// Count a branch; a taken one costs the core's taken-branch cycles more.
#[inline]
pub(super) fn branch(f: &mut Finish, next: u64) -> u64 {
    f.counters.inc(Counter::SqInstsBranch);
    if matches!(f.flow, Flow::Jump(_)) {
        next + f.t.core.branch_taken_cycles as u64
    } else {
        next
    }
}

/// `s_delay_alu`: the next VALU op depends on a recent one, so the wave waits the core's VALU
/// dependency cycles.
#[inline]
pub(super) fn delay_alu(f: &mut Finish) -> u64 {
    f.issue + f.t.core.valu_dependency_cycles as u64
}

/// `s_nop`: its wait states, at least the issue interval (`next`).
#[inline]
pub(super) fn nop(f: &mut Finish, cycles: u32, next: u64) -> u64 {
    f.issue + (cycles as u64).max(next - f.issue)
}

/// `s_sleep`: the wave sleeps for `cycles` (a stall observers see).
#[inline]
pub(super) fn sleep(f: &mut Finish, cycles: u32) -> u64 {
    let next = f.issue + cycles as u64;
    f.wave.x.sleep_until = next;
    stalled(f.obs, &f.wave.w, StallCause::Sleep, f.wave.w.pc, f.issue..next, &"");
    next
}
