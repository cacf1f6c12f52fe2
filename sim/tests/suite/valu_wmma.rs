//! WMMA/SWMMAC against a CPU reference: random A, B, C placed into registers by the element →
//! (VGPR, bits, lane) formulas of the RDNA3 ISA guide §7.9 and RDNA4 ISA guide §7.9 (as AMD's
//! Matrix Instruction Calculator prints them), D read back the same way and compared with a
//! plain matrix product. Integer forms must match exactly; float forms within a bound of
//! 2^-22 of the sum of |products| (the accumulation order is undocumented). Encodings from
//! `llvm-mc-19 -triple=amdgcn -mcpu=<gpu> [-mattr=+wavefrontsize64] -show-encoding`.

// Matrix positions (i, j, k) are the subject here: loops over them index several matrices and
// the layout formulas at once.
#![allow(clippy::needless_range_loop)]

use hipscope_isa::Processor;
use hipscope_sim::exec::valu::fp::{f2h, h2d};
use hipscope_sim::exec::valu::minifloat::{decode, Format};
use hipscope_sim::testing::Rig;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Where one element lives: VGPR offset from the operand's base, bit offset, lanes.
type At = (usize, u32, Vec<usize>);

/// Element types as the test sees them.
#[derive(Clone, Copy, PartialEq)]
enum T {
    F16,
    Bf16,
    F8(Format),
    U8,
    I8,
    I4,
    U4,
    F32,
    I32,
    /// Any i32 (for saturation).
    I32Wide,
}

fn bits(t: T) -> u32 {
    match t {
        T::F16 | T::Bf16 => 16,
        T::F8(_) | T::U8 | T::I8 => 8,
        T::I4 | T::U4 => 4,
        T::F32 | T::I32 | T::I32Wide => 32,
    }
}

/// A random element's raw bits and value (finite floats of moderate size).
fn random(t: T, rng: &mut StdRng) -> (u32, f64) {
    match t {
        T::F16 => {
            let h = f2h(rng.random_range(-4.0f32..4.0), false) as u64;
            (h as u32, h2d(h))
        }
        T::Bf16 => {
            let b = (rng.random_range(-4.0f32..4.0).to_bits() >> 16) as u16;
            (b as u32, f32::from_bits((b as u32) << 16) as f64)
        }
        T::F8(f) => loop {
            let b = rng.random::<u8>();
            let v = decode(f, b);
            if v.is_finite() && v.abs() < 64.0 {
                return (b as u32, v as f64);
            }
        },
        T::U8 => {
            let b = rng.random::<u8>();
            (b as u32, b as f64)
        }
        T::I8 => {
            let b = rng.random::<u8>();
            (b as u32, b as i8 as f64)
        }
        T::I4 => {
            let b = rng.random::<u8>() & 15;
            (b as u32, ((b << 4) as i8 >> 4) as f64)
        }
        T::U4 => {
            let b = rng.random::<u8>() & 15;
            (b as u32, b as f64)
        }
        T::F32 => {
            let v = rng.random_range(-8.0f32..8.0);
            (v.to_bits(), v as f64)
        }
        T::I32 => {
            let v = rng.random_range(-100_000i32..100_000);
            (v as u32, v as f64)
        }
        T::I32Wide => {
            let v = rng.random::<i32>();
            (v as u32, v as f64)
        }
    }
}

fn put(r: &mut Rig, base: usize, at: &At, t: T, raw: u32) {
    let m = if bits(t) == 32 { !0 } else { (1u32 << bits(t)) - 1 } << at.1;
    for &l in &at.2 {
        let old = r.wave.v(base + at.0, l);
        r.wave.set_v(base + at.0, l, (old & !m) | (raw << at.1) & m);
    }
}

struct Case<'a> {
    p: Processor,
    w64: bool,
    code: &'a [u8],
    k: usize,
    ab: (T, T),
    cd: T,
    /// A[i][k], B[k][j] (called with (j, k)), C/D[i][j] placements.
    a: &'a dyn Fn(usize, usize) -> At,
    b: &'a dyn Fn(usize, usize) -> At,
    d: &'a dyn Fn(usize, usize) -> At,
    /// neg_lo and neg_hi bits as encoded (floats: A/B halves, C negate/abs).
    neg: [bool; 3],
    neg_hi: [bool; 3],
    clamp: bool,
    /// C as an inline constant: its value (C then is not placed in registers).
    c_const: Option<f64>,
}

impl<'a> Case<'a> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        p: Processor,
        w64: bool,
        code: &'a [u8],
        k: usize,
        ab: (T, T),
        cd: T,
        a: &'a dyn Fn(usize, usize) -> At,
        d: &'a dyn Fn(usize, usize) -> At,
    ) -> Case<'a> {
        Case { p, w64, code, k, ab, cd, a, b: a, d, neg: [false; 3], neg_hi: [false; 3], clamp: false, c_const: None }
    }
}

/// A float input element after the encoding's neg_lo (low 16 bits) / neg_hi (high 16 bits).
fn signed_input(v: f64, t: T, at: &At, neg: bool, neg_hi: bool) -> f64 {
    let flip = matches!(t, T::F16 | T::Bf16) && if at.1 % 32 == 0 { neg } else { neg_hi };
    if flip {
        -v
    } else {
        v
    }
}

/// C after neg_hi[2] (absolute value) and neg_lo[2] (negate) for float C.
fn signed_c(v: f64, c: &Case) -> f64 {
    if matches!(c.cd, T::I32 | T::I32Wide) {
        return v;
    }
    let v = if c.neg_hi[2] { v.abs() } else { v };
    if c.neg[2] {
        -v
    } else {
        v
    }
}

/// The value of D's raw bits.
fn output(t: T, raw: u32) -> f64 {
    match t {
        T::F32 => f32::from_bits(raw) as f64,
        T::F16 => h2d(raw as u64 & 0xffff),
        T::Bf16 => f32::from_bits(raw << 16) as f64,
        _ => raw as i32 as f64,
    }
}

/// Run one case with seeded random inputs: A at v0, B at v8, C/D at v16.
fn check(c: &Case, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut r = Rig::new(c.p, c.w64);
    for reg in 0..32 {
        r.set_v(reg, |_| 0x5a5a_5a5a);
    }
    let mut a = [[0.0f64; 64]; 16];
    let mut b = [[0.0f64; 64]; 16];
    let mut cm = [[0.0f64; 16]; 16];
    for i in 0..16 {
        for k in 0..c.k {
            let (raw, v) = random(c.ab.0, &mut rng);
            let at = (c.a)(i, k);
            put(&mut r, 0, &at, c.ab.0, raw);
            a[i][k] = signed_input(v, c.ab.0, &at, c.neg[0], c.neg_hi[0]);
            let (raw, v) = random(c.ab.1, &mut rng);
            let at = (c.b)(i, k);
            put(&mut r, 8, &at, c.ab.1, raw);
            b[i][k] = signed_input(v, c.ab.1, &at, c.neg[1], c.neg_hi[1]);
        }
        for j in 0..16 {
            let (raw, v) = random(c.cd, &mut rng);
            if c.c_const.is_none() {
                put(&mut r, 16, &(c.d)(i, j), c.cd, raw);
            }
            cm[i][j] = signed_c(c.c_const.unwrap_or(v), c);
        }
    }
    r.run(c.code);
    for i in 0..16 {
        for j in 0..16 {
            let sum: f64 = cm[i][j] + (0..c.k).map(|k| a[i][k] * b[j][k]).sum::<f64>();
            let exp = if c.clamp { sum.clamp(i32::MIN as f64, i32::MAX as f64) } else { sum };
            let mag: f64 = cm[i][j].abs() + (0..c.k).map(|k| (a[i][k] * b[j][k]).abs()).sum::<f64>();
            let (g, sh, lanes) = (c.d)(i, j);
            let got = output(c.cd, r.wave.v(16 + g, lanes[0]) >> sh);
            // f32: the sum's error bound; 16-bit results: plus one rounding (2^-11 / 2^-8).
            let round = match c.cd {
                T::F16 => 2f64.powi(-11),
                T::Bf16 => 2f64.powi(-8),
                _ => 0.0,
            };
            let tol = if matches!(c.cd, T::I32 | T::I32Wide) { 0.0 } else { mag * 2f64.powi(-22) + exp.abs() * round };
            assert!((got - exp).abs() <= tol, "seed {seed} D[{i}][{j}] = {got}, expected {exp} (wave64 {})", c.w64);
        }
    }
}

fn lanes(l: usize, replicas: usize) -> Vec<usize> {
    (0..replicas).map(|g| l + 16 * g).collect()
}

// RDNA3: A[i][k] in VGPR k/(32/bits) at bits, lanes i + 16g (replicated); C/D f32 row i in
// VGPR i/2 (wave32) or i/4 (wave64), lane (16 i mod 32|64) + j.
const G11_F32_F16: &[u8] = &[0x10, 0x40, 0x40, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_f32_16x16x16_f16 v[16:23], v[0:7], v[8:15], v[16:23]
const G11_IU8_SIGNED_A: &[u8] = &[0x10, 0x40, 0x44, 0xcc, 0x00, 0x11, 0x42, 0x3c]; // v_wmma_i32_16x16x16_iu8 v[16:23], v[0:3], v[8:11], v[16:23] neg_lo:[1,0,0]

#[test]
fn rdna3_f32_f16_wave32_and_wave64() {
    for w64 in [false, true] {
        let n = if w64 { 4 } else { 2 };
        let a = move |i: usize, k: usize| (k / 2, 16 * (k % 2) as u32, lanes(i, n));
        let d = move |i: usize, j: usize| (i / n, 0, vec![(16 * i) % (16 * n) + j]);
        let case = Case::new(Processor::Gfx1100, w64, G11_F32_F16, 16, (T::F16, T::F16), T::F32, &a, &d);
        (0..3).for_each(|s| check(&case, s));
    }
}

#[test]
fn rdna3_iu8_signedness_from_neg_lo() {
    for w64 in [false, true] {
        let n = if w64 { 4 } else { 2 };
        let a = move |i: usize, k: usize| (k / 4, 8 * (k % 4) as u32, lanes(i, n));
        let d = move |i: usize, j: usize| (i / n, 0, vec![(16 * i) % (16 * n) + j]);
        let case = Case::new(Processor::Gfx1100, w64, G11_IU8_SIGNED_A, 16, (T::I8, T::U8), T::I32, &a, &d);
        (0..3).for_each(|s| check(&case, s));
    }
}

// RDNA4 wave32: f16 A[i][k] in VGPR 2(k/8) + (k/2)%2, bits 16(k%2), lane 16((k/4)%2) + i;
// wave64: VGPR (k/2)%2, lane 32((k/8)%2) + 16((k/4)%2) + i. C/D f32: VGPR i%8, lane 16(i/8) + j
// (wave32); VGPR i%4, lane 32((i/4)%2) + 16(i/8) + j (wave64).
const G12_F32_F16: &[u8] = &[0x10, 0x40, 0x40, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[8:11], v[16:23]
const G12_FP8_BF8: &[u8] = &[0x10, 0x40, 0x47, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_f32_16x16x16_fp8_bf8 v[16:23], v[0:1], v[8:9], v[16:23]
const G12_IU4_X32: &[u8] = &[0x10, 0x40, 0x4a, 0xcc, 0x00, 0x11, 0x42, 0x7c]; // v_wmma_i32_16x16x32_iu4 v[16:23], v[0:1], v[8:9], v[16:23] neg_lo:[1,1,0]

fn g12_d(w64: bool) -> impl Fn(usize, usize) -> At {
    move |i, j| if w64 { (i % 4, 0, vec![32 * ((i / 4) % 2) + 16 * (i / 8) + j]) } else { (i % 8, 0, vec![16 * (i / 8) + j]) }
}

/// A dense RDNA4 shape with f32/i32 results in wave32 and wave64; `a(wave64, i, k)` places
/// A[i][k] (and B[k][i], which has the same layout).
fn rdna4_dense(p: Processor, code: &[u8], k: usize, ab: (T, T), cd: T, a: fn(bool, usize, usize) -> At) {
    for w64 in [false, true] {
        let a = move |i: usize, kk: usize| a(w64, i, kk);
        let d = g12_d(w64);
        (0..3).for_each(|s| check(&Case::new(p, w64, code, k, ab, cd, &a, &d), s));
    }
}

#[test]
fn rdna4_f32_f16_wave32_and_wave64() {
    rdna4_dense(Processor::Gfx1200, G12_F32_F16, 16, (T::F16, T::F16), T::F32, |w64, i, k| {
        if w64 {
            ((k / 2) % 2, 16 * (k % 2) as u32, vec![32 * ((k / 8) % 2) + 16 * ((k / 4) % 2) + i])
        } else {
            (2 * (k / 8) + (k / 2) % 2, 16 * (k % 2) as u32, vec![16 * ((k / 4) % 2) + i])
        }
    });
}

#[test]
fn rdna4_fp8_bf8_wave32_and_wave64() {
    rdna4_dense(Processor::Gfx1201, G12_FP8_BF8, 16, (T::F8(Format::E4M3), T::F8(Format::E5M2)), T::F32, |w64, i, k| {
        if w64 {
            (0, 8 * (k % 4) as u32, vec![32 * ((k / 4) % 2) + 16 * ((k / 8) % 2) + i])
        } else {
            ((k / 4) % 2, 8 * (k % 4) as u32, vec![16 * (k / 8) + i])
        }
    });
}

#[test]
fn rdna4_iu4_16x16x32_wave32_and_wave64() {
    rdna4_dense(Processor::Gfx1200, G12_IU4_X32, 32, (T::I4, T::I4), T::I32, |w64, i, k| {
        if w64 {
            (0, 4 * (k % 8) as u32, vec![32 * ((k / 8) % 2) + 16 * ((k / 16) % 2) + i])
        } else {
            ((k / 8) % 2, 4 * (k % 8) as u32, vec![16 * (k / 16) + i])
        }
    });
}

#[test]
fn rdna3_16_bit_results_in_the_op_sel_half() {
    // v_wmma_f16_16x16x16_f16 v[16:23], v[0:7], v[8:15], v[16:23] op_sel:[0,0,1] (wave32; the
    // wave64 form encodes the same with v[16:19]).
    const F16_HI: &[u8] = &[0x10, 0x60, 0x42, 0xcc, 0x00, 0x11, 0x42, 0x1c];
    const BF16: &[u8] = &[0x10, 0x40, 0x43, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_bf16_16x16x16_bf16 v[16:23], v[0:7], v[8:15], v[16:23]
    for w64 in [false, true] {
        let n = if w64 { 4 } else { 2 };
        let a = move |i: usize, k: usize| (k / 2, 16 * (k % 2) as u32, lanes(i, n));
        let hi = move |i: usize, j: usize| (i / n, 16, vec![(16 * i) % (16 * n) + j]);
        let lo = move |i: usize, j: usize| (i / n, 0, vec![(16 * i) % (16 * n) + j]);
        check(&Case::new(Processor::Gfx1100, w64, F16_HI, 16, (T::F16, T::F16), T::F16, &a, &hi), 11);
        check(&Case::new(Processor::Gfx1100, w64, BF16, 16, (T::Bf16, T::Bf16), T::Bf16, &a, &lo), 12);
    }
    // The other half of each D register is kept (the rig fills registers with 0x5a5a5a5a).
    let mut r = Rig::new(Processor::Gfx1100, false);
    r.set_v(16, |_| 0x5a5a_5a5a);
    r.run(F16_HI);
    assert!((0..32).all(|l| r.wave.v(16, l) & 0xffff == 0x5a5a));
}

#[test]
fn rdna4_16_bit_results_are_packed() {
    const BF16: &[u8] = &[0x10, 0x40, 0x43, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_bf16_16x16x16_bf16 v[16:17], v[0:1], v[8:9], v[16:17] (wave64)
    const F16: &[u8] = &[0x10, 0x40, 0x42, 0xcc, 0x00, 0x11, 0x42, 0x1c]; // v_wmma_f16_16x16x16_f16 v[16:19], v[0:3], v[8:11], v[16:19]
    for w64 in [false, true] {
        let a = move |i: usize, k: usize| {
            if w64 {
                ((k / 2) % 2, 16 * (k % 2) as u32, vec![32 * ((k / 8) % 2) + 16 * ((k / 4) % 2) + i])
            } else {
                (2 * (k / 8) + (k / 2) % 2, 16 * (k % 2) as u32, vec![16 * ((k / 4) % 2) + i])
            }
        };
        // D[i][j]: VGPR (i/2)%4 (wave32) or (i/2)%2 (wave64), bits 16(i%2).
        let d = move |i: usize, j: usize| {
            if w64 {
                ((i / 2) % 2, 16 * (i % 2) as u32, vec![32 * ((i / 4) % 2) + 16 * (i / 8) + j])
            } else {
                ((i / 2) % 4, 16 * (i % 2) as u32, vec![16 * (i / 8) + j])
            }
        };
        check(&Case::new(Processor::Gfx1200, w64, F16, 16, (T::F16, T::F16), T::F16, &a, &d), 21);
        check(&Case::new(Processor::Gfx1201, w64, BF16, 16, (T::Bf16, T::Bf16), T::Bf16, &a, &d), 22);
    }
}

#[test]
fn float_negation_modifiers_and_inline_c() {
    // v_wmma_f32_16x16x16_bf16 v[16:23], v[0:3], v[8:11], v[16:23] neg_lo:[1,0,1] neg_hi:[0,1,1]
    const NEG: &[u8] = &[0x10, 0x46, 0x41, 0xcc, 0x00, 0x11, 0x42, 0xbc];
    const C_ONE: &[u8] = &[0x10, 0x40, 0x40, 0xcc, 0x00, 0x11, 0xca, 0x1b]; // v_wmma_f32_16x16x16_f16 v[16:23], v[0:3], v[8:11], 1.0
    let a = |i: usize, k: usize| (2 * (k / 8) + (k / 2) % 2, 16 * (k % 2) as u32, vec![16 * ((k / 4) % 2) + i]);
    let d = g12_d(false);
    let mut case = Case::new(Processor::Gfx1200, false, NEG, 16, (T::Bf16, T::Bf16), T::F32, &a, &d);
    (case.neg, case.neg_hi) = ([true, false, true], [false, true, true]);
    (0..3).for_each(|s| check(&case, s));
    let mut case = Case::new(Processor::Gfx1200, false, C_ONE, 16, (T::F16, T::F16), T::F32, &a, &d);
    case.c_const = Some(1.0);
    check(&case, 4);
}

#[test]
fn integer_clamp_saturates() {
    // v_wmma_i32_16x16x16_iu4 v[16:23], v[0:1], v[8:9], v[16:23] neg_lo:[1,1,0] clamp
    const CLAMP: &[u8] = &[0x10, 0xc0, 0x45, 0xcc, 0x00, 0x11, 0x42, 0x7c];
    let a = |i: usize, k: usize| (k / 8, 4 * (k % 8) as u32, lanes(i, 2));
    let d = |i: usize, j: usize| (i / 2, 0, vec![(16 * i) % 32 + j]);
    let mut case = Case::new(Processor::Gfx1100, false, CLAMP, 16, (T::I4, T::I4), T::I32Wide, &a, &d);
    case.clamp = true;
    (0..4).for_each(|s| check(&case, s));
}

/// Where the sparse operands live: compressed A value `w` of group `g` in row `i`, that value's
/// 2-bit index, B[k][j].
struct Sparse<'a> {
    /// K of the dense product (32 or 64).
    k: usize,
    a: &'a dyn Fn(usize, usize, usize) -> At,
    index: &'a dyn Fn(usize, usize, usize) -> At,
    b: &'a dyn Fn(usize, usize) -> At,
}

/// SWMMAC: A holds two of every four k (random positions); the index VGPR v30 says where.
fn check_sparse(p: Processor, w64: bool, code: &[u8], ab: (T, T), place: &Sparse, d: &dyn Fn(usize, usize) -> At) {
    let mut rng = StdRng::seed_from_u64(7);
    let mut r = Rig::new(p, w64);
    let mut a = [[0.0f64; 64]; 16];
    let mut b = [[0.0f64; 64]; 16];
    r.set_v(30, |_| 0);
    for i in 0..16 {
        for g in 0..place.k / 4 {
            let p0 = rng.random_range(0..3usize);
            let p1 = rng.random_range(p0 + 1..4usize);
            for (w, pos) in [p0, p1].into_iter().enumerate() {
                let (raw, v) = random(ab.0, &mut rng);
                put(&mut r, 0, &(place.a)(i, g, w), ab.0, raw);
                put(&mut r, 30, &(place.index)(i, g, w), T::I4, pos as u32);
                a[i][4 * g + pos] = v;
            }
        }
        for k in 0..place.k {
            let (raw, v) = random(ab.1, &mut rng);
            put(&mut r, 8, &(place.b)(i, k), ab.1, raw);
            b[i][k] = v;
        }
    }
    for i in 0..16 {
        for j in 0..16 {
            put(&mut r, 16, &d(i, j), T::F32, 0);
        }
    }
    r.run(code);
    for i in 0..16 {
        for j in 0..16 {
            let exp: f64 = (0..place.k).map(|k| a[i][k] * b[j][k]).sum();
            let mag: f64 = (0..place.k).map(|k| (a[i][k] * b[j][k]).abs()).sum();
            let (g, _, l) = d(i, j);
            let got = if matches!(ab.0, T::F16 | T::F8(_)) { f32::from_bits(r.wave.v(16 + g, l[0])) as f64 } else { r.wave.v(16 + g, l[0]) as i32 as f64 };
            assert!((got - exp).abs() <= mag * 2f64.powi(-22), "D[{i}][{j}] = {got}, expected {exp} (wave64 {w64})");
        }
    }
}

#[test]
fn rdna4_swmmac_f16_wave32_and_wave64() {
    // v_swmmac_f32_16x16x32_f16 v[16:23], v[0:3], v[8:15], v30 index_key:1 (wave32: two index
    // sets of 16 bits); v[16:19], v[0:1], v[8:11], v30 index_key:2 (wave64: four sets of 8).
    const W32: &[u8] = &[0x10, 0x48, 0x50, 0xcc, 0x00, 0x11, 0x7a, 0x1c];
    const W64: &[u8] = &[0x10, 0x50, 0x50, 0xcc, 0x00, 0x11, 0x7a, 0x1c];
    let place = Sparse {
        k: 32,
        a: &|i, g, w| (2 * (g / 4) + g % 2, 16 * w as u32, vec![16 * ((g / 2) % 2) + i]),
        index: &|i, g, w| (0, (16 + 8 * (g / 4) + 4 * (g % 2) + 2 * w) as u32, vec![16 * ((g / 2) % 2) + i]),
        b: &|j, k| (4 * (k / 16) + (k / 2) % 4, 16 * (k % 2) as u32, vec![16 * ((k / 8) % 2) + j]),
    };
    check_sparse(Processor::Gfx1200, false, W32, (T::F16, T::F16), &place, &g12_d(false));
    let place = Sparse {
        k: 32,
        a: &|i, g, w| (g % 2, 16 * w as u32, vec![16 * (g / 2) + i]),
        index: &|i, g, w| (0, (16 + 4 * (g % 2) + 2 * w) as u32, vec![16 * (g / 2) + i]),
        b: &|j, k| ((k / 2) % 4, 16 * (k % 2) as u32, vec![16 * (k / 8) + j]),
    };
    check_sparse(Processor::Gfx1200, true, W64, (T::F16, T::F16), &place, &g12_d(true));
}

#[test]
fn rdna4_swmmac_iu8_wave32_and_wave64() {
    // v_swmmac_i32_16x16x32_iu8 v[16:23], v[0:1], v[8:11], v30 index_key:1 neg_lo:[1,0,0]
    const W32: &[u8] = &[0x10, 0x48, 0x54, 0xcc, 0x00, 0x11, 0x7a, 0x3c];
    // v_swmmac_i32_16x16x32_iu8 v[16:19], v0, v[8:9], v30 index_key:3 neg_lo:[0,1,0]
    const W64: &[u8] = &[0x10, 0x58, 0x54, 0xcc, 0x00, 0x11, 0x7a, 0x5c];
    let place = Sparse {
        k: 32,
        a: &|i, g, w| ((g / 2) % 2, (16 * (g % 2) + 8 * w) as u32, vec![16 * (g / 4) + i]),
        index: &|i, g, w| (0, (16 + 4 * (g % 4) + 2 * w) as u32, vec![16 * (g / 4) + i]),
        b: &|j, k| ((k / 4) % 4, 8 * (k % 4) as u32, vec![16 * (k / 16) + j]),
    };
    check_sparse(Processor::Gfx1200, false, W32, (T::I8, T::U8), &place, &g12_d(false));
    let place = Sparse {
        k: 32,
        a: &|i, g, w| (0, (16 * (g % 2) + 8 * w) as u32, vec![32 * ((g / 2) % 2) + 16 * (g / 4) + i]),
        index: &|i, g, w| (0, (24 + 4 * (g % 2) + 2 * w) as u32, vec![32 * ((g / 2) % 2) + 16 * (g / 4) + i]),
        b: &|j, k| ((k / 4) % 2, 8 * (k % 4) as u32, vec![32 * ((k / 8) % 2) + 16 * (k / 16) + j]),
    };
    check_sparse(Processor::Gfx1200, true, W64, (T::U8, T::I8), &place, &g12_d(true));
}

#[test]
fn rdna4_swmmac_iu4_x64_and_fp8() {
    // v_swmmac_i32_16x16x64_iu4 v[16:23], v[0:1], v[8:11], v30 neg_lo:[1,0,0] (wave32: one
    // index set of 32 bits, four bits per group of four k).
    const IU4: &[u8] = &[0x10, 0x40, 0x56, 0xcc, 0x00, 0x11, 0x7a, 0x3c];
    let place = Sparse {
        k: 64,
        a: &|i, g, w| ((g / 4) % 2, (8 * (g % 4) + 4 * w) as u32, vec![16 * (g / 8) + i]),
        index: &|i, g, w| (0, (4 * (g % 8) + 2 * w) as u32, vec![16 * (g / 8) + i]),
        b: &|j, k| ((k / 8) % 4, 4 * (k % 8) as u32, vec![16 * (k / 32) + j]),
    };
    check_sparse(Processor::Gfx1200, false, IU4, (T::I4, T::U4), &place, &g12_d(false));
    // v_swmmac_f32_16x16x32_bf8_fp8 v[16:19], v0, v[8:9], v30 index_key:1 (wave64: four sets
    // of 8 bits); the 8-bit layouts of the iu8 form.
    const BF8_FP8: &[u8] = &[0x10, 0x48, 0x59, 0xcc, 0x00, 0x11, 0x7a, 0x1c];
    let place = Sparse {
        k: 32,
        a: &|i, g, w| (0, (16 * (g % 2) + 8 * w) as u32, vec![32 * ((g / 2) % 2) + 16 * (g / 4) + i]),
        index: &|i, g, w| (0, (8 + 4 * (g % 2) + 2 * w) as u32, vec![32 * ((g / 2) % 2) + 16 * (g / 4) + i]),
        b: &|j, k| ((k / 4) % 2, 8 * (k % 4) as u32, vec![32 * ((k / 8) % 2) + 16 * (k / 16) + j]),
    };
    check_sparse(Processor::Gfx1201, true, BF8_FP8, (T::F8(Format::E5M2), T::F8(Format::E4M3)), &place, &g12_d(true));
}

#[test]
fn rdna4_iu4_16x16x16_ignores_the_upper_half_wave_for_inputs() {
    // v_wmma_i32_16x16x16_iu4 v[16:23], v0, v8, v[16:23] neg_lo:[1,1,0] (the wave64 form is the
    // same word with v[16:19]); A and B live in lanes 0-31 only, lanes 32-63 keep junk.
    const CODE: &[u8] = &[0x10, 0x40, 0x45, 0xcc, 0x00, 0x11, 0x42, 0x7c];
    rdna4_dense(Processor::Gfx1200, CODE, 16, (T::I4, T::I4), T::I32, |_, i, k| (0, 4 * (k % 8) as u32, vec![16 * (k / 8) + i]));
}
