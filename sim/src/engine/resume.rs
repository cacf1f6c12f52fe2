//! The functional engine going on with a dispatch the timing engine sampled
//! ([`crate::sched::sample`]): the waves resident when detail stopped run on from their exact
//! state, and the work-groups not started yet start in the slots left free, in dispatch order;
//! or, given the PC range of the loop the detailed windows ran, only until each wave leaves it.

use super::{livelock, run_wave, schedule_from, settle, FSched, Queue};
use crate::exec::Env;
use crate::exec::MemPort;
use crate::fault::KernelFault;
use crate::memory::Memory;
use crate::sched::{Hooked, Rest, Touched};
use crate::wave::WaveStatus;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// [`crate::sched::FastForward`]: run the resident waves of `s` as `rest` says. Accesses are
/// told to `touched`, if any.
pub(crate) fn resume(s: &mut FSched, rest: Rest, touched: Option<&Touched>, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<(), KernelFault> {
    let port = touched.map(|t| t as &dyn MemPort);
    let ready = |only: Option<&[usize]>| -> Vec<usize> {
        let ready = s.waves.iter().enumerate().filter(|(_, r)| r.as_ref().is_some_and(|r| r.w.status == WaveStatus::Ready));
        ready.map(|(id, _)| id).filter(|id| only.is_none_or(|o| o.contains(id))).collect()
    };
    match rest {
        Rest::All { free, pending } => {
            let ready = ready(None);
            schedule_from(s, env, mem, hooks, free, ready, Queue::Listed(pending.into_iter().peekable()), port)
        }
        Rest::UntilExit(range) => {
            let ready = ready(None);
            s.opts.pc_stop = Some(range);
            let r = until_exit(s, ready, env, mem, port);
            s.opts.pc_stop = None;
            r
        }
        Rest::Only(waves) => {
            let ready = ready(Some(&waves));
            until_exit(s, ready, env, mem, port)
        }
    }
}

/// Run the `ready` waves (picked as [`schedule_from`] picks them) until each has ended, waits
/// at a barrier no ready wave releases, or stopped with its PC outside `s.opts.pc_stop` (when
/// set); no work-group starts. Waves at a barrier whose work-group has a stopped wave stay
/// there (the timing engine releases them).
fn until_exit(s: &mut FSched, mut ready: Vec<usize>, env: &mut Env, mem: &mut Memory, port: Option<&dyn MemPort>) -> Result<(), KernelFault> {
    let (lo, hi) = s.opts.pc_stop.unwrap_or((0, u64::MAX));
    // Slots of work-groups that end here are not reused: nothing starts.
    let mut free = Vec::new();
    let mut rng = StdRng::seed_from_u64(s.opts.seed);
    while !ready.is_empty() {
        let pick = rng.random_range(0..ready.len());
        let quantum = rng.random_range(1..=s.opts.quantum.max(1));
        let id = ready[pick];
        run_wave(s, id, env, mem, quantum, port)?;
        let (status, pc) = s.waves[id].as_ref().map_or((WaveStatus::Done, 0), |r| (r.w.status, r.w.pc));
        if status != WaveStatus::Ready {
            ready.swap_remove(pick);
            settle(s, id, status, &mut free, &mut ready);
        } else if pc < lo || pc > hi {
            ready.swap_remove(pick);
        }
        if s.prog.looping > 0 && s.prog.looping == ready.len() {
            return Err(livelock(s, None));
        }
        if let Some(kind) = s.limit_reached(None) {
            return Err(s.fault_at(id, kind));
        }
    }
    Ok(())
}
