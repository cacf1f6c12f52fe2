//! Faults: where a fault is located, and the reports of a livelock, a limit reached and a
//! functional-mode deadlock (the timing engine says more about what each wave waits on:
//! `timing::engine::diagnose`).

use super::{Dispatch, Sched};
use crate::fault::{wave_list, FaultKind, KernelFault, Stuck, StuckWave, WaveId, LISTED_WAVES};
use crate::progress;
use crate::wave::{Wave, WaveStatus};

/// A fault located at wave `w` (its kernel, work-group, wave and PC). Out of line: the
/// engines' per-instruction paths only branch to it.
#[cold]
#[inline(never)]
pub fn fault(d: &Dispatch, w: &Wave, kind: FaultKind) -> KernelFault {
    KernelFault { kernel: d.kernel.name.clone(), wave: w.id, pc: w.pc, kind }
}

impl<W, G> Sched<'_, '_, W, G> {
    /// A fault located at wave `id`, or at the kernel's entry if that wave is gone.
    pub fn fault_at(&self, id: usize, kind: FaultKind) -> KernelFault {
        match self.waves.get(id).and_then(Option::as_ref) {
            Some(r) => fault(self.d, &r.w, kind),
            None => KernelFault { kernel: self.d.kernel.name.clone(), wave: WaveId::default(), pc: self.d.kernel.entry, kind },
        }
    }

    /// The livelock report (`bound: None`: proven, every running wave repeats a state) or
    /// the no-progress report (`bound`: the `--no-progress-cycles` bound reached): every live
    /// wave's loop or barrier, what it last read and wrote, after how long nothing visible
    /// changed (`instructions`, and in timing mode `cycles`); and the first wave listed with
    /// its PC.
    pub fn stuck(&self, instructions: u64, cycles: Option<u64>, bound: Option<u64>) -> (Option<(WaveId, u64)>, Stuck) {
        let epoch = self.prog.epoch;
        let waves: Vec<StuckWave> = self.live_waves().map(|r| self.stuck_wave(&r.w, r.watch.looping_at(epoch))).collect();
        let lines = waves.iter().map(|s| progress::describe(s.wave, s.pc, s.loop_pc, s.at_barrier, s.last_read));
        let first = waves.first().map(|s| (s.wave, s.pc));
        let since = cycles.map_or(String::new(), |c| format!(" ({c} cycles)"));
        let groups = format!("{} of {} work-groups not started", self.groups_not_started(), self.d.geo.group_count());
        let heading = match bound {
            None => format!("every running wave repeats the same state and no wave has changed memory for {instructions} instructions{since}, so none ever will ({groups}); live waves:"),
            Some(b) => format!(
                "no wave has changed memory for {instructions} instructions{since}, the --no-progress-cycles bound of {b} (a bound, not a proof: the waves still change their own registers, as a spin counting its polls does) ({groups}); live waves:"
            ),
        };
        let text = wave_list(&heading, lines);
        let live_waves = waves.len() as u64;
        let stuck = Stuck {
            text,
            proven: bound.is_none(),
            instructions,
            cycles,
            bound,
            groups: self.d.geo.group_count(),
            groups_started: self.stats.groups,
            groups_resident: self.d.resident_groups(),
            gpu_groups_fit: None,
            waves: waves.into_iter().take(2 * LISTED_WAVES).collect(),
            live_waves,
        };
        (first, stuck)
    }

    /// The facts of one live wave for [`Sched::stuck`].
    fn stuck_wave(&self, w: &Wave, loop_pc: Option<u64>) -> StuckWave {
        let width = if self.d.kernel.wave64 { 64 } else { 32 };
        let items: u64 = self.d.geo.block.iter().map(|&b| u64::from(b)).product();
        let lanes = items.saturating_sub(u64::from(w.id.wave) * width).min(width) as u32;
        StuckWave {
            wave: w.id,
            pc: w.pc,
            loop_pc,
            at_barrier: w.status == WaveStatus::AtBarrier,
            lanes,
            exec: w.exec(),
            last_read: w.last_read.get(),
            last_write: w.last_write.get(),
        }
    }

    /// Work-groups of the dispatch not started yet.
    pub fn groups_not_started(&self) -> u64 {
        self.d.geo.group_count().saturating_sub(self.stats.groups)
    }

    /// A limit the user set that the dispatch has reached: `--max-instructions`, or in timing
    /// mode `--max-cycles` after `cycles` simulated.
    #[inline]
    pub fn limit_reached(&self, cycles: Option<u64>) -> Option<FaultKind> {
        let over = |c: &u64| *c >= self.opts.max_cycles;
        if self.stats.instructions < self.opts.max_instructions && !cycles.is_some_and(|c| over(&c)) {
            return None;
        }
        self.limit_report(cycles.filter(over))
    }

    /// The report of [`Sched::limit_reached`] (the instruction limit first).
    #[cold]
    fn limit_report(&self, cycles: Option<u64>) -> Option<FaultKind> {
        if self.stats.instructions >= self.opts.max_instructions {
            return Some(FaultKind::LimitReached(format!("{} wave-instructions executed (--max-instructions)", self.stats.instructions)));
        }
        cycles.map(|c| FaultKind::LimitReached(format!("{c} cycles simulated (--max-cycles)")))
    }

    /// What every live wave waits on when none is ready, one line each (the format of the
    /// timing engine's reports).
    pub fn describe_waits(&self) -> String {
        let lines = self.live_waves().map(|r| {
            let what = match (r.w.status, self.groups.get(r.group).and_then(Option::as_ref)) {
                (WaveStatus::AtBarrier, Some(g)) => format!("at s_barrier: {} of {} live waves of its work-group arrived", g.arrived, g.live),
                _ => "ready".to_string(),
            };
            (r.w.id, r.w.pc, what)
        });
        wave_list("no wave is ready and no barrier can complete; live waves:", lines)
    }
}
