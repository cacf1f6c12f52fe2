//! gfx950 (CDNA4) conversions against CPU references written from the definitions: the OCP
//! FP8 (OFP8 v1.0 §5) and MX (OCP MX v1.0 §5.3/5.4: FP6 E2M3, BF6 E3M2, FP4 E2M1, E8M0)
//! formats, nearest-even rounding found by exhaustive search over a format's codes, and the
//! CDNA4 ISA guide's pseudo-code for operand layouts (scale = the exponent field of an f32
//! operand, byte/word selects by OPSEL, V_PRNG_B32 seeds). Encodings from `llvm-mc-22
//! -triple=amdgcn -mcpu=gfx950 -show-encoding`.

use hipscope_isa::Processor;
use hipscope_sim::exec::valu::minifloat::{decode, e8m0, encode_f64, Format, Round};
use hipscope_sim::testing::Rig;

/// A format's definition: exponent bits, mantissa bits, bias, and how the top codes are used.
#[derive(Clone, Copy)]
struct Def {
    f: Format,
    e: u32,
    m: u32,
    bias: i32,
    kind: Kind,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// OCP E5M2: IEEE infinities and NaNs.
    Ieee,
    /// OCP E4M3: only S.1111.111 is NaN.
    NanOnes,
    /// MX FP6/FP4: every code finite.
    Finite,
}

const E4M3: Def = Def { f: Format::E4M3, e: 4, m: 3, bias: 7, kind: Kind::NanOnes };
const E5M2: Def = Def { f: Format::E5M2, e: 5, m: 2, bias: 15, kind: Kind::Ieee };
const E2M3: Def = Def { f: Format::E2M3, e: 2, m: 3, bias: 1, kind: Kind::Finite };
const E3M2: Def = Def { f: Format::E3M2, e: 3, m: 2, bias: 3, kind: Kind::Finite };
const E2M1: Def = Def { f: Format::E2M1, e: 2, m: 1, bias: 1, kind: Kind::Finite };

impl Def {
    fn bits(&self) -> u32 {
        1 + self.e + self.m
    }
    /// The value of `code` (`None`: NaN) from sign/exponent/mantissa arithmetic.
    fn value(&self, code: u32) -> Option<f64> {
        let s = if code >> (self.bits() - 1) & 1 == 1 { -1.0 } else { 1.0 };
        let e = code >> self.m & ((1 << self.e) - 1);
        let m = code & ((1 << self.m) - 1);
        let top = (1 << self.e) - 1;
        match self.kind {
            Kind::Ieee if e == top => return if m == 0 { Some(s * f64::INFINITY) } else { None },
            Kind::NanOnes if e == top && m == (1 << self.m) - 1 => return None,
            _ => {}
        }
        let frac = m as f64 / (1u32 << self.m) as f64;
        Some(if e == 0 { s * frac * 2f64.powi(1 - self.bias) } else { s * (1.0 + frac) * 2f64.powi(e as i32 - self.bias) })
    }
    /// The largest finite positive code.
    fn max_code(&self) -> u32 {
        (0..1u32 << (self.bits() - 1)).filter(|&c| self.value(c).is_some_and(f64::is_finite)).max().unwrap_or(0)
    }
    /// `x` rounded to nearest (ties to the even code) by searching every finite code;
    /// overflow past the midpoint to the next (absent) step gives NaN (E4M3), infinity (E5M2)
    /// or the largest value (MX formats). NaN gives a NaN code where there is one.
    fn nearest(&self, x: f64) -> u32 {
        let sign = if x.is_sign_negative() { 1 << (self.bits() - 1) } else { 0 };
        let max = self.max_code();
        let (nan, inf) = (sign | ((1 << (self.bits() - 1)) - 1), sign | ((1 << self.e) - 1) << self.m);
        let over = match self.kind {
            Kind::NanOnes => nan,
            Kind::Ieee => inf,
            Kind::Finite => sign | max,
        };
        if x.is_nan() {
            return if self.kind == Kind::Finite { sign | max } else { nan };
        }
        let a = x.abs();
        let top = self.value(max).unwrap_or(0.0);
        let step = top - self.value(max - 1).unwrap_or(0.0);
        if a > top + step / 2.0 || (a == top + step / 2.0 && max & 1 == 1) {
            return over;
        }
        let mut best = 0;
        for c in 0..=max {
            let (v, b) = (self.value(c).unwrap_or(0.0), self.value(best).unwrap_or(0.0));
            let (d, db) = ((v - a).abs(), (b - a).abs());
            if d < db || (d == db && c & 1 == 0 && best & 1 == 1) {
                best = c;
            }
        }
        sign | best
    }
}

#[test]
fn every_mx_code_decodes_to_its_definition() {
    for d in [E4M3, E5M2, E2M3, E3M2, E2M1] {
        for code in 0..1u32 << d.bits() {
            let got = decode(d.f, code as u8);
            match d.value(code) {
                None => assert!(got.is_nan(), "{:?} {code:#x}", d.f),
                Some(v) => assert_eq!(got as f64, v, "{:?} {code:#x}", d.f),
            }
        }
    }
    // The maxima OCP MX v1.0 Tables 2 and 3 name.
    assert_eq!((Format::E2M3.max(), Format::E3M2.max(), Format::E2M1.max()), (7.5, 28.0, 6.0));
    assert_eq!((e8m0(127), e8m0(0), e8m0(254), e8m0(255)), (Some(0), Some(-127), Some(127), None));
}

/// A spread of f64 values: both signs, exponents from -30 to 20, assorted mantissas, and the
/// specials.
fn samples() -> Vec<f64> {
    let mut v = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    let mut r = 0x1234_5678u32;
    for e in -30..=20 {
        for _ in 0..8 {
            r = r.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let m = 1.0 + (r >> 8) as f64 / (1u64 << 24) as f64;
            v.push(m * 2f64.powi(e) * if r & 1 == 0 { 1.0 } else { -1.0 });
        }
        // Exact ties at this binade for 1-3 mantissa bits.
        for t in [1.0625, 1.1875, 1.125, 1.375, 1.25, 1.75] {
            v.push(t * 2f64.powi(e));
        }
    }
    v
}

#[test]
fn narrowing_is_nearest_even_with_the_format_overflow() {
    for d in [E4M3, E5M2, E2M3, E3M2, E2M1] {
        for x in samples() {
            let got = encode_f64(d.f, x, false, Round::NearestEven) as u32;
            let want = d.nearest(x);
            if x.is_nan() && d.kind != Kind::Finite {
                assert!(decode(d.f, got as u8).is_nan(), "{:?} NaN -> {got:#x}", d.f);
            } else {
                assert_eq!(got, want, "{:?} {x:e}", d.f);
            }
        }
    }
}

/// f16 bits of an exactly representable value (or ±infinity past the f16 range).
fn f16_of(v: f64) -> u32 {
    let sign = if v.is_sign_negative() { 0x8000 } else { 0 };
    let a = v.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 2f64.powi(-14) {
        return sign | (a / 2f64.powi(-24)) as u32;
    }
    let e = a.log2().floor() as i32;
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0) as u32;
    sign | ((e + 15) as u32) << 10 | m
}

/// An f32 whose exponent field is `k` + 127: the scale operand 2^k.
fn scale(k: i32) -> u32 {
    ((k + 127) as u32) << 23
}

/// Run `code` on gfx950 with per-lane register contents; the rig starts with every other VGPR 0.
fn run(code: &[u8], regs: &[(usize, &dyn Fn(usize) -> u32)]) -> Rig {
    let mut r = Rig::new(Processor::Gfx950, true);
    for (reg, f) in regs {
        r.set_v(*reg, f);
    }
    r.run(code);
    r
}

#[test]
fn widening_scales_each_selected_code() {
    // v_cvt_scalef32_f32_fp8 v1, v2, v3 op_sel:[1,1]: byte 3 of v2, times 2^(v3's exponent).
    const F32_FP8_B3: &[u8] = &[0x01, 0x18, 0x3b, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let ks = [0, 5, -3, -127, 127, 128];
    let r = run(F32_FP8_B3, &[(2, &|l| (l as u32 * 4) << 24 | 0x77), (3, &|l| scale(ks[l % 6]) | 0x8000_1234)]);
    for l in 0..64 {
        let code = (l as u32 * 4) & 0xff;
        let got = f32::from_bits(r.wave.v(1, l));
        match (E4M3.value(code), ks[l % 6]) {
            (None, _) | (_, 128) => assert!(got.is_nan(), "lane {l}: NaN code or NaN scale"),
            (Some(v), k) => assert_eq!(got, (v * 2f64.powi(k)) as f32, "lane {l}"),
        }
    }
    // v_cvt_scalef32_f16_fp8 v1, v2, v3 op_sel:[0,1,1]: byte 2 into the high half, low kept.
    const F16_FP8_B2_HI: &[u8] = &[0x01, 0x50, 0x4a, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let r = run(F16_FP8_B2_HI, &[(1, &|_| 0xdead_beef), (2, &|l| (l as u32) << 16), (3, &|_| scale(-2))]);
    for l in 0..64 {
        let got = r.wave.v(1, l);
        assert_eq!(got & 0xffff, 0xbeef, "lane {l}");
        assert_eq!(Some(got >> 16), E4M3.value(l as u32).map(|v| f16_of(v / 4.0)), "lane {l}");
    }
}

#[test]
fn widening_pairs_read_their_word_or_byte() {
    // v_cvt_scalef32_pk_f32_fp8 v[6:7], v2, v3 op_sel:[1,0]: the bytes of word 1.
    const PK_F32_FP8_W1: &[u8] = &[0x06, 0x08, 0x39, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let r = run(PK_F32_FP8_W1, &[(2, &|l| (l as u32 | (l as u32 + 64) << 8) << 16 | 0xffff), (3, &|_| scale(3))]);
    for l in 0..64 {
        for (code, reg) in [(l as u32, 6), (l as u32 + 64, 7)] {
            let got = f32::from_bits(r.wave.v(reg, l));
            match E4M3.value(code) {
                Some(v) => assert_eq!(got, (v * 8.0) as f32, "lane {l} code {code:#x}"),
                None => assert!(got.is_nan(), "lane {l} code {code:#x}"),
            }
        }
    }
    // v_cvt_scalef32_pk_f32_fp4 v[6:7], v2, v3 op_sel:[0,1]: the nibbles of byte 2.
    const PK_F32_FP4_B2: &[u8] = &[0x06, 0x10, 0x3f, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let r = run(PK_F32_FP4_B2, &[(2, &|l| (l as u32 & 0xff) << 16), (3, &|_| scale(-1))]);
    for l in 0..64 {
        let (lo, hi) = (l as u32 & 0xf, l as u32 >> 4 & 0xf);
        assert_eq!(f32::from_bits(r.wave.v(6, l)) as f64, E2M1.value(lo).unwrap_or(0.0) / 2.0, "lane {l}");
        assert_eq!(f32::from_bits(r.wave.v(7, l)) as f64, E2M1.value(hi).unwrap_or(0.0) / 2.0, "lane {l}");
    }
    // v_cvt_scalef32_pk_f16_fp4 v1, v2, v3 op_sel:[1,1]: byte 3, f16 halves.
    const PK_F16_FP4_B3: &[u8] = &[0x01, 0x18, 0x50, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let r = run(PK_F16_FP4_B3, &[(2, &|l| ((l as u32 * 3) & 0xff) << 24), (3, &|_| scale(4))]);
    for l in 0..64 {
        let b = (l as u32 * 3) & 0xff;
        let want = f16_of(E2M1.value(b & 0xf).unwrap_or(0.0) * 16.0) | f16_of(E2M1.value(b >> 4).unwrap_or(0.0) * 16.0) << 16;
        assert_eq!(r.wave.v(1, l), want, "lane {l}");
    }
    // v_cvt_scalef32_pk_bf16_fp8 v1, v2, v3 op_sel:[1,0]: word 1, bf16 halves.
    const PK_BF16_FP8_W1: &[u8] = &[0x01, 0x08, 0x69, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let r = run(PK_BF16_FP8_W1, &[(2, &|l| (l as u32 * 0x0305) << 16), (3, &|_| scale(-10))]);
    for l in 0..64 {
        let w = (l as u32 * 0x0305) & 0xffff;
        // A NaN code gives the quiet NaN with the code's sign.
        let bf = |c: u32| E4M3.value(c).map_or(0x7fc0 | (c & 0x80) << 8, |v| ((v / 1024.0) as f32).to_bits() >> 16);
        assert_eq!(r.wave.v(1, l), bf(w & 0xff) | bf(w >> 8) << 16, "lane {l}");
    }
}

/// Inputs for the narrowing tests: 64 f32 values across the formats' ranges and the specials.
fn inputs(l: usize) -> f32 {
    let special = [0.0, -0.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 448.0, 464.0, 480.0, 6.0, 7.0, 2f32.powi(-9), 2f32.powi(-10)];
    special.get(l).copied().unwrap_or_else(|| (l as f32 * 0.37).sin() * 2f32.powi(l as i32 % 24 - 12))
}

#[test]
fn narrowing_pairs_round_to_nearest_even_and_keep_the_rest() {
    // v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, v4 op_sel:[0,0,0,1]: {fp8(v3/s), fp8(v2/s)} into
    // the high word of v1.
    const PK_FP8_F32_HI: &[u8] = &[0x01, 0x40, 0x35, 0xd2, 0x02, 0x07, 0x12, 0x04];
    for k in [0, 2, -5] {
        let r = run(PK_FP8_F32_HI, &[(1, &|_| 0x1234_5678), (2, &|l| inputs(l).to_bits()), (3, &|l| inputs(63 - l).to_bits()), (4, &|_| scale(k))]);
        for l in 0..64 {
            let (a, b) = (inputs(l) as f64 / 2f64.powi(k), inputs(63 - l) as f64 / 2f64.powi(k));
            let got = r.wave.v(1, l);
            assert_eq!(got & 0xffff, 0x5678, "lane {l}");
            for (x, c) in [(a, got >> 16 & 0xff), (b, got >> 24)] {
                if x.is_nan() {
                    assert!(decode(Format::E4M3, c as u8).is_nan(), "lane {l}");
                } else {
                    assert_eq!(c, E4M3.nearest(x), "lane {l} k {k}: {x:e}");
                }
            }
        }
    }
    // v_cvt_scalef32_pk_fp4_f32 v1, v2, v3, v4 op_sel:[0,0,1,0]: into byte 1; FP4 saturates.
    const PK_FP4_F32_B1: &[u8] = &[0x01, 0x20, 0x3d, 0xd2, 0x02, 0x07, 0x12, 0x04];
    let r = run(PK_FP4_F32_B1, &[(1, &|_| 0xaabb_ccdd), (2, &|l| inputs(l).to_bits()), (3, &|l| (inputs(l) * 3.0).to_bits()), (4, &|_| scale(-1))]);
    for l in 0..64 {
        let want = E2M1.nearest(inputs(l) as f64 * 2.0) | E2M1.nearest(inputs(l) as f64 * 6.0) << 4;
        assert_eq!(r.wave.v(1, l), 0xaabb_00dd | want << 8, "lane {l}");
    }
    // v_cvt_scalef32_pk_fp8_f16 v1, v2, v3 op_sel:[0,0,1]: the f16 halves of v2, high word.
    const PK_FP8_F16_HI: &[u8] = &[0x01, 0x40, 0x40, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let h = |l: usize| (l as u32 * 0x0a3d + 0x3000) & 0xffff;
    let r = run(PK_FP8_F16_HI, &[(2, &|l| h(l) | h(l + 64) << 16), (3, &|_| scale(1))]);
    for l in 0..64 {
        let f16 = |b: u32| f16_value(b) / 2.0;
        let want = E4M3.nearest(f16(h(l))) | E4M3.nearest(f16(h(l + 64))) << 8;
        assert_eq!(r.wave.v(1, l) >> 16, want, "lane {l}");
    }
    // v_cvt_scalef32_pk_fp4_bf16 v1, v2, v3 op_sel:[0,0,1,1]: the bf16 halves, byte 3.
    const PK_FP4_BF16_B3: &[u8] = &[0x01, 0x60, 0x4d, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let b = |l: usize| inputs(l).to_bits() >> 16;
    let r = run(PK_FP4_BF16_B3, &[(2, &|l| b(l) | b(63 - l) << 16), (3, &|_| scale(0))]);
    for l in 0..64 {
        let bf = |x: u32| f32::from_bits(x << 16) as f64;
        let want = E2M1.nearest(bf(b(l))) | E2M1.nearest(bf(b(63 - l))) << 4;
        assert_eq!(r.wave.v(1, l), want << 24, "lane {l}");
    }
}

/// The value of f16 bits (from the IEEE binary16 definition).
fn f16_value(b: u32) -> f64 {
    let s = if b & 0x8000 != 0 { -1.0 } else { 1.0 };
    let (e, m) = ((b >> 10 & 0x1f) as i32, (b & 0x3ff) as f64);
    match e {
        0 => s * m * 2f64.powi(-24),
        31 if m == 0.0 => s * f64::INFINITY,
        31 => f64::NAN.copysign(s),
        _ => s * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// Stochastic rounding as modelled: the magnitude rounds up when the discarded fraction of
/// the code step, scaled to 2^32, plus the seed reaches 2^32 (checked only away from overflow).
fn sr_reference(d: &Def, x: f64, seed: u32) -> u32 {
    let sign = if x < 0.0 { 1 << (d.bits() - 1) } else { 0 };
    let a = x.abs();
    let down = (0..=d.max_code()).filter(|&c| d.value(c).unwrap_or(0.0) <= a).max().unwrap_or(0);
    let lo = d.value(down).unwrap_or(0.0);
    if lo == a || down == d.max_code() {
        return sign | down;
    }
    let hi = d.value(down + 1).unwrap_or(0.0);
    let frac = (((a - lo) / (hi - lo)) * 4294967296.0).floor() as u64;
    sign | if frac + seed as u64 >= 1 << 32 { down + 1 } else { down }
}

#[test]
fn stochastic_forms_use_the_seed_and_its_prng_successor() {
    let seeds = |l: usize| (l as u32).wrapping_mul(0x9e37_79b9);
    // v_cvt_scalef32_sr_fp8_f32 v1, v2, v3, v4 op_sel:[0,0,1,0]: byte 1 of v1.
    const SR_FP8_F32_B1: &[u8] = &[0x01, 0x20, 0x37, 0xd2, 0x02, 0x07, 0x12, 0x04];
    let x = |l: usize| 1.0 + l as f32 / 64.0 + 1.0 / 256.0;
    let r = run(SR_FP8_F32_B1, &[(1, &|_| 0x1122_3344), (2, &|l| x(l).to_bits()), (3, &seeds), (4, &|_| scale(-2))]);
    for l in 0..64 {
        let want = sr_reference(&E4M3, x(l) as f64 * 4.0, seeds(l));
        assert_eq!(r.wave.v(1, l), 0x1122_0044 | want << 8, "lane {l}");
    }
    // v_cvt_scalef32_sr_pk_fp4_f32 v1, v[6:7], v3, v4 op_sel:[0,0,0,1]: the second element
    // with v_prng_b32(seed) = (seed << 1) ^ (seed[31] ? 197 : 0).
    const SR_PK_FP4_F32_B2: &[u8] = &[0x01, 0x40, 0x3e, 0xd2, 0x06, 0x07, 0x12, 0x04];
    let y = |l: usize| 0.3 + l as f32 * 0.07;
    let r = run(SR_PK_FP4_F32_B2, &[(6, &|l| y(l).to_bits()), (7, &|l| (-y(l) * 2.0).to_bits()), (3, &seeds), (4, &|_| scale(0))]);
    for l in 0..64 {
        let s2 = seeds(l) << 1 ^ if seeds(l) >> 31 == 1 { 197 } else { 0 };
        let want = sr_reference(&E2M1, y(l) as f64, seeds(l)) | sr_reference(&E2M1, -y(l) as f64 * 2.0, s2) << 4;
        assert_eq!(r.wave.v(1, l), want << 16, "lane {l}");
    }
}

#[test]
fn stochastic_sixteen_bit_sources_select_their_half() {
    let seeds = |l: usize| (l as u32 + 7).wrapping_mul(0x85eb_ca6b);
    // v_cvt_scalef32_sr_bf8_f16 v1, v2, v3, v4 op_sel:[1,0,1,1]: the high f16 of v2, byte 3.
    const SR_BF8_F16_HI_B3: &[u8] = &[0x01, 0x68, 0x43, 0xd2, 0x02, 0x07, 0x12, 0x04];
    let h = |l: usize| 0x3c00 + (l as u32) * 0x25;
    let r = run(SR_BF8_F16_HI_B3, &[(1, &|_| 0x00aa_bbcc), (2, &|l| h(l) << 16 | 0x7c00), (3, &seeds), (4, &|_| scale(3))]);
    for l in 0..64 {
        let want = sr_reference(&E5M2, f16_value(h(l)) / 8.0, seeds(l));
        assert_eq!(r.wave.v(1, l), 0x00aa_bbcc | want << 24, "lane {l}");
    }
    // v_cvt_scalef32_sr_pk_fp4_bf16 v1, v2, v3, v4: the bf16 halves of v2, byte 0.
    const SR_PK_FP4_BF16: &[u8] = &[0x01, 0x00, 0x4f, 0xd2, 0x02, 0x07, 0x12, 0x04];
    let b = |l: usize| (0.25f32 + l as f32 * 0.09).to_bits() >> 16;
    let r = run(SR_PK_FP4_BF16, &[(1, &|_| 0xffff_ffff), (2, &|l| b(l) | b(63 - l) << 16), (3, &seeds), (4, &|_| scale(-1))]);
    for l in 0..64 {
        let bf = |x: u32| f32::from_bits(x << 16) as f64 * 2.0;
        let want = sr_reference(&E2M1, bf(b(l)), seeds(l)) | sr_reference(&E2M1, bf(b(63 - l)), prng(seeds(l))) << 4;
        assert_eq!(r.wave.v(1, l), 0xffff_ff00 | want, "lane {l}");
    }
}

/// 6-bit field `i` of a 192-bit value in six dwords.
fn field6(regs: &[u32], i: usize) -> u32 {
    let bit = |b: usize| regs[b / 32] >> (b % 32) & 1;
    (0..6).map(|j| bit(6 * i + j) << j).sum()
}

#[test]
fn thirty_two_element_fp6_forms_follow_the_192_bit_layout() {
    // v_cvt_scalef32_pk32_f32_fp6 v[32:63], v[8:13], v3: element i from bits [6i+5:6i].
    const PK32_F32_FP6: &[u8] = &[0x20, 0x00, 0x56, 0xd2, 0x08, 0x07, 0x02, 0x00];
    let word = |l: usize, r: usize| (l as u32 + 1).wrapping_mul(0x2545_f491).rotate_left(r as u32 * 5);
    let mut r = Rig::new(Processor::Gfx950, true);
    (0..6).for_each(|reg| r.set_v(8 + reg, |l| word(l, reg)));
    r.set_v(3, |_| scale(2));
    r.run(PK32_F32_FP6);
    for l in 0..64 {
        let src: Vec<u32> = (0..6).map(|i| word(l, i)).collect();
        for i in 0..32 {
            let want = E2M3.value(field6(&src, i)).unwrap_or(0.0) * 4.0;
            assert_eq!(f32::from_bits(r.wave.v(32 + i, l)) as f64, want, "lane {l} element {i}");
        }
    }
    // v_cvt_scalef32_pk32_fp6_f16 v[8:13], v[32:47], v3 and back through BF6 with
    // v_cvt_scalef32_2xpk16_bf6_f32 v[8:13], v[32:47], v[64:79], v3 (S0/S1 interleaved).
    const PK32_FP6_F16: &[u8] = &[0x08, 0x00, 0x58, 0xd2, 0x20, 0x07, 0x02, 0x00];
    const PK16X2_BF6_F32: &[u8] = &[0x08, 0x00, 0x53, 0xd2, 0x20, 0x81, 0x0e, 0x04];
    let h = |l: usize, i: usize| ((l * 32 + i) as u32 * 0x1b3 + 0x2c00) & 0xffff;
    let mut rig = Rig::new(Processor::Gfx950, true);
    for reg in 0..16 {
        rig.set_v(32 + reg, |l| h(l, 2 * reg) | h(l, 2 * reg + 1) << 16);
    }
    rig.set_v(3, |_| scale(-1));
    rig.run(PK32_FP6_F16);
    for l in 0..64 {
        let out: Vec<u32> = (0..6).map(|r| rig.wave.v(8 + r, l)).collect();
        for i in 0..32 {
            assert_eq!(field6(&out, i), E2M3.nearest(f16_value(h(l, i)) * 2.0), "lane {l} element {i}");
        }
    }
    let f = |l: usize, i: usize| inputs((l + i * 7) % 64);
    for reg in 0..16 {
        rig.set_v(32 + reg, |l| f(l, reg).to_bits());
        rig.set_v(64 + reg, |l| f(l, reg + 16).to_bits());
    }
    rig.set_v(3, |_| scale(3));
    rig.run(PK16X2_BF6_F32);
    for l in 0..64 {
        let out: Vec<u32> = (0..6).map(|r| rig.wave.v(8 + r, l)).collect();
        for p in 0..16 {
            assert_eq!(field6(&out, 2 * p), E3M2.nearest(f(l, p) as f64 / 8.0), "lane {l} S0 {p}");
            assert_eq!(field6(&out, 2 * p + 1), E3M2.nearest(f(l, p + 16) as f64 / 8.0), "lane {l} S1 {p}");
        }
    }
}

#[test]
fn stochastic_thirty_two_element_form_chains_the_prng() {
    // v_cvt_scalef32_sr_pk32_fp6_f32 v[8:13], v[32:63], v2, v3.
    const SR_PK32_FP6_F32: &[u8] = &[0x08, 0x00, 0x54, 0xd2, 0x20, 0x05, 0x0e, 0x04];
    let x = |l: usize, i: usize| 0.1 + ((l * 32 + i) % 97) as f32 * 0.077;
    let mut rig = Rig::new(Processor::Gfx950, true);
    for i in 0..32 {
        rig.set_v(32 + i, |l| x(l, i).to_bits());
    }
    rig.set_v(2, |l| 0x8000_0001u32.wrapping_add(l as u32 * 0x0101_0101));
    rig.set_v(3, |_| scale(0));
    rig.run(SR_PK32_FP6_F32);
    for l in 0..64 {
        let out: Vec<u32> = (0..6).map(|r| rig.wave.v(8 + r, l)).collect();
        let mut seed = 0x8000_0001u32.wrapping_add(l as u32 * 0x0101_0101);
        for i in 0..32 {
            assert_eq!(field6(&out, i), sr_reference(&E2M3, x(l, i) as f64, seed), "lane {l} element {i}");
            seed = seed << 1 ^ if seed >> 31 == 1 { 197 } else { 0 };
        }
    }
}

/// V_PRNG_B32 per the CDNA4 pseudo-code.
fn prng(x: u32) -> u32 {
    (x << 1) ^ if x >> 31 == 1 { 197 } else { 0 }
}

#[test]
fn prng_and_packed_shifts() {
    const PRNG_E32: &[u8] = &[0x02, 0xb1, 0x02, 0x7e]; // v_prng_b32_e32 v1, v2
    const PRNG_E64: &[u8] = &[0x01, 0x00, 0x98, 0xd1, 0x02, 0x01, 0x00, 0x00]; // v_prng_b32_e64 v1, v2
    let x = |l: usize| (l as u32).wrapping_mul(0x8765_4321) ^ (l as u32) << 31;
    for code in [PRNG_E32, PRNG_E64] {
        let r = run(code, &[(2, &x)]);
        (0..64).for_each(|l| assert_eq!(r.wave.v(1, l), prng(x(l)), "lane {l}"));
    }
    // v_ashr_pk_i8_i32 v1, v2, v3, v4 op_sel:[0,0,0,1] (high half; low kept) and
    // v_ashr_pk_u8_i32 v1, v2, v3, v4: S0 >> S2[4:0] and S1 >> S2[4:0], saturated.
    const ASHR_I8_HI: &[u8] = &[0x01, 0x40, 0x65, 0xd2, 0x02, 0x07, 0x12, 0x04];
    const ASHR_U8: &[u8] = &[0x01, 0x00, 0x66, 0xd2, 0x02, 0x07, 0x12, 0x04];
    let a = |l: usize| (l as i32 - 32).wrapping_mul(0x0123_4567) as u32;
    let b = |l: usize| (l as i32 * 977 - 20000) as u32;
    let s = |l: usize| (l as u32 * 7) | 0xffff_ff00; // only bits [4:0] count
    let sat = |v: i64, lo: i64, hi: i64| v.clamp(lo, hi) as u8 as u32;
    let sh = |v: u32, l: usize| (v as i32 as i64) >> (s(l) & 31);
    let r = run(ASHR_I8_HI, &[(1, &|_| 0x5555_aaaa), (2, &a), (3, &b), (4, &s)]);
    for l in 0..64 {
        let want = sat(sh(a(l), l), -128, 127) | sat(sh(b(l), l), -128, 127) << 8;
        assert_eq!(r.wave.v(1, l), want << 16 | 0xaaaa, "lane {l}");
    }
    let r = run(ASHR_U8, &[(1, &|_| 0x5555_aaaa), (2, &a), (3, &b), (4, &s)]);
    for l in 0..64 {
        let want = sat(sh(a(l), l), 0, 255) | sat(sh(b(l), l), 0, 255) << 8;
        assert_eq!(r.wave.v(1, l) & 0xffff, want, "lane {l}");
    }
}

/// IEEE 754-2019 minimum/maximum of f16 values: NaN if any input is NaN, -0 below +0.
fn minmax3(x: [u32; 3], max: bool) -> Option<u32> {
    if x.iter().any(|&h| f16_value(h).is_nan()) {
        return None;
    }
    let key = |h: &u32| {
        let v = f16_value(*h);
        (v, if v == 0.0 && h & 0x8000 != 0 { 0 } else { 1 })
    };
    let order = |p: &u32, q: &u32| key(p).partial_cmp(&key(q)).unwrap_or(std::cmp::Ordering::Equal);
    if max {
        x.into_iter().max_by(order)
    } else {
        x.into_iter().min_by(order)
    }
}

#[test]
fn packed_minimum3_and_maximum3() {
    const MAX3: &[u8] = &[0x01, 0x40, 0x9c, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_pk_maximum3_f16 v1, v2, v3, v4
    const MIN3: &[u8] = &[0x01, 0x40, 0x9b, 0xd3, 0x02, 0x07, 0x12, 0x1c]; // v_pk_minimum3_f16 v1, v2, v3, v4
    let pool = [0x0000u32, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x0400, 0x4248, 0xc248, 0x3555];
    let h = |l: usize, i: usize| pool[(l * (i + 3) + i * 5) % pool.len()];
    let pair = |i: usize| move |l: usize| h(l, i) | h(l + 64, i) << 16;
    for (code, max) in [(MAX3, true), (MIN3, false)] {
        let (p0, p1, p2) = (pair(0), pair(1), pair(2));
        let r = run(code, &[(2, &p0), (3, &p1), (4, &p2)]);
        for l in 0..64 {
            for (half, lane) in [(0, l), (16, l + 64)] {
                let got = r.wave.v(1, l) >> half & 0xffff;
                match minmax3([h(lane, 0), h(lane, 1), h(lane, 2)], max) {
                    Some(want) => assert_eq!(got, want, "lane {l} half {half}"),
                    None => assert!(f16_value(got).is_nan(), "lane {l} half {half}"),
                }
            }
        }
    }
}

/// The f16 code nearest `x` (ties to the even code), by search; infinity past the range.
fn f16_nearest(x: f32) -> u32 {
    let a = (x as f64).abs();
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    let best = (0..0x7c00u32).min_by(|&p, &q| {
        let (dp, dq) = ((f16_value(p) - a).abs(), (f16_value(q) - a).abs());
        dp.partial_cmp(&dq).unwrap_or(std::cmp::Ordering::Equal).then((p & 1).cmp(&(q & 1)))
    });
    sign | best.unwrap_or(0)
}

/// The bf16 code nearest `x` (ties to the even code): the two candidates around it.
fn bf16_nearest(x: f32) -> u32 {
    let lo = x.to_bits() >> 16;
    let (vl, vh) = (f32::from_bits(lo << 16) as f64, f32::from_bits((lo + 1) << 16) as f64);
    let (dl, dh) = ((x as f64 - vl).abs(), (vh - x as f64).abs());
    if dh < dl || (dh == dl && lo & 1 == 1) {
        lo + 1
    } else {
        lo
    }
}

#[test]
fn f16_and_bf16_conversions() {
    const PK_BF16: &[u8] = &[0x01, 0x00, 0x68, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_bf16_f32 v1, v2, v3
    const PK_F16: &[u8] = &[0x01, 0x00, 0x67, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_f16_f32 v1, v2, v3
    let x = |l: usize| f32::from_bits(0x3f80_0000 + (l as u32) * 0x0001_8001 + ((l as u32 & 3) << 15));
    let y = |l: usize| -x(l) * 1000.0;
    let r = run(PK_BF16, &[(2, &|l| x(l).to_bits()), (3, &|l| y(l).to_bits())]);
    (0..64).for_each(|l| assert_eq!(r.wave.v(1, l), bf16_nearest(x(l)) | bf16_nearest(y(l)) << 16, "lane {l}"));
    let r = run(PK_F16, &[(2, &|l| x(l).to_bits()), (3, &|l| y(l).to_bits())]);
    (0..64).for_each(|l| assert_eq!(r.wave.v(1, l), f16_nearest(x(l)) | f16_nearest(y(l)) << 16, "lane {l}"));
    // v_cvt_f32_bf16: {S0.b16, 16'0}; the SDWA form reads word 1, the VOP3 form negates.
    const F32_BF16: &[u8] = &[0x02, 0xb7, 0x02, 0x7e];
    const F32_BF16_W1: &[u8] = &[0xf9, 0xb6, 0x02, 0x7e, 0x02, 0x16, 0x05, 0x00];
    const F32_BF16_NEG: &[u8] = &[0x01, 0x00, 0x9b, 0xd1, 0x02, 0x01, 0x00, 0x20];
    let v = |l: usize| (l as u32 * 0x0407_0301) ^ 0x3f80_4100;
    for (code, want) in
        [(F32_BF16, &(|w: u32| w << 16) as &dyn Fn(u32) -> u32), (F32_BF16_W1, &|w| w & 0xffff_0000), (F32_BF16_NEG, &|w| (w << 16) ^ 0x8000_0000)]
    {
        let r = run(code, &[(2, &v)]);
        (0..64).for_each(|l| assert_eq!(r.wave.v(1, l), want(v(l)), "lane {l}"));
    }
}

#[test]
fn stochastic_f16_and_bf16() {
    // v_cvt_sr_f16_f32 v1, v2, v3 (low half, high kept) and v_cvt_sr_bf16_f32 v1, v2, v3
    // op_sel:[0,0,1] (high half, low kept).
    const SR_F16: &[u8] = &[0x01, 0x00, 0xa6, 0xd2, 0x02, 0x07, 0x02, 0x00];
    const SR_BF16_HI: &[u8] = &[0x01, 0x40, 0xa7, 0xd2, 0x02, 0x07, 0x02, 0x00];
    let x = |l: usize| 1.0f32 + (l as f32) / 4096.0 + 1.0 / 65536.0;
    let seed = |l: usize| (l as u32).wrapping_mul(0x9e37_79b9);
    // The model: round up when the discarded fraction of the step, scaled to 2^32, plus the
    // seed carries.
    let sr = |a: f64, lo: f64, hi: f64, s: u32| ((((a - lo) / (hi - lo)) * 4294967296.0).floor() as u64 + s as u64) >> 32;
    let r = run(SR_F16, &[(1, &|_| 0xabcd_0000), (2, &|l| x(l).to_bits()), (3, &seed)]);
    for l in 0..64 {
        let down = (x(l) as f64 - 1.0) * 1024.0;
        let code = 0x3c00 + down.floor() as u32;
        let up = sr(x(l) as f64, f16_value(code), f16_value(code + 1), seed(l)) as u32;
        assert_eq!(r.wave.v(1, l), 0xabcd_0000 | (code + up), "lane {l}");
    }
    let r = run(SR_BF16_HI, &[(1, &|_| 0x1234), (2, &|l| x(l).to_bits()), (3, &seed)]);
    for l in 0..64 {
        let code = x(l).to_bits() >> 16;
        let (lo, hi) = (f32::from_bits(code << 16) as f64, f32::from_bits((code + 1) << 16) as f64);
        let up = sr(x(l) as f64, lo, hi, seed(l)) as u32;
        assert_eq!(r.wave.v(1, l), (code + up) << 16 | 0x1234, "lane {l}");
    }
}

#[test]
fn permlane_swaps_exchange_lane_groups() {
    const SWAP16: &[u8] = &[0x02, 0xb3, 0x02, 0x7e]; // v_permlane16_swap_b32_e32 v1, v2
    const SWAP32: &[u8] = &[0x02, 0xb5, 0x02, 0x7e]; // v_permlane32_swap_b32_e32 v1, v2
    let (d, s) = (|l: usize| 0x100 + l as u32, |l: usize| 0x200 + l as u32);
    // PERMLANE16_SWAP: src lanes 0-15 <-> dst lanes 16-31 in each 32-lane half.
    let r = run(SWAP16, &[(1, &d), (2, &s)]);
    for l in 0..64 {
        let (want_d, want_s) = match l % 32 {
            0..=15 => (d(l), d(l + 16)),
            _ => (s(l - 16), s(l)),
        };
        assert_eq!((r.wave.v(1, l), r.wave.v(2, l)), (want_d, want_s), "lane {l}");
    }
    // PERMLANE32_SWAP: src lanes 0-31 <-> dst lanes 32-63.
    let r = run(SWAP32, &[(1, &d), (2, &s)]);
    for l in 0..64 {
        let (want_d, want_s) = if l < 32 { (d(l), d(l + 32)) } else { (s(l - 32), s(l)) };
        assert_eq!((r.wave.v(1, l), r.wave.v(2, l)), (want_d, want_s), "lane {l}");
    }
}

#[test]
fn quad_sads() {
    const QSAD: &[u8] = &[0x06, 0x00, 0xe5, 0xd1, 0x08, 0x07, 0x2a, 0x04]; // v_qsad_pk_u16_u8 v[6:7], v[8:9], v3, v[10:11]
    const MQSAD: &[u8] = &[0x06, 0x00, 0xe6, 0xd1, 0x08, 0x07, 0x2a, 0x04]; // v_mqsad_pk_u16_u8 v[6:7], v[8:9], v3, v[10:11]
    let src = |l: usize| (l as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let rf = |l: usize| (l as u32).wrapping_mul(0x0100_7f01) & 0xff00_ffff;
    let acc = |l: usize| (l as u64).wrapping_mul(0x0003_fff1_0002_fff5);
    for (code, masked) in [(QSAD, false), (MQSAD, true)] {
        let r = run(code, &[(8, &|l| src(l) as u32), (9, &|l| (src(l) >> 32) as u32), (3, &rf), (10, &|l| acc(l) as u32), (11, &|l| (acc(l) >> 32) as u32)]);
        for l in 0..64 {
            let mut want = 0u64;
            for i in 0..4 {
                let win = (src(l) >> (8 * i)) as u32;
                let bytes = (0..4).map(|b| (win >> (8 * b) & 0xff, rf(l) >> (8 * b) & 0xff));
                let sad: u64 = bytes.filter(|&(_, y)| !(masked && y == 0)).map(|(x, y)| x.abs_diff(y) as u64).sum();
                want |= (((acc(l) >> (16 * i) & 0xffff) + sad) & 0xffff) << (16 * i);
            }
            assert_eq!(r.wave.v(6, l) as u64 | (r.wave.v(7, l) as u64) << 32, want, "lane {l} masked {masked}");
        }
    }
}

#[test]
fn mqsad_u32_u8_accumulates_four_dwords() {
    const MQSAD: &[u8] = &[0x14, 0x00, 0xe7, 0xd1, 0x08, 0x07, 0x2a, 0x04]; // v_mqsad_u32_u8 v[20:23], v[8:9], v3, v[10:13]
    let src = |l: usize| (l as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let rf = |l: usize| (l as u32).wrapping_mul(0x0100_7f01) & 0xff00_ffff;
    let acc = |l: usize, i: usize| (l as u32 * 1000 + i as u32).wrapping_mul(0x1357_9bdf);
    let mut rig = Rig::new(Processor::Gfx950, true);
    rig.set_v(8, |l| src(l) as u32);
    rig.set_v(9, |l| (src(l) >> 32) as u32);
    rig.set_v(3, rf);
    (0..4).for_each(|i| rig.set_v(10 + i, |l| acc(l, i)));
    rig.run(MQSAD);
    for l in 0..64 {
        for i in 0..4 {
            let win = (src(l) >> (8 * i)) as u32;
            let bytes = (0..4).map(|b| (win >> (8 * b) & 0xff, rf(l) >> (8 * b) & 0xff));
            let sad: u32 = bytes.filter(|&(_, y)| y != 0).map(|(x, y)| x.abs_diff(y)).sum();
            assert_eq!(rig.wave.v(20 + i, l), acc(l, i).wrapping_add(sad), "lane {l} dword {i}");
        }
    }
}

#[test]
fn legacy_exp_and_log_at_exact_points() {
    const EXP: &[u8] = &[0x02, 0x97, 0x02, 0x7e]; // v_exp_legacy_f32_e32 v1, v2
    const LOG: &[u8] = &[0x02, 0x99, 0x02, 0x7e]; // v_log_legacy_f32_e32 v1, v2
    let k = |l: usize| l as f32 - 32.0;
    let r = run(EXP, &[(2, &|l| k(l).to_bits())]);
    (0..64).for_each(|l| assert_eq!(f32::from_bits(r.wave.v(1, l)), 2f32.powi(l as i32 - 32), "lane {l}"));
    let r = run(LOG, &[(2, &|l| 2f32.powi(l as i32 - 32).to_bits())]);
    (0..64).for_each(|l| assert_eq!(f32::from_bits(r.wave.v(1, l)), k(l), "lane {l}"));
}

#[test]
fn inline_float_constants_are_scales() {
    // v_cvt_scalef32_pk_fp8_f32 v1, v2, v3, 1.0: scale 2^0.
    const PK_FP8_ONE: &[u8] = &[0x01, 0x00, 0x35, 0xd2, 0x02, 0x07, 0xca, 0x03];
    let r = run(PK_FP8_ONE, &[(2, &|_| 3.0f32.to_bits()), (3, &|_| (-0.5f32).to_bits())]);
    assert_eq!(r.wave.v(1, 0), E4M3.nearest(3.0) | E4M3.nearest(-0.5) << 8);
    // v_cvt_scalef32_pk_f32_fp8 v[6:7], v2, 4.0: scale 2^2.
    const PK_F32_FOUR: &[u8] = &[0x06, 0x00, 0x39, 0xd2, 0x02, 0xed, 0x01, 0x00];
    let r = run(PK_F32_FOUR, &[(2, &|_| 0x3840)]);
    assert_eq!((f32::from_bits(r.wave.v(6, 0)), f32::from_bits(r.wave.v(7, 0))), (8.0, 4.0));
    // v_cvt_scalef32_pk32_f32_fp6 v[32:63], v[8:13], 0.5: scale 2^-1; E2M3 0x08 = 1.0.
    const PK32_HALF: &[u8] = &[0x20, 0x00, 0x56, 0xd2, 0x08, 0xe1, 0x01, 0x00];
    let r = run(PK32_HALF, &[(8, &|_| 0x08)]);
    assert_eq!((f32::from_bits(r.wave.v(32, 0)), f32::from_bits(r.wave.v(33, 0))), (0.5, 0.0));
}
