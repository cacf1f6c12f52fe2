//! The timing engine: an event-driven simulation of the dispatch. Each wave has the cycle it
//! can issue next; the engine always advances the wave with the earliest cycle (ties by a
//! seeded per-wave priority), so nothing ticks while idle. An instruction issues when its
//! pipeline is free (SIMD for VALU, the CU's scalar unit, LDS, vector memory), executes at
//! issue (memory through the memory system, whose caches decide the data), and sets the
//! wave's next issue cycle; memory operations complete later and are counted against the
//! wave's wait counters, which `s_waitcnt` waits for.
//!
//! The engine is a policy on the shared scheduler ([`crate::sched`]), which keeps the waves
//! and work-groups, their barriers and retirement, and reports faults:
//! * `admit`: where and when work-groups start (placement on CUs, the dispatcher's
//!   rate, launch jitter), and what a wave's end frees;
//! * `step`: one instruction of one wave through the issue units ([`super::issue`]);
//! * `diagnose`: what each wave waits on, for the watchdog's and deadlock reports.

mod admit;
mod diagnose;
mod landing;
mod probe;
mod sample;
mod step;

use super::class::{classify, Class};
use super::issue::{Pipes, WaveTiming};
use super::placement::{Occupancy, Placed};
use super::port::Port;
use crate::counters::{Counter, Counters};
use crate::exec::clock::Rate;
use crate::exec::Env;
use crate::fault::{FaultKind, KernelFault, WaveId};
use crate::gpus::timing::Timing;
use crate::host::HostAgent;
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::memory::Memory;
use crate::memsys::MemSystem;
use crate::node::turns::Turn;
use crate::observe::{DispatchSpan, Layout, Observer, TimingInfo};
use crate::sched::{Dispatch, DispatchStats, Engine, EngineOptions, FastForward, Hooked, Sched, Storage};
use crate::wave::WaveStatus;
use admit::Admission;
use hipscope_isa::Family;
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub use crate::sched::DEFAULT_WATCHDOG_CYCLES;

/// What a timed dispatch did.
#[derive(Debug, Clone)]
pub struct TimingResult {
    pub stats: DispatchStats,
    /// From the dispatch's start to its end timestamp.
    pub cycles: u64,
    /// Device cycle of the end timestamp (where the next dispatch starts).
    pub end: u64,
    pub counters: Counters,
}

/// What timing mode adds to a device: the GPU's timing parameters, its memory system, and
/// the device clock. It is the timing engine as a launch picks it ([`Engine`]).
#[derive(Debug, Clone)]
pub struct TimingState {
    pub cfg: Timing,
    pub compute_units: u32,
    pub ms: MemSystem,
    /// Device cycle at which the next dispatch starts (dispatches run back to back).
    pub clock: u64,
    /// The functional engine's continuation of a sampled dispatch
    /// ([`EngineOptions::work_group_sampling`]), given by the device.
    pub(crate) fast_forward: Option<FastForward>,
}

impl Engine for TimingState {
    fn max_resident_groups(&self, kernel: &LoadedKernel, waves_per_group: u32, lds_bytes: u32, _opts: &EngineOptions) -> usize {
        // The timing engine holds at most what its placement admits; a store sized for every
        // work-group slot of every CU would be far larger on a big GPU.
        Occupancy::of(kernel, waves_per_group, lds_bytes).max_resident_groups(&self.cfg, self.compute_units).max(1) as usize
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
        let hooks = Hooked { host, turn };
        let r = run(d, env, mem, &mut self.ms, &self.cfg, self.compute_units, self.clock, opts, hooks, observer, self.fast_forward)?;
        self.clock = r.end;
        let mut stats = r.stats;
        stats.cycles = Some(r.cycles);
        stats.counters = Some(r.counters);
        Ok(stats)
    }
}

/// The dispatch's timeline.
struct Timeline {
    /// Cycle the dispatch started.
    begin: u64,
    /// The latest cycle anything is known to happen (the end, once every wave ended).
    last: u64,
    /// Last cycle an instruction issued or a wave ended (the watchdog's reference).
    progress: u64,
}

/// A timed dispatch in progress.
struct Sim<'a, 'm> {
    /// The shared scheduler: waves, work-groups, what the dispatch did, the observer.
    s: Sched<'a, 'm, WaveTiming, Placed>,
    t: &'a Timing,
    fam: Family,
    /// The timing class of each code slot.
    classes: Vec<Class>,
    /// Where and when work-groups start.
    admit: Admission,
    /// Per CU, its pipes.
    pipes: Vec<Pipes>,
    /// Waves by the cycle they issue next, then priority, then id (an entry whose wave moved
    /// on is stale and skipped).
    heap: BinaryHeap<Reverse<Event>>,
    port: Port<'m>,
    /// What the engine counts (the memory system counts its own).
    counters: Counters,
    time: Timeline,
    /// Co-simulated with other GPUs' launches ([`crate::node::turns`]): a livelock stalls the
    /// turn (`spinning`, set by the step that proves it) instead of faulting.
    cosim: bool,
    spinning: std::cell::Cell<bool>,
    /// Loads whose value is decided at their arrival at the L2, still to land (seeded
    /// reordering only, [`landing`]).
    landings: landing::Landings,
    /// Work-group-level sampling ([`sample`]).
    sampler: sample::Sampler,
}

/// The timing class of each code slot of `k` (slots that are not instructions fault when
/// reached; they are classed as `Other`).
fn classes_of(k: &LoadedKernel, l2s: usize, t: &Timing) -> Vec<Class> {
    let lanes = if k.wave64 { 64 } else { 32 };
    k.code
        .iter()
        .map(|s| match s {
            CodeSlot::Inst(e) => classify(&e.sem, &e.inst, k.processor, lanes, l2s, &t.core),
            CodeSlot::Invalid { .. } | CodeSlot::End { .. } => Class::Other,
        })
        .collect()
}

/// Run a dispatch with timing, starting at device cycle `t0` (the memory system keeps its
/// state, including when its pipes are busy, across dispatches on one timeline). With an
/// `observer`, what happens is reported to it as it happens; `hooks` are met between
/// instructions (the turn's local measure is the device cycle). `resume`: the functional
/// engine's continuation, for work-group sampling.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    ms: &mut MemSystem,
    t: &Timing,
    cus: u32,
    t0: u64,
    opts: &EngineOptions,
    hooks: Hooked,
    mut observer: Option<&mut dyn Observer>,
    resume: Option<FastForward>,
) -> Result<TimingResult, KernelFault> {
    let k = d.kernel;
    env.rate = Rate::of_mhz(t.clock_mhz);
    let classes = classes_of(k, ms.l2_count(), t);
    let before = ms.counters.clone();
    ms.set_seed(opts.seed);
    ms.begin_kernel();
    let start = t0 + t.dispatch.kernel_start_cycles as u64;
    if let Some(o) = observer.as_deref_mut() {
        let layout = Layout { compute_units: cus.max(1), shader_engines: t.topology.shader_engines, xcds: t.topology.xcds, rdna: k.family.is_rdna() };
        let mut info = d.info();
        info.timing = Some(TimingInfo { clock_mhz: t.clock_mhz, layout });
        o.dispatch_started(&info);
    }
    let admit = Admission::new(d, t, cus, start, opts.seed);
    if !admit.fits_at_all() {
        let what = diagnose::needs_text(admit.needs(), "does not fit on an empty CU");
        return Err(KernelFault {
            kernel: k.name.clone(),
            wave: WaveId { workgroup: [0; 3], wave: 0 },
            pc: k.entry,
            kind: FaultKind::Deadlock(format!("no wave can start: {what}")),
        });
    }
    let sampler = sample::Sampler::new(k, &classes, opts, resume, observer.is_some(), hooks.turn.is_some());
    let mut sim = Sim {
        // The observer's trait-object lifetime shortened to the memory system's.
        s: Sched::new(d, *opts, observer.map(|o| o as &mut dyn Observer), Storage::Reused),
        t,
        fam: k.family,
        classes,
        admit,
        pipes: vec![Pipes::new(t.core.simds_per_cu as usize); cus.max(1) as usize],
        heap: BinaryHeap::new(),
        port: Port { ms: RefCell::new(ms), lds: RefCell::new(Vec::with_capacity(128)) },
        counters: Counters::default(),
        time: Timeline { begin: start, last: start, progress: start },
        cosim: hooks.turn.is_some(),
        spinning: std::cell::Cell::new(false),
        landings: landing::Landings::new(opts.seed != 0),
        sampler,
    };
    sim.s.prog.at_cycle = start;
    sim.admit_anywhere(start);
    sim.sampler.start(sim.admit.last_start);
    let mut hooks = hooks;
    while let Some((at, rate)) = sim.main_loop(env, mem, &mut hooks)? {
        // Reborrowed: detail may go on after the fast-forward (a partial round left).
        let host = hooks.host.as_mut().map(|h| &mut **h as &mut dyn HostAgent);
        let again = Hooked { host, turn: hooks.turn.as_deref_mut() };
        if !sim.fast_forward(at, rate, env, mem, again)? {
            break;
        }
    }
    sim.note_sampling();
    Ok(sim.finish(mem, &before, t0))
}

impl Sim<'_, '_> {
    /// Close the dispatch: the memory system's end of kernel and system-scope release, the
    /// counters, observers told the dispatch's span.
    fn finish(self, mem: &mut Memory, before: &Counters, t0: u64) -> TimingResult {
        let ms = self.port.ms.into_inner();
        let end = ms.end_kernel(mem, self.time.last);
        let mut counters = ms.counters.since(before);
        // Outside this dispatch's counters but inside its time: the system-scope release.
        let released = ms.release_after_kernel(mem, end);
        let cycles = released.max(end) + self.t.dispatch.kernel_end_cycles as u64 - t0;
        for &c in Counter::ALL {
            counters.add(c, self.counters.get(c));
        }
        counters.set(Counter::GrbmGuiActive, cycles);
        // Per shader engine, summed as the hardware counter is (vcopy on MI210: SQ_CYCLES = 8 ×
        // GRBM_GUI_ACTIVE on its 8 engines, SQ_BUSY_CYCLES below that sum).
        counters.set(Counter::SqBusyCycles, self.admit.busy_cycles());
        if let Some(s) = &self.s.stats.sampled {
            sample::scale(&mut counters, s);
            counters.set(Counter::GrbmGuiActive, cycles);
        }
        let stats = self.s.stats;
        if let Some(o) = self.s.obs {
            let o = o.into_inner();
            o.dispatch_span(&DispatchSpan { start: t0, end: t0 + cycles, groups: stats.groups, waves: stats.waves });
            o.dispatch_ended();
        }
        TimingResult { stats, cycles, end: t0 + cycles, counters }
    }

    /// Run the waves to the dispatch's end, or (work-group sampling) to the cycle where the
    /// rate is stable: returns that cycle and the rate.
    fn main_loop(&mut self, env: &mut Env, mem: &mut Memory, hooks: &mut Hooked) -> Result<Option<(u64, f64)>, KernelFault> {
        let Hooked { host, turn } = hooks;
        let mut event = self.heap.pop();
        while let Some(Reverse(e)) = event.take() {
            let (t, id) = (e.at(), e.wave());
            // Where the next wave is taken, not per instruction: one compare when not sampling.
            if t >= self.sampler.next_check {
                let resident = self.s.groups.iter().flatten().count();
                let completed = self.s.stats.instructions - self.in_flight(t);
                let side = self.port.ms.borrow().memory_side();
                if self.sampler.measures() {
                    let waves = &self.s.waves;
                    self.sampler.note_progress(t, |v| {
                        v.extend(waves.iter().map(|r| r.as_ref().map_or(u64::MAX, |r| r.w.instructions - r.x.out.pending(t).iter().sum::<usize>() as u64)));
                    });
                }
                if let Some(rate) = self.sampler.window_ended(t, completed, self.s.stats.groups, resident, side) {
                    return Ok(Some((t, rate)));
                }
            }
            let id = id as usize;
            let ready = self.s.waves[id].as_ref().is_some_and(|r| r.w.status == WaveStatus::Ready && r.x.next == t);
            // Run this wave while it stays the earliest (a stale entry runs nothing).
            let mut at = t;
            if ready {
                loop {
                    // Between any two instructions: a wave spinning alone for the host's
                    // answer must let the host answer.
                    if let Some(h) = host.as_deref_mut() {
                        self.serve_host(h, mem, at);
                    }
                    if let Some(tn) = turn.as_deref_mut() {
                        self.meet(tn, id, at)?;
                    }
                    self.watchdog(id, at, env)?;
                    if self.landings.due <= at {
                        self.landings.land(at, &mut self.port.ms.borrow_mut(), mem, &mut self.s.waves);
                    }
                    if self.sampler.tracks {
                        // The loop a fast-forwarded wave stops leaving (work-group sampling).
                        let pc = self.s.waves[id].as_ref().map_or(0, |r| r.w.pc);
                        self.sampler.saw(pc);
                    }
                    let next = self.step(id, env, mem)?;
                    let Some(next) = next else { break };
                    let prio = self.s.waves[id].as_ref().map_or(0, |r| r.x.prio);
                    let ours = Reverse(Event::new(next, prio, id as u32));
                    match self.heap.peek_mut() {
                        // The earliest other wave goes next and this one takes its place in the
                        // heap: one sift instead of a push and a pop.
                        Some(mut top) if top.0 < ours.0 => event = Some(std::mem::replace(&mut *top, ours)),
                        _ => {
                            at = next;
                            continue;
                        }
                    }
                    break;
                }
            }
            if event.is_none() {
                event = self.heap.pop();
            }
        }
        if let Some(id) = self.s.waves.iter().position(|r| r.as_ref().is_some_and(|r| r.w.status != WaveStatus::Done)) {
            let now = self.time.last;
            let text = self.describe_waves(now, &env.decode, "every live wave waits and none can resume");
            return Err(self.s.fault_at(id, FaultKind::Deadlock(text)));
        }
        Ok(None)
    }

    /// Let the host serve what the kernel posted: it reads memory after the caches wrote their
    /// dirty lines back, and the caches start empty after its answer, as the kernel's
    /// system-scope accesses to the host's buffer would see it. Serving is progress.
    fn serve_host(&mut self, host: &mut dyn HostAgent, mem: &mut Memory, at: u64) {
        let posted = {
            let ms = self.port.ms.borrow();
            host.pending(&|a| ms.peek_u64(mem, a))
        };
        if !posted {
            return;
        }
        let mut ms = self.port.ms.borrow_mut();
        ms.flush_to(mem);
        host.serve(mem);
        ms.reset();
        drop(ms);
        self.time.progress = self.time.progress.max(at);
        self.s.prog.advance(at, self.s.stats.instructions);
    }

    /// Co-simulated: hand the turn over once the local time reaches its horizon, and stall it
    /// when the last step proved every wave loops (restarting the search once the turn is
    /// back: something another GPU did may end the loops).
    #[inline]
    fn meet(&mut self, tn: &mut Turn, id: usize, at: u64) -> Result<(), KernelFault> {
        let restart = if self.spinning.replace(false) {
            tn.stall(at, self.s.prog.epoch).map_err(|n| self.livelock(id, at, Some(n)))?;
            true
        } else {
            tn.due(at) && tn.pass(at, self.s.prog.epoch).map_err(|n| self.livelock(id, at, Some(n)))?
        };
        if restart {
            // Another GPU changed something: the waves' loops may end.
            self.s.prog.advance(at, self.s.stats.instructions);
            tn.rebase(self.s.prog.epoch);
        }
        Ok(())
    }

    /// The watchdog, before wave `id` runs at cycle `at`.
    fn watchdog(&mut self, id: usize, at: u64, env: &Env) -> Result<(), KernelFault> {
        let limit = self.s.opts.watchdog_cycles;
        let progress = self.time.progress;
        if limit == 0 || at <= progress.saturating_add(limit) {
            return Ok(());
        }
        let now = progress.saturating_add(limit);
        let heading = format!("at cycle {now}, nothing since cycle {progress}");
        let waves = self.describe_waves(now, &env.decode, &heading);
        Err(self.s.fault_at(id, FaultKind::NoProgress { cycles: limit, waves }))
    }
}

/// A wave's next turn in the event heap: (cycle, priority, wave) packed into one integer that
/// orders as the tuple does (cycle first, then priority, then wave), so each of the heap's
/// sift steps is one comparison of two numbers instead of up to three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Event(u128);

impl Event {
    pub(super) fn new(at: u64, prio: u32, wave: u32) -> Event {
        Event((at as u128) << 64 | (prio as u128) << 32 | wave as u128)
    }

    fn at(self) -> u64 {
        (self.0 >> 64) as u64
    }

    fn wave(self) -> u32 {
        self.0 as u32
    }
}
