//! The timing engine: an event-driven simulation of the dispatch. Each wave has the cycle it
//! can issue next; the engine always advances the wave with the earliest cycle (ties by a
//! seeded per-wave priority), so nothing ticks while idle. An instruction issues when its
//! pipeline is free (SIMD for VALU, the CU's scalar unit, LDS, vector memory), executes at
//! issue (memory through the memory system, whose caches decide the data), and sets the
//! wave's next issue cycle; memory operations complete later and are counted against the
//! wave's wait counters, which `s_waitcnt` waits for.

use super::class::{classify, Class, Maintenance};
use super::jitter::LaunchJitter;
use super::lds_banks;
use super::placement::{Needs, Occupancy, Placed, Placement};
use super::port::Port;
use super::waitcnt::{self, Outstanding, Queue};
use crate::counters::{Counter, Counters};
use crate::dispatch::{create_group_waves, WaveSetup};
use crate::engine::{fault, Dispatch, DispatchStats, EngineOptions};
use crate::exec::{execute, Env, ExecCtx, Flow, MemPort};
use crate::fault::{FaultKind, KernelFault};
use crate::gpus::timing::Timing;
use crate::host::HostAgent;
use crate::kernel::CodeSlot;
use crate::memory::Memory;
use crate::memsys::pipe::{Pipe, SUB};
use crate::memsys::{MemSystem, OpKind, OpSpec, Unit};
use crate::observe::{
    CacheAction, CacheOp, DispatchSpan, Executed, Layout, Lazy, MemUnit, MemoryDone, Observer, Shared, Stall, StallCause, TimingInfo, Watched, WavePlaced,
    WaveSpan,
};
use crate::progress::{self, Progress, Watch};
use crate::wave::{Wave, WaveStatus};
use hipscope_isa::tables::OPCODE_NAMES;
use hipscope_isa::Family;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod diagnose;

/// Cycles without progress after which the watchdog stops a run, unless told otherwise.
pub const DEFAULT_WATCHDOG_CYCLES: u64 = 10_000_000;

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

struct TWave {
    w: Wave,
    group: usize,
    cu: usize,
    simd: usize,
    idx: usize,
    next: u64,
    prio: u32,
    start: u64,
    out: Outstanding,
    /// End of the `s_sleep` it last executed (for diagnostics).
    sleep_until: u64,
    /// Its search for a repeating state (livelock detection).
    watch: Watch,
}

struct TGroup {
    waves: Vec<usize>,
    lds: Vec<u8>,
    /// Where its waves run.
    placed: Placed,
    live: u32,
    arrived: u32,
    barrier_at: u64,
    slot: u32,
}

#[derive(Clone, Default)]
struct CuPipes {
    simd: Vec<u64>,
    salu: u64,
    vmem: u64,
    lds: Pipe,
}

struct Sim<'a, 'm> {
    d: &'a Dispatch<'a>,
    t: &'a Timing,
    fam: Family,
    classes: Vec<Class>,
    setup: WaveSetup<'a>,
    place: Placement,
    needs: Needs,
    waves: Vec<Option<TWave>>,
    free_waves: Vec<usize>,
    groups: Vec<Option<TGroup>>,
    free_slots: Vec<u32>,
    cus: Vec<CuPipes>,
    heap: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// Per XCD, the next work-group it runs (XCD x runs groups x, x + XCDs, ...).
    next_group: Vec<u64>,
    /// CUs per placement unit: 2 in WGP mode (a work-group's waves may run on either CU of
    /// its WGP, each CU with its own L0 and SIMDs, the LDS shared), 1 otherwise.
    cus_per_unit: usize,
    /// tgsplit mode (GFX90A/GFX942): a work-group's waves spread over several CUs.
    split: bool,
    /// Per shader engine: its first wave's launch and last wave's end (`SQ_BUSY_CYCLES`).
    engine_span: Vec<(u64, u64)>,
    next_wave_index: u32,
    dispatcher_free: u64,
    pool: Vec<Vec<u32>>,
    port: Port<'m>,
    rng: StdRng,
    /// Seeded extra start delay per work-group (none for seed 0).
    jitter: LaunchJitter,
    stats: DispatchStats,
    counters: Counters,
    last: u64,
    /// Last cycle an instruction issued or a wave ended (the watchdog's reference).
    progress: u64,
    /// Visible changes and waves found looping (livelock detection).
    prog: Progress,
    /// Live waves not waiting at a barrier.
    running: usize,
    /// Cycle the dispatch started.
    begin: u64,
    opts: EngineOptions,
    obs: Option<Shared<'m>>,
    /// The observer wants lane accesses (the port reports them).
    watch_lanes: bool,
    /// The scratch backing store and kernarg segment, for observers.
    regions: crate::observe::Regions,
}

/// The timing class of each code slot of `k` (slots that are not instructions fault when
/// reached; they are classed as `Other`).
fn classes_of(k: &crate::kernel::LoadedKernel, l2s: usize, t: &Timing) -> Vec<Class> {
    let lanes = if k.wave64 { 64 } else { 32 };
    k.code
        .iter()
        .map(|s| match s {
            CodeSlot::Inst(e) => classify(&e.sem, &e.inst, k.family, lanes, l2s, &t.core),
            CodeSlot::Invalid { .. } | CodeSlot::End { .. } => Class::Other,
        })
        .collect()
}

/// Run a dispatch with timing, starting at device cycle `t0` (the memory system keeps its
/// state, including when its pipes are busy, across dispatches on one timeline). With an
/// `observer`, what happens is reported to it as it happens.
#[allow(clippy::too_many_arguments)]
pub fn run(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    ms: &mut MemSystem,
    t: &Timing,
    cus: u32,
    t0: u64,
    opts: &EngineOptions,
    host: Option<&mut dyn HostAgent>,
    observer: Option<&mut dyn Observer>,
) -> Result<TimingResult, KernelFault> {
    let k = d.kernel;
    let classes = classes_of(k, ms.l2_count(), t);
    let Occupancy { needs, cus_per_unit, split } = Occupancy::of(k, d.waves_per_group(), d.lds_bytes);
    let before = ms.counters.clone();
    ms.set_seed(opts.seed);
    ms.begin_kernel();
    let start = t0 + t.dispatch.kernel_start_cycles as u64;
    let watch_lanes = observer.as_ref().is_some_and(|o| o.lane_accesses());
    let obs = observer.map(|o| {
        let layout = Layout { compute_units: cus.max(1), shader_engines: t.topology.shader_engines, xcds: t.topology.xcds, rdna: k.family.is_rdna() };
        let mut info = d.info();
        info.timing = Some(TimingInfo { clock_mhz: t.clock_mhz, layout });
        o.dispatch_started(&info);
        RefCell::new(o)
    });
    let mut sim = Sim {
        d,
        t,
        fam: k.family,
        classes,
        setup: WaveSetup { kernel: k, geo: &d.geo, rt: &d.rt, kernarg: &d.kernarg, scratch_base: d.scratch_base, scratch_per_lane: d.scratch_per_lane },
        place: Placement::new(t, cus, cus_per_unit),
        cus_per_unit: cus_per_unit as usize,
        split,
        needs,
        waves: Vec::new(),
        free_waves: Vec::new(),
        groups: Vec::new(),
        free_slots: (0..d.resident_groups() as u32).rev().collect(),
        cus: vec![CuPipes { simd: vec![0; t.core.simds_per_cu as usize], ..CuPipes::default() }; cus.max(1) as usize],
        heap: BinaryHeap::new(),
        next_group: (0..t.topology.xcds.max(1) as u64).collect(),
        engine_span: Vec::new(),
        next_wave_index: 0,
        dispatcher_free: start * SUB,
        pool: Vec::new(),
        port: Port { ms: RefCell::new(ms), lds: RefCell::new(Vec::with_capacity(128)) },
        rng: StdRng::seed_from_u64(opts.seed),
        jitter: LaunchJitter::new(opts.seed),
        stats: DispatchStats { opcode_counts: vec![0; OPCODE_NAMES.len()], ..Default::default() },
        counters: Counters::default(),
        last: start,
        progress: start,
        prog: Progress { at_cycle: start, ..Progress::default() },
        running: 0,
        begin: start,
        opts: *opts,
        obs,
        watch_lanes,
        regions: d.regions(),
    };
    if !sim.place.fits_at_all(&needs) {
        return Err(KernelFault {
            kernel: k.name.clone(),
            wave: crate::fault::WaveId { workgroup: [0; 3], wave: 0 },
            pc: k.entry,
            kind: FaultKind::Deadlock(format!("no wave can start: {}", diagnose::needs_text(&needs, "does not fit on an empty CU"))),
        });
    }
    sim.admit_anywhere(start);
    sim.main_loop(env, mem, host)?;
    let ms = sim.port.ms.into_inner();
    let end = ms.end_kernel(mem, sim.last);
    let mut counters = ms.counters.since(&before);
    // Outside this dispatch's counters but inside its time: the system-scope release.
    let released = ms.release_after_kernel(mem, end);
    let cycles = released.max(end) + t.dispatch.kernel_end_cycles as u64 - t0;
    for &c in Counter::ALL {
        counters.add(c, sim.counters.get(c));
    }
    counters.set(Counter::GrbmGuiActive, cycles);
    // Per shader engine, summed as the hardware counter is (vcopy on MI210: SQ_CYCLES = 8 ×
    // GRBM_GUI_ACTIVE on its 8 engines, SQ_BUSY_CYCLES below that sum).
    counters.set(Counter::SqBusyCycles, sim.engine_span.iter().filter(|s| s.1 > s.0).map(|s| s.1 - s.0).sum());
    if let Some(o) = sim.obs {
        let o = o.into_inner();
        o.dispatch_span(&DispatchSpan { start: t0, end: t0 + cycles, groups: sim.stats.groups, waves: sim.stats.waves });
        o.dispatch_ended();
    }
    Ok(TimingResult { stats: sim.stats, cycles, end: t0 + cycles, counters })
}

/// Tell the observer, if there is one, that wave `w` stalled at `pc` for `cycles`.
fn stalled(obs: &Option<Shared>, w: &Wave, cause: StallCause, pc: u64, cycles: std::ops::Range<u64>, detail: &dyn std::fmt::Display) {
    if let Some(o) = obs {
        o.borrow_mut().stalled(&Stall { wave_index: w.global_index, cause, pc, from: cycles.start, to: cycles.end, detail });
    }
}

/// The cache actions of one maintenance instruction, with the lines each dropped or wrote.
type Actions = [Option<(CacheOp, u64)>; 3];

impl Sim<'_, '_> {
    /// Tell the observer, if there is one.
    fn tell(&self, f: impl FnOnce(&mut dyn Observer)) {
        if let Some(o) = &self.obs {
            f(&mut **o.borrow_mut());
        }
    }

    /// Admit work-groups wherever they fit, from cycle `at`: group i goes to XCD i mod XCDs
    /// (MI300's dispatcher hands work-groups to XCDs round-robin by ID: AMD CDNA 3 white paper;
    /// a single-XCD GPU has one queue), to a CU with room there.
    fn admit_anywhere(&mut self, at: u64) {
        loop {
            let mut placed = false;
            for x in 0..self.next_group.len() {
                if self.next_group[x] >= self.d.geo.group_count() {
                    continue;
                }
                let Some(p) = self.place_in(x) else { continue };
                self.start_group(p, at);
                placed = true;
            }
            if !placed {
                break;
            }
        }
    }

    /// A place for the next work-group of XCD `x`, if one is free.
    fn place_in(&mut self, x: usize) -> Option<Placed> {
        if self.split {
            self.place.place_split_in_xcd(x, &self.needs)
        } else {
            self.place.place_in_xcd(x, &self.needs)
        }
    }

    /// Admit work-groups of `cu`'s XCD onto `cu` (one of its groups ended at `at`); a
    /// tgsplit work-group goes wherever in the XCD its waves fit.
    fn admit_on(&mut self, cu: usize, at: u64) {
        let x = self.place.xcd_of(cu);
        while self.next_group.get(x).is_some_and(|&g| g < self.d.geo.group_count()) {
            let p = if self.split { self.place.place_split_in_xcd(x, &self.needs) } else { self.place.place_on(cu, &self.needs) };
            let Some(p) = p else { break };
            self.start_group(p, at);
        }
    }

    /// The CU and its SIMD of SIMD `simd` of placement unit `unit`.
    fn physical(&self, unit: usize, simd: usize) -> (usize, usize) {
        let per_cu = self.t.core.simds_per_cu.max(1) as usize;
        (unit * self.cus_per_unit + simd / per_cu, simd % per_cu)
    }

    /// Start the next work-group of the XCD of `placed`'s units there.
    fn start_group(&mut self, placed: Placed, at: u64) {
        let unit = placed.waves.first().map_or(0, |w| w.0);
        let x = self.place.xcd_of(unit);
        let group = self.next_group[x];
        self.next_group[x] += self.next_group.len() as u64;
        let rate = self.t.dispatch.workgroups_per_cycle.max(1) as u64;
        let when = (at * SUB).max(self.dispatcher_free);
        self.dispatcher_free = when + SUB / rate;
        let at = when.div_ceil(SUB) + self.t.core.wave_launch_cycles as u64 + self.jitter.next_delay();
        let slot = self.free_slots.pop().unwrap_or(0);
        let se = self.place.engine_of(unit);
        if self.engine_span.len() <= se {
            self.engine_span.resize(se + 1, (u64::MAX, 0));
        }
        self.engine_span[se].0 = self.engine_span[se].0.min(at);
        let g = self.d.geo.group_at(group);
        let wpg = self.d.waves_per_group();
        let waves = create_group_waves(&self.setup, g, self.next_wave_index, slot * wpg, &mut self.pool);
        self.next_wave_index += waves.len() as u32;
        self.stats.groups += 1;
        self.stats.waves += waves.len() as u64;
        self.counters.add(Counter::SqWaves, waves.len() as u64);
        let gid = self.groups.iter().position(Option::is_none).unwrap_or_else(|| {
            self.groups.push(None);
            self.groups.len() - 1
        });
        let mut ids = Vec::with_capacity(waves.len());
        for (i, w) in waves.into_iter().enumerate() {
            let idx = self.d.kernel.index_of(w.pc).unwrap_or(0);
            let prio = if self.opts.seed == 0 { 0 } else { self.rng.random::<u32>() };
            let (u, s) = placed.waves.get(i).copied().unwrap_or((unit, 0));
            let (cu, simd) = self.physical(u, s as usize);
            self.tell(|o| {
                o.wave_started(w.id, w.global_index);
                o.wave_placed(&WavePlaced { wave: w.id, wave_index: w.global_index, cu, simd, at });
            });
            let tw = TWave { w, group: gid, cu, simd, idx, next: at, prio, start: at, out: Outstanding::default(), sleep_until: 0, watch: Watch::default() };
            let id = match self.free_waves.pop() {
                Some(id) => {
                    self.waves[id] = Some(tw);
                    id
                }
                None => {
                    self.waves.push(Some(tw));
                    self.waves.len() - 1
                }
            };
            self.heap.push(Reverse((at, prio, id as u32)));
            ids.push(id);
        }
        let live = ids.len() as u32;
        self.running += ids.len();
        self.prog.advance(at, self.stats.instructions);
        self.groups[gid] = Some(TGroup { waves: ids, lds: vec![0; self.d.lds_bytes as usize], placed, live, arrived: 0, barrier_at: 0, slot });
    }

    fn main_loop(&mut self, env: &mut Env, mem: &mut Memory, mut host: Option<&mut dyn HostAgent>) -> Result<(), KernelFault> {
        let mut event = self.heap.pop();
        while let Some(Reverse((t, _, id))) = event.take() {
            let id = id as usize;
            let ready = self.waves[id].as_ref().is_some_and(|w| w.w.status == WaveStatus::Ready && w.next == t);
            // Run this wave while it stays the earliest (a stale entry runs nothing).
            let mut at = t;
            if ready {
                loop {
                    // Between any two instructions: a wave spinning alone for the host's
                    // answer must let the host answer.
                    if let Some(h) = host.as_deref_mut() {
                        self.serve_host(h, mem, at);
                    }
                    self.watch(id, at, env)?;
                    let next = self.step(id, env, mem)?;
                    let Some(next) = next else { break };
                    let prio = self.waves[id].as_ref().map_or(0, |w| w.prio);
                    let ours = Reverse((next, prio, id as u32));
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
        if let Some(id) = self.waves.iter().position(|w| w.as_ref().is_some_and(|w| w.w.status != WaveStatus::Done)) {
            let now = self.last;
            let text = self.describe_waves(now, &env.decode, "every live wave waits and none can resume");
            return Err(self.fault_at(id, FaultKind::Deadlock(text)));
        }
        Ok(())
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
        self.progress = self.progress.max(at);
        self.prog.advance(at, self.stats.instructions);
    }

    /// The watchdog, before wave `id` runs at cycle `at`.
    fn watch(&mut self, id: usize, at: u64, env: &Env) -> Result<(), KernelFault> {
        let limit = self.opts.watchdog_cycles;
        if limit == 0 || at <= self.progress.saturating_add(limit) {
            return Ok(());
        }
        let now = self.progress.saturating_add(limit);
        let heading = format!("at cycle {now}, nothing since cycle {}", self.progress);
        let waves = self.describe_waves(now, &env.decode, &heading);
        Err(self.fault_at(id, FaultKind::NoProgress { cycles: limit, waves }))
    }

    /// A fault located at wave `id` (its kernel, work-group, wave and PC).
    fn fault_at(&self, id: usize, kind: FaultKind) -> KernelFault {
        match self.waves.get(id).and_then(Option::as_ref) {
            Some(tw) => fault(self.d, &tw.w, kind),
            None => KernelFault { kernel: self.d.kernel.name.clone(), wave: crate::fault::WaveId::default(), pc: self.d.kernel.entry, kind },
        }
    }

    /// Issue the wave's next instruction; returns the wave's next issue cycle, or `None` when
    /// it stopped (ended, or waits at a barrier).
    fn step(&mut self, id: usize, env: &mut Env, mem: &mut Memory) -> Result<Option<u64>, KernelFault> {
        let Some(tw) = self.waves[id].as_mut() else { return Ok(None) };
        let t = tw.next;
        let cls = self.classes[tw.idx];
        // A wait that is not satisfied yet: come back when it is.
        if let Class::Wait(wait) = cls {
            let ready = tw.out.ready_at(t, &wait);
            if ready > t {
                self.counters.add(Counter::SqWaitInstAny, ready - t);
                let detail = Lazy(|| diagnose::outstanding_text(&tw.out, t, &wait));
                stalled(&self.obs, &tw.w, StallCause::Waitcnt, tw.w.pc, t..ready, &detail);
                tw.next = ready;
                return Ok(Some(ready));
            }
        }
        // A vector memory operation whose counter is full: come back when it has room.
        if let Class::Vmem { kind, .. } = cls {
            let ready = tw.out.ready_at(t, &waitcnt::issue_room(self.fam, vmem_queue(self.fam, kind)));
            if ready > t {
                stalled(&self.obs, &tw.w, StallCause::CounterFull, tw.w.pc, t..ready, &"");
                tw.next = ready;
                return Ok(Some(ready));
            }
        }
        let core = &self.t.core;
        let interval = core.wave_issue_interval_cycles as u64;
        let cu = tw.cu;
        // Pipeline availability.
        let issue = match cls {
            Class::Valu { cycles } => {
                let s = &mut self.cus[cu].simd[tw.simd];
                let start = t.max(*s);
                *s = start + cycles as u64;
                start
            }
            Class::Salu | Class::Other | Class::Branch | Class::Wait(_) => {
                let s = &mut self.cus[cu].salu;
                let start = t.max(*s);
                *s = start + 1;
                start
            }
            Class::Vmem { .. } => {
                let s = &mut self.cus[cu].vmem;
                let start = t.max(*s);
                *s = start + 1;
                start
            }
            _ => t,
        };
        let code = &self.d.kernel.code;
        let e = match &code[tw.idx] {
            CodeSlot::Inst(e) => e,
            CodeSlot::Invalid { word, .. } => return Err(fault(self.d, &tw.w, FaultKind::InvalidEncoding { word: *word })),
            CodeSlot::End { address } => return Err(fault(self.d, &tw.w, FaultKind::BadPc(*address))),
        };
        // Memory accesses are described to the memory system around execution.
        let mem_op = match cls {
            Class::Vmem { kind, policy, .. } => Some(OpSpec { cu, unit: Unit::Vector, kind, policy, at: issue }),
            Class::Smem { kind } => Some(OpSpec { cu, unit: Unit::Scalar, kind, policy: Default::default(), at: issue }),
            _ => None,
        };
        if let Some(spec) = mem_op {
            self.port.ms.borrow_mut().begin(spec);
        }
        env.clock = issue;
        env.realtime = issue * 100 / self.t.clock_mhz.max(1) as u64;
        let group = self.groups[tw.group].as_mut().map(|g| &mut g.lds[..]).unwrap_or(&mut []);
        self.port.lds.borrow_mut().clear();
        let writes = tw.w.writes;
        let flow = {
            let watched;
            let port: &dyn MemPort = match &self.obs {
                None => &self.port,
                Some(o) => {
                    let w = &tw.w;
                    o.borrow_mut().executed(&Executed {
                        wave: w.id,
                        wave_index: w.global_index,
                        pc: w.pc,
                        exec: w.exec(),
                        inst: &e.inst,
                        sem: &e.sem,
                        cycle: Some(issue),
                    });
                    if self.watch_lanes {
                        watched = Watched { inner: Some(&self.port), obs: o, regions: &self.regions };
                        &watched
                    } else {
                        &self.port
                    }
                }
            };
            let mut cx = ExecCtx { wave: &mut tw.w, mem, port: Some(port), lds: group, env };
            execute(&e.sem, &e.inst, &mut cx)
        };
        let result = mem_op.map(|_| self.port.ms.borrow_mut().end(mem));
        let done = result.map(|r| r.done);
        let flow = flow.map_err(|k| fault(self.d, &tw.w, k))?;
        if tw.w.writes != writes {
            self.prog.advance(issue, self.stats.instructions);
        }
        if let (Some(o), Some(r), Some(spec)) = (&self.obs, result, mem_op) {
            let unit = if spec.unit == Unit::Vector { MemUnit::Vector } else { MemUnit::Scalar };
            let w = &tw.w;
            let m = MemoryDone {
                cu,
                unit,
                name: e.inst.mnemonic(),
                wave: w.id,
                wave_index: w.global_index,
                pc: w.pc,
                issue,
                done: r.done,
                level: r.level,
                lines: r.lines,
            };
            o.borrow_mut().memory_done(&m);
        }
        self.progress = self.progress.max(issue);
        tw.w.instructions += 1;
        self.stats.instructions += 1;
        self.stats.opcode_counts[e.inst.opcode() as usize] += 1;
        if tw.w.instructions > self.opts.max_wave_instructions {
            return Err(fault(self.d, &tw.w, FaultKind::RunawayLoop(self.opts.max_wave_instructions)));
        }
        let fam = self.fam;
        let mut next = issue + interval;
        match cls {
            Class::Valu { cycles } => {
                self.counters.inc(Counter::SqInstsValu);
                if fam.is_rdna() {
                    next = issue + cycles as u64;
                }
            }
            Class::Salu => self.counters.inc(Counter::SqInstsSalu),
            Class::Smem { .. } => {
                self.counters.inc(Counter::SqInstsSmem);
                tw.out.push(fam, Queue::Smem, done.unwrap_or(issue));
            }
            Class::Vmem { kind, flat, .. } => {
                let d = done.unwrap_or(issue);
                let q = vmem_queue(fam, kind);
                self.counters.inc(if kind == OpKind::Load { Counter::SqInstsVmemRd } else { Counter::SqInstsVmemWr });
                let c = tw.out.push(fam, q, d);
                if flat && !matches!(fam, Family::Gfx11 | Family::Gfx12) {
                    tw.out.push(fam, Queue::Lds, c);
                }
                self.last = self.last.max(c);
            }
            Class::Lds { dwords } => {
                self.counters.inc(Counter::SqInstsLds);
                let lds = &self.t.lds;
                let mut accesses = self.port.lds.borrow_mut();
                let passes = if accesses.is_empty() {
                    // No per-lane addresses (e.g. every lane inactive, or a DS op without a
                    // data access): the instruction's width over the banks.
                    let lanes = if self.d.kernel.wave64 { 64 } else { 32 };
                    (lanes * dwords).div_ceil(lds.banks.max(1)) as u64
                } else {
                    let c = lds_banks::cycles(&accesses, lds.banks, lds.bank_width_bytes);
                    self.counters.add(Counter::SqLdsBankConflict, c.conflicts);
                    c.busy
                };
                accesses.clear();
                drop(accesses);
                // One LDS per placement unit (a WGP's two CUs share theirs).
                let lds_cu = cu - cu % self.cus_per_unit;
                let start = self.cus[lds_cu].lds.reserve(issue, passes * SUB);
                self.counters.add(Counter::SqLdsIdxActive, passes);
                tw.out.push(fam, Queue::Lds, start + passes + lds.latency_cycles as u64);
            }
            Class::Branch => {
                self.counters.inc(Counter::SqInstsBranch);
                if matches!(flow, Flow::Jump(_)) {
                    next += core.branch_taken_cycles as u64;
                }
            }
            Class::DelayAlu => next = issue + core.valu_dependency_cycles as u64,
            Class::Nop { cycles } => next = issue + (cycles as u64).max(interval),
            Class::Sleep { cycles } => {
                next = issue + cycles as u64;
                tw.sleep_until = next;
                stalled(&self.obs, &tw.w, StallCause::Sleep, tw.w.pc, issue..next, &"");
            }
            Class::Cache(m) => {
                let (d, actions) = maintain(&self.port, self.t, m, cu, issue, mem);
                tw.out.push(fam, Queue::Load, d);
                if let Some(o) = &self.obs {
                    let mut o = o.borrow_mut();
                    for (op, lines) in actions.into_iter().flatten() {
                        o.cache_action(&CacheAction { wave_index: tw.w.global_index, pc: tw.w.pc, cu, op, lines, issue, done: d });
                    }
                }
            }
            Class::Wait(_) | Class::Other | Class::Barrier | Class::End => {}
        }
        self.counters.inc(Counter::SqInsts);
        match flow {
            Flow::Next | Flow::Yield => {
                tw.w.pc = e.inst.next_address();
                tw.idx += 1;
                if tw.idx >= code.len() {
                    return Err(fault(self.d, &tw.w, FaultKind::BadPc(tw.w.pc)));
                }
            }
            Flow::Jump(to) => {
                let backward = to <= tw.w.pc;
                tw.w.pc = to;
                tw.idx = self.d.kernel.index_of(to).map_err(|k| fault(self.d, &tw.w, k))?;
                if tw.watch.step(&tw.w, self.prog.epoch, backward, self.opts.livelock_check_after) {
                    self.prog.looping += 1;
                }
            }
            Flow::End => {
                let end = issue.max(tw.out.last());
                self.wave_ended(id, end);
                return Ok(None);
            }
            Flow::Barrier => {
                tw.w.pc = e.inst.next_address();
                tw.idx += 1;
                tw.w.status = WaveStatus::AtBarrier;
                tw.next = issue;
                let gid = tw.group;
                self.running -= 1;
                self.arrive(gid, issue);
                return Ok(None);
            }
        }
        if !matches!(flow, Flow::Jump(_)) {
            tw.watch.step(&tw.w, self.prog.epoch, false, self.opts.livelock_check_after);
        }
        tw.next = next;
        self.last = self.last.max(next);
        self.check_limits(id, issue)?;
        Ok(Some(next))
    }

    /// After wave `id` issued at `issue`: a livelock (every running wave repeats its state and
    /// the last visible change is long enough ago that nothing still on its way can end it),
    /// or a limit the user set.
    fn check_limits(&self, id: usize, issue: u64) -> Result<(), KernelFault> {
        let p = &self.prog;
        if p.looping > 0 && p.looping >= self.running && issue >= p.at_cycle.saturating_add(progress::SETTLE_CYCLES) {
            let since = (self.stats.instructions - p.at_instruction, issue - p.at_cycle);
            return Err(self.fault_at(id, FaultKind::Livelock(self.describe_livelock(since))));
        }
        if self.stats.instructions >= self.opts.max_instructions {
            let what = format!("{} wave-instructions executed (--max-instructions)", self.stats.instructions);
            return Err(self.fault_at(id, FaultKind::LimitReached(what)));
        }
        if issue - self.begin >= self.opts.max_cycles {
            return Err(self.fault_at(id, FaultKind::LimitReached(format!("{} cycles simulated (--max-cycles)", issue - self.begin))));
        }
        Ok(())
    }

    /// The livelock report: every live wave's loop or barrier and what it last read.
    fn describe_livelock(&self, (instructions, cycles): (u64, u64)) -> String {
        let lines = self.waves.iter().flatten().map(|tw| {
            let looping = tw.watch.looping_at(self.prog.epoch);
            progress::describe(tw.w.id, tw.w.pc, looping, tw.w.last_read.get())
        });
        let heading = format!(
            "every running wave repeats the same state and no wave has changed memory for {instructions} instructions ({cycles} cycles), so none ever will ({} of {} work-groups not started); live waves:",
            self.groups_not_started(),
            self.d.geo.group_count()
        );
        crate::fault::wave_list(&heading, lines)
    }

    /// Work-groups of the dispatch not started yet.
    fn groups_not_started(&self) -> u64 {
        self.d.geo.group_count().saturating_sub(self.stats.groups)
    }

    fn arrive(&mut self, gid: usize, at: u64) {
        let Some(g) = self.groups[gid].as_mut() else { return };
        g.arrived += 1;
        g.barrier_at = g.barrier_at.max(at);
        self.try_release(gid);
    }

    /// Release the group's barrier once every live wave has arrived.
    fn try_release(&mut self, gid: usize) {
        let Some(g) = self.groups[gid].as_mut() else { return };
        if g.arrived == 0 || g.arrived < g.live {
            return;
        }
        let at = g.barrier_at + 1;
        let arrived = g.arrived;
        g.arrived = 0;
        g.barrier_at = 0;
        let mut released = Vec::new();
        for &id in &g.waves {
            if let Some(w) = self.waves[id].as_mut() {
                if w.w.status == WaveStatus::AtBarrier {
                    if self.obs.is_some() {
                        // The wave's PC is already past the barrier, a one-dword SOPP.
                        let detail = Lazy(|| format!("{arrived} waves of the work-group"));
                        stalled(&self.obs, &w.w, StallCause::Barrier, w.w.pc.saturating_sub(4), w.next..at, &detail);
                        released.push(w.w.global_index);
                    }
                    w.w.status = WaveStatus::Ready;
                    w.next = at;
                    self.heap.push(Reverse((at, w.prio, id as u32)));
                    self.running += 1;
                }
            }
        }
        if let Some(o) = &self.obs {
            o.borrow_mut().barrier_released(&released);
        }
    }

    fn wave_ended(&mut self, id: usize, end: u64) {
        let Some(tw) = self.waves[id].take() else { return };
        self.running -= 1;
        self.prog.advance(end, self.stats.instructions);
        self.counters.add(Counter::SqWaveCycles, end.saturating_sub(tw.start));
        let oob = tw.w.lds_out_of_range.get();
        self.stats.lds_out_of_range += oob;
        self.counters.add(Counter::LdsOutOfRange, oob);
        let se = self.place.engine_of(tw.cu / self.cus_per_unit);
        if let Some(s) = self.engine_span.get_mut(se) {
            s.1 = s.1.max(end);
        }
        self.last = self.last.max(end);
        self.progress = self.progress.max(end);
        self.tell(|o| {
            let w = &tw.w;
            o.wave_span(&WaveSpan { wave: w.id, wave_index: w.global_index, start: tw.start, end, instructions: w.instructions });
            o.wave_ended(w.id, w.global_index);
        });
        self.pool.push(tw.w.vgpr);
        self.free_waves.push(id);
        let gid = tw.group;
        let Some(g) = self.groups[gid].as_mut() else { return };
        g.live -= 1;
        if g.live > 0 {
            self.try_release(gid);
            return;
        }
        if let Some(g) = self.groups[gid].take() {
            crate::engine::count_group(&self.opts);
            if self.split {
                self.place.release_split(&g.placed, &self.needs);
            } else {
                self.place.release(&g.placed, &self.needs);
            }
            self.free_slots.push(g.slot);
            for unit in g.placed.units() {
                self.admit_on(unit, end);
            }
        }
    }
}

/// The queue a vector memory operation counts in: GFX8/9 count loads and stores in one
/// in-order `vmcnt`, RDNA stores (and atomics without return) in `vscnt`/`storecnt`.
fn vmem_queue(fam: Family, kind: OpKind) -> Queue {
    match kind {
        OpKind::Load | OpKind::Atomic { returns: true } => Queue::Load,
        _ if !fam.is_rdna() => Queue::Load,
        _ => Queue::Store,
    }
}

/// A cache-maintenance instruction at `at` on `cu`; returns when it is done. Invalidating an
/// L1 or GL1 clears its valid bits at once (the hit latency, whatever it held); L2 operations
/// walk the tags and write the dirty lines back ([`MemSystem::invalidate_l2_op`],
/// [`MemSystem::writeback_l2_op`]).
fn maintain(port: &Port, t: &Timing, m: Maintenance, cu: usize, at: u64, mem: &mut Memory) -> (u64, Actions) {
    let mut ms = port.ms.borrow_mut();
    let l1 = t.vector_l1.hit_latency_cycles as u64;
    let x = ms.xcd_of(cu);
    let mut acts: Actions = [None; 3];
    let done = match m {
        Maintenance::None => at,
        Maintenance::InvL1 => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            at + l1
        }
        Maintenance::InvGl1 => {
            acts[0] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            at + l1
        }
        Maintenance::InvL1Gl1 => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            acts[1] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            at + l1
        }
        Maintenance::InvL1L2 => {
            acts[0] = ms.invalidate_l1(cu).map(|n| (CacheOp::InvalidateL1, n));
            acts[1] = ms.invalidate_gl1(cu).map(|n| (CacheOp::InvalidateGl1, n));
            let (done, lines) = ms.invalidate_l2_op(x, at);
            acts[2] = Some((CacheOp::InvalidateL2, lines));
            done.max(at + l1)
        }
        Maintenance::InvL2 => {
            let (done, lines) = ms.invalidate_l2_op(x, at);
            acts[0] = Some((CacheOp::InvalidateL2, lines));
            done
        }
        Maintenance::InvScalar => {
            acts[0] = ms.invalidate_scalar(cu).map(|n| (CacheOp::InvalidateScalar, n));
            at + t.scalar_cache.hit_latency_cycles as u64
        }
        Maintenance::WbL2 => {
            let (done, lines) = ms.writeback_l2_op(mem, x, at);
            acts[0] = Some((CacheOp::WritebackL2, lines));
            done + l1
        }
    };
    (done, acts)
}
