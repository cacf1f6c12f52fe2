//! `COMPUTE_PGM_RSRC1/2/3` decoded into named fields, per ISA family.
//!
//! Bit positions are from LLVM 19 AMDGPUUsage, "Kernel Descriptor": tables
//! "compute_pgm_rsrc1 for GFX6-GFX12", "compute_pgm_rsrc2 for GFX6-GFX12",
//! "compute_pgm_rsrc3 for GFX90A, GFX940", "... for GFX10-GFX11" and "... for GFX12".
//! Fields whose meaning depends on the family are `Option`s: `None` means "reserved on this
//! family", so a consumer cannot mistake a reserved bit for a setting.

use super::bytes::{bit, bits};
use crate::target::Family;
use serde::Serialize;

/// AMDGPUUsage table "Floating Point Rounding Mode Enumeration Values".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FloatRoundMode {
    NearEven,
    PlusInfinity,
    MinusInfinity,
    Zero,
}

impl FloatRoundMode {
    fn from_bits(v: u32) -> FloatRoundMode {
        match v & 3 {
            0 => FloatRoundMode::NearEven,
            1 => FloatRoundMode::PlusInfinity,
            2 => FloatRoundMode::MinusInfinity,
            _ => FloatRoundMode::Zero,
        }
    }
}

/// AMDGPUUsage table "Floating Point Denorm Mode Enumeration Values".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FloatDenormMode {
    FlushSrcDst,
    FlushDst,
    FlushSrc,
    FlushNone,
}

impl FloatDenormMode {
    fn from_bits(v: u32) -> FloatDenormMode {
        match v & 3 {
            0 => FloatDenormMode::FlushSrcDst,
            1 => FloatDenormMode::FlushDst,
            2 => FloatDenormMode::FlushSrc,
            _ => FloatDenormMode::FlushNone,
        }
    }
}

/// Which work-item id VGPRs are set up (AMDGPUUsage "System VGPR Work-Item ID Enumeration Values").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkitemIds {
    X,
    XY,
    XYZ,
    Undefined,
}

impl WorkitemIds {
    fn from_bits(v: u32) -> WorkitemIds {
        match v & 3 {
            0 => WorkitemIds::X,
            1 => WorkitemIds::XY,
            2 => WorkitemIds::XYZ,
            _ => WorkitemIds::Undefined,
        }
    }

    /// Number of dimensions whose id is delivered (0 for `Undefined`).
    pub fn dimensions(self) -> u32 {
        match self {
            WorkitemIds::X => 1,
            WorkitemIds::XY => 2,
            WorkitemIds::XYZ => 3,
            WorkitemIds::Undefined => 0,
        }
    }
}

/// `COMPUTE_PGM_RSRC1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rsrc1 {
    pub raw: u32,
    pub granulated_workitem_vgpr_count: u32,
    /// Reserved on GFX10+ (128 SGPRs always allocated), but LLVM 19 still writes a value there.
    pub granulated_wavefront_sgpr_count: u32,
    pub priority: u32,
    pub float_round_mode_32: FloatRoundMode,
    pub float_round_mode_16_64: FloatRoundMode,
    pub float_denorm_mode_32: FloatDenormMode,
    pub float_denorm_mode_16_64: FloatDenormMode,
    pub privileged: bool,
    /// Bit 21 on GFX6-GFX11.
    pub enable_dx10_clamp: Option<bool>,
    /// Bit 21 on GFX12.
    pub wg_rr_en: Option<bool>,
    pub debug_mode: bool,
    /// Bit 23 on GFX6-GFX11.
    pub enable_ieee_mode: Option<bool>,
    /// Bit 23 on GFX12.
    pub disable_perf: Option<bool>,
    pub bulky: bool,
    pub cdbg_user: bool,
    /// GFX9 and later.
    pub fp16_ovfl: Option<bool>,
    /// GFX10 and later.
    pub wgp_mode: Option<bool>,
    /// GFX10 and later.
    pub mem_ordered: Option<bool>,
    /// GFX10 and later.
    pub fwd_progress: Option<bool>,
}

impl Rsrc1 {
    pub fn decode(raw: u32, family: Family) -> Rsrc1 {
        let gfx12 = family == Family::Gfx12;
        let gfx9_up = family != Family::Gfx8;
        let rdna = family.is_rdna();
        let only = |cond: bool, n: u32| cond.then_some(bit(raw, n));
        Rsrc1 {
            raw,
            granulated_workitem_vgpr_count: bits(raw, 5, 0),
            granulated_wavefront_sgpr_count: bits(raw, 9, 6),
            priority: bits(raw, 11, 10),
            float_round_mode_32: FloatRoundMode::from_bits(bits(raw, 13, 12)),
            float_round_mode_16_64: FloatRoundMode::from_bits(bits(raw, 15, 14)),
            float_denorm_mode_32: FloatDenormMode::from_bits(bits(raw, 17, 16)),
            float_denorm_mode_16_64: FloatDenormMode::from_bits(bits(raw, 19, 18)),
            privileged: bit(raw, 20),
            enable_dx10_clamp: only(!gfx12, 21),
            wg_rr_en: only(gfx12, 21),
            debug_mode: bit(raw, 22),
            enable_ieee_mode: only(!gfx12, 23),
            disable_perf: only(gfx12, 23),
            bulky: bit(raw, 24),
            cdbg_user: bit(raw, 25),
            fp16_ovfl: only(gfx9_up, 26),
            wgp_mode: only(rdna, 29),
            mem_ordered: only(rdna, 30),
            fwd_progress: only(rdna, 31),
        }
    }
}

/// The FP exception enables of `COMPUTE_PGM_RSRC2` bits 24..30.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FpExceptions {
    pub ieee_754_fp_invalid_operation: bool,
    pub fp_denormal_source: bool,
    pub ieee_754_fp_division_by_zero: bool,
    pub ieee_754_fp_overflow: bool,
    pub ieee_754_fp_underflow: bool,
    pub ieee_754_fp_inexact: bool,
    pub int_divide_by_zero: bool,
}

/// `COMPUTE_PGM_RSRC2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rsrc2 {
    pub raw: u32,
    pub enable_private_segment: bool,
    /// Where the system SGPRs start; may exceed the enabled user SGPRs (gfx11 pads it to 16).
    pub user_sgpr_count: u32,
    pub enable_trap_handler: bool,
    pub enable_sgpr_workgroup_id_x: bool,
    pub enable_sgpr_workgroup_id_y: bool,
    pub enable_sgpr_workgroup_id_z: bool,
    pub enable_sgpr_workgroup_info: bool,
    pub enable_vgpr_workitem_id: WorkitemIds,
    pub enable_exception_address_watch: bool,
    pub enable_exception_memory: bool,
    pub granulated_lds_size: u32,
    pub exceptions: FpExceptions,
}

impl Rsrc2 {
    pub fn decode(raw: u32) -> Rsrc2 {
        Rsrc2 {
            raw,
            enable_private_segment: bit(raw, 0),
            user_sgpr_count: bits(raw, 5, 1),
            enable_trap_handler: bit(raw, 6),
            enable_sgpr_workgroup_id_x: bit(raw, 7),
            enable_sgpr_workgroup_id_y: bit(raw, 8),
            enable_sgpr_workgroup_id_z: bit(raw, 9),
            enable_sgpr_workgroup_info: bit(raw, 10),
            enable_vgpr_workitem_id: WorkitemIds::from_bits(bits(raw, 12, 11)),
            enable_exception_address_watch: bit(raw, 13),
            enable_exception_memory: bit(raw, 14),
            granulated_lds_size: bits(raw, 23, 15),
            exceptions: FpExceptions {
                ieee_754_fp_invalid_operation: bit(raw, 24),
                fp_denormal_source: bit(raw, 25),
                ieee_754_fp_division_by_zero: bit(raw, 26),
                ieee_754_fp_overflow: bit(raw, 27),
                ieee_754_fp_underflow: bit(raw, 28),
                ieee_754_fp_inexact: bit(raw, 29),
                int_divide_by_zero: bit(raw, 30),
            },
        }
    }
}

/// `COMPUTE_PGM_RSRC3`, whose layout differs per family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "layout", rename_all = "snake_case")]
pub enum Rsrc3 {
    /// GFX6-GFX9 (and code object v2): reserved.
    Reserved { raw: u32 },
    /// GFX90A, GFX940.
    Gfx90a {
        raw: u32,
        /// Field value; the first AccVGPR is at `(accum_offset + 1) * 4`.
        accum_offset: u32,
        tg_split: bool,
    },
    /// GFX10, GFX11.
    Gfx10 { raw: u32, shared_vgpr_count: u32, inst_pref_size: u32, trap_on_start: bool, trap_on_end: bool, image_op: bool },
    /// GFX12.
    Gfx12 { raw: u32, inst_pref_size: u32, glg_en: bool, image_op: bool },
}

impl Rsrc3 {
    pub fn decode(raw: u32, family: Family) -> Rsrc3 {
        match family {
            Family::Gfx8 | Family::Gfx9 => Rsrc3::Reserved { raw },
            Family::Gfx90a | Family::Gfx940 => Rsrc3::Gfx90a { raw, accum_offset: bits(raw, 5, 0), tg_split: bit(raw, 16) },
            Family::Gfx10 | Family::Gfx11 => Rsrc3::Gfx10 {
                raw,
                shared_vgpr_count: bits(raw, 3, 0),
                inst_pref_size: bits(raw, 9, 4),
                trap_on_start: bit(raw, 10),
                trap_on_end: bit(raw, 11),
                image_op: bit(raw, 31),
            },
            Family::Gfx12 => Rsrc3::Gfx12 { raw, inst_pref_size: bits(raw, 11, 4), glg_en: bit(raw, 13), image_op: bit(raw, 31) },
        }
    }

    pub fn raw(&self) -> u32 {
        match *self {
            Rsrc3::Reserved { raw } | Rsrc3::Gfx90a { raw, .. } | Rsrc3::Gfx10 { raw, .. } | Rsrc3::Gfx12 { raw, .. } => raw,
        }
    }

    /// `TG_SPLIT` (GFX90A/GFX940 only).
    pub fn tg_split(&self) -> Option<bool> {
        match *self {
            Rsrc3::Gfx90a { tg_split, .. } => Some(tg_split),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Values from shared/notes/memory-model-lowering.md §5.3 (decoded by hand from AMDGPUUsage).
    #[test]
    fn gfx1100_wgp_rsrc1() {
        let r = Rsrc1::decode(0x60af_0080, Family::Gfx11);
        assert_eq!(r.wgp_mode, Some(true));
        assert_eq!(r.mem_ordered, Some(true));
        assert_eq!(r.fwd_progress, Some(false));
        assert_eq!(r.granulated_wavefront_sgpr_count, 2);
        assert_eq!(r.float_denorm_mode_16_64, FloatDenormMode::FlushNone);
        assert_eq!(r.enable_dx10_clamp, Some(true));
        assert_eq!(r.wg_rr_en, None);
    }

    #[test]
    fn rsrc2_user_sgprs_and_ids() {
        let r = Rsrc2::decode(0x9e);
        assert_eq!(r.user_sgpr_count, 15);
        assert!(r.enable_sgpr_workgroup_id_x && !r.enable_sgpr_workgroup_id_y);
        assert_eq!(r.enable_vgpr_workitem_id, WorkitemIds::X);
    }

    #[test]
    fn rsrc3_by_family() {
        assert_eq!(Rsrc3::decode(0x1_0003, Family::Gfx940).tg_split(), Some(true));
        assert_eq!(Rsrc3::decode(0x1_0003, Family::Gfx11).tg_split(), None);
        assert!(matches!(Rsrc3::decode(0x2000, Family::Gfx12), Rsrc3::Gfx12 { glg_en: true, .. }));
    }
}
