//! Floating-point arithmetic of memory and LDS atomics, on raw bit patterns.
//!
//! Rules (CDNA4 ISA §9.2 "Float Memory Atomics", RDNA4 ISA §16.15 `DS_MIN_NUM_F32` pseudocode):
//! * adds round to nearest even; if an input is NaN the result is that NaN made quiet (the
//!   memory value is the first input); an invalid operation (`inf - inf`) gives the positive
//!   default quiet NaN;
//! * min/max select per IEEE `minimumNumber`/`maximumNumber`: a NaN loses against a number,
//!   two NaNs give the data NaN made quiet, and `-0 < +0`; with input-denormal flushing the
//!   *comparison* uses flushed values while the result is the unmodified selected input;
//! * compare-swap compares as floats (`+0 == -0`, NaN never equal).
//!
//! Half and bfloat16 adds are computed in f32 and rounded once; f32 has more than 2p+2 bits
//! for both formats, so the double rounding is exact (Figueroa's theorem).

/// Denormal handling of one operation (MODE.fp_denorm for LDS, fixed per op in L2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FpEnv {
    pub flush_in: bool,
    pub flush_out: bool,
}

impl FpEnv {
    pub const IEEE: FpEnv = FpEnv { flush_in: false, flush_out: false };

    /// From a 2-bit MODE denorm field: bit 0 allows input denormals, bit 1 output denormals
    /// (ISA manuals, "MODE register", FP_DENORM).
    pub fn from_mode_field(field: u32) -> FpEnv {
        FpEnv { flush_in: field & 1 == 0, flush_out: field & 2 == 0 }
    }
}

/// A float format described by its field widths.
#[derive(Clone, Copy)]
struct Fmt {
    exp_bits: u32,
    man_bits: u32,
}

const F16: Fmt = Fmt { exp_bits: 5, man_bits: 10 };
const BF16: Fmt = Fmt { exp_bits: 8, man_bits: 7 };
const F32: Fmt = Fmt { exp_bits: 8, man_bits: 23 };
const F64: Fmt = Fmt { exp_bits: 11, man_bits: 52 };

impl Fmt {
    fn exp_mask(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.man_bits
    }
    fn man_mask(self) -> u64 {
        (1u64 << self.man_bits) - 1
    }
    fn sign(self) -> u64 {
        1u64 << (self.exp_bits + self.man_bits)
    }
    fn is_nan(self, x: u64) -> bool {
        x & self.exp_mask() == self.exp_mask() && x & self.man_mask() != 0
    }
    fn quiet(self, x: u64) -> u64 {
        x | 1u64 << (self.man_bits - 1)
    }
    fn default_nan(self) -> u64 {
        self.exp_mask() | 1u64 << (self.man_bits - 1)
    }
    fn is_zero(self, x: u64) -> bool {
        x & !self.sign() == 0
    }
    fn flush(self, x: u64, yes: bool) -> u64 {
        if yes && x & self.exp_mask() == 0 {
            x & self.sign()
        } else {
            x
        }
    }
}

/// NaN propagation shared by the adds: `Some(result)` if an input is NaN.
fn nan_input(f: Fmt, a: u64, b: u64) -> Option<u64> {
    if f.is_nan(a) {
        Some(f.quiet(a))
    } else if f.is_nan(b) {
        Some(f.quiet(b))
    } else {
        None
    }
}

fn canonical_nan(f: Fmt, r: u64) -> u64 {
    if f.is_nan(r) {
        f.default_nan()
    } else {
        r
    }
}

/// f32 add, `a` = memory value, `b` = data.
pub fn add_f32(a: u32, b: u32, env: FpEnv) -> u32 {
    let (a, b) = (F32.flush(a as u64, env.flush_in), F32.flush(b as u64, env.flush_in));
    if let Some(n) = nan_input(F32, a, b) {
        return n as u32;
    }
    let r = (f32::from_bits(a as u32) + f32::from_bits(b as u32)).to_bits() as u64;
    F32.flush(canonical_nan(F32, r), env.flush_out) as u32
}

/// f64 add, `a` = memory value, `b` = data.
pub fn add_f64(a: u64, b: u64, env: FpEnv) -> u64 {
    let (a, b) = (F64.flush(a, env.flush_in), F64.flush(b, env.flush_in));
    if let Some(n) = nan_input(F64, a, b) {
        return n;
    }
    let r = (f64::from_bits(a) + f64::from_bits(b)).to_bits();
    F64.flush(canonical_nan(F64, r), env.flush_out)
}

/// Add of one 16-bit half (f16 or bf16) through f32.
fn add_half(f: Fmt, a: u16, b: u16, env: FpEnv) -> u16 {
    let (a, b) = (f.flush(a as u64, env.flush_in), f.flush(b as u64, env.flush_in));
    if let Some(n) = nan_input(f, a, b) {
        return n as u16;
    }
    let r = if f.man_bits == 10 { f32_to_f16(f16_to_f32(a as u16) + f16_to_f32(b as u16)) } else { f32_to_bf16(bf16_to_f32(a as u16) + bf16_to_f32(b as u16)) }
        as u64;
    f.flush(canonical_nan(f, r), env.flush_out) as u16
}

/// Packed 2 x f16 add (`*_PK_ADD_F16`).
pub fn pk_add_f16(a: u32, b: u32, env: FpEnv) -> u32 {
    let lo = add_half(F16, a as u16, b as u16, env) as u32;
    let hi = add_half(F16, (a >> 16) as u16, (b >> 16) as u16, env) as u32;
    lo | hi << 16
}

/// Packed 2 x bf16 add (`*_PK_ADD_BF16`).
pub fn pk_add_bf16(a: u32, b: u32, env: FpEnv) -> u32 {
    let lo = add_half(BF16, a as u16, b as u16, env) as u32;
    let hi = add_half(BF16, (a >> 16) as u16, (b >> 16) as u16, env) as u32;
    lo | hi << 16
}

/// `src < tmp` on flushed values with `-0 < +0`; neither is NaN.
fn less(f: Fmt, s: u64, t: u64) -> bool {
    let (fs, ft) = to_f64(f, s, t);
    fs < ft || (f.is_zero(s) && f.is_zero(t) && s & f.sign() != 0 && t & f.sign() == 0)
}

fn to_f64(f: Fmt, s: u64, t: u64) -> (f64, f64) {
    if f.exp_bits == 11 {
        (f64::from_bits(s), f64::from_bits(t))
    } else {
        (f32::from_bits(s as u32) as f64, f32::from_bits(t as u32) as f64)
    }
}

/// Shared selection of min (`want_less`) or max; `tmp` = memory, `src` = data.
fn select(f: Fmt, tmp: u64, src: u64, want_less: bool, env: FpEnv) -> u64 {
    let (t, s) = (f.flush(tmp, env.flush_in), f.flush(src, env.flush_in));
    match (f.is_nan(s), f.is_nan(t)) {
        (true, true) => f.quiet(src),
        (true, false) => tmp,
        (false, true) => src,
        _ => {
            let pick_src = if want_less { less(f, s, t) } else { less(f, t, s) };
            if pick_src {
                src
            } else {
                tmp
            }
        }
    }
}

pub fn min_f32(tmp: u32, src: u32, env: FpEnv) -> u32 {
    select(F32, tmp as u64, src as u64, true, env) as u32
}
pub fn max_f32(tmp: u32, src: u32, env: FpEnv) -> u32 {
    select(F32, tmp as u64, src as u64, false, env) as u32
}
pub fn min_f64(tmp: u64, src: u64, env: FpEnv) -> u64 {
    select(F64, tmp, src, true, env)
}
pub fn max_f64(tmp: u64, src: u64, env: FpEnv) -> u64 {
    select(F64, tmp, src, false, env)
}

/// Float compare-and-swap: the new value if `tmp == cmp` as floats.
pub fn cmpswap_f32(tmp: u32, src: u32, cmp: u32, env: FpEnv) -> u32 {
    let (t, c) = (F32.flush(tmp as u64, env.flush_in) as u32, F32.flush(cmp as u64, env.flush_in) as u32);
    if f32::from_bits(t) == f32::from_bits(c) {
        F32.flush(src as u64, env.flush_in) as u32
    } else {
        tmp
    }
}

pub fn cmpswap_f64(tmp: u64, src: u64, cmp: u64, env: FpEnv) -> u64 {
    let (t, c) = (F64.flush(tmp, env.flush_in), F64.flush(cmp, env.flush_in));
    if f64::from_bits(t) == f64::from_bits(c) {
        F64.flush(src, env.flush_in)
    } else {
        tmp
    }
}

/// IEEE half to f32 (exact).
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = (h as u32 & 0x8000) << 16;
    let exp = (h as u32 >> 10) & 0x1f;
    let man = h as u32 & 0x3ff;
    match exp {
        0 => {
            let mag = man as f32 * f32::from_bits(0x3380_0000); // man * 2^-24
            f32::from_bits(mag.to_bits() | sign)
        }
        31 => f32::from_bits(sign | 0x7f80_0000 | man << 13),
        _ => f32::from_bits(sign | (exp + 112) << 23 | man << 13),
    }
}

/// Round `q` (with `rem` out of `2^shift` dropped) to nearest even.
fn round_even(q: u32, rem: u32, shift: u32) -> u32 {
    let half = 1u32 << (shift - 1);
    if rem > half || (rem == half && q & 1 == 1) {
        q + 1
    } else {
        q
    }
}

/// f32 to IEEE half, round to nearest even; NaNs stay NaN (made quiet).
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 255 {
        return if man != 0 { sign | 0x7e00 | (man >> 13) as u16 } else { sign | 0x7c00 };
    }
    let e = exp - 112;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        return sign | round_even(m >> shift, m & ((1 << shift) - 1), shift) as u16;
    }
    let q = (e as u32) << 10 | man >> 13;
    sign | round_even(q, man & 0x1fff, 13) as u16
}

pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits((h as u32) << 16)
}

/// f32 to bfloat16, round to nearest even; NaNs stay NaN (made quiet).
pub fn f32_to_bf16(f: f32) -> u16 {
    let x = f.to_bits();
    if F32.is_nan(x as u64) {
        return (x >> 16) as u16 | 0x40;
    }
    round_even(x >> 16, x & 0xffff, 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_round_to_nearest_even() {
        // Values from Python's struct 'e' format (IEEE binary16, round half to even).
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // halfway to 2^16: ties to even = inf (IEEE 754)
        assert_eq!(f32_to_f16(1.0 + 1.0 / 2048.0), 0x3c00); // tie -> even
        assert_eq!(f32_to_f16(1.0 + 3.0 / 2048.0), 0x3c02); // tie -> even (up)
        assert_eq!(f32_to_f16(5.960_464_5e-8), 0x0001); // 2^-24
        assert_eq!(f32_to_f16(2.980_232_2e-8), 0x0000); // 2^-25: tie -> 0
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f16_to_f32(0x0001), 5.960_464_5e-8);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f32_to_bf16(1.0), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
    }

    #[test]
    fn min_max_follow_minimum_number() {
        let e = FpEnv::IEEE;
        let nan = 0x7fc0_0000;
        assert_eq!(min_f32(nan, 1.0f32.to_bits(), e), 1.0f32.to_bits());
        assert_eq!(max_f32(2.0f32.to_bits(), nan, e), 2.0f32.to_bits());
        assert_eq!(min_f32(0.0f32.to_bits(), (-0.0f32).to_bits(), e), (-0.0f32).to_bits());
        assert_eq!(max_f32((-0.0f32).to_bits(), 0.0f32.to_bits(), e), 0.0f32.to_bits());
        assert_eq!(add_f32(f32::INFINITY.to_bits(), f32::NEG_INFINITY.to_bits(), e), 0x7fc0_0000);
    }
}
