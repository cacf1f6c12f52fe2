//! Livelock detection, shared by the functional and timing engines.
//!
//! A dispatch makes *progress* when something another wave could see changes: a store (to
//! global or private memory), an atomic that changed its location, an LDS write that changed
//! bytes, a barrier that released, a wave that ended or started. Between two such events every
//! wave runs on memory that does not change, so a wave whose complete state (PC, scalar and
//! vector registers, SCC, MODE) comes back to an earlier value is in a loop it cannot leave:
//! it will repeat the same instructions and reads forever, unless another wave changes memory.
//! When every wave that is not waiting at a barrier is in such a loop, nothing can ever change
//! again: the dispatch is livelocked (a spin lock that never opens, a flag nobody sets, a grid
//! barrier waiting for work-groups that cannot become resident). That is a proof, not a guess,
//! so it can be reported after a few thousand instructions instead of a time limit.
//!
//! Each wave's [`Watch`] looks for the repetition with Brent's cycle-finding method over the
//! wave's states at backward branches, once the wave has run [`Limits::check_after`]
//! instructions since the last progress (so ordinary code pays one comparison per
//! instruction). A loop that changes a register every iteration (a bounded spin counting its
//! polls) is not a livelock: it ends on its own, at the no-progress bound
//! (`EngineOptions::no_progress`: nothing visible changed for that many cycles, or functional
//! wave-instructions; a bound, not a proof, reported as "no progress" with the same facts), or
//! at the runaway limit (`EngineOptions::max_wave_instructions`).

use crate::fault::WaveId;
use crate::wave::{LastRead, Wave, MAX_LANES};

/// Instructions a wave runs after the last progress before it is checked for a repeating
/// state.
pub const DEFAULT_CHECK_AFTER: u64 = 256;

/// Timing mode: cycles since the last progress before a livelock is declared, so that a store
/// still on its way (seeded reordering delays arrivals by up to ~1100 cycles,
/// `memsys::reorder`) or a long memory latency cannot be mistaken for one.
pub const SETTLE_CYCLES: u64 = 100_000;

/// Progress of a whole dispatch: an epoch that advances with every visible change, and how
/// many waves are proven to loop within the current epoch.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub epoch: u64,
    /// Waves found looping since the epoch began.
    pub looping: usize,
    /// Timing mode: cycle of the last progress.
    pub at_cycle: u64,
    /// Instructions executed (dispatch-wide) at the last progress.
    pub at_instruction: u64,
}

impl Progress {
    /// Something visible changed (at `cycle`, after `instructions` dispatch instructions).
    #[inline]
    pub fn advance(&mut self, cycle: u64, instructions: u64) {
        self.epoch += 1;
        self.looping = 0;
        self.at_cycle = cycle;
        self.at_instruction = instructions;
    }
}

/// One wave's search for a repeated state.
#[derive(Debug, Clone, Default)]
pub struct Watch {
    epoch: u64,
    /// Instructions since the epoch began (or since this wave started in it).
    since: u64,
    /// Brent's method: backward branches since the last snapshot, and the window length.
    steps: u64,
    power: u64,
    snap_pc: Option<u64>,
    snap: Vec<u32>,
    /// The wave was found looping in `epoch`.
    looping: bool,
}

impl Watch {
    /// Account one executed instruction of `w` in epoch `epoch`; `backward`: it branched to
    /// an address at or before its own. Returns true when this proves the wave loops (once per
    /// epoch).
    #[inline]
    pub fn step(&mut self, w: &Wave, epoch: u64, backward: bool, check_after: u64) -> bool {
        if self.epoch != epoch {
            self.restart(epoch);
        }
        self.since += 1;
        if !backward || self.looping || check_after == 0 || self.since < check_after {
            return false;
        }
        self.brent(w)
    }

    /// Account `n` executed instructions of which none branched backward: what `n` calls of
    /// [`Watch::step`] with `backward` false do (none of them can find a loop).
    #[inline]
    pub fn ran(&mut self, epoch: u64, n: u64) {
        if self.epoch != epoch {
            self.restart(epoch);
        }
        self.since += n;
    }

    /// Whether the wave was found looping in `epoch`, and at which PC.
    pub fn looping_at(&self, epoch: u64) -> Option<u64> {
        (self.looping && self.epoch == epoch).then_some(self.snap_pc).flatten()
    }

    fn restart(&mut self, epoch: u64) {
        self.epoch = epoch;
        self.since = 0;
        self.steps = 0;
        self.power = 1;
        self.snap_pc = None;
        self.looping = false;
    }

    fn brent(&mut self, w: &Wave) -> bool {
        self.steps += 1;
        if self.snap_pc == Some(w.pc) && same_state(w, &self.snap) {
            self.looping = true;
            return true;
        }
        if self.steps >= self.power {
            self.snap.clear();
            capture(w, &mut self.snap);
            self.snap_pc = Some(w.pc);
            self.power = self.power.saturating_mul(2);
            self.steps = 0;
        }
        false
    }
}

/// The parts of a wave's state that decide what it does next (PC compared separately):
/// SGPRs, SCC, MODE, TRAPSTS, the register files' sizes and how many VGPR entries follow,
/// then each file up to its last row that is not all zero. Registers a kernel never writes
/// stay 0 (a unified gfx90a file leaves the VGPRs past `accum_offset`, and AGPRs past the
/// ones the kernel names, untouched), so the trailing zero rows need no copy; a later state
/// equals the snapshot when it matches the copied rows and is zero past them.
fn capture(w: &Wave, out: &mut Vec<u32>) {
    let (v, a) = (live_len(&w.vgpr), live_len(&w.agpr));
    out.extend_from_slice(&w.sreg);
    out.extend_from_slice(&[w.scc as u32, w.mode, w.trapsts]);
    out.extend_from_slice(&[w.vgpr.len(), w.agpr.len(), v].map(|n| n as u32));
    out.extend_from_slice(&w.vgpr[..v]);
    out.extend_from_slice(&w.agpr[..a]);
}

/// Entries of `file` up to the end of its last row that is not all zero.
fn live_len(file: &[u32]) -> usize {
    if file.len() % MAX_LANES != 0 {
        return file.len();
    }
    // OR-folding a row compiles to vector instructions; `all` would test entry by entry.
    let zero = file.chunks_exact(MAX_LANES).rev().take_while(|r| r.iter().fold(0, |a, &x| a | x) == 0).count();
    file.len() - zero * MAX_LANES
}

fn same_state(w: &Wave, snap: &[u32]) -> bool {
    let s = w.sreg.len();
    let files = s + 6;
    let Some(&[scc, mode, trapsts, vlen, alen, v]) = snap.get(s..files) else { return false };
    let (v, rest) = (v as usize, &snap[files..]);
    snap[..s] == w.sreg
        && [scc, mode, trapsts] == [w.scc as u32, w.mode, w.trapsts]
        && [vlen, alen] == [w.vgpr.len(), w.agpr.len()].map(|n| n as u32)
        && v <= rest.len()
        && same_file(&rest[..v], &w.vgpr)
        && same_file(&rest[v..], &w.agpr)
}

/// `file` equals `kept` followed by zeros.
fn same_file(kept: &[u32], file: &[u32]) -> bool {
    file.get(..kept.len()) == Some(kept) && file[kept.len()..].iter().all(|&x| x == 0)
}

/// One line per live wave of a stuck dispatch: where it loops (or waits at the barrier, or,
/// not proven to loop, where it runs) and what it last read.
pub fn describe(wave: WaveId, pc: u64, loop_pc: Option<u64>, at_barrier: bool, last: Option<LastRead>) -> (WaveId, u64, String) {
    let what = match loop_pc {
        Some(p) => format!("repeats the same state at pc {p:#x}"),
        None if at_barrier => "waits at s_barrier".to_string(),
        None => "runs without changing memory".to_string(),
    };
    let read = last.map_or_else(|| ", no memory read yet".to_string(), |r| format!("; {r}"));
    (wave, pc, format!("{what}{read}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wave() -> Wave {
        let mut w = Wave::with_vgpr_file(WaveId::default(), true, vec![0; 8 * 64], 8);
        w.pc = 0x100;
        w
    }

    #[test]
    fn a_spin_that_changes_nothing_is_found_a_counting_loop_is_not() {
        let mut w = wave();
        let mut watch = Watch::default();
        let found = (0..64).any(|_| watch.step(&w, 1, true, 1));
        assert!(found, "identical state at the same pc repeats");
        assert_eq!(watch.looping_at(1), Some(0x100));
        assert_eq!(watch.looping_at(2), None, "a new epoch forgets it");
        let mut watch = Watch::default();
        let counted = (0..10_000u32).any(|i| {
            w.sreg[3] = i;
            watch.step(&w, 1, true, 1)
        });
        assert!(!counted, "a register that changes each iteration is progress of the wave itself");
    }

    #[test]
    fn registers_past_the_copied_rows_still_count() {
        let mut w = wave();
        w.vgpr[64] = 1; // v1 of lane 0; v2..v7 stay zero and are not copied
        let mut snap = Vec::new();
        capture(&w, &mut snap);
        assert!(same_state(&w, &snap));
        w.vgpr[7 * 64 + 3] = 5;
        assert!(!same_state(&w, &snap), "a register past the copy changed");
        w.vgpr[7 * 64 + 3] = 0;
        w.vgpr[64] = 0;
        assert!(!same_state(&w, &snap), "a copied register became zero");
        w.vgpr[64] = 1;
        w.agpr = vec![0; 256 * 64];
        assert!(!same_state(&w, &snap), "an AGPR file appeared");
        snap.clear();
        capture(&w, &mut snap);
        assert!(same_state(&w, &snap));
        w.agpr[255 * 64 + 63] = 2;
        assert!(!same_state(&w, &snap), "the last AGPR changed");
    }

    #[test]
    fn loops_longer_than_one_branch_are_found() {
        // Three backward branches per iteration (nested loop), state cycling with period 3.
        let mut w = wave();
        let mut watch = Watch::default();
        let found = (0..200u64).any(|i| {
            w.pc = 0x100 + 8 * (i % 3);
            w.vgpr[5] = (i % 3) as u32;
            watch.step(&w, 7, true, 1)
        });
        assert!(found);
        // Not before the check threshold, nor on forward branches.
        let mut watch = Watch::default();
        assert!(!(0..100).any(|_| watch.step(&w, 1, true, 1000)));
        assert!(!(0..10_000).any(|_| watch.step(&w, 1, false, 1)));
    }
}
