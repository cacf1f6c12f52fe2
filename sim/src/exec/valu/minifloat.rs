//! The narrow float formats as data: the 8-bit FP8/BF8, the 6-bit FP6/BF6 and the 4-bit FP4
//! of the OCP formats, CDNA3's FNUZ variants, and the E8M0 block scale; decoded exactly and
//! encoded from f32/f64 with round-to-nearest-even or stochastic rounding.
//!
//! The formats (sources cited per format in [`Format::spec`]):
//! * OCP 8-bit floating point (OCP "OFP8 Formats for Deep Learning" v1.0, §5): E4M3 (bias 7,
//!   no infinities, S.1111.111 is NaN, so the largest finite is 448) and E5M2 (bias 15, IEEE-like
//!   infinities and NaNs, largest finite 57344). RDNA4 (gfx12) and CDNA4 (gfx950) FP8/BF8 are
//!   these (RDNA4 ISA, "Floating-point data types": FP8 = E4M3, BF8 = E5M2 in the OCP layout).
//! * The "FNUZ" variants of CDNA3 (MI300 CDNA3 ISA, "FP8 and BF8 data types"): E4M3 with bias 8
//!   and E5M2 with bias 16; 0x80 (negative zero's code) is the one NaN; no infinities, no
//!   negative zero. Largest finite: 240 (FP8), 57344 (BF8).
//! * OCP Microscaling (MX) v1.0 §5.3: FP6 E2M3 (bias 1, largest 7.5), BF6 E3M2 (bias 3,
//!   largest 28) and FP4 E2M1 (bias 1, largest 6); every code is a finite number (no
//!   infinities, no NaN). CDNA4's "FP6", "BF6" and "FP4" are these (CDNA4 ISA, the
//!   V_CVT_SCALEF32_* and V_MFMA_*_F8F6F4 descriptions name the OCP MX formats).
//! * E8M0 (OCP MX v1.0 §5.4): the block scale, an unsigned biased exponent: code `e` is
//!   2^(e-127), 0xFF is NaN ([`e8m0`]).
//!
//! Codes are held in the low bits of a `u8`, the sign in bit `bits - 1`.
//!
//! Overflow when encoding: with `sat` (and always for the MX formats, which have no infinity or
//! NaN code to overflow to: saturation is the only choice left) the magnitude saturates to the
//! largest finite value, else it becomes infinity where the format has one (OCP E5M2) and NaN
//! otherwise. NaN in gives NaN out where the format has a NaN; the MX formats have none and
//! take the largest magnitude with the input's sign (a choice, marked approximate by the
//! instructions that use it).

/// A narrow float format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// OCP FP8 E4M3 (RDNA4/CDNA4 "FP8").
    E4M3,
    /// OCP BF8 E5M2 (RDNA4/CDNA4 "BF8").
    E5M2,
    /// CDNA3 FP8: E4M3, bias 8, NaN = 0x80.
    E4M3Fnuz,
    /// CDNA3 BF8: E5M2, bias 16, NaN = 0x80.
    E5M2Fnuz,
    /// OCP MX FP6 E2M3 (CDNA4 "FP6").
    E2M3,
    /// OCP MX FP6 E3M2 (CDNA4 "BF6").
    E3M2,
    /// OCP MX FP4 E2M1 (CDNA4 "FP4").
    E2M1,
}

/// How a format spends its top exponent and its negative zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Specials {
    /// All-ones exponent: infinity with a zero mantissa, NaN otherwise (IEEE; OCP E5M2).
    Ieee,
    /// Only S.1111.111 is NaN; no infinities (OCP E4M3).
    NanOnes,
    /// 0x80 is the only NaN; no negative zero, no infinities (CDNA3 FNUZ).
    Fnuz,
    /// Every code is finite (OCP MX FP6/FP4).
    None,
}

/// The parameters a format is defined by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub exp_bits: u32,
    pub man_bits: u32,
    pub bias: i32,
    pub specials: Specials,
    /// Largest finite magnitude code (sign bit clear).
    pub max_code: u8,
}

impl Spec {
    /// Width of a code, sign included.
    pub fn bits(&self) -> u32 {
        1 + self.exp_bits + self.man_bits
    }
    fn sign(&self) -> u8 {
        1 << (self.bits() - 1)
    }
}

impl Format {
    pub fn spec(self) -> Spec {
        let s = |exp_bits, man_bits, bias, specials, max_code| Spec { exp_bits, man_bits, bias, specials, max_code };
        match self {
            // OCP OFP8 §5.1 Table 1: E4M3 S.1111.111 is NaN, S.1111.110 = 448 the maximum.
            Format::E4M3 => s(4, 3, 7, Specials::NanOnes, 0x7e),
            // OCP OFP8 §5.1 Table 1: E5M2 follows IEEE 754 conventions; 0x7b = 57344.
            Format::E5M2 => s(5, 2, 15, Specials::Ieee, 0x7b),
            // CDNA3 ISA: FP8 bias 8, BF8 bias 16, 0x80 = NaN, every other code finite.
            Format::E4M3Fnuz => s(4, 3, 8, Specials::Fnuz, 0x7f),
            Format::E5M2Fnuz => s(5, 2, 16, Specials::Fnuz, 0x7f),
            // OCP MX v1.0 §5.3.2 Table 2: E2M3 bias 1, max S.11.111 = 7.5; E3M2 bias 3, max
            // S.111.11 = 28. §5.3.3 Table 3: E2M1 bias 1, max S.11.1 = 6.
            Format::E2M3 => s(2, 3, 1, Specials::None, 0x1f),
            Format::E3M2 => s(3, 2, 3, Specials::None, 0x1f),
            Format::E2M1 => s(2, 1, 1, Specials::None, 0x7),
        }
    }

    /// The largest finite value.
    pub fn max(self) -> f32 {
        decode(self, self.spec().max_code)
    }
}

/// The quiet NaN `decode` returns (the f32 default NaN's magnitude with the code's sign).
const QNAN: u32 = 0x7fc0_0000;

/// Whether `code` is a NaN code of `fmt`.
pub fn is_nan(fmt: Format, code: u8) -> bool {
    let s = fmt.spec();
    let mag = code & (s.sign() - 1);
    let exp_all = (mag >> s.man_bits) as u32 == (1 << s.exp_bits) - 1;
    let man = (mag & ((1 << s.man_bits) - 1)) as u32;
    match s.specials {
        Specials::Fnuz => code == s.sign(),
        Specials::Ieee => exp_all && man != 0,
        Specials::NanOnes => exp_all && man == (1 << s.man_bits) - 1,
        Specials::None => false,
    }
}

/// The value of `code` in `fmt`, exactly (every value of these formats is an f32 normal
/// number); bits above the format's width are ignored.
pub fn decode(fmt: Format, code: u8) -> f32 {
    let s = fmt.spec();
    let code = code & ((1u16 << s.bits()) - 1) as u8;
    let neg = code & s.sign() != 0;
    let sign = (neg as u32) << 31;
    if is_nan(fmt, code) {
        let sign = if s.specials == Specials::Fnuz { 0 } else { sign };
        return f32::from_bits(QNAN | sign);
    }
    let e = ((code & (s.sign() - 1)) >> s.man_bits) as i32;
    let m = (code & ((1 << s.man_bits) - 1)) as u32;
    if s.specials == Specials::Ieee && e == (1 << s.exp_bits) - 1 {
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

/// The power of two an E8M0 scale code stands for, as its exponent (`code - 127`); `None` for
/// 0xFF, the NaN code (OCP MX v1.0 §5.4: "E8M0 ... 0xFF = NaN", no zero, no sign).
pub fn e8m0(code: u8) -> Option<i32> {
    (code != 0xff).then_some(code as i32 - 127)
}

/// How the discarded part of a significand is rounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Round {
    NearestEven,
    /// Round away from zero when the discarded fraction, scaled to 32 bits, plus the seed
    /// carries out of 32 bits.
    Stochastic(u32),
}

/// `x` in `fmt`, rounded to nearest even.
pub fn encode(fmt: Format, x: f32, sat: bool) -> u8 {
    encode_f64(fmt, x as f64, sat, Round::NearestEven)
}

/// `x` in `fmt` with stochastic rounding: rounds away from zero with a probability equal to the
/// discarded fraction, the random bits being `seed` (see the fidelity notes in `cvt8`).
pub fn encode_sr(fmt: Format, x: f32, seed: u32, sat: bool) -> u8 {
    encode_f64(fmt, x as f64, sat, Round::Stochastic(seed))
}

/// `x` in `fmt`: the general encoder. Exact for every f64 `x` whose significand fits 53 bits
/// (every f32, f16 or bf16 value times a power of two within f64's range).
pub fn encode_f64(fmt: Format, x: f64, sat: bool, round: Round) -> u8 {
    let s = fmt.spec();
    let sign: u8 = if x.is_sign_negative() { s.sign() } else { 0 };
    let nan = match s.specials {
        Specials::Fnuz => s.sign(),
        Specials::None => sign | s.max_code,
        _ => sign | (s.sign() - 1),
    };
    if x.is_nan() {
        return nan;
    }
    let overflow = if sat || s.specials == Specials::None {
        sign | s.max_code
    } else if s.specials == Specials::Ieee {
        sign | (((1 << s.exp_bits) - 1) << s.man_bits) as u8
    } else {
        nan
    };
    if x.is_infinite() {
        return overflow;
    }
    let a = x.abs();
    // The quantum at a's binade (or the denormal quantum below the smallest normal).
    let emin = 1 - s.bias;
    let e = binade(a).max(emin);
    let q = pow2(e - s.man_bits as i32);
    let n = a / q; // exact: a power-of-two quotient
    let r = match round {
        Round::NearestEven => rne(n),
        Round::Stochastic(seed) => {
            let fl = n.floor();
            let frac = ((n - fl) * 4294967296.0).floor() as u64;
            fl + ((frac + seed as u64) >> 32) as f64
        }
    };
    let v = r * q;
    if v > fmt.max() as f64 {
        return overflow;
    }
    if v == 0.0 {
        return if s.specials == Specials::Fnuz { 0 } else { sign };
    }
    sign | code_of(&s, v)
}

/// 2^e for any exponent an f64 can hold (built from its bits; `powi` is not exact everywhere).
pub fn pow2(e: i32) -> f64 {
    match e {
        -1022..=1023 => f64::from_bits(((e + 1023) as u64) << 52),
        _ => 2f64.powi(e),
    }
}

/// floor(log2(a)) of a positive f64 (very small for zero).
fn binade(a: f64) -> i32 {
    if a == 0.0 {
        return i32::MIN / 2;
    }
    let e = ((a.to_bits() >> 52) & 0x7ff) as i32;
    if e == 0 {
        // An f64 denormal: no format here reaches it, any low binade will do.
        return -1075;
    }
    e - 1023
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
        return (v / pow2(emin - s.man_bits as i32)) as u8;
    }
    let m = (v / pow2(e - s.man_bits as i32)) as i32 - (1 << s.man_bits);
    (((e - emin + 1) << s.man_bits) | m) as u8
}
