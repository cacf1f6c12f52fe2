//! Kernel-level sampled timing on a device ([`crate::sample`] decides): a launch the sampler
//! predicts runs on the functional engine — memory ends exactly as a detailed run leaves it —
//! and is charged the cluster's predicted cycles and its last detailed launch's counters.
//!
//! The caches: the functional engine bypasses them, so before it runs their dirty bytes are
//! written to memory (it must read what the kernels before it wrote), and before anything
//! next reads or writes back a cache (a timed launch, a synchronization, an invalidation)
//! every cached line takes memory's bytes again ([`crate::memsys::MemSystem::refresh_from`],
//! once after a run of predicted launches), so that no stale byte is ever read or written
//! back. The lines stay: the next detailed launch finds
//! what the caches held before the predicted ones, with today's data. What that misses: lines
//! a predicted launch would have brought in or evicted (a detailed launch after one that
//! streamed other data finds warmer caches than the real one would; after one that touched
//! data not cached before, colder ones), and the dirty lines it would have left. The
//! re-checks ([`crate::sample::RECHECK_EVERY`] to [`crate::sample::RECHECK_MAX`] launches
//! apart) see that error and re-sample a cluster it moves by more than the tolerance. The
//! catch-up compares each cached line with memory and rewrites only lines that differ
//! ([`crate::memsys::cache::Cache::refresh_from`]), so a run of predicted launches that wrote
//! little costs a compare of what the caches hold, not a rewrite of it.
//!
//! With [`SamplePolicy::skip`] a predicted launch does not run at all: it is charged its
//! prediction and the counters, and memory keeps what it held (the program's results are then
//! not what it computes, which every summary says). Nothing wrote memory behind the caches'
//! back, so nothing needs catching up: the caches keep their lines and bytes as the last
//! detailed launch left them, and the next detailed launch finds them so.

use super::{Device, Hooks, LaunchError, RunOn};
use crate::dispatch::Geometry;
use crate::kernel::LoadedKernel;
use crate::sample::{ClusterKey, Decision, SamplePolicy, Sampler};
use crate::sched::{DispatchStats, EngineOptions, Touched};
use hipscope_isa::tables::OPCODE_NAMES;

impl Device {
    /// Sample later timing launches as `policy` says (its kernel level; the work-group level
    /// is the timing engine's); a new policy starts from no history.
    pub fn set_sampling(&mut self, policy: SamplePolicy) {
        self.sampler = policy.kernels.then(|| Sampler::for_policy(policy));
    }

    /// The kernel-level sampler, when sampling is on.
    pub fn sampling(&self) -> Option<&Sampler> {
        self.sampler.as_ref()
    }

    /// The cluster of a launch the sampler may predict: a timing launch with sampling on and
    /// nothing watching its timeline (an observer or a co-simulated turn wants every cycle).
    pub(super) fn sample_key(&mut self, kernel: &LoadedKernel, geo: &Geometry, args: &[Vec<u8>], hooks: &Hooks) -> Option<ClusterKey> {
        let sampler = self.sampler.as_mut()?;
        sampler.skip();
        self.timing.as_ref()?;
        if hooks.observer.is_some() || hooks.turn.is_some() {
            return None;
        }
        let arg_shape = args.iter().map(|a| pointee_size(&self.mem, a)).collect();
        Some(ClusterKey { kernel: kernel.name.clone(), entry: kernel.entry, grid: geo.grid, block: geo.block, dynamic_lds: geo.dynamic_lds, arg_shape })
    }

    /// Run a launch of cluster `key` as the sampler decides.
    pub(super) fn launch_sampled(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        hooks: Hooks,
        key: ClusterKey,
    ) -> Result<DispatchStats, LaunchError> {
        // Without a MALL a functional warm-up would leave the last-level cache cold: nw 512 on
        // mi210 came out +30 % (0.8254 against 0.6349 ms in full detail).
        let warming_up = self.warming_up && self.timing.as_ref().is_some_and(|t| t.ms.has_mall());
        let decision = self.sampler.as_mut().map_or(Decision::Detailed, |s| if warming_up { s.decide_warm_up(&key) } else { s.decide(&key) });
        if decision == Decision::WarmUp {
            return self.launch_warm_up(kernel, geo, args, opts, hooks);
        }
        let Decision::Predicted { cycles } = decision else {
            let stats = self.launch_engine(kernel, geo, args, opts, hooks, RunOn::Timing)?;
            if let Some(s) = &mut self.sampler {
                let cycles = stats.cycles.unwrap_or(0);
                s.record(&key, cycles, stats.counters.clone());
                if let Some(w) = &stats.sampled {
                    s.skipped_groups(w.unexecuted_groups);
                    s.extrapolated(&key, cycles, w.error_pct);
                }
            }
            return Ok(stats);
        };
        if let Some(s) = self.sampler.as_mut().filter(|s| s.skips()) {
            // Not executed: charged the prediction; memory and the caches stay as they are.
            s.skipped_launch();
            let counters = s.counters(&key);
            if let Some(t) = &mut self.timing {
                t.clock = t.clock.saturating_add(cycles);
            }
            return Ok(DispatchStats { opcode_counts: vec![0; OPCODE_NAMES.len()], cycles: Some(cycles), counters, ..DispatchStats::default() });
        }
        self.run_behind_caches();
        let mut stats = self.launch_engine(kernel, geo, args, opts, hooks, RunOn::Functional)?;
        if let Some(t) = &mut self.timing {
            // Dispatches run back to back: the next starts after the predicted one.
            t.clock = t.clock.saturating_add(cycles);
        }
        stats.cycles = Some(cycles);
        stats.counters = self.sampler.as_ref().and_then(|s| s.counters(&key));
        Ok(stats)
    }
}

impl Device {
    /// Whether launches from now on come before the program's timed region (the HIP runtime:
    /// it has created an event and recorded none); with kernel-level sampling on and a GPU
    /// with a MALL, such launches are warm-ups ([`crate::sample::Sampler::decide_warm_up`]).
    pub fn set_warming_up(&mut self, warming_up: bool) {
        self.warming_up = warming_up;
    }

    /// A warm-up launch: on the functional engine, the MALL told its global accesses;
    /// untimed. The caches catch up with the memory it wrote before the next
    /// timed launch, as after a predicted one. With `skip` it stops after the work-group
    /// sampler's `functional_max_instructions` (what is not executed is counted as `skip`'s
    /// work-groups are), and the kernel's later warm-ups are sampled as timed launches are: a
    /// long one-round kernel (n-body) costs less simulated in detail with its work-groups
    /// probed than run to its end functionally.
    fn launch_warm_up(
        &mut self,
        kernel: &LoadedKernel,
        geo: Geometry,
        args: &[Vec<u8>],
        opts: &EngineOptions,
        hooks: Hooks,
    ) -> Result<DispatchStats, LaunchError> {
        self.run_behind_caches();
        let budget = opts.work_group_sampling.filter(|w| w.skip).map_or(u64::MAX, |w| w.functional_max_instructions);
        let groups = geo.group_count();
        let touched = self.timing.as_mut().and_then(|t| t.ms.lend_mall()).map(Touched::new);
        let ran = self.launch_engine(kernel, geo, args, opts, hooks, RunOn::Warming(touched.as_ref(), budget));
        if let (Some(t), Some(timing)) = (touched, self.timing.as_mut()) {
            timing.ms.give_mall(t.into_cache());
        }
        let stats = ran?;
        let not_started = groups.saturating_sub(stats.groups);
        if let Some(s) = self.sampler.as_mut().filter(|_| not_started > 0) {
            s.skipped_groups(not_started);
            s.warm_up_too_long(&kernel.name, kernel.entry);
        }
        Ok(DispatchStats { cycles: None, counters: None, ..stats })
    }

    /// A launch is about to run functionally, writing memory behind the caches' back: their
    /// dirty bytes go to memory first (it must read what the kernels before it wrote), once
    /// per run of such launches.
    fn run_behind_caches(&mut self) {
        if !self.caches_behind {
            self.synchronize();
            self.caches_behind = true;
        }
    }

    /// After launches that ran functionally: every cached line takes memory's bytes, once,
    /// before the next timed launch, write-back or cache change (not after each predicted
    /// launch: a run of them shares one catch-up).
    pub(super) fn catch_up_caches(&mut self) {
        if std::mem::take(&mut self.caches_behind) {
            if let Some(t) = &mut self.timing {
                t.ms.refresh_from(&self.mem);
            }
        }
    }
}

/// The shape of one argument's bytes: an 8-byte value that points into an allocation stands
/// for that allocation's size (buffers of one size are alike to the timing model whatever
/// their address); any other value for 0 (scalars vary from launch to launch of one loop).
fn pointee_size(mem: &crate::memory::Memory, arg: &[u8]) -> u64 {
    let Ok(bytes) = <[u8; 8]>::try_from(arg) else { return 0 };
    let value = u64::from_le_bytes(bytes);
    mem.allocation_at(value).map_or(0, |a| a.len())
}
