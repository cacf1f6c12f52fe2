//! Registers as decoded operands name them.

use std::fmt;

/// A register operand: a run of `count` consecutive 32-bit registers, a 16-bit VGPR half, or a
/// special register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reg {
    Vgpr {
        index: u8,
        count: u8,
    },
    Agpr {
        index: u8,
        count: u8,
    },
    Sgpr {
        index: u8,
        count: u8,
    },
    Ttmp {
        index: u8,
        count: u8,
    },
    /// True16 half of a VGPR (GFX11+): `v5.l` / `v5.h`.
    Vgpr16 {
        index: u8,
        hi: bool,
    },
    Special(Special),
}

/// Special registers reachable through the scalar operand encoding (ISA manuals, "Scalar
/// operands" table; values in `decode::operand`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Special {
    FlatScratchLo,
    FlatScratchHi,
    FlatScratch,
    XnackMaskLo,
    XnackMaskHi,
    XnackMask,
    VccLo,
    VccHi,
    Vcc,
    TbaLo,
    TbaHi,
    Tba,
    TmaLo,
    TmaHi,
    Tma,
    M0,
    Null,
    ExecLo,
    ExecHi,
    Exec,
    SrcSharedBase,
    SrcSharedLimit,
    SrcPrivateBase,
    SrcPrivateLimit,
    SrcPopsExitingWaveId,
    SrcVccz,
    SrcExecz,
    SrcScc,
    LdsDirect,
}

impl Special {
    pub fn name(self) -> &'static str {
        use Special::*;
        match self {
            FlatScratchLo => "flat_scratch_lo",
            FlatScratchHi => "flat_scratch_hi",
            FlatScratch => "flat_scratch",
            XnackMaskLo => "xnack_mask_lo",
            XnackMaskHi => "xnack_mask_hi",
            XnackMask => "xnack_mask",
            VccLo => "vcc_lo",
            VccHi => "vcc_hi",
            Vcc => "vcc",
            TbaLo => "tba_lo",
            TbaHi => "tba_hi",
            Tba => "tba",
            TmaLo => "tma_lo",
            TmaHi => "tma_hi",
            Tma => "tma",
            M0 => "m0",
            Null => "null",
            ExecLo => "exec_lo",
            ExecHi => "exec_hi",
            Exec => "exec",
            SrcSharedBase => "src_shared_base",
            SrcSharedLimit => "src_shared_limit",
            SrcPrivateBase => "src_private_base",
            SrcPrivateLimit => "src_private_limit",
            SrcPopsExitingWaveId => "src_pops_exiting_wave_id",
            SrcVccz => "src_vccz",
            SrcExecz => "src_execz",
            SrcScc => "src_scc",
            LdsDirect => "src_lds_direct",
        }
    }

    /// Registers that stand for a value rather than storage (apertures, condition bits, null).
    /// They fit any source operand class.
    pub fn is_inline_value(self) -> bool {
        use Special::*;
        matches!(self, SrcSharedBase | SrcSharedLimit | SrcPrivateBase | SrcPrivateLimit | SrcPopsExitingWaveId | SrcVccz | SrcExecz | SrcScc | Null)
    }
}

impl Reg {
    /// Width in bits.
    pub fn bits(&self) -> u32 {
        match *self {
            Reg::Vgpr { count, .. } | Reg::Agpr { count, .. } | Reg::Sgpr { count, .. } | Reg::Ttmp { count, .. } => 32 * count as u32,
            Reg::Vgpr16 { .. } => 16,
            Reg::Special(s) => {
                use Special::*;
                match s {
                    FlatScratch | XnackMask | Vcc | Tba | Tma | Exec => 64,
                    _ => 32,
                }
            }
        }
    }
}

fn range(f: &mut fmt::Formatter<'_>, prefix: &str, index: u8, count: u8) -> fmt::Result {
    if count == 1 {
        write!(f, "{prefix}{index}")
    } else {
        write!(f, "{prefix}[{index}:{}]", index as u32 + count as u32 - 1)
    }
}

/// LLVM register syntax: `v7`, `s[4:5]`, `ttmp[0:3]`, `a[0:1]`, `v1.h`, `vcc_lo`.
impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Reg::Vgpr { index, count } => range(f, "v", index, count),
            Reg::Agpr { index, count } => range(f, "a", index, count),
            Reg::Sgpr { index, count } => range(f, "s", index, count),
            Reg::Ttmp { index, count } => range(f, "ttmp", index, count),
            Reg::Vgpr16 { index, hi } => write!(f, "v{index}.{}", if hi { 'h' } else { 'l' }),
            Reg::Special(s) => f.write_str(s.name()),
        }
    }
}
