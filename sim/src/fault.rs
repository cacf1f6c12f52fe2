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
    #[error("LDS access out of range: lane {lane}, offset {offset:#x} ({size} bytes, LDS is {lds_bytes} bytes)")]
    LdsViolation { lane: u32, offset: u64, size: u32, lds_bytes: u32 },
    #[error("unsupported instruction `{text}`")]
    Unsupported { text: String },
    #[error("invalid instruction encoding {word:#010x}")]
    InvalidEncoding { word: u32 },
    #[error("program counter {0:#x} is outside the kernel's code")]
    BadPc(u64),
    #[error("runaway loop: more than {0} instructions")]
    RunawayLoop(u64),
    #[error("deadlock: every wave waits ({0})")]
    Deadlock(String),
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
