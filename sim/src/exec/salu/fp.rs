//! Floating-point helpers for the SALU float operations: correctly rounded results in every
//! MODE rounding mode, denormal flushing, half-precision encoding.
//!
//! Results are computed exactly as an unevaluated sum `hi + lo` of two f64 (products of f32/f16
//! values are exact in f64; sums use the error-free TwoSum), then rounded once to the target
//! format. MODE (ISA manuals, "MODE register"): FP_ROUND [1:0] f32, [3:2] f64/f16 with
//! 0 = nearest even, 1 = +inf, 2 = -inf, 3 = zero; FP_DENORM [5:4] f32, [7:6] f64/f16 with
//! 0 = flush inputs and outputs, 1 = flush outputs, 2 = flush inputs, 3 = keep both.

/// Rounding mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    NearestEven,
    Up,
    Down,
    Zero,
}

impl Round {
    pub fn from_bits(b: u32) -> Round {
        match b & 3 {
            0 => Round::NearestEven,
            1 => Round::Up,
            2 => Round::Down,
            _ => Round::Zero,
        }
    }
}

/// A binary floating-point format: fraction bits, smallest and largest normal exponent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Format {
    pub frac: i32,
    pub emin: i32,
    pub emax: i32,
}

pub const F32: Format = Format { frac: 23, emin: -126, emax: 127 };
pub const F16: Format = Format { frac: 10, emin: -14, emax: 15 };

impl Format {
    fn max(&self) -> f64 {
        (2.0 - pow2(-self.frac)) * pow2(self.emax)
    }

    fn min_normal(&self) -> f64 {
        pow2(self.emin)
    }
}

/// Rounding and denormal controls for one format, read from MODE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ctl {
    pub round: Round,
    pub flush_in: bool,
    pub flush_out: bool,
}

impl Ctl {
    /// Controls of f32 (`f16` = false) or f16 (`f16` = true: the f64/f16 fields).
    pub fn from_mode(mode: u32, f16: bool) -> Ctl {
        let sh = if f16 { 2 } else { 0 };
        let denorm = (mode >> (4 + sh)) & 3;
        Ctl { round: Round::from_bits(mode >> sh), flush_in: denorm & 1 == 0, flush_out: denorm & 2 == 0 }
    }
}

/// 2^k for the exponents used here (|k| < 1023).
pub fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// Exact sum: hi + lo == a + b, hi = fl(a + b) (Knuth's TwoSum; no overflow in our ranges).
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    if !s.is_finite() {
        return (s, 0.0);
    }
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// Where the discarded part of a magnitude lies relative to half a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rest {
    Zero,
    Below,
    Half,
    Above,
}

/// Round the exact value `hi + lo` (|lo| at most half an f64 ulp of `hi`) to `fmt`.
/// Returns the rounded value as an f64 (exactly representable in `fmt`).
pub fn round(hi: f64, lo: f64, fmt: Format, ctl: Ctl) -> f64 {
    if hi == 0.0 || !hi.is_finite() {
        return hi;
    }
    let neg = hi < 0.0;
    let (mag, lo) = (hi.abs(), if neg { -lo } else { lo });
    let e = ((mag.to_bits() >> 52) as i32) - 1023;
    let mut q = e.max(fmt.emin) - fmt.frac;
    let (m, ml) = (mag * pow2(-q), lo * pow2(-q));
    let mut n = m.floor();
    let frac = m - n;
    let rest = if frac == 0.0 {
        match ml.partial_cmp(&0.0) {
            Some(std::cmp::Ordering::Greater) => Rest::Below,
            Some(std::cmp::Ordering::Less) => {
                // Just below n: when n is a power of two the grid below it is twice as fine.
                if n == pow2(fmt.frac) && e > fmt.emin {
                    q -= 1;
                    n = 2.0 * n - 1.0;
                } else {
                    n -= 1.0;
                }
                Rest::Above
            }
            _ => Rest::Zero,
        }
    } else if frac < 0.5 || (frac == 0.5 && ml < 0.0) {
        Rest::Below
    } else if frac == 0.5 && ml == 0.0 {
        Rest::Half
    } else {
        Rest::Above
    };
    let up = match ctl.round {
        Round::NearestEven => rest == Rest::Above || (rest == Rest::Half && n % 2.0 == 1.0),
        Round::Zero => false,
        Round::Up => !neg && rest != Rest::Zero,
        Round::Down => neg && rest != Rest::Zero,
    };
    let mut r = (n + up as u8 as f64) * pow2(q);
    if r > fmt.max() {
        let to_inf = match ctl.round {
            Round::NearestEven => true,
            Round::Zero => false,
            Round::Up => !neg,
            Round::Down => neg,
        };
        r = if to_inf { f64::INFINITY } else { fmt.max() };
    }
    if ctl.flush_out && r < fmt.min_normal() {
        r = 0.0;
    }
    if neg {
        -r
    } else {
        r
    }
}

/// A denormal input becomes a zero of the same sign when inputs are flushed.
pub fn flush_in(x: f64, fmt: Format, ctl: Ctl) -> f64 {
    if ctl.flush_in && x != 0.0 && x.abs() < fmt.min_normal() {
        0.0f64.copysign(x)
    } else {
        x
    }
}

/// IEEE half precision → f64 (exact).
pub fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    let mag = match exp {
        0 => frac * pow2(-24),
        0x1f if frac == 0.0 => f64::INFINITY,
        0x1f => return f64::from_bits(0x7ff8_0000_0000_0000 | ((h as u64 & 0x1ff) << 42) | (h as u64 & 0x8000) << 48),
        _ => (1024.0 + frac) * pow2(exp - 25),
    };
    sign * mag
}

/// f64 already representable in half precision (or inf/NaN) → IEEE half bits.
pub fn f64_to_f16_bits(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if x.is_nan() {
        return sign | 0x7e00 | ((x.to_bits() >> 42) & 0x1ff) as u16;
    }
    let mag = x.abs();
    if mag == f64::INFINITY {
        return sign | 0x7c00;
    }
    if mag < pow2(-14) {
        return sign | (mag * pow2(24)) as u16;
    }
    let e = ((mag.to_bits() >> 52) as i32) - 1023;
    let frac = (mag * pow2(10 - e)) as u16 - 1024;
    sign | (((e + 15) as u16) << 10) | frac
}

/// Canonical quiet NaN of f32.
pub const F32_QNAN: u32 = 0x7fc0_0000;
/// Canonical quiet NaN of f16.
pub const F16_QNAN: u16 = 0x7e00;

#[cfg(test)]
mod tests {
    use super::*;

    const RNE: Ctl = Ctl { round: Round::NearestEven, flush_in: false, flush_out: false };

    fn ctl(round: Round) -> Ctl {
        Ctl { round, ..RNE }
    }

    #[test]
    fn rounding_modes_on_f32() {
        // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: ties to even gives 1.
        let x = 1.0 + pow2(-24);
        assert_eq!(round(x, 0.0, F32, RNE), 1.0);
        assert_eq!(round(x, 0.0, F32, ctl(Round::Up)), 1.0 + pow2(-23));
        assert_eq!(round(x, 0.0, F32, ctl(Round::Down)), 1.0);
        assert_eq!(round(-x, 0.0, F32, ctl(Round::Down)), -(1.0 + pow2(-23)));
        assert_eq!(round(-x, 0.0, F32, ctl(Round::Zero)), -1.0);
        // A tiny positive tail breaks the tie upwards.
        assert_eq!(round(x, pow2(-80), F32, RNE), 1.0 + pow2(-23));
        // A tiny negative tail below an exact value rounds down in -inf mode.
        assert_eq!(round(1.0, -pow2(-80), F32, ctl(Round::Down)), 1.0 - pow2(-24));
        assert_eq!(round(1.0, -pow2(-80), F32, ctl(Round::Up)), 1.0);
        // Overflow.
        assert_eq!(round(pow2(200), 0.0, F32, RNE), f64::INFINITY);
        assert_eq!(round(pow2(200), 0.0, F32, ctl(Round::Zero)), f32::MAX as f64);
        assert_eq!(round(-pow2(200), 0.0, F32, ctl(Round::Up)), -(f32::MAX as f64));
        // Subnormal results.
        assert_eq!(round(pow2(-149) * 1.5, 0.0, F32, RNE), pow2(-148));
        assert_eq!(round(pow2(-149) * 1.5, 0.0, F32, Ctl { flush_out: true, ..RNE }), 0.0);
    }

    #[test]
    fn half_precision_round_trips() {
        for h in [0x0000u16, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x3555] {
            assert_eq!(f64_to_f16_bits(f16_to_f64(h)), h, "{h:#x}");
        }
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0x0001), pow2(-24));
        assert_eq!(round(65520.0, 0.0, F16, RNE), f64::INFINITY);
        assert_eq!(round(65519.0, 0.0, F16, RNE), 65504.0);
    }
}
