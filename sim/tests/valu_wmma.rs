//! WMMA/SWMMAC against a CPU reference: random A, B, C placed into registers by the element →
//! (VGPR, bits, lane) formulas of the RDNA3 ISA guide §7.9 and RDNA4 ISA guide §7.9 (as AMD's
//! Matrix Instruction Calculator prints them), D read back the same way and compared with a
//! plain matrix product. Integer forms must match exactly; float forms within a bound of
//! 2^-22 of the sum of |products| (the accumulation order is undocumented). Encodings from
//! `llvm-mc-19 -triple=amdgcn -mcpu=<gpu> [-mattr=+wavefrontsize64] -show-encoding`.

use hipscope_isa::Processor;
use hipscope_sim::exec::valu::fp::{f2h, h2d};
use hipscope_sim::exec::valu::minifloat::{decode, Format};
use hipscope_sim::exec::{Fidelity, Sem};
use hipscope_sim::testing::Rig;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Where one element lives: VGPR offset from the operand's base, bit offset, lanes.
type At = (usize, u32, Vec<usize>);

/// Element types as the test sees them.
#[derive(Clone, Copy, PartialEq)]
enum T {
    F16,
    F8(Format),
    U8,
    I8,
    I4,
    F32,
    I32,
}

fn bits(t: T) -> u32 {
    match t {
        T::F16 => 16,
        T::F8(_) | T::U8 | T::I8 => 8,
        T::I4 => 4,
        T::F32 | T::I32 => 32,
    }
}

/// A random element's raw bits and value (finite floats of moderate size).
fn random(t: T, rng: &mut StdRng) -> (u32, f64) {
    match t {
        T::F16 => {
            let h = f2h(rng.random_range(-4.0f32..4.0), false) as u64;
            (h as u32, h2d(h))
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
        T::F32 => {
            let v = rng.random_range(-8.0f32..8.0);
            (v.to_bits(), v as f64)
        }
        T::I32 => {
            let v = rng.random_range(-100_000i32..100_000);
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
            put(&mut r, 0, &(c.a)(i, k), c.ab.0, raw);
            a[i][k] = v;
            let (raw, v) = random(c.ab.1, &mut rng);
            put(&mut r, 8, &(c.b)(i, k), c.ab.1, raw);
            b[i][k] = v;
        }
        for j in 0..16 {
            let (raw, v) = random(c.cd, &mut rng);
            put(&mut r, 16, &(c.d)(i, j), c.cd, raw);
            cm[i][j] = v;
        }
    }
    r.run(c.code);
    for i in 0..16 {
        for j in 0..16 {
            let exp: f64 = cm[i][j] + (0..c.k).map(|k| a[i][k] * b[j][k]).sum::<f64>();
            let mag: f64 = cm[i][j].abs() + (0..c.k).map(|k| (a[i][k] * b[j][k]).abs()).sum::<f64>();
            let (g, sh, lanes) = (c.d)(i, j);
            let raw = r.wave.v(16 + g, lanes[0]) >> sh;
            let got = match c.cd {
                T::F32 => f32::from_bits(raw) as f64,
                T::F16 => h2d(raw as u64 & 0xffff),
                _ => raw as i32 as f64,
            };
            let tol = if c.cd == T::I32 { 0.0 } else { mag * 2f64.powi(-22) + if c.cd == T::F16 { exp.abs() / 1024.0 } else { 0.0 } };
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
        let case = Case { p: Processor::Gfx1100, w64, code: G11_F32_F16, k: 16, ab: (T::F16, T::F16), cd: T::F32, a: &a, b: &a, d: &d };
        (0..3).for_each(|s| check(&case, s));
    }
}

#[test]
fn rdna3_iu8_signedness_from_neg_lo() {
    for w64 in [false, true] {
        let n = if w64 { 4 } else { 2 };
        let a = move |i: usize, k: usize| (k / 4, 8 * (k % 4) as u32, lanes(i, n));
        let d = move |i: usize, j: usize| (i / n, 0, vec![(16 * i) % (16 * n) + j]);
        let case = Case { p: Processor::Gfx1100, w64, code: G11_IU8_SIGNED_A, k: 16, ab: (T::I8, T::U8), cd: T::I32, a: &a, b: &a, d: &d };
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

#[test]
fn rdna4_f32_f16_wave32_and_wave64() {
    for w64 in [false, true] {
        let a = move |i: usize, k: usize| {
            if w64 {
                ((k / 2) % 2, 16 * (k % 2) as u32, vec![32 * ((k / 8) % 2) + 16 * ((k / 4) % 2) + i])
            } else {
                (2 * (k / 8) + (k / 2) % 2, 16 * (k % 2) as u32, vec![16 * ((k / 4) % 2) + i])
            }
        };
        let d = g12_d(w64);
        let case = Case { p: Processor::Gfx1200, w64, code: G12_F32_F16, k: 16, ab: (T::F16, T::F16), cd: T::F32, a: &a, b: &a, d: &d };
        (0..3).for_each(|s| check(&case, s));
    }
}

#[test]
fn rdna4_fp8_bf8_wave32_and_wave64() {
    for w64 in [false, true] {
        let a = move |i: usize, k: usize| {
            if w64 {
                (0, 8 * (k % 4) as u32, vec![32 * ((k / 4) % 2) + 16 * ((k / 8) % 2) + i])
            } else {
                ((k / 4) % 2, 8 * (k % 4) as u32, vec![16 * (k / 8) + i])
            }
        };
        let d = g12_d(w64);
        let ab = (T::F8(Format::E4M3), T::F8(Format::E5M2));
        let case = Case { p: Processor::Gfx1201, w64, code: G12_FP8_BF8, k: 16, ab, cd: T::F32, a: &a, b: &a, d: &d };
        (0..3).for_each(|s| check(&case, s));
    }
}

#[test]
fn rdna4_iu4_16x16x32_wave32_and_wave64() {
    for w64 in [false, true] {
        let a = move |i: usize, k: usize| {
            if w64 {
                (0, 4 * (k % 8) as u32, vec![32 * ((k / 8) % 2) + 16 * ((k / 16) % 2) + i])
            } else {
                ((k / 8) % 2, 4 * (k % 8) as u32, vec![16 * (k / 16) + i])
            }
        };
        let d = g12_d(w64);
        let case = Case { p: Processor::Gfx1200, w64, code: G12_IU4_X32, k: 32, ab: (T::I4, T::I4), cd: T::I32, a: &a, b: &a, d: &d };
        (0..3).for_each(|s| check(&case, s));
    }
}

/// SWMMAC f16 (wave32): A holds two of every four k; the index VGPR says where they go.
#[test]
fn rdna4_swmmac_f16_wave32() {
    // v_swmmac_f32_16x16x32_f16 v[16:23], v[0:3], v[8:15], v30 index_key:1
    const CODE: &[u8] = &[0x10, 0x48, 0x50, 0xcc, 0x00, 0x11, 0x7a, 0x1c];
    let mut rng = StdRng::seed_from_u64(7);
    let mut r = Rig::new(Processor::Gfx1200, false);
    let mut a = [[0.0f64; 32]; 16];
    let mut b = [[0.0f64; 32]; 16];
    for i in 0..16 {
        for g in 0..8 {
            // Two distinct positions of four, in increasing order.
            let p0 = rng.random_range(0..3usize);
            let p1 = rng.random_range(p0 + 1..4usize);
            let lane = 16 * ((g / 2) % 2) + i;
            let reg = 2 * (g / 4) + g % 2;
            let ibit = 16 + 8 * (g / 4) + 4 * (g % 2); // index_key 1: the upper 16 bits
            let old = r.wave.v(30, lane);
            r.wave.set_v(30, lane, old & !(15 << ibit) | ((p0 | p1 << 2) as u32) << ibit);
            for (w, p) in [p0, p1].into_iter().enumerate() {
                let (raw, v) = random(T::F16, &mut rng);
                put(&mut r, 0, &(reg, 16 * w as u32, vec![lane]), T::F16, raw);
                a[i][4 * g + p] = v;
            }
        }
        for k in 0..32 {
            let (raw, v) = random(T::F16, &mut rng);
            put(&mut r, 8, &(4 * (k / 16) + (k / 2) % 4, 16 * (k % 2) as u32, vec![16 * ((k / 8) % 2) + i]), T::F16, raw);
            b[i][k] = v;
        }
    }
    let d = g12_d(false);
    for i in 0..16 {
        for j in 0..16 {
            put(&mut r, 16, &d(i, j), T::F32, 0);
        }
    }
    r.run(CODE);
    for i in 0..16 {
        for j in 0..16 {
            let exp: f64 = (0..32).map(|k| a[i][k] * b[j][k]).sum();
            let mag: f64 = (0..32).map(|k| (a[i][k] * b[j][k]).abs()).sum();
            let (g, _, l) = d(i, j);
            let got = f32::from_bits(r.wave.v(16 + g, l[0])) as f64;
            assert!((got - exp).abs() <= mag * 2f64.powi(-22), "D[{i}][{j}] = {got}, expected {exp}");
        }
    }
}

/// A row's fixed bits with its sources in v0, v8, v16 and the destination in v24.
fn encode_vgprs(row: &hipscope_isa::tables::Row) -> Vec<u8> {
    use hipscope_isa::tables::OpName;
    let mut word = row.value;
    for d in row.operands {
        let value: u128 = match d.name {
            OpName::src0 => 256,
            OpName::src1 => 256 + 8,
            OpName::src2 => 256 + 16,
            OpName::vdst => 24,
            _ => continue,
        };
        if let Some(&(lo, len, _)) = d.fields.first() {
            word = (word & !(((1u128 << len) - 1) << lo)) | (value & ((1 << len) - 1)) << lo;
        }
    }
    word.to_le_bytes()[..row.bytes as usize].to_vec()
}

/// Every WMMA/SWMMAC row the decoder has for gfx1100/gfx1200/gfx1201 classifies to an
/// executable operation (not `Unsupported`): integer forms exact, float forms approximate.
#[test]
fn every_wmma_opcode_classifies() {
    use hipscope_isa::tables::{flags, ROWS};
    let mut seen = 0;
    for p in [Processor::Gfx1100, Processor::Gfx1200, Processor::Gfx1201] {
        for w64 in [false, true] {
            let mode = w64 as usize;
            for row in ROWS.iter().filter(|r| r.has(flags::ISWMMA | flags::ISSWMMAC) && r.valid[mode] >> p as u32 & 1 != 0) {
                let bytes = encode_vgprs(row);
                let rig = Rig::new(p, w64);
                let sem = rig.classify(&bytes);
                assert!(matches!(sem, Sem::Valu(_)), "{} on {} (wave64 {w64}) does not execute", row.record, p.name());
                let int = row.opcode.name().contains("_i32_");
                let want_exact = matches!(sem.fidelity(), Fidelity::Exact);
                assert_eq!(int, want_exact, "{}: {:?}", row.record, sem.fidelity());
                seen += 1;
            }
        }
    }
    assert!(seen >= 2 * (6 + 2 * 22), "only {seen} rows");
}
