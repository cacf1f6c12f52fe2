//! Wavefront architectural state: scalar and vector register files, EXEC/VCC/SCC/M0, mode.
//!
//! Scalar registers live in one array indexed by [`sreg_index`]: s0..s105, then VCC, TTMPs,
//! M0, EXEC and the special 32-bit halves, so that 64-bit pairs (`vcc`, `exec`, `s[4:5]`) are
//! two consecutive slots. Vector registers are stored register-major: lane `l` of `v[r]` is
//! `vgpr[r * 64 + l]`; wave32 uses lanes 0..32.

use crate::fault::WaveId;
use hipscope_isa::decode::{Reg, Special};

pub const MAX_LANES: usize = 64;
/// Architectural VGPRs (and AGPRs) per lane.
pub const VGPRS: usize = 256;

/// Slots of the scalar file.
pub mod slot {
    pub const VCC_LO: usize = 106;
    pub const VCC_HI: usize = 107;
    pub const TTMP0: usize = 108;
    pub const M0: usize = 124;
    pub const EXEC_LO: usize = 126;
    pub const EXEC_HI: usize = 127;
    pub const FLAT_SCRATCH_LO: usize = 128;
    pub const FLAT_SCRATCH_HI: usize = 129;
    pub const XNACK_MASK_LO: usize = 130;
    pub const XNACK_MASK_HI: usize = 131;
    pub const TBA_LO: usize = 132;
    pub const TMA_LO: usize = 134;
    pub const COUNT: usize = 136;
}

/// Scalar-file slot of a register (the first slot of a range). `None` for registers that are
/// not storage (`null`, apertures, condition bits, `lds_direct`).
pub fn sreg_index(r: Reg) -> Option<usize> {
    use Special::*;
    Some(match r {
        Reg::Sgpr { index, .. } => index as usize,
        Reg::Ttmp { index, .. } => slot::TTMP0 + index as usize,
        Reg::Special(s) => match s {
            VccLo | Vcc => slot::VCC_LO,
            VccHi => slot::VCC_HI,
            M0 => slot::M0,
            ExecLo | Exec => slot::EXEC_LO,
            ExecHi => slot::EXEC_HI,
            FlatScratchLo | FlatScratch => slot::FLAT_SCRATCH_LO,
            FlatScratchHi => slot::FLAT_SCRATCH_HI,
            XnackMaskLo | XnackMask => slot::XNACK_MASK_LO,
            XnackMaskHi => slot::XNACK_MASK_HI,
            TbaLo | Tba => slot::TBA_LO,
            TbaHi => slot::TBA_LO + 1,
            TmaLo | Tma => slot::TMA_LO,
            TmaHi => slot::TMA_LO + 1,
            _ => return None,
        },
        _ => return None,
    })
}

/// Why a wave is not running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveStatus {
    Ready,
    /// Waiting at `s_barrier` for the rest of its work-group.
    AtBarrier,
    /// Finished (`s_endpgm`).
    Done,
}

/// One wavefront.
#[derive(Debug, Clone)]
pub struct Wave {
    pub id: WaveId,
    /// Flat wave number within the dispatch (dispatch order).
    pub global_index: u32,
    pub wave64: bool,
    pub pc: u64,
    pub sreg: [u32; slot::COUNT],
    pub vgpr: Vec<u32>,
    pub agpr: Vec<u32>,
    pub scc: bool,
    /// Hardware MODE register (float round/denorm modes, IEEE, DX10 clamp).
    pub mode: u32,
    /// Hardware TRAPSTS register.
    pub trapsts: u32,
    pub status: WaveStatus,
    /// Instructions executed.
    pub instructions: u64,
    /// Index of this wave's work-group among the resident ones (LDS, barrier).
    pub group_slot: usize,
    /// Lane accesses to LDS that were out of range (reads returned 0, writes dropped; an
    /// atomic's read and write count once each). A cell: the read paths see the wave shared.
    pub lds_out_of_range: std::cell::Cell<u64>,
    /// Writes another wave could see (or that change the wave's private memory): stores,
    /// atomics that changed their location, LDS writes that changed bytes. The engines turn a
    /// change of this count into progress (`crate::progress`).
    pub writes: u64,
    /// The last memory read (for livelock and deadlock reports). A cell for the same reason.
    pub last_read: std::cell::Cell<Option<LastRead>>,
    /// The last write another wave could see (a store, an atomic that changed its location,
    /// an LDS write that changed bytes): whose lock or flag a stuck wave polls (livelock
    /// reports, `crate::progress`).
    pub last_write: std::cell::Cell<Option<LastRead>>,
}

/// What a wave last read or wrote (one lane's access; defined with the fault reports that
/// carry it).
pub use crate::fault::LastRead;

impl Wave {
    pub fn new(id: WaveId, wave64: bool) -> Wave {
        Wave::with_vgpr_file(id, wave64, vec![0; VGPRS * MAX_LANES], VGPRS)
    }

    /// A wave with a vector register file of `regs` registers (`regs * MAX_LANES` entries),
    /// reusing `vgpr`'s storage (contents are the caller's business). Code may only name
    /// registers below `regs` (see `LoadedKernel::vgpr_file`).
    pub fn with_vgpr_file(id: WaveId, wave64: bool, mut vgpr: Vec<u32>, regs: usize) -> Wave {
        vgpr.resize(regs.min(VGPRS) * MAX_LANES, 0);
        Wave {
            id,
            global_index: 0,
            wave64,
            pc: 0,
            sreg: [0; slot::COUNT],
            vgpr,
            agpr: Vec::new(),
            scc: false,
            mode: 0,
            trapsts: 0,
            status: WaveStatus::Ready,
            instructions: 0,
            group_slot: 0,
            lds_out_of_range: std::cell::Cell::new(0),
            writes: 0,
            last_read: std::cell::Cell::new(None),
            last_write: std::cell::Cell::new(None),
        }
    }

    pub fn lanes(&self) -> usize {
        if self.wave64 {
            64
        } else {
            32
        }
    }

    /// Mask of the lanes that exist in this wave size.
    pub fn lane_mask(&self) -> u64 {
        if self.wave64 {
            u64::MAX
        } else {
            0xffff_ffff
        }
    }

    pub fn exec(&self) -> u64 {
        (self.sreg[slot::EXEC_LO] as u64 | (self.sreg[slot::EXEC_HI] as u64) << 32) & self.lane_mask()
    }

    pub fn set_exec(&mut self, v: u64) {
        self.sreg[slot::EXEC_LO] = v as u32;
        if self.wave64 {
            self.sreg[slot::EXEC_HI] = (v >> 32) as u32;
        }
    }

    pub fn vcc(&self) -> u64 {
        (self.sreg[slot::VCC_LO] as u64 | (self.sreg[slot::VCC_HI] as u64) << 32) & self.lane_mask()
    }

    pub fn set_vcc(&mut self, v: u64) {
        self.sreg[slot::VCC_LO] = v as u32;
        if self.wave64 {
            self.sreg[slot::VCC_HI] = (v >> 32) as u32;
        }
    }

    pub fn m0(&self) -> u32 {
        self.sreg[slot::M0]
    }

    #[inline]
    pub fn v(&self, reg: usize, lane: usize) -> u32 {
        self.vgpr[reg * MAX_LANES + lane]
    }

    /// VGPR `reg` of every lane.
    #[inline]
    pub fn row(&self, reg: usize) -> &[u32] {
        &self.vgpr[reg * MAX_LANES..(reg + 1) * MAX_LANES]
    }

    /// VGPR `reg` of every lane, for writing.
    #[inline]
    pub fn row_mut(&mut self, reg: usize) -> &mut [u32] {
        &mut self.vgpr[reg * MAX_LANES..(reg + 1) * MAX_LANES]
    }

    #[inline]
    pub fn set_v(&mut self, reg: usize, lane: usize, value: u32) {
        self.vgpr[reg * MAX_LANES + lane] = value;
    }

    #[inline]
    pub fn a(&self, reg: usize, lane: usize) -> u32 {
        self.agpr.get(reg * MAX_LANES + lane).copied().unwrap_or(0)
    }

    pub fn set_a(&mut self, reg: usize, lane: usize, value: u32) {
        if self.agpr.is_empty() {
            self.agpr = vec![0; VGPRS * MAX_LANES];
        }
        self.agpr[reg * MAX_LANES + lane] = value;
    }

    /// Iterate over the lanes enabled in EXEC.
    pub fn active_lanes(&self) -> impl Iterator<Item = usize> {
        let exec = self.exec();
        (0..self.lanes()).filter(move |&l| exec >> l & 1 != 0)
    }
}
