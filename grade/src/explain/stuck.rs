//! A compiled kernel that stopped making progress, explained in a student's terms from the
//! engine's facts ([`hipscope_sim::fault::Stuck`]: which waves loop, at which PCs, what each
//! last read and wrote, its EXEC mask, how many work-groups started and fit).
//!
//! Three classic causes are told apart, first match wins:
//! * **lanes of one wave spinning on each other**: a looping wave's own lane wrote the value
//!   its other lanes poll (it took the lock) and that lane is outside the wave's EXEC mask. A
//!   wave runs all its lanes as one instruction stream, and an instruction acts only on the
//!   lanes whose EXEC bit is set (AMD Instinct MI300 / CDNA3 ISA reference guide, "EXECute
//!   Mask"; RDNA ISA guides, the same section): there is no per-lane program counter (no
//!   independent thread scheduling), so a lane that left the loop waits, masked off, until all
//!   its wave's lanes leave it, and cannot release the lock the others wait for;
//! * **a grid barrier over more work-groups than can be resident**: work-groups of the launch
//!   never started, while the ones that did wait for them (a work-group starts only when a CU
//!   has room for it, and leaves that room only when it ends);
//! * **a flag nobody sets**: the waves poll an address that no live wave wrote last, and the
//!   waves that ended can write nothing more.

use hipscope_sim::fault::{LastRead, Stuck, StuckWave};
use std::fmt::Write as _;

/// Why the kernel cannot go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Lanes of one wave wait for another lane of the same wave.
    LanesOfOneWave,
    /// More work-groups than can be resident wait for each other.
    GridBarrier,
    /// The polled value is never written.
    FlagNobodySets,
    /// None of the above could be shown from the facts.
    Other,
}

/// The explanation of a stuck kernel: `"livelock"` (proven) or `"no progress"` (a bound
/// reached), the cause, what the student should read, and one line per wave listed.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Explanation {
    pub verdict: &'static str,
    pub cause: Cause,
    pub explanation: String,
    pub waves: Vec<String>,
}

/// Explain `facts` from a run on `gpu`; `line_of(pc)` names a PC's source line, if known.
pub fn explain(facts: &Stuck, gpu: &str, line_of: &dyn Fn(u64) -> Option<String>) -> Explanation {
    let at = |pc: u64| line_of(pc).map_or_else(|| format!("pc {pc:#x}"), |l| format!("{l} (pc {pc:#x})"));
    let (cause, mut text) = if let Some((w, write)) = facts.waves.iter().find_map(|w| holder_masked_off(w).map(|x| (w, x))) {
        (Cause::LanesOfOneWave, lanes_of_one_wave(facts, w, write, &at))
    } else if facts.groups_started < facts.groups {
        (Cause::GridBarrier, grid_barrier(facts, gpu, &at))
    } else if let Some(w) = facts.waves.iter().find(|w| unset(facts, w)) {
        (Cause::FlagNobodySets, flag_nobody_sets(w, &at))
    } else {
        (Cause::Other, "every live wave waits for something another live wave would have to change, and none of them changes anything".to_string())
    };
    text.push(' ');
    text.push_str(&proof_or_bound(facts));
    let waves = facts.waves.iter().take(hipscope_sim::fault::LISTED_WAVES).map(|w| wave_line(w, &at)).collect();
    Explanation { verdict: if facts.proven { "livelock" } else { "no progress" }, cause, explanation: text, waves }
}

/// The write of a lane of `w` that set what `w` polls, when that lane is masked off.
fn holder_masked_off(w: &StuckWave) -> Option<LastRead> {
    let (read, write) = (w.last_read?, w.last_write?);
    let masked = write.lane < 64 && w.exec & (1u64 << write.lane) == 0;
    (!w.at_barrier && masked && write.overlaps(&read)).then_some(write)
}

fn lanes_of_one_wave(facts: &Stuck, w: &StuckWave, write: LastRead, at: &dyn Fn(u64) -> String) -> String {
    let spinning = w.exec.count_ones();
    let others = facts.waves.iter().filter(|o| o.wave != w.wave && o.last_read.is_some_and(|r| r.overlaps(&write))).count();
    let mut s = format!(
        "lanes of one wave spin on each other: lane {} of {} took the lock (it wrote {:#x} to address {:#x}) and left the loop, \
         so it is masked off (its EXEC bit is clear) until the wave's other lanes leave the loop too; those {spinning} lane(s) \
         spin at {} reading {:#x}, waiting for lane {} to release the lock, which it can only do after the loop. An AMD wave has \
         one program counter for all its lanes and runs them as one instruction stream under the EXEC mask (no independent \
         thread scheduling; ISA reference guide, \"EXECute Mask\"), so a lane waiting for a lane of its own wave waits forever.",
        write.lane,
        w.wave,
        write.value,
        write.address,
        at(w.loop_pc.unwrap_or(w.pc)),
        w.last_read.map_or(0, |r| r.value),
        write.lane,
    );
    if others > 0 {
        let _ = write!(s, " {others} other listed wave(s) spin on the same lock, which that wave holds.");
    }
    s.push_str(" Fix: let one lane per wave take the lock (e.g. the first active lane), or do the critical section and the release inside the branch that took the lock, before the loop ends.");
    s
}

fn grid_barrier(facts: &Stuck, gpu: &str, at: &dyn Fn(u64) -> String) -> String {
    let fit = match facts.gpu_groups_fit {
        Some(n) if n != facts.groups_resident => {
            format!(
                "at most {n} fit on {gpu} at once (its CUs' wave slots, registers, LDS and work-group slots; this run kept {} resident)",
                facts.groups_resident
            )
        }
        Some(n) => format!("at most {n} fit on {gpu} at once (its CUs' wave slots, registers, LDS and work-group slots)"),
        None => format!("at most {} were resident at once in this run", facts.groups_resident),
    };
    let waiting = facts.waves.iter().find(|w| !w.at_barrier).map(|w| format!(" (waves spin at {})", at(w.loop_pc.unwrap_or(w.pc)))).unwrap_or_default();
    format!(
        "a grid barrier over more work-groups than can be resident: the kernel launched {} work-groups and {fit}; {} started and \
         wait{waiting} for the other {}, which can start only when a started one ends and frees its room. A barrier across \
         work-groups needs every work-group resident at once: launch at most that many (a grid-stride loop does the rest of \
         the work), or split the kernel at the barrier into two launches.",
        facts.groups,
        facts.groups_started,
        facts.groups - facts.groups_started
    )
}

/// `w` polls an address that no live wave wrote last.
fn unset(facts: &Stuck, w: &StuckWave) -> bool {
    let Some(read) = w.last_read else { return false };
    !w.at_barrier && !facts.waves.iter().any(|o| o.last_write.is_some_and(|x| x.overlaps(&read)))
}

fn flag_nobody_sets(w: &StuckWave, at: &dyn Fn(u64) -> String) -> String {
    let read = w.last_read.map_or_else(String::new, |r| format!(" address {:#x} and read {:#x}", r.address, r.value));
    format!(
        "a flag nobody sets: the waves poll{read} at {}, and no live wave's last write went there; the waves that ended can \
         write nothing more, so the value they wait for never comes. Check that some thread stores the flag (and that it is \
         not one of the waiting threads, or a work-group that cannot start until they finish).",
        at(w.loop_pc.unwrap_or(w.pc))
    )
}

fn proof_or_bound(facts: &Stuck) -> String {
    match facts.bound {
        None => format!(
            "This is a proof, not a time-out: nothing visible changed for {} instructions and every running wave came back to a \
             state it had been in, so it will repeat forever.",
            facts.instructions
        ),
        Some(b) => {
            let unit = if facts.cycles.is_some() { "cycles" } else { "wave-instructions" };
            format!(
                "No wave changed memory for {b} {unit} (--no-progress-cycles): a bound, not a proof. The waves still change \
                 their own registers (a spin bounded by a counter), so they may end after enough iterations; raise \
                 --no-progress-cycles (0: no bound) to let them run."
            )
        }
    }
}

fn wave_line(w: &StuckWave, at: &dyn Fn(u64) -> String) -> String {
    let where_ = match (w.loop_pc, w.at_barrier) {
        (_, true) => format!("waits at the work-group barrier ({})", at(w.pc)),
        (Some(p), false) => format!("spins at {}", at(p)),
        (None, false) => format!("runs at {} without changing memory", at(w.pc)),
    };
    let read = w.last_read.map_or_else(String::new, |r| format!("; lane {} last read {:#x} = {:#x}", r.lane, r.address, r.value));
    format!("{}: {where_}, {} of {} lane(s) active{read}", w.wave, w.exec.count_ones(), w.lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipscope_sim::fault::WaveId;

    fn wave(exec: u64, read: Option<LastRead>, write: Option<LastRead>) -> StuckWave {
        StuckWave { wave: WaveId::default(), pc: 0x1f18, loop_pc: Some(0x1f14), at_barrier: false, lanes: 64, exec, last_read: read, last_write: write }
    }

    fn facts(waves: Vec<StuckWave>, groups: u64, started: u64) -> Stuck {
        let mut s = Stuck::from_text(String::new());
        s.groups = groups;
        s.groups_started = started;
        s.groups_resident = started;
        s.live_waves = waves.len() as u64;
        s.waves = waves;
        s
    }

    // A lock at 0x1000 taken by lane 3 (it wrote 1): the EXEC model says lane 3 is masked off
    // once it leaves the loop, the others read 1.
    const LOCK: u64 = 0x1000;

    #[test]
    fn a_lane_masked_off_holding_the_lock_is_lanes_of_one_wave() {
        let read = LastRead::new(0, false, LOCK, &1u32.to_le_bytes());
        let write = LastRead::new(3, false, LOCK, &1u32.to_le_bytes());
        let e = explain(&facts(vec![wave(!(1u64 << 3), Some(read), Some(write))], 1, 1), "mi300x", &|_| None);
        assert_eq!(e.cause, Cause::LanesOfOneWave, "{}", e.explanation);
        assert!(e.explanation.contains("lane 3") && e.explanation.contains("EXEC"), "{}", e.explanation);
        assert_eq!(e.verdict, "livelock");
        // The writer still active (it polls too): not this cause.
        let e = explain(&facts(vec![wave(!0u64, Some(read), Some(write))], 1, 1), "mi300x", &|_| None);
        assert_ne!(e.cause, Cause::LanesOfOneWave);
    }

    #[test]
    fn groups_that_never_started_are_a_grid_barrier_and_the_fit_is_named() {
        let read = LastRead::new(0, false, LOCK, &5u32.to_le_bytes());
        let write = LastRead::new(0, false, LOCK, &5u32.to_le_bytes());
        let mut f = facts(vec![wave(1, Some(read), Some(write))], 100, 5);
        f.gpu_groups_fit = Some(5);
        let e = explain(&f, "tiny", &|_| Some("k.hip:7".into()));
        assert_eq!(e.cause, Cause::GridBarrier);
        assert!(e.explanation.contains("launched 100 work-groups") && e.explanation.contains("at most 5 fit on tiny"), "{}", e.explanation);
        assert!(e.explanation.contains("k.hip:7"), "{}", e.explanation);
    }

    #[test]
    fn a_poll_of_an_address_nobody_wrote_is_a_flag_nobody_sets_and_a_bound_says_so() {
        let read = LastRead::new(0, false, LOCK, &0u32.to_le_bytes());
        let mut f = facts(vec![wave(1, Some(read), None)], 4, 4);
        f.proven = false;
        f.bound = Some(1000);
        let e = explain(&f, "mi300x", &|_| None);
        assert_eq!(e.cause, Cause::FlagNobodySets);
        assert_eq!(e.verdict, "no progress");
        assert!(e.explanation.contains("a bound, not a proof"), "{}", e.explanation);
    }
}
