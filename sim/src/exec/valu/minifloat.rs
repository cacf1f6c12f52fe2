//! The 8-bit float formats FP8 and BF8 as data, decoded to f32 exactly and encoded from f32.
//!
//! Two families of formats (sources cited per format in [`Format::spec`]):
//! * OCP 8-bit floating point (OCP "OFP8 Formats for Deep Learning" v1.0, §5): E4M3 (bias 7,
//!   no infinities, S.1111.111 is NaN, so the largest finite is 448) and E5M2 (bias 15, IEEE-like
//!   infinities and NaNs, largest finite 57344). RDNA4 (gfx12) FP8/BF8 are these (RDNA4 ISA,
//!   "Floating-point data types": FP8 = E4M3, BF8 = E5M2 in the OCP layout).
//! * The "FNUZ" variants of CDNA3 (MI300 CDNA3 ISA, "FP8 and BF8 data types"): E4M3 with bias 8
//!   and E5M2 with bias 16; 0x80 (negative zero's code) is the one NaN; no infinities, no
//!   negative zero. Largest finite: 240 (FP8), 57344 (BF8).
//!
//! Encoding from f32 rounds to nearest even ([`encode`]) or stochastically ([`encode_sr`]).
//! Overflow: with `sat` the magnitude saturates to the largest finite value, else it becomes
//! infinity where the format has one (OCP E5M2) and NaN otherwise. NaN in gives NaN out.

/// An 8-bit float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OCP FP8 E4M3 (RDNA4 "FP8").
    E4M3,
    /// OCP BF8 E5M2 (RDNA4 "BF8").
    E5M2,
    /// CDNA3 FP8: E4M3, bias 8, NaN = 0x80.
    E4M3Fnuz,
    /// CDNA3 BF8: E5M2, bias 16, NaN = 0x80.
    E5M2Fnuz,
}

/// The parameters a format is defined by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    /// All-ones exponent with zero mantissa is infinity and the other all-ones codes NaN
    /// (IEEE style; OCP E5M2).
    pub ieee_specials: bool,
    /// 0x80 is the only NaN and there is no negative zero (FNUZ).
    pub fnuz: bool,
    /// Largest finite magnitude code (sign bit clear).
    pub max_code: u8,
}

impl Format {
    pub fn spec(self) -> Spec {
        match self {
            // OCP OFP8 §5.1 Table 1: E4M3 S.1111.111 is NaN, S.1111.110 = 448 the maximum.
            Format::E4M3 => Spec { exp_bits: 4, man_bits: 3, bias: 7, ieee_specials: false, fnuz: false, max_code: 0x7e },
            // OCP OFP8 §5.1 Table 1: E5M2 follows IEEE 754 conventions; 0x7b = 57344.
            Format::E5M2 => Spec { exp_bits: 5, man_bits: 2, bias: 15, ieee_specials: true, fnuz: false, max_code: 0x7b },
            // CDNA3 ISA: FP8 bias 8, BF8 bias 16, 0x80 = NaN, every other code finite.
            Format::E4M3Fnuz => Spec { exp_bits: 4, man_bits: 3, bias: 8, ieee_specials: false, fnuz: true, max_code: 0x7f },
            Format::E5M2Fnuz => Spec { exp_bits: 5, man_bits: 2, bias: 16, ieee_specials: false, fnuz: true, max_code: 0x7f },
        }
    }

    /// The largest finite value.
    pub fn max(self) -> f32 {
        decode(self, self.spec().max_code)
    }
}

/// The quiet NaN `decode` returns (the f32 default NaN's magnitude with the code's sign).
const QNAN: u32 = 0x7fc0_0000;

/// Whether `byte` is a NaN code of `fmt`.
pub fn is_nan(fmt: Format, byte: u8) -> bool {
    let s = fmt.spec();
    let mag = byte & 0x7f;
    if s.fnuz {
        return byte == 0x80;
    }
    let exp_all = (mag >> s.man_bits) as u32 == (1 << s.exp_bits) - 1;
    let man = mag & ((1 << s.man_bits) - 1);
    if s.ieee_specials {
        exp_all && man != 0
    } else {
        exp_all && man as u32 == (1 << s.man_bits) - 1
    }
}

/// The value of `byte` in `fmt`, exactly (every FP8/BF8 value is an f32 normal number).
pub fn decode(fmt: Format, byte: u8) -> f32 {
    let s = fmt.spec();
    let neg = byte & 0x80 != 0;
    if is_nan(fmt, byte) {
        let sign = if neg && !s.fnuz { 0x8000_0000 } else { 0 };
        return f32::from_bits(QNAN | sign);
    }
    let e = ((byte & 0x7f) >> s.man_bits) as i32;
    let m = (byte & ((1 << s.man_bits) - 1)) as u32;
    let sign = (byte as u32 & 0x80) << 24;
    if s.ieee_specials && e == (1 << s.exp_bits) - 1 {
        return f32::from_bits(sign | 0x7f80_0000);
    }
    // Normal: (1 + m / 2^man_bits) * 2^(e - bias), built as f32 bits (the exponent fits).
    // Denormal: m * 2^(1 - bias - man_bits), one exact product with a power of two.
    let mag = if e == 0 {
        m as f32 * f32::from_bits(((127 + 1 - s.bias - s.man_bits as i32) as u32) << 23)
    } else {
        f32::from_bits(((e - s.bias + 127) as u32) << 23 | m << (23 - s.man_bits))
    };
    f32::from_bits(sign | mag.to_bits())
}

/// How the discarded part of a significand is rounded.
#[derive(Debug, Clone, Copy)]
enum Round {
    NearestEven,
    /// Round up when the discarded fraction (scaled to 32 bits) plus the seed carries out.
    Stochastic(u32),
}

/// `x` in `fmt`, rounded to nearest even.
pub fn encode(fmt: Format, x: f32, sat: bool) -> u8 {
    encode_with(fmt, x, sat, Round::NearestEven)
}

/// `x` in `fmt` with stochastic rounding: rounds away from zero with a probability equal to the
/// discarded fraction, the random bits being `seed` (see the module's fidelity note in `cvt8`).
pub fn encode_sr(fmt: Format, x: f32, seed: u32, sat: bool) -> u8 {
    encode_with(fmt, x, sat, Round::Stochastic(seed))
}

fn encode_with(fmt: Format, x: f32, sat: bool, round: Round) -> u8 {
    let s = fmt.spec();
    let sign: u8 = if x.is_sign_negative() { 0x80 } else { 0 };
    let nan = if s.fnuz { 0x80 } else { sign | 0x7f };
    if x.is_nan() {
        return nan;
    }
    let overflow = if sat {
        sign | s.max_code
    } else if s.ieee_specials {
        sign | 0x7c
    } else {
        nan
    };
    if x.is_infinite() {
        return overflow;
    }
    let a = x.abs() as f64;
    // The quantum at a's binade (or the denormal quantum below the smallest normal).
    let emin = 1 - s.bias;
    let e = binade(a).max(emin);
    let q = 2f64.powi(e - s.man_bits as i32);
    let n = a / q; // exact: a has 24 significant bits and q is a power of two
    let r = match round {
        Round::NearestEven => rne(n),
        Round::Stochastic(seed) => {
            let fl = n.floor();
            let frac = ((n - fl) * 4294967296.0).floor() as u64;
            fl + ((frac + seed as u64) >> 32) as f64
        }
    };
    let v = r * q;
    let max = fmt.max() as f64;
    if v > max {
        return overflow;
    }
    if v == 0.0 {
        return if s.fnuz { 0 } else { sign };
    }
    sign | code_of(&s, v)
}

/// floor(log2(a)) of a positive normal f64, from its exponent field (0 for zero).
fn binade(a: f64) -> i32 {
    if a == 0.0 {
        return i32::MIN / 2;
    }
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// Round half to even.
fn rne(n: f64) -> f64 {
    let fl = n.floor();
    let d = n - fl;
    if d > 0.5 || (d == 0.5 && fl % 2.0 != 0.0) {
        fl + 1.0
    } else {
        fl
    }
}

/// The magnitude code of a representable positive value.
fn code_of(s: &Spec, v: f64) -> u8 {
    let emin = 1 - s.bias;
    let e = binade(v);
    if e < emin {
        return (v / 2f64.powi(emin - s.man_bits as i32)) as u8;
    }
    let m = (v / 2f64.powi(e - s.man_bits as i32)) as i32 - (1 << s.man_bits);
    (((e - emin + 1) << s.man_bits) | m) as u8
}
