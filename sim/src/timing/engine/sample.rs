//! Work-group-level sampling in the timing engine: when the dispatch's rate is stable, the
//! rest runs in the functional engine and its cycles are extrapolated. The method, the
//! formula, the error estimate and when a dispatch stays in full detail are in
//! [`crate::sched::sample`]; here are the engine's sides of it: the windows, checked where
//! the main loop takes the next wave (not per instruction), and the hand-over at the
//! dispatch's seams (the groups the admission has not started, the residency slots it left
//! free).

use super::probe;
use super::Sim;
use crate::counters::{Counter, Counters};
use crate::exec::salu::hwreg::HwReg;
use crate::exec::{salu, smem, Env, Sem};
use crate::fault::KernelFault;
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::memory::Memory;
use crate::memsys::{MemorySide, OpKind};
use crate::sched::{
    round_period, short_round_window, EngineOptions, FastForward, Hooked, Rest, Sampled, Sched, Stable, Storage, Touched, Windows, WorkGroupSampling,
};
use crate::timing::class::{Class, Maintenance};
use crate::timing::issue::WaveTiming;
use crate::timing::placement::Placed;
use crate::wave::WaveStatus;
use std::cmp::Reverse;

/// The sampling state of a dispatch.
pub(super) struct Sampler {
    /// Sampling on: its parameters and the functional engine's continuation.
    on: Option<(WorkGroupSampling, FastForward)>,
    /// Sampling was asked for.
    asked: bool,
    /// Cycle of the next window's end (`u64::MAX`: never).
    pub(super) next_check: u64,
    /// Cycle and wave-instructions where the current window began (`None`: before the first).
    window_start: Option<(u64, u64)>,
    windows: Windows,
    /// Why the dispatch runs in full detail although sampling was asked for.
    full_detail: Option<&'static str>,
    /// Most work-groups resident at a window's end so far: windows count only while the GPU
    /// holds that many (a draining GPU's rate is not the rest's).
    peak_groups: usize,
    /// What the fast-forwards so far did (`None`: none yet).
    done: Option<Sampled>,
    /// At each of the last window ends: wave-instructions completed and what the memory side
    /// did ([`crate::memsys::MemSystem::memory_side`]).
    marks: std::collections::VecDeque<(u64, MemorySide)>,
    /// At the same window ends: the cycle, and each wave's completed instructions by wave id
    /// (`u64::MAX`: no wave), for the waves' own rates ([`Sampler::wave_rates`]).
    progress: std::collections::VecDeque<(u64, Vec<u64>)>,
    spare: Vec<u64>,
    /// Per completed wave-instruction over the stable windows: memory-side busy cycles per
    /// channel, what the fast-forwarded part is charged ([`crate::sched::sample`]), and lines
    /// the L2s and the MALL allocated, what it turns over.
    cost: Vec<f64>,
    fills: [f64; 2],
    /// Sampling on (the main loop notes each instruction's PC, [`Sampler::saw`]).
    pub(super) tracks: bool,
    /// Lowest and highest PC issued in the current window, and in each of the last windows:
    /// the loop the stable windows ran, where a fast-forwarded wave stops ([`FastForward`]).
    seen: (u64, u64),
    pcs: std::collections::VecDeque<(u64, u64)>,
    /// The last stable rate found: over how many of the last windows, and its stated error.
    stable: Stable,
    /// Cycle and work-groups started where the windows began: the rounds' period is measured
    /// from there ([`Sampler::round_cycles`]).
    origin: Option<(u64, u64)>,
    /// Windows a whole round long: their length in cycles (`None`: `window_cycles`).
    round: Option<u64>,
    /// The rounds are shorter than `window_cycles`, so the windows are whole rounds from the
    /// first round on ([`short_round_window`]); detail then stops early only once the L2s
    /// have turned over ([`Sampler::note_l2_turnover`]).
    short_rounds: bool,
    /// Lines the L2s had allocated at the dispatch's first window check (`None`: before it; a
    /// restart of the windows keeps it), and whether they have since allocated as many as they
    /// hold.
    fills_at_origin: Option<u64>,
    turned_over: bool,
}

/// No PC seen yet.
const NONE_SEEN: (u64, u64) = (u64::MAX, 0);

impl Sampler {
    /// Sampling of a dispatch of `k` (timing classes `classes`) with `opts`; `resume`: the
    /// functional engine's continuation; `observed`, `cosim`: an observer watches, the
    /// dispatch is co-simulated with other GPUs' launches.
    pub(super) fn new(k: &LoadedKernel, classes: &[Class], opts: &EngineOptions, resume: Option<FastForward>, observed: bool, cosim: bool) -> Sampler {
        let cfg = opts.work_group_sampling;
        let why = match (cfg, resume) {
            (None, _) => None,
            (Some(_), None) => Some("no functional engine to fast-forward with"),
            _ if observed => Some("an observer watches the dispatch"),
            _ if cosim => Some("co-simulated with other GPUs' launches"),
            _ if opts.seed != 0 => Some("a nonzero seed reorders requests, whose values land late"),
            _ => unsuitable(k, classes),
        };
        let on = match (cfg, resume, why) {
            (Some(c), Some(r), None) => Some((c, r)),
            _ => None,
        };
        Sampler {
            on,
            asked: cfg.is_some(),
            next_check: u64::MAX,
            window_start: None,
            windows: Windows::new(cfg.unwrap_or_default()),
            full_detail: why,
            peak_groups: 0,
            done: None,
            marks: std::collections::VecDeque::new(),
            progress: std::collections::VecDeque::new(),
            spare: Vec::new(),
            cost: Vec::new(),
            fills: [0.0; 2],
            tracks: on.is_some(),
            seen: NONE_SEEN,
            pcs: std::collections::VecDeque::new(),
            stable: Stable::default(),
            origin: None,
            round: None,
            short_rounds: false,
            fills_at_origin: None,
            turned_over: false,
        }
    }

    /// The GPU is full from cycle `at` on: the first window starts there (the windows and
    /// the peak of resident work-groups start over: detail resumed on a later round).
    pub(super) fn start(&mut self, at: u64) {
        if let Some((cfg, _)) = self.on {
            self.next_check = at;
            self.windows = Windows::new(cfg);
            self.window_start = None;
            self.peak_groups = 0;
            self.marks.clear();
            self.progress.clear();
            self.pcs.clear();
            self.seen = NONE_SEEN;
            self.origin = None;
            self.round = None;
            self.short_rounds = false;
            self.fills_at_origin = None;
            self.turned_over = false;
        }
    }

    /// The main loop reached cycle `t` (at or past [`Sampler::next_check`]) with
    /// `completed` wave-instructions completed (issued, and for a memory or LDS instruction
    /// its counter decremented), `started` work-groups started and `resident` resident, and
    /// `side` what the memory side did so far: a window ends, and the rate to extrapolate with
    /// if detail may stop here.
    pub(super) fn window_ended(&mut self, t: u64, completed: u64, started: u64, resident: usize, side: MemorySide) -> Option<f64> {
        let Some((cfg, _)) = self.on else {
            self.next_check = u64::MAX;
            return None;
        };
        if resident < self.peak_groups {
            // Draining (or between rounds): the windows start over once the GPU is full again.
            self.restart_windows(cfg);
            self.window_start = None;
            // The snapshot of this window's end stays: the next window starts there.
            let now = self.progress.pop_back();
            self.progress.clear();
            self.progress.extend(now);
            self.origin = None;
        }
        self.peak_groups = self.peak_groups.max(resident);
        if let Some((c0, i0)) = self.window_start {
            if t > c0 {
                self.windows.push(completed.saturating_sub(i0) as f64 / (t - c0) as f64);
                self.pcs.push_back(self.seen);
            }
        }
        self.seen = NONE_SEEN;
        self.shorten_to_rounds(t, started, cfg);
        self.note_l2_turnover(&side, cfg);
        if self.round.is_none() && self.windows.len() >= self.windows.fewest() && self.windows.stable().is_none() {
            if let Some(round) = self.round_cycles(t, started, cfg) {
                // Rounds of work-groups in step: windows shorter than a round see its phases.
                self.round = Some(round);
                self.restart_windows(cfg);
            }
        }
        self.origin.get_or_insert((t, started));
        self.window_start = Some((t, completed));
        self.marks.push_back((completed, side));
        // The marks span the windows the rate is the mean of.
        while self.marks.len() > self.windows.len() + 1 {
            self.marks.pop_front();
        }
        while self.progress.len() > self.marks.len() {
            self.spare = self.progress.pop_front().map(|p| p.1).unwrap_or_default();
        }
        while self.pcs.len() > self.windows.len() {
            self.pcs.pop_front();
        }
        self.next_check = t.saturating_add(self.window_length(cfg));
        if started < cfg.min_detailed_groups || !self.may_stop(t, cfg) {
            return None;
        }
        let stable = self.windows.stable()?;
        (self.cost, self.fills) = self.cost_of_last(stable.windows);
        self.stable = stable;
        Some(stable.rate)
    }

    /// Rounds shorter than a window: from the first window end after a round started since the
    /// windows began, the windows are the fewest whole rounds [`short_round_window`] allows.
    fn shorten_to_rounds(&mut self, t: u64, started: u64, cfg: WorkGroupSampling) {
        if self.round.is_some() {
            return;
        }
        let period = self.origin.and_then(|o| round_period(o, t, started, self.peak_groups, 0));
        if let Some(window) = period.and_then(|p| short_round_window(p, cfg.window_cycles)) {
            self.round = Some(window);
            self.short_rounds = true;
            self.restart_windows(cfg);
        }
    }

    /// With short rounds, the windows start over once the L2s have allocated as many lines as
    /// they hold since the first window check: the rates before that saw stores the L2s absorbed
    /// that later evict dirty lines ([`crate::sched::sample`], "Rounds shorter than a window").
    fn note_l2_turnover(&mut self, side: &MemorySide, cfg: WorkGroupSampling) {
        let at_origin = *self.fills_at_origin.get_or_insert(side.fills[0]);
        if self.short_rounds && !self.turned_over && side.fills[0].saturating_sub(at_origin) >= side.l2_lines {
            self.turned_over = true;
            self.restart_windows(cfg);
        }
    }

    /// Whether detail may stop at cycle `t`: with short rounds, once the L2s have turned over
    /// or the windows have run as long as `window_cycles` windows need at least.
    fn may_stop(&self, t: u64, cfg: WorkGroupSampling) -> bool {
        let since = t.saturating_sub(self.origin.map_or(t, |o| o.0));
        !self.short_rounds || self.turned_over || since >= 2 * u64::from(cfg.windows) * cfg.window_cycles
    }

    /// The windows kept so far are dropped (their length or the caches' state changed).
    fn restart_windows(&mut self, cfg: WorkGroupSampling) {
        self.windows = Windows::new(self.windows_cfg(cfg));
        self.marks.clear();
        self.pcs.clear();
    }

    /// The windows' parameters: with windows a whole round long, half as many (each already
    /// averages the phases of a round that short windows sample one by one).
    fn windows_cfg(&self, cfg: WorkGroupSampling) -> WorkGroupSampling {
        match self.round {
            Some(_) => WorkGroupSampling { windows: (cfg.windows / 2).max(1), ..cfg },
            None => cfg,
        }
    }

    /// Cycles of a window: a round ([`Sampler::round`]), or `window_cycles`.
    fn window_length(&self, cfg: WorkGroupSampling) -> u64 {
        self.round.unwrap_or(cfg.window_cycles).max(1)
    }

    /// The rounds' period ([`round_period`]) once the windows have run since `origin`.
    fn round_cycles(&self, t: u64, started: u64, cfg: WorkGroupSampling) -> Option<u64> {
        round_period(self.origin?, t, started, self.peak_groups, cfg.window_cycles)
    }

    /// Whether windows are being measured (the main loop then notes each wave's progress at
    /// their ends, [`Sampler::note_progress`]).
    pub(super) fn measures(&self) -> bool {
        self.on.is_some()
    }

    /// At the end of a window (before [`Sampler::window_ended`]), at cycle `t`: `fill` writes
    /// each wave's completed instructions by wave id into the vector it is given.
    pub(super) fn note_progress(&mut self, t: u64, fill: impl FnOnce(&mut Vec<u64>)) {
        // The vector of a snapshot dropped is reused.
        let mut v = std::mem::take(&mut self.spare);
        v.clear();
        fill(&mut v);
        self.progress.push_back((t, v));
    }

    /// A wave issues the instruction at `pc`.
    pub(super) fn saw(&mut self, pc: u64) {
        self.seen = (self.seen.0.min(pc), self.seen.1.max(pc));
    }

    /// The first and last PC the stable windows issued (`None`: none seen).
    fn loop_range(&self) -> Option<(u64, u64)> {
        let from = self.pcs.len().saturating_sub(self.stable.windows);
        let (lo, hi) = self.pcs.iter().skip(from).fold(NONE_SEEN, |a, b| (a.0.min(b.0), a.1.max(b.1)));
        (lo <= hi).then_some((lo, hi))
    }

    /// Memory-side busy cycles booked per completed wave-instruction, per channel, and lines
    /// the L2s and the MALL allocated per completed wave-instruction, over the last `windows`
    /// windows (the stable ones).
    fn cost_of_last(&self, windows: usize) -> (Vec<f64>, [f64; 2]) {
        let first = self.marks.get(self.marks.len().saturating_sub(windows + 1));
        let (Some((i0, m0)), Some((i1, m1))) = (first, self.marks.back()) else { return (Vec::new(), [0.0; 2]) };
        let done = i1.saturating_sub(*i0).max(1) as f64;
        let per = |a: u64, b: u64| b.saturating_sub(a) as f64 / done;
        (m0.busy_cycles.iter().zip(&m1.busy_cycles).map(|(a, b)| per(*a, *b)).collect(), [0, 1].map(|l| per(m0.fills[l], m1.fills[l])))
    }
}

/// Why a kernel's remainder must not be fast-forwarded: its work-groups may communicate
/// (atomics, the cache maintenance of acquire and release, naps while polling), or it reads a
/// clock (whose value the functional engine counts differently). `None`: it may be.
fn unsuitable(k: &LoadedKernel, classes: &[Class]) -> Option<&'static str> {
    for c in classes {
        match c {
            Class::Vmem { kind: OpKind::Atomic { .. }, .. } | Class::Smem { kind: OpKind::Atomic { .. } } => return Some("the kernel has atomics"),
            Class::Cache(m) if *m != Maintenance::None => return Some("the kernel has cache maintenance (acquire or release across work-groups)"),
            Class::Sleep { .. } => return Some("the kernel sleeps (s_sleep), as pollers do"),
            _ => {}
        }
    }
    let clock = k.code.iter().any(|c| matches!(c, CodeSlot::Inst(e) if reads_clock(&e.sem)));
    clock.then_some("the kernel reads a clock")
}

/// Instructions that read the shader clock or the real-time clock.
fn reads_clock(sem: &Sem) -> bool {
    match sem {
        Sem::Smem(smem::Op::MemTime { .. } | smem::Op::MemRealTime { .. }) | Sem::Salu(salu::Op::SendMsgRtn { .. }) => true,
        Sem::Salu(salu::Op::GetReg { field, .. }) => matches!(field.reg, HwReg::ShaderCycles20 | HwReg::ShaderCyclesLo | HwReg::ShaderCyclesHi),
        _ => false,
    }
}

/// Scale the counters of a dispatch's detailed part to the whole ([`crate::sched::sample`]).
pub(super) fn scale(counters: &mut Counters, s: &Sampled) {
    if s.fast_forwarded_instructions == 0 || s.detailed_instructions == 0 {
        return;
    }
    let k = (s.detailed_instructions + s.fast_forwarded_instructions) as f64 / s.detailed_instructions as f64;
    for &c in Counter::ALL {
        counters.set(c, (counters.get(c) as f64 * k).round() as u64);
    }
}

impl Sim<'_, '_> {
    /// Wave-instructions issued but not completed at `t`: memory and LDS instructions whose
    /// counter has not decremented yet.
    pub(super) fn in_flight(&self, t: u64) -> u64 {
        self.s.waves.iter().flatten().map(|r| r.x.out.pending(t).iter().sum::<usize>() as u64).sum()
    }

    /// Detail stops at cycle `at` with the stable `rate` (completed wave-instructions per
    /// cycle): the caches' dirty lines go to memory and the functional engine runs the resident
    /// waves on, and the work-groups not started that fill whole rounds (as many as are
    /// resident, or a multiple); the last partial round runs in detail from the extrapolated
    /// end ([`crate::sched::sample`]). With no work-group left to start, the resident waves run
    /// only until they leave the loop the stable windows ran, and detail goes on with what
    /// follows it (a GEMM's epilogue). Returns whether detail goes on.
    pub(super) fn fast_forward(&mut self, at: u64, rate: f64, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<bool, KernelFault> {
        let Some((cfg, resume)) = self.sampler.on else { return Ok(false) };
        let in_flight = self.in_flight(at);
        let (mut pending, mut free) = (self.admit.pending(), self.admit.free_slots());
        let kept = Kept::of(&self.s);
        // The last partial round waits for detail: it runs with fewer waves than the rate was
        // measured with (pagerank's last 1 344 of 12 288 one-wave groups on an MI300A, 3 648
        // resident: 16–17 wave-instructions a cycle against 43 in full rounds).
        let tail = pending.split_off(pending.len() - pending.len() % kept.resident().max(1));
        let skip = Skip { at, rate, in_flight, tail: tail.first().copied() };
        if cfg.skip {
            if let Some(ff) = self.unexecuted_instructions(pending.len() as u64) {
                return Ok(self.skip_rest(skip, &pending, &kept, Unexecuted { instructions: ff, ..Unexecuted::default() }));
            }
        }
        self.port.ms.borrow().flush_to(mem);
        // Only the dispatch's last waves stop leaving the loop: a partial round waiting for
        // room must find the resident work-groups gone.
        let stop = if pending.is_empty() && tail.is_empty() { self.sampler.loop_range() } else { None };
        let (d, opts) = (self.s.d, self.s.opts);
        let detailed = std::mem::replace(&mut self.s, Sched::new(d, opts, None, Storage::Reused));
        let instructions = detailed.stats.instructions;
        let fast_forwarded_groups = pending.len() as u64;
        let mut f = detailed.hand_over(|_| (), |_| ());
        if cfg.skip {
            if let Some(p) = probe::run(&mut f, resume, env, mem)? {
                let rest = self.probed_rest(skip, &f, &p, &pending, &kept, stop.is_some());
                if p.error <= cfg.tolerance && rest.instructions - rest.executed > cfg.functional_max_instructions {
                    self.port.ms.borrow_mut().refresh_from(mem);
                    self.s = f.hand_over(|_| parked(), |_| Placed::default());
                    return Ok(self.skip_rest(skip, &pending, &kept, rest));
                }
                // The probed work-groups' counts disagree, or the rest is cheap enough to run,
                // and leave the MALL the lines it touches (atax of 8 192 on an MI300A: its second
                // kernel reads by columns the matrix the first read by rows, and after a skipped
                // first kernel took 85 % longer than in full detail): it runs after all.
                free.extend(p.slots);
                free.sort_unstable_by(|a, b| b.cmp(a));
            }
        }
        let free = if pending.is_empty() { Vec::new() } else { free };
        // The MALL sees the functional part's accesses (`Touched`), which the L2s do not.
        let touched = self.port.ms.borrow_mut().lend_mall().map(Touched::new);
        let rest = match stop {
            Some(range) => Rest::UntilExit(range),
            None => Rest::All { free, pending },
        };
        let ran = resume(&mut f, rest, touched.as_ref(), env, mem, hooks);
        let installed = touched.is_some();
        if let Some(t) = touched {
            self.port.ms.borrow_mut().give_mall(t.into_cache());
        }
        ran?;
        // The caches keep their lines (dirty ones stay dirty, to be written back at the end as
        // in full detail), with the bytes the functional part left in memory.
        self.port.ms.borrow_mut().refresh_from(mem);
        let ff = f.stats.instructions - instructions;
        self.charge_memory_side(at, ff, installed);
        let extra = ((ff + in_flight) as f64 / rate).ceil() as u64;
        let end = at.saturating_add(extra);
        let own = if stop.is_some() { self.sampler.own_ends(at, rate, &kept, |id| Some(f.waves.get(id)?.as_ref()?.w.instructions)) } else { Vec::new() };
        let last = own.iter().flatten().copied().max().unwrap_or(end);
        self.sampler.note(at - self.time.begin, rate, fast_forwarded_groups, ff, extra, last.abs_diff(end));
        if let Some(&first) = tail.first() {
            self.admit.started_elsewhere_before(first);
        }
        let back = !tail.is_empty() || f.waves.iter().any(Option::is_some);
        if back {
            self.s = f.hand_over(|_| parked(), |_| Placed::default());
            self.resume_detail(end, &kept, &own);
        } else {
            self.s.stats = f.stats;
            self.time.last = self.time.last.max(end).max(last);
        }
        Ok(back)
    }

    /// What `skip` extrapolates after probe `p` ran in `f` ([`probe`]): the probed groups'
    /// instructions and the estimated rest, the estimate's error, and for one round of long waves
    /// (`one_round`: nothing pending, no partial round) the waves' own ends.
    fn probed_rest(&self, skip: Skip, f: &Sched<'_, '_, (), ()>, p: &probe::Probe, pending: &[u64], kept: &Kept, one_round: bool) -> Unexecuted {
        let instructions = p.rest(f, pending.len() as u64, self.s.d.waves_per_group()) + p.instructions;
        let total = p.live_wave.round() as u64;
        let own = match one_round {
            true => self.sampler.own_ends(skip.at, skip.rate, kept, |id| kept.live.get(id).copied().unwrap_or(false).then_some(total)),
            false => Vec::new(),
        };
        Unexecuted { instructions, executed: p.instructions, probed_groups: p.groups, count_error: p.error, last_own: own.iter().flatten().copied().max() }
    }

    /// The wave-instructions the rest of the dispatch would execute, `groups` work-groups not
    /// started ([`crate::sched::sample`], "Not executed"): each wave is taken to execute the
    /// mean of the waves of the work-groups that ended. `None` before a full round of
    /// work-groups has ended: waves that ended early (the idle waves of a work-group whose
    /// others loop long, atax of 128 on a block of 256) say nothing of the others.
    fn unexecuted_instructions(&self, groups: u64) -> Option<u64> {
        let issued: Vec<u64> = self.s.waves.iter().flatten().filter(|r| r.w.status != WaveStatus::Done).map(|r| r.w.instructions).collect();
        let resident = self.s.groups.iter().flatten().count() as u64;
        let ended = self.s.retired;
        if ended.waves == 0 || ended.groups < resident {
            return None;
        }
        let per_wave = ended.instructions as f64 / ended.waves as f64;
        let rest: f64 = issued.iter().map(|&i| (per_wave - i as f64).max(0.0)).sum();
        let waves = groups as f64 * f64::from(self.s.d.waves_per_group());
        Some((waves * per_wave + rest).round() as u64)
    }

    /// The rest of the dispatch but its last partial round (`groups` not started, the resident
    /// ones in `kept`, `rest` what is extrapolated) is extrapolated from `skip.at` at `skip.rate`
    /// without running (but a probe's work-groups, which ran): nothing else is written to memory,
    /// so the caches keep their lines and bytes; the memory side is charged as for a
    /// fast-forward. The dispatch ends at the extrapolated end (the later of the rate's and the
    /// waves' own, [`Unexecuted::last_own`]), or, with `skip.tail` (the partial round's first
    /// work-group), detail resumes there with the partial round. Returns whether detail goes on.
    fn skip_rest(&mut self, skip: Skip, groups: &[u64], kept: &Kept, rest: Unexecuted) -> bool {
        let (at, ff) = (skip.at, rest.instructions);
        self.charge_memory_side(at, ff, false);
        let extra = ((ff + skip.in_flight) as f64 / skip.rate).ceil() as u64;
        let by_rate = at.saturating_add(extra);
        let end = rest.last_own.map_or(by_rate, |own| own.max(by_rate));
        // The probe's count is known to `count_error`, which moves the extrapolated cycles alike.
        let spread = rest.last_own.map_or(0, |own| own.abs_diff(by_rate)) + (rest.count_error * extra as f64).ceil() as u64;
        self.sampler.note(at - self.time.begin, skip.rate, groups.len() as u64, ff, extra, spread);
        if let Some(done) = self.sampler.done.as_mut() {
            done.unexecuted_groups += (groups.len() + kept.resident()) as u64 - rest.probed_groups;
        }
        let (d, opts) = (self.s.d, self.s.opts);
        let skipped = std::mem::replace(&mut self.s, Sched::new(d, opts, None, Storage::Reused));
        self.s.set_next_wave_index(skipped.next_wave_index());
        self.s.stats = skipped.stats;
        self.s.retired = skipped.retired;
        self.s.skip_groups(groups);
        self.s.stats.instructions += ff - rest.executed;
        self.heap.clear();
        self.time.last = self.time.last.max(end);
        let Some(first) = skip.tail else { return false };
        for (placed, slot) in kept.groups.iter().flatten() {
            self.admit.release(placed, *slot);
        }
        self.admit.started_elsewhere_before(first);
        self.time.progress = self.time.progress.max(end);
        self.s.prog.advance(end, self.s.stats.instructions);
        self.admit_anywhere(end);
        self.sampler.start(self.admit.last_start);
        true
    }

    /// The memory side of `ff` wave-instructions that did not run in detail, from `at`: their
    /// traffic queues behind detail's on each channel, and the lines they would have brought
    /// into the L2s and the MALL take their ways as placeholders
    /// ([`crate::memsys::MemSystem::turn_over`]), but in a MALL that took the lines themselves
    /// (`installed`).
    fn charge_memory_side(&mut self, at: u64, ff: u64, installed: bool) {
        let charge: Vec<u64> = self.sampler.cost.iter().map(|c| (c * ff as f64).round() as u64).collect();
        let mut ms = self.port.ms.borrow_mut();
        ms.charge_memory(at, &charge);
        let fills = self.sampler.fills.map(|f| (f * ff as f64).round() as u64);
        ms.turn_over([fills[0], if installed { 0 } else { fills[1] }]);
    }

    /// Detail resumes at `end` (the extrapolated end of what ran functionally): the waves that
    /// stopped leaving their loop issue there, or at their own extrapolated exit (`own`, by wave
    /// id: [`Sampler::own_ends`]), where they ran before (`kept`), with nothing outstanding; the
    /// work-groups that ended functionally free their room for those not started yet.
    fn resume_detail(&mut self, end: u64, kept: &Kept, own: &[Option<u64>]) {
        self.heap.clear();
        for (i, p) in kept.groups.iter().enumerate() {
            let Some((placed, slot)) = p else { continue };
            match self.s.groups.get_mut(i).and_then(Option::as_mut) {
                Some(g) => g.x = placed.clone(),
                None => self.admit.release(placed, *slot),
            }
        }
        let k = self.s.d.kernel;
        for (id, r) in self.s.waves.iter_mut().enumerate() {
            let (Some(r), Some(&Some((cu, simd, prio, start)))) = (r.as_mut(), kept.waves.get(id)) else { continue };
            let idx = k.index_of(r.w.pc).unwrap_or(0);
            let next = own.get(id).copied().flatten().unwrap_or(end);
            r.x = WaveTiming { cu, simd, idx, next, prio, start, out: Default::default(), sleep_until: 0 };
            if r.w.status == WaveStatus::Ready {
                self.heap.push(Reverse(super::Event::new(next, prio, id as u32)));
            }
        }
        let end = own.iter().flatten().copied().fold(end, u64::max);
        self.time.last = self.time.last.max(end);
        self.time.progress = self.time.progress.max(end);
        self.s.prog.advance(end, self.s.stats.instructions);
        self.admit_anywhere(end);
        self.sampler.start(self.admit.last_start);
    }

    /// The dispatch's end: a dispatch that asked for sampling says what it did, or that it
    /// ran in full detail and why.
    pub(super) fn note_sampling(&mut self) {
        if !self.sampler.asked {
            return;
        }
        let (groups, instructions) = (self.s.stats.groups, self.s.stats.instructions);
        let Some(mut s) = self.sampler.done.take() else {
            let why = self.sampler.full_detail.unwrap_or("the rate was not stable before the end");
            self.s.stats.sampled = Some(Sampled { detailed_groups: groups, detailed_instructions: instructions, full_detail: Some(why), ..Sampled::default() });
            return;
        };
        s.detailed_groups = groups.saturating_sub(s.fast_forwarded_groups);
        s.detailed_instructions = instructions.saturating_sub(s.fast_forwarded_instructions);
        let total = self.time.last.saturating_sub(self.time.begin).max(1);
        // `error_pct` holds, until here, the rates' errors times the cycles extrapolated with them.
        s.error_pct = 100.0 * s.error_pct / total as f64;
        self.s.stats.sampled = Some(s);
    }
}

/// What the timing engine keeps of a dispatch while the functional engine runs it on: per
/// wave id where it runs, its priority and start (cu, SIMD, priority, start cycle), and per
/// work-group position where it was placed and its scratch slot.
struct Kept {
    waves: Vec<Option<(usize, usize, u32, u64)>>,
    /// By wave id: the wave had not ended.
    live: Vec<bool>,
    groups: Vec<Option<(Placed, u32)>>,
}

/// Where `skip` extrapolates from: the cycle detail stopped, the rate, the wave-instructions
/// outstanding then, and the last partial round's first work-group, if any.
#[derive(Debug, Clone, Copy)]
struct Skip {
    at: u64,
    rate: f64,
    in_flight: u64,
    tail: Option<u64>,
}

/// What `skip` extrapolates ([`Sim::skip_rest`]).
#[derive(Debug, Clone, Copy, Default)]
struct Unexecuted {
    /// Wave-instructions from [`Skip::at`] on: estimated, but a probe's work-groups', which
    /// ran ([`probe`]) and of which `executed` are counted already.
    instructions: u64,
    executed: u64,
    /// Resident work-groups a probe ran to their end.
    probed_groups: u64,
    /// Relative error of the estimated count.
    count_error: f64,
    /// One round of long waves: the latest of the waves' own ends ([`Sampler::own_ends`]).
    last_own: Option<u64>,
}

impl Kept {
    fn of(s: &Sched<'_, '_, WaveTiming, Placed>) -> Kept {
        let waves = s.waves.iter().map(|r| r.as_ref().map(|r| (r.x.cu, r.x.simd, r.x.prio, r.x.start))).collect();
        let live = s.waves.iter().map(|r| r.as_ref().is_some_and(|r| r.w.status != WaveStatus::Done)).collect();
        let groups = s.groups.iter().map(|g| g.as_ref().map(|g| (g.x.clone(), g.slot))).collect();
        Kept { waves, live, groups }
    }

    /// Work-groups resident.
    fn resident(&self) -> usize {
        self.groups.iter().flatten().count()
    }
}

/// The timing state of a wave that is never scheduled: only to name the type when the
/// functional engine hands a dispatch back with no wave resident.
fn parked() -> WaveTiming {
    WaveTiming { cu: 0, simd: 0, idx: 0, next: u64::MAX, prio: 0, start: 0, out: Default::default(), sleep_until: 0 }
}

impl Sampler {
    /// A fast-forward from `at` (cycles from the dispatch's start) at `rate`: `groups`
    /// work-groups and `instructions` wave-instructions ran functionally, `extra` cycles
    /// were extrapolated.
    /// `spread`: cycles between the end the dispatch's rate gives and the one the waves' own
    /// rates give ([`Sampler::own_ends`]), an error of its own.
    fn note(&mut self, at: u64, rate: f64, groups: u64, instructions: u64, extra: u64, spread: u64) {
        let error = self.stable.error;
        let s = self.done.get_or_insert_with(|| Sampled { stopped_at_cycle: at, rate, ..Sampled::default() });
        s.fast_forwarded_groups += groups;
        s.fast_forwarded_instructions += instructions;
        s.error_pct += error * extra as f64 + spread as f64;
    }

    /// When each wave (by id) reaches the count `total` gives it (the loop's exit where a
    /// fast-forward stopped it, or a probe's estimate of its end, [`probe`]), from `at` (`None`: no wave, or no pace of its
    /// own). One round of long waves does not end together: atax of 1 536 on an MI300A (6
    /// work-groups, one round) has its first work-group end 23 % of the launch before its last,
    /// the launch's rate falling as they leave, while the dispatch's mean rate `rate` ended them
    /// all at once. A wave's share of that rate is its pace since it started (`kept`) over the
    /// sum of the resident waves' paces: over the stable windows alone a wave completes too
    /// few instructions for its pace to be known (atax's waves stall together every 32
    /// iterations, a step of a few hundred instructions in a window's few thousand), and the
    /// latest of many noisy ends is late.
    fn own_ends(&self, at: u64, rate: f64, kept: &Kept, total: impl Fn(usize) -> Option<u64>) -> Vec<Option<u64>> {
        let Some((_, done)) = self.progress.back() else { return Vec::new() };
        let pace = |id: usize| -> Option<f64> {
            let (&d, &(_, _, _, start)) = (done.get(id)?, kept.waves.get(id)?.as_ref()?);
            (d != u64::MAX && at > start).then(|| d as f64 / (at - start) as f64)
        };
        let sum: f64 = (0..done.len()).filter_map(pace).sum();
        if sum <= 0.0 {
            return Vec::new();
        }
        (0..done.len())
            .map(|id| {
                let p = pace(id)?;
                let left = total(id)?.checked_sub(done[id])?;
                let own = rate * p / sum;
                (own > 0.0).then(|| at.saturating_add((left as f64 / own).ceil() as u64))
            })
            .collect()
    }
}
