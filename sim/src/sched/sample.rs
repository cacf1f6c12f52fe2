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
//! work-groups started, the last [`WorkGroupSampling::windows`] windows agree within
//! [`WorkGroupSampling::tolerance`] of their mean, and that mean agrees within half the
//! tolerance with the mean of the as many windows before them (a phase check: a slow drift,
//! such as a write-back L2 filling with dirty lines, passes the first test alone), detail
//! stops at that cycle `C_s`. The caches write their dirty lines to memory, every resident
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
//! The work-groups not started yet run functionally too when there are at least as many of them as
//! resident ones (a round or more; the rate of full rounds holds for them). Fewer than that are the
//! last, partial round, which runs with fewer waves than the rate was measured with (a grid-stride
//! kernel of 1 024 work-groups on a GPU holding 832: the last 192 are latency-bound, not
//! bandwidth-bound): then only the resident waves are fast-forwarded, and detail resumes at their
//! extrapolated end with the partial round, sampled again once its own rate is stable. The caches
//! keep their lines across a fast-forward with the bytes the functional part left in memory (dirty
//! lines stay dirty, so the end-of-kernel write-back costs what it costs in full detail); they are
//! not warmed with the functional part's addresses (not cheap: the functional engine does not track
//! them). The rate is assumed to hold to the end, including the drain of the last work-groups, and
//! every wave-instruction is assumed to cost the windows' mean: code that ran little or not at all
//! in the windows (a GEMM's epilogue of stores after its k loop) is costed at the loop's rate.
//!
//! Estimated error: the stable windows' spread, `(max - min) / (2 × mean)`, times the share of
//! the duration that was extrapolated. Counters of the fast-forwarded part are scaled: every
//! counter of the detailed part × (all wave-instructions / detailed wave-instructions).
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

/// Parameters of work-group-level sampling ([`super::EngineOptions::work_group_sampling`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkGroupSampling {
    /// Cycles of one window over which the rate is measured.
    pub window_cycles: u64,
    /// Consecutive windows that must agree.
    pub windows: u32,
    /// Most relative spread `(max - min) / mean` of those windows' rates.
    pub tolerance: f64,
    /// Work-groups that must have started in detail before the rest may be fast-forwarded
    /// (besides the GPU being full).
    pub min_detailed_groups: u64,
}

impl Default for WorkGroupSampling {
    fn default() -> WorkGroupSampling {
        // assumed: 4 windows of 4096 cycles (16 k cycles, about 10 µs at 1.7 GHz, several DRAM
        // round trips) within 3 %: long enough that one wave's burst does not move the rate.
        WorkGroupSampling { window_cycles: 4096, windows: 4, tolerance: 0.03, min_detailed_groups: 0 }
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
}

impl std::fmt::Display for Sampled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "work-groups: {} detailed, {} fast-forwarded, estimated error ±{:.1} %", self.detailed_groups, self.fast_forwarded_groups, self.error_pct)?;
        if let Some(why) = self.full_detail {
            write!(f, " (full detail: {why})")?;
        }
        Ok(())
    }
}

/// The functional engine's continuation of a dispatch the timing engine stopped: the resident
/// waves (`s`, in the state the timing engine left them) run to their end, and the work-groups
/// `pending` (in dispatch order) start in the free scratch slots `free` (the last one first).
/// The timing engine is given it by the device ([`crate::launch`]), as it cannot name the
/// functional engine.
pub(crate) type FastForward =
    fn(s: &mut Sched<'_, '_, (), ()>, free: Vec<u32>, pending: Vec<u64>, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<(), KernelFault>;

/// The rates of the last windows, and whether they agree.
#[derive(Debug, Clone)]
pub struct Windows {
    cfg: WorkGroupSampling,
    /// The last `2 × windows` rates: the last `windows` must agree, and their mean must agree
    /// with the mean of the `windows` before them (a slow drift passes the first test alone).
    rates: std::collections::VecDeque<f64>,
}

impl Windows {
    pub fn new(cfg: WorkGroupSampling) -> Windows {
        Windows { cfg, rates: std::collections::VecDeque::with_capacity(2 * cfg.windows as usize + 1) }
    }

    fn n(&self) -> usize {
        self.cfg.windows.max(1) as usize
    }

    /// A window ended with `rate`.
    pub fn push(&mut self, rate: f64) {
        self.rates.push_back(rate);
        while self.rates.len() > 2 * self.n() {
            self.rates.pop_front();
        }
    }

    /// The mean rate of the last windows if there are enough of them, they agree, and their
    /// mean agrees with the earlier windows' within half the tolerance.
    pub fn stable(&self) -> Option<f64> {
        if self.rates.len() < 2 * self.n() {
            return None;
        }
        let (mean, before) = (self.mean(), self.mean_before());
        let trend = (mean - before).abs() / mean.max(f64::MIN_POSITIVE);
        (mean > 0.0 && self.spread() <= self.cfg.tolerance && trend <= self.cfg.tolerance / 2.0).then_some(mean)
    }

    fn last(&self) -> impl Iterator<Item = f64> + '_ {
        self.rates.iter().copied().skip(self.rates.len().saturating_sub(self.n()))
    }

    fn mean(&self) -> f64 {
        let n = self.rates.len().min(self.n()).max(1);
        self.last().sum::<f64>() / n as f64
    }

    fn mean_before(&self) -> f64 {
        let k = self.rates.len().saturating_sub(self.n());
        self.rates.iter().take(k).sum::<f64>() / k.max(1) as f64
    }

    /// `(max - min) / mean` of the last windows' rates (0 with none).
    pub fn spread(&self) -> f64 {
        let mean = self.mean();
        if mean <= 0.0 {
            return 0.0;
        }
        let max = self.last().fold(f64::MIN, f64::max);
        let min = self.last().fold(f64::MAX, f64::min);
        (max - min) / mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_agree_only_when_enough_of_them_are_within_the_tolerance() {
        let mut w = Windows::new(WorkGroupSampling { windows: 3, tolerance: 0.1, ..WorkGroupSampling::default() });
        w.push(10.0);
        w.push(10.5);
        assert_eq!(w.stable(), None, "two windows of three");
        w.push(30.0);
        assert_eq!(w.stable(), None, "a window far off");
        for r in [10.0, 10.4, 10.2] {
            w.push(r);
        }
        assert_eq!(w.stable(), None, "the windows before them differ (the one far off)");
        for r in [10.1, 10.3, 10.2] {
            w.push(r);
        }
        let mean = w.stable().unwrap_or(0.0);
        assert!((mean - 10.2).abs() < 1e-9, "{mean}");
        assert!((w.spread() - 0.2 / 10.2).abs() < 1e-9);
        let mut zero = Windows::new(WorkGroupSampling { windows: 1, ..WorkGroupSampling::default() });
        zero.push(0.0);
        zero.push(0.0);
        assert_eq!(zero.stable(), None, "no rate to extrapolate with");
    }

    #[test]
    fn a_slow_drift_is_not_stable() {
        // 2 % a window: any three agree within 10 %, but the last three are 5.6 % above the
        // three before them, more than half the tolerance.
        let mut w = Windows::new(WorkGroupSampling { windows: 3, tolerance: 0.1, ..WorkGroupSampling::default() });
        for i in 0..6 {
            w.push(10.0 + 0.2 * i as f64);
        }
        assert!(w.spread() <= 0.1);
        assert_eq!(w.stable(), None);
    }
}
