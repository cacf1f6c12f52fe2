//! Integer SALU operations: SOP2 arithmetic and logic, SOPC comparisons, SOPK immediates.
//!
//! Semantics and SCC rules follow the instruction descriptions of the ISA manuals ("SOP2
//! Instructions", "SOPC Instructions", "SOPK Instructions" in the GCN3, Vega, CDNA1-3 and RDNA1-4
//! references). In short: unsigned add/sub set SCC to the carry/borrow, signed add/sub to the
//! signed overflow, logic ops, shifts, bit-field extracts and `s_absdiff` to `result != 0`,
//! min/max to "S0 was chosen"; `s_cselect`, `s_mul*`, `s_bfm`, `s_pack_*` and the GFX12
//! `*_nc_u64` / `s_mul_u64` leave SCC alone. All arithmetic wraps.

use hipscope_isa::tables::Opcode;

/// Two-source 32-bit operations (SOP2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alu32 {
    AddU,
    SubU,
    AddI,
    SubI,
    AddC,
    SubB,
    MinI,
    MinU,
    MaxI,
    MaxU,
    Cselect,
    And,
    Or,
    Xor,
    AndN2,
    OrN2,
    Nand,
    Nor,
    Xnor,
    Lshl,
    Lshr,
    Ashr,
    Bfm,
    Mul,
    MulHiU,
    MulHiI,
    BfeU,
    BfeI,
    AbsDiff,
    /// `s_lshl<n>_add_u32`.
    LshlAdd(u8),
    PackLL,
    PackLH,
    PackHH,
    PackHL,
}

/// Two-source 64-bit operations (SOP2). Shift amounts, bit-field descriptors and `s_bfm_b64`
/// sources are 32-bit operands of which only the low bits matter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alu64 {
    Cselect,
    And,
    Or,
    Xor,
    AndN2,
    OrN2,
    Nand,
    Nor,
    Xnor,
    Lshl,
    Lshr,
    Ashr,
    Bfm,
    BfeU,
    BfeI,
    /// GFX12 `s_add_nc_u64`, `s_sub_nc_u64`, `s_mul_u64`: no SCC.
    AddNc,
    SubNc,
    Mul,
}

/// Relations of `s_cmp_*` / `s_cmpk_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rel {
    Eq,
    Lg,
    Gt,
    Ge,
    Lt,
    Le,
}

/// SOPC comparisons: SCC = relation, or SCC = one bit of S0 (`s_bitcmp0/1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    Unsigned(Rel),
    Signed(Rel),
    /// `s_bitcmp0_*` (false) / `s_bitcmp1_*` (true): SCC = (S0[S1 bit index] == value).
    Bit(bool),
}

/// SOPK operations on `sdst` and the 16-bit immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KOp {
    /// D = sext(simm16).
    Mov,
    /// if SCC: D = sext(simm16).
    Cmov,
    /// D = D + sext(simm16); SCC = signed overflow.
    Add,
    /// D = D * sext(simm16).
    Mul,
    /// SCC = D rel simm16 (sign-extended for `_i32`, zero-extended for `_u32`).
    Cmp(Cmp),
}

/// The 32-bit SOP2 operation of an opcode (all GFX8-GFX12 names).
pub fn alu32_of(op: Opcode) -> Option<Alu32> {
    use Opcode::*;
    Some(match op {
        S_ADD_U32 | S_ADD_CO_U32 => Alu32::AddU,
        S_SUB_U32 | S_SUB_CO_U32 => Alu32::SubU,
        S_ADD_I32 | S_ADD_CO_I32 => Alu32::AddI,
        S_SUB_I32 | S_SUB_CO_I32 => Alu32::SubI,
        S_ADDC_U32 | S_ADD_CO_CI_U32 => Alu32::AddC,
        S_SUBB_U32 | S_SUB_CO_CI_U32 => Alu32::SubB,
        S_MIN_I32 => Alu32::MinI,
        S_MIN_U32 => Alu32::MinU,
        S_MAX_I32 => Alu32::MaxI,
        S_MAX_U32 => Alu32::MaxU,
        S_CSELECT_B32 => Alu32::Cselect,
        S_AND_B32 => Alu32::And,
        S_OR_B32 => Alu32::Or,
        S_XOR_B32 => Alu32::Xor,
        S_ANDN2_B32 | S_AND_NOT1_B32 => Alu32::AndN2,
        S_ORN2_B32 | S_OR_NOT1_B32 => Alu32::OrN2,
        S_NAND_B32 => Alu32::Nand,
        S_NOR_B32 => Alu32::Nor,
        S_XNOR_B32 => Alu32::Xnor,
        S_LSHL_B32 => Alu32::Lshl,
        S_LSHR_B32 => Alu32::Lshr,
        S_ASHR_I32 => Alu32::Ashr,
        S_BFM_B32 => Alu32::Bfm,
        S_MUL_I32 => Alu32::Mul,
        S_MUL_HI_U32 => Alu32::MulHiU,
        S_MUL_HI_I32 => Alu32::MulHiI,
        S_BFE_U32 => Alu32::BfeU,
        S_BFE_I32 => Alu32::BfeI,
        S_ABSDIFF_I32 => Alu32::AbsDiff,
        S_LSHL1_ADD_U32 => Alu32::LshlAdd(1),
        S_LSHL2_ADD_U32 => Alu32::LshlAdd(2),
        S_LSHL3_ADD_U32 => Alu32::LshlAdd(3),
        S_LSHL4_ADD_U32 => Alu32::LshlAdd(4),
        S_PACK_LL_B32_B16 => Alu32::PackLL,
        S_PACK_LH_B32_B16 => Alu32::PackLH,
        S_PACK_HH_B32_B16 => Alu32::PackHH,
        S_PACK_HL_B32_B16 => Alu32::PackHL,
        _ => return None,
    })
}

/// The 64-bit SOP2 operation of an opcode.
pub fn alu64_of(op: Opcode) -> Option<Alu64> {
    use Opcode::*;
    Some(match op {
        S_CSELECT_B64 => Alu64::Cselect,
        S_AND_B64 => Alu64::And,
        S_OR_B64 => Alu64::Or,
        S_XOR_B64 => Alu64::Xor,
        S_ANDN2_B64 | S_AND_NOT1_B64 => Alu64::AndN2,
        S_ORN2_B64 | S_OR_NOT1_B64 => Alu64::OrN2,
        S_NAND_B64 => Alu64::Nand,
        S_NOR_B64 => Alu64::Nor,
        S_XNOR_B64 => Alu64::Xnor,
        S_LSHL_B64 => Alu64::Lshl,
        S_LSHR_B64 => Alu64::Lshr,
        S_ASHR_I64 => Alu64::Ashr,
        S_BFM_B64 => Alu64::Bfm,
        S_BFE_U64 => Alu64::BfeU,
        S_BFE_I64 => Alu64::BfeI,
        S_ADD_NC_U64 => Alu64::AddNc,
        S_SUB_NC_U64 => Alu64::SubNc,
        S_MUL_U64 => Alu64::Mul,
        _ => return None,
    })
}

/// SOPC comparisons: the operation and whether the sources are 64-bit.
pub fn cmp_of(op: Opcode) -> Option<(Cmp, bool)> {
    use Opcode::*;
    use Rel::*;
    Some(match op {
        S_CMP_EQ_I32 => (Cmp::Signed(Eq), false),
        S_CMP_LG_I32 => (Cmp::Signed(Lg), false),
        S_CMP_GT_I32 => (Cmp::Signed(Gt), false),
        S_CMP_GE_I32 => (Cmp::Signed(Ge), false),
        S_CMP_LT_I32 => (Cmp::Signed(Lt), false),
        S_CMP_LE_I32 => (Cmp::Signed(Le), false),
        S_CMP_EQ_U32 => (Cmp::Unsigned(Eq), false),
        S_CMP_LG_U32 => (Cmp::Unsigned(Lg), false),
        S_CMP_GT_U32 => (Cmp::Unsigned(Gt), false),
        S_CMP_GE_U32 => (Cmp::Unsigned(Ge), false),
        S_CMP_LT_U32 => (Cmp::Unsigned(Lt), false),
        S_CMP_LE_U32 => (Cmp::Unsigned(Le), false),
        S_CMP_EQ_U64 => (Cmp::Unsigned(Eq), true),
        S_CMP_LG_U64 => (Cmp::Unsigned(Lg), true),
        S_BITCMP0_B32 => (Cmp::Bit(false), false),
        S_BITCMP1_B32 => (Cmp::Bit(true), false),
        S_BITCMP0_B64 => (Cmp::Bit(false), true),
        S_BITCMP1_B64 => (Cmp::Bit(true), true),
        _ => return None,
    })
}

/// SOPK operations.
pub fn kop_of(op: Opcode) -> Option<KOp> {
    use Opcode::*;
    use Rel::*;
    Some(match op {
        S_MOVK_I32 => KOp::Mov,
        S_CMOVK_I32 => KOp::Cmov,
        S_ADDK_I32 | S_ADDK_CO_I32 => KOp::Add,
        S_MULK_I32 => KOp::Mul,
        S_CMPK_EQ_I32 => KOp::Cmp(Cmp::Signed(Eq)),
        S_CMPK_LG_I32 => KOp::Cmp(Cmp::Signed(Lg)),
        S_CMPK_GT_I32 => KOp::Cmp(Cmp::Signed(Gt)),
        S_CMPK_GE_I32 => KOp::Cmp(Cmp::Signed(Ge)),
        S_CMPK_LT_I32 => KOp::Cmp(Cmp::Signed(Lt)),
        S_CMPK_LE_I32 => KOp::Cmp(Cmp::Signed(Le)),
        S_CMPK_EQ_U32 => KOp::Cmp(Cmp::Unsigned(Eq)),
        S_CMPK_LG_U32 => KOp::Cmp(Cmp::Unsigned(Lg)),
        S_CMPK_GT_U32 => KOp::Cmp(Cmp::Unsigned(Gt)),
        S_CMPK_GE_U32 => KOp::Cmp(Cmp::Unsigned(Ge)),
        S_CMPK_LT_U32 => KOp::Cmp(Cmp::Unsigned(Lt)),
        S_CMPK_LE_U32 => KOp::Cmp(Cmp::Unsigned(Le)),
        _ => return None,
    })
}

/// SCC = result != 0.
#[inline]
fn nz32(r: u32) -> (u32, Option<bool>) {
    (r, Some(r != 0))
}

#[inline]
fn nz64(r: u64) -> (u64, Option<bool>) {
    (r, Some(r != 0))
}

/// Signed overflow of `a + b = r` (operands of equal sign, result of the other sign).
#[inline]
fn add_overflow(a: u32, b: u32, r: u32) -> bool {
    (!(a ^ b) & (a ^ r)) >> 31 != 0
}

/// Signed overflow of `a - b = r` (operands of different sign, result sign differs from a).
#[inline]
fn sub_overflow(a: u32, b: u32, r: u32) -> bool {
    ((a ^ b) & (a ^ r)) >> 31 != 0
}

/// Mask of the low `n` bits, all ones for `n >= 64`.
#[inline]
fn low_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// `s_bfe_u32`/`s_bfe_i32`: offset S1[4:0], width S1[22:16] (0..127); D = field of S0,
/// zero- or sign-extended from its top bit; width 0 gives 0.
pub fn bfe32(a: u32, b: u32, signed: bool) -> u32 {
    let (off, width) = (b & 31, (b >> 16) & 0x7f);
    if width == 0 {
        return 0;
    }
    let shifted = if signed { ((a as i32) >> off) as u32 } else { a >> off };
    if width >= 32 {
        return shifted;
    }
    let field = shifted & low_mask(width) as u32;
    if signed {
        let s = 32 - width;
        (((field << s) as i32) >> s) as u32
    } else {
        field
    }
}

/// `s_bfe_u64`/`s_bfe_i64`: offset S1[5:0], width S1[22:16].
pub fn bfe64(a: u64, b: u32, signed: bool) -> u64 {
    let (off, width) = (b & 63, (b >> 16) & 0x7f);
    if width == 0 {
        return 0;
    }
    let shifted = if signed { ((a as i64) >> off) as u64 } else { a >> off };
    if width >= 64 {
        return shifted;
    }
    let field = shifted & low_mask(width);
    if signed {
        let s = 64 - width;
        (((field << s) as i64) >> s) as u64
    } else {
        field
    }
}

/// Evaluate a 32-bit SOP2 operation: (result, new SCC or None to leave it).
#[inline(always)]
pub fn alu32(op: Alu32, a: u32, b: u32, scc: bool) -> (u32, Option<bool>) {
    use Alu32::*;
    match op {
        AddU => {
            let (r, c) = a.overflowing_add(b);
            (r, Some(c))
        }
        SubU => (a.wrapping_sub(b), Some(b > a)),
        AddI => {
            let r = a.wrapping_add(b);
            (r, Some(add_overflow(a, b, r)))
        }
        SubI => {
            let r = a.wrapping_sub(b);
            (r, Some(sub_overflow(a, b, r)))
        }
        AddC => {
            let t = a as u64 + b as u64 + scc as u64;
            (t as u32, Some(t >> 32 != 0))
        }
        SubB => {
            let sub = b as u64 + scc as u64;
            ((a as u64).wrapping_sub(sub) as u32, Some(sub > a as u64))
        }
        MinI => pick((a as i32) < (b as i32), a, b),
        MinU => pick(a < b, a, b),
        MaxI => pick((a as i32) > (b as i32), a, b),
        MaxU => pick(a > b, a, b),
        Cselect => (if scc { a } else { b }, None),
        And => nz32(a & b),
        Or => nz32(a | b),
        Xor => nz32(a ^ b),
        AndN2 => nz32(a & !b),
        OrN2 => nz32(a | !b),
        Nand => nz32(!(a & b)),
        Nor => nz32(!(a | b)),
        Xnor => nz32(!(a ^ b)),
        Lshl => nz32(a << (b & 31)),
        Lshr => nz32(a >> (b & 31)),
        Ashr => nz32(((a as i32) >> (b & 31)) as u32),
        Bfm => ((low_mask(a & 31) as u32) << (b & 31), None),
        Mul => (a.wrapping_mul(b), None),
        MulHiU => (((a as u64 * b as u64) >> 32) as u32, None),
        MulHiI => (((a as i32 as i64 * b as i32 as i64) >> 32) as u32, None),
        BfeU => nz32(bfe32(a, b, false)),
        BfeI => nz32(bfe32(a, b, true)),
        AbsDiff => nz32((a.wrapping_sub(b) as i32).wrapping_abs() as u32),
        LshlAdd(n) => {
            let t = ((a as u64) << n) + b as u64;
            (t as u32, Some(t >> 32 != 0))
        }
        PackLL => ((a & 0xffff) | b << 16, None),
        PackLH => ((a & 0xffff) | (b & 0xffff_0000), None),
        PackHH => ((a >> 16) | (b & 0xffff_0000), None),
        PackHL => ((a >> 16) | b << 16, None),
    }
}

/// min/max: D = chosen value, SCC = "S0 was chosen".
#[inline]
fn pick(first: bool, a: u32, b: u32) -> (u32, Option<bool>) {
    (if first { a } else { b }, Some(first))
}

/// Evaluate a 64-bit SOP2 operation.
#[inline]
pub fn alu64(op: Alu64, a: u64, b: u64, scc: bool) -> (u64, Option<bool>) {
    use Alu64::*;
    match op {
        Cselect => (if scc { a } else { b }, None),
        And => nz64(a & b),
        Or => nz64(a | b),
        Xor => nz64(a ^ b),
        AndN2 => nz64(a & !b),
        OrN2 => nz64(a | !b),
        Nand => nz64(!(a & b)),
        Nor => nz64(!(a | b)),
        Xnor => nz64(!(a ^ b)),
        Lshl => nz64(a << (b & 63)),
        Lshr => nz64(a >> (b & 63)),
        Ashr => nz64(((a as i64) >> (b & 63)) as u64),
        Bfm => (low_mask((a & 63) as u32) << (b & 63), None),
        BfeU => nz64(bfe64(a, b as u32, false)),
        BfeI => nz64(bfe64(a, b as u32, true)),
        AddNc => (a.wrapping_add(b), None),
        SubNc => (a.wrapping_sub(b), None),
        Mul => (a.wrapping_mul(b), None),
    }
}

#[inline]
fn relate<T: Ord>(rel: Rel, a: T, b: T) -> bool {
    match rel {
        Rel::Eq => a == b,
        Rel::Lg => a != b,
        Rel::Gt => a > b,
        Rel::Ge => a >= b,
        Rel::Lt => a < b,
        Rel::Le => a <= b,
    }
}

/// SCC of a 32-bit comparison.
#[inline(always)]
pub fn cmp32(op: Cmp, a: u32, b: u32) -> bool {
    match op {
        Cmp::Unsigned(r) => relate(r, a, b),
        Cmp::Signed(r) => relate(r, a as i32, b as i32),
        Cmp::Bit(v) => (a >> (b & 31)) & 1 == v as u32,
    }
}

/// SCC of a 64-bit comparison (`s_cmp_eq/lg_u64`; `s_bitcmp*_b64` take a 32-bit bit index).
#[inline]
pub fn cmp64(op: Cmp, a: u64, b: u64) -> bool {
    match op {
        Cmp::Unsigned(r) => relate(r, a, b),
        Cmp::Signed(r) => relate(r, a as i64, b as i64),
        Cmp::Bit(v) => (a >> (b & 63)) & 1 == v as u64,
    }
}

/// Evaluate a SOPK operation on the current destination value `d`: (new D or None, new SCC
/// or None).
#[inline]
pub fn kop(op: KOp, d: u32, imm: u16, scc: bool) -> (Option<u32>, Option<bool>) {
    let simm = imm as i16 as i32 as u32;
    match op {
        KOp::Mov => (Some(simm), None),
        KOp::Cmov => (scc.then_some(simm), None),
        KOp::Add => {
            let r = d.wrapping_add(simm);
            (Some(r), Some(add_overflow(d, simm, r)))
        }
        KOp::Mul => (Some(d.wrapping_mul(simm)), None),
        KOp::Cmp(c @ Cmp::Signed(_)) => (None, Some(cmp32(c, d, simm))),
        KOp::Cmp(c) => (None, Some(cmp32(c, d, imm as u32))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfe_matches_shift_and_mask() {
        // offset 4, width 8 of 0xABCD_1234 = 0x23.
        assert_eq!(bfe32(0xABCD_1234, 4 | 8 << 16, false), 0x23);
        // signed: field 0xF8 from 0x0000_0F80 (offset 4, width 8) = -8.
        assert_eq!(bfe32(0x0000_0F80, 4 | 8 << 16, true), (-8i32) as u32);
        assert_eq!(bfe32(0xffff_ffff, 0, true), 0);
        assert_eq!(bfe32(0x8000_0000, 28 | 40 << 16, true), 0xffff_fff8);
        assert_eq!(bfe64(0x8000_0000_0000_0000, 60 | 4 << 16, false), 8);
        assert_eq!(bfe64(0x8000_0000_0000_0000, 60 | 4 << 16, true), (-8i64) as u64);
    }
}
