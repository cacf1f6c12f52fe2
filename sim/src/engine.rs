//! Functional engine: runs a dispatch's waves to completion.
//!
//! Work-groups are admitted in dispatch order (x fastest) up to a residency limit; a finished
//! group makes room for the next. Among resident waves the scheduler picks one and runs it for
//! a quantum of instructions, until it ends, reaches a barrier, or yields. The choice and the
//! quantum come from a generator seeded with `--seed`, so one seed gives one interleaving,
//! bit-identical on every run, and different seeds explore other legal interleavings (what
//! litmus tests need). Memory is updated immediately (sequential consistency): the cache model
//! of the timing mode is what makes stale values observable.

use crate::dispatch::{create_group_waves, Geometry, RuntimeAddresses, WaveSetup};
use crate::exec::{execute, Env, ExecCtx, Flow};
use crate::fault::{FaultKind, KernelFault};
use crate::host::HostAgent;
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::memory::Memory;
use crate::observe::{DispatchInfo, Executed, Regions, Shared, Watched};
use crate::progress::{self, Progress, Watch};
use crate::wave::{Wave, WaveStatus};
use hipscope_isa::tables::OPCODE_NAMES;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Scheduling and safety limits.
#[derive(Debug, Clone, Copy)]
pub struct EngineOptions {
    /// Chooses among legal interleavings.
    pub seed: u64,
    /// Work-groups resident at once.
    pub max_resident_groups: usize,
    /// A wave executing more instructions than this is a runaway loop (a kernel fault).
    pub max_wave_instructions: u64,
    /// Most instructions a wave runs before the scheduler picks again.
    pub quantum: u32,
    /// Timing mode: cycles without an instruction issued or a wave ended before the watchdog
    /// stops the dispatch with a kernel fault (0: never).
    pub watchdog_cycles: u64,
    /// Instructions a wave runs after the last visible change before it is checked for a
    /// repeating state (livelock detection, [`crate::progress`]; 0: no detection).
    pub livelock_check_after: u64,
    /// The dispatch stops with a kernel fault after this many wave-instructions
    /// (`--max-instructions`; `u64::MAX`: no limit).
    pub max_instructions: u64,
    /// Timing mode: the dispatch stops with a kernel fault after this many cycles
    /// (`--max-cycles`; `u64::MAX`: no limit).
    pub max_cycles: u64,
    /// Work-groups finished, counted as they finish, for a progress display that another
    /// thread reads (the engines only add to it).
    pub progress: Option<&'static RunProgress>,
}

impl Default for EngineOptions {
    fn default() -> EngineOptions {
        EngineOptions {
            seed: 0,
            max_resident_groups: 32,
            max_wave_instructions: 50_000_000,
            quantum: 64,
            watchdog_cycles: crate::timing::engine::DEFAULT_WATCHDOG_CYCLES,
            livelock_check_after: progress::DEFAULT_CHECK_AFTER,
            max_instructions: u64::MAX,
            max_cycles: u64::MAX,
            progress: None,
        }
    }
}

/// What a dispatch did.
#[derive(Debug, Clone, Default)]
pub struct DispatchStats {
    pub instructions: u64,
    pub waves: u64,
    pub groups: u64,
    /// Executed instructions per opcode (index = `Opcode as usize`).
    pub opcode_counts: Vec<u64>,
    /// Lane accesses to LDS out of range (reads returned 0, writes dropped), over the waves
    /// that ended.
    pub lds_out_of_range: u64,
    /// Timing mode: the dispatch's duration in shader cycles, and its counters.
    pub cycles: Option<u64>,
    pub counters: Option<crate::counters::Counters>,
}

struct Group {
    waves: Vec<Wave>,
    /// Per wave, its search for a repeating state.
    watches: Vec<Watch>,
    lds: Vec<u8>,
}

impl Group {
    fn done(&self) -> bool {
        self.waves.iter().all(|w| w.status == WaveStatus::Done)
    }

    /// Release the barrier once every wave that has not ended waits at it; the released
    /// waves become ready.
    fn try_release_barrier(&mut self) -> bool {
        let waiting = self.waves.iter().filter(|w| w.status == WaveStatus::AtBarrier).count();
        let live = self.waves.iter().filter(|w| w.status != WaveStatus::Done).count();
        if waiting > 0 && waiting == live {
            for w in self.waves.iter_mut().filter(|w| w.status == WaveStatus::AtBarrier) {
                w.status = WaveStatus::Ready;
            }
            return true;
        }
        false
    }
}

/// A dispatch in progress.
pub struct Dispatch<'a> {
    pub kernel: &'a LoadedKernel,
    pub geo: Geometry,
    pub rt: RuntimeAddresses,
    /// The kernarg segment as placed in memory.
    pub kernarg: Vec<u8>,
    /// Bytes of LDS per work-group (static + dynamic).
    pub lds_bytes: u32,
    /// Scratch backing: base address and bytes per lane (0: no scratch); it holds
    /// `resident_groups() * waves_per_group()` wave slots.
    pub scratch_base: u64,
    pub scratch_per_lane: u32,
    /// Work-groups resident at once.
    pub max_resident_groups: usize,
}

impl Dispatch<'_> {
    /// What observers are told of the kernel.
    pub fn info(&self) -> DispatchInfo<'_> {
        DispatchInfo { kernel: self.kernel, grid: self.geo.grid, block: self.geo.block, lds_bytes: self.lds_bytes, regions: self.regions(), timing: None }
    }

    /// Its scratch backing store and kernarg segment, as observers tell them apart.
    pub fn regions(&self) -> Regions {
        Regions { scratch: self.scratch_range(), kernarg: self.rt.kernarg..self.rt.kernarg + self.kernarg.len() as u64 }
    }

    /// Addresses of the scratch backing store (empty without scratch).
    pub fn scratch_range(&self) -> std::ops::Range<u64> {
        let lanes = if self.kernel.wave64 { 64 } else { 32 };
        let slots = self.resident_groups() * u64::from(self.waves_per_group());
        let bytes = crate::scratch::store_bytes(slots, lanes, u64::from(self.scratch_per_lane));
        self.scratch_base..self.scratch_base + if self.scratch_base == 0 { 0 } else { bytes }
    }

    /// Work-groups resident at once (the residency limit, or fewer if the grid is small).
    pub fn resident_groups(&self) -> u64 {
        resident_groups(self.max_resident_groups, &self.geo)
    }

    /// Waves of a full work-group.
    pub fn waves_per_group(&self) -> u32 {
        let lanes = if self.kernel.wave64 { 64 } else { 32 };
        (self.geo.block.iter().product::<u32>()).div_ceil(lanes)
    }
}

/// Work-groups resident at once with a residency limit of `max` (at least one, at most the
/// grid's groups).
pub fn resident_groups(max: usize, geo: &Geometry) -> u64 {
    (max.max(1) as u64).min(geo.group_count().max(1))
}

/// Run a dispatch to completion.
/// `host`: the host's side of hostcall services, polled between scheduling steps;
/// `observer`: told what the waves do ([`crate::observe`]).
pub fn run(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    opts: &EngineOptions,
    host: Option<&mut dyn HostAgent>,
    observer: Option<&mut dyn crate::observe::Observer>,
) -> Result<DispatchStats, KernelFault> {
    let Some(o) = observer else { return run_observed(d, env, mem, opts, host, None) };
    o.dispatch_started(&d.info());
    let shared = std::cell::RefCell::new(o);
    let r = run_observed(d, env, mem, opts, host, Some(&shared));
    shared.into_inner().dispatch_ended();
    r
}

fn run_observed(
    d: &Dispatch,
    env: &mut Env,
    mem: &mut Memory,
    opts: &EngineOptions,
    mut host: Option<&mut dyn HostAgent>,
    obs: Option<&Shared>,
) -> Result<DispatchStats, KernelFault> {
    let regions = d.regions();
    let watched = obs.filter(|o| o.borrow().lane_accesses()).map(|o| Watched { inner: None, obs: o, regions: &regions });
    let mut rng = StdRng::seed_from_u64(opts.seed);
    let mut stats = DispatchStats { opcode_counts: vec![0; OPCODE_NAMES.len()], ..Default::default() };
    let setup = WaveSetup { kernel: d.kernel, geo: &d.geo, rt: &d.rt, kernarg: &d.kernarg, scratch_base: d.scratch_base, scratch_per_lane: d.scratch_per_lane };
    let mut res = Residency::new(d);
    let mut prog = Progress::default();
    loop {
        if res.admit(&setup, d, &mut stats, obs) {
            prog.advance(0, stats.instructions);
        }
        if res.ready.is_empty() {
            if res.live == 0 {
                break;
            }
            // Only reachable when every live wave waits at a barrier that cannot complete.
            let Some(w) = res.any_wave() else { break };
            return Err(fault(d, w, FaultKind::Deadlock(res.describe_waits())));
        }
        let pick = rng.random_range(0..res.ready.len());
        let quantum = rng.random_range(1..=opts.quantum.max(1));
        let (slot, wi) = res.ready[pick];
        let Some(group) = res.slots[slot as usize].as_mut() else { unreachable!("ready wave of an empty slot") };
        let (w, watch) = (&mut group.waves[wi as usize], &mut group.watches[wi as usize]);
        run_wave(d, w, watch, &mut group.lds, env, mem, quantum, opts, &mut stats, &mut prog, obs, watched.as_ref())?;
        if w.status == WaveStatus::Done {
            stats.lds_out_of_range += w.lds_out_of_range.get();
            if let Some(o) = obs {
                o.borrow_mut().wave_ended(w.id, w.global_index);
            }
        }
        if w.status != WaveStatus::Ready {
            if w.status == WaveStatus::Done {
                prog.advance(0, stats.instructions);
            }
            res.ready.swap_remove(pick);
            match res.settle(slot, obs) {
                Settled::Released => prog.advance(0, stats.instructions),
                Settled::Retired => count_group(opts),
                Settled::Waiting => {}
            }
        }
        if let Some(h) = host.as_deref_mut() {
            if h.pending(&|a| mem.read_u64(a).ok()) {
                h.serve(mem);
                // The host's answer is a change the waiting waves will see.
                prog.advance(0, stats.instructions);
            }
        }
        if prog.looping > 0 && prog.looping == res.ready.len() {
            let (first, text) = res.describe_livelock(prog.epoch, stats.instructions - prog.at_instruction);
            return Err(KernelFault { kernel: d.kernel.name.clone(), wave: first.0, pc: first.1, kind: FaultKind::Livelock(text) });
        }
        if stats.instructions >= opts.max_instructions {
            let (slot, wi) = res.ready.first().copied().unwrap_or((slot, wi));
            let w = res.slots[slot as usize].as_ref().and_then(|g| g.waves.get(wi as usize));
            let (wave, pc) = w.map_or((Default::default(), d.kernel.entry), |w| (w.id, w.pc));
            let kind = FaultKind::LimitReached(format!("{} wave-instructions executed (--max-instructions)", stats.instructions));
            return Err(KernelFault { kernel: d.kernel.name.clone(), wave, pc, kind });
        }
    }
    Ok(stats)
}

/// What [`Residency::settle`] did.
enum Settled {
    /// The group finished and left its slot.
    Retired,
    /// Its barrier released.
    Released,
    Waiting,
}

/// How far a run is, for a display on another thread: the work-groups of all its dispatches
/// and how many have finished.
#[derive(Debug, Default)]
pub struct RunProgress {
    pub groups_total: std::sync::atomic::AtomicU64,
    pub groups_done: std::sync::atomic::AtomicU64,
}

/// A work-group finished: tell the progress display.
pub(crate) fn count_group(opts: &EngineOptions) {
    if let Some(p) = opts.progress {
        p.groups_done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Resident work-groups in residency slots (a slot also picks the group's scratch), and the
/// waves ready to run. The ready list is updated as waves change state, never rebuilt, so
/// picking a wave costs the same however many are resident.
struct Residency {
    slots: Vec<Option<Group>>,
    /// Free slots, highest first (the lowest is reused first).
    free: Vec<u32>,
    /// (slot, wave index) of every ready wave.
    ready: Vec<(u32, u32)>,
    /// Resident groups.
    live: usize,
    next_group: u64,
    total_groups: u64,
    next_wave_index: u32,
    waves_per_group: u32,
    /// Register files of retired waves, reused for new ones (zeroing 64 KiB per wave would
    /// dominate short kernels).
    pool: Vec<Vec<u32>>,
}

impl Residency {
    fn new(d: &Dispatch) -> Residency {
        let n = d.resident_groups() as u32;
        Residency {
            slots: (0..n).map(|_| None).collect(),
            free: (0..n).rev().collect(),
            ready: Vec::new(),
            live: 0,
            next_group: 0,
            total_groups: d.geo.group_count(),
            next_wave_index: 0,
            waves_per_group: d.waves_per_group(),
            pool: Vec::new(),
        }
    }

    /// Fill free slots with the next work-groups in dispatch order; whether any started.
    fn admit(&mut self, setup: &WaveSetup, d: &Dispatch, stats: &mut DispatchStats, obs: Option<&Shared>) -> bool {
        let before = self.next_group;
        while self.next_group < d.geo.group_count() {
            let Some(slot) = self.free.pop() else { break };
            let g = d.geo.group_at(self.next_group);
            let waves = create_group_waves(setup, g, self.next_wave_index, slot * self.waves_per_group, &mut self.pool);
            self.next_wave_index += waves.len() as u32;
            stats.waves += waves.len() as u64;
            stats.groups += 1;
            self.ready.extend((0..waves.len() as u32).map(|wi| (slot, wi)));
            if let Some(o) = obs {
                waves.iter().for_each(|w| o.borrow_mut().wave_started(w.id, w.global_index));
            }
            let watches = vec![Watch::default(); waves.len()];
            self.slots[slot as usize] = Some(Group { waves, watches, lds: vec![0; d.lds_bytes as usize] });
            self.live += 1;
            self.next_group += 1;
        }
        self.next_group > before
    }

    /// After a wave of `slot` stopped being ready: retire the group if it is done, else
    /// release its barrier if every live wave now waits at it.
    fn settle(&mut self, slot: u32, obs: Option<&Shared>) -> Settled {
        let Some(group) = self.slots[slot as usize].as_mut() else { return Settled::Waiting };
        if group.done() {
            if let Some(g) = self.slots[slot as usize].take() {
                self.pool.extend(g.waves.into_iter().map(|w| w.vgpr));
            }
            self.live -= 1;
            self.free.push(slot);
            self.free.sort_unstable_by(|a, b| b.cmp(a));
            Settled::Retired
        } else if group.try_release_barrier() {
            if let Some(o) = obs {
                let released: Vec<u32> = group.waves.iter().filter(|w| w.status == WaveStatus::Ready).map(|w| w.global_index).collect();
                o.borrow_mut().barrier_released(&released);
            }
            self.ready.extend(group.waves.iter().enumerate().filter(|(_, w)| w.status == WaveStatus::Ready).map(|(wi, _)| (slot, wi as u32)));
            Settled::Released
        } else {
            Settled::Waiting
        }
    }

    /// The livelock report: every live wave's loop or barrier and what it last read; and the
    /// first wave's id and PC (where the fault is located).
    fn describe_livelock(&self, epoch: u64, since: u64) -> ((crate::fault::WaveId, u64), String) {
        let lines: Vec<_> = self
            .slots
            .iter()
            .flatten()
            .flat_map(|g| g.waves.iter().zip(&g.watches))
            .filter(|(w, _)| w.status != WaveStatus::Done)
            .map(|(w, watch)| progress::describe(w.id, w.pc, watch.looping_at(epoch), w.last_read.get()))
            .collect();
        let first = lines.first().map_or((Default::default(), 0), |l| (l.0, l.1));
        let heading = format!(
            "every running wave repeats the same state and no wave has changed memory for {since} instructions, so none ever will ({} of {} work-groups not started); live waves:",
            self.next_group_remaining(),
            self.total_groups
        );
        (first, crate::fault::wave_list(&heading, lines))
    }

    fn next_group_remaining(&self) -> u64 {
        self.total_groups - self.next_group
    }

    fn any_wave(&self) -> Option<&Wave> {
        self.slots.iter().flatten().flat_map(|g| g.waves.first()).next()
    }

    /// What every live wave waits on, one line each (the format of timing-mode reports).
    fn describe_waits(&self) -> String {
        let lines = self.slots.iter().flatten().flat_map(|g| {
            let live = g.waves.iter().filter(|w| w.status != WaveStatus::Done).count();
            let arrived = g.waves.iter().filter(|w| w.status == WaveStatus::AtBarrier).count();
            g.waves.iter().filter(|w| w.status != WaveStatus::Done).map(move |w| {
                let what = match w.status {
                    WaveStatus::AtBarrier => format!("at s_barrier: {arrived} of {live} live waves of its work-group arrived"),
                    _ => "ready".to_string(),
                };
                (w.id, w.pc, what)
            })
        });
        crate::fault::wave_list("no wave is ready and no barrier can complete; live waves:", lines)
    }
}

pub(crate) fn fault(d: &Dispatch, w: &Wave, kind: FaultKind) -> KernelFault {
    KernelFault { kernel: d.kernel.name.clone(), wave: w.id, pc: w.pc, kind }
}

/// Run one wave for up to `quantum` instructions, telling `prog` when it changes memory and
/// `watch` what it executes.
#[allow(clippy::too_many_arguments)]
fn run_wave(
    d: &Dispatch,
    w: &mut Wave,
    watch: &mut Watch,
    lds: &mut [u8],
    env: &mut Env,
    mem: &mut Memory,
    quantum: u32,
    opts: &EngineOptions,
    stats: &mut DispatchStats,
    prog: &mut Progress,
    obs: Option<&Shared>,
    watched: Option<&Watched>,
) -> Result<(), KernelFault> {
    let code = &d.kernel.code;
    let mut idx = d.kernel.index_of(w.pc).map_err(|k| fault(d, w, k))?;
    for _ in 0..quantum {
        let e = match &code[idx] {
            CodeSlot::Inst(e) => e,
            CodeSlot::Invalid { word, .. } => return Err(fault(d, w, FaultKind::InvalidEncoding { word: *word })),
            CodeSlot::End { address } => return Err(fault(d, w, FaultKind::BadPc(*address))),
        };
        let writes = w.writes;
        if let Some(o) = obs {
            o.borrow_mut().executed(&Executed { wave: w.id, wave_index: w.global_index, pc: w.pc, exec: w.exec(), inst: &e.inst, sem: &e.sem, cycle: None });
        }
        let flow = {
            let port = watched.map(|wp| wp as &dyn crate::exec::MemPort);
            let mut cx = ExecCtx { wave: w, mem, port, lds, env };
            execute(&e.sem, &e.inst, &mut cx).map_err(|k| fault(d, w, k))?
        };
        if w.writes != writes {
            prog.advance(0, stats.instructions);
        }
        let backward = matches!(flow, Flow::Jump(t) if t <= w.pc);
        w.instructions += 1;
        stats.instructions += 1;
        stats.opcode_counts[e.inst.opcode() as usize] += 1;
        env.clock += 1;
        env.realtime = env.clock / 16;
        if w.instructions > opts.max_wave_instructions {
            return Err(fault(d, w, FaultKind::RunawayLoop(opts.max_wave_instructions)));
        }
        match flow {
            Flow::Next => {
                w.pc = e.inst.next_address();
                idx += 1;
                if idx >= code.len() {
                    return Err(fault(d, w, FaultKind::BadPc(w.pc)));
                }
            }
            Flow::Jump(t) => {
                w.pc = t;
                idx = d.kernel.index_of(t).map_err(|k| fault(d, w, k))?;
            }
            Flow::End => {
                w.status = WaveStatus::Done;
                return Ok(());
            }
            Flow::Barrier => {
                w.pc = e.inst.next_address();
                w.status = WaveStatus::AtBarrier;
                return Ok(());
            }
            Flow::Yield => {
                w.pc = e.inst.next_address();
                return Ok(());
            }
        }
        if watch.step(w, prog.epoch, backward, opts.livelock_check_after) {
            prog.looping += 1;
            // The others may all be looping already: let the scheduler look.
            return Ok(());
        }
    }
    Ok(())
}
