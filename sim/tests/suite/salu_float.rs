//! GFX11.5/GFX12 SALU float operations. Round-to-nearest results are checked against the host
//! CPU's IEEE arithmetic; other rounding modes and denormal controls against values worked out
//! from the MODE register description (ISA manuals, "MODE register").

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;

/// MODE with denormals kept for f32 and f16/f64, round to nearest even.
const KEEP_DENORMS: u32 = 0xf0;

fn rig() -> Rig {
    let mut r = Rig::new(Processor::Gfx1201, false);
    r.wave.mode = KEEP_DENORMS;
    r
}

/// s1 = a, s2 = b, run; s0.
fn f2(r: &mut Rig, bytes: &[u8], a: f32, b: f32) -> f32 {
    r.wave.sreg[1] = a.to_bits();
    r.wave.sreg[2] = b.to_bits();
    r.run(bytes);
    f32::from_bits(r.wave.sreg[0])
}

const ADD: &[u8] = &[0x01, 0x02, 0x00, 0xa0]; // s_add_f32 s0, s1, s2
const SUB: &[u8] = &[0x01, 0x02, 0x80, 0xa0]; // s_sub_f32 s0, s1, s2
const MUL: &[u8] = &[0x01, 0x02, 0x00, 0xa2]; // s_mul_f32 s0, s1, s2

#[test]
fn arithmetic_matches_ieee_round_to_nearest() {
    let mut r = rig();
    let vals = [0.1f32, -3.75, 1.0e-40, 3.4e38, 7.0, -0.0, 1.0 / 3.0, 16_777_217.0];
    for &a in &vals {
        for &b in &vals {
            assert_eq!(f2(&mut r, ADD, a, b).to_bits(), (a + b).to_bits(), "{a} + {b}");
            assert_eq!(f2(&mut r, SUB, a, b).to_bits(), (a - b).to_bits(), "{a} - {b}");
            assert_eq!(f2(&mut r, MUL, a, b).to_bits(), (a * b).to_bits(), "{a} * {b}");
        }
    }
}

#[test]
fn fused_multiply_add_forms() {
    let mut r = rig();
    let (a, b, c) = (1.000_000_1f32, 3.0f32, -3.000_000_2f32);
    r.wave.sreg[0] = c.to_bits();
    f2(&mut r, &[0x01, 0x02, 0x80, 0xa3], a, b); // s_fmac_f32 s0, s1, s2
    assert_eq!(r.wave.sreg[0], a.mul_add(b, c).to_bits());
    let k = 1.0f32;
    let d = f2(&mut r, &[0x01, 0x02, 0x80, 0xa2, 0x00, 0x00, 0x80, 0x3f], a, b); // s_fmaak_f32 s0, s1, s2, 0x3f800000
    assert_eq!(d.to_bits(), a.mul_add(b, k).to_bits());
    let d = f2(&mut r, &[0x01, 0x02, 0x00, 0xa3, 0x00, 0x00, 0x00, 0x40], a, b); // s_fmamk_f32 s0, s1, 0x40000000, s2
    assert_eq!(d.to_bits(), a.mul_add(2.0, b).to_bits());
}

#[test]
fn rounding_mode_from_mode_register() {
    let mut r = rig();
    // 1 + 2^-24 needs one more bit than f32 has: +inf mode rounds up, the others down.
    let (one, tiny) = (1.0f32, f32::from_bits(0x3380_0000)); // 2^-24
    assert_eq!(f2(&mut r, ADD, one, tiny), 1.0);
    r.run(&[0x01, 0x00, 0x91, 0xbf]); // s_round_mode 0x1 (f32 toward +inf)
    assert_eq!(r.wave.mode & 0xf, 1);
    assert_eq!(f2(&mut r, ADD, one, tiny).to_bits(), 0x3f80_0001);
    assert_eq!(f2(&mut r, ADD, -one, -tiny).to_bits(), 0xbf80_0000, "-1 - 2^-24 toward +inf");
    r.wave.mode = KEEP_DENORMS | 3; // toward zero
    assert_eq!(f2(&mut r, MUL, f32::MAX, 2.0), f32::MAX, "overflow toward zero saturates");
}

#[test]
fn denormal_controls() {
    let mut r = rig();
    let d = f32::from_bits(1); // smallest denormal
    assert_eq!(f2(&mut r, ADD, d, d).to_bits(), 2);
    r.run(&[0x00, 0x00, 0x92, 0xbf]); // s_denorm_mode 0 (flush f32 and f16/f64 in and out)
    assert_eq!(r.wave.mode & 0xf0, 0);
    assert_eq!(f2(&mut r, ADD, d, d).to_bits(), 0);
    assert_eq!(f2(&mut r, ADD, d, 1.0), 1.0);
    // FP_DENORM 1 flushes results only: denormal inputs count, a denormal sum becomes 0.
    let min_normal = f32::MIN_POSITIVE;
    let below = f32::from_bits(min_normal.to_bits() - 1); // largest denormal
    r.wave.mode = 0x10;
    assert_eq!(f2(&mut r, ADD, d, d).to_bits(), 0);
    assert_eq!(f2(&mut r, ADD, below, d), min_normal, "denormal inputs are used");
    // FP_DENORM 2 flushes inputs only: a denormal result is kept.
    r.wave.mode = 0x20;
    assert_eq!(f2(&mut r, ADD, below, d), 0.0, "denormal inputs read as 0");
    let one_and_half = f32::from_bits(0x00c0_0000); // 1.5 * 2^-126
    assert_eq!(f2(&mut r, SUB, one_and_half, min_normal).to_bits(), 0x0040_0000, "denormal result kept");
    r.wave.mode = 0x10;
    assert_eq!(f2(&mut r, SUB, one_and_half, min_normal).to_bits(), 0, "denormal result flushed");
}

#[test]
fn nans() {
    let mut r = rig();
    assert_eq!(f2(&mut r, SUB, f32::INFINITY, f32::INFINITY).to_bits(), 0x7fc0_0000);
    let snan = f32::from_bits(0x7f80_0001);
    assert_eq!(f2(&mut r, ADD, snan, 1.0).to_bits(), 0x7fc0_0001, "input NaN returned quiet");
}

#[test]
fn conversions() {
    let mut r = rig();
    r.wave.sreg[1] = 0xffff_ffff;
    r.run(&[0x01, 0x65, 0x80, 0xbe]); // s_cvt_f32_u32 s0, s1
    assert_eq!(r.wave.sreg[0], (u32::MAX as f32).to_bits());
    r.run(&[0x01, 0x64, 0x80, 0xbe]); // s_cvt_f32_i32 s0, s1
    assert_eq!(r.wave.sreg[0], (-1.0f32).to_bits());
    for (x, u, i) in [(3.99f32, 3u32, 3i32), (-2.5, 0, -2), (1e10, u32::MAX, i32::MAX), (f32::NAN, 0, 0), (-1e10, 0, i32::MIN)] {
        r.wave.sreg[1] = x.to_bits();
        r.run(&[0x01, 0x67, 0x80, 0xbe]); // s_cvt_u32_f32 s0, s1
        assert_eq!(r.wave.sreg[0], u, "u32({x})");
        r.run(&[0x01, 0x66, 0x80, 0xbe]); // s_cvt_i32_f32 s0, s1
        assert_eq!(r.wave.sreg[0] as i32, i, "i32({x})");
    }
    r.wave.sreg[1] = 65504.0f32.to_bits();
    r.run(&[0x01, 0x68, 0x80, 0xbe]); // s_cvt_f16_f32 s0, s1
    assert_eq!(r.wave.sreg[0], 0x7bff);
    r.wave.sreg[1] = 0x3c00_c000; // hi = 1.0, lo = -2.0
    r.run(&[0x01, 0x69, 0x80, 0xbe]); // s_cvt_f32_f16 s0, s1
    assert_eq!(f32::from_bits(r.wave.sreg[0]), -2.0);
    r.run(&[0x01, 0x6a, 0x80, 0xbe]); // s_cvt_hi_f32_f16 s0, s1
    assert_eq!(f32::from_bits(r.wave.sreg[0]), 1.0);
    // Packed conversion rounds toward zero: 1 + 2^-11 + 2^-12 is between 1 + 2^-10 steps.
    let x = 1.0f32 + 2f32.powi(-11) + 2f32.powi(-12);
    f2(&mut r, &[0x01, 0x02, 0x00, 0xa4], x, -x); // s_cvt_pk_rtz_f16_f32 s0, s1, s2
    assert_eq!(r.wave.sreg[0], 0xbc00_3c00);
}

#[test]
fn rounding_to_integral() {
    let mut r = rig();
    for x in [2.5f32, -2.5, 3.5, -0.25, 1e20] {
        r.wave.sreg[1] = x.to_bits();
        r.run(&[0x01, 0x61, 0x80, 0xbe]); // s_floor_f32 s0, s1
        assert_eq!(r.wave.sreg[0], x.floor().to_bits());
        r.run(&[0x01, 0x63, 0x80, 0xbe]); // s_rndne_f32 s0, s1
        assert_eq!(r.wave.sreg[0], x.round_ties_even().to_bits());
    }
    r.wave.sreg[1] = 0x3e00; // f16 1.5
    r.run(&[0x01, 0x6b, 0x80, 0xbe]); // s_ceil_f16 s0, s1
    assert_eq!(r.wave.sreg[0], 0x4000);
}

#[test]
fn half_precision_arithmetic() {
    let mut r = rig();
    r.wave.sreg[1] = 0xffff_3c00; // 1.0 (high half ignored)
    r.wave.sreg[2] = 0x0000_3800; // 0.5
    r.run(&[0x01, 0x02, 0x80, 0xa4]); // s_add_f16 s0, s1, s2
    assert_eq!(r.wave.sreg[0], 0x3e00);
    r.wave.sreg[0] = 0x3c00;
    r.run(&[0x01, 0x02, 0x00, 0xa7]); // s_fmac_f16 s0, s1, s2
    assert_eq!(r.wave.sreg[0], 0x3e00); // 1 * 0.5 + 1
}

#[test]
fn min_max() {
    let mut r = rig();
    let min_num = &[0x01, 0x02, 0x00, 0xa1]; // s_min_num_f32 s0, s1, s2
    assert_eq!(f2(&mut r, min_num, 0.0, -0.0).to_bits(), 0x8000_0000);
    assert_eq!(f2(&mut r, min_num, f32::NAN, 3.0), 3.0);
    let maximum = &[0x01, 0x02, 0x00, 0xa8]; // s_maximum_f32 s0, s1, s2
    assert!(f2(&mut r, maximum, f32::NAN, 3.0).is_nan());
    assert_eq!(f2(&mut r, maximum, -1.0, 3.0), 3.0);
    let mut r = Rig::new(Processor::Gfx1150, false);
    assert_eq!(f2(&mut r, &[0x01, 0x02, 0x00, 0xa1], 2.0, -7.0), -7.0); // s_min_f32 s0, s1, s2
}

#[test]
fn compares() {
    let mut r = rig();
    let mut cmp = |bytes: &[u8], a: f32, b: f32| {
        f2(&mut r, bytes, a, b);
        r.wave.scc
    };
    let lt = &[0x01, 0x02, 0x41, 0xbf]; // s_cmp_lt_f32 s1, s2
    let nge = &[0x01, 0x02, 0x49, 0xbf]; // s_cmp_nge_f32 s1, s2
    let lg = &[0x01, 0x02, 0x45, 0xbf]; // s_cmp_lg_f32 s1, s2
    let u = &[0x01, 0x02, 0x48, 0xbf]; // s_cmp_u_f32 s1, s2
    assert!(cmp(lt, 1.0, 2.0));
    assert!(!cmp(lt, f32::NAN, 2.0));
    assert!(cmp(nge, f32::NAN, 2.0), "unordered: not greater-or-equal");
    assert!(!cmp(lg, f32::NAN, 2.0));
    assert!(!cmp(lg, 0.0, -0.0), "0 == -0");
    assert!(cmp(u, 1.0, f32::NAN));
    r.wave.sreg[1] = 0x1234_3c00;
    r.wave.sreg[2] = 0x0000_3c00;
    r.run(&[0x01, 0x02, 0x52, 0xbf]); // s_cmp_eq_f16 s1, s2
    assert!(r.wave.scc, "f16 operands are the low halves");
}

#[test]
fn inline_and_literal_float_operands() {
    let mut r = rig();
    r.wave.sreg[1] = 2.5f32.to_bits();
    r.run(&[0x01, 0xf2, 0x00, 0xa0]); // s_add_f32 s0, s1, 1.0
    assert_eq!(f32::from_bits(r.wave.sreg[0]), 3.5);
    r.run(&[0x01, 0xff, 0x00, 0xa2, 0x00, 0x00, 0xc0, 0x3f]); // s_mul_f32 s0, s1, 0x3fc00000
    assert_eq!(f32::from_bits(r.wave.sreg[0]), 3.75);
}
