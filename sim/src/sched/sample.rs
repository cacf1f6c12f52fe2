//! Work-group-level sampled timing within one long dispatch (Photon's idea: once the GPU's
//! throughput is stable, the rest of the dispatch tells little new; written from the idea).
//!
//! The timing engine simulates in full detail and measures, over windows of
//! [`WorkGroupSampling::window_cycles`], the dispatch's throughput in wave-instructions
//! *completed* per cycle: issued, and for a memory or LDS instruction its wait counter
//! decremented (its data returned or its store acknowledged), i.e. issued minus what is still
//! outstanding at the window's end. Issued instructions overstate a memory-bound kernel while
//! its queues fill (loads issue long before memory delivers); completed ones are what memory
//! actually delivered, and they count the same for a streaming kernel with grid-stride loops
//! (whose whole grid stays resident and where no work-group finishes before the end) and for a
//! tiled one, which finished work-groups would not. Once the GPU is full (every work-group
//! of the first round started, or no room for the next; windows count only while as many
//! work-groups are resident as ever were), at least [`WorkGroupSampling::min_detailed_groups`]
//! work-groups started, and the mean rate of the most recent windows (at least `2 ×`
//! [`WorkGroupSampling::windows`], up to four times that: a noisy rate accumulates windows
//! until its mean is known, and older ones, such as a ramp-up, are left out when the recent
//! ones agree without them) is known within [`WorkGroupSampling::tolerance`] (3 standard
//! errors of the mean, the windows' own scatter: a partial round of few waves swings window to
//! window by several percent and still has a mean known to 1 %, which a test on the windows'
//! spread never accepted), and the means of their earlier and later halves agree within half
//! the tolerance — or, for windows noisier than that, within 3 standard errors of the halves'
//! difference, never more than the tolerance (a phase check: a slow drift, such as a
//! write-back L2 filling with dirty lines, has a small standard error too; the windows' noise
//! for it is taken from neighbours' differences, which a drift does not inflate), detail stops at
//! that cycle `C_s`. The caches write their dirty lines to memory, every resident
//! wave goes on from its exact state in the functional engine (results are exactly the
//! functional engine's, which programs check), and the dispatch's duration is extrapolated:
//!
//! ```text
//! end = max(last detailed event, C_s + ceil((I_ff + I_out) / R))
//! ```
//!
//! with `I_ff` the wave-instructions the functional part executed, `I_out` those issued but
//! outstanding at `C_s`, and `R` the mean rate of the stable windows. The memory side is
//! extrapolated too: over the stable windows, each MALL and DRAM channel's busy cycles booked
//! per completed wave-instruction are measured, and `I_ff` times that is booked on the channel
//! from `C_s`, wherever it has room. A store completes when the L2 takes it, while the dirty
//! line it evicts queues for DRAM: a store-bound kernel (a fill, micro_membw's stream_write)
//! builds a DRAM backlog early, while the L2 still absorbs stores faster than DRAM drains
//! them, and in full detail the end-of-kernel write-back (and a partial round after it) waits
//! for that backlog plus everything queued behind it. Without the charge the fast-forwarded
//! stores' write-backs were never queued, and the dispatch ended early by about the backlog
//! (a 512 MiB fill on an MI210, 1 024 work-groups: 37.5 % early, micro_membw's stream_write
//! ~40 µs per launch); with it, the channels are left as busy as full detail leaves them, to
//! within the windows' spread. A channel with idle gaps (a compute-bound kernel, or loads that
//! wait for their data) fills them, so the charge moves no end that DRAM does not bound.
//!
//! One round of long waves (nothing left to start) does not end together, and the rate of all
//! of them ends them together: atax of 1 536 on an MI300A (6 work-groups, one round) had its
//! first work-group end 23 % of the launch before its last in full detail, the rate falling as
//! they left, and the sampled launch ended 10 % early (stated ±1.7 %); one work-group of a
//! loading wave and three that only compute ended a third of the way. There the fast-forward
//! stops each wave at its loop's exit, and each resumes detail at its own extrapolated exit: its
//! share of `R` is its pace since it started over the sum of the resident waves' paces. That
//! ends the last wave as if no wave sped up when others left (a latency-bound wave does not; a
//! bandwidth-bound one does, which `R` alone models), so the truth lies between the two ends,
//! and their difference is stated as error (atax of 8 192: kernel 1 12.7 % late against
//! 13.3 % early with `R` alone, stated ±28.5 %).
//!
//! The functional part's accesses are looked up in the MALL as they go ([`super::Touched`]), so
//! a later launch finds there what full detail would leave; the L2s age out as below.
//!
//! The work-groups not started yet run functionally too, as many as fill whole rounds (the
//! resident work-groups' count, or a multiple: the rate of full rounds holds for them). The rest
//! is the last, partial round, which runs with fewer waves than the rate was measured with (a
//! grid-stride kernel of 1 024 work-groups on a GPU holding 832: the last 192 are latency-bound,
//! not bandwidth-bound; pagerank's last 1 344 of 12 288 one-wave groups on an MI300A complete 17
//! wave-instructions a cycle against 43 in full rounds): detail resumes at the fast-forward's
//! extrapolated end with the partial round, sampled again once its own rate is stable. The caches
//! keep their lines across a fast-forward with the bytes the functional part left in memory (dirty
//! lines stay dirty, so the end-of-kernel write-back costs what it costs in full detail); the L2s
//! are not warmed with the functional part's addresses (the functional engine does not know which
//! XCD an access came from), the MALL is (above). The rate is assumed to hold to the end, including
//! the drain of the last work-groups (but for one round of long waves, above), and
//! every wave-instruction is assumed to cost the windows' mean: code that ran little or not at all
//! in the windows (a GEMM's epilogue of stores after its k loop) is costed at the loop's rate.
//!
//! Estimated error: the rate's error (3 standard errors of the stable windows' mean, the
//! quantity the stop was decided on, or the difference of their halves' means if larger) times the share of the duration that was extrapolated,
//! plus, for one round of long waves, the difference between the waves' own ends and the end `R` gives,
//! summed over the dispatch's fast-forwards. Counters of the fast-forwarded part are scaled: every
//! counter of the detailed part × (all wave-instructions / detailed wave-instructions).
//!
//! Not executed ([`WorkGroupSampling::skip`]). The rest need not run for its time: with a
//! full round of waves or more ended in detail, each wave is taken to execute their mean
//! number of instructions `I_w` (the waves of one kernel doing alike work, as in a Photon-style
//! sampler), so `I_ff = pending groups in whole rounds × waves per group × I_w + Σ over resident waves of
//! max(0, I_w − issued so far)`, and the formula above extrapolates with it (`I_w` is the mean
//! over the waves of work-groups that ended, once a round of work-groups has: waves that end
//! early, the idle waves of a group whose others loop, say nothing of the others); nothing is
//! written to memory (the program's results are not what it computes, and every summary
//! says how many work-groups were not executed), so nothing is flushed from or refreshed in
//! the caches. Before a full round of work-groups has ended (one-round grids, grid-stride loops)
//! no ended wave tells the count: a probe runs eight resident work-groups, spread over the grid,
//! to their end in the functional engine and `I_w` is their waves' mean (of the waves still
//! running when detail stopped, for the resident ones; of all, for those not started), with
//! [`Z`] standard errors of the probed groups' means as the count's error, added to the rate's;
//! one round of long waves ends at the latest of the waves' own ends for that count (above).
//! When the probed groups disagree by more than the tolerance (a data-dependent loop), when what
//! would be left unexecuted runs functionally in a few CPU-seconds (fewer than 2²⁶
//! wave-instructions, [`WorkGroupSampling::functional_max_instructions`]: then it runs, and the MALL keeps the lines it touches, which a later
//! launch reading the same data finds), or when fewer than 17 work-groups are resident, the
//! rest runs functionally as without `skip` (nbody of 16 384 bodies on an MI300A, 64
//! work-groups of one round: 26.8 → 1.8 CPU-s). The last partial
//! round runs in detail, as above (the resident waves' rest is not executed either way, and
//! detail resumes at its extrapolated end). What the estimate cannot see: work-groups that do more or less work than
//! the ones that ended (data-dependent loops); the kernel-level re-checks see such a launch
//! if it repeats, the error estimate does not cover it.
//!
//! Rounds in step. Work-groups admitted together end together and the next round starts in a
//! burst, so in a grid of many rounds of short waves the rate swings with the round's phase:
//! stencil2d of 8 192² on an MI300A (2 964 one-wave groups resident, a round about 16 k cycles)
//! had windows of 4 096 cycles between 0.3 and 3 times their mean, and the mean of 32 of them
//! was still not known to 30 %, so its launches ran in full detail. When the windows kept do not
//! give a stable rate and at least one round has started since they began, the windows are a
//! round long from then on ([`round_period`]: the cycles over which as many work-groups started
//! as are resident), and half as many of them are needed, each already averaging every phase
//! of a round (stencil2d 8 192²: 78 → 27 CPU-s, 2.0 % off full detail).
//!
//! Rounds shorter than a window. A grid of many short rounds (an element-wise kernel of 8 M
//! elements on an MI300A: 1 824 work-groups resident, a round about 2 400 cycles) sees the
//! rounds' phases in windows of 4 096 cycles too, and never reached a stable rate before its last
//! work-group started. Once a round has started since the windows began and the round is no
//! longer than a window, the windows are whole rounds ([`short_round_window`]), half as many
//! as above. Early windows are not the rest's, though: until the L2s have allocated as many
//! lines as they hold, stores fill them with dirty lines that nothing evicts yet, and the rate
//! falls once every store evicts one (vectoradd of 8 M elements: windows of one round at 115
//! wave-instructions a cycle while the L2s filled, 86–93 after; stopped on the early ones, the
//! launch came out 11.3 % short against a stated ±0.2 %). So with short rounds the windows start
//! over when the L2s have turned over since the dispatch's first window, and detail stops before that only
//! where windows of `window_cycles` could have stopped (after `2 × windows` of them): a kernel
//! whose footprint stays in the L2 keeps the old bound. Measured with `skip` against the same
//! runs with the rule off, `hipscope exec --gpu mi300a --mode timing --sample skip -- PROG --size
//! 8388608 --iterations 1`: relu 43 793 → 43 805 cycles (+0.03 %, 23 648 of 32 768 work-groups
//! in detail), wall 3.77 → 2.09 s; vectoradd 50 729 → 50 958 cycles (+0.45 %, stated ±0.9 %),
//! 5.18 → 2.87 s.
//!
//! When the remainder could behave differently in the functional engine, or its instruction
//! count would say nothing of time, the dispatch runs in full detail and says why
//! ([`Sampled::full_detail`]): kernels with atomics, cache maintenance (the acquire and
//! release of inter-work-group flags), `s_sleep`, or clock reads; runs with an observer, a
//! nonzero seed (reordered requests whose values land late), or co-simulated with other GPUs.

use super::{Hooked, Sched};
use crate::exec::Env;
use crate::fault::KernelFault;
use crate::memory::Memory;
use crate::sample::Z;

/// Parameters of work-group-level sampling ([`super::EngineOptions::work_group_sampling`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkGroupSampling {
    /// Cycles of one window over which the rate is measured.
    pub window_cycles: u64,
    /// Half the consecutive windows whose mean rate is extrapolated with (the phase check
    /// compares the two halves).
    pub windows: u32,
    /// Most relative error of that mean (3 standard errors over the mean).
    pub tolerance: f64,
    /// Work-groups that must have started in detail before the rest may be fast-forwarded
    /// (besides the GPU being full).
    pub min_detailed_groups: u64,
    /// The rest is extrapolated without running it ([`crate::sample::SamplePolicy::skip`];
    /// the section "Not executed" above).
    pub skip: bool,
    /// `skip` before a round has ended: a probe's estimate is used only if it leaves more than
    /// this many wave-instructions unexecuted; a cheaper rest runs functionally (above).
    pub functional_max_instructions: u64,
}

impl WorkGroupSampling {
    /// The work-group sampling `policy` asks for (its defaults), if any.
    pub fn for_policy(policy: crate::sample::SamplePolicy) -> Option<WorkGroupSampling> {
        policy.work_groups.then(|| WorkGroupSampling { skip: policy.skip, ..WorkGroupSampling::default() })
    }
}

impl Default for WorkGroupSampling {
    fn default() -> WorkGroupSampling {
        // assumed: 2 × 4 windows of 4096 cycles (32 k cycles, about 20 µs at 1.7 GHz, many DRAM
        // round trips), the mean within 3 %: one wave's burst does not move a window's rate
        // far, and an error of 3 % on the rate of a fast-forwarded part costs a dispatch at most
        // 3 % times that part's share.
        // 2²⁶ wave-instructions run functionally in about 4 CPU-s (16 M a second, measured on
        // nbody of 32 768 bodies: 1.75 G in 109 s).
        WorkGroupSampling { window_cycles: 4096, windows: 4, tolerance: 0.03, min_detailed_groups: 0, skip: false, functional_max_instructions: 1 << 26 }
    }
}

/// What sampling did to a dispatch: every sampled result carries it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sampled {
    /// Work-groups that started in the timing engine (some may have ended functionally).
    pub detailed_groups: u64,
    /// Work-groups that ran only in the functional engine.
    pub fast_forwarded_groups: u64,
    /// Wave-instructions executed in detail and in the functional engine.
    pub detailed_instructions: u64,
    pub fast_forwarded_instructions: u64,
    /// Cycle (from the dispatch's start) where detail stopped, and the rate used after it.
    pub stopped_at_cycle: u64,
    pub rate: f64,
    /// Estimated error of the dispatch's cycles, in percent.
    pub error_pct: f64,
    /// Why the dispatch ran in full detail although sampling was asked for.
    pub full_detail: Option<&'static str>,
    /// Work-groups whose rest was extrapolated without running (the not started ones and
    /// the resident ones, [`WorkGroupSampling::skip`]); their instructions are estimated.
    pub unexecuted_groups: u64,
}

impl std::fmt::Display for Sampled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "work-groups: {} detailed, {} fast-forwarded", self.detailed_groups, self.fast_forwarded_groups)?;
        if self.unexecuted_groups > 0 {
            write!(f, " ({} not executed)", self.unexecuted_groups)?;
        }
        write!(f, ", estimated error ±{:.1} %", self.error_pct)?;
        if let Some(why) = self.full_detail {
            write!(f, " (full detail: {why})")?;
        }
        Ok(())
    }
}

/// The functional engine's continuation of a dispatch the timing engine stopped: the resident
/// waves (`s`, in the state the timing engine left them) run on as [`Rest`] says; every global
/// access is told to `touched` (the lines the caches are given afterwards), if any.
/// The timing engine is given it by the device ([`crate::launch`]), as it cannot name the
/// functional engine.
pub(crate) type FastForward =
    fn(s: &mut Sched<'_, '_, (), ()>, rest: Rest, touched: Option<&super::Touched>, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<(), KernelFault>;

/// What a fast-forward ([`FastForward`]) runs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Rest {
    /// Every resident wave to its end, and the work-groups `pending` (in dispatch order) in
    /// the free scratch slots `free` (the last one first).
    All { free: Vec<u32>, pending: Vec<u64> },
    /// Every resident wave until its PC leaves this range (the first and last address of the
    /// loop the detailed windows ran); nothing starts.
    UntilExit((u64, u64)),
    /// Only these waves (by id: whole work-groups) to their end; nothing starts (a probe of
    /// what the others would execute, [`WorkGroupSampling::skip`]).
    Only(Vec<usize>),
}

/// The rates of the last windows, and whether they agree.
#[derive(Debug, Clone)]
pub struct Windows {
    cfg: WorkGroupSampling,
    /// The last rates, up to [`KEPT_ROUNDS`] times the `2 × windows` a mean needs at least: a
    /// noisy rate needs more windows before its mean is known (the GEMM 1024³ on an MI210, 64
    /// work-groups: windows scatter by about 5 % of the mean, so eight never know it within
    /// 3 % and about 24 do).
    rates: Vec<f64>,
}

/// Most windows kept, in units of the `2 × windows` a mean needs at least.
const KEPT_ROUNDS: usize = 4;

/// A rate known well enough to extrapolate with ([`Windows::stable`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Stable {
    /// The mean rate of the last `windows` windows.
    pub rate: f64,
    pub windows: usize,
    /// The error the rate is stated with: [`Z`] standard errors of the mean, or the halves'
    /// difference if larger (a drift the phase check let through still moves the rest's rate).
    pub error: f64,
}

impl Windows {
    pub fn new(cfg: WorkGroupSampling) -> Windows {
        Windows { cfg, rates: Vec::with_capacity(KEPT_ROUNDS * 2 * cfg.windows as usize + 1) }
    }

    /// The fewest windows a mean is taken over.
    pub fn fewest(&self) -> usize {
        2 * self.cfg.windows.max(1) as usize
    }

    /// Rates kept.
    pub fn len(&self) -> usize {
        self.rates.len()
    }

    /// No rate kept.
    pub fn is_empty(&self) -> bool {
        self.rates.is_empty()
    }

    /// A window ended with `rate`.
    pub fn push(&mut self, rate: f64) {
        self.rates.push(rate);
        let most = KEPT_ROUNDS * self.fewest();
        if self.rates.len() > most {
            self.rates.drain(..self.rates.len() - most);
        }
    }

    /// The rate to extrapolate with, if it is known well enough: the mean of the most recent
    /// windows (at least `2 × windows`, as many as pass; older ones may be a ramp-up the rest
    /// never sees again) whose error, [`Z`] standard errors of the mean, is within the
    /// tolerance, and whose halves' means agree within half the tolerance, or within [`Z`]
    /// standard errors of their difference when the windows are noisier than that, but never
    /// by more than the tolerance (a slow drift is not stable).
    pub fn stable(&self) -> Option<Stable> {
        let tol = self.cfg.tolerance;
        (self.fewest()..=self.rates.len()).rev().find_map(|k| {
            let w = Spread::of(&self.rates[self.rates.len() - k..]);
            let allowed = (Z * w.halves_error).clamp(tol / 2.0, tol);
            (w.mean > 0.0 && w.error <= tol && w.trend <= allowed).then_some(Stable { rate: w.mean, windows: k, error: w.error.max(w.trend) })
        })
    }

    /// The relative error of the mean of every rate kept ([`Spread::error`]).
    pub fn error(&self) -> f64 {
        Spread::of(&self.rates).error
    }
}

/// The period of the rounds of work-groups in cycles, if at least one round has started since
/// `origin` (the cycle and work-groups started where the windows began) and it is longer than
/// a window of `window_cycles`: the cycles over which as many work-groups started as the GPU
/// holds (`resident`), by cycle `t` with `started` started. Work-groups admitted together end
/// together and the next round starts in a burst, so the rate swings with the round's phase
/// (stencil2d of 8 192² on an MI300A: 2 964 one-wave groups resident, a round about 16 k
/// cycles, windows of 4 096 cycles between 0.3 and 3 times their mean, and the mean of 32 of
/// them still not known to 30 %): a window a whole round long averages the phases.
pub fn round_period(origin: (u64, u64), t: u64, started: u64, resident: usize, window_cycles: u64) -> Option<u64> {
    let (t0, s0) = origin;
    let rounds = started.saturating_sub(s0) as f64 / resident.max(1) as f64;
    let cycles = (t.saturating_sub(t0) as f64 / rounds).ceil();
    (rounds >= 1.0 && cycles > window_cycles as f64).then_some(cycles as u64)
}

/// Windows for rounds of `period` cycles, shorter than a window of `window_cycles` (`None`
/// otherwise): the fewest whole rounds lasting at least a quarter of a window. A window that
/// ends mid-round sees part of its phases (relu of 8 M elements on an MI300A: rounds of about
/// 2 400 cycles, so windows of 4 096 swung with the phase and none of its 18 rounds was
/// fast-forwarded); whole rounds average them. // assumed: a quarter of a window, about a
/// thousand cycles, still spans a DRAM round trip or two, so a window is not one burst of
/// returns.
pub fn short_round_window(period: u64, window_cycles: u64) -> Option<u64> {
    (period > 0 && period <= window_cycles).then(|| (window_cycles / 4).div_ceil(period).max(1) * period)
}

/// What a run of consecutive windows' rates say of their mean.
struct Spread {
    mean: f64,
    /// [`Z`] standard errors of the mean over the mean (0 with fewer than two rates or a zero
    /// mean); 3, as the kernel-level sampler's estimate, with eight windows (seven degrees of
    /// freedom) Student's t puts 98 % inside it. The windows are consecutive, so not
    /// independent: a memory-bound rate swings window to window (a burst of returns in one,
    /// fewer in the next). Measured on micro_membw's and the GEMM's windows (mi210) the lag-one
    /// correlation of the rates was mostly negative (−0.4 to −0.15), which makes this an
    /// overestimate of the mean's error; one partial round, still rising, had +0.3, a drift the
    /// phase check is for.
    error: f64,
    /// The relative difference of the means of the later and the earlier half.
    trend: f64,
    /// The relative standard error of that difference, with the rates' noise estimated from
    /// successive differences (von Neumann's estimate: a drift moves neighbours little, so it
    /// does not pass for noise and widen the check that should catch it).
    halves_error: f64,
}

impl Spread {
    fn of(rates: &[f64]) -> Spread {
        let n = rates.len();
        let mean_of = |r: &[f64]| r.iter().sum::<f64>() / r.len().max(1) as f64;
        let mean = mean_of(rates);
        if n < 2 || mean <= 0.0 {
            return Spread { mean, error: 0.0, trend: 0.0, halves_error: 0.0 };
        }
        let var = rates.iter().map(|r| (r - mean) * (r - mean)).sum::<f64>() / (n - 1) as f64;
        let steps = rates.windows(2).map(|p| (p[1] - p[0]) * (p[1] - p[0])).sum::<f64>();
        let noise = (steps / (2 * (n - 1)) as f64).sqrt() / mean;
        let half = n / 2;
        Spread {
            mean,
            error: Z * (var / n as f64).sqrt() / mean,
            trend: (mean_of(&rates[n - half..]) - mean_of(&rates[..half])).abs() / mean,
            halves_error: noise * (2.0 / half as f64).sqrt(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn windows(n: u32, tolerance: f64, rates: &[f64]) -> Windows {
        let mut w = Windows::new(WorkGroupSampling { windows: n, tolerance, ..WorkGroupSampling::default() });
        for &r in rates {
            w.push(r);
        }
        w
    }

    #[test]
    fn the_rate_is_known_only_with_enough_windows_whose_mean_has_a_small_error() {
        assert_eq!(windows(3, 0.1, &[10.0, 10.5, 10.2, 10.1, 10.3]).stable(), None, "five windows of six");
        assert_eq!(windows(3, 0.1, &[10.0, 30.0, 10.2, 10.1, 10.3, 10.2]).stable(), None, "a window far off");
        let w = windows(3, 0.1, &[10.0, 10.4, 10.2, 10.1, 10.3, 10.2]);
        let mean = w.stable().map_or(0.0, |s| s.rate);
        assert!((mean - 10.2).abs() < 1e-9, "{mean}");
        // Sample standard deviation of the six: sqrt(0.1 / 5); three standard errors of the mean.
        let expected = 3.0 * (0.1f64 / 5.0 / 6.0).sqrt() / 10.2;
        assert!((w.error() - expected).abs() < 1e-12, "{} vs {expected}", w.error());
        assert_eq!(windows(1, 0.03, &[0.0, 0.0]).stable(), None, "no rate to extrapolate with");
    }

    #[test]
    fn windows_that_swing_but_have_a_well_known_mean_are_stable() {
        // A partial round's windows: spread 8 % of the mean, so no four of them agree within 3 %,
        // but the mean of eight is known within 2.4 % (3 standard errors).
        let w = windows(4, 0.03, &[27.89, 28.60, 29.56, 27.34, 28.49, 27.86, 28.19, 28.35]);
        assert!(w.error() < 0.03 && w.stable().is_some(), "{}", w.error());
        // The same scatter twice as wide is not known to 3 %.
        let wide: Vec<f64> = [27.89, 28.60, 29.56, 27.34, 28.49, 27.86, 28.19, 28.35].iter().map(|r| 28.3 + 2.0 * (r - 28.3)).collect();
        assert_eq!(windows(4, 0.03, &wide).stable(), None);
    }

    #[test]
    fn noisy_windows_accumulate_until_their_mean_is_known() {
        // Rates swinging about 5 % of their mean window to window (as a GEMM's on a few
        // work-groups): eight windows' mean is not known within 3 %, two dozen's is.
        let rate = |i: usize| 3.3 * (1.0 + if i % 2 == 0 { 0.035 } else { -0.035 } * (1.0 + (i % 3) as f64 / 4.0));
        let rates: Vec<f64> = (0..40).map(rate).collect();
        assert_eq!(windows(4, 0.03, &rates[..8]).stable(), None, "eight: error {}", windows(4, 0.03, &rates[..8]).error());
        let w = windows(4, 0.03, &rates[..24]);
        assert!(w.stable().is_some_and(|s| s.windows == 24), "twenty-four: error {}", w.error());
        assert_eq!(windows(4, 0.03, &rates).len(), 32, "at most four times the eight needed are kept");
    }

    #[test]
    fn a_ramp_up_ages_out_of_the_mean() {
        // Two ramp-up windows far above the steady rate, then steady ones: the mean is taken
        // over the steady ones only, once there are enough of them.
        let mut rates = vec![60.0, 33.0];
        rates.extend((0..8).map(|i| 24.0 + if i % 2 == 0 { 0.2 } else { -0.2 }));
        let w = windows(4, 0.03, &rates);
        let s = w.stable().unwrap_or_else(|| panic!("steady windows after a ramp: error of all {}", w.error()));
        assert_eq!(s.windows, 8);
        assert!((s.rate - 24.0).abs() < 1e-9, "{s:?}");
        assert_eq!(windows(4, 0.03, &rates[..9]).stable(), None, "seven steady windows are too few");
    }

    /// Rounds in step: a burst as a round starts, a long middle, a slow end (the shape of
    /// stencil2d's rounds on an MI300A), repeating every `PERIOD` cycles; work-groups
    /// completed by cycle `t`, exactly.
    const PERIOD: u64 = 16_384;
    const PHASES: [(u64, f64); 3] = [(3_000, 300.0), (10_000, 100.0), (3_384, 20.0)];

    fn completed_by(t: u64) -> f64 {
        let per_round: f64 = PHASES.iter().map(|&(c, r)| c as f64 * r).sum();
        let (mut done, mut left) = ((t / PERIOD) as f64 * per_round, t % PERIOD);
        for &(c, r) in &PHASES {
            done += c.min(left) as f64 * r;
            left = left.saturating_sub(c);
        }
        done
    }

    fn rates(from: u64, length: u64, n: u64) -> Vec<f64> {
        (0..n).map(|i| from + i * length).map(|a| (completed_by(a + length) - completed_by(a)) / length as f64).collect()
    }

    #[test]
    fn windows_a_round_long_know_the_mean_of_rounds_in_step() {
        let cfg = WorkGroupSampling::default();
        let mean = completed_by(PERIOD) / PERIOD as f64;
        // Short windows see the phases: 32 of them (the most kept) never know the mean to 3 %.
        let short = windows(cfg.windows, cfg.tolerance, &rates(5_221, cfg.window_cycles, 32));
        assert_eq!(short.stable(), None, "short windows: error {}", short.error());
        // 2 964 work-groups resident, a round of them starting every period from cycle 1 000:
        // the period as measured over the first windows, from their start to the eighth's end.
        let started = |t: u64| 2_964 * (1 + t.saturating_sub(1_000) / PERIOD);
        let origin = (5_221, started(5_221));
        let end = 5_221 + 8 * cfg.window_cycles;
        let period = round_period(origin, end, started(end), 2_964, cfg.window_cycles).unwrap_or(0);
        assert!(period.abs_diff(PERIOD) * 10 <= PERIOD, "a round is {period} cycles, not {PERIOD}");
        // Half as many windows a round long: each averages every phase once.
        let round = windows(cfg.windows / 2, cfg.tolerance, &rates(end, period, 4));
        let s = round.stable().unwrap_or_else(|| panic!("round windows: error {}", round.error()));
        assert!((s.rate - mean).abs() <= s.error.max(0.01) * mean, "{} against a mean of {mean}: {s:?}", s.rate);
        // A period no longer than a window, or no round started yet: the windows stay as they are.
        assert_eq!(round_period(origin, 5_221 + 4_000, started(5_221) + 2 * 2_964, 2_964, cfg.window_cycles), None);
        assert_eq!(round_period(origin, end, started(5_221) + 2_000, 2_964, cfg.window_cycles), None);
    }

    #[test]
    fn short_rounds_get_windows_of_whole_rounds_at_least_a_quarter_window_long() {
        assert_eq!(short_round_window(2_400, 4_096), Some(2_400), "one round is long enough");
        assert_eq!(short_round_window(700, 4_096), Some(1_400), "two rounds of 700 reach 1 024");
        assert_eq!(short_round_window(1_024, 4_096), Some(1_024));
        assert_eq!(short_round_window(4_096, 4_096), Some(4_096));
        assert_eq!(short_round_window(4_097, 4_096), None, "a round longer than a window: the long-round rule's");
        assert_eq!(short_round_window(0, 4_096), None);
    }

    #[test]
    fn a_slow_drift_is_not_stable() {
        // 2 % a window: the six's mean has an error under 10 %, but the last three are 5.6 %
        // above the three before them, more than half the tolerance.
        let w = windows(3, 0.1, &[10.0, 10.2, 10.4, 10.6, 10.8, 11.0]);
        assert!(w.error() <= 0.1);
        assert_eq!(w.stable(), None);
    }
}
