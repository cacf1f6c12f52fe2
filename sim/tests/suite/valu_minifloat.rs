//! FP8/BF8: all 256 codes of each format decode to the value its definition gives (OCP OFP8
//! v1.0 §5 for E4M3/E5M2; CDNA3 ISA "FP8/BF8" for the FNUZ variants), computed here from
//! sign/exponent/mantissa arithmetic; rounding and overflow of the conversions; the VALU
//! conversion instructions on gfx942 and gfx1200. Encodings from `llvm-mc-19 -show-encoding`.

use hipscope_isa::Processor;
use hipscope_sim::exec::valu::minifloat::{decode, encode, encode_sr, Format};
use hipscope_sim::testing::Rig;

/// The reference value of `code`: (exponent bits, mantissa bits, bias, kind).
fn reference(code: u8, e_bits: u32, m_bits: u32, bias: i32, fnuz: bool, ieee: bool) -> Option<f64> {
    let s = if code >> 7 == 1 { -1.0 } else { 1.0 };
    let e = (code as u32 >> m_bits) & ((1 << e_bits) - 1);
    let m = code as u32 & ((1 << m_bits) - 1);
    let top = (1 << e_bits) - 1;
    if fnuz && code == 0x80 {
        return None; // the one NaN
    }
    if ieee && e == top {
        return if m == 0 { Some(s * f64::INFINITY) } else { None };
    }
    if !fnuz && !ieee && e == top && m == (1 << m_bits) - 1 {
        return None; // OCP E4M3: S.1111.111
    }
    let frac = m as f64 / (1u32 << m_bits) as f64;
    Some(if e == 0 { s * frac * 2f64.powi(1 - bias) } else { s * (1.0 + frac) * 2f64.powi(e as i32 - bias) })
}

#[test]
fn every_code_decodes_to_its_definition() {
    let formats = [
        (Format::E4M3, 4, 3, 7, false, false),
        (Format::E5M2, 5, 2, 15, false, true),
        (Format::E4M3Fnuz, 4, 3, 8, true, false),
        (Format::E5M2Fnuz, 5, 2, 16, true, false),
    ];
    for (f, e, m, bias, fnuz, ieee) in formats {
        for code in 0..=255u8 {
            let got = decode(f, code);
            match reference(code, e, m, bias, fnuz, ieee) {
                None => assert!(got.is_nan(), "{f:?} {code:#04x} should be NaN, got {got}"),
                Some(v) => assert_eq!(got as f64, v, "{f:?} {code:#04x}"),
            }
        }
    }
    // Extremes named by the specifications.
    assert_eq!(Format::E4M3.max(), 448.0);
    assert_eq!(Format::E5M2.max(), 57344.0);
    assert_eq!(Format::E4M3Fnuz.max(), 240.0);
    assert_eq!(Format::E5M2Fnuz.max(), 57344.0);
}

#[test]
fn encoding_round_trips_every_finite_code() {
    for f in [Format::E4M3, Format::E5M2, Format::E4M3Fnuz, Format::E5M2Fnuz] {
        for code in 0..=255u8 {
            let v = decode(f, code);
            if v.is_finite() {
                assert_eq!(encode(f, v, false), code, "{f:?} {code:#04x} = {v}");
            }
        }
    }
}

#[test]
fn rounding_is_nearest_even_and_overflow_follows_the_format() {
    // E4M3 near 1: codes 0x38 = 1.0, 0x39 = 1.125; 1.0625 is the tie -> even (1.0).
    assert_eq!(encode(Format::E4M3, 1.0625, false), 0x38);
    assert_eq!(encode(Format::E4M3, 1.0626, false), 0x39);
    // 1.1875 ties between 1.125 (odd) and 1.25 (even).
    assert_eq!(encode(Format::E4M3, 1.1875, false), 0x3a);
    // Smallest E4M3 denormal is 2^-9; half of it ties to zero, a bit more rounds up.
    assert_eq!(encode(Format::E4M3, 2f32.powi(-10), false), 0x00);
    assert_eq!(encode(Format::E4M3, 1.01 * 2f32.powi(-10), false), 0x01);
    assert_eq!(encode(Format::E4M3, -0.0, false), 0x80);
    assert_eq!(encode(Format::E4M3Fnuz, -0.0, false), 0x00, "FNUZ has no negative zero");
    // Overflow: E4M3 -> NaN, E5M2 -> infinity, FNUZ -> 0x80; saturation -> max.
    assert_eq!(encode(Format::E4M3, 500.0, false), 0x7f);
    assert_eq!(encode(Format::E4M3, 460.0, false), 0x7e, "below the midpoint to the next step rounds to 448");
    assert_eq!(encode(Format::E4M3, -500.0, true), 0xfe);
    assert_eq!(encode(Format::E5M2, 1.0e6, false), 0x7c);
    assert_eq!(encode(Format::E5M2, f32::NEG_INFINITY, false), 0xfc);
    assert_eq!(encode(Format::E4M3Fnuz, 300.0, false), 0x80);
    assert_eq!(encode(Format::E4M3Fnuz, 300.0, true), 0x7f);
    assert_eq!(encode(Format::E5M2Fnuz, f32::NAN, true), 0x80);
    // Stochastic rounding: 1.0625 is halfway; seed 0 rounds down, a seed of 2^31 carries.
    assert_eq!(encode_sr(Format::E4M3, 1.0625, 0, false), 0x38);
    assert_eq!(encode_sr(Format::E4M3, 1.0625, 0x8000_0000, false), 0x39);
    assert_eq!(encode_sr(Format::E4M3, 1.125, u32::MAX, false), 0x39, "exact values never move");
}

fn run(p: Processor, code: &[u8], v1: u32, v2: &[u32], v3: u32) -> Vec<[u32; 2]> {
    let mut r = Rig::new(p, true);
    r.set_v(1, |_| v1);
    r.set_v(2, |l| v2[l % v2.len()]);
    r.set_v(3, |_| v3);
    r.set_v(4, |_| 0);
    r.set_v(5, |_| 0);
    r.run(code);
    (0..v2.len()).map(|l| [r.wave.v(1, l), r.wave.v(4, l)]).collect()
}

#[test]
fn gfx942_conversions_use_fnuz_and_select_bytes() {
    const F32_FP8: &[u8] = &[0x02, 0xa9, 0x02, 0x7e]; // v_cvt_f32_fp8_e32 v1, v2
    const F32_BF8_B2: &[u8] = &[0xf9, 0xaa, 0x02, 0x7e, 0x02, 0x06, 0x02, 0x00]; // v_cvt_f32_bf8_sdwa v1, v2 src0_sel:BYTE_2
    const PK_FP8_HI: &[u8] = &[0x01, 0x40, 0xa2, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]
    const SR_BF8_B3: &[u8] = &[0x01, 0x60, 0xa5, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_sr_bf8_f32 v1, v2, v3 op_sel:[0,0,1,1]
                                                                                // FNUZ FP8 0x40 = 2^(8-8) = 1.0; 0x80 = NaN.
    let out = run(Processor::Gfx942, F32_FP8, 0, &[0x40, 0x80, 0x7f], 0);
    assert_eq!(out[0][0], 1.0f32.to_bits());
    assert!(f32::from_bits(out[1][0]).is_nan());
    assert_eq!(out[2][0], 240.0f32.to_bits());
    // BF8 FNUZ byte 2 = 0x44 = 2^(17-16) = 2.0.
    assert_eq!(run(Processor::Gfx942, F32_BF8_B2, 0, &[0x0044_0000], 0)[0][0], 2.0f32.to_bits());
    // {S1, S0} = {fp8(2.0)=0x48, fp8(1.0)=0x40} into the high word; low word kept.
    assert_eq!(run(Processor::Gfx942, PK_FP8_HI, 0x1234_5678, &[1.0f32.to_bits()], 2.0f32.to_bits())[0][0], 0x4840_5678);
    // Stochastic BF8 of 1.0 (exact, 0x40 in FNUZ) into byte 3.
    assert_eq!(run(Processor::Gfx942, SR_BF8_B3, 0x1234_5678, &[1.0f32.to_bits()], 0xffff_ffff)[0][0], 0x4034_5678);
}

/// gfx950 (CDNA4) keeps gfx942's encodings but converts to and from the OCP formats (ROCm's
/// `hip_fp8.h` selects the OCP types for gfx950): OCP E4M3 0x38 = 1.0, 0x7f = NaN, 0x7e = 448.
#[test]
fn gfx950_conversions_use_ocp() {
    const F32_FP8: &[u8] = &[0x02, 0xa9, 0x02, 0x7e]; // v_cvt_f32_fp8_e32 v1, v2
    const PK_FP8_HI: &[u8] = &[0x01, 0x40, 0xa2, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_fp8_f32 v1, v2, v3 op_sel:[0,0,1]
    let out = run(Processor::Gfx950, F32_FP8, 0, &[0x38, 0x7f, 0x7e], 0);
    assert_eq!(out[0][0], 1.0f32.to_bits());
    assert!(f32::from_bits(out[1][0]).is_nan());
    assert_eq!(out[2][0], 448.0f32.to_bits());
    // {S1, S0} = {fp8(2.0)=0x40, fp8(1.0)=0x38} into the high word; low word kept.
    assert_eq!(run(Processor::Gfx950, PK_FP8_HI, 0x1234_5678, &[1.0f32.to_bits()], 2.0f32.to_bits())[0][0], 0x4038_5678);
}

#[test]
fn gfx12_conversions_use_ocp() {
    const F32_FP8_B2: &[u8] = &[0x01, 0x08, 0xec, 0xd5, 0x02, 0x01, 0x00, 0x00]; // v_cvt_f32_fp8_e64 v1, v2 byte_sel:2
    const PK_BF8: &[u8] = &[0x01, 0x00, 0x6a, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_cvt_pk_bf8_f32 v1, v2, v3
    const PK_F32_BF8: &[u8] = &[0x02, 0xdf, 0x08, 0x7e]; // v_cvt_pk_f32_bf8_e32 v[4:5], v2
    const SR_FP8_B1: &[u8] = &[0x01, 0x20, 0x6b, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_cvt_sr_fp8_f32 v1, v2, v3 byte_sel:1
                                                                                // OCP E4M3 0x38 = 1.0 in byte 2; 0x7e = 448.
    assert_eq!(run(Processor::Gfx1200, F32_FP8_B2, 0, &[0x0038_0000], 0)[0][0], 1.0f32.to_bits());
    assert_eq!(run(Processor::Gfx1200, F32_FP8_B2, 0, &[0x007e_0000], 0)[0][0], 448.0f32.to_bits());
    // E5M2: 1.0 = 0x3c, -2.0 = 0xc0; overflow to infinity 0x7c; low word written, high kept.
    assert_eq!(run(Processor::Gfx1200, PK_BF8, 0xabcd_0000, &[1.0f32.to_bits()], (-2.0f32).to_bits())[0][0], 0xabcd_c03c);
    assert_eq!(run(Processor::Gfx1200, PK_BF8, 0, &[1.0e9f32.to_bits()], f32::NAN.to_bits())[0][0] & 0x7f7f, 0x7f7c);
    let mut r = Rig::new(Processor::Gfx1200, false);
    r.set_v(2, |_| 0xc03c);
    r.run(PK_F32_BF8);
    assert_eq!((r.wave.v(4, 0), r.wave.v(5, 0)), (1.0f32.to_bits(), (-2.0f32).to_bits()));
    assert_eq!(run(Processor::Gfx1200, SR_FP8_B1, 0xffff_ffff, &[1.0f32.to_bits()], 12345)[0][0], 0xffff_38ff);
    // MODE.FP16_OVFL (bit 23): overflow saturates to the largest finite value (E5M2 0x7b, and
    // 0xfb for the negative one); NaN stays NaN.
    let mut r = Rig::new(Processor::Gfx1200, false);
    r.wave.mode |= 1 << 23;
    r.set_v(2, |_| 1.0e9f32.to_bits());
    r.set_v(3, |_| f32::NEG_INFINITY.to_bits());
    r.run(PK_BF8);
    assert_eq!(r.wave.v(1, 0) & 0xffff, 0xfb7b);
}
