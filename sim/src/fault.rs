//! Kernel faults: what stops a wave the way a GPU fault would (bad address, unsupported
//! instruction, runaway loop, deadlock). Reported with kernel, wave, PC and address.

use std::fmt;

/// Which wave: work-group id and wave index inside the work-group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize)]
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
    Livelock(Box<Stuck>),
    /// No wave changed anything visible for the `--no-progress-cycles` bound although some
    /// still change their own registers (a spin that counts its polls): a bound, not a proof.
    /// The same per-wave facts as a livelock.
    #[error("no progress: {0}")]
    NoProgressBound(Box<Stuck>),
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

/// One lane's memory access a wave made last (the read a stuck wave polls with, the write that
/// set what it reads): the one-line answer to "what is it waiting for".
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LastRead {
    pub lane: u32,
    pub lds: bool,
    pub address: u64,
    pub size: u32,
    /// The bytes read or written (little-endian, up to 8).
    pub value: u64,
}

impl LastRead {
    pub fn new(lane: u32, lds: bool, address: u64, bytes: &[u8]) -> LastRead {
        let mut b = [0u8; 8];
        let n = bytes.len().min(8);
        b[..n].copy_from_slice(&bytes[..n]);
        LastRead { lane, lds, address, size: bytes.len() as u32, value: u64::from_le_bytes(b) }
    }

    /// Whether the two accesses touch a common byte of the same memory.
    pub fn overlaps(&self, other: &LastRead) -> bool {
        self.lds == other.lds && self.address < other.address + u64::from(other.size) && other.address < self.address + u64::from(self.size)
    }
}

impl fmt::Display for LastRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let space = if self.lds { "LDS offset" } else { "address" };
        let digits = (2 * self.size.min(8)) as usize;
        write!(f, "lane {} last read {space} {:#x} ({} bytes) = {:#0w$x}", self.lane, self.address, self.size, self.value, w = digits + 2)
    }
}

/// What a livelock or no-progress report knows about a dispatch that stopped changing
/// anything, as facts a client can explain (the text is the engine's own report).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stuck {
    /// The report: a heading and one line per live wave ([`wave_list`]).
    pub text: String,
    /// `true`: proven (every running wave repeats a state, `crate::progress`); `false`: only
    /// the `--no-progress-cycles` bound was reached.
    pub proven: bool,
    /// Since the last visible change: dispatch wave-instructions, and (timing) cycles.
    pub instructions: u64,
    pub cycles: Option<u64>,
    /// The bound that was reached (`proven == false`): instructions (functional) or cycles
    /// (timing).
    pub bound: Option<u64>,
    /// Work-groups launched, started so far, and resident at most at once in this run.
    pub groups: u64,
    pub groups_started: u64,
    pub groups_resident: u64,
    /// Work-groups of this kernel the GPU holds at once by its occupancy (wave slots, VGPRs,
    /// LDS, work-group slots per CU), when the caller knows the GPU; the engine's own limit
    /// may differ (the functional engine keeps a fixed number resident).
    pub gpu_groups_fit: Option<u64>,
    /// Live waves (the first [`LISTED_WAVES`] × 2), and how many there were.
    pub waves: Vec<StuckWave>,
    pub live_waves: u64,
}

/// One live wave of a stuck dispatch.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StuckWave {
    #[serde(flatten)]
    pub wave: WaveId,
    pub pc: u64,
    /// Proven to repeat its state at this PC (`None`: not proven, or waiting at a barrier).
    pub loop_pc: Option<u64>,
    pub at_barrier: bool,
    /// Work-items of the wave, and the EXEC mask it runs with now (lanes outside it are
    /// masked off: they wait for the others to leave the loop, ISA "EXEC mask").
    pub lanes: u32,
    pub exec: u64,
    pub last_read: Option<LastRead>,
    /// The wave's last write others could see (who set what a poller reads).
    pub last_write: Option<LastRead>,
}

impl Stuck {
    /// A proven livelock known only by its text (a node of kernels that all spin, found
    /// before this one ran).
    pub fn from_text(text: String) -> Stuck {
        Stuck {
            text,
            proven: true,
            instructions: 0,
            cycles: None,
            bound: None,
            groups: 0,
            groups_started: 0,
            groups_resident: 0,
            gpu_groups_fit: None,
            waves: Vec::new(),
            live_waves: 0,
        }
    }
}

impl fmt::Display for Stuck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
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
