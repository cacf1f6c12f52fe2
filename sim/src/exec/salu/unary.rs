//! One-source SALU operations (SOP1): moves, bit counting and searching, bit reversal,
//! sign extension, whole-quad masks.
//!
//! ISA manuals, "SOP1 Instructions". SCC is set to `result != 0` by `s_not`, `s_wqm`,
//! `s_bcnt0/1`, `s_quadmask`, `s_abs_i32`; the others leave it. The find-bit operations
//! (`s_ff0/ff1`, `s_flbit*`, GFX11+ `s_ctz/s_clz/s_cls`) return -1 when no bit qualifies.

use hipscope_isa::tables::Opcode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unary {
    Mov,
    Not,
    Wqm,
    Brev,
    Bcnt0,
    Bcnt1,
    /// First zero bit from the LSB.
    Ff0,
    /// First one bit from the LSB (`s_ctz_i32_*`).
    Ff1,
    /// Leading zeros (`s_flbit_i32_b*`, `s_clz_i32_u*`).
    Clz,
    /// Leading bits equal to the sign bit (`s_flbit_i32(_i64)`, `s_cls_i32*`).
    Cls,
    SextI8,
    SextI16,
    Abs,
    Quadmask,
    /// `s_bitreplicate_b64_b32`: each bit of S0 twice.
    BitReplicate,
}

/// A SOP1 operation with its source and destination widths (`src64`, `dst64`).
pub fn unary_of(op: Opcode) -> Option<(Unary, bool, bool)> {
    use Opcode::*;
    use Unary::*;
    Some(match op {
        S_MOV_B32 => (Mov, false, false),
        S_MOV_B64 => (Mov, true, true),
        S_NOT_B32 => (Not, false, false),
        S_NOT_B64 => (Not, true, true),
        S_WQM_B32 => (Wqm, false, false),
        S_WQM_B64 => (Wqm, true, true),
        S_BREV_B32 => (Brev, false, false),
        S_BREV_B64 => (Brev, true, true),
        S_BCNT0_I32_B32 => (Bcnt0, false, false),
        S_BCNT0_I32_B64 => (Bcnt0, true, false),
        S_BCNT1_I32_B32 => (Bcnt1, false, false),
        S_BCNT1_I32_B64 => (Bcnt1, true, false),
        S_FF0_I32_B32 => (Ff0, false, false),
        S_FF0_I32_B64 => (Ff0, true, false),
        S_FF1_I32_B32 | S_CTZ_I32_B32 => (Ff1, false, false),
        S_FF1_I32_B64 | S_CTZ_I32_B64 => (Ff1, true, false),
        S_FLBIT_I32_B32 | S_CLZ_I32_U32 => (Clz, false, false),
        S_FLBIT_I32_B64 | S_CLZ_I32_U64 => (Clz, true, false),
        S_FLBIT_I32 | S_CLS_I32 => (Cls, false, false),
        S_FLBIT_I32_I64 | S_CLS_I32_I64 => (Cls, true, false),
        S_SEXT_I32_I8 => (SextI8, false, false),
        S_SEXT_I32_I16 => (SextI16, false, false),
        S_ABS_I32 => (Abs, false, false),
        S_QUADMASK_B32 => (Quadmask, false, false),
        S_QUADMASK_B64 => (Quadmask, true, true),
        S_BITREPLICATE_B64_B32 => (BitReplicate, false, true),
        _ => return None,
    })
}

/// -1 as the 32-bit "not found" result.
const NONE: u64 = 0xffff_ffff;

#[inline]
fn nz(r: u64) -> (u64, Option<bool>) {
    (r, Some(r != 0))
}

/// Evaluate on a source of `bits` (32 or 64) bits, zero-extended in `x`.
#[inline]
pub fn unary(op: Unary, x: u64, bits: u32) -> (u64, Option<bool>) {
    let all = if bits == 64 { u64::MAX } else { 0xffff_ffff };
    match op {
        Unary::Mov => (x, None),
        Unary::Not => nz(!x & all),
        Unary::Wqm => nz(wqm(x) & all),
        Unary::Brev => (x.reverse_bits() >> (64 - bits), None),
        Unary::Bcnt0 => nz((bits - (x & all).count_ones()) as u64),
        Unary::Bcnt1 => nz(x.count_ones() as u64),
        Unary::Ff0 => (find_first(!x & all), None),
        Unary::Ff1 => (find_first(x), None),
        Unary::Clz => (leading_zeros(x, bits), None),
        Unary::Cls => (leading_sign_bits(x, bits), None),
        Unary::SextI8 => (x as u8 as i8 as i32 as u32 as u64, None),
        Unary::SextI16 => (x as u16 as i16 as i32 as u32 as u64, None),
        Unary::Abs => nz((x as u32 as i32).wrapping_abs() as u32 as u64),
        Unary::Quadmask => nz(quadmask(x)),
        Unary::BitReplicate => (bit_replicate(x as u32), None),
    }
}

fn find_first(x: u64) -> u64 {
    if x == 0 {
        NONE
    } else {
        x.trailing_zeros() as u64
    }
}

fn leading_zeros(x: u64, bits: u32) -> u64 {
    if x == 0 {
        NONE
    } else {
        (x.leading_zeros() - (64 - bits)) as u64
    }
}

/// Count of leading bits equal to the sign bit (the sign bit included); -1 for 0 and -1.
fn leading_sign_bits(x: u64, bits: u32) -> u64 {
    let v = x << (64 - bits);
    let flipped = if (v as i64) < 0 { !v } else { v };
    let n = flipped.leading_zeros();
    if n >= bits {
        NONE
    } else {
        n as u64
    }
}

/// Every 4-bit group that has a set bit becomes all ones.
fn wqm(x: u64) -> u64 {
    let mut q = x | x >> 1;
    q |= q >> 2;
    q &= 0x1111_1111_1111_1111;
    q * 0xf
}

/// Bit i of the result = any bit of group i of 4 in the source.
fn quadmask(x: u64) -> u64 {
    (0..16).fold(0, |acc, i| acc | (((x >> (4 * i)) & 0xf != 0) as u64) << i)
}

fn bit_replicate(x: u32) -> u64 {
    (0..32).fold(0, |acc, i| acc | (((x >> i) & 1) as u64 * 3) << (2 * i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks() {
        assert_eq!(wqm(0x0000_0000_0001_0080), 0x0000_0000_000f_00f0);
        assert_eq!(quadmask(0x0000_0000_0001_0080), 0b1_0010);
        assert_eq!(bit_replicate(0b101), 0b11_00_11);
    }

    #[test]
    fn leading_bits() {
        assert_eq!(leading_sign_bits(0x4000_0000, 32), 1);
        assert_eq!(leading_sign_bits(0xffff_0000, 32), 16);
        assert_eq!(leading_sign_bits(0, 32), NONE);
        assert_eq!(leading_sign_bits(0xffff_ffff, 32), NONE);
        assert_eq!(leading_zeros(1, 32), 31);
        assert_eq!(leading_zeros(1, 64), 63);
    }
}
