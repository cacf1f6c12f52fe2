//! Conversion kernels (ISA manuals, VOP1/VOP3 V_CVT_* pseudo-code and notes).
//!
//! Float to integer conversions truncate, saturate out-of-range values (infinities included)
//! and turn NaN into 0. Integer to float and narrowing float conversions round to nearest even.
//! NaNs keep their sign and high payload bits and become quiet.

use super::fp::*;
use super::lanes::map;

const M32: u64 = 0xffff_ffff;

/// f64 to f32 with one rounding; NaN quieted, payload kept.
fn d2f(a: u64) -> u64 {
    if is_nan64(a) {
        return (a >> 32 & 0x8000_0000) | 0x7fc0_0000 | (a >> 29 & 0x003f_ffff);
    }
    bf(d(a) as f32)
}

/// f32 to f64 (exact); NaN quieted, payload kept.
fn f2d(a: u64) -> u64 {
    if is_nan32(a as u32) {
        return (a & 0x8000_0000) << 32 | 0x7ff8_0000_0000_0000 | (a & 0x003f_ffff) << 29;
    }
    bd(f(a) as f64)
}

/// f16 to f32 (exact); NaN quieted, payload kept.
fn h2f_bits(a: u64) -> u64 {
    if is_nan16(a as u16) {
        return (a & 0x8000) << 16 | 0x7fc0_0000 | (a & 0x1ff) << 13;
    }
    bf(h2d(a) as f32)
}

/// Normalised conversions f32/f16 -> snorm16/unorm16: clamp to [-1, 1] / [0, 1], scale by
/// 32767 / 65535, round to nearest even; NaN gives 0. (The ISA names f32_to_snorm without
/// spelling out the rounding.)
fn snorm(x: f64) -> u64 {
    if x.is_nan() {
        return 0;
    }
    (rndne64(x.clamp(-1.0, 1.0) * 32767.0) as i16) as u16 as u64
}
fn unorm(x: f64) -> u64 {
    if x.is_nan() {
        return 0;
    }
    rndne64(x.clamp(0.0, 1.0) * 65535.0) as u16 as u64
}

/// A signed 32-bit value saturated to 16 bits.
fn sat_i16(a: u64) -> u64 {
    (a as u32 as i32).clamp(i16::MIN as i32, i16::MAX as i32) as u16 as u64
}

/// V_CVT_OFF_F32_I4 table: S0[3:0] as a signed 4-bit value / 16.
fn off_i4(a: u64) -> u64 {
    let v = ((a as u8) << 4) as i8 >> 4;
    bf(v as f32 / 16.0)
}

map! {
    cvt_f32_i32 = |a, b, c, k| bf(a as u32 as i32 as f32);
    cvt_f32_u32 = |a, b, c, k| bf(a as u32 as f32);
    cvt_i32_f32 = |a, b, c, k| to_i32(f(a) as f64);
    cvt_u32_f32 = |a, b, c, k| to_u32(f(a) as f64);
    cvt_i32_f64 = |a, b, c, k| to_i32(d(a));
    cvt_u32_f64 = |a, b, c, k| to_u32(d(a));
    cvt_f64_i32 = |a, b, c, k| bd(a as u32 as i32 as f64);
    cvt_f64_u32 = |a, b, c, k| bd(a as u32 as f64);
    cvt_f32_f64 = |a, b, c, k| d2f(a);
    cvt_f64_f32 = |a, b, c, k| f2d(a);
    cvt_f16_f32 = |a, b, c, k| f2h(f(a), false) as u64;
    cvt_f32_f16 = |a, b, c, k| h2f_bits(a);
    cvt_f16_u16 = |a, b, c, k| d2h(a as u16 as f64);
    cvt_f16_i16 = |a, b, c, k| d2h(a as u16 as i16 as f64);
    cvt_u16_f16 = |a, b, c, k| h2d(a) as u16 as u64;
    cvt_i16_f16 = |a, b, c, k| h2d(a) as i16 as u16 as u64;
    // V_CVT_RPI_I32_F32 / V_CVT_NEAREST_I32_F32: f32_to_i32(floor(S0 + 0.5)), the add in f32.
    cvt_rpi_i32_f32 = |a, b, c, k| to_i32((f(a) + 0.5).floor() as f64);
    // V_CVT_FLR_I32_F32 / V_CVT_FLOOR_I32_F32.
    cvt_flr_i32_f32 = |a, b, c, k| to_i32(f(a).floor() as f64);
    cvt_off_f32_i4 = |a, b, c, k| off_i4(a);
    cvt_f32_ubyte0 = |a, b, c, k| bf((a & 0xff) as f32);
    cvt_f32_ubyte1 = |a, b, c, k| bf((a >> 8 & 0xff) as f32);
    cvt_f32_ubyte2 = |a, b, c, k| bf((a >> 16 & 0xff) as f32);
    cvt_f32_ubyte3 = |a, b, c, k| bf((a >> 24 & 0xff) as f32);
    // Round toward zero regardless of MODE (V_CVT_PKRTZ_F16_F32 pseudo-code).
    cvt_pkrtz_f16_f32 = |a, b, c, k| f2h(f(a), true) as u64 | (f2h(f(b), true) as u64) << 16;
    cvt_pknorm_i16_f32 = |a, b, c, k| snorm(f(a) as f64) | snorm(f(b) as f64) << 16;
    cvt_pknorm_u16_f32 = |a, b, c, k| unorm(f(a) as f64) | unorm(f(b) as f64) << 16;
    cvt_pknorm_i16_f16 = |a, b, c, k| snorm(h2d(a)) | snorm(h2d(b)) << 16;
    cvt_pknorm_u16_f16 = |a, b, c, k| unorm(h2d(a)) | unorm(h2d(b)) << 16;
    cvt_norm_i16_f16 = |a, b, c, k| snorm(h2d(a));
    cvt_norm_u16_f16 = |a, b, c, k| unorm(h2d(a));
    // V_CVT_PK_U16_U32 / V_CVT_PK_I16_I32: both sources saturated to 16 bits (u32_to_u16 /
    // i32_to_i16), S0 in the low half.
    cvt_pk_u16_u32 = |a, b, c, k| (a & M32).min(0xffff) | (b & M32).min(0xffff) << 16;
    cvt_pk_i16_i32 = |a, b, c, k| sat_i16(a) | sat_i16(b) << 16;
    // V_CVT_PK_I16_F32 / V_CVT_PK_U16_F32 (GFX11+): f32_to_i16 / f32_to_u16 of each source
    // (truncating, saturating, NaN -> 0 like the 32-bit conversions).
    cvt_pk_i16_f32 = |a, b, c, k| (f(a) as i16 as u16 as u64) | (f(b) as i16 as u16 as u64) << 16;
    cvt_pk_u16_f32 = |a, b, c, k| (f(a) as u16 as u64) | (f(b) as u16 as u64) << 16;
    // V_CVT_PK_U8_F32: f32_to_u8(S0) into byte S1[1:0] of S2.
    cvt_pk_u8_f32 = |a, b, c, k| {
        let sh = (b & 3) * 8;
        (c & !(0xff << sh) & M32) | ((f(a) as f64) as u8 as u64) << sh
    };
}
