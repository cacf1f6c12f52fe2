//! The functional engine going on with a dispatch the timing engine sampled
//! ([`crate::sched::sample`]): the waves resident when detail stopped run on from their exact
//! state, and the work-groups not started yet start in the slots left free, in dispatch order.

use super::{schedule_from, FSched, Queue};
use crate::exec::Env;
use crate::fault::KernelFault;
use crate::memory::Memory;
use crate::sched::Hooked;
use crate::wave::WaveStatus;

/// [`crate::sched::FastForward`]: run the resident waves of `s` and the work-groups `pending`
/// (free scratch slots `free`, the last one first) to the dispatch's end.
pub(crate) fn resume(s: &mut FSched, free: Vec<u32>, pending: Vec<u64>, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<(), KernelFault> {
    let ready = s.waves.iter().enumerate().filter(|(_, r)| r.as_ref().is_some_and(|r| r.w.status == WaveStatus::Ready)).map(|(id, _)| id).collect();
    schedule_from(s, env, mem, hooks, free, ready, Queue::Listed(pending.into_iter().peekable()))
}
