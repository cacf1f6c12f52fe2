//! Integer and bitwise kernels (VOP1/VOP2/VOP3 pseudo-code of the ISA manuals; CDNA3/4 ISA
//! §12.7-12.11, RDNA3 ISA §16.7-16.12). Sources arrive as raw bits: 32-bit operands in the low
//! 32 bits, 16-bit operands in the low 16 bits. The clamp bit saturates the mathematically
//! exact result to the destination integer range ("Supports saturation").

use super::fp::Ctl;
use super::lanes::{carry, lane, map};

const M32: u64 = 0xffff_ffff;
const M16: u64 = 0xffff;

#[inline]
fn i32_(a: u64) -> i64 {
    a as u32 as i32 as i64
}
#[inline]
fn i16_(a: u64) -> i64 {
    a as u16 as i16 as i64
}
#[inline]
fn u24(a: u64) -> u64 {
    a & 0xff_ffff
}
#[inline]
fn i24(a: u64) -> i64 {
    ((a << 40) as i64) >> 40
}

/// Unsigned result in `bits`: saturated with clamp, wrapped otherwise.
#[inline]
fn usat(r: u128, bits: u32, k: Ctl) -> u64 {
    let max = (1u128 << bits) - 1;
    (if k.clamp { r.min(max) } else { r & max }) as u64
}

/// Unsigned difference: 0 on borrow with clamp.
#[inline]
fn usub(a: u64, b: u64, bits: u32, k: Ctl) -> u64 {
    if k.clamp && b > a {
        0
    } else {
        a.wrapping_sub(b) & ((1u64 << bits) - 1)
    }
}

/// Signed result in `bits`: saturated with clamp, wrapped otherwise.
#[inline]
fn ssat(r: i128, bits: u32, k: Ctl) -> u64 {
    let (lo, hi) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
    let r = if k.clamp { r.clamp(lo, hi) } else { r };
    (r as u64) & if bits == 64 { !0 } else { (1u64 << bits) - 1 }
}

map! {
    mov = |a, b, c, k| a;
    not32 = |a, b, c, k| !a & M32;
    not16 = |a, b, c, k| !a & M16;
    bfrev = |a, b, c, k| (a as u32).reverse_bits() as u64;
    // V_FFBH_U32 / V_CLZ_I32_U32: leading zeros, -1 for 0.
    ffbh_u32 = |a, b, c, k| if a as u32 == 0 { M32 } else { (a as u32).leading_zeros() as u64 };
    // V_FFBL_B32 / V_CTZ_I32_B32: trailing zeros, -1 for 0.
    ffbl = |a, b, c, k| if a as u32 == 0 { M32 } else { (a as u32).trailing_zeros() as u64 };
    // V_FFBH_I32 / V_CLS_I32: leading bits equal to the sign (after it), -1 for 0 and -1.
    ffbh_i32 = |a, b, c, k| {
        let v = a as u32 as i32;
        if v == 0 || v == -1 { M32 } else { ((v ^ (v >> 31)) as u32).leading_zeros() as u64 }
    };

    add_u32 = |a, b, c, k| usat(a as u128 + b as u128, 32, k);
    sub_u32 = |a, b, c, k| usub(a, b, 32, k);
    subrev_u32 = |a, b, c, k| usub(b, a, 32, k);
    add_i32 = |a, b, c, k| ssat(i32_(a) as i128 + i32_(b) as i128, 32, k);
    sub_i32 = |a, b, c, k| ssat(i32_(a) as i128 - i32_(b) as i128, 32, k);
    add3_u32 = |a, b, c, k| (a + b + c) & M32;
    add_lshl_u32 = |a, b, c, k| ((a + b) << (c & 31)) & M32;
    lshl_add_u32 = |a, b, c, k| ((a << (b & 31)) + c) & M32;
    lshl_or_b32 = |a, b, c, k| ((a << (b & 31)) | c) & M32;
    and_or_b32 = |a, b, c, k| (a & b) | c;
    or3_b32 = |a, b, c, k| a | b | c;
    xor3_b32 = |a, b, c, k| a ^ b ^ c;
    xad_u32 = |a, b, c, k| ((a ^ b) + c) & M32;
    and_b32 = |a, b, c, k| a & b;
    or_b32 = |a, b, c, k| a | b;
    xor_b32 = |a, b, c, k| a ^ b;
    xnor_b32 = |a, b, c, k| !(a ^ b) & M32;

    lshlrev_b32 = |a, b, c, k| (b << (a & 31)) & M32;
    lshrrev_b32 = |a, b, c, k| b >> (a & 31);
    ashrrev_i32 = |a, b, c, k| ((b as u32 as i32) >> (a & 31)) as u32 as u64;
    lshlrev_b64 = |a, b, c, k| b << (a & 63);
    lshrrev_b64 = |a, b, c, k| b >> (a & 63);
    ashrrev_i64 = |a, b, c, k| ((b as i64) >> (a & 63)) as u64;
    lshlrev_b16 = |a, b, c, k| (b << (a & 15)) & M16;
    lshrrev_b16 = |a, b, c, k| b >> (a & 15);
    ashrrev_i16 = |a, b, c, k| ((i16_(b) >> (a & 15)) as u64) & M16;

    mul_lo_u32 = |a, b, c, k| (a * b) & M32;
    mul_hi_u32 = |a, b, c, k| (a * b) >> 32;
    mul_hi_i32 = |a, b, c, k| ((i32_(a) * i32_(b)) >> 32) as u64 & M32;
    mul_u32_u24 = |a, b, c, k| (u24(a) * u24(b)) & M32;
    mul_hi_u32_u24 = |a, b, c, k| (u24(a) * u24(b)) >> 32;
    mul_i32_i24 = |a, b, c, k| (i24(a) * i24(b)) as u64 & M32;
    mul_hi_i32_i24 = |a, b, c, k| ((i24(a) * i24(b)) >> 32) as u64 & M32;
    mad_u32_u24 = |a, b, c, k| usat(u24(a) as u128 * u24(b) as u128 + c as u128, 32, k);
    mad_i32_i24 = |a, b, c, k| ssat((i24(a) * i24(b)) as i128 + i32_(c) as i128, 32, k);
    mad_u32_u16 = |a, b, c, k| usat((a & M16) as u128 * (b & M16) as u128 + c as u128, 32, k);
    mad_i32_i16 = |a, b, c, k| ssat((i16_(a) * i16_(b)) as i128 + i32_(c) as i128, 32, k);

    min_u32 = |a, b, c, k| a.min(b);
    max_u32 = |a, b, c, k| a.max(b);
    min_i32 = |a, b, c, k| if i32_(a) < i32_(b) { a } else { b };
    max_i32 = |a, b, c, k| if i32_(a) >= i32_(b) { a } else { b };
    min3_u32 = |a, b, c, k| a.min(b).min(c);
    max3_u32 = |a, b, c, k| a.max(b).max(c);
    med3_u32 = |a, b, c, k| med3(a, b, c, |x| x as i64);
    min3_i32 = |a, b, c, k| (i32_(a).min(i32_(b)).min(i32_(c)) as u64) & M32;
    max3_i32 = |a, b, c, k| (i32_(a).max(i32_(b)).max(i32_(c)) as u64) & M32;
    med3_i32 = |a, b, c, k| med3(a, b, c, i32_);
    // GFX11 V_MAXMIN/V_MINMAX: max (min) of the first two, then min (max) with the third.
    maxmin_u32 = |a, b, c, k| a.max(b).min(c);
    minmax_u32 = |a, b, c, k| a.min(b).max(c);
    maxmin_i32 = |a, b, c, k| (i32_(a).max(i32_(b)).min(i32_(c)) as u64) & M32;
    minmax_i32 = |a, b, c, k| (i32_(a).min(i32_(b)).max(i32_(c)) as u64) & M32;

    bfe_u32 = |a, b, c, k| (a >> (b & 31)) & ((1u64 << (c & 31)) - 1);
    bfe_i32 = |a, b, c, k| {
        let w = (c & 31) as u32;
        let f = (a >> (b & 31)) & ((1u64 << w) - 1);
        if w == 0 { 0 } else { ((((f << (64 - w)) as i64) >> (64 - w)) as u64) & M32 }
    };
    bfi_b32 = |a, b, c, k| (a & b) | (!a & c & M32);
    bfm_b32 = |a, b, c, k| (((1u64 << (a & 31)) - 1) << (b & 31)) & M32;
    alignbit_b32 = |a, b, c, k| ((a << 32 | b) >> (c & 31)) & M32;
    alignbyte_b32 = |a, b, c, k| ((a << 32 | b) >> ((c & 3) * 8)) & M32;
    perm_b32 = |a, b, c, k| perm(a << 32 | b, c);
    bcnt_u32 = |a, b, c, k| (a.count_ones() as u64 + b) & M32;
    lerp_u8 = |a, b, c, k| (0..4).fold(0, |r, i| {
        let s = 8 * i;
        r | (((a >> s & 0xff) + (b >> s & 0xff) + (c >> s & 1)) >> 1) << s
    });
    sad_u8 = |a, b, c, k| (sad_bytes(a, b, false) + c) & M32;
    sad_hi_u8 = |a, b, c, k| ((sad_bytes(a, b, false) << 16) + c) & M32;
    msad_u8 = |a, b, c, k| (sad_bytes(a, b, true) + c) & M32;
    sad_u16 = |a, b, c, k| ((a & M16).abs_diff(b & M16) + (a >> 16).abs_diff(b >> 16) + c) & M32;
    sad_u32 = |a, b, c, k| (a.abs_diff(b) + c) & M32;

    add_u16 = |a, b, c, k| usat(a as u128 + b as u128, 16, k);
    sub_u16 = |a, b, c, k| usub(a, b, 16, k);
    subrev_u16 = |a, b, c, k| usub(b, a, 16, k);
    add_i16 = |a, b, c, k| ssat(i16_(a) as i128 + i16_(b) as i128, 16, k);
    sub_i16 = |a, b, c, k| ssat(i16_(a) as i128 - i16_(b) as i128, 16, k);
    mul_lo_u16 = |a, b, c, k| usat(a as u128 * b as u128, 16, k);
    mad_u16 = |a, b, c, k| usat(a as u128 * b as u128 + c as u128, 16, k);
    mad_i16 = |a, b, c, k| ssat((i16_(a) * i16_(b) + i16_(c)) as i128, 16, k);
    min_u16 = |a, b, c, k| a.min(b);
    max_u16 = |a, b, c, k| a.max(b);
    min_i16 = |a, b, c, k| if i16_(a) < i16_(b) { a } else { b };
    max_i16 = |a, b, c, k| if i16_(a) >= i16_(b) { a } else { b };
    min3_u16 = |a, b, c, k| a.min(b).min(c);
    max3_u16 = |a, b, c, k| a.max(b).max(c);
    med3_u16 = |a, b, c, k| med3(a, b, c, |x| x as i64);
    min3_i16 = |a, b, c, k| (i16_(a).min(i16_(b)).min(i16_(c)) as u64) & M16;
    max3_i16 = |a, b, c, k| (i16_(a).max(i16_(b)).max(i16_(c)) as u64) & M16;
    med3_i16 = |a, b, c, k| med3(a, b, c, i16_);
    and_b16 = |a, b, c, k| a & b;
    or_b16 = |a, b, c, k| a | b;
    xor_b16 = |a, b, c, k| a ^ b;
    // V_SAT_PK_U8_I16: each signed 16-bit half saturated to u8, packed into 16 bits.
    sat_pk_u8_i16 = |a, b, c, k| sat_u8(i16_(a)) | sat_u8(i16_(a >> 16)) << 8;
    cvt_u32_u16 = |a, b, c, k| a & M16;
    cvt_i32_i16 = |a, b, c, k| (i16_(a) as u64) & M32;
    pack_b32_f16 = |a, b, c, k| (a & M16) | (b & M16) << 16;

    // V_LSHL_ADD_U64: shift counts above 4 are unsupported and act as 0 (CDNA3/4 ISA notes).
    lshl_add_u64 = |a, b, c, k| {
        let s = b & 7;
        (a << if s > 4 { 0 } else { s }).wrapping_add(c)
    };
}

carry! {
    add_co_u32 = |a, b, c, ci, k| { let r = a + b; (usat(r as u128, 32, k), r > M32) };
    sub_co_u32 = |a, b, c, ci, k| (usub(a, b, 32, k), b > a);
    subrev_co_u32 = |a, b, c, ci, k| (usub(b, a, 32, k), a > b);
    addc_u32 = |a, b, c, ci, k| { let r = a + b + ci as u64; (usat(r as u128, 32, k), r > M32) };
    subb_u32 = |a, b, c, ci, k| (usub(a, b + ci as u64, 32, k), b + ci as u64 > a);
    subbrev_u32 = |a, b, c, ci, k| (usub(b, a + ci as u64, 32, k), a + ci as u64 > b);
    // V_CNDMASK: S1 where the lane's mask bit is set, else S0.
    cndmask = |a, b, c, ci, k| (if ci { b } else { a }, false);
    // {D1.u1, D0.u64} = 65-bit S0.u32 * S1.u32 + S2.u64.
    mad_u64_u32 = |a, b, c, ci, k| {
        let (r, co) = (a as u32 as u64 * b as u32 as u64).overflowing_add(c);
        (if k.clamp && co { u64::MAX } else { r }, co)
    };
    // {D1.i1, D0.i64} = 65-bit signed S0.i32 * S1.i32 + S2.i64: D1 is bit 64 of the result.
    mad_i64_i32 = |a, b, c, ci, k| {
        let r = (i32_(a) * i32_(b)) as i128 + c as i64 as i128;
        (ssat(r, 64, k), (r >> 64) & 1 != 0)
    };
}

lane! {
    // V_MBCNT_LO: count the set bits of S0 below this lane (all 32 bits for lanes >= 32).
    mbcnt_lo = |a, b, l| (b + (a & M32 & ((1u64 << l) - 1)).count_ones() as u64) & M32;
    // V_MBCNT_HI: the same for lanes 32..63 against bits 32..63 of the lane mask.
    mbcnt_hi = |a, b, l| (b + (a & M32 & (((1u64 << l) - 1) >> 32)).count_ones() as u64) & M32;
}

fn med3(a: u64, b: u64, c: u64, v: impl Fn(u64) -> i64) -> u64 {
    let (x, y, z) = (v(a), v(b), v(c));
    let m = x.max(y).max(z);
    if m == x {
        if y >= z {
            b
        } else {
            c
        }
    } else if m == y {
        if x >= z {
            a
        } else {
            c
        }
    } else if x >= y {
        a
    } else {
        b
    }
}

fn sat_u8(n: i64) -> u64 {
    n.clamp(0, 255) as u64
}

/// Sum of absolute byte differences; `masked` skips bytes where the reference (S1) is 0.
fn sad_bytes(a: u64, b: u64, masked: bool) -> u64 {
    (0..4).map(|i| ((a >> (8 * i)) & 0xff, (b >> (8 * i)) & 0xff)).filter(|&(_, y)| !masked || y != 0).map(|(x, y)| x.abs_diff(y)).sum()
}

/// V_PERM_B32 byte selection over the 64-bit {S0, S1}: 0-7 a byte, 8-11 the sign of byte
/// 1/3/5/7 replicated, 12 zero, 13 and above 0xFF.
fn perm(data: u64, sel: u64) -> u64 {
    (0..4).fold(0, |r, i| {
        let s = (sel >> (8 * i)) & 0xff;
        let byte = match s {
            0..=7 => (data >> (8 * s)) & 0xff,
            8..=11 => {
                let src = 2 * (s - 8) + 1;
                if (data >> (8 * src + 7)) & 1 != 0 {
                    0xff
                } else {
                    0
                }
            }
            12 => 0,
            _ => 0xff,
        };
        r | byte << (8 * i)
    })
}

/// V_BITOP3_B32 / V_BITOP3_B16 (gfx950): every result bit looks up the 8-bit truth table
/// BITOP3 (`x.aux`) at index S0 << 2 | S1 << 1 | S2 of that bit position, so the table of S0
/// alone is 0xF0, of S1 0xCC, of S2 0xAA (LLVM's `BitOp3_Op`, AMDGPUISelDAGToDAG.cpp, builds
/// the tables from those three constants).
fn bitop3(x: &mut super::lanes::Lanes, mask: u64) {
    let table = x.aux & 0xff;
    let n = x.n.min(super::lanes::MAX);
    for l in 0..n {
        let (a, b, c) = (x.s[0][l], x.s[1][l], x.s[2][l]);
        let mut r = 0u64;
        for i in 0..8 {
            if table >> i & 1 != 0 {
                let pick = |v: u64, bit: u32| if i >> bit & 1 != 0 { v } else { !v };
                r |= pick(a, 2) & pick(b, 1) & pick(c, 0);
            }
        }
        x.d[l] = r & mask;
    }
}

pub fn bitop3_b32(x: &mut super::lanes::Lanes) {
    bitop3(x, M32)
}

pub fn bitop3_b16(x: &mut super::lanes::Lanes) {
    bitop3(x, M16)
}
