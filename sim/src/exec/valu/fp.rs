//! Floating-point helpers shared by the VALU kernels: bit views, half precision, denormal
//! flushing, NaN rules, IEEE class, the MODE register view.
//!
//! Hardware facts (AMD ISA manuals, "Denormalized and Rounding Modes", "Output Operands",
//! VOP1/VOP2/VOP3 opcode pseudo-code):
//! * MODE[3:0] round modes, MODE[7:4] denormal modes ([5:4] f32, [7:6] f64 and f16; value bit 0
//!   = allow input denormals, bit 1 = allow output denormals), MODE[8] DX10 clamp, MODE[9] IEEE.
//! * The hardware's default NaN (invalid operations, 0/0 in V_DIV_FIXUP) is 0xFFC00000 (f32),
//!   0xFE00 (f16), 0xFFF8000000000000 (f64).
//!
//! Only round-to-nearest-even is modelled; the MODE round-mode bits are ignored.

/// What an instruction needs of the MODE register and its own clamp bit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Ctl {
    /// MODE.IEEE: signalling-NaN rules of min/max; output modifiers are ignored.
    pub ieee: bool,
    /// MODE.DX10_CLAMP: the clamp modifier turns NaN into 0.
    pub dx10: bool,
    /// The instruction's clamp bit (integer ops saturate; float results are clamped later).
    pub clamp: bool,
    /// f32 input / output denormals are kept (else flushed to zero).
    pub den32_in: bool,
    pub den32_out: bool,
    /// f64 and f16 input / output denormals are kept.
    pub den64_in: bool,
    pub den64_out: bool,
    /// MODE.FP16_OVFL (bit 23): overflowing conversions saturate instead of producing infinity
    /// (RDNA3/RDNA4 ISA, MODE register); read by the FP8/BF8 conversions (`cvt8`).
    pub ovfl: bool,
}

impl Ctl {
    pub fn from_mode(mode: u32, clamp: bool) -> Ctl {
        Ctl {
            ieee: mode >> 9 & 1 != 0,
            dx10: mode >> 8 & 1 != 0,
            clamp,
            den32_in: mode >> 4 & 1 != 0,
            den32_out: mode >> 5 & 1 != 0,
            den64_in: mode >> 6 & 1 != 0,
            den64_out: mode >> 7 & 1 != 0,
            ovfl: mode >> 23 & 1 != 0,
        }
    }
}

pub const NAN32: u32 = 0xffc0_0000;
pub const NAN16: u16 = 0xfe00;
pub const NAN64: u64 = 0xfff8_0000_0000_0000;

#[inline]
pub fn f(a: u64) -> f32 {
    f32::from_bits(a as u32)
}
#[inline]
pub fn d(a: u64) -> f64 {
    f64::from_bits(a)
}
#[inline]
pub fn bf(x: f32) -> u64 {
    x.to_bits() as u64
}
#[inline]
pub fn bd(x: f64) -> u64 {
    x.to_bits()
}

// ---- NaN handling ------------------------------------------------------------------------

#[inline]
pub fn is_nan32(a: u32) -> bool {
    a & 0x7fff_ffff > 0x7f80_0000
}
#[inline]
pub fn is_nan64(a: u64) -> bool {
    a & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
}
#[inline]
pub fn is_nan16(a: u16) -> bool {
    a & 0x7fff > 0x7c00
}
#[inline]
pub fn is_snan32(a: u32) -> bool {
    is_nan32(a) && a & 0x0040_0000 == 0
}
#[inline]
pub fn is_snan64(a: u64) -> bool {
    is_nan64(a) && a & 0x0008_0000_0000_0000 == 0
}
#[inline]
pub fn is_snan16(a: u16) -> bool {
    is_nan16(a) && a & 0x0200 == 0
}

/// Result of an f32 arithmetic operation with deterministic NaNs: a NaN input propagates
/// (quieted, first operand first); a NaN made from non-NaN inputs is the default NaN.
#[inline]
pub fn nan32(r: f32, ins: &[u64]) -> u64 {
    if !r.is_nan() {
        return bf(r);
    }
    ins.iter().find(|&&a| is_nan32(a as u32)).map_or(NAN32 as u64, |&a| (a as u32 | 0x0040_0000) as u64)
}

/// f64 counterpart of [`nan32`].
#[inline]
pub fn nan64(r: f64, ins: &[u64]) -> u64 {
    if !r.is_nan() {
        return bd(r);
    }
    ins.iter().find(|&&a| is_nan64(a)).map_or(NAN64, |&a| a | 0x0008_0000_0000_0000)
}

/// f16 counterpart: `r` is already rounded to half precision.
#[inline]
pub fn nan16(r: u16, ins: &[u64]) -> u64 {
    if !is_nan16(r) {
        return r as u64;
    }
    ins.iter().find(|&&a| is_nan16(a as u16)).map_or(NAN16 as u64, |&a| (a as u16 | 0x0200) as u64)
}

// ---- denormals ---------------------------------------------------------------------------

/// Flush a denormal to a zero of the same sign (`bits` = 16, 32 or 64).
#[inline]
pub fn ftz(a: u64, bits: u32) -> u64 {
    match bits {
        16 if a & 0x7c00 == 0 => a & 0x8000,
        32 if a & 0x7f80_0000 == 0 => a & 0x8000_0000,
        64 if a & 0x7ff0_0000_0000_0000 == 0 => a & 0x8000_0000_0000_0000,
        _ => a,
    }
}

/// Flush denormal elements of every value: `bits` is the element width, `parts` the number of
/// elements per value (2 for packed pairs). Written as plain loops per width so that they
/// vectorise.
pub fn ftz_all(v: &mut [u64], bits: u32, parts: u32) {
    match (bits, parts) {
        (32, 1) => v.iter_mut().for_each(|x| *x = if *x & 0x7f80_0000 == 0 { *x & 0x8000_0000 } else { *x }),
        (64, _) => v.iter_mut().for_each(|x| *x = if *x & 0x7ff0_0000_0000_0000 == 0 { *x & 1 << 63 } else { *x }),
        (16, 1) => v.iter_mut().for_each(|x| *x = if *x & 0x7c00 == 0 { *x & 0x8000 } else { *x }),
        _ => {
            let mask = (1u64 << bits) - 1;
            v.iter_mut().for_each(|x| {
                let mut r = 0;
                for p in 0..parts {
                    r |= ftz(*x >> (p * bits) & mask, bits) << (p * bits);
                }
                *x = r;
            })
        }
    }
}

// ---- half precision ----------------------------------------------------------------------

/// f16 bits to f64 (exact).
pub fn h2d(h: u64) -> f64 {
    let h = h as u16;
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    match e {
        0 => sign * m * f64::powi(2.0, -24),
        0x1f if m == 0.0 => sign * f64::INFINITY,
        0x1f => f64::from_bits(((h as u64 & 0x8000) << 48) | 0x7ff8_0000_0000_0000 | ((h as u64 & 0x1ff) << 42)),
        _ => sign * (1024.0 + m) * f64::powi(2.0, e - 25),
    }
}

/// f16 bits to f32 (exact).
pub fn h2f(h: u64) -> f32 {
    h2d(h) as f32
}

/// Round `m * 2^e` (with `sign`) to half precision, to nearest even or toward zero.
pub fn round_f16(sign: bool, m: u128, e: i32, rtz: bool) -> u16 {
    let s = if sign { 0x8000u16 } else { 0 };
    if m == 0 {
        return s;
    }
    let p = 127 - m.leading_zeros() as i32; // position of the leading one
    let exp = p + e; // unbiased exponent of the value
                     // Normal results keep 11 significant bits; denormals are multiples of 2^-24.
    let shift = if exp >= -14 { p - 10 } else { -24 - e };
    let keep = round_shift(m, shift, rtz);
    let bits = if exp >= -14 {
        // `keep` holds the implicit one at bit 10 (or 11 after rounding up): adding it to the
        // biased exponent minus one yields the right encoding.
        ((exp + 14) as u128) * 1024 + keep
    } else {
        keep
    };
    if bits >= 0x7c00 {
        return s | if rtz { 0x7bff } else { 0x7c00 };
    }
    s | bits as u16
}

/// `m >> shift` rounded (nearest-even, or toward zero); negative shifts multiply.
fn round_shift(m: u128, shift: i32, rtz: bool) -> u128 {
    if shift <= 0 {
        return m << (-shift).min(127);
    }
    if shift >= 128 {
        return 0;
    }
    let keep = m >> shift;
    let rem = m & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if !rtz && (rem > half || (rem == half && keep & 1 == 1)) {
        keep + 1
    } else {
        keep
    }
}

/// f64 to f16 with one rounding (nearest even, or toward zero for `rtz`). NaNs are quieted and
/// keep their high payload bits.
pub fn d2h_mode(x: f64, rtz: bool) -> u16 {
    let b = x.to_bits();
    let sign = b >> 63 != 0;
    let e = (b >> 52 & 0x7ff) as i32;
    let man = b & 0x000f_ffff_ffff_ffff;
    if e == 0x7ff {
        let s = if sign { 0x8000 } else { 0 };
        return if man != 0 { s | 0x7e00 | (man >> 42) as u16 & 0x1ff } else { s | 0x7c00 };
    }
    let (m, exp) = if e == 0 { (man, -1074) } else { (man | 1 << 52, e - 1075) };
    round_f16(sign, m as u128, exp, rtz)
}

#[inline]
pub fn d2h(x: f64) -> u64 {
    d2h_mode(x, false) as u64
}

/// f32 to f16 (exact widening to f64 first, then one rounding).
#[inline]
pub fn f2h(x: f32, rtz: bool) -> u16 {
    d2h_mode(x as f64, rtz)
}

/// A finite f16 as `(sign, m, e)` with value `m * 2^e`.
fn h_parts(h: u16) -> (bool, u128, i32) {
    let e = (h >> 10 & 0x1f) as i32;
    let m = (h & 0x3ff) as u128;
    if e == 0 {
        (h & 0x8000 != 0, m, -24)
    } else {
        (h & 0x8000 != 0, m | 0x400, e - 25)
    }
}

/// Fused multiply-add in half precision, rounded once (exact integer arithmetic: every
/// finite f16 is a multiple of 2^-24, so the exact product and sum fit in 128 bits).
pub fn fma16(a: u64, b: u64, c: u64) -> u64 {
    let (a16, b16, c16) = (a as u16, b as u16, c as u16);
    if [a16, b16, c16].iter().any(|&x| x & 0x7c00 == 0x7c00) {
        return nan16(d2h(h2d(a) * h2d(b) + h2d(c)) as u16, &[a, b, c]);
    }
    let (sa, ma, ea) = h_parts(a16);
    let (sb, mb, eb) = h_parts(b16);
    let (sc, mc, ec) = h_parts(c16);
    let (sp, mp, ep) = (sa ^ sb, ma * mb, ea + eb);
    let emin = ep.min(ec);
    let p = (mp << (ep - emin)) as i128;
    let q = (mc << (ec - emin)) as i128;
    let sum = if sp { -p } else { p } + if sc { -q } else { q };
    if sum == 0 {
        // Exact zero: -0 only when both addends are -0 (round to nearest); two nonzero
        // addends that cancel have opposite signs.
        return if sp && sc { 0x8000 } else { 0 };
    }
    round_f16(sum < 0, sum.unsigned_abs(), emin, false) as u64
}

// ---- class, min/max ------------------------------------------------------------------------

/// IEEE class index of V_CMP_CLASS (bit of the class mask): 0 sNaN, 1 qNaN, 2 -inf, 3 -normal,
/// 4 -denormal, 5 -0, 6 +0, 7 +denormal, 8 +normal, 9 +inf. `bits` = 16, 32 or 64.
pub fn class_index(a: u64, bits: u32) -> u32 {
    let (mant_bits, exp_bits) = match bits {
        16 => (10, 5),
        32 => (23, 8),
        _ => (52, 11),
    };
    let sign = a >> (bits - 1) & 1 != 0;
    let exp = a >> mant_bits & ((1 << exp_bits) - 1);
    let man = a & ((1u64 << mant_bits) - 1);
    let quiet = 1u64 << (mant_bits - 1);
    let max = (1 << exp_bits) - 1;
    if exp == max && man != 0 {
        return if man & quiet != 0 { 1 } else { 0 };
    }
    let k = if exp == max {
        0
    } else if exp > 0 {
        1
    } else if man != 0 {
        2
    } else {
        3
    };
    if sign {
        2 + k
    } else {
        9 - k
    }
}

/// NaN handling shared by V_MIN_*/V_MAX_* (VOP2 pseudo-code): with IEEE mode a signalling NaN
/// operand is returned quieted; otherwise a NaN operand yields the other operand.
/// `Some(result)` when NaNs decide, `None` to compare normally.
#[inline]
fn minmax_nan(a: u64, b: u64, ieee: bool, is_nan: fn(u64) -> bool, is_snan: fn(u64) -> bool, quiet: u64) -> Option<u64> {
    if ieee && is_snan(a) {
        Some(a | quiet)
    } else if ieee && is_snan(b) {
        Some(b | quiet)
    } else if is_nan(a) {
        Some(b)
    } else if is_nan(b) {
        Some(a)
    } else {
        None
    }
}

/// V_MIN_F32/F16/F64 on floats widened to f64 (`x`, `y`): -0 is below +0; ties keep S1.
#[inline]
fn pick_min(a: u64, b: u64, x: f64, y: f64) -> u64 {
    if x == 0.0 && y == 0.0 {
        if x.is_sign_negative() {
            a
        } else {
            b
        }
    } else if x < y {
        a
    } else {
        b
    }
}

/// V_MAX: +0 above -0; IEEE mode keeps S0 on ties (`>=`), non-IEEE keeps S1 (`>`).
#[inline]
fn pick_max(a: u64, b: u64, x: f64, y: f64, ieee: bool) -> u64 {
    if x == 0.0 && y == 0.0 {
        if x.is_sign_positive() {
            a
        } else {
            b
        }
    } else if x > y || (ieee && x == y) {
        a
    } else {
        b
    }
}

pub fn min32(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, |v| is_nan32(v as u32), |v| is_snan32(v as u32), 0x0040_0000).unwrap_or_else(|| pick_min(a, b, f(a) as f64, f(b) as f64))
}
pub fn max32(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, |v| is_nan32(v as u32), |v| is_snan32(v as u32), 0x0040_0000).unwrap_or_else(|| pick_max(a, b, f(a) as f64, f(b) as f64, ieee))
}
pub fn min64(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, is_nan64, is_snan64, 0x0008_0000_0000_0000).unwrap_or_else(|| pick_min(a, b, d(a), d(b)))
}
pub fn max64(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, is_nan64, is_snan64, 0x0008_0000_0000_0000).unwrap_or_else(|| pick_max(a, b, d(a), d(b), ieee))
}
pub fn min16(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, |v| is_nan16(v as u16), |v| is_snan16(v as u16), 0x0200).unwrap_or_else(|| pick_min(a, b, h2d(a), h2d(b)))
}
pub fn max16(a: u64, b: u64, ieee: bool) -> u64 {
    minmax_nan(a, b, ieee, |v| is_nan16(v as u16), |v| is_snan16(v as u16), 0x0200).unwrap_or_else(|| pick_max(a, b, h2d(a), h2d(b), ieee))
}

/// GFX12 V_MIN_NUM/V_MAX_NUM (IEEE 754-2019 minimumNumber/maximumNumber): a NaN operand
/// yields the other operand (quieted NaN if both are NaN); -0 orders below +0.
pub fn num_minmax(a: u64, b: u64, x: f64, y: f64, max: bool, quiet: u64) -> u64 {
    match (x.is_nan(), y.is_nan()) {
        (true, true) => a | quiet,
        (true, false) => b,
        (false, true) => a,
        _ => ieee_pick(a, b, x, y, max),
    }
}

/// GFX12 V_MINIMUM/V_MAXIMUM (IEEE 754-2019 minimum/maximum): NaN propagates (quieted).
pub fn minimum_maximum(a: u64, b: u64, x: f64, y: f64, max: bool, quiet: u64) -> u64 {
    if x.is_nan() {
        a | quiet
    } else if y.is_nan() {
        b | quiet
    } else {
        ieee_pick(a, b, x, y, max)
    }
}

fn ieee_pick(a: u64, b: u64, x: f64, y: f64, max: bool) -> u64 {
    // Total order on non-NaN values with -0 below +0.
    let zeros = x == 0.0 && y == 0.0;
    let less = x < y || (zeros && x.is_sign_negative() && y.is_sign_positive());
    let greater = x > y || (zeros && x.is_sign_positive() && y.is_sign_negative());
    match (max, less, greater) {
        (true, true, _) | (false, _, true) => b,
        _ => a,
    }
}

/// Median of three (V_MED3 pseudo-code): with a NaN operand the result is min3; otherwise the
/// operand that is not the maximum, compared with max().
pub fn med3(a: u64, b: u64, c: u64, min: impl Fn(u64, u64) -> u64, max: impl Fn(u64, u64) -> u64, nan: impl Fn(u64) -> bool) -> u64 {
    if nan(a) || nan(b) || nan(c) {
        return min(min(a, b), c);
    }
    let m = max(max(a, b), c);
    if m == a {
        max(b, c)
    } else if m == b {
        max(a, c)
    } else {
        max(a, b)
    }
}

// ---- rounding to integers ------------------------------------------------------------------

/// V_RNDNE semantics (round half to even), exact for every finite value.
#[inline]
pub fn rndne64(x: f64) -> f64 {
    let r = x.round_ties_even();
    if r == 0.0 {
        0.0f64.copysign(x)
    } else {
        r
    }
}

/// V_FRACT: x - floor(x), clamped below 1.0 (to 0x3f7fffff / 0x3fefffffffffffff). Infinity
/// gives NaN (callers canonicalise NaNs); `min` keeps a NaN operand only via the caller.
pub fn fract32(x: f32) -> f32 {
    let r = x - x.floor();
    if r.is_nan() {
        r
    } else {
        r.min(f32::from_bits(0x3f7f_ffff))
    }
}
pub fn fract64(x: f64) -> f64 {
    let r = x - x.floor();
    if r.is_nan() {
        r
    } else {
        r.min(f64::from_bits(0x3fef_ffff_ffff_ffff))
    }
}

/// Saturating float to integer conversion, truncating, NaN to 0 (V_CVT_*_F32/F64 notes).
#[inline]
pub fn to_i32(x: f64) -> u64 {
    (x as i32) as u32 as u64
}
#[inline]
pub fn to_u32(x: f64) -> u64 {
    (x as u32) as u64
}

// ---- exponent helpers ------------------------------------------------------------------------

/// Biased exponent field.
#[inline]
pub fn exp32(a: u64) -> i32 {
    (a >> 23 & 0xff) as i32
}
#[inline]
pub fn exp64(a: u64) -> i32 {
    (a >> 52 & 0x7ff) as i32
}

/// x * 2^n with one rounding (denormal results rounded correctly).
pub fn ldexp64(x: f64, n: i64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let (m, e) = frexp64(x); // x = m * 2^e, m in [0.5, 1)
    let t = (e as i64 + n).clamp(-1200, 1200) as i32;
    if t > 1024 {
        return f64::INFINITY.copysign(x);
    }
    if t >= -1021 {
        return m * f64::powi(2.0, t); // normal: exact
    }
    // Denormal or zero: the first product is exact, the second rounds once.
    (m * f64::powi(2.0, t + 600)) * f64::powi(2.0, -600)
}

/// f32 ldexp: exact in f64, then one rounding to f32.
pub fn ldexp32(x: f32, n: i64) -> f32 {
    let n = n.clamp(-400, 400) as i32;
    ((x as f64) * f64::powi(2.0, n)) as f32
}

/// frexp: (mantissa in [0.5, 1), exponent); zero gives (x, 0).
pub fn frexp64(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let b = x.to_bits();
    let e = exp64(b);
    if e == 0 {
        // Denormal: normalise first.
        let (m, k) = frexp64(x * f64::powi(2.0, 64));
        return (m, k - 64);
    }
    let m = f64::from_bits((b & !(0x7ffu64 << 52)) | (1022u64 << 52));
    (m, e - 1022)
}
