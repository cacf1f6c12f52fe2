//! gfx950's (CDNA4) other new per-lane VALU operations, and GCN's quad SADs: V_PRNG_B32,
//! V_ASHR_PK_{I8,U8}_I32, V_CVT_PK_{F16,BF16}_F32, V_CVT_SR_{F16,BF16}_F32, V_CVT_F32_BF16,
//! V_QSAD_PK_U16_U8 and V_MQSAD_PK_U16_U8.
//!
//! Facts from the CDNA4 ISA guide's VOP1/VOP3 pseudo-code:
//! * V_PRNG_B32: `(in << 1) ^ (in[31] ? 197 : 0)`.
//! * V_ASHR_PK_I8_I32 / _U8_I32: `S0.i32 >> S2[4:0]` and `S1.i32 >> S2[4:0]` (arithmetic),
//!   each saturated to i8 [-128, 127] / u8 [0, 255], packed into D[15:0] (S0's in the low
//!   byte); VOP3 OPSEL[3] writes the high half instead (LLVM accepts `op_sel:[0,0,0,1]`).
//! * V_CVT_PK_F16_F32 / _BF16_F32: two f32 rounded to nearest even, S0's in the low half.
//! * V_CVT_SR_F16_F32 / _BF16_F32: S0 rounded stochastically with seed S1 into the half
//!   OPSEL[3] selects; the other half is kept. How the seed enters is not defined
//!   (`f32_to_f16_sr`): the model of [`minifloat::Round::Stochastic`] is assumed.
//! * V_CVT_F32_BF16: `{S0.b16, 16'0}`, exact.
//! * V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8: four (masked) byte SADs of the 32-bit windows
//!   S0[31+8i:8i] of the 64-bit S0 against S1, each added to S2's 16-bit field i and truncated
//!   to 16 bits; V_MSAD skips the bytes where S1's byte is 0.

use super::cvt_scale::bf16_rne;
use super::desc::{any, cvt, Desc};
use super::fp::{d2h, f2h};
use super::lanes::map;
use super::minifloat::pow2;
use super::ty::Ty::{self, B16, F32, U16, U32, U64};
use hipscope_isa::tables::Opcode;

const SR: &str = "stochastic rounding to f16/bf16: rounds away from zero when (discarded fraction scaled to 32 bits) + seed carries; the CDNA4 guide does not define f32_to_f16_sr";

/// `x` rounded stochastically to a float with `man` fraction bits and smallest normal
/// exponent `emin` (denormal quantum below it), as an f64 (exact; overflow left to the caller).
fn sr_round(x: f32, man: i32, emin: i32, seed: u32) -> f64 {
    let a = (x as f64).abs();
    let bits = (a.to_bits() >> 52) as i32 - 1023;
    let q = pow2(bits.max(emin) - man);
    let n = a / q;
    let fl = n.floor();
    let frac = ((n - fl) * 4294967296.0).floor() as u64;
    let r = (fl + ((frac + seed as u64) >> 32) as f64) * q;
    if x.is_sign_negative() {
        -r
    } else {
        r
    }
}

fn sr_f16(a: u64, seed: u64) -> u64 {
    let x = f32::from_bits(a as u32);
    if !x.is_finite() {
        return f2h(x, false) as u64;
    }
    d2h(sr_round(x, 10, -14, seed as u32))
}

fn sr_bf16(a: u64, seed: u64) -> u64 {
    let x = f32::from_bits(a as u32);
    if !x.is_finite() {
        return bf16_rne(x) as u64;
    }
    // The rounded value is a bf16 value (or overflows to infinity): exact in f32.
    bf16_rne(sr_round(x, 7, -126, seed as u32) as f32) as u64
}

/// Arithmetic shift right by `s[4:0]`, saturated to [lo, hi], as a byte.
fn ashr_sat(a: u64, s: u64, lo: i32, hi: i32) -> u64 {
    ((a as u32 as i32) >> (s & 31)).clamp(lo, hi) as u8 as u64
}

/// The four (masked) byte SADs of V_QSAD_PK_U16_U8 / V_MQSAD_PK_U16_U8.
fn qsad(a: u64, b: u64, c: u64, masked: bool) -> u64 {
    let mut out = 0;
    for i in 0..4 {
        let win = a >> (8 * i);
        let mut sum = c >> (16 * i) & 0xffff;
        for byte in 0..4 {
            let (x, y) = (win >> (8 * byte) & 0xff, b >> (8 * byte) & 0xff);
            if !(masked && y == 0) {
                sum += x.abs_diff(y);
            }
        }
        out |= (sum & 0xffff) << (16 * i);
    }
    out
}

map! {
    prng_b32 = |a, b, c, k| super::cvt_scale::prng(a as u32) as u64;
    ashr_pk_i8_i32 = |a, b, c, k| ashr_sat(a, c, -128, 127) | ashr_sat(b, c, -128, 127) << 8;
    ashr_pk_u8_i32 = |a, b, c, k| ashr_sat(a, c, 0, 255) | ashr_sat(b, c, 0, 255) << 8;
    cvt_pk_f16_f32 = |a, b, c, k| f2h(f32::from_bits(a as u32), false) as u64 | (f2h(f32::from_bits(b as u32), false) as u64) << 16;
    cvt_pk_bf16_f32 = |a, b, c, k| bf16_rne(f32::from_bits(a as u32)) as u64 | (bf16_rne(f32::from_bits(b as u32)) as u64) << 16;
    cvt_sr_f16_f32 = |a, b, c, k| sr_f16(a, b);
    cvt_sr_bf16_f32 = |a, b, c, k| sr_bf16(a, b);
    cvt_f32_bf16 = |a, b, c, k| (a & 0xffff) << 16;
    qsad_pk_u16_u8 = |a, b, c, k| qsad(a, b, c, false);
    mqsad_pk_u16_u8 = |a, b, c, k| qsad(a, b, c, true);
}

/// Describe one of this module's opcodes; `None` for others.
pub fn describe(op: Opcode) -> Option<Desc> {
    use Opcode::*;
    let n = Ty::None;
    Some(match op {
        V_PRNG_B32 => cvt(prng_b32, U32, U32),
        V_ASHR_PK_I8_I32 => any(ashr_pk_i8_i32, [U32, U32, U32], U16),
        V_ASHR_PK_U8_I32 => any(ashr_pk_u8_i32, [U32, U32, U32], U16),
        V_CVT_PK_F16_F32 => any(cvt_pk_f16_f32, [F32, F32, n], U32),
        V_CVT_PK_BF16_F32 => any(cvt_pk_bf16_f32, [F32, F32, n], U32),
        V_CVT_SR_F16_F32 => any(cvt_sr_f16_f32, [F32, U32, n], U16).approx(SR),
        V_CVT_SR_BF16_F32 => any(cvt_sr_bf16_f32, [F32, U32, n], U16).approx(SR),
        V_CVT_F32_BF16 => cvt(cvt_f32_bf16, B16, F32),
        V_QSAD_PK_U16_U8 => any(qsad_pk_u16_u8, [U64, U32, U64], U64),
        V_MQSAD_PK_U16_U8 => any(mqsad_pk_u16_u8, [U64, U32, U64], U64),
        _ => return None,
    })
}
