//! Floating-point arithmetic kernels for f32, f64 and f16 (ISA manuals: VOP1/VOP2/VOP3 opcode
//! pseudo-code; CDNA3/4 ISA §12.7-12.11, RDNA3 ISA §16.7-16.12).
//!
//! Inputs are already modified (abs/neg) and flushed per MODE; results are post-processed
//! (omod, clamp, output flush) by the caller. Arithmetic is IEEE round-to-nearest-even:
//! f32/f64 natively, f16 exactly in f64 (sums and products of f16 values are exact there) and
//! rounded once; fused f16 multiply-add uses exact integer arithmetic. NaN results follow
//! [`nan32`]/[`nan64`]/[`nan16`]: an input NaN propagates quieted, otherwise the hardware's
//! default NaN (0xFFC00000 / 0xFFF8000000000000 / 0xFE00).

use super::fp::*;
use super::lanes::{carry, map};

#[inline]
fn i32_(a: u64) -> i64 {
    a as u32 as i32 as i64
}

const Q32: u64 = 0x0040_0000;
const Q64: u64 = 0x0008_0000_0000_0000;
const Q16: u64 = 0x0200;

/// sin(2*pi*x) with the fraction of x taken exactly first ("full range input"), exact at
/// multiples of a quarter turn.
pub fn sin2pi(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { x } else { f64::NAN };
    }
    let r = x - x.round();
    let q = r * 4.0;
    if q == 0.0 || q.abs() == 2.0 {
        0.0
    } else if q.abs() == 1.0 {
        q
    } else {
        (r * std::f64::consts::TAU).sin()
    }
}

/// cos(2*pi*x), exact at multiples of a quarter turn.
pub fn cos2pi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let r = x - x.round();
    let q = (r * 4.0).abs();
    if q == 0.0 {
        1.0
    } else if q == 1.0 {
        0.0
    } else if q == 2.0 {
        -1.0
    } else {
        (r * std::f64::consts::TAU).cos()
    }
}

/// minimumNumber/maximumNumber of two values of a type read by `v`.
#[inline]
fn num2(a: u64, b: u64, max: bool, v: fn(u64) -> f64, quiet: u64) -> u64 {
    num_minmax(a, b, v(a), v(b), max, quiet)
}
#[inline]
fn num3(a: u64, b: u64, c: u64, max: bool, v: fn(u64) -> f64, quiet: u64) -> u64 {
    num2(num2(a, b, max, v, quiet), c, max, v, quiet)
}

#[inline]
fn is_zero32(a: u64) -> bool {
    a & 0x7fff_ffff == 0
}

/// Unfused multiply-add (V_MAD_F32/V_MAC_F32: the product is rounded to f32 before the add;
/// denormals are flushed).
#[inline]
fn mad32(a: u64, b: u64, c: u64) -> u64 {
    let p = ftz(bf(f(a) * f(b)), 32);
    nan32(f(p) + f(c), &[a, b, c])
}

#[inline]
fn mad16(a: u64, b: u64, c: u64) -> u64 {
    let p = ftz(d2h(h2d(a) * h2d(b)), 16);
    nan16(d2h(h2d(p) + h2d(c)) as u16, &[a, b, c])
}

#[inline]
fn h(r: f64, ins: &[u64]) -> u64 {
    nan16(d2h(r) as u16, ins)
}

fn frexp_mant32(a: u64) -> u64 {
    let x = f(a);
    if !x.is_finite() {
        return a;
    }
    bf(frexp64(x as f64).0 as f32)
}
fn frexp_exp32(a: u64) -> u64 {
    let x = f(a);
    if !x.is_finite() {
        return 0;
    }
    frexp64(x as f64).1 as u32 as u64
}
fn frexp_mant64(a: u64) -> u64 {
    if !d(a).is_finite() {
        return a;
    }
    bd(frexp64(d(a)).0)
}
fn frexp_exp64(a: u64) -> u64 {
    if !d(a).is_finite() {
        return 0;
    }
    frexp64(d(a)).1 as u32 as u64
}
fn frexp_mant16(a: u64) -> u64 {
    let x = h2d(a);
    if !x.is_finite() {
        return a;
    }
    d2h(frexp64(x).0)
}
fn frexp_exp16(a: u64) -> u64 {
    let x = h2d(a);
    if !x.is_finite() {
        return 0;
    }
    frexp64(x).1 as u16 as u64
}

map! {
    add_f32 = |a, b, c, k| nan32(f(a) + f(b), &[a, b]);
    sub_f32 = |a, b, c, k| nan32(f(a) - f(b), &[a, b]);
    subrev_f32 = |a, b, c, k| nan32(f(b) - f(a), &[b, a]);
    mul_f32 = |a, b, c, k| nan32(f(a) * f(b), &[a, b]);
    // DX9 rules (V_MUL_LEGACY_F32 / V_MUL_DX9_ZERO_F32): 0 * anything = +0.
    mul_legacy_f32 = |a, b, c, k| if is_zero32(a) || is_zero32(b) { 0 } else { nan32(f(a) * f(b), &[a, b]) };
    fma_f32 = |a, b, c, k| nan32(f(a).mul_add(f(b), f(c)), &[a, b, c]);
    fma_legacy_f32 = |a, b, c, k| if is_zero32(a) || is_zero32(b) { nan32(0.0 + f(c), &[c]) } else { nan32(f(a).mul_add(f(b), f(c)), &[a, b, c]) };
    mad_f32 = |a, b, c, k| mad32(a, b, c);
    mad_legacy_f32 = |a, b, c, k| if is_zero32(a) || is_zero32(b) { nan32(0.0 + f(c), &[c]) } else { mad32(a, b, c) };
    min_f32 = |a, b, c, k| min32(a, b, k.ieee);
    max_f32 = |a, b, c, k| max32(a, b, k.ieee);
    min3_f32 = |a, b, c, k| min32(min32(a, b, k.ieee), c, k.ieee);
    max3_f32 = |a, b, c, k| max32(max32(a, b, k.ieee), c, k.ieee);
    med3_f32 = |a, b, c, k| med3(a, b, c, |x, y| min32(x, y, k.ieee), |x, y| max32(x, y, k.ieee), |x| is_nan32(x as u32));
    maxmin_f32 = |a, b, c, k| min32(max32(a, b, k.ieee), c, k.ieee);
    minmax_f32 = |a, b, c, k| max32(min32(a, b, k.ieee), c, k.ieee);
    min_num_f32 = |a, b, c, k| num_minmax(a, b, f(a) as f64, f(b) as f64, false, Q32);
    max_num_f32 = |a, b, c, k| num_minmax(a, b, f(a) as f64, f(b) as f64, true, Q32);
    min3_num_f32 = |a, b, c, k| num3(a, b, c, false, |v| f(v) as f64, Q32);
    max3_num_f32 = |a, b, c, k| num3(a, b, c, true, |v| f(v) as f64, Q32);
    maxmin_num_f32 = |a, b, c, k| { let m = num2(a, b, true, |v| f(v) as f64, Q32); num2(m, c, false, |v| f(v) as f64, Q32) };
    minmax_num_f32 = |a, b, c, k| { let m = num2(a, b, false, |v| f(v) as f64, Q32); num2(m, c, true, |v| f(v) as f64, Q32) };
    med3_num_f32 = |a, b, c, k| med3(a, b, c, |x, y| num2(x, y, false, |v| f(v) as f64, Q32), |x, y| num2(x, y, true, |v| f(v) as f64, Q32), |x| is_nan32(x as u32));
    minimum3_f32 = |a, b, c, k| { let m = minimum_maximum(a, b, f(a) as f64, f(b) as f64, false, Q32); minimum_maximum(m, c, f(m) as f64, f(c) as f64, false, Q32) };
    maximum3_f32 = |a, b, c, k| { let m = minimum_maximum(a, b, f(a) as f64, f(b) as f64, true, Q32); minimum_maximum(m, c, f(m) as f64, f(c) as f64, true, Q32) };
    minimum_f32 = |a, b, c, k| minimum_maximum(a, b, f(a) as f64, f(b) as f64, false, Q32);
    maximum_f32 = |a, b, c, k| minimum_maximum(a, b, f(a) as f64, f(b) as f64, true, Q32);
    ldexp_f32 = |a, b, c, k| nan32(ldexp32(f(a), i32_(b)), &[a]);
    frexp_mant_f32 = |a, b, c, k| frexp_mant32(a);
    frexp_exp_i32_f32 = |a, b, c, k| frexp_exp32(a);
    fract_f32 = |a, b, c, k| nan32(fract32(f(a)), &[a]);
    trunc_f32 = |a, b, c, k| nan32(f(a).trunc(), &[a]);
    ceil_f32 = |a, b, c, k| nan32(f(a).ceil(), &[a]);
    floor_f32 = |a, b, c, k| nan32(f(a).floor(), &[a]);
    rndne_f32 = |a, b, c, k| nan32(rndne64(f(a) as f64) as f32, &[a]);
    exp_f32 = |a, b, c, k| nan32((f(a) as f64).exp2() as f32, &[a]);
    log_f32 = |a, b, c, k| nan32((f(a) as f64).log2() as f32, &[a]);
    rcp_f32 = |a, b, c, k| nan32(1.0 / f(a), &[a]);
    rsq_f32 = |a, b, c, k| nan32((1.0 / (f(a) as f64).sqrt()) as f32, &[a]);
    sqrt_f32 = |a, b, c, k| nan32(f(a).sqrt(), &[a]);
    sin_f32 = |a, b, c, k| nan32(sin2pi(f(a) as f64) as f32, &[a]);
    cos_f32 = |a, b, c, k| nan32(cos2pi(f(a) as f64) as f32, &[a]);
    div_fixup_f32 = |a, b, c, k| div_fixup32(a, b, c);
    cubeid_f32 = |a, b, c, k| bf(cube(f(a), f(b), f(c)).0);
    cubesc_f32 = |a, b, c, k| bf(cube(f(a), f(b), f(c)).1);
    cubetc_f32 = |a, b, c, k| bf(cube(f(a), f(b), f(c)).2);
    cubema_f32 = |a, b, c, k| bf(cube(f(a), f(b), f(c)).3);

    add_f64 = |a, b, c, k| nan64(d(a) + d(b), &[a, b]);
    mul_f64 = |a, b, c, k| nan64(d(a) * d(b), &[a, b]);
    fma_f64 = |a, b, c, k| nan64(d(a).mul_add(d(b), d(c)), &[a, b, c]);
    min_f64 = |a, b, c, k| min64(a, b, k.ieee);
    max_f64 = |a, b, c, k| max64(a, b, k.ieee);
    min_num_f64 = |a, b, c, k| num_minmax(a, b, d(a), d(b), false, Q64);
    max_num_f64 = |a, b, c, k| num_minmax(a, b, d(a), d(b), true, Q64);
    minimum_f64 = |a, b, c, k| minimum_maximum(a, b, d(a), d(b), false, Q64);
    maximum_f64 = |a, b, c, k| minimum_maximum(a, b, d(a), d(b), true, Q64);
    ldexp_f64 = |a, b, c, k| nan64(ldexp64(d(a), i32_(b)), &[a]);
    trig_preop_f64 = |a, b, c, k| super::trig::trig_preop(a, b);
    frexp_mant_f64 = |a, b, c, k| frexp_mant64(a);
    frexp_exp_i32_f64 = |a, b, c, k| frexp_exp64(a);
    fract_f64 = |a, b, c, k| nan64(fract64(d(a)), &[a]);
    trunc_f64 = |a, b, c, k| nan64(d(a).trunc(), &[a]);
    ceil_f64 = |a, b, c, k| nan64(d(a).ceil(), &[a]);
    floor_f64 = |a, b, c, k| nan64(d(a).floor(), &[a]);
    rndne_f64 = |a, b, c, k| nan64(rndne64(d(a)), &[a]);
    rcp_f64 = |a, b, c, k| nan64(1.0 / d(a), &[a]);
    rsq_f64 = |a, b, c, k| nan64(1.0 / d(a).sqrt(), &[a]);
    sqrt_f64 = |a, b, c, k| nan64(d(a).sqrt(), &[a]);
    div_fixup_f64 = |a, b, c, k| div_fixup64(a, b, c);

    add_f16 = |a, b, c, k| h(h2d(a) + h2d(b), &[a, b]);
    sub_f16 = |a, b, c, k| h(h2d(a) - h2d(b), &[a, b]);
    subrev_f16 = |a, b, c, k| h(h2d(b) - h2d(a), &[b, a]);
    mul_f16 = |a, b, c, k| h(h2d(a) * h2d(b), &[a, b]);
    fma_f16 = |a, b, c, k| fma16(a, b, c);
    mad_f16 = |a, b, c, k| mad16(a, b, c);
    min_f16 = |a, b, c, k| min16(a, b, k.ieee);
    max_f16 = |a, b, c, k| max16(a, b, k.ieee);
    min3_f16 = |a, b, c, k| min16(min16(a, b, k.ieee), c, k.ieee);
    max3_f16 = |a, b, c, k| max16(max16(a, b, k.ieee), c, k.ieee);
    med3_f16 = |a, b, c, k| med3(a, b, c, |x, y| min16(x, y, k.ieee), |x, y| max16(x, y, k.ieee), |x| is_nan16(x as u16));
    maxmin_f16 = |a, b, c, k| min16(max16(a, b, k.ieee), c, k.ieee);
    minmax_f16 = |a, b, c, k| max16(min16(a, b, k.ieee), c, k.ieee);
    min_num_f16 = |a, b, c, k| num_minmax(a, b, h2d(a), h2d(b), false, Q16);
    max_num_f16 = |a, b, c, k| num_minmax(a, b, h2d(a), h2d(b), true, Q16);
    min3_num_f16 = |a, b, c, k| num3(a, b, c, false, h2d, Q16);
    max3_num_f16 = |a, b, c, k| num3(a, b, c, true, h2d, Q16);
    maxmin_num_f16 = |a, b, c, k| { let m = num2(a, b, true, h2d, Q16); num2(m, c, false, h2d, Q16) };
    minmax_num_f16 = |a, b, c, k| { let m = num2(a, b, false, h2d, Q16); num2(m, c, true, h2d, Q16) };
    med3_num_f16 = |a, b, c, k| med3(a, b, c, |x, y| num2(x, y, false, h2d, Q16), |x, y| num2(x, y, true, h2d, Q16), |x| is_nan16(x as u16));
    minimum_f16 = |a, b, c, k| minimum_maximum(a, b, h2d(a), h2d(b), false, Q16);
    maximum_f16 = |a, b, c, k| minimum_maximum(a, b, h2d(a), h2d(b), true, Q16);
    // S1 is a signed 16-bit exponent.
    ldexp_f16 = |a, b, c, k| h(ldexp64(h2d(a), b as u16 as i16 as i64), &[a]);
    frexp_mant_f16 = |a, b, c, k| frexp_mant16(a);
    frexp_exp_i16_f16 = |a, b, c, k| frexp_exp16(a);
    fract_f16 = |a, b, c, k| h(fract16(h2d(a)), &[a]);
    trunc_f16 = |a, b, c, k| h(h2d(a).trunc(), &[a]);
    ceil_f16 = |a, b, c, k| h(h2d(a).ceil(), &[a]);
    floor_f16 = |a, b, c, k| h(h2d(a).floor(), &[a]);
    rndne_f16 = |a, b, c, k| h(rndne64(h2d(a)), &[a]);
    exp_f16 = |a, b, c, k| h(h2d(a).exp2(), &[a]);
    log_f16 = |a, b, c, k| h(h2d(a).log2(), &[a]);
    rcp_f16 = |a, b, c, k| h(1.0 / h2d(a), &[a]);
    rsq_f16 = |a, b, c, k| h(1.0 / h2d(a).sqrt(), &[a]);
    sqrt_f16 = |a, b, c, k| h(h2d(a).sqrt(), &[a]);
    sin_f16 = |a, b, c, k| h(sin2pi(h2d(a)), &[a]);
    cos_f16 = |a, b, c, k| h(cos2pi(h2d(a)), &[a]);
    div_fixup_f16 = |a, b, c, k| div_fixup16(a, b, c);
}

carry! {
    div_scale_f32 = |a, b, c, ci, k| div_scale32(a, b, c);
    div_scale_f64 = |a, b, c, ci, k| div_scale64(a, b, c);
    // V_DIV_FMAS: fma, post-scaled where VCC is set. The manuals' pseudo-code multiplies by
    // 2^32 (f32) / 2^64 (f64), which cannot undo V_DIV_SCALE's 2^64 / 2^128 pre-scaling in
    // either direction; the scale is taken as 2^+-64 (2^+-128), up when the quotient estimate
    // S2 is large (biased exponent above the bias), down otherwise, which makes the division
    // macro return the quotient. See `div_fmas_scale`.
    div_fmas_f32 = |a, b, c, ci, k| (div_fmas32(a, b, c, ci), false);
    div_fmas_f64 = |a, b, c, ci, k| {
        let r = d(a).mul_add(d(b), d(c));
        let s = if exp64(c) > 1023 { 128 } else { -128 };
        (nan64(if ci { ldexp64(r, s) } else { r }, &[a, b, c]), false)
    };
}

fn fract16(x: f64) -> f64 {
    let r = x - x.floor();
    if r.is_nan() {
        r
    } else {
        r.min(h2d(0x3bff))
    }
}

fn is_denorm32(x: f32) -> bool {
    x != 0.0 && x.is_subnormal()
}

/// V_DIV_FMAS_F32 of one lane (`ci`: its VCC bit), as the kernel above says.
#[inline]
pub(super) fn div_fmas32(a: u64, b: u64, c: u64, ci: bool) -> u64 {
    let r = f(a).mul_add(f(b), f(c));
    let s = if exp32(c) > 127 { 64 } else { -64 };
    nan32(if ci { ldexp32(r, s) } else { r }, &[a, b, c])
}

/// V_DIV_SCALE_F32 (VOP3 pseudo-code): S1 = denominator, S2 = numerator, S0 = the value to
/// scale (one of them). Result is S0 unless a scaling rule applies; the flag asks
/// V_DIV_FMAS_F32 to post-scale.
pub(super) fn div_scale32(s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (x0, x1, x2) = (f(s0), f(s1), f(s2));
    let up = |x: f32| bf(ldexp32(x, 64));
    if x2 == 0.0 || x1 == 0.0 {
        return (NAN32 as u64, false);
    }
    let (e1, e2) = (exp32(s1), exp32(s2));
    let rcp_denorm = (1.0 / x1 as f64).is_subnormal();
    let q_denorm = is_denorm32(x2 / x1);
    if e2 - e1 >= 96 {
        (if x0 == x1 { up(x0) } else { s0 }, true)
    } else if is_denorm32(x1) {
        (up(x0), false)
    } else if rcp_denorm && q_denorm {
        (if x0 == x1 { up(x0) } else { s0 }, true)
    } else if rcp_denorm {
        (bf(ldexp32(x0, -64)), false)
    } else if q_denorm {
        (if x0 == x2 { up(x0) } else { s0 }, true)
    } else if e2 <= 23 {
        (up(x0), false)
    } else {
        (s0, false)
    }
}

/// V_DIV_SCALE_F64: as [`div_scale32`] with thresholds 768 / 53 and scale 2^128.
fn div_scale64(s0: u64, s1: u64, s2: u64) -> (u64, bool) {
    let (x0, x1, x2) = (d(s0), d(s1), d(s2));
    let up = |x: f64| bd(ldexp64(x, 128));
    if x2 == 0.0 || x1 == 0.0 {
        return (NAN64, false);
    }
    let (e1, e2) = (exp64(s1), exp64(s2));
    let rcp_denorm = (1.0 / x1).is_subnormal();
    let q_denorm = (x2 / x1).is_subnormal();
    if e2 - e1 >= 768 {
        (if x0 == x1 { up(x0) } else { s0 }, true)
    } else if x1.is_subnormal() {
        (up(x0), false)
    } else if rcp_denorm && q_denorm {
        (if x0 == x1 { up(x0) } else { s0 }, true)
    } else if rcp_denorm {
        (bd(ldexp64(x0, -128)), false)
    } else if q_denorm {
        (if x0 == x2 { up(x0) } else { s0 }, true)
    } else if e2 <= 53 {
        (up(x0), false)
    } else {
        (s0, false)
    }
}

/// Shared V_DIV_FIXUP logic on values widened to f64; `None` when the quotient passes.
/// Order (pseudo-code): NaN numerator, NaN denominator, 0/0 and inf/inf (default NaN),
/// x/0 and inf/y (infinity), x/inf and 0/y (zero), then the underflow check.
enum Fixup {
    QuietNum,
    QuietDen,
    Nan,
    Inf,
    Zero,
}

fn fixup_case(den: f64, num: f64) -> Option<Fixup> {
    Some(if num.is_nan() {
        Fixup::QuietNum
    } else if den.is_nan() {
        Fixup::QuietDen
    } else if (den == 0.0 && num == 0.0) || (den.is_infinite() && num.is_infinite()) {
        Fixup::Nan
    } else if den == 0.0 || num.is_infinite() {
        Fixup::Inf
    } else if den.is_infinite() || num == 0.0 {
        Fixup::Zero
    } else {
        return None;
    })
}

/// V_DIV_FIXUP_F32: the exponent-difference underflow case returns a signed zero (the ISA
/// names the value UNDERFLOW_F32 without defining it; zero is the correctly rounded quotient).
pub(super) fn div_fixup32(q: u64, den: u64, num: u64) -> u64 {
    let neg = (den ^ num) >> 31 & 1 != 0;
    let s = if neg { 0x8000_0000 } else { 0 };
    match fixup_case(f(den) as f64, f(num) as f64) {
        Some(Fixup::QuietNum) => (num | Q32) & 0xffff_ffff,
        Some(Fixup::QuietDen) => (den | Q32) & 0xffff_ffff,
        Some(Fixup::Nan) => NAN32 as u64,
        Some(Fixup::Inf) => s | 0x7f80_0000,
        Some(Fixup::Zero) => s,
        None if exp32(num) - exp32(den) < -150 => s,
        None => s | (q & 0x7fff_ffff),
    }
}

fn div_fixup64(q: u64, den: u64, num: u64) -> u64 {
    let s = (den ^ num) & 0x8000_0000_0000_0000;
    match fixup_case(d(den), d(num)) {
        Some(Fixup::QuietNum) => num | Q64,
        Some(Fixup::QuietDen) => den | Q64,
        Some(Fixup::Nan) => NAN64,
        Some(Fixup::Inf) => s | 0x7ff0_0000_0000_0000,
        Some(Fixup::Zero) => s,
        None if exp64(num) - exp64(den) < -1075 => s,
        None => s | (q & 0x7fff_ffff_ffff_ffff),
    }
}

fn div_fixup16(q: u64, den: u64, num: u64) -> u64 {
    let s = (den ^ num) & 0x8000;
    match fixup_case(h2d(den), h2d(num)) {
        Some(Fixup::QuietNum) => (num | Q16) & 0xffff,
        Some(Fixup::QuietDen) => (den | Q16) & 0xffff,
        Some(Fixup::Nan) => NAN16 as u64,
        Some(Fixup::Inf) => s | 0x7c00,
        Some(Fixup::Zero) => s,
        None => s | (q & 0x7fff),
    }
}

/// V_CUBEID/SC/TC/MA (VOP3 pseudo-code): face id, S and T coordinates, 2 x major axis.
fn cube(x: f32, y: f32, z: f32) -> (f32, f32, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    if az >= ax && az >= ay {
        (if z < 0.0 { 5.0 } else { 4.0 }, if z < 0.0 { -x } else { x }, -y, 2.0 * z)
    } else if ay >= ax {
        (if y < 0.0 { 3.0 } else { 2.0 }, x, if y < 0.0 { -z } else { z }, 2.0 * y)
    } else {
        (if x < 0.0 { 1.0 } else { 0.0 }, if x < 0.0 { z } else { -z }, -y, 2.0 * x)
    }
}
