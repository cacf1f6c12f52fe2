//! VOP3P kernels: packed 16-bit and 32-bit math (element 0 in the low half/dword, element 1
//! in the high one, as composed by the source gather from op_sel/op_sel_hi/neg_lo/neg_hi),
//! the MIX multiply-adds and the dot products (CDNA3/4 ISA §12.10 "VOP3P Instructions", RDNA3
//! ISA §7.5 "Packed Math").

use super::fp::*;
use super::lanes::{map, Lanes, MAX};

const M16: u64 = 0xffff;
const M32: u64 = 0xffff_ffff;

/// Apply `op` to both 16-bit elements.
#[inline]
fn pk16(a: u64, b: u64, c: u64, op: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let lo = op(a & M16, b & M16, c & M16) & M16;
    let hi = op(a >> 16 & M16, b >> 16 & M16, c >> 16 & M16) & M16;
    lo | hi << 16
}

/// Apply `op` to both 32-bit elements of a register pair.
#[inline]
fn pk32(a: u64, b: u64, c: u64, op: impl Fn(u64, u64, u64) -> u64) -> u64 {
    let lo = op(a & M32, b & M32, c & M32) & M32;
    let hi = op(a >> 32, b >> 32, c >> 32) & M32;
    lo | hi << 32
}

#[inline]
fn s16(a: u64) -> i64 {
    a as u16 as i16 as i64
}

#[inline]
fn usat16(r: i64, clamp: bool) -> u64 {
    (if clamp { r.clamp(0, 0xffff) } else { r }) as u64 & M16
}
#[inline]
fn ssat16(r: i64, clamp: bool) -> u64 {
    (if clamp { r.clamp(-0x8000, 0x7fff) } else { r }) as u64 & M16
}

#[inline]
fn h(r: f64, ins: &[u64]) -> u64 {
    nan16(d2h(r) as u16, ins)
}

map! {
    pk_mad_i16 = |a, b, c, k| pk16(a, b, c, |x, y, z| ssat16(s16(x) * s16(y) + s16(z), k.clamp));
    pk_mul_lo_u16 = |a, b, c, k| pk16(a, b, c, |x, y, _| usat16((x * y) as i64, k.clamp));
    pk_add_i16 = |a, b, c, k| pk16(a, b, c, |x, y, _| ssat16(s16(x) + s16(y), k.clamp));
    pk_sub_i16 = |a, b, c, k| pk16(a, b, c, |x, y, _| ssat16(s16(x) - s16(y), k.clamp));
    pk_lshlrev_b16 = |a, b, c, k| pk16(a, b, c, |x, y, _| y << (x & 15));
    pk_lshrrev_b16 = |a, b, c, k| pk16(a, b, c, |x, y, _| y >> (x & 15));
    pk_ashrrev_i16 = |a, b, c, k| pk16(a, b, c, |x, y, _| (s16(y) >> (x & 15)) as u64);
    pk_max_i16 = |a, b, c, k| pk16(a, b, c, |x, y, _| if s16(x) >= s16(y) { x } else { y });
    pk_min_i16 = |a, b, c, k| pk16(a, b, c, |x, y, _| if s16(x) < s16(y) { x } else { y });
    pk_mad_u16 = |a, b, c, k| pk16(a, b, c, |x, y, z| usat16((x * y + z) as i64, k.clamp));
    pk_add_u16 = |a, b, c, k| pk16(a, b, c, |x, y, _| usat16((x + y) as i64, k.clamp));
    pk_sub_u16 = |a, b, c, k| pk16(a, b, c, |x, y, _| usat16(x as i64 - y as i64, k.clamp));
    pk_max_u16 = |a, b, c, k| pk16(a, b, c, |x, y, _| x.max(y));
    pk_min_u16 = |a, b, c, k| pk16(a, b, c, |x, y, _| x.min(y));
    pk_fma_f16 = |a, b, c, k| pk16(a, b, c, fma16);
    pk_add_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| h(h2d(x) + h2d(y), &[x, y]));
    pk_mul_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| h(h2d(x) * h2d(y), &[x, y]));
    pk_min_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| min16(x, y, k.ieee));
    pk_max_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| max16(x, y, k.ieee));
    pk_min_num_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| num_minmax(x, y, h2d(x), h2d(y), false, 0x200));
    pk_max_num_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| num_minmax(x, y, h2d(x), h2d(y), true, 0x200));
    pk_minimum_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| minimum_maximum(x, y, h2d(x), h2d(y), false, 0x200));
    pk_maximum_f16 = |a, b, c, k| pk16(a, b, c, |x, y, _| minimum_maximum(x, y, h2d(x), h2d(y), true, 0x200));
    // gfx950 (CDNA4 VOP3P): v_minimum3_f16 / v_maximum3_f16 of each half, i.e. the IEEE
    // minimum/maximum of the first two, then with the third.
    pk_minimum3_f16 = |a, b, c, k| pk16(a, b, c, |x, y, z| { let m = minimum_maximum(x, y, h2d(x), h2d(y), false, 0x200); minimum_maximum(m, z, h2d(m), h2d(z), false, 0x200) });
    pk_maximum3_f16 = |a, b, c, k| pk16(a, b, c, |x, y, z| { let m = minimum_maximum(x, y, h2d(x), h2d(y), true, 0x200); minimum_maximum(m, z, h2d(m), h2d(z), true, 0x200) });
    pk_fma_f32 = |a, b, c, k| pk32(a, b, c, |x, y, z| nan32(f(x).mul_add(f(y), f(z)), &[x, y, z]));
    pk_mul_f32 = |a, b, c, k| pk32(a, b, c, |x, y, _| nan32(f(x) * f(y), &[x, y]));
    pk_add_f32 = |a, b, c, k| pk32(a, b, c, |x, y, _| nan32(f(x) + f(y), &[x, y]));
    // V_PK_MOV_B32: element 0 of S0 and element 1 of S1 (each chosen by its op_sel bit).
    pk_mov_b32 = |a, b, c, k| (a & M32) | (b & !M32);

    dot2_f32_f16 = |a, b, c, k| nan32((f(c) as f64 + h2d(a) * h2d(b) + h2d(a >> 16) * h2d(b >> 16)) as f32, &[c]);
    dot2_i32_i16 = |a, b, c, k| isat32(dot_s(a, b, 16) + c as u32 as i32 as i64, k.clamp);
    dot2_u32_u16 = |a, b, c, k| usat32(dot_u(a, b, 16) + (c & M32), k.clamp);
    dot4_i32_i8 = |a, b, c, k| isat32(dot_s(a, b, 8) + c as u32 as i32 as i64, k.clamp);
    dot4_u32_u8 = |a, b, c, k| usat32(dot_u(a, b, 8) + (c & M32), k.clamp);
    dot8_i32_i4 = |a, b, c, k| isat32(dot_s(a, b, 4) + c as u32 as i32 as i64, k.clamp);
    dot8_u32_u4 = |a, b, c, k| usat32(dot_u(a, b, 4) + (c & M32), k.clamp);
    // D.f32 = S0.bf16[0] * S1.bf16[0] + S0.bf16[1] * S1.bf16[1] + S2.f32.
    dot2_f32_bf16 = |a, b, c, k| nan32((f(c) as f64 + bf16(a) * bf16(b) + bf16(a >> 16) * bf16(b >> 16)) as f32, &[c]);
    // D.f16 = S0.f16[0] * S1.f16[0] + S0.f16[1] * S1.f16[1] + S2.f16.
    dot2_f16_f16 = |a, b, c, k| h(h2d(c) + h2d(a) * h2d(b) + h2d(a >> 16) * h2d(b >> 16), &[c]);
    // D.bf16 = S0.bf16[0] * S1.bf16[0] + S0.bf16[1] * S1.bf16[1] + S2.bf16.
    dot2_bf16_bf16 = |a, b, c, k| to_bf16((bf16(c) + bf16(a) * bf16(b) + bf16(a >> 16) * bf16(b >> 16)) as f32);
}

/// V_DOT4_I32_IU8 / V_DOT8_I32_IU4 (RDNA3 ISA): `aux` bits 0/1 are the NEG bits of sources 0/1,
/// which here mean "signed" rather than negate; S2 is a signed addend, clamp saturates.
fn dot_iu_lanes(x: &mut Lanes, bits: u32) {
    let (signed, clamp) = (x.aux, x.ctl.clamp);
    for l in 0..x.n.min(MAX) {
        let sum = dot_iu(x.s[0][l], x.s[1][l], bits, signed) + x.s[2][l] as u32 as i32 as i64;
        x.d[l] = isat32(sum, clamp);
    }
}
pub fn dot4_i32_iu8(x: &mut Lanes) {
    dot_iu_lanes(x, 8);
}
pub fn dot8_i32_iu4(x: &mut Lanes) {
    dot_iu_lanes(x, 4);
}

/// The low 16 bits as a bfloat16 value.
#[inline]
fn bf16(a: u64) -> f64 {
    f32::from_bits((a as u32) << 16) as f64
}

/// f32 to bfloat16, round to nearest even; NaN stays a quiet NaN.
fn to_bf16(x: f32) -> u64 {
    let b = x.to_bits();
    if x.is_nan() {
        return (b >> 16 | 0x40) as u64;
    }
    ((b + 0x7fff + (b >> 16 & 1)) >> 16) as u64
}

/// Sum of products of `bits`-wide elements, each source signed when its `signed` bit is set.
fn dot_iu(a: u64, b: u64, bits: u32, signed: u32) -> i64 {
    let sh = 64 - bits;
    let el = |v: u64, i: u32, s: bool| {
        let x = (v >> (i * bits)) << sh;
        if s {
            x as i64 >> sh
        } else {
            (x >> sh) as i64
        }
    };
    (0..32 / bits).map(|i| el(a, i, signed & 1 != 0) * el(b, i, signed & 2 != 0)).sum()
}

#[inline]
fn isat32(r: i64, clamp: bool) -> u64 {
    (if clamp { r.clamp(i32::MIN as i64, i32::MAX as i64) } else { r }) as u64 & M32
}
#[inline]
fn usat32(r: u64, clamp: bool) -> u64 {
    if clamp {
        r.min(M32)
    } else {
        r & M32
    }
}

/// Sum of products of the signed `bits`-wide elements of two dwords.
fn dot_s(a: u64, b: u64, bits: u32) -> i64 {
    let sh = 64 - bits;
    (0..32 / bits).map(|i| (((a >> (i * bits)) << sh) as i64 >> sh) * (((b >> (i * bits)) << sh) as i64 >> sh)).sum()
}
/// Unsigned counterpart of [`dot_s`].
fn dot_u(a: u64, b: u64, bits: u32) -> u64 {
    let m = (1u64 << bits) - 1;
    (0..32 / bits).map(|i| (a >> (i * bits) & m) * (b >> (i * bits) & m)).sum()
}

/// One MIX source: `cfg` bit 0 op_sel, bit 1 op_sel_hi, bit 2 neg, bit 3 abs (neg_hi).
/// op_sel_hi=0 reads the dword as f32; otherwise the f16 half chosen by op_sel.
#[inline]
fn mix_in(v: u64, cfg: u32, k: &Ctl) -> f32 {
    let x = if cfg & 2 == 0 {
        f(if k.den32_in { v } else { ftz(v & M32, 32) })
    } else {
        let half = if cfg & 1 != 0 { v >> 16 & M16 } else { v & M16 };
        h2f(if k.den64_in { half } else { ftz(half, 16) })
    };
    let x = if cfg & 8 != 0 { x.abs() } else { x };
    if cfg & 4 != 0 {
        -x
    } else {
        x
    }
}

/// The f32 fused multiply-add of a MIX instruction for one lane.
#[inline]
fn mix(x: &Lanes, l: usize) -> f32 {
    let k = &x.ctl;
    let (a, b, c) = (mix_in(x.s[0][l], x.aux, k), mix_in(x.s[1][l], x.aux >> 4, k), mix_in(x.s[2][l], x.aux >> 8, k));
    a.mul_add(b, c)
}

/// V_FMA_MIX_F32 / V_MAD_MIX_F32.
pub fn mix_f32(x: &mut Lanes) {
    for l in 0..x.n {
        x.d[l] = nan32(mix(x, l), &[]);
    }
}

/// V_FMA_MIXLO_F16 / V_FMA_MIXHI_F16: the f32 result converted to f16 (which half of the
/// destination is written is the destination's business).
pub fn mix_f16(x: &mut Lanes) {
    for l in 0..x.n {
        x.d[l] = f2h(mix(x, l), false) as u64;
    }
}
