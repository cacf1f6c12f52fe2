//! Kernel faults: what stops a wave the way a GPU fault would (bad address, unsupported
//! instruction, runaway loop, deadlock). Reported with kernel, wave, PC and address.

use std::fmt;

/// Which wave: work-group id and wave index inside the work-group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct WaveId {
    pub workgroup: [u32; 3],
    pub wave: u32,
}

impl fmt::Display for WaveId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.workgroup;
        write!(f, "workgroup ({x},{y},{z}) wave {}", self.wave)
    }
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FaultKind {
    #[error("memory violation: lane {lane} accessed {size} byte(s) at {address:#x}, outside every allocation")]
    MemoryViolation { lane: u32, address: u64, size: u32 },
    #[error("unsupported instruction `{text}`")]
    Unsupported { text: String },
    #[error("invalid instruction encoding {word:#010x}")]
    InvalidEncoding { word: u32 },
    #[error("program counter {0:#x} is outside the kernel's code")]
    BadPc(u64),
    #[error("runaway loop: more than {0} instructions")]
    RunawayLoop(u64),
    /// Nothing can ever resume; the text says why (with [`wave_list`] when waves wait).
    #[error("deadlock: {0}")]
    Deadlock(String),
    /// The watchdog: no instruction issued and no wave ended for `cycles` cycles; `waves`
    /// says what each live wave waits on ([`wave_list`]).
    #[error("no progress for {cycles} cycles (watchdog limit; raise it with --watchdog-cycles); {waves}")]
    NoProgress { cycles: u64, waves: String },
    /// Nothing can change any more although waves still run: every running wave repeats
    /// one state (`crate::progress`); the text lists what each waits for.
    #[error("livelock: {0}")]
    Livelock(String),
    /// The kernel used something hipscope does not model yet (device printf, malloc).
    #[error("{0}")]
    NotSupported(String),
    /// A limit the user set (`--max-instructions`, `--max-cycles`) was reached.
    #[error("stopped: {0}")]
    LimitReached(String),
    #[error("{0}")]
    Other(String),
}

/// A fault, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct KernelFault {
    pub kernel: String,
    pub wave: WaveId,
    pub pc: u64,
    pub kind: FaultKind,
}

impl fmt::Display for KernelFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "kernel fault in `{}`, {}, pc {:#x}: {}", self.kernel, self.wave, self.pc, self.kind)
    }
}

/// Waves listed in a diagnostic at most; the rest are counted.
pub const LISTED_WAVES: usize = 32;

/// One line per wave, "  <wave>, pc <pc>: <what it waits on>", the first [`LISTED_WAVES`] of
/// them and then how many more lines there were, after a `heading` (e.g. "live waves:"). A deadlock or
/// watchdog report is read by someone looking for the wave that holds the others up, so
/// every wave gets a line in one fixed format.
pub fn wave_list(heading: &str, waves: impl IntoIterator<Item = (WaveId, u64, String)>) -> String {
    let mut out = String::from(heading);
    let mut n = 0usize;
    for (id, pc, what) in waves {
        if n < LISTED_WAVES {
            out.push_str(&format!("\n  {id}, pc {pc:#x}: {what}"));
        }
        n += 1;
    }
    if n > LISTED_WAVES {
        out.push_str(&format!("\n  … {} more", n - LISTED_WAVES));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wave_lists_are_capped() {
        let waves = (0..40).map(|i| (WaveId { workgroup: [i, 0, 0], wave: 1 }, 0x100, "at s_barrier".to_string()));
        let s = wave_list("live waves:", waves);
        assert_eq!(s.lines().count(), 1 + LISTED_WAVES + 1);
        assert!(s.contains("\n  workgroup (0,0,0) wave 1, pc 0x100: at s_barrier"), "{s}");
        assert!(s.ends_with("… 8 more"), "{s}");
    }
}
