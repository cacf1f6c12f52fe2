//! MFMA and SMFMAC (gfx908 / gfx90a / gfx942) against a CPU reference written from the ISA
//! guides' definition: for every block, D = A·B + C, with A, B, C and D placed in the lanes
//! and registers the MI100/MI200/MI300 ISA guides' matrix chapters describe (as AMD's Matrix
//! Instruction Calculator states them), CBSZ/ABID broadcasting A blocks and BLGP permuting B
//! lanes. Inputs are random with fixed seeds. Integer forms compare bit-exact; f64 forms
//! bit-exact with a chain of fused multiply-adds in ascending k (the documented model);
//! f32-accumulating float forms within `(K + 1) · 2^-24 · (|C| + Σ|a·b|)` of the exact result
//! (at most one f32 rounding per k). Encodings from `llvm-mc-19 -show-encoding` (assembly in
//! the comments).

use crate::minifloat_ref;

use hipscope_isa::Processor;
use hipscope_sim::testing::Rig;
use minifloat_ref::mini;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

#[derive(Debug, Clone, Copy, PartialEq)]
enum T {
    F32,
    Xf32,
    F16,
    Bf16,
    I8,
    F64,
    /// gfx942 FP8: E4M3 FNUZ.
    Fp8,
    /// gfx942 BF8: E5M2 FNUZ.
    Bf8,
}

impl T {
    fn bits(self) -> usize {
        match self {
            T::F32 | T::Xf32 => 32,
            T::F16 | T::Bf16 => 16,
            T::I8 | T::Fp8 | T::Bf8 => 8,
            T::F64 => 64,
        }
    }
}

/// A register range: VGPRs or AGPRs from `v`.
#[derive(Debug, Clone, Copy)]
struct R {
    v: usize,
    acc: bool,
}

const fn v(v: usize) -> R {
    R { v, acc: false }
}

const fn a(v: usize) -> R {
    R { v, acc: true }
}

#[derive(Debug, Clone, Copy)]
enum C {
    Reg(R),
    /// An inline constant accumulator (its value).
    Const(f64),
}

#[derive(Debug, Clone, Copy)]
struct Case {
    p: Processor,
    code: &'static [u8],
    m: usize,
    n: usize,
    k: usize,
    blocks: usize,
    t: T,
    a: R,
    b: R,
    c: C,
    d: R,
    cbsz: usize,
    abid: usize,
    blgp: usize,
    /// gfx940 f64: negate A, B, C.
    neg: [bool; 3],
    /// SMFMAC: the index VGPR.
    idx: Option<usize>,
    /// B's element type when it differs from A's (FP8/BF8 mixes).
    tb: Option<T>,
}

const BASE: Case = Case {
    p: Processor::Gfx90a,
    code: &[],
    m: 0,
    n: 0,
    k: 0,
    blocks: 1,
    t: T::F32,
    a: v(0),
    b: v(0),
    c: C::Const(0.0),
    d: v(0),
    cbsz: 0,
    abid: 0,
    blgp: 0,
    neg: [false; 3],
    idx: None,
    tb: None,
};

fn get(r: &Rig, x: R, reg: usize, lane: usize) -> u32 {
    if x.acc {
        r.wave.a(x.v + reg, lane)
    } else {
        r.wave.v(x.v + reg, lane)
    }
}

fn set(r: &mut Rig, x: R, reg: usize, lane: usize, value: u32) {
    if x.acc {
        r.wave.set_a(x.v + reg, lane, value)
    } else {
        r.wave.set_v(x.v + reg, lane, value)
    }
}

/// f16 bits to f64, from the IEEE binary16 definition (the tests use no specials).
fn f16(h: u64) -> f64 {
    mini(h & 0xffff, 5, 10, 15)
}

/// An FNUZ 8-bit float from its fields (MI300 ISA guide, "FP8 and BF8 data types"): sign,
/// `exp_bits` exponent bits with bias 2^(exp_bits - 1) (8 for FP8, 16 for BF8), the rest
/// mantissa; exponent 0 is denormal; 0x80 is the NaN and there are no infinities.
fn fnuz(raw: u64, exp_bits: i32) -> f64 {
    if raw == 0x80 {
        return f64::NAN;
    }
    mini(raw & 0xff, exp_bits as u32, (7 - exp_bits) as u32, 1 << (exp_bits - 1))
}

fn value(t: T, raw: u64) -> f64 {
    match t {
        T::F32 | T::Xf32 => f32::from_bits(raw as u32) as f64,
        T::F16 => f16(raw),
        T::Bf16 => f32::from_bits((raw as u32) << 16) as f64,
        T::I8 => raw as u8 as i8 as f64,
        T::F64 => f64::from_bits(raw),
        T::Fp8 => fnuz(raw, 4),
        T::Bf8 => fnuz(raw, 5),
    }
}

/// A random element: moderate magnitudes, so that float sums stay well inside range.
fn random(t: T, g: &mut StdRng) -> u64 {
    let f = g.random_range(-4.0f32..4.0);
    match t {
        T::F32 => f.to_bits() as u64,
        // Representable in xf32 (10 fraction bits), so the input conversion is exact.
        T::Xf32 => (f.to_bits() & !0x1fff) as u64,
        T::F16 => (g.random::<u16>() & 0x83ff | (g.random_range(10u16..20) << 10)) as u64,
        T::Bf16 => (f.to_bits() >> 16) as u64,
        T::I8 => g.random::<u8>() as u64,
        T::F64 => (g.random_range(-4.0f64..4.0)).to_bits(),
        // Any code but the NaN (0x80), denormals included.
        T::Fp8 | T::Bf8 => match g.random::<u8>() {
            0x80 => 0,
            b => b as u64,
        },
    }
}

/// Slot `slot` (an element position) of lane `lane` of input range `x`.
fn element(r: &Rig, x: R, t: T, slot: usize, lane: usize) -> u64 {
    let bits = t.bits();
    if bits == 64 {
        return get(r, x, 2 * slot, lane) as u64 | (get(r, x, 2 * slot + 1, lane) as u64) << 32;
    }
    let per = 32 / bits;
    let word = get(r, x, slot / per, lane) as u64;
    word >> (bits * (slot % per)) & ((1u64 << bits) - 1)
}

/// Fill every lane of an input range holding `slots` elements with random elements.
fn fill(r: &mut Rig, x: R, t: T, slots: usize, g: &mut StdRng) {
    let bits = t.bits();
    let words = (slots * bits).div_ceil(32);
    for lane in 0..64 {
        let mut acc = vec![0u64; words.div_ceil(2).max(1)];
        for s in 0..slots {
            let at = s * bits;
            acc[at / 64] |= random(t, g) << (at % 64);
        }
        for w in 0..words {
            set(r, x, w, lane, (acc[w / 2] >> (32 * (w % 2))) as u32);
        }
    }
}

/// Lane and slot of input element (outer index `o`, inner `k`, block `b`): the lanes hold
/// `per` consecutive k of one outer index; lane groups of `outer` lanes go through the
/// blocks first, then through the k groups (ISA guides' input layouts).
fn input_at(outer: usize, blocks: usize, per: usize, o: usize, k: usize, b: usize) -> (usize, usize) {
    (o + outer * (b + blocks * (k / per)), k % per)
}

/// Register (a pair for f64) and lane of D[i][j] of block `b`, per family.
fn output_at(c: &Case, i: usize, j: usize, b: usize) -> (usize, usize) {
    match (c.t, c.n) {
        // f64 16x16: a row per register pair and lane group of 16.
        (T::F64, 16) => (i / 4, (i % 4) * 16 + j),
        // f64 4x4, 4 blocks: one register pair, 16 lanes per block row... lane = 16 i + 4 b + j.
        (T::F64, _) => (0, 16 * i + 4 * b + j),
        // 32x32: 16 registers per block; 4-row groups alternate between the lane halves.
        (_, 32) => (16 * b + 4 * (i / 8) + i % 4, 32 * (i / 4 % 2) + j),
        // 16x16: 4 registers per block; 4-row groups in the four 16-lane groups.
        (_, 16) => (4 * b + i % 4, 16 * (i / 4) + j),
        // 4x4, 16 blocks: block b in lanes 4b..4b+3, row i in register i.
        _ => (i, 4 * b + j),
    }
}

/// BLGP: the lane whose B values lane `l` uses (ISA guides' BLGP table).
fn blgp(l: usize, pattern: usize) -> usize {
    match pattern {
        1 => l % 32,
        2 => 32 + l % 32,
        3 => (l + 16) % 64,
        4..=7 => 16 * (pattern - 4) + l % 16,
        _ => l,
    }
}

fn read_c(r: &Rig, c: &Case, at: (usize, usize)) -> f64 {
    let (reg, lane) = at;
    match (c.c, c.t) {
        (C::Const(x), _) => x,
        (C::Reg(x), T::F64) => f64::from_bits(get(r, x, 2 * reg, lane) as u64 | (get(r, x, 2 * reg + 1, lane) as u64) << 32),
        (C::Reg(x), T::I8) => get(r, x, reg, lane) as i32 as f64,
        (C::Reg(x), _) => f32::from_bits(get(r, x, reg, lane)) as f64,
    }
}

fn read_d(r: &Rig, c: &Case, at: (usize, usize)) -> f64 {
    read_c(r, &Case { c: C::Reg(c.d), ..*c }, at)
}

/// Dense A as [block][i][k] (SMFMAC: expanded from the kept values and the index VGPR).
fn matrix_a(r: &Rig, c: &Case) -> Vec<f64> {
    let (m, k, nb) = (c.m, c.k, c.blocks);
    let mut out = vec![0.0; nb * m * k];
    let sign = if c.neg[0] { -1.0 } else { 1.0 };
    if let Some(idx) = c.idx {
        // Kept value q (0, 1) of group g (4 consecutive k) is stored element 2g + q; its
        // 2-bit index sits at bits 2s+1:2s of the lane's index set (s = its slot).
        let per = (k / 2) / (64 / m);
        for i in 0..m {
            for stored in 0..k / 2 {
                let (lane, slot) = input_at(m, 1, per, i, stored, 0);
                let set = r.wave.v(idx, lane) >> (2 * per * c.abid);
                let kk = 4 * (stored / 2) + (set >> (2 * slot) & 3) as usize;
                out[i * k + kk] += value(c.t, element(r, c.a, c.t, slot, lane));
            }
        }
        return out;
    }
    let per = k / (64 / (m * nb));
    for b in 0..nb {
        let from = if c.cbsz == 0 { b } else { (b >> c.cbsz << c.cbsz) + c.abid };
        for i in 0..m {
            for kk in 0..k {
                let (lane, slot) = input_at(m, nb, per, i, kk, from);
                out[(b * m + i) * k + kk] = sign * value(c.t, element(r, c.a, c.t, slot, lane));
            }
        }
    }
    out
}

/// B as [block][k][j], through BLGP.
fn matrix_b(r: &Rig, c: &Case) -> Vec<f64> {
    let (n, k, nb) = (c.n, c.k, c.blocks);
    let t = c.tb.unwrap_or(c.t);
    let per = k / (64 / (n * nb));
    let sign = if c.neg[1] { -1.0 } else { 1.0 };
    let mut out = vec![0.0; nb * n * k];
    for b in 0..nb {
        for kk in 0..k {
            for j in 0..n {
                let (lane, slot) = input_at(n, nb, per, j, kk, b);
                out[(b * k + kk) * n + j] = sign * value(t, element(r, c.b, t, slot, blgp(lane, c.blgp)));
            }
        }
    }
    out
}

/// Set up random inputs, run, and compare every D element with the reference.
fn check(c: Case, seed: u64) {
    let mut g = StdRng::seed_from_u64(seed);
    let mut r = Rig::new(c.p, true);
    let in_slots = |outer: usize, k: usize, nb: usize| k / (64 / (outer * nb));
    let a_slots = if c.idx.is_some() { in_slots(c.m, c.k / 2, 1) } else { in_slots(c.m, c.k, c.blocks) };
    fill(&mut r, c.a, c.t, a_slots, &mut g);
    fill(&mut r, c.b, c.tb.unwrap_or(c.t), in_slots(c.n, c.k, c.blocks), &mut g);
    let out_t = match c.t {
        T::I8 => T::I8,
        T::F64 => T::F64,
        _ => T::F32,
    };
    if let C::Reg(x) = c.c {
        let regs = c.blocks * c.m * c.n / 64;
        for reg in 0..regs {
            for lane in 0..64 {
                let raw = match out_t {
                    T::I8 => g.random::<u32>() as u64,
                    _ => random(out_t, &mut g),
                };
                let words = if out_t == T::F64 { [2 * reg, 2 * reg + 1] } else { [reg, usize::MAX] };
                set(&mut r, x, words[0], lane, raw as u32);
                if words[1] != usize::MAX {
                    set(&mut r, x, words[1], lane, (raw >> 32) as u32);
                }
            }
        }
    }
    if let Some(idx) = c.idx {
        // Two distinct indices per group of four, for every set of the index VGPR.
        r.set_v(idx, |l| (0..8).fold(0u32, |acc, q| acc | [0x4u32, 0x8, 0xc, 0x9, 0xd, 0xe][(l * 7 + q * 5 + seed as usize) % 6] << (4 * q)));
    }
    let (am, bm) = (matrix_a(&r, &c), matrix_b(&r, &c));
    let cref: Vec<f64> = (0..c.blocks * c.m * c.n).map(|e| read_c(&r, &c, output_at(&c, e / c.n % c.m, e % c.n, e / (c.m * c.n)))).collect();
    r.run(c.code);
    let csign = if c.neg[2] { -1.0 } else { 1.0 };
    for b in 0..c.blocks {
        for i in 0..c.m {
            for j in 0..c.n {
                let e = (b * c.m + i) * c.n + j;
                let terms: Vec<f64> = (0..c.k).map(|kk| am[(b * c.m + i) * c.k + kk] * bm[(b * c.k + kk) * c.n + j]).collect();
                let cv = csign * cref[e];
                let got = read_d(&r, &c, output_at(&c, i, j, b));
                let ctx = || format!("{:?} seed {seed} D[{i}][{j}] block {b}", c.t);
                match c.t {
                    T::I8 => assert_eq!(got, (cv as i64 + terms.iter().sum::<f64>() as i64) as i32 as f64, "{}", ctx()),
                    T::F64 => {
                        let fma = (0..c.k).fold(cv, |acc, kk| am[(b * c.m + i) * c.k + kk].mul_add(bm[(b * c.k + kk) * c.n + j], acc));
                        assert_eq!(got.to_bits(), fma.to_bits(), "{}", ctx());
                    }
                    _ => {
                        let exact = cv + terms.iter().sum::<f64>();
                        let mag = cv.abs() + terms.iter().map(|t| t.abs()).sum::<f64>();
                        let bound = (c.k + 1) as f64 * 2f64.powi(-24) * mag;
                        assert!((got - exact).abs() <= bound, "{}: {got} vs {exact} (bound {bound})", ctx());
                    }
                }
            }
        }
    }
}

#[test]
fn gfx908_f16_32x32x8_agpr_accumulator() {
    // v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]
    const CODE: &[u8] = &[0x00, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04];
    let c = Case { p: Processor::Gfx908, code: CODE, m: 32, n: 32, k: 8, t: T::F16, a: v(0), b: v(2), c: C::Reg(a(0)), d: a(0), ..BASE };
    for seed in 0..3 {
        check(c, seed);
    }
}

#[test]
fn gfx908_f16_4x4x4_16_blocks_with_cbsz_abid_blgp() {
    // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[4:7] cbsz:2 abid:1 blgp:3
    const CODE: &[u8] = &[0x00, 0x0a, 0xca, 0xd3, 0x00, 0x05, 0x12, 0x64];
    let c = Case {
        p: Processor::Gfx908,
        code: CODE,
        m: 4,
        n: 4,
        k: 4,
        blocks: 16,
        t: T::F16,
        a: v(0),
        b: v(2),
        c: C::Reg(a(4)),
        d: a(0),
        cbsz: 2,
        abid: 1,
        blgp: 3,
        ..BASE
    };
    check(c, 7);
    // Without the controls the same layout holds with identity maps.
    // v_mfma_f32_4x4x4f16 a[0:3], v[0:1], v[2:3], a[0:3]  (cbsz/abid/blgp fields cleared)
    const PLAIN: &[u8] = &[0x00, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04];
    check(Case { code: PLAIN, c: C::Reg(a(0)), cbsz: 0, abid: 0, blgp: 0, ..c }, 8);
}

#[test]
fn gfx908_f32_forms_one_and_several_blocks() {
    // v_mfma_f32_32x32x2f32 a[0:15], v0, v1, a[16:31]
    const K2: &[u8] = &[0x00, 0x00, 0xc4, 0xd3, 0x00, 0x03, 0x42, 0x04];
    check(Case { p: Processor::Gfx908, code: K2, m: 32, n: 32, k: 2, a: v(0), b: v(1), c: C::Reg(a(16)), d: a(0), ..BASE }, 1);
    // v_mfma_f32_32x32x1f32 a[0:31], v0, v1, a[0:31] blgp:6
    const TWO_BLOCKS: &[u8] = &[0x00, 0x00, 0xc0, 0xd3, 0x00, 0x03, 0x02, 0xc4];
    check(Case { p: Processor::Gfx908, code: TWO_BLOCKS, m: 32, n: 32, k: 1, blocks: 2, a: v(0), b: v(1), c: C::Reg(a(0)), d: a(0), blgp: 6, ..BASE }, 2);
    // v_mfma_f32_16x16x1f32 a[0:15], v0, v1, a[0:15] cbsz:1 abid:1
    const FOUR_BLOCKS: &[u8] = &[0x00, 0x09, 0xc1, 0xd3, 0x00, 0x03, 0x02, 0x04];
    check(
        Case { p: Processor::Gfx908, code: FOUR_BLOCKS, m: 16, n: 16, k: 1, blocks: 4, a: v(0), b: v(1), c: C::Reg(a(0)), d: a(0), cbsz: 1, abid: 1, ..BASE },
        3,
    );
}

#[test]
fn gfx908_i8_32x32x8_is_exact() {
    // v_mfma_i32_32x32x8i8 a[0:15], v0, v1, a[0:15]
    const CODE: &[u8] = &[0x00, 0x00, 0xd4, 0xd3, 0x00, 0x03, 0x02, 0x04];
    let c = Case { p: Processor::Gfx908, code: CODE, m: 32, n: 32, k: 8, t: T::I8, a: v(0), b: v(1), c: C::Reg(a(0)), d: a(0), ..BASE };
    check(c, 4);
    check(c, 5);
}

#[test]
fn gfx90a_f16_16x16x16_vgpr_and_agpr_forms() {
    // v_mfma_f32_16x16x16f16 v[4:7], v[0:1], v[2:3], v[4:7]
    const VGPRS: &[u8] = &[0x04, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x12, 0x04];
    let c = Case { code: VGPRS, m: 16, n: 16, k: 16, t: T::F16, a: v(0), b: v(2), c: C::Reg(v(4)), d: v(4), ..BASE };
    check(c, 10);
    // v_mfma_f32_16x16x16f16 a[4:7], a[0:1], a[2:3], a[4:7]  (acc_cd, AGPR sources)
    const AGPRS: &[u8] = &[0x04, 0x80, 0xcd, 0xd3, 0x00, 0x05, 0x12, 0x1c];
    check(Case { code: AGPRS, a: a(0), b: a(2), c: C::Reg(a(4)), d: a(4), ..c }, 11);
}

#[test]
fn gfx90a_bf16_forms() {
    // v_mfma_f32_16x16x4bf16_1k v[16:31], v[0:1], v[2:3], v[16:31]
    const K1: &[u8] = &[0x10, 0x00, 0xe4, 0xd3, 0x00, 0x05, 0x42, 0x04];
    check(Case { code: K1, m: 16, n: 16, k: 4, blocks: 4, t: T::Bf16, a: v(0), b: v(2), c: C::Reg(v(16)), d: v(16), ..BASE }, 12);
    // v_mfma_f32_32x32x4bf16 v[0:15], v16, v17, v[0:15]  (two bf16 per VGPR)
    const OLD: &[u8] = &[0x00, 0x00, 0xec, 0xd3, 0x10, 0x23, 0x02, 0x04];
    check(Case { code: OLD, m: 32, n: 32, k: 4, t: T::Bf16, a: v(16), b: v(17), c: C::Reg(v(0)), d: v(0), ..BASE }, 13);
}

#[test]
fn gfx90a_f64_forms() {
    // v_mfma_f64_16x16x4f64 v[0:7], v[8:9], v[10:11], v[0:7]
    const SIXTEEN: &[u8] = &[0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0x04];
    check(Case { code: SIXTEEN, m: 16, n: 16, k: 4, t: T::F64, a: v(8), b: v(10), c: C::Reg(v(0)), d: v(0), ..BASE }, 14);
    // v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], v[0:1]
    const FOUR: &[u8] = &[0x00, 0x00, 0xef, 0xd3, 0x02, 0x09, 0x02, 0x04];
    let c = Case { code: FOUR, m: 4, n: 4, k: 4, blocks: 4, t: T::F64, a: v(2), b: v(4), c: C::Reg(v(0)), d: v(0), ..BASE };
    check(c, 15);
    // v_mfma_f64_4x4x4f64 v[0:1], v[2:3], v[4:5], 1.0
    const ONE: &[u8] = &[0x00, 0x00, 0xef, 0xd3, 0x02, 0x09, 0xca, 0x03];
    check(Case { code: ONE, c: C::Const(1.0), ..c }, 16);
}

#[test]
fn inline_constant_accumulator() {
    // v_mfma_f32_16x16x4f32 v[4:7], v0, v1, 0
    const ZERO: &[u8] = &[0x04, 0x00, 0xc5, 0xd3, 0x00, 0x03, 0x02, 0x02];
    let c = Case { code: ZERO, m: 16, n: 16, k: 4, a: v(0), b: v(1), d: v(4), ..BASE };
    check(c, 17);
    // v_mfma_f32_16x16x4f32 v[4:7], v0, v1, 1.0
    const ONE: &[u8] = &[0x04, 0x00, 0xc5, 0xd3, 0x00, 0x03, 0xca, 0x03];
    check(Case { code: ONE, c: C::Const(1.0), ..c }, 18);
}

/// A gfx942 16x16 and 32x32 pair of one input type: 16x16 with A in v[4:5], B in v[6:7] and
/// C/D in v[0:3]; 32x32 with A in v[16:17], B in v[18:19] and C/D in v[0:15].
fn gfx942_pair(t: T, k16: usize, sixteen: &'static [u8], thirty_two: &'static [u8], seed: u64) {
    let c = Case { p: Processor::Gfx942, code: sixteen, m: 16, n: 16, k: k16, t, a: v(4), b: v(6), c: C::Reg(v(0)), d: v(0), ..BASE };
    check(c, seed);
    check(Case { code: thirty_two, m: 32, n: 32, k: k16 / 2, a: v(16), b: v(18), ..c }, seed + 1);
}

#[test]
fn gfx942_i8_forms_are_exact() {
    // v_mfma_i32_16x16x32_i8 v[0:3], v[4:5], v[6:7], v[0:3]
    const SIXTEEN: &[u8] = &[0x00, 0x00, 0xd7, 0xd3, 0x04, 0x0d, 0x02, 0x04];
    // v_mfma_i32_32x32x16_i8 v[0:15], v[16:17], v[18:19], v[0:15]
    const THIRTY_TWO: &[u8] = &[0x00, 0x00, 0xd6, 0xd3, 0x10, 0x25, 0x02, 0x04];
    gfx942_pair(T::I8, 32, SIXTEEN, THIRTY_TWO, 20);
}

#[test]
fn gfx942_xf32_forms() {
    // v_mfma_f32_16x16x8_xf32 v[0:3], v[4:5], v[6:7], v[0:3]
    const SIXTEEN: &[u8] = &[0x00, 0x00, 0xbe, 0xd3, 0x04, 0x0d, 0x02, 0x04];
    // v_mfma_f32_32x32x4_xf32 v[0:15], v[16:17], v[18:19], v[0:15]
    const THIRTY_TWO: &[u8] = &[0x00, 0x00, 0xbf, 0xd3, 0x10, 0x25, 0x02, 0x04];
    gfx942_pair(T::Xf32, 8, SIXTEEN, THIRTY_TWO, 22);
}

#[test]
fn gfx942_f64_negate_bits() {
    // v_mfma_f64_16x16x4_f64 v[0:7], v[8:9], v[10:11], v[0:7] neg:[1,0,1]
    const CODE: &[u8] = &[0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0xa4];
    check(
        Case { p: Processor::Gfx942, code: CODE, m: 16, n: 16, k: 4, t: T::F64, a: v(8), b: v(10), c: C::Reg(v(0)), d: v(0), neg: [true, false, true], ..BASE },
        24,
    );
}

#[test]
fn gfx942_smfmac_sparse_a_with_index_vgpr() {
    // v_smfmac_f32_16x16x32_f16 v[0:3], v[4:5], v[6:9], v10 abid:2
    const F16: &[u8] = &[0x00, 0x10, 0xe2, 0xd3, 0x04, 0x0d, 0x2a, 0x04];
    let c =
        Case { p: Processor::Gfx942, code: F16, m: 16, n: 16, k: 32, t: T::F16, a: v(4), b: v(6), c: C::Reg(v(0)), d: v(0), abid: 2, idx: Some(10), ..BASE };
    check(c, 25);
    // v_smfmac_i32_32x32x32_i8 v[0:15], v[16:17], v[18:21], v22 abid:1
    const I8: &[u8] = &[0x00, 0x08, 0xec, 0xd3, 0x10, 0x25, 0x5a, 0x04];
    check(Case { code: I8, m: 32, n: 32, k: 32, t: T::I8, a: v(16), b: v(18), abid: 1, idx: Some(22), ..c }, 26);
    // v_smfmac_f32_32x32x16_bf16 a[0:15], v[16:17], v[18:21], v22
    const BF16: &[u8] = &[0x00, 0x80, 0xe8, 0xd3, 0x10, 0x25, 0x5a, 0x04];
    check(Case { code: BF16, m: 32, n: 32, k: 16, t: T::Bf16, a: v(16), b: v(18), c: C::Reg(a(0)), d: a(0), abid: 0, idx: Some(22), ..c }, 27);
}

#[test]
fn gfx942_fp8_bf8_dense_forms() {
    // v_mfma_f32_16x16x32_fp8_bf8 v[0:3], v[4:5], v[6:7], v[0:3]
    const SIXTEEN: &[u8] = &[0x00, 0x00, 0xf2, 0xd3, 0x04, 0x0d, 0x02, 0x04];
    let c = Case { p: Processor::Gfx942, code: SIXTEEN, m: 16, n: 16, k: 32, t: T::Fp8, tb: Some(T::Bf8), a: v(4), b: v(6), c: C::Reg(v(0)), d: v(0), ..BASE };
    check(c, 30);
    check(c, 31);
    // v_mfma_f32_32x32x16_bf8_fp8 v[0:15], v[16:17], v[18:19], v[0:15] blgp:2
    const THIRTY_TWO: &[u8] = &[0x00, 0x00, 0xf5, 0xd3, 0x10, 0x25, 0x02, 0x44];
    check(Case { code: THIRTY_TWO, m: 32, n: 32, k: 16, t: T::Bf8, tb: Some(T::Fp8), a: v(16), b: v(18), blgp: 2, ..c }, 32);
}

#[test]
fn gfx942_fp8_bf8_sparse_forms() {
    // v_smfmac_f32_16x16x64_fp8_fp8 v[0:3], v[4:5], v[6:9], v10 abid:1
    const FP8: &[u8] = &[0x00, 0x08, 0xfb, 0xd3, 0x04, 0x0d, 0x2a, 0x04];
    let c =
        Case { p: Processor::Gfx942, code: FP8, m: 16, n: 16, k: 64, t: T::Fp8, a: v(4), b: v(6), c: C::Reg(v(0)), d: v(0), abid: 1, idx: Some(10), ..BASE };
    check(c, 33);
    // v_smfmac_f32_32x32x32_bf8_fp8 a[0:15], v[16:17], v[18:21], v22
    const BF8_FP8: &[u8] = &[0x00, 0x80, 0xfd, 0xd3, 0x10, 0x25, 0x5a, 0x04];
    check(
        Case { code: BF8_FP8, m: 32, n: 32, k: 32, t: T::Bf8, tb: Some(T::Fp8), a: v(16), b: v(18), c: C::Reg(a(0)), d: a(0), abid: 0, idx: Some(22), ..c },
        34,
    );
}

/// Host speed of the matrix kernels (`cargo test --release --test suite valu_mfma:: -- --ignored
/// --nocapture`): classified once, executed repeatedly, as the engine does.
#[test]
#[ignore]
fn speed() {
    use hipscope_sim::exec::{classify, execute, ExecCtx};
    let cases: [(&str, Processor, &[u8]); 5] = [
        ("32x32x8f16", Processor::Gfx90a, &[0x04, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x12, 0x04]),
        ("16x16x16f16", Processor::Gfx90a, &[0x04, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x12, 0x04]),
        ("4x4x4_16b_f16", Processor::Gfx90a, &[0x00, 0x00, 0xca, 0xd3, 0x00, 0x05, 0x02, 0x04]),
        ("16x16x32_i8", Processor::Gfx942, &[0x00, 0x00, 0xd7, 0xd3, 0x04, 0x0d, 0x02, 0x04]),
        ("16x16x4f64", Processor::Gfx90a, &[0x00, 0x00, 0xee, 0xd3, 0x08, 0x15, 0x02, 0x04]),
    ];
    for (name, p, code) in cases {
        let mut r = Rig::new(p, true);
        let inst = r.decode(code);
        let sem = classify(&inst, &r.env);
        let n = 20_000;
        let t = std::time::Instant::now();
        for _ in 0..n {
            let mut cx = ExecCtx { wave: &mut r.wave, mem: &mut r.mem, port: None, lds: &mut r.lds, env: &r.env };
            let _ = execute(&sem, &inst, &mut cx);
        }
        let s = t.elapsed().as_secs_f64();
        println!("{name}: {:.2} M wave-instructions/s", n as f64 / s / 1e6);
    }
}
