//! Functional engine: runs a dispatch's waves to completion.
//!
//! Work-groups are admitted in dispatch order (x fastest) up to a residency limit; a finished
//! group makes room for the next. Among resident waves the scheduler picks one and runs it for
//! a quantum of instructions, until it ends, reaches a barrier, or yields. The choice and the
//! quantum come from a generator seeded with `--seed`, so one seed gives one interleaving,
//! bit-identical on every run, and different seeds explore other legal interleavings (what
//! litmus tests need). Memory is updated immediately (sequential consistency): the cache model
//! of the timing mode is what makes stale values observable.
//!
//! **Seeds and threads.** The seed alone orders racing accesses: with `--threads N` (N > 1) a
//! dispatch first runs its work-groups on N host threads (`par`), each group alone on a
//! copy-on-write view of the starting memory (a worker copies a page at its first write into
//! it, [`crate::memory::Memory::overlay`]), logging which bytes each wave read and wrote
//! (`track`). The parallel result is kept only if it is the result of *every* interleaving:
//! no wave read or wrote bytes another wave of the dispatch wrote, no two waves of a group
//! touched an LDS dword between the same two barriers with one of them writing (`spans`),
//! nothing faulted or hit a limit, and the kernel reads no clock and uses no scratch. Then
//! the sequential engine, whatever the seed, computes the same memory and the same counts
//! (every wave executes the same instructions on the same values), so the parallel run
//! stands in for it. Otherwise — a race, waves that communicate, atomics on a shared word —
//! the dispatch runs again here, sequentially, from the untouched memory, and the seed's
//! interleaving decides as it always has. The decision depends on the kernel's accesses,
//! never on the thread count or on which thread ran which group, so `--threads 1` and
//! `--threads N` give bit-identical memory, counts and output for every kernel and seed.
//! Dispatches with an observer (race detection, the story, traces) or a co-simulation turn
//! always run sequentially: their events must come in the seed's order. So does one whose
//! waves use a hostcall service (device `printf`): HIP compilers hand most kernels the
//! hostcall buffer whether they print or not, so a parallel run is discarded only when a
//! wave touched the buffer's allocation (a kernel that prints waits for the host's answer,
//! which only the sequential engine gives).
//!
//! Residency, barriers, retirement and faults are the shared scheduler's ([`crate::sched`]);
//! this module is the policy: which wave runs next and for how long.

mod auto;
mod par;
mod resume;
mod spans;
mod straight;

pub use par::stood as dispatches_run_in_parallel;
pub(crate) use resume::resume;
mod lds_check;
mod track;

use crate::exec::{execute, Env, ExecCtx, Flow, MemPort};
use crate::fault::{FaultKind, KernelFault};
use crate::host::HostAgent;
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::memory::Memory;
use crate::node::turns::{NodeLivelock, Turn};
use crate::observe::{Executed, Observer, Shared, Watched};
use crate::sched::{fault, fetch, follow, Dispatch, Ended, Engine, Release, Resident, Sched, Storage};
use crate::wave::{Wave, WaveStatus};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

pub use crate::sched::{DispatchStats, EngineOptions, Hooked, RunProgress};

/// The functional engine, as a launch picks it ([`Engine`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct Functional;

impl Engine for Functional {
    fn max_resident_groups(&self, _kernel: &LoadedKernel, _waves_per_group: u32, _lds_bytes: u32, opts: &EngineOptions) -> usize {
        opts.max_resident_groups
    }

    fn run(
        &mut self,
        d: &Dispatch,
        env: &mut Env,
        mem: &mut Memory,
        opts: &EngineOptions,
        host: Option<&mut dyn HostAgent>,
        observer: Option<&mut dyn Observer>,
        turn: Option<&mut Turn>,
    ) -> Result<DispatchStats, KernelFault> {
        run(d, env, mem, opts, Hooked { host, turn }, observer)
    }
}

/// The shared scheduler as this engine uses it: nothing kept per wave or per group.
type FSched<'a, 'm> = Sched<'a, 'm, (), ()>;

/// Run a dispatch to completion.
/// `hooks`: polled between scheduling steps; `observer`: told what the waves do
/// ([`crate::observe`]).
pub fn run(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    opts: &EngineOptions,
    hooks: Hooked,
    mut observer: Option<&mut dyn Observer>,
) -> Result<DispatchStats, KernelFault> {
    let parallel = observer.is_none() && hooks.turn.is_none() && par::eligible(d, opts);
    // `--threads auto`: one thread or several, as `auto` learns per kernel and launch shape
    // from the dispatches it times.
    let learns = parallel && opts.threads_auto;
    let plan = if learns {
        auto::plan(d)
    } else if parallel {
        auto::Plan::Many
    } else {
        auto::Plan::One
    };
    if plan == auto::Plan::Many {
        let (started, hostcall) = (std::time::Instant::now(), hooks.host.as_ref().map(|h| h.hostcall_buffer()));
        let (stood, worked) = par::run(d, env, mem, opts, hostcall);
        if learns {
            auto::record(d, plan, auto::Ran { took: started.elapsed(), worked, instructions: stood.as_ref().map(|s| s.instructions) });
        }
        if let Some(stats) = stood {
            return Ok(stats);
        }
    }
    if let Some(o) = observer.as_deref_mut() {
        o.dispatch_started(&d.info());
    }
    let started = std::time::Instant::now();
    let mut s = Sched::new(d, *opts, observer, Storage::BySlot);
    let r = schedule(&mut s, env, mem, hooks, None);
    if let Some(o) = s.obs.take() {
        o.into_inner().dispatch_ended();
    }
    // After a parallel run that fell back, this run is not the one-thread way's cost to learn.
    if learns && plan == auto::Plan::One && r.is_ok() {
        let took = started.elapsed();
        auto::record(d, plan, auto::Ran { took, worked: took, instructions: Some(s.stats.instructions) });
    }
    r.map(|()| s.stats)
}

/// Run a dispatch on this thread, its global accesses also told to `port`, if any (a warm-up
/// launch that leaves the memory-side cache what it touched, [`crate::sample::Decision::WarmUp`]),
/// until it ends or has executed `budget` wave-instructions (then it stops where it is:
/// `stats.groups` says how many work-groups started). One thread whatever `opts.threads`: the
/// order of the accesses is the seed's, so that what the cache ends holding never depends on
/// the thread count.
pub fn run_watched(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    opts: &EngineOptions,
    hooks: Hooked,
    port: Option<&dyn MemPort>,
    budget: u64,
) -> Result<DispatchStats, KernelFault> {
    let mut o = *opts;
    let bounded = budget < o.max_instructions;
    o.max_instructions = o.max_instructions.min(budget);
    let mut s = Sched::new(d, o, None, Storage::BySlot);
    match schedule(&mut s, env, mem, hooks, port) {
        Err(f) if bounded && matches!(f.kind, FaultKind::LimitReached(_)) && s.stats.instructions >= budget => Ok(s.stats),
        r => r.map(|()| s.stats),
    }
}

/// The scheduling loop: admit, pick a ready wave and run it for a quantum, settle what it did,
/// serve the host, look for a livelock or a limit. `port`: what watches the global accesses.
fn schedule(s: &mut FSched, env: &mut Env, mem: &mut Memory, hooks: Hooked, port: Option<&dyn MemPort>) -> Result<(), KernelFault> {
    // Free residency slots, highest first (the lowest is reused first).
    let free: Vec<u32> = (0..s.d.resident_groups() as u32).rev().collect();
    schedule_from(s, env, mem, hooks, free, Vec::new(), Queue::InOrder, port)
}

/// Which work-groups start next.
enum Queue {
    /// Every group of the dispatch, in dispatch order.
    InOrder,
    /// These, in this order (the rest of a sampled timing dispatch, [`resume`]).
    Listed(std::iter::Peekable<std::vec::IntoIter<u64>>),
}

/// [`schedule`] from free slots `free`, ready waves `ready` (ids), and groups to start `queue`;
/// `port`: what watches the global accesses ([`crate::sched::Touched`]), if anything.
#[allow(clippy::too_many_arguments)]
fn schedule_from(
    s: &mut FSched,
    env: &mut Env,
    mem: &mut Memory,
    hooks: Hooked,
    mut free: Vec<u32>,
    mut ready: Vec<usize>,
    mut queue: Queue,
    port: Option<&dyn MemPort>,
) -> Result<(), KernelFault> {
    let Hooked { mut host, mut turn } = hooks;
    let mut rng = StdRng::seed_from_u64(s.opts.seed);
    // `ready`: ids of the ready waves. The list is updated as waves change state, never
    // rebuilt, so picking a wave costs the same however many are resident.
    loop {
        admit(s, &mut free, &mut ready, &mut queue);
        if ready.is_empty() {
            // Only reachable when every live wave waits at a barrier that cannot complete.
            let Some(first) = s.waves.iter().flatten().next() else { break };
            return Err(fault(s.d, &first.w, FaultKind::Deadlock(s.describe_waits())));
        }
        let pick = rng.random_range(0..ready.len());
        let quantum = rng.random_range(1..=s.opts.quantum.max(1));
        let id = ready[pick];
        run_wave(s, id, env, mem, quantum, port)?;
        let status = s.waves[id].as_ref().map_or(WaveStatus::Done, |r| r.w.status);
        if status != WaveStatus::Ready {
            ready.swap_remove(pick);
            settle(s, id, status, &mut free, &mut ready);
        }
        if let Some(h) = host.as_deref_mut() {
            if h.pending(&|a| mem.read_u64(a).ok()) {
                h.serve(mem);
                // The host's answer is a change the waiting waves will see.
                s.prog.advance(0, s.stats.instructions);
            }
        }
        if let Some(t) = turn.as_deref_mut() {
            if t.due(s.stats.instructions) && t.pass(s.stats.instructions, s.prog.epoch).map_err(|n| livelock(s, Some(n)))? {
                // Another GPU changed something: the waves' loops may end.
                s.prog.advance(0, s.stats.instructions);
                t.rebase(s.prog.epoch);
            }
        }
        if s.prog.looping > 0 && s.prog.looping == ready.len() {
            // Co-simulated, another GPU's kernel may still change what these waves wait on.
            let Some(t) = turn.as_deref_mut() else { return Err(livelock(s, None)) };
            t.stall(s.stats.instructions, s.prog.epoch).map_err(|n| livelock(s, Some(n)))?;
            s.prog.advance(0, s.stats.instructions);
            t.rebase(s.prog.epoch);
        }
        if s.opts.no_progress > 0 && s.stats.instructions - s.prog.at_instruction >= s.opts.no_progress && turn.is_none() {
            return Err(no_progress(s));
        }
        if let Some(kind) = s.limit_reached(None) {
            return Err(s.fault_at(ready.first().copied().unwrap_or(id), kind));
        }
    }
    Ok(())
}

/// The livelock fault: every running wave loops, and (`node`) so does every other kernel of
/// the node co-simulated with this one.
#[cold]
fn livelock(s: &FSched, node: Option<NodeLivelock>) -> KernelFault {
    let (first, mut stuck) = s.stuck(s.stats.instructions - s.prog.at_instruction, None, None);
    if let Some(NodeLivelock(n)) = node {
        stuck.text = format!("{n}; this kernel: {}", stuck.text);
    }
    let (wave, pc) = first.unwrap_or_default();
    KernelFault { kernel: s.d.kernel.name.clone(), wave, pc, kind: FaultKind::Livelock(Box::new(stuck)) }
}

/// The no-progress fault: no wave changed memory for `--no-progress-cycles` (here
/// instructions) although not every wave was proven to loop.
#[cold]
fn no_progress(s: &FSched) -> KernelFault {
    let (first, stuck) = s.stuck(s.stats.instructions - s.prog.at_instruction, None, Some(s.opts.no_progress));
    let (wave, pc) = first.unwrap_or_default();
    KernelFault { kernel: s.d.kernel.name.clone(), wave, pc, kind: FaultKind::NoProgressBound(Box::new(stuck)) }
}

/// Fill free residency slots with the next work-groups in dispatch order; their waves are
/// ready.
fn admit(s: &mut FSched, free: &mut Vec<u32>, ready: &mut Vec<usize>, queue: &mut Queue) {
    loop {
        let n = match queue {
            Queue::InOrder if s.stats.groups < s.d.geo.group_count() => s.stats.groups,
            Queue::Listed(list) => match list.peek() {
                Some(&n) => n,
                None => break,
            },
            Queue::InOrder => break,
        };
        let Some(slot) = free.pop() else { break };
        if let Queue::Listed(list) = queue {
            list.next();
        }
        let gid = s.start_group(n, slot, 0, (), |_, _, _, _, _| ());
        if let Some(g) = &s.groups[gid] {
            ready.extend(&g.waves);
        }
    }
}

/// Wave `id` stopped being ready with `status`: it ended (its group may retire or release
/// its barrier) or waits at the barrier (which may release). Released waves are ready again.
fn settle(s: &mut FSched, id: usize, status: WaveStatus, free: &mut Vec<u32>, ready: &mut Vec<usize>) {
    let wake = |id: usize, _: &mut Resident<()>, _: Release, _: Option<&Shared>| ready.push(id);
    let released = match status {
        WaveStatus::Done => match s.end_wave(id, 0, wake) {
            Ended::Retired { slot, .. } => {
                free.push(slot);
                free.sort_unstable_by(|a, b| b.cmp(a));
                false
            }
            Ended::Live { released } => released,
        },
        _ => s.arrive(id, 0, wake),
    };
    if released {
        s.prog.advance(0, s.stats.instructions);
    }
}

/// A straight run ([`straight`]) of wave `w` from slot `idx`: at most `room`
/// instructions, one while a sampled loop's bounds are watched (they are tested before each
/// instruction), and none that would reach the runaway `limit` (that instruction faults on the
/// general path, as it always has). Its instructions are counted in `stats` as
/// [`DispatchStats::retire`] would count them one by one (the bound keeps the limit out of reach).
#[inline]
#[allow(clippy::too_many_arguments)]
fn straight_run(code: &[CodeSlot], idx: usize, room: u32, bounded: bool, limit: u64, w: &mut Wave, env: &Env, stats: &mut DispatchStats) -> usize {
    let room = if bounded { 1 } else { room as u64 };
    let room = room.min(limit.saturating_sub(w.instructions));
    let n = straight::run(code, idx, room as usize, w, env, &mut stats.opcode_counts);
    w.instructions += n as u64;
    stats.instructions += n as u64;
    n
}

/// Run wave `id` for up to `quantum` instructions, telling the scheduler's progress when it
/// changes memory and its watch what it executes; `port`: where global accesses go when no
/// observer watches (a parallel worker's [`track::Tracker`]).
fn run_wave(s: &mut FSched, id: usize, env: &mut Env, mem: &mut Memory, quantum: u32, port: Option<&dyn MemPort>) -> Result<(), KernelFault> {
    let d = s.d;
    let k = d.kernel;
    let Sched { waves, groups, stats, prog, obs, opts, regions, watch_lanes, .. } = s;
    let (obs, regions) = (&*obs, &*regions);
    let Some(r) = waves[id].as_mut() else { return Ok(()) };
    let lds = groups[r.group].as_mut().map_or(&mut [][..], |g| &mut g.lds[..]);
    let watched = obs.as_ref().filter(|_| *watch_lanes).map(|o| Watched { inner: None, obs: o, regions });
    let w = &mut r.w;
    let mut idx = k.index_of(w.pc).map_err(|kind| fault(d, w, kind))?;
    let code = &k.code[..];
    let mut done = 0;
    while done < quantum {
        if opts.pc_stop.is_some_and(|(lo, hi)| w.pc < lo || w.pc > hi) {
            // Out of the sampled loop: the timing engine goes on with it (resume::until_exit).
            return Ok(());
        }
        if obs.is_none() && code.get(idx).is_some_and(straight::candidate) {
            let n = straight_run(code, idx, quantum - done, opts.pc_stop.is_some(), opts.max_wave_instructions, w, env, stats);
            if n > 0 {
                // Of the steps below only the clock, the move and the watch remain: nothing was
                // written to memory, observed or jumped, and the run counted itself.
                env.clock += n as u64;
                let last = fetch(code, idx + n - 1).map_err(|kind| fault(d, w, kind))?;
                idx += n - 1;
                follow(k, w, &mut idx, last.inst.next_address(), Flow::Next).map_err(|kind| fault(d, w, kind))?;
                r.watch.ran(prog.epoch, n as u64);
                done += n as u32;
                continue;
            }
        }
        done += 1;
        let e = fetch(code, idx).map_err(|kind| fault(d, w, kind))?;
        let writes = w.writes;
        if let Some(o) = obs {
            o.borrow_mut().executed(&Executed { wave: w.id, wave_index: w.global_index, pc: w.pc, exec: w.exec(), inst: &e.inst, sem: &e.sem, cycle: None });
        }
        let flow = {
            let port = watched.as_ref().map(|wp| wp as &dyn MemPort).or(port);
            let mut cx = ExecCtx { wave: w, mem, port, lds, env };
            execute(&e.sem, &e.inst, &mut cx).map_err(|kind| fault(d, w, kind))?
        };
        if w.writes != writes {
            prog.advance(0, stats.instructions);
        }
        let backward = matches!(flow, Flow::Jump(t) if t <= w.pc);
        env.clock += 1;
        stats.retire(w, e.inst.opcode() as usize, opts.max_wave_instructions).map_err(|kind| fault(d, w, kind))?;
        follow(k, w, &mut idx, e.inst.next_address(), flow).map_err(|kind| fault(d, w, kind))?;
        match flow {
            Flow::End => {
                w.status = WaveStatus::Done;
                return Ok(());
            }
            Flow::Barrier => {
                w.status = WaveStatus::AtBarrier;
                return Ok(());
            }
            Flow::Yield => return Ok(()),
            Flow::Next | Flow::Jump(_) => {}
        }
        if r.watch.step(w, prog.epoch, backward, opts.livelock_check_after) {
            prog.looping += 1;
            // The others may all be looping already: let the scheduler look.
            return Ok(());
        }
    }
    Ok(())
}
