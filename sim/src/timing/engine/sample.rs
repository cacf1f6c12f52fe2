//! Work-group-level sampling in the timing engine: when the dispatch's rate is stable, the
//! rest runs in the functional engine and its cycles are extrapolated. The method, the
//! formula, the error estimate and when a dispatch stays in full detail are in
//! [`crate::sched::sample`]; here are the engine's sides of it: the windows, checked where
//! the main loop takes the next wave (not per instruction), and the hand-over at the
//! dispatch's seams (the groups the admission has not started, the residency slots it left
//! free).

use super::Sim;
use crate::counters::{Counter, Counters};
use crate::exec::salu::hwreg::HwReg;
use crate::exec::{salu, smem, Env, Sem};
use crate::fault::KernelFault;
use crate::kernel::{CodeSlot, LoadedKernel};
use crate::memory::Memory;
use crate::memsys::OpKind;
use crate::sched::{EngineOptions, FastForward, Hooked, Sampled, Sched, Storage, Windows, WorkGroupSampling};
use crate::timing::class::{Class, Maintenance};

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
}

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
        }
    }

    /// The GPU is full from cycle `at` on: the first window starts there.
    pub(super) fn start(&mut self, at: u64) {
        if self.on.is_some() {
            self.next_check = at;
        }
    }

    /// The main loop reached cycle `t` (at or past [`Sampler::next_check`]) with
    /// `instructions` executed, `started` work-groups started and `resident` resident: a
    /// window ends, and the rate to extrapolate with if detail may stop here.
    pub(super) fn window_ended(&mut self, t: u64, instructions: u64, started: u64, resident: usize) -> Option<f64> {
        let Some((cfg, _)) = self.on else {
            self.next_check = u64::MAX;
            return None;
        };
        if resident < self.peak_groups {
            // Draining (or between rounds): the windows start over once the GPU is full again.
            self.windows = Windows::new(cfg);
            self.window_start = None;
        }
        self.peak_groups = self.peak_groups.max(resident);
        if let Some((c0, i0)) = self.window_start {
            if t > c0 {
                self.windows.push(instructions.saturating_sub(i0) as f64 / (t - c0) as f64);
            }
        }
        self.window_start = Some((t, instructions));
        self.next_check = t.saturating_add(cfg.window_cycles.max(1));
        if started < cfg.min_detailed_groups {
            return None;
        }
        self.windows.stable()
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
    /// Detail stops at cycle `at` with the stable `rate`: the caches' dirty lines go to
    /// memory, the functional engine runs the resident waves and the work-groups not started
    /// to the end, the caches forget what they held (the functional part wrote memory behind
    /// them), and the dispatch's end moves to where the rate puts it.
    pub(super) fn fast_forward(&mut self, at: u64, rate: f64, env: &mut Env, mem: &mut Memory, hooks: Hooked) -> Result<(), KernelFault> {
        let Some((_, resume)) = self.sampler.on else { return Ok(()) };
        self.port.ms.borrow().flush_to(mem);
        let (pending, free) = (self.admit.pending(), self.admit.free_slots());
        let (d, opts) = (self.s.d, self.s.opts);
        let detailed = std::mem::replace(&mut self.s, Sched::new(d, opts, None, Storage::Reused));
        let (groups, instructions) = (detailed.stats.groups, detailed.stats.instructions);
        let fast_forwarded_groups = pending.len() as u64;
        let mut f = detailed.hand_over(|_| (), |_| ());
        resume(&mut f, free, pending, env, mem, hooks)?;
        self.port.ms.borrow_mut().invalidate_range(0, u64::MAX);
        let ff = f.stats.instructions - instructions;
        self.s.stats = f.stats;
        let extra = (ff as f64 / rate).ceil() as u64;
        self.time.last = self.time.last.max(at.saturating_add(extra));
        let total = self.time.last.saturating_sub(self.time.begin).max(1);
        let error_pct = 100.0 * self.sampler.windows.spread() / 2.0 * extra.min(total) as f64 / total as f64;
        self.s.stats.sampled = Some(Sampled {
            detailed_groups: groups,
            fast_forwarded_groups,
            detailed_instructions: instructions,
            fast_forwarded_instructions: ff,
            stopped_at_cycle: at - self.time.begin,
            rate,
            error_pct,
            full_detail: None,
        });
        Ok(())
    }

    /// A dispatch that asked for sampling and ran in full detail says so, and why.
    pub(super) fn note_full_detail(&mut self) {
        if !self.sampler.asked || self.s.stats.sampled.is_some() {
            return;
        }
        let why = self.sampler.full_detail.unwrap_or("the rate was not stable before the end");
        let (groups, instructions) = (self.s.stats.groups, self.s.stats.instructions);
        self.s.stats.sampled = Some(Sampled { detailed_groups: groups, detailed_instructions: instructions, full_detail: Some(why), ..Sampled::default() });
    }
}
