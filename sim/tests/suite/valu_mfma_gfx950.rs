//! gfx950 (MI355X, CDNA4) matrix cores against a CPU reference written from the public
//! descriptions, in wave64: D = A·B + C per output element, with
//! * element values from the format definitions: OCP OFP8 v1.0 (FP8 E4M3: bias 7, S.1111.111
//!   NaN; BF8 E5M2: bias 15, IEEE-style specials), OCP MX v1.0 §5.3 (FP6 E2M3 bias 1, BF6 E3M2
//!   bias 3, FP4 E2M1 bias 1, no specials), IEEE binary16 and bf16;
//! * input layouts as AMD's ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4
//!   architecture" (2025) draws them: lane `l` holds row (A) or column (B) `l % M`; an operand
//!   of at most 128 bits per lane holds consecutive k from `(l / M) · per_lane` (FP4: one run
//!   of 32); a wider one holds two runs of half its elements, the second for the upper half
//!   of K: the 256-bit FP8 operands and the 192-bit FP6 ones two runs of 16 (FP6 as Triton's
//!   gfx950 scaled-dot lowering states: "for mxfp6/mxfp8, there are 2 16-consecutive
//!   elements blocks"); the eight-VGPR SMFMAC B follows the FP8 rule (as AMD's gfx950 SMFMAC
//!   layout tests, "verified on MI350", place it);
//! * outputs in 4-row groups (16x16: row i in register i % 4, lanes 16·(i / 4) + j; 32x32:
//!   register 4·(i / 8) + i % 4, lanes 32·(i / 4 % 2) + j);
//! * block scales: E8M0 `e` = 2^(e - 127), the byte `op_sel + 2·op_sel_hi` of the scale VGPR,
//!   lane `i + M·(k / 32)` for row i and k;
//! * SMFMAC: A keeps two of every four k; lane `l`'s stored slot `s` sits in group
//!   `((l / M)·P + s) / 2` at the index in bits 2s+1:2s of the index VGPR (ABID selecting
//!   the set of `2·P` bits).
//!
//! Integer results compare exactly; float results within `(K + 1) · 2^-24 · (|C| + Σ|a·b|)` of
//! the exact sum (one f32 rounding per product at most). Encodings from
//! `llvm-mc-22 -triple=amdgcn -mcpu=gfx950 -show-encoding` (assembly in the comments).

use crate::minifloat_ref;

use hipscope_isa::Processor;
use hipscope_sim::exec::{Fidelity, Sem};
use hipscope_sim::testing::Rig;
use minifloat_ref::mini;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Element formats.
#[derive(Debug, Clone, Copy, PartialEq)]
enum F {
    F16,
    Bf16,
    I8,
    Fp8,
    Bf8,
    Fp6,
    Bf6,
    Fp4,
}

impl F {
    fn bits(self) -> usize {
        match self {
            F::F16 | F::Bf16 => 16,
            F::I8 | F::Fp8 | F::Bf8 => 8,
            F::Fp6 | F::Bf6 => 6,
            F::Fp4 => 4,
        }
    }
}

fn value(f: F, code: u64) -> f64 {
    match f {
        F::F16 => mini(code, 5, 10, 15),
        F::Bf16 => f32::from_bits((code as u32) << 16) as f64,
        F::I8 => code as u8 as i8 as f64,
        F::Fp8 => mini(code, 4, 3, 7),
        F::Bf8 => mini(code, 5, 2, 15),
        F::Fp6 => mini(code, 2, 3, 1),
        F::Bf6 => mini(code, 3, 2, 3),
        F::Fp4 => mini(code, 2, 1, 1),
    }
}

/// A random code: any finite code of the small formats (NaN and infinity codes avoided),
/// moderate f16/bf16 magnitudes.
fn random(f: F, g: &mut StdRng) -> u64 {
    loop {
        let c = match f {
            F::F16 => (g.random::<u16>() & 0x83ff | g.random_range(10u16..20) << 10) as u64,
            F::Bf16 => (g.random_range(-4.0f32..4.0).to_bits() >> 16) as u64,
            _ => g.random::<u64>() & ((1 << f.bits()) - 1),
        };
        let nan = match f {
            F::Fp8 => c & 0x7f == 0x7f,
            F::Bf8 => c & 0x7c == 0x7c,
            _ => false,
        };
        if !nan {
            return c;
        }
    }
}

/// One input operand: registers from `v` (AGPRs when `acc`), `outer` rows, `per` elements per
/// lane (stored, for SMFMAC's A).
#[derive(Debug, Clone, Copy)]
struct Op {
    f: F,
    v: usize,
    per: usize,
}

/// (outer index, k) of slot `s` of lane `l` (module docs).
fn pos(o: &Op, outer: usize, k: usize, l: usize, s: usize) -> (usize, usize) {
    let g = l / outer;
    if o.per * o.f.bits() <= 128 {
        return (l % outer, g * o.per + s);
    }
    let run = o.per / 2;
    (l % outer, s / run * (k / 2) + g * run + s % run)
}

#[derive(Debug, Clone, Copy)]
struct Case {
    code: &'static [u8],
    m: usize,
    k: usize,
    a: Op,
    b: Op,
    /// C/D registers (the same range), AGPRs when `acc`.
    cd: usize,
    acc: bool,
    /// SMFMAC: index VGPR and ABID.
    idx: Option<(usize, usize)>,
    /// Scale VGPRs and bytes of A and B.
    scale: Option<[(usize, usize); 2]>,
}

/// Write random codes into every lane of an operand; the codes, [lane][slot].
fn fill(r: &mut Rig, o: &Op, g: &mut StdRng) -> Vec<Vec<u64>> {
    let words = (o.per * o.f.bits()).div_ceil(32);
    let mut codes = vec![vec![0; o.per]; 64];
    for (lane, c) in codes.iter_mut().enumerate() {
        let mut w = vec![0u32; words + 1];
        for (s, x) in c.iter_mut().enumerate() {
            *x = random(o.f, g);
            let at = s * o.f.bits();
            let wide = *x << (at % 32);
            w[at / 32] |= wide as u32;
            w[at / 32 + 1] |= (wide >> 32) as u32;
        }
        for (i, &x) in w.iter().take(words).enumerate() {
            r.wave.set_v(o.v + i, lane, x);
        }
    }
    codes
}

/// Register and lane of D[i][j] (module docs).
fn out_at(m: usize, i: usize, j: usize) -> (usize, usize) {
    if m == 16 {
        (i % 4, 16 * (i / 4) + j)
    } else {
        (4 * (i / 8) + i % 4, 32 * (i / 4 % 2) + j)
    }
}

fn get(r: &Rig, acc: bool, reg: usize, lane: usize) -> u32 {
    if acc {
        r.wave.a(reg, lane)
    } else {
        r.wave.v(reg, lane)
    }
}

/// Dense A [i][k] (expanding SMFMAC's kept values) and B [k][j], scaled.
fn matrices(r: &Rig, c: &Case, ca: &[Vec<u64>], cb: &[Vec<u64>]) -> (Vec<f64>, Vec<f64>) {
    let (m, k) = (c.m, c.k);
    let mut a = vec![0.0; m * k];
    let mut b = vec![0.0; k * m];
    let sc = |which: usize, lane: usize| match c.scale {
        Some(s) => 2f64.powi((r.wave.v(s[which].0, lane) >> (8 * s[which].1) & 0xff) as i32 - 127),
        None => 1.0,
    };
    for l in 0..64 {
        for (s, &code) in ca[l].iter().enumerate() {
            let v = value(c.a.f, code);
            if let Some((idx, abid)) = c.idx {
                let stored = (l / m) * c.a.per + s;
                let pick = (r.wave.v(idx, l) >> (2 * c.a.per * abid) >> (2 * s) & 3) as usize;
                a[(l % m) * k + 4 * (stored / 2) + pick] += v;
            } else {
                let (i, kk) = pos(&c.a, m, k, l, s);
                a[i * k + kk] = v * sc(0, i + m * (kk / 32));
            }
        }
        for (s, &code) in cb[l].iter().enumerate() {
            let (j, kk) = pos(&c.b, m, k, l, s);
            b[kk * m + j] = value(c.b.f, code) * sc(1, j + m * (kk / 32));
        }
    }
    (a, b)
}

fn check(c: Case, seed: u64) {
    let mut g = StdRng::seed_from_u64(seed);
    let mut r = Rig::new(Processor::Gfx950, true);
    let (ca, cb) = (fill(&mut r, &c.a, &mut g), fill(&mut r, &c.b, &mut g));
    let int = c.a.f == F::I8;
    for reg in 0..c.m * c.m / 64 {
        for lane in 0..64 {
            let x = if int { g.random::<u32>() } else { g.random_range(-8.0f32..8.0).to_bits() };
            if c.acc {
                r.wave.set_a(c.cd + reg, lane, x)
            } else {
                r.wave.set_v(c.cd + reg, lane, x)
            }
        }
    }
    if let Some((idx, _)) = c.idx {
        // Two distinct indices per group of four, for every set.
        r.set_v(idx, |l| (0..8).fold(0u32, |acc, q| acc | [0x4u32, 0x8, 0xc, 0x9, 0xd, 0xe][(l * 7 + q * 5 + seed as usize) % 6] << (4 * q)));
    }
    if let Some(s) = c.scale {
        for (v, _) in s {
            r.set_v(v, |l| u32::from_le_bytes([0, 1, 2, 3].map(|b| 118 + ((l * 5 + b * 3 + seed as usize) % 18) as u8)));
        }
    }
    let (a, b) = matrices(&r, &c, &ca, &cb);
    let before: Vec<u32> = (0..c.m * c.m).map(|e| get(&r, c.acc, out_at(c.m, e / c.m, e % c.m).0 + c.cd, out_at(c.m, e / c.m, e % c.m).1)).collect();
    r.run(c.code);
    for i in 0..c.m {
        for j in 0..c.m {
            let (reg, lane) = out_at(c.m, i, j);
            let got = get(&r, c.acc, c.cd + reg, lane);
            let cv = before[i * c.m + j];
            let terms: Vec<f64> = (0..c.k).map(|kk| a[i * c.k + kk] * b[kk * c.m + j]).collect();
            let ctx = format!("{:?}x{:?} seed {seed} D[{i}][{j}]", c.a.f, c.b.f);
            if int {
                let want = (cv as i32 as i64 + terms.iter().sum::<f64>() as i64) as i32;
                assert_eq!(got as i32, want, "{ctx}");
            } else {
                let cf = f32::from_bits(cv) as f64;
                let exact = cf + terms.iter().sum::<f64>();
                let bound = (c.k + 1) as f64 * 2f64.powi(-24) * (cf.abs() + terms.iter().map(|t| t.abs()).sum::<f64>());
                let got = f32::from_bits(got) as f64;
                assert!((got - exact).abs() <= bound, "{ctx}: {got} vs {exact} (bound {bound})");
            }
        }
    }
}

const fn op(f: F, v: usize, per: usize) -> Op {
    Op { f, v, per }
}

const BASE: Case = Case { code: &[], m: 16, k: 0, a: op(F::F16, 0, 0), b: op(F::F16, 0, 0), cd: 0, acc: false, idx: None, scale: None };

#[test]
fn f16_bf16_new_shapes() {
    // v_mfma_f32_16x16x32_f16 v[0:3], v[4:7], v[8:11], v[0:3]
    const F16_16: &[u8] = &[0x00, 0x00, 0xd4, 0xd3, 0x04, 0x11, 0x02, 0x04];
    check(Case { code: F16_16, k: 32, a: op(F::F16, 4, 8), b: op(F::F16, 8, 8), ..BASE }, 1);
    // v_mfma_f32_16x16x32_bf16 a[0:3], v[4:7], v[8:11], a[0:3]
    const BF16_16: &[u8] = &[0x00, 0x80, 0xb5, 0xd3, 0x04, 0x11, 0x02, 0x04];
    check(Case { code: BF16_16, k: 32, a: op(F::Bf16, 4, 8), b: op(F::Bf16, 8, 8), acc: true, ..BASE }, 2);
    // v_mfma_f32_32x32x16_f16 v[0:15], v[16:19], v[20:23], v[0:15]
    const F16_32: &[u8] = &[0x00, 0x00, 0xd5, 0xd3, 0x10, 0x29, 0x02, 0x04];
    check(Case { code: F16_32, m: 32, k: 16, a: op(F::F16, 16, 8), b: op(F::F16, 20, 8), ..BASE }, 3);
    // v_mfma_f32_32x32x16_bf16 v[0:15], v[16:19], v[20:23], v[0:15]
    const BF16_32: &[u8] = &[0x00, 0x00, 0xb7, 0xd3, 0x10, 0x29, 0x02, 0x04];
    check(Case { code: BF16_32, m: 32, k: 16, a: op(F::Bf16, 16, 8), b: op(F::Bf16, 20, 8), ..BASE }, 4);
}

#[test]
fn i8_new_shapes_are_exact() {
    // v_mfma_i32_16x16x64_i8 v[0:3], v[4:7], v[8:11], v[0:3]
    const SIXTEEN: &[u8] = &[0x00, 0x00, 0xb6, 0xd3, 0x04, 0x11, 0x02, 0x04];
    check(Case { code: SIXTEEN, k: 64, a: op(F::I8, 4, 16), b: op(F::I8, 8, 16), ..BASE }, 5);
    // v_mfma_i32_32x32x32_i8 v[0:15], v[16:19], v[20:23], v[0:15]
    const THIRTY_TWO: &[u8] = &[0x00, 0x00, 0xb8, 0xd3, 0x10, 0x29, 0x02, 0x04];
    check(Case { code: THIRTY_TWO, m: 32, k: 32, a: op(F::I8, 16, 16), b: op(F::I8, 20, 16), ..BASE }, 6);
}

#[test]
fn f8f6f4_formats() {
    const X16: Case = Case { k: 128, ..BASE };
    // v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3]
    const FP8: &[u8] = &[0x00, 0x00, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    check(Case { code: FP8, a: op(F::Fp8, 4, 32), b: op(F::Fp8, 12, 32), ..X16 }, 7);
    // ... cbsz:1 (A BF8)
    const BF8: &[u8] = &[0x00, 0x01, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    check(Case { code: BF8, a: op(F::Bf8, 4, 32), b: op(F::Fp8, 12, 32), ..X16 }, 8);
    // v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:9], v[12:19], v[0:3] cbsz:2 blgp:1
    const FP6: &[u8] = &[0x00, 0x02, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x24];
    check(Case { code: FP6, a: op(F::Fp6, 4, 32), b: op(F::Bf8, 12, 32), ..X16 }, 9);
    // v_mfma_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:17], v[0:3] cbsz:4 blgp:3
    const FP4: &[u8] = &[0x00, 0x04, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x64];
    check(Case { code: FP4, a: op(F::Fp4, 4, 32), b: op(F::Bf6, 12, 32), ..X16 }, 10);
    const X32: Case = Case { m: 32, k: 64, ..BASE };
    // v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:27], v[0:15] blgp:4
    const FP8_FP4: &[u8] = &[0x00, 0x00, 0xae, 0xd3, 0x10, 0x31, 0x02, 0x84];
    check(Case { code: FP8_FP4, a: op(F::Fp8, 16, 32), b: op(F::Fp4, 24, 32), ..X32 }, 11);
    // v_mfma_f32_32x32x64_f8f6f4 v[0:15], v[16:21], v[24:31], v[0:15] cbsz:3 blgp:1
    const BF6_BF8: &[u8] = &[0x00, 0x03, 0xae, 0xd3, 0x10, 0x31, 0x02, 0x24];
    check(Case { code: BF6_BF8, a: op(F::Bf6, 16, 32), b: op(F::Bf8, 24, 32), ..X32 }, 12);
}

#[test]
fn f8f6f4_block_scales() {
    // v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:11], v[12:19], v[0:3], v20, v21
    //   op_sel:[1,0,0] op_sel_hi:[0,1,0]  (A byte 1, B byte 2)
    const FP8: &[u8] = &[0x00, 0x08, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x10, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    let x16 = Case { k: 128, scale: Some([(20, 1), (21, 2)]), ..BASE };
    check(Case { code: FP8, a: op(F::Fp8, 4, 32), b: op(F::Fp8, 12, 32), ..x16 }, 13);
    // v_mfma_scale_f32_16x16x128_f8f6f4 v[0:3], v[4:7], v[12:17], v[0:3], v20, v21
    //   op_sel:[0,1,0] op_sel_hi:[1,1,0] cbsz:4 blgp:2  (A byte 2, B byte 3)
    const FP4_FP6: &[u8] = &[0x00, 0x10, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x18, 0x00, 0x0c, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x44];
    check(Case { code: FP4_FP6, a: op(F::Fp4, 4, 32), b: op(F::Fp6, 12, 32), scale: Some([(20, 2), (21, 3)]), ..x16 }, 14);
    // v_mfma_scale_f32_32x32x64_f8f6f4 v[0:15], v[16:23], v[24:27], v[0:15], v32, v33
    //   op_sel_hi:[1,0,0] cbsz:1 blgp:4  (A byte 2, B byte 0)
    const BF8_FP4: &[u8] = &[0x00, 0x00, 0xac, 0xd3, 0x20, 0x43, 0x02, 0x08, 0x00, 0x09, 0xae, 0xd3, 0x10, 0x31, 0x02, 0x84];
    let x32 = Case { m: 32, k: 64, scale: Some([(32, 2), (33, 0)]), ..BASE };
    check(Case { code: BF8_FP4, a: op(F::Bf8, 16, 32), b: op(F::Fp4, 24, 32), ..x32 }, 15);
    // v_mfma_scale_f32_32x32x64_f8f6f4 a[0:15], v[16:21], v[24:29], a[0:15], v32, v33 cbsz:2 blgp:3
    const FP6_BF6: &[u8] = &[0x00, 0x00, 0xac, 0xd3, 0x20, 0x43, 0x02, 0x00, 0x00, 0x8a, 0xae, 0xd3, 0x10, 0x31, 0x02, 0x64];
    check(Case { code: FP6_BF6, a: op(F::Fp6, 16, 32), b: op(F::Bf6, 24, 32), acc: true, scale: Some([(32, 0), (33, 0)]), ..x32 }, 16);
}

#[test]
fn smfmac_gfx950() {
    let x16 = Case { idx: Some((16, 0)), ..BASE };
    // v_smfmac_f32_16x16x64_f16 v[0:3], v[4:7], v[8:15], v16 abid:1
    const F16: &[u8] = &[0x00, 0x08, 0xda, 0xd3, 0x04, 0x11, 0x42, 0x04];
    check(Case { code: F16, k: 64, a: op(F::F16, 4, 8), b: op(F::F16, 8, 16), idx: Some((16, 1)), ..x16 }, 17);
    // v_smfmac_f32_16x16x64_bf16 v[0:3], v[4:7], v[8:15], v16
    const BF16: &[u8] = &[0x00, 0x00, 0xb9, 0xd3, 0x04, 0x11, 0x42, 0x04];
    check(Case { code: BF16, k: 64, a: op(F::Bf16, 4, 8), b: op(F::Bf16, 8, 16), ..x16 }, 18);
    // v_smfmac_i32_16x16x128_i8 v[0:3], v[4:7], v[8:15], v16
    const I8: &[u8] = &[0x00, 0x00, 0xba, 0xd3, 0x04, 0x11, 0x42, 0x04];
    check(Case { code: I8, k: 128, a: op(F::I8, 4, 16), b: op(F::I8, 8, 32), ..x16 }, 19);
    // v_smfmac_f32_16x16x128_fp8_bf8 v[0:3], v[4:7], v[8:15], v16
    const FP8_BF8: &[u8] = &[0x00, 0x00, 0xbd, 0xd3, 0x04, 0x11, 0x42, 0x04];
    check(Case { code: FP8_BF8, k: 128, a: op(F::Fp8, 4, 16), b: op(F::Bf8, 8, 32), ..x16 }, 20);
    let x32 = Case { m: 32, idx: Some((28, 0)), ..BASE };
    // v_smfmac_f32_32x32x32_bf16 v[0:15], v[16:19], v[20:27], v28
    const BF16_32: &[u8] = &[0x00, 0x00, 0xc6, 0xd3, 0x10, 0x29, 0x72, 0x04];
    check(Case { code: BF16_32, k: 32, a: op(F::Bf16, 16, 8), b: op(F::Bf16, 20, 16), ..x32 }, 21);
    // v_smfmac_f32_32x32x32_f16 v[0:15], v[16:19], v[20:27], v28 abid:1
    const F16_32: &[u8] = &[0x00, 0x08, 0xdb, 0xd3, 0x10, 0x29, 0x72, 0x04];
    check(Case { code: F16_32, k: 32, a: op(F::F16, 16, 8), b: op(F::F16, 20, 16), idx: Some((28, 1)), ..x32 }, 22);
    // v_smfmac_i32_32x32x64_i8 a[0:15], v[16:19], v[20:27], v28
    const I8_32: &[u8] = &[0x00, 0x80, 0xc7, 0xd3, 0x10, 0x29, 0x72, 0x04];
    check(Case { code: I8_32, k: 64, a: op(F::I8, 16, 16), b: op(F::I8, 20, 32), acc: true, ..x32 }, 23);
    // v_smfmac_f32_32x32x64_bf8_fp8 v[0:15], v[16:19], v[20:27], v28
    const BF8_FP8: &[u8] = &[0x00, 0x00, 0xce, 0xd3, 0x10, 0x29, 0x72, 0x04];
    check(Case { code: BF8_FP8, k: 64, a: op(F::Bf8, 16, 16), b: op(F::Fp8, 20, 32), ..x32 }, 24);
}

#[test]
fn cdna3_fp8_opcodes_use_ocp_formats_on_gfx950() {
    // v_mfma_f32_16x16x32_fp8_bf8 v[0:3], v[4:5], v[6:7], v[0:3]
    const CODE: &[u8] = &[0x00, 0x00, 0xf2, 0xd3, 0x04, 0x0d, 0x02, 0x04];
    check(Case { code: CODE, k: 32, a: op(F::Fp8, 4, 8), b: op(F::Bf8, 6, 8), ..BASE }, 25);
}

#[test]
fn standalone_ld_scale_changes_no_register() {
    // v_mfma_ld_scale_b32 v20, v21
    const CODE: &[u8] = &[0x00, 0x40, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x18];
    let mut r = Rig::new(Processor::Gfx950, true);
    let sem = r.classify(CODE);
    assert!(matches!(sem, Sem::Valu(_)) && matches!(sem.fidelity(), Fidelity::Approximate(_)), "{sem:?}");
    r.set_v(20, |l| l as u32 * 3);
    let before: Vec<u32> = (0..64).flat_map(|reg| (0..64).map(move |l| (reg, l))).map(|(reg, l)| r.wave.v(reg, l)).collect();
    r.run(CODE);
    let after: Vec<u32> = (0..64).flat_map(|reg| (0..64).map(move |l| (reg, l))).map(|(reg, l)| r.wave.v(reg, l)).collect();
    assert_eq!(before, after);
}

/// An inline-constant or SGPR scale uses bits 30:23 of its value (LLVM 22's
/// `VOP3PInstructions.td` on the hardware's handling; LLVM 22 itself only emits VGPR scales):
/// `2.0` (0x40000000) scales by 2^(128 - 127), as a VGPR holding E8M0 128 does. The encodings
/// are the FP8 case of `f8f6f4_block_scales` with `scale_src0` set to the inline constant 2.0
/// (244) and to s5.
#[test]
fn inline_constant_scale_uses_exponent_bits() {
    const VGPR: &[u8] = &[0x00, 0x08, 0xac, 0xd3, 0x14, 0x2b, 0x02, 0x10, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    const KONST: &[u8] = &[0x00, 0x08, 0xac, 0xd3, 0xf4, 0x2a, 0x02, 0x10, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    const SGPR: &[u8] = &[0x00, 0x08, 0xac, 0xd3, 0x05, 0x2a, 0x02, 0x10, 0x00, 0x08, 0xad, 0xd3, 0x04, 0x19, 0x02, 0x04];
    let run = |code: &[u8], nan_b: bool| {
        let mut g = StdRng::seed_from_u64(40);
        let mut r = Rig::new(Processor::Gfx950, true);
        fill(&mut r, &op(F::Fp8, 4, 32), &mut g);
        fill(&mut r, &op(F::Fp8, 12, 32), &mut g);
        r.set_v(20, |_| 128 << 8);
        r.set_v(21, |_| if nan_b { 0xff << 16 } else { 127 << 16 });
        r.wave.sreg[5] = 0x4000_0000;
        r.run(code);
        (0..4).flat_map(|reg| (0..64).map(move |l| (reg, l))).map(|(reg, l)| r.wave.v(reg, l)).collect::<Vec<u32>>()
    };
    assert_eq!(run(VGPR, false), run(KONST, false));
    assert_eq!(run(VGPR, false), run(SGPR, false));
    // E8M0 0xFF is NaN: every result.
    assert!(run(VGPR, true).iter().all(|&x| f32::from_bits(x).is_nan()));
}
