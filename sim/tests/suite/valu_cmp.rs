//! VALU compares (VOPC and their VOP3 forms): result bit per lane into VCC, an SGPR (pair) or
//! EXEC; inactive lanes give 0; wave32 writes 32-bit masks; V_CMPX writes EXEC and, on
//! GFX8/9 only, also VCC/sdst (GFX10+ ISA "Output Operands": only EXEC). Float conditions
//! follow the ISA's 16-condition table (ordered / unordered / negated), integer conditions the
//! 8-condition table; V_CMP_CLASS tests the 10 IEEE classes. Encodings from
//! `llvm-mc-19 -show-encoding` (assembly in comments).

// The references spell out the ISA's unordered/negated conditions literally (`!(a >= b)`,
// `a < b || a > b`), which is what they mean for NaN; clippy's rewrites would change that.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::double_comparisons)]

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;
use hipscope_sim::wave::slot;

/// A float condition reference.
type Cond = fn(f32, f32) -> bool;

fn lanes_mask(n: usize, f: impl Fn(usize) -> bool) -> u64 {
    (0..n).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

fn a(l: usize) -> u32 {
    (l as u32 * 2654435761) >> 7
}
fn b(l: usize) -> u32 {
    (l as u32 * 40503 + 17) << 9
}

fn setup(p: Processor, w64: bool) -> Rig {
    let mut r = Rig::new(p, w64);
    r.set_v(2, a);
    r.set_v(3, b);
    r
}

const CMP_GT_U32: &[u8] = &[0x02, 0x07, 0x98, 0x7d]; // v_cmp_gt_u32_e32 vcc, v2, v3
const CMP_LT_I32_E64: &[u8] = &[0x04, 0x00, 0xc1, 0xd0, 0x02, 0x07, 0x02, 0x00]; // v_cmp_lt_i32_e64 s[4:5], v2, v3
const CMPX_GT_U32: &[u8] = &[0x02, 0x07, 0xb8, 0x7d]; // v_cmpx_gt_u32_e32 vcc, v2, v3
const CMPX_GT_U32_E64: &[u8] = &[0x04, 0x00, 0xdc, 0xd0, 0x02, 0x07, 0x02, 0x00]; // v_cmpx_gt_u32_e64 s[4:5], v2, v3

#[test]
fn compare_writes_vcc_with_zero_for_inactive_lanes() {
    let mut r = setup(Processor::Gfx900, true);
    let exec = 0xffff_0000_f0f0_ffffu64;
    r.wave.set_exec(exec);
    r.wave.set_vcc(!0);
    r.run(CMP_GT_U32);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| a(l) > b(l)) & exec);
    assert_eq!(r.wave.exec(), exec);
    // VOP3 form to an SGPR pair; VCC untouched.
    r.run(CMP_LT_I32_E64);
    let s = r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32;
    assert_eq!(s, lanes_mask(64, |l| (a(l) as i32) < (b(l) as i32)) & exec);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| a(l) > b(l)) & exec);
    // A compare can write EXEC itself.
    const CMP_EQ_U32_EXEC: &[u8] = &[0x7e, 0x00, 0xca, 0xd0, 0x02, 0x07, 0x02, 0x00]; // v_cmp_eq_u32_e64 exec, v2, v3
    r.set_v(3, |l| if l % 3 == 0 { a(l) } else { !a(l) });
    r.run(CMP_EQ_U32_EXEC);
    assert_eq!(r.wave.exec(), lanes_mask(64, |l| l % 3 == 0) & exec);
    // A literal source.
    const CMP_NE_U32_LIT: &[u8] = &[0xff, 0x06, 0x9a, 0x7d, 0x78, 0x56, 0x34, 0x12]; // v_cmp_ne_u32_e32 vcc, 0x12345678, v3
    let mut r = setup(Processor::Gfx900, true);
    r.set_v(3, |l| if l < 40 { 0x1234_5678 } else { 0 });
    r.run(CMP_NE_U32_LIT);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| l >= 40));
}

#[test]
fn cmpx_writes_exec_and_on_gfx8_9_also_the_mask_destination() {
    for p in [Processor::Gfx803, Processor::Gfx900] {
        let mut r = setup(p, true);
        let exec = 0x00ff_ff00_ffff_ffffu64;
        r.wave.set_exec(exec);
        r.run(CMPX_GT_U32);
        let want = lanes_mask(64, |l| a(l) > b(l)) & exec;
        assert_eq!((r.wave.exec(), r.wave.vcc()), (want, want), "{p:?} e32");
        let mut r = setup(p, true);
        r.wave.set_vcc(0x1234);
        let encoding: &[u8] = if p == Processor::Gfx803 {
            &[0x04, 0x00, 0xdc, 0xd0, 0x02, 0x07, 0x02, 0x00] // v_cmpx_gt_u32_e64 s[4:5], v2, v3
        } else {
            CMPX_GT_U32_E64
        };
        r.run(encoding);
        let want = lanes_mask(64, |l| a(l) > b(l));
        let s = r.wave.sreg[4] as u64 | (r.wave.sreg[5] as u64) << 32;
        assert_eq!((r.wave.exec(), s, r.wave.vcc()), (want, want, 0x1234), "{p:?} e64");
    }
    // GFX10+: only EXEC.
    const G10_CMPX: &[u8] = &[0x02, 0x07, 0xa8, 0x7d]; // v_cmpx_gt_u32_e32 v2, v3
    const G10_CMPX_E64: &[u8] = &[0x7e, 0x00, 0xd4, 0xd4, 0x02, 0x07, 0x02, 0x00]; // v_cmpx_gt_u32_e64 v2, v3
    for code in [G10_CMPX, G10_CMPX_E64] {
        let mut r = setup(Processor::Gfx1030, false);
        r.wave.set_vcc(0x5a5a);
        r.wave.set_exec(0xffff_00ff);
        r.run(code);
        assert_eq!(r.wave.exec(), lanes_mask(32, |l| a(l) > b(l)) & 0xffff_00ff);
        assert_eq!(r.wave.vcc(), 0x5a5a);
    }
    // Wave64 on GFX10 (same encoding): all 64 EXEC bits.
    let mut r = setup(Processor::Gfx1030, true);
    r.run(G10_CMPX);
    assert_eq!(r.wave.exec(), lanes_mask(64, |l| a(l) > b(l)));
    const G11_CMPX: &[u8] = &[0x7e, 0x00, 0xc4, 0xd4, 0x02, 0x07, 0x02, 0x00]; // v_cmpx_gt_i32_e64 v2, v3
    let mut r = setup(Processor::Gfx1100, false);
    r.run(G11_CMPX);
    assert_eq!(r.wave.exec(), lanes_mask(32, |l| a(l) as i32 > b(l) as i32));
}

#[test]
fn wave32_masks_are_32_bits() {
    const G10_CMP: &[u8] = &[0x02, 0x07, 0x88, 0x7d]; // v_cmp_gt_u32_e32 vcc_lo, v2, v3
    const G10_CMP_E64: &[u8] = &[0x04, 0x00, 0xc4, 0xd4, 0x02, 0x07, 0x02, 0x00]; // v_cmp_gt_u32_e64 s4, v2, v3
    let mut r = setup(Processor::Gfx1030, false);
    r.wave.sreg[slot::VCC_HI] = 0xdead_beef;
    r.wave.sreg[5] = 0xcafe;
    r.run(G10_CMP);
    r.run(G10_CMP_E64);
    let want = lanes_mask(32, |l| a(l) > b(l)) as u32;
    assert_eq!((r.wave.sreg[slot::VCC_LO], r.wave.sreg[slot::VCC_HI]), (want, 0xdead_beef));
    assert_eq!((r.wave.sreg[4], r.wave.sreg[5]), (want, 0xcafe));
}

/// Run a compare on lanes 0..n with v2 = x[l], v3 = y[l] (32-bit patterns); return VCC.
fn cmp32(code: &[u8], x: &[u32], y: &[u32]) -> u64 {
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = 0x3f0;
    r.set_v(2, |l| x[l % x.len()]);
    r.set_v(3, |l| y[l % y.len()]);
    r.wave.set_exec(lanes_mask(64, |l| l < x.len()));
    r.run(code);
    r.wave.vcc()
}

#[test]
fn float_conditions_with_nan_and_signed_zero() {
    let f = |x: f32| x.to_bits();
    let nan = 0x7fc0_0000;
    // Lanes: less, equal, greater, NaN left, NaN right, -0 vs +0.
    let x = [f(1.0), f(2.0), f(3.0), nan, f(1.0), f(-0.0)];
    let y = [f(2.0), f(2.0), f(2.0), f(1.0), nan, f(0.0)];
    let conds: [(&[u8], Cond); 16] = [
        (&[0x02, 0x07, 0x80, 0x7c], |_, _| false),                      // v_cmp_f_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x82, 0x7c], |a, b| a < b),                      // v_cmp_lt_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x84, 0x7c], |a, b| a == b),                     // v_cmp_eq_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x86, 0x7c], |a, b| a <= b),                     // v_cmp_le_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x88, 0x7c], |a, b| a > b),                      // v_cmp_gt_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x8a, 0x7c], |a, b| a < b || a > b),             // v_cmp_lg_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x8c, 0x7c], |a, b| a >= b),                     // v_cmp_ge_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x8e, 0x7c], |a, b| !a.is_nan() && !b.is_nan()), // v_cmp_o_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x90, 0x7c], |a, b| a.is_nan() || b.is_nan()),   // v_cmp_u_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x92, 0x7c], |a, b| !(a >= b)),                  // v_cmp_nge_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x94, 0x7c], |a, b| !(a < b || a > b)),          // v_cmp_nlg_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x96, 0x7c], |a, b| !(a > b)),                   // v_cmp_ngt_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x98, 0x7c], |a, b| !(a <= b)),                  // v_cmp_nle_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x9a, 0x7c], |a, b| a != b),                     // v_cmp_neq_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x9c, 0x7c], |a, b| !(a < b)),                   // v_cmp_nlt_f32_e32 vcc, v2, v3
        (&[0x02, 0x07, 0x9e, 0x7c], |_, _| true),                       // v_cmp_tru_f32_e32 vcc, v2, v3
    ];
    for (code, pred) in conds {
        let want = lanes_mask(6, |l| pred(f32::from_bits(x[l]), f32::from_bits(y[l])));
        assert_eq!(cmp32(code, &x, &y), want, "{code:02x?}");
    }
    // f16 and f64.
    const F16_LT: &[u8] = &[0x02, 0x07, 0x42, 0x7c]; // v_cmp_lt_f16_e32 vcc, v2, v3
    const F16_NEQ: &[u8] = &[0x02, 0x07, 0x5a, 0x7c]; // v_cmp_neq_f16_e32 vcc, v2, v3
    let hx = [0x3c00, 0x4000, 0x7e00, 0x8000];
    let hy = [0x4000, 0x4000, 0x3c00, 0x0000];
    assert_eq!(cmp32(F16_LT, &hx, &hy), 0b0001);
    assert_eq!(cmp32(F16_NEQ, &hx, &hy), 0b0101);
    const F64_LT: &[u8] = &[0x02, 0x09, 0xc2, 0x7c]; // v_cmp_lt_f64_e32 vcc, v[2:3], v[4:5]
    const F64_U: &[u8] = &[0x02, 0x09, 0xd0, 0x7c]; // v_cmp_u_f64_e32 vcc, v[2:3], v[4:5]
    let xs = [1.0f64, 1.0 + f64::EPSILON, f64::NAN, -1.0e300];
    let ys = [1.0 + f64::EPSILON, 1.0, 0.0, 1.0e-300];
    for (code, pred) in [(F64_LT, (|a: f64, b: f64| a < b) as fn(f64, f64) -> bool), (F64_U, |a, b| a.is_nan() || b.is_nan())] {
        let mut r = Rig::new(Processor::Gfx900, true);
        for (reg, v) in [(2, &xs), (4, &ys)] {
            r.set_v(reg, |l| v[l % 4].to_bits() as u32);
            r.set_v(reg + 1, |l| (v[l % 4].to_bits() >> 32) as u32);
        }
        r.wave.set_exec(0xf);
        r.run(code);
        assert_eq!(r.wave.vcc(), lanes_mask(4, |l| pred(xs[l], ys[l])));
    }
    // GFX11 spells TRU as T.
    const G11_CMP_T_F32: &[u8] = &[0x02, 0x07, 0x3e, 0x7c]; // v_cmp_t_f32_e32 vcc_lo, v2, v3
    let mut r = setup(Processor::Gfx1100, false);
    r.run(G11_CMP_T_F32);
    assert_eq!(r.wave.vcc(), 0xffff_ffff);
}

#[test]
fn integer_widths_and_signedness() {
    const CMP_EQ_U64: &[u8] = &[0x02, 0x09, 0xd4, 0x7d]; // v_cmp_eq_u64_e32 vcc, v[2:3], v[4:5]
    const CMP_LT_I64: &[u8] = &[0x02, 0x09, 0xc2, 0x7d]; // v_cmp_lt_i64_e32 vcc, v[2:3], v[4:5]
    const CMP_LT_U16: &[u8] = &[0x02, 0x07, 0x52, 0x7d]; // v_cmp_lt_u16_e32 vcc, v2, v3
    const CMP_LT_I16: &[u8] = &[0x02, 0x07, 0x42, 0x7d]; // v_cmp_lt_i16_e32 vcc, v2, v3
    let x = |l: usize| (a(l) as u64) << 32 | b(l) as u64;
    let y = |l: usize| if l % 4 == 0 { x(l) } else { (b(l) as u64) << 32 | a(l) as u64 };
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(2, |l| x(l) as u32);
    r.set_v(3, |l| (x(l) >> 32) as u32);
    r.set_v(4, |l| y(l) as u32);
    r.set_v(5, |l| (y(l) >> 32) as u32);
    r.run(CMP_EQ_U64);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| x(l) == y(l)));
    r.run(CMP_LT_I64);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| (x(l) as i64) < (y(l) as i64)));
    // 16-bit compares look at the low halves only.
    let mut r = setup(Processor::Gfx900, true);
    r.run(CMP_LT_U16);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| (a(l) as u16) < (b(l) as u16)));
    r.run(CMP_LT_I16);
    assert_eq!(r.wave.vcc(), lanes_mask(64, |l| (a(l) as i16) < (b(l) as i16)));
}

#[test]
fn class_tests_each_ieee_class() {
    const CMP_CLASS_F32: &[u8] = &[0x02, 0x07, 0x20, 0x7c]; // v_cmp_class_f32_e32 vcc, v2, v3
    const CMP_CLASS_F16: &[u8] = &[0x02, 0x07, 0x28, 0x7c]; // v_cmp_class_f16_e32 vcc, v2, v3
    const CMP_CLASS_F64: &[u8] = &[0x02, 0x09, 0x24, 0x7c]; // v_cmp_class_f64_e32 vcc, v[2:3], v4
                                                            // One value per class, in class-bit order: sNaN, qNaN, -inf, -normal, -denormal, -0, +0,
                                                            // +denormal, +normal, +inf. Each lane tests bit k for value k: all set; then shifted masks.
    let f32s = [0x7f80_0001u32, 0x7fc0_0000, 0xff80_0000, 0xbf80_0000, 0x8000_0001, 0x8000_0000, 0, 1, 0x3f80_0000, 0x7f80_0000];
    let f16s = [0x7c01u32, 0x7e00, 0xfc00, 0xbc00, 0x8001, 0x8000, 0, 1, 0x3c00, 0x7c00];
    let masks: Vec<u32> = (0..10).map(|k| 1 << k).collect();
    let other: Vec<u32> = (0..10).map(|k| !(1u32 << k) & 0x3ff).collect();
    // Denormal classes are seen even when MODE flushes denormals (cmp32 uses MODE 0x3f0; the
    // class test does not flush anyway).
    assert_eq!(cmp32(CMP_CLASS_F32, &f32s, &masks), 0x3ff);
    assert_eq!(cmp32(CMP_CLASS_F32, &f32s, &other), 0);
    assert_eq!(cmp32(CMP_CLASS_F16, &f16s, &masks), 0x3ff);
    assert_eq!(cmp32(CMP_CLASS_F16, &f16s, &other), 0);
    let f64s = [
        0x7ff0_0000_0000_0001u64,
        0x7ff8_0000_0000_0000,
        0xfff0_0000_0000_0000,
        0xbff0_0000_0000_0000,
        0x8000_0000_0000_0001,
        1 << 63,
        0,
        1,
        0x3ff0_0000_0000_0000,
        0x7ff0_0000_0000_0000,
    ];
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = 0;
    r.set_v(2, |l| f64s[l % 10] as u32);
    r.set_v(3, |l| (f64s[l % 10] >> 32) as u32);
    r.set_v(4, |l| 1 << (l % 10));
    r.wave.set_exec(0x3ff);
    r.run(CMP_CLASS_F64);
    assert_eq!(r.wave.vcc(), 0x3ff);
}
