//! VALU floating-point semantics: IEEE arithmetic (f16/f32/f64) against host IEEE references,
//! NaN rules, MODE denormal flushing, min/max in IEEE and non-IEEE mode, output modifiers and
//! clamp, input modifiers, the division macro pieces and the macro itself, rounding,
//! fraction/exponent operations, transcendental functional examples from the ISA manuals and
//! their accuracy, 64-bit float literals, and the newer GFX11/12 forms. Encodings from
//! `llvm-mc-19 -show-encoding` (assembly in comments).

use hipscope_isa::decode::Decoder;
use hipscope_isa::Processor;
use hipscope_sim::exec::{classify, execute, ExecCtx};
use hipscope_sim::testing::Rig;

/// MODE: f32 and f64/f16 denormals kept, DX10 clamp, IEEE (what HIP kernels start with).
const MODE_IEEE: u32 = 0x3f0;
/// MODE: denormals flushed, IEEE and DX10 clamp off.
const MODE_FLUSH: u32 = 0;

const QNAN: u32 = 0x7fc0_0000;
const SNAN: u32 = 0x7f80_0001;
const DEFAULT_NAN: u32 = 0xffc0_0000;
const DENORM: u32 = 0x0000_0123;

/// CPU references of three-operand arithmetic.
type Ref32 = fn(f32, f32, f32) -> f32;
type Ref64 = fn(f64, f64, f64) -> f64;
/// (encoding, [(input, expected output)]).
type Examples<'a> = (&'a [u8], &'a [(u32, u32)]);

/// Run `bytes` on lanes 0..n with v2, v3, v4 taken (cyclically) from `x`, `y`, `z` (bit
/// patterns) and return v1 of those lanes.
fn run32(p: Processor, mode: u32, bytes: &[u8], x: &[u32], y: &[u32], z: &[u32]) -> Vec<u32> {
    let mut r = Rig::new(p, true);
    r.wave.mode = mode;
    let n = x.len().max(y.len()).max(z.len()).max(1);
    let pick = |v: &[u32], l: usize| if v.is_empty() { 0 } else { v[l % n % v.len()] };
    r.set_v(2, |l| pick(x, l));
    r.set_v(3, |l| pick(y, l));
    r.set_v(4, |l| pick(z, l));
    r.run(bytes);
    (0..n).map(|l| r.wave.v(1, l)).collect()
}

fn gfx9(mode: u32, bytes: &[u8], x: &[u32], y: &[u32], z: &[u32]) -> Vec<u32> {
    run32(Processor::Gfx900, mode, bytes, x, y, z)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

const ADD_F32: &[u8] = &[0x02, 0x07, 0x02, 0x02]; // v_add_f32_e32 v1, v2, v3
const SUB_F32: &[u8] = &[0x02, 0x07, 0x02, 0x04]; // v_sub_f32_e32 v1, v2, v3
const SUBREV_F32: &[u8] = &[0x02, 0x07, 0x02, 0x06]; // v_subrev_f32_e32 v1, v2, v3
const MUL_F32: &[u8] = &[0x02, 0x07, 0x02, 0x0a]; // v_mul_f32_e32 v1, v2, v3
const FMA_F32: &[u8] = &[0x01, 0x00, 0xcb, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_fma_f32 v1, v2, v3, v4
const MAD_F32: &[u8] = &[0x01, 0x00, 0xc1, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_mad_f32 v1, v2, v3, v4
const MAC_F32: &[u8] = &[0x02, 0x07, 0x02, 0x2c]; // v_mac_f32_e32 v1, v2, v3
const MADAK_F32: &[u8] = &[0x02, 0x07, 0x02, 0x30, 0x00, 0x00, 0x40, 0x40]; // v_madak_f32 v1, v2, v3, 0x40400000
const MADMK_F32: &[u8] = &[0x02, 0x07, 0x02, 0x2e, 0x00, 0x00, 0x40, 0x40]; // v_madmk_f32 v1, v2, 0x40400000, v3

/// Values with every float class represented (finite ones only where a host reference is
/// exact in meaning).
fn finite_f32() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.5,
        3.0e-39,
        -1.0e-40,
        f32::MIN_POSITIVE,
        1.0e30,
        -3.4e38,
        0.1,
        7.25,
        -123456.79,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.0 + f32::EPSILON,
        2.0f32.powi(-20),
    ]
}

#[test]
fn f32_arithmetic_matches_ieee_with_denormals_enabled() {
    let v = finite_f32();
    let x: Vec<f32> = (0..v.len() * v.len()).map(|i| v[i / v.len()]).collect();
    let y: Vec<f32> = (0..v.len() * v.len()).map(|i| v[i % v.len()]).collect();
    let z: Vec<f32> = (0..x.len()).map(|i| v[(i * 7 + 3) % v.len()]).collect();
    let (bx, by, bz) = (bits(&x), bits(&y), bits(&z));
    for chunk in 0..x.len().div_ceil(64) {
        let s = chunk * 64..((chunk + 1) * 64).min(x.len());
        let (cx, cy, cz) = (&bx[s.clone()], &by[s.clone()], &bz[s.clone()]);
        let cases: [(&[u8], Ref32); 5] = [
            (ADD_F32, |a, b, _| a + b),
            (SUB_F32, |a, b, _| a - b),
            (SUBREV_F32, |a, b, _| b - a),
            (MUL_F32, |a, b, _| a * b),
            (FMA_F32, |a, b, c| a.mul_add(b, c)),
        ];
        for (code, f) in cases {
            let got = gfx9(MODE_IEEE, code, cx, cy, cz);
            for (i, g) in got.iter().enumerate() {
                let (a, b, c) = (f32::from_bits(cx[i]), f32::from_bits(cy[i]), f32::from_bits(cz[i]));
                let want = f(a, b, c);
                if want.is_nan() {
                    assert_eq!(*g, DEFAULT_NAN, "{a} {b} {c}: invalid operation gives the default NaN");
                } else {
                    assert_eq!(*g, want.to_bits(), "{a:e} {b:e} {c:e}");
                }
            }
        }
    }
}

#[test]
fn nan_operands_propagate_quieted() {
    let got = gfx9(MODE_IEEE, ADD_F32, &[SNAN, 0x3f80_0000, QNAN | 5, 0xff80_0010], &[0x3f80_0000, SNAN, 0x4000_0000, QNAN], &[]);
    assert_eq!(got, vec![SNAN | 0x0040_0000, SNAN | 0x0040_0000, QNAN | 5, 0xffc0_0010]);
    let got = gfx9(MODE_IEEE, FMA_F32, &[0, 0x7f80_0000], &[0x7f80_0000, 0], &[0x3f80_0000, 0x3f80_0000]);
    assert_eq!(got, vec![DEFAULT_NAN, DEFAULT_NAN], "0 * inf is invalid");
}

#[test]
fn mad_rounds_the_product_fma_does_not() {
    // a*b = 1 + 2^-11 + 2^-24 exactly; with c = -(1 + 2^-11) fma gives 2^-24, while mad rounds
    // the product to 1 + 2^-11 first (tie to even) and gives 0.
    let a = 1.0 + 2f32.powi(-12);
    let c = -(1.0 + 2f32.powi(-11));
    let fma = gfx9(MODE_IEEE, FMA_F32, &[a.to_bits()], &[a.to_bits()], &[c.to_bits()]);
    assert_eq!(fma, vec![2f32.powi(-24).to_bits()]);
    let mad = gfx9(MODE_IEEE, MAD_F32, &[a.to_bits()], &[a.to_bits()], &[c.to_bits()]);
    assert_eq!(mad, vec![0]);
    // v_mac accumulates into the destination; madak/madmk take the literal 3.0.
    let mut r = Rig::new(Processor::Gfx900, true);
    r.set_v(1, |_| 10.0f32.to_bits());
    r.set_v(2, |l| (l as f32).to_bits());
    r.set_v(3, |_| 0.5f32.to_bits());
    r.run(MAC_F32);
    assert!((0..64).all(|l| r.wave.v(1, l) == (l as f32 * 0.5 + 10.0).to_bits()));
    r.run(MADAK_F32);
    assert!((0..64).all(|l| r.wave.v(1, l) == (l as f32 * 0.5 + 3.0).to_bits()));
    r.run(MADMK_F32);
    assert!((0..64).all(|l| r.wave.v(1, l) == (l as f32 * 3.0 + 0.5).to_bits()));
    // Denormals are flushed by v_mad_f32 even with denormals enabled in MODE.
    let mad = gfx9(MODE_IEEE, MAD_F32, &[DENORM], &[0x3f80_0000], &[0]);
    assert_eq!(mad, vec![0]);
}

#[test]
fn mode_denormal_controls() {
    // Input flush: denormal + 0 is 0 when f32 input denormals are off (MODE[4] = 0).
    assert_eq!(gfx9(MODE_FLUSH, ADD_F32, &[DENORM, 0x8000_0005], &[0, 0x8000_0000], &[]), vec![0, 0x8000_0000]);
    assert_eq!(gfx9(0x10, ADD_F32, &[DENORM], &[0], &[]), vec![0], "inputs kept, output flushed");
    assert_eq!(gfx9(0x20, ADD_F32, &[DENORM], &[0], &[]), vec![0], "input flushed");
    assert_eq!(gfx9(0x30, ADD_F32, &[DENORM], &[0], &[]), vec![DENORM]);
    // Output flush: a difference of normals that is denormal.
    let a = f32::MIN_POSITIVE * 1.5;
    assert_eq!(gfx9(0x10, SUB_F32, &[a.to_bits()], &[f32::MIN_POSITIVE.to_bits()], &[]), vec![0]);
    assert_eq!(gfx9(0x30, SUB_F32, &[a.to_bits()], &[f32::MIN_POSITIVE.to_bits()], &[]), vec![(a - f32::MIN_POSITIVE).to_bits()]);
    // f64 follows MODE[7:6], not the f32 bits.
    const ADD_F64: &[u8] = &[0x04, 0x00, 0x80, 0xd2, 0x06, 0x11, 0x02, 0x00]; // v_add_f64 v[4:5], v[6:7], v[8:9]
    for (mode, want) in [(0x30u32, 0u64), (0xc0, 1)] {
        let mut r = Rig::new(Processor::Gfx900, true);
        r.wave.mode = mode;
        r.set_v(6, |_| 1);
        r.run(ADD_F64);
        assert_eq!(r.wave.v(4, 0) as u64 | (r.wave.v(5, 0) as u64) << 32, want, "mode {mode:#x}");
    }
}

const MIN_F32: &[u8] = &[0x02, 0x07, 0x02, 0x14]; // v_min_f32_e32 v1, v2, v3
const MAX_F32: &[u8] = &[0x02, 0x07, 0x02, 0x16]; // v_max_f32_e32 v1, v2, v3

#[test]
fn min_max_nan_and_signed_zero_rules() {
    let one = 0x3f80_0000;
    // IEEE mode: a signalling NaN operand is returned quieted; a quiet NaN yields the other.
    assert_eq!(gfx9(MODE_IEEE, MIN_F32, &[SNAN, one, QNAN], &[one, SNAN, one], &[]), vec![SNAN | 0x40_0000, SNAN | 0x40_0000, one]);
    assert_eq!(gfx9(MODE_IEEE, MAX_F32, &[SNAN, one, QNAN], &[one, SNAN, one], &[]), vec![SNAN | 0x40_0000, SNAN | 0x40_0000, one]);
    // Non-IEEE mode: any NaN operand yields the other operand.
    assert_eq!(gfx9(MODE_FLUSH, MIN_F32, &[SNAN, one], &[one, SNAN], &[]), vec![one, one]);
    // -0 is below +0 for both.
    assert_eq!(gfx9(MODE_IEEE, MIN_F32, &[0, 0x8000_0000], &[0x8000_0000, 0], &[]), vec![0x8000_0000, 0x8000_0000]);
    assert_eq!(gfx9(MODE_IEEE, MAX_F32, &[0, 0x8000_0000], &[0x8000_0000, 0], &[]), vec![0, 0]);
    // v_med3: any NaN gives min3; otherwise the median.
    const MED3_F32: &[u8] = &[0x01, 0x00, 0xd6, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_med3_f32 v1, v2, v3, v4
    let f = |x: f32| x.to_bits();
    let got = gfx9(MODE_IEEE, MED3_F32, &[f(3.0), QNAN, f(-1.0)], &[f(1.0), f(5.0), f(2.0)], &[f(2.0), f(4.0), f(0.5)]);
    assert_eq!(got, vec![f(2.0), f(4.0), f(0.5)]);
    const MAX3_F32: &[u8] = &[0x01, 0x00, 0xd3, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_max3_f32 v1, v2, v3, v4
    assert_eq!(gfx9(MODE_IEEE, MAX3_F32, &[f(3.0)], &[f(-7.0)], &[f(9.5)]), vec![f(9.5)]);
    // f64.
    const MIN_F64: &[u8] = &[0x04, 0x00, 0x82, 0xd2, 0x06, 0x11, 0x02, 0x00]; // v_min_f64 v[4:5], v[6:7], v[8:9]
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    r.set_v(6, |_| 0);
    r.set_v(7, |l| if l == 0 { 0x7ff8_0000 } else { 0xc000_0000 });
    r.set_v(8, |_| 0);
    r.set_v(9, |_| 0x3ff0_0000);
    r.run(MIN_F64);
    assert_eq!((r.wave.v(5, 0), r.wave.v(5, 1)), (0x3ff0_0000, 0xc000_0000));
}

#[test]
fn output_modifiers_and_clamp() {
    const MUL_F32_OMOD2: &[u8] = &[0x01, 0x00, 0x05, 0xd1, 0x02, 0x07, 0x02, 0x08]; // v_mul_f32_e64 v1, v2, v3 mul:2
    const MUL_F32_OMOD_HALF: &[u8] = &[0x01, 0x00, 0x05, 0xd1, 0x02, 0x07, 0x02, 0x18]; // v_mul_f32_e64 v1, v2, v3 div:2
    const MUL_F32_CLAMP: &[u8] = &[0x01, 0x80, 0x05, 0xd1, 0x02, 0x07, 0x02, 0x00]; // v_mul_f32_e64 v1, v2, v3 clamp
    let f = |x: f32| x.to_bits();
    // OMOD applies with IEEE off and f32 output denormals off; -0 becomes +0.
    let got = gfx9(MODE_FLUSH, MUL_F32_OMOD2, &[f(3.0), f(-0.0)], &[f(0.75), f(1.0)], &[]);
    assert_eq!(got, vec![f(4.5), 0]);
    assert_eq!(gfx9(MODE_FLUSH, MUL_F32_OMOD_HALF, &[f(3.0)], &[f(0.75)], &[]), vec![f(1.125)]);
    // Ignored in IEEE mode and with output denormals enabled.
    assert_eq!(gfx9(0x200, MUL_F32_OMOD2, &[f(3.0)], &[f(0.75)], &[]), vec![f(2.25)]);
    assert_eq!(gfx9(0x20, MUL_F32_OMOD2, &[f(3.0)], &[f(0.75)], &[]), vec![f(2.25)]);
    // Clamp to [0, 1]; -0 to +0; NaN to 0 with DX10_CLAMP, kept without.
    let got = gfx9(MODE_IEEE, MUL_F32_CLAMP, &[f(3.0), f(0.25), f(-2.0), f(-0.0), QNAN], &[f(1.0); 5], &[]);
    assert_eq!(got, vec![f(1.0), f(0.25), 0, 0, 0]);
    let got = gfx9(MODE_FLUSH, MUL_F32_CLAMP, &[QNAN], &[f(1.0)], &[]);
    assert_eq!(got, vec![QNAN]);
}

#[test]
fn input_modifiers_act_on_the_sign_bit() {
    const ADD_F32_MODS: &[u8] = &[0x01, 0x02, 0x01, 0xd1, 0x02, 0x07, 0x02, 0x20]; // v_add_f32_e64 v1, -v2, |v3|
    const ADD_F32_NEGABS: &[u8] = &[0x01, 0x01, 0x01, 0xd1, 0x02, 0x07, 0x02, 0x20]; // v_add_f32_e64 v1, -|v2|, v3
    let f = |x: f32| x.to_bits();
    let got = gfx9(MODE_IEEE, ADD_F32_MODS, &[f(1.5), f(-1.5), QNAN], &[f(-4.0), f(2.0), f(1.0)], &[]);
    assert_eq!(got, vec![f(2.5), f(3.5), QNAN | 0x8000_0000]);
    assert_eq!(gfx9(MODE_IEEE, ADD_F32_NEGABS, &[f(-1.5), f(1.5)], &[f(4.0), f(4.0)], &[]), vec![f(2.5), f(2.5)]);
}

fn set64(r: &mut Rig, reg: usize, f: impl Fn(usize) -> f64) {
    r.set_v(reg, |l| f(l).to_bits() as u32);
    r.set_v(reg + 1, |l| (f(l).to_bits() >> 32) as u32);
}
fn get64(r: &Rig, reg: usize, l: usize) -> f64 {
    f64::from_bits(r.wave.v(reg, l) as u64 | (r.wave.v(reg + 1, l) as u64) << 32)
}

#[test]
fn f64_arithmetic_constants_and_literals() {
    const ADD_F64: &[u8] = &[0x04, 0x00, 0x80, 0xd2, 0x06, 0x11, 0x02, 0x00]; // v_add_f64 v[4:5], v[6:7], v[8:9]
    const MUL_F64: &[u8] = &[0x04, 0x00, 0x81, 0xd2, 0x06, 0x11, 0x02, 0x00]; // v_mul_f64 v[4:5], v[6:7], v[8:9]
    const FMA_F64: &[u8] = &[0x04, 0x00, 0xcc, 0xd1, 0x06, 0x11, 0x2a, 0x04]; // v_fma_f64 v[4:5], v[6:7], v[8:9], v[10:11]
    const ADD_F64_NEG: &[u8] = &[0x04, 0x00, 0x80, 0xd2, 0x06, 0x11, 0x02, 0x20]; // v_add_f64 v[4:5], -v[6:7], v[8:9]
    let x = |l: usize| (l as f64 - 31.5) * 1.0e10 + 1.0 / (l as f64 + 3.0);
    let y = |l: usize| 1.0e-300 * (l as f64 + 0.25) - (l % 3) as f64;
    let z = |l: usize| -(l as f64) * 0.1;
    let mut r = Rig::new(Processor::Gfx90a, true);
    r.wave.mode = MODE_IEEE;
    set64(&mut r, 6, x);
    set64(&mut r, 8, y);
    set64(&mut r, 10, z);
    let cases: [(&[u8], Ref64); 4] =
        [(ADD_F64, |a, b, _| a + b), (MUL_F64, |a, b, _| a * b), (FMA_F64, |a, b, c| a.mul_add(b, c)), (ADD_F64_NEG, |a, b, _| -a + b)];
    for (code, f) in cases {
        r.run(code);
        for l in 0..64 {
            assert_eq!(get64(&r, 4, l).to_bits(), f(x(l), y(l), z(l)).to_bits(), "lane {l}");
        }
    }
    // A 32-bit literal for a 64-bit float operand is the high half: 0x40080000 is 3.0.
    const G90A_FMAC_F64_LIT: &[u8] = &[0xff, 0x0c, 0x08, 0x08, 0x00, 0x00, 0x08, 0x40]; // v_fmac_f64_e32 v[4:5], 0x40080000, v[6:7]
    set64(&mut r, 4, |_| 1.0);
    r.run(G90A_FMAC_F64_LIT);
    assert!((0..64).all(|l| get64(&r, 4, l) == 3.0f64.mul_add(x(l), 1.0)));
    // Inline constants for f64 operands are f64 values.
    const G90A_ADD_F64_INL: &[u8] = &[0x04, 0x00, 0x80, 0xd2, 0xf0, 0x0c, 0x02, 0x00]; // v_add_f64 v[4:5], 0.5, v[6:7]
    r.run(G90A_ADD_F64_INL);
    assert!((0..64).all(|l| get64(&r, 4, l) == 0.5 + x(l)));
}

const DIV_F32: [&[u8]; 11] = [
    &[0x03, 0x02, 0xe0, 0xd1, 0x02, 0x05, 0x06, 0x04], // v_div_scale_f32 v3, s[2:3], v2, v2, v1
    &[0x04, 0x6a, 0xe0, 0xd1, 0x01, 0x05, 0x06, 0x04], // v_div_scale_f32 v4, vcc, v1, v2, v1
    &[0x03, 0x45, 0x0a, 0x7e],                         // v_rcp_f32_e32 v5, v3
    &[0x06, 0x00, 0xcb, 0xd1, 0x03, 0x0b, 0xca, 0x23], // v_fma_f32 v6, -v3, v5, 1.0
    &[0x05, 0x00, 0xcb, 0xd1, 0x06, 0x0b, 0x16, 0x04], // v_fma_f32 v5, v6, v5, v5
    &[0x04, 0x0b, 0x0c, 0x0a],                         // v_mul_f32_e32 v6, v4, v5
    &[0x07, 0x00, 0xcb, 0xd1, 0x03, 0x0d, 0x12, 0x24], // v_fma_f32 v7, -v3, v6, v4
    &[0x06, 0x00, 0xcb, 0xd1, 0x07, 0x0b, 0x1a, 0x04], // v_fma_f32 v6, v7, v5, v6
    &[0x03, 0x00, 0xcb, 0xd1, 0x03, 0x0d, 0x12, 0x24], // v_fma_f32 v3, -v3, v6, v4
    &[0x03, 0x00, 0xe2, 0xd1, 0x03, 0x0b, 0x1a, 0x04], // v_div_fmas_f32 v3, v3, v5, v6
    &[0x01, 0x00, 0xde, 0xd1, 0x03, 0x05, 0x06, 0x04], // v_div_fixup_f32 v1, v3, v2, v1
];

const DIV_F64: [&[u8]; 11] = [
    &[0x04, 0x02, 0xe1, 0xd1, 0x02, 0x05, 0x02, 0x04], // v_div_scale_f64 v[4:5], s[2:3], v[2:3], v[2:3], v[0:1]
    &[0x0a, 0x6a, 0xe1, 0xd1, 0x00, 0x05, 0x02, 0x04], // v_div_scale_f64 v[10:11], vcc, v[0:1], v[2:3], v[0:1]
    &[0x04, 0x4b, 0x0c, 0x7e],                         // v_rcp_f64_e32 v[6:7], v[4:5]
    &[0x08, 0x00, 0xcc, 0xd1, 0x04, 0x0d, 0xca, 0x23], // v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    &[0x06, 0x00, 0xcc, 0xd1, 0x06, 0x11, 0x1a, 0x04], // v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
    &[0x08, 0x00, 0xcc, 0xd1, 0x04, 0x0d, 0xca, 0x23], // v_fma_f64 v[8:9], -v[4:5], v[6:7], 1.0
    &[0x06, 0x00, 0xcc, 0xd1, 0x06, 0x11, 0x1a, 0x04], // v_fma_f64 v[6:7], v[6:7], v[8:9], v[6:7]
    &[0x08, 0x00, 0x81, 0xd2, 0x0a, 0x0d, 0x02, 0x00], // v_mul_f64 v[8:9], v[10:11], v[6:7]
    &[0x04, 0x00, 0xcc, 0xd1, 0x04, 0x11, 0x2a, 0x24], // v_fma_f64 v[4:5], -v[4:5], v[8:9], v[10:11]
    &[0x04, 0x00, 0xe3, 0xd1, 0x04, 0x0d, 0x22, 0x04], // v_div_fmas_f64 v[4:5], v[4:5], v[6:7], v[8:9]
    &[0x00, 0x00, 0xdf, 0xd1, 0x04, 0x05, 0x02, 0x04], // v_div_fixup_f64 v[0:1], v[4:5], v[2:3], v[0:1]
];

#[test]
fn clang_division_macros_give_correctly_rounded_quotients() {
    // The sequences clang-19 emits for a correctly rounded f32 division (OpenCL
    // -cl-fp32-correctly-rounded-divide-sqrt) and for f64 division on gfx900, with denormals
    // enabled as in the kernel's descriptor. Inputs cover scaling paths: huge and tiny
    // quotients, denormal operands, zero, infinity and NaN.
    let pairs: Vec<(f64, f64)> = vec![
        (1.0, 3.0),
        (-7.0, 0.1),
        (1.0e30, 1.0e-8),
        (1.0e-30, 1.0e10),
        (3.0e-39, 7.0),
        (1.0e-38, 1.0e30),
        (2.0, 3.0e-39),
        (0.0, 5.0),
        (5.0, 0.0),
        (0.0, 0.0),
        (f64::INFINITY, 2.0),
        (2.0, f64::INFINITY),
        (123456.789, -0.0001234),
        (3.4e38, 0.5),
        (1.0, 1.0e-45),
    ];
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    r.set_v(1, |l| (pairs[l % pairs.len()].0 as f32).to_bits());
    r.set_v(2, |l| (pairs[l % pairs.len()].1 as f32).to_bits());
    DIV_F32.iter().for_each(|c| {
        r.run(c);
    });
    for (l, &(a, b)) in pairs.iter().enumerate() {
        let want = a as f32 / b as f32;
        let got = f32::from_bits(r.wave.v(1, l));
        assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "f32 {a}/{b}: {got:e} vs {want:e}");
    }
    let pairs64: Vec<(f64, f64)> =
        vec![(1.0, 3.0), (1.0e300, 1.0e-5), (1.0e-300, 1.0e10), (1.0e-310, 3.0), (2.0, 1.0e-310), (-5.5, 1.0e-5), (1.0, 1.0e300), (0.0, 0.0), (7.0, -0.0)];
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    set64(&mut r, 0, |l| pairs64[l % pairs64.len()].0);
    set64(&mut r, 2, |l| pairs64[l % pairs64.len()].1);
    DIV_F64.iter().for_each(|c| {
        r.run(c);
    });
    for (l, &(a, b)) in pairs64.iter().enumerate() {
        let (got, want) = (get64(&r, 0, l), a / b);
        assert!(got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()), "f64 {a}/{b}: {got:e} vs {want:e}");
    }
}

#[test]
fn div_scale_fmas_fixup_special_cases() {
    const DIV_SCALE_F32_S: &[u8] = &[0x01, 0x04, 0xe0, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_div_scale_f32 v1, s[4:5], v2, v3, v4
    const DIV_FMAS_F32: &[u8] = &[0x01, 0x00, 0xe2, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_div_fmas_f32 v1, v2, v3, v4
    const DIV_FIXUP_F32: &[u8] = &[0x01, 0x00, 0xde, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_div_fixup_f32 v1, v2, v3, v4
    let f = |x: f32| x.to_bits();
    let two64 = 2f32.powi(64);
    // v_div_scale(S0, S1 = denominator, S2 = numerator).
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    let s0 = [f(3.0), f(3.0), f(2.0e-39), f(1.0e-39), f(1.0e-36), f(1.0e30)];
    let s1 = [f(3.0), f(0.0), f(2.0e-39), f(3.0), f(1.0e-3), f(1.0e-30)];
    let s2 = [f(6.0), f(1.0), f(1.0e-20), f(1.0e-39), f(1.0e-36), f(1.0e30)];
    r.set_v(2, |l| s0[l % 6]);
    r.set_v(3, |l| s1[l % 6]);
    r.set_v(4, |l| s2[l % 6]);
    r.run(DIV_SCALE_F32_S);
    let got: Vec<u32> = (0..6).map(|l| r.wave.v(1, l)).collect();
    // Lane 0: no rule applies, S0. Lane 1: zero denominator, NaN. Lane 2: denormal
    // denominator, S0 * 2^64. Lane 3: denormal quotient, S0 (= numerator) * 2^64 and the
    // post-scaling flag. Lane 4: tiny numerator (biased exponent <= 23), S0 * 2^64. Lane 5:
    // exponent(S2) - exponent(S1) >= 96, flag set, S0 (not the denominator) unscaled.
    assert_eq!(got[0], f(3.0));
    assert!(f32::from_bits(got[1]).is_nan());
    assert_eq!(got[2], f(2.0e-39 * two64));
    assert_eq!(got[3], f(1.0e-39 * two64));
    assert_eq!(got[4], f(1.0e-36 * two64));
    assert_eq!(got[5], f(1.0e30));
    assert_eq!(r.wave.sreg[4] & 0x3f, 0b10_1000);
    // v_div_fmas: fma, post-scaled where VCC is set: up by 2^64 for a large quotient estimate
    // S2, down by 2^64 otherwise (see the kernel's note on the ISA text).
    r.set_v(2, |_| f(1.5));
    r.set_v(3, |_| f(2.0));
    r.set_v(4, |l| if l < 2 { f(0.25) } else { f(4.0) });
    r.wave.set_vcc(0b1010);
    r.run(DIV_FMAS_F32);
    let got: Vec<u32> = (0..4).map(|l| r.wave.v(1, l)).collect();
    assert_eq!(got, vec![f(3.25), f(3.25 * 2f32.powi(-64)), f(7.0), f(7.0 * 2f32.powi(64))]);
    // v_div_fixup(quotient, denominator, numerator).
    let q = [f(2.5), f(2.5), f(2.5), f(2.5), f(2.5), f(2.5), f(2.5), f(-2.5)];
    let den = [f(0.0), f(0.0), 0x7f80_0000, 0x7f80_0000, QNAN, f(2.0), f(-1.0), f(2.0)];
    let num = [f(0.0), f(-3.0), 0xff80_0000, f(4.0), f(1.0), QNAN | 2, f(1.0), f(5.0)];
    r.set_v(2, |l| q[l % 8]);
    r.set_v(3, |l| den[l % 8]);
    r.set_v(4, |l| num[l % 8]);
    r.run(DIV_FIXUP_F32);
    let got: Vec<u32> = (0..8).map(|l| r.wave.v(1, l)).collect();
    assert_eq!(got, vec![DEFAULT_NAN, 0xff80_0000, DEFAULT_NAN, 0, QNAN, QNAN | 2, f(-2.5), f(2.5)]);
}

fn ulps(a: f32, b: f32) -> u32 {
    (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs() as u32
}

#[test]
fn transcendental_functional_examples() {
    const EXP_F32: &[u8] = &[0x02, 0x41, 0x02, 0x7e]; // v_exp_f32_e32 v1, v2
    const LOG_F32: &[u8] = &[0x02, 0x43, 0x02, 0x7e]; // v_log_f32_e32 v1, v2
    const RCP_F32: &[u8] = &[0x02, 0x45, 0x02, 0x7e]; // v_rcp_f32_e32 v1, v2
    const RSQ_F32: &[u8] = &[0x02, 0x49, 0x02, 0x7e]; // v_rsq_f32_e32 v1, v2
    const SQRT_F32: &[u8] = &[0x02, 0x4f, 0x02, 0x7e]; // v_sqrt_f32_e32 v1, v2
    const SIN_F32: &[u8] = &[0x02, 0x53, 0x02, 0x7e]; // v_sin_f32_e32 v1, v2
    const COS_F32: &[u8] = &[0x02, 0x55, 0x02, 0x7e]; // v_cos_f32_e32 v1, v2
                                                      // The "Functional examples" of the CDNA3/4 and RDNA3 ISA VOP1 descriptions.
    let table: [Examples; 7] = [
        (EXP_F32, &[(0xff80_0000, 0), (0x8000_0000, 0x3f80_0000), (0x7f80_0000, 0x7f80_0000)]),
        (
            LOG_F32,
            &[
                (0xff80_0000, 0xffc0_0000),
                (0xbf80_0000, 0xffc0_0000),
                (0x8000_0000, 0xff80_0000),
                (0, 0xff80_0000),
                (0x3f80_0000, 0),
                (0x7f80_0000, 0x7f80_0000),
            ],
        ),
        (RCP_F32, &[(0xff80_0000, 0x8000_0000), (0xc000_0000, 0xbf00_0000), (0x8000_0000, 0xff80_0000), (0, 0x7f80_0000), (0x7f80_0000, 0)]),
        (RSQ_F32, &[(0xff80_0000, 0xffc0_0000), (0x8000_0000, 0xff80_0000), (0, 0x7f80_0000), (0x4080_0000, 0x3f00_0000), (0x7f80_0000, 0)]),
        (SQRT_F32, &[(0xff80_0000, 0xffc0_0000), (0x8000_0000, 0x8000_0000), (0, 0), (0x4080_0000, 0x4000_0000), (0x7f80_0000, 0x7f80_0000)]),
        (SIN_F32, &[(0xff80_0000, 0xffc0_0000), (0xff7f_ffff, 0), (0x8000_0000, 0x8000_0000), (0x3e80_0000, 0x3f80_0000), (0x7f80_0000, 0xffc0_0000)]),
        (COS_F32, &[(0xff80_0000, 0xffc0_0000), (0xff7f_ffff, 0x3f80_0000), (0x8000_0000, 0x3f80_0000), (0x3e80_0000, 0), (0x7f80_0000, 0xffc0_0000)]),
    ];
    for (code, ex) in table {
        let input: Vec<u32> = ex.iter().map(|e| e.0).collect();
        let got = gfx9(MODE_IEEE, code, &input, &[], &[]);
        let want: Vec<u32> = ex.iter().map(|e| e.1).collect();
        assert_eq!(got, want, "{code:02x?}");
    }
    // f16 examples (V_RCP_F16, V_SQRT_F16, V_SIN_F16).
    const RCP_F16: &[u8] = &[0x02, 0x7b, 0x02, 0x7e]; // v_rcp_f16_e32 v1, v2
    const SQRT_F16: &[u8] = &[0x02, 0x7d, 0x02, 0x7e]; // v_sqrt_f16_e32 v1, v2
    const SIN_F16: &[u8] = &[0x02, 0x93, 0x02, 0x7e]; // v_sin_f16_e32 v1, v2
    assert_eq!(gfx9(MODE_IEEE, RCP_F16, &[0xfc00, 0xc000, 0x8000, 0, 0x7c00], &[], &[]), vec![0x8000, 0xb800, 0xfc00, 0x7c00, 0]);
    assert_eq!(gfx9(MODE_IEEE, SQRT_F16, &[0xfc00, 0x8000, 0, 0x4400, 0x7c00], &[], &[]), vec![0xfe00, 0x8000, 0, 0x4000, 0x7c00]);
    assert_eq!(gfx9(MODE_IEEE, SIN_F16, &[0xfc00, 0xfbff, 0x8000, 0x3400, 0x7bff, 0x7c00], &[], &[]), vec![0xfe00, 0, 0x8000, 0x3c00, 0, 0xfe00]);
    // Within the ISA's 1 ULP of an f64 reference over a range of inputs.
    let xs: Vec<f32> = (0..64).map(|i| 0.37 + i as f32 * 3.3).collect();
    let check = |code: &[u8], f: fn(f64) -> f64| {
        let got = gfx9(MODE_IEEE, code, &bits(&xs), &[], &[]);
        for (x, g) in xs.iter().zip(got) {
            assert!(ulps(f32::from_bits(g), f(*x as f64) as f32) <= 1, "{x}");
        }
    };
    check(RCP_F32, |x| 1.0 / x);
    check(RSQ_F32, |x| 1.0 / x.sqrt());
    check(SQRT_F32, f64::sqrt);
    check(LOG_F32, f64::log2);
    let xs: Vec<f32> = (0..64).map(|i| (i as f32 - 32.0) * 0.37).collect();
    let got = gfx9(MODE_IEEE, EXP_F32, &bits(&xs), &[], &[]);
    for (x, g) in xs.iter().zip(got) {
        assert!(ulps(f32::from_bits(g), (*x as f64).exp2() as f32) <= 1, "exp2 {x}");
    }
}

#[test]
fn rounding_fraction_exponent() {
    const TRUNC_F32: &[u8] = &[0x02, 0x39, 0x02, 0x7e]; // v_trunc_f32_e32 v1, v2
    const CEIL_F32: &[u8] = &[0x02, 0x3b, 0x02, 0x7e]; // v_ceil_f32_e32 v1, v2
    const FLOOR_F32: &[u8] = &[0x02, 0x3f, 0x02, 0x7e]; // v_floor_f32_e32 v1, v2
    const RNDNE_F32: &[u8] = &[0x02, 0x3d, 0x02, 0x7e]; // v_rndne_f32_e32 v1, v2
    const FRACT_F32: &[u8] = &[0x02, 0x37, 0x02, 0x7e]; // v_fract_f32_e32 v1, v2
    let xs = [2.5f32, -2.5, 0.5, -0.5, 1.5, -1.2, 1.0e20, -0.0, 0.3, -7.0];
    let run = |code: &[u8]| gfx9(MODE_IEEE, code, &bits(&xs), &[], &[]);
    assert_eq!(run(TRUNC_F32), bits(&xs.map(f32::trunc)));
    assert_eq!(run(CEIL_F32), bits(&xs.map(f32::ceil)));
    assert_eq!(run(FLOOR_F32), bits(&xs.map(f32::floor)));
    assert_eq!(run(RNDNE_F32), bits(&[2.0, -2.0, 0.0, -0.0, 2.0, -1.0, 1.0e20, -0.0, 0.0, -7.0]));
    // fract(x) = x - floor(x), DX semantics (fract(-1.2) = 0.8), below 1.0, NaN for infinity.
    let got = gfx9(MODE_IEEE, FRACT_F32, &bits(&[-1.2, 2.75, -1.0e-30, f32::INFINITY, 5.0]), &[], &[]);
    assert_eq!(got, vec![(-1.2f32 - (-2.0)).to_bits(), 0.75f32.to_bits(), 0x3f7f_ffff, DEFAULT_NAN, 0]);
    const FREXP_MANT_F32: &[u8] = &[0x02, 0x69, 0x02, 0x7e]; // v_frexp_mant_f32_e32 v1, v2
    const FREXP_EXP_F32: &[u8] = &[0x02, 0x67, 0x02, 0x7e]; // v_frexp_exp_i32_f32_e32 v1, v2
    let xs = bits(&[8.0, -0.75, 1.0e-40, 0.0, f32::INFINITY]);
    // 1e-40 (an f32 denormal) = m * 2^-132 with m in [0.5, 1).
    let tiny = (1.0e-40f32 as f64 * 2f64.powi(132)) as f32;
    assert_eq!(gfx9(MODE_IEEE, FREXP_MANT_F32, &xs, &[], &[]), bits(&[0.5, -0.75, tiny, 0.0, f32::INFINITY]));
    assert_eq!(gfx9(MODE_IEEE, FREXP_EXP_F32, &xs, &[], &[]), vec![4, 0, -132i32 as u32, 0, 0]);
    const LDEXP_F32: &[u8] = &[0x01, 0x00, 0x88, 0xd2, 0x02, 0x07, 0x02, 0x00]; // v_ldexp_f32 v1, v2, v3
    let got = gfx9(MODE_IEEE, LDEXP_F32, &bits(&[1.5, 1.5, 1.0, 3.0]), &[3, -140i32 as u32, 200, -2i32 as u32], &[]);
    assert_eq!(got, bits(&[12.0, 1.5 * 2f32.powi(-140), f32::INFINITY, 0.75]));
    // f64 rounding.
    const RNDNE_F64: &[u8] = &[0x06, 0x33, 0x08, 0x7e]; // v_rndne_f64_e32 v[4:5], v[6:7]
    const FLOOR_F64: &[u8] = &[0x06, 0x35, 0x08, 0x7e]; // v_floor_f64_e32 v[4:5], v[6:7]
    let xs = [2.5f64, 3.5, -2.5, -0.25, 4503599627370497.0];
    let mut r = Rig::new(Processor::Gfx900, true);
    set64(&mut r, 6, |l| xs[l % 5]);
    r.run(RNDNE_F64);
    assert_eq!((0..5).map(|l| get64(&r, 4, l)).collect::<Vec<_>>(), vec![2.0, 4.0, -2.0, -0.0, 4503599627370497.0]);
    r.run(FLOOR_F64);
    assert_eq!((0..5).map(|l| get64(&r, 4, l)).collect::<Vec<_>>(), vec![2.0, 3.0, -3.0, -1.0, 4503599627370497.0]);
}

#[test]
fn half_precision_arithmetic() {
    const ADD_F16: &[u8] = &[0x02, 0x07, 0x02, 0x3e]; // v_add_f16_e32 v1, v2, v3
    const MUL_F16: &[u8] = &[0x02, 0x07, 0x02, 0x44]; // v_mul_f16_e32 v1, v2, v3
    const FMA_F16: &[u8] = &[0x01, 0x00, 0x06, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_fma_f16 v1, v2, v3, v4
    const MAD_F16: &[u8] = &[0x01, 0x00, 0x03, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_mad_f16 v1, v2, v3, v4
                                                                              // 1 + 2^-11 is a tie between 1.0 and 1 + 2^-10: nearest even is 1.0; 1 + 3*2^-11 rounds
                                                                              // up to 1 + 2^-9. 65504 + 8 rounds back to 65504 (below the boundary 65520); 65504 + 32
                                                                              // rounds to infinity. 2^-24 + 2^-24 is a denormal.
    let got = gfx9(MODE_IEEE, ADD_F16, &[0x3c00, 0x3c01, 0x7bff, 0x7bff, 0x0001], &[0x1000, 0x1000, 0x4800, 0x5000, 0x0001], &[]);
    assert_eq!(got, vec![0x3c00, 0x3c02, 0x7bff, 0x7c00, 0x0002]);
    assert_eq!(gfx9(MODE_IEEE, MUL_F16, &[0x4000, 0xc200], &[0x3800, 0x4200], &[]), vec![0x3c00, 0xc880]);
    // fma rounds once: (1+2^-10)^2 + 2^-11 = 1 + 2^-9 + 2^-11 + 2^-20 -> 0x3c03; v_mad_f16
    // rounds the product first and lands on the tie -> 0x3c02.
    assert_eq!(gfx9(MODE_IEEE, FMA_F16, &[0x3c01], &[0x3c01], &[0x1000]), vec![0x3c03]);
    assert_eq!(gfx9(MODE_IEEE, MAD_F16, &[0x3c01], &[0x3c01], &[0x1000]), vec![0x3c02]);
    // f16 denormals follow MODE[7:6].
    assert_eq!(gfx9(0x30, ADD_F16, &[0x0001], &[0], &[]), vec![0]);
    // GFX9 op_sel on v_fma_f16: op_sel:[1,1,0,1] reads the high halves of S0/S1 and writes the
    // high half of the destination, keeping its low half.
    const FMA_F16_OPSEL: &[u8] = &[0x01, 0x58, 0x06, 0xd2, 0x02, 0x07, 0x12, 0x04]; // v_fma_f16 v1, v2, v3, v4 op_sel:[1,1,0,1]
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    r.set_v(1, |_| 0x1234_5678);
    r.set_v(2, |_| 0x4000_3c00); // hi 2.0, lo 1.0
    r.set_v(3, |_| 0x4200_3c00); // hi 3.0, lo 1.0
    r.set_v(4, |_| 0x0000_3c00); // lo 1.0
    r.run(FMA_F16_OPSEL);
    assert_eq!(r.wave.v(1, 0), 0x4700_5678, "2*3+1 = 7.0 into the high half");
}

#[test]
fn legacy_multiply_and_cube() {
    const MUL_LEGACY: &[u8] = &[0x02, 0x07, 0x02, 0x08]; // v_mul_legacy_f32_e32 v1, v2, v3
    let got = gfx9(MODE_IEEE, MUL_LEGACY, &[0, 0x8000_0000, 0x4000_0000], &[0x7f80_0000, QNAN, 0x4040_0000], &[]);
    assert_eq!(got, vec![0, 0, 6.0f32.to_bits()], "DX9 rule: 0 * anything = 0");
    const CUBEMA: &[u8] = &[0x01, 0x00, 0xc7, 0xd1, 0x02, 0x07, 0x12, 0x04]; // v_cubema_f32 v1, v2, v3, v4
    let f = |x: f32| x.to_bits();
    assert_eq!(gfx9(MODE_IEEE, CUBEMA, &[f(1.0), f(-3.0)], &[f(-2.0), f(1.0)], &[f(0.5), f(2.0)]), vec![f(-4.0), f(-6.0)]);
}

#[test]
fn gfx10_literals_and_accumulating_forms() {
    const G10_ADD_F32_LIT: &[u8] = &[0x01, 0x00, 0x03, 0xd5, 0xff, 0x04, 0x02, 0x00, 0x00, 0x00, 0x40, 0x40]; // v_add_f32_e64 v1, 0x40400000, v2
    const G10_FMAC: &[u8] = &[0x02, 0x07, 0x02, 0x56]; // v_fmac_f32_e32 v1, v2, v3
    const G10_FMAAK: &[u8] = &[0x02, 0x07, 0x02, 0x5a, 0x00, 0x00, 0x40, 0x40]; // v_fmaak_f32 v1, v2, v3, 0x40400000
    const G10_FMAMK: &[u8] = &[0x02, 0x07, 0x02, 0x58, 0x00, 0x00, 0x40, 0x40]; // v_fmamk_f32 v1, v2, 0x40400000, v3
    const G10_FMA_LEGACY: &[u8] = &[0x01, 0x00, 0x40, 0xd5, 0x02, 0x07, 0x12, 0x04]; // v_fma_legacy_f32 v1, v2, v3, v4
    let mut r = Rig::new(Processor::Gfx1030, false);
    r.wave.mode = MODE_IEEE;
    r.set_v(2, |l| (l as f32 + 0.5).to_bits());
    r.set_v(3, |_| 0.25f32.to_bits());
    r.set_v(1, |_| 1.0f32.to_bits());
    let x = |l: usize| l as f32 + 0.5;
    r.run(G10_FMAC);
    assert!((0..32).all(|l| r.wave.v(1, l) == x(l).mul_add(0.25, 1.0).to_bits()));
    r.run(G10_FMAAK);
    assert!((0..32).all(|l| r.wave.v(1, l) == x(l).mul_add(0.25, 3.0).to_bits()));
    r.run(G10_FMAMK);
    assert!((0..32).all(|l| r.wave.v(1, l) == x(l).mul_add(3.0, 0.25).to_bits()));
    r.run(G10_ADD_F32_LIT);
    assert!((0..32).all(|l| r.wave.v(1, l) == (3.0 + x(l)).to_bits()));
    r.set_v(2, |_| 0);
    r.set_v(3, |_| f32::INFINITY.to_bits());
    r.set_v(4, |_| 2.0f32.to_bits());
    r.run(G10_FMA_LEGACY);
    assert_eq!(r.wave.v(1, 0), 2.0f32.to_bits(), "legacy fma: 0 * inf = 0");
}

#[test]
fn gfx11_sixteen_bit_halves_and_new_forms() {
    // True16 operands (decoded with real-true16): VOP2 bit 7 of a VGPR number selects the high
    // half (RDNA3 ISA §7.4); the other half of the destination is kept.
    const G11_ADD_F16_T16: &[u8] = &[0x82, 0x07, 0x02, 0x65]; // v_add_f16 v1.h, v2.h, v3.l
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.wave.mode = MODE_IEEE;
    r.set_v(1, |_| 0x1111_2222);
    r.set_v(2, |_| 0x4000_0000); // hi 2.0
    r.set_v(3, |_| 0x0000_3c00); // lo 1.0
    let inst = Decoder::with_true16(Processor::Gfx1100, false, true).decode(G11_ADD_F16_T16, 0x1000).expect("decodes");
    let sem = classify(&inst, &r.env);
    let mut cx = ExecCtx { wave: &mut r.wave, mem: &mut r.mem, port: None, lds: &mut r.lds, env: &r.env };
    execute(&sem, &inst, &mut cx).expect("executes");
    assert_eq!(r.wave.v(1, 5), 0x4200_2222, "2.0 + 1.0 into v1.h");
    const G11_MAXMIN: &[u8] = &[0x01, 0x00, 0x5e, 0xd6, 0x02, 0x07, 0x12, 0x04]; // v_maxmin_f32 v1, v2, v3, v4
    r.set_v(2, |_| 1.0f32.to_bits());
    r.set_v(3, |_| 5.0f32.to_bits());
    r.set_v(4, |l| (l as f32).to_bits());
    r.run(G11_MAXMIN);
    assert!((0..32).all(|l| r.wave.v(1, l) == (l as f32).min(5.0).to_bits()));
    // v_fma_mix_f32: op_sel_hi selects f16 sources (op_sel: which half), else f32.
    const G11_FMA_MIX: &[u8] = &[0x01, 0x00, 0x20, 0xcc, 0x02, 0x07, 0x12, 0x1c]; // v_fma_mix_f32 v1, v2, v3, v4 op_sel_hi:[1,1,0]
    const G11_FMA_MIXLO: &[u8] = &[0x01, 0x08, 0x21, 0xcc, 0x02, 0x07, 0x12, 0x1c]; // v_fma_mixlo_f16 v1, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[1,1,0]
    r.set_v(2, |_| 0x4400_3800); // hi 4.0, lo 0.5
    r.set_v(3, |_| 0x0000_4200); // lo 3.0
    r.set_v(4, |_| 0.25f32.to_bits());
    r.run(G11_FMA_MIX);
    assert_eq!(r.wave.v(1, 0), 1.75f32.to_bits(), "0.5 * 3.0 + 0.25");
    r.set_v(1, |_| 0xabcd_0000);
    r.run(G11_FMA_MIXLO);
    assert_eq!(r.wave.v(1, 0), 0xabcd_4a20, "4.0 * 3.0 + 0.25 = 12.25 into the low half");
}

#[test]
fn gfx12_number_and_ieee_min_max() {
    const G12_MIN_NUM: &[u8] = &[0x02, 0x07, 0x02, 0x2a]; // v_min_num_f32_e32 v1, v2, v3
    const G12_MAXIMUM: &[u8] = &[0x01, 0x00, 0x66, 0xd7, 0x02, 0x07, 0x02, 0x00]; // v_maximum_f32 v1, v2, v3
    const G12_MINIMUM3: &[u8] = &[0x01, 0x00, 0x2d, 0xd6, 0x02, 0x07, 0x12, 0x04]; // v_minimum3_f32 v1, v2, v3, v4
    let one = 1.0f32.to_bits();
    let run = |code: &[u8], x: &[u32], y: &[u32], z: &[u32]| run32(Processor::Gfx1201, MODE_IEEE, code, x, y, z);
    // minimumNumber: a NaN (even signalling) operand yields the other; -0 < +0.
    assert_eq!(run(G12_MIN_NUM, &[SNAN, one, 0], &[one, QNAN, 0x8000_0000], &[]), vec![one, one, 0x8000_0000]);
    // maximum: NaN propagates (quieted); +0 > -0.
    assert_eq!(run(G12_MAXIMUM, &[SNAN, one, 0x8000_0000], &[one, QNAN, 0], &[]), vec![SNAN | 0x40_0000, QNAN, 0]);
    assert_eq!(run(G12_MINIMUM3, &[one, one], &[0x8000_0000, one], &[0, QNAN]), vec![0x8000_0000, QNAN]);
}

#[test]
fn trig_preop_segments_of_two_over_pi() {
    // Expectations from a reference written from the ISA pseudo-code (2/PI to 1201 bits by
    // exact integer arithmetic; 53-bit window at `shift = 53 * S1 + max(exp - 1077, 0)`,
    // scaled by 2^(-53 - shift) (+128 when exp >= 1968), truncated).
    const TRIG_PREOP: &[u8] = &[0x04, 0x00, 0x92, 0xd2, 0x06, 0x11, 0x02, 0x00]; // v_trig_preop_f64 v[4:5], v[6:7], v8
    const G11_TRIG: &[u8] = &[0x04, 0x00, 0x2f, 0xd7, 0x06, 0x03, 0x01, 0x00]; // v_trig_preop_f64 v[4:5], v[6:7], 1
    let cases: [(f64, u32, u64); 8] = [
        (1.0, 0, 0x3fe4_5f30_6dc9_c882),
        (1.0, 1, 0x3c94_a7f0_9d5f_47d4),
        (1.0, 2, 0x394a_6ee0_6db1_4acc),
        (2f64.powi(1000), 1, 0x097e_5f17_b3d0_739f),
        (2f64.powi(77), 0, 0x3e76_e4e4_4152_9fc2),
        (f64::INFINITY, 0, 0x0b43_dd63_f5f2_f8bd),
        // Denormal results are truncated; past the table the segment is zero.
        (1.0, 19, 0x00ff_17b3_d073_9f78),
        (1.0, 31, 0),
    ];
    let mut r = Rig::new(Processor::Gfx900, true);
    r.wave.mode = MODE_IEEE;
    set64(&mut r, 6, |l| cases[l % 8].0);
    r.set_v(8, |l| cases[l % 8].1);
    r.run(TRIG_PREOP);
    for (l, c) in cases.iter().enumerate() {
        assert_eq!(get64(&r, 4, l).to_bits(), c.2, "lane {l}: {c:?}");
    }
    // Segments 0..2 sum to 2/PI.
    let sum: f64 = (0..3).map(|l| get64(&r, 4, l)).sum();
    assert_eq!(sum, std::f64::consts::FRAC_2_PI);
    let mut r = Rig::new(Processor::Gfx1100, false);
    set64(&mut r, 6, |_| 1.0);
    r.run(G11_TRIG);
    assert_eq!(get64(&r, 4, 31).to_bits(), 0x3c94_a7f0_9d5f_47d4);
}

/// GFX12's pseudo-scalar transcendentals: the VALU computes on a scalar source and writes an
/// SGPR (16-bit results zero-extended), whatever EXEC holds. References: correctly rounded
/// host results (exact for these inputs: 1/4, sqrt(2.25), 2^3 in f16, 1/sqrt(4)).
#[test]
fn gfx12_pseudo_scalar_transcendentals_write_sgprs() {
    const S_RCP: &[u8] = &[0x09, 0x00, 0x84, 0xd6, 0x09, 0x00, 0x00, 0x00]; // v_s_rcp_f32 s9, s9
    const S_SQRT: &[u8] = &[0x05, 0x00, 0x88, 0xd6, 0x02, 0x00, 0x00, 0x00]; // v_s_sqrt_f32 s5, s2
    const S_EXP_F16: &[u8] = &[0x05, 0x00, 0x81, 0xd6, 0x02, 0x00, 0x00, 0x00]; // v_s_exp_f16 s5, s2
    const S_RSQ_NEG: &[u8] = &[0x05, 0x00, 0x86, 0xd6, 0x02, 0x00, 0x00, 0x20]; // v_s_rsq_f32 s5, -s2
    let mut r = Rig::new(Processor::Gfx1201, false);
    r.wave.mode = MODE_IEEE;
    r.set_v(5, |_| 0x1234_5678);
    r.wave.sreg[9] = 4.0f32.to_bits();
    r.run(S_RCP);
    assert_eq!(f32::from_bits(r.wave.sreg[9]), 0.25);
    r.wave.set_exec(0);
    r.wave.sreg[2] = 2.25f32.to_bits();
    r.run(S_SQRT);
    assert_eq!(f32::from_bits(r.wave.sreg[5]), 1.5, "written with EXEC = 0");
    r.wave.sreg[2] = 0xffff_4200; // f16 3.0 in the low half, garbage above
    r.run(S_EXP_F16);
    assert_eq!(r.wave.sreg[5], 0x4800, "f16 8.0, zero-extended");
    r.wave.sreg[2] = (-4.0f32).to_bits();
    r.run(S_RSQ_NEG);
    assert_eq!(f32::from_bits(r.wave.sreg[5]), 0.5, "the neg modifier applies to the scalar source");
    assert!((0..32).all(|l| r.wave.v(5, l) == 0x1234_5678), "no VGPR written");
}
