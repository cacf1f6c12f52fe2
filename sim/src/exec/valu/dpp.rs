//! Data-parallel primitives: which lane each lane's src0 comes from, and which lanes write.
//!
//! DPP16 controls (CDNA3/4 ISA "DPP_CTRL Enumeration"; RDNA ISA "DPP16"): quad_perm
//! 0x000-0x0FF, row_shl 0x101-0x10F, row_shr 0x111-0x11F, row_ror 0x121-0x12F, and on GFX8/9
//! only wave_shl 0x130, wave_rol 0x134, wave_shr 0x138, wave_ror 0x13C, row_bcast15 0x142 (the
//! last lane of the row before; row 0 itself), row_bcast31 0x143 (lane 31 to rows 2-3; rows 0-1
//! themselves); row_mirror 0x140 and row_half_mirror 0x141 everywhere; 0x150-0x15F is
//! row_newbcast on GFX90A/GFX940 and row_share on GFX10+ (lane `k` of the row to the whole row);
//! 0x160-0x16F row_xmask on GFX10+ (lane `l ^ k` within the row). Rows are 16 lanes.
//!
//! A source lane is invalid when it is out of range or (without FI, "fetch inactive") disabled
//! in EXEC. BOUND_CTRL=1 makes an invalid source read 0; with BOUND_CTRL=0 the lane is not
//! written. ROW_MASK/BANK_MASK disable writes of whole rows / 4-lane banks of every row without
//! affecting which lanes are read. DPP8 selects any lane within each group of 8; it has no
//! bound control, and without FI a disabled source lane reads 0.

use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::OpName;
use hipscope_isa::Family;

/// The lane selection of a DPP16 or DPP8 instruction, precomputed when it is classified so
/// executing it only has to look at EXEC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dpp {
    /// Source lane of each lane (for a 64-lane wave; every control except the GFX8/9
    /// wave-wide shifts and broadcasts, which exist only in wave64, stays within its row).
    src: [u8; 64],
    /// Lanes whose source lane exists.
    in_range: u64,
    /// Lanes ROW_MASK/BANK_MASK allow to write.
    enabled: u64,
    /// An invalid source reads 0 and still writes (BOUND_CTRL=1, and always for DPP8).
    bound: bool,
    /// Disabled source lanes are still read (FI).
    fi: bool,
}

/// A DPP_CTRL value the target does not define.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported(pub u16);

/// Per-execution result of the lane selection.
pub struct LaneMap<'a> {
    pub src: &'a [u8; 64],
    /// Lanes whose source is valid (others read 0).
    pub valid: u64,
    /// Lanes allowed to write their result.
    pub write: u64,
}

fn imm(inst: &Inst, name: OpName) -> i64 {
    inst.operand(name).map_or(0, |o| o.imm())
}

impl Dpp {
    /// The DPP controls of an instruction; `Err` for a control this target does not have.
    pub fn of(inst: &Inst, family: Family) -> Result<Option<Dpp>, Unsupported> {
        if let Some(Operand::Imm(sel)) = inst.operand(OpName::dpp8) {
            let fi = imm(inst, OpName::fi) & 0xff == 0xEA || imm(inst, OpName::fi) == 1;
            let sel = sel as u32;
            // DPP8 always writes; an invalid (disabled) source reads 0.
            return Ok(Some(Dpp::build(|l| Some((l & !7) | (sel >> (3 * (l & 7)) & 7) as usize), |_| true, true, fi)));
        }
        let Some(Operand::Imm(ctrl)) = inst.operand(OpName::dpp_ctrl) else {
            return Ok(None);
        };
        let ctrl = ctrl as u16;
        if !ctrl_supported(ctrl, family) {
            return Err(Unsupported(ctrl));
        }
        let row_mask = imm(inst, OpName::row_mask) as u8 & 0xf;
        let bank_mask = imm(inst, OpName::bank_mask) as u8 & 0xf;
        let enabled = |l: usize| row_mask >> (l >> 4) & 1 != 0 && bank_mask >> (l >> 2 & 3) & 1 != 0;
        let bc = imm(inst, OpName::bound_ctrl) != 0;
        let fi = imm(inst, OpName::fi) != 0;
        Ok(Some(Dpp::build(|l| src16(ctrl, l), enabled, bc, fi)))
    }

    fn build(src: impl Fn(usize) -> Option<usize>, enabled: impl Fn(usize) -> bool, bound: bool, fi: bool) -> Dpp {
        let mut d = Dpp { src: [0; 64], in_range: 0, enabled: 0, bound, fi };
        for l in 0..64 {
            if let Some(s) = src(l).filter(|&s| s < 64) {
                d.src[l] = s as u8;
                d.in_range |= 1 << l;
            }
            if enabled(l) {
                d.enabled |= 1 << l;
            }
        }
        d
    }

    /// Lane selection for the current EXEC mask in an `n`-lane wave.
    #[inline]
    pub fn map(&self, exec: u64, n: usize) -> LaneMap<'_> {
        let lanes = if n >= 64 { !0 } else { (1u64 << n) - 1 };
        let mut valid = self.in_range & lanes;
        // With every lane enabled, every in-range source is live.
        if !self.fi && exec & lanes != lanes {
            let mut live = 0u64;
            for (l, &s) in self.src.iter().enumerate() {
                live |= (exec >> s & 1) << l;
            }
            valid &= live;
        }
        // A source beyond the wave (only the wave-wide controls, wave64-only) is out of range.
        if n < 64 {
            for (l, &s) in self.src.iter().enumerate().take(n) {
                if s as usize >= n {
                    valid &= !(1 << l);
                }
            }
        }
        let write = self.enabled & if self.bound { lanes } else { valid };
        LaneMap { src: &self.src, valid, write }
    }
}

fn ctrl_supported(ctrl: u16, family: Family) -> bool {
    let gfx9_or_older = matches!(family, Family::Gfx8 | Family::Gfx9 | Family::Gfx90a | Family::Gfx940);
    match ctrl {
        0x000..=0x0ff | 0x101..=0x10f | 0x111..=0x11f | 0x121..=0x12f | 0x140 | 0x141 => true,
        0x130 | 0x134 | 0x138 | 0x13c | 0x142 | 0x143 => gfx9_or_older,
        0x150..=0x15f => matches!(family, Family::Gfx90a | Family::Gfx940) || family.is_rdna(),
        0x160..=0x16f => family.is_rdna(),
        _ => false,
    }
}

/// Source lane of lane `l` for a DPP16 control (`None`: out of range).
fn src16(ctrl: u16, l: usize) -> Option<usize> {
    let k = (ctrl & 0xf) as usize;
    let (row, i) = (l & !15, l & 15);
    Some(match ctrl {
        0x000..=0x0ff => (l & !3) | (ctrl as usize >> ((l & 3) * 2) & 3),
        0x101..=0x10f if i + k < 16 => l + k,
        0x111..=0x11f if i >= k => l - k,
        0x121..=0x12f => row | ((i + 16 - k) & 15),
        0x130 if l < 63 => l + 1,
        0x134 => (l + 1) & 63,
        0x138 if l > 0 => l - 1,
        0x13c => (l + 63) & 63,
        0x140 => row | (15 - i),
        0x141 => (l & !7) | (7 - (l & 7)),
        // Rows without a row before them keep their own value (rocWMMA's cross-lane unit
        // tests expect exactly this of the hardware: `getDppWFallBCastExpect`).
        0x142 if l > 15 => (l & 0x30) - 1,
        0x143 if l > 31 => 31,
        0x142 | 0x143 => l,
        0x150..=0x15f => row | k,
        0x160..=0x16f => row | (i ^ k),
        _ => return None,
    })
}
