//! Executing a classified matrix instruction: unpack A and B (through the CBSZ/ABID and BLGP
//! maps) and C into a reusable working set, compute every block's D = A·B + C, write D.
//! The numerics are described in the parent module's documentation.

use super::layout::{input_coord, LANES};
use super::shape::In;
use super::{Loc, Mfma};
use crate::exec::valu::fp::h2d;
use crate::wave::{Wave, MAX_LANES, VGPRS};
use std::cell::RefCell;

/// Largest input (A or B, logical) and output element counts of any shape: 64 lanes × 16
/// logical k (SMFMAC i8), and 32 registers × 64 lanes (`32x32x1_2b`).
const MAX_IN: usize = 1024;
const MAX_OUT: usize = 2048;

/// The working set of one matrix instruction: A as [block][row][k], B as [block][k][column],
/// C and D as [block][row][column], all as f64 (exact for every input type).
struct Work {
    a: [f64; MAX_IN],
    b: [f64; MAX_IN],
    c: [f64; MAX_OUT],
    d: [f64; MAX_OUT],
    /// One row's step sums.
    sum: [f64; 32],
}

impl Work {
    fn new() -> Box<Work> {
        Box::new(Work { a: [0.0; MAX_IN], b: [0.0; MAX_IN], c: [0.0; MAX_OUT], d: [0.0; MAX_OUT], sum: [0.0; 32] })
    }
}

thread_local! {
    static WORK: RefCell<Box<Work>> = RefCell::new(Work::new());
}

/// Dword `k` of `loc` in `lane`; a constant gives its low (even `k`) or high (odd `k`, 64-bit
/// elements) half.
#[inline]
fn word(w: &Wave, loc: Loc, k: usize, lane: usize, wide: bool) -> u32 {
    match loc {
        Loc::Reg { base, acc } => {
            let r = (base as usize + k) % VGPRS;
            let file = if acc { &w.agpr } else { &w.vgpr };
            file.get(r * MAX_LANES + lane).copied().unwrap_or(0)
        }
        Loc::Const(v) if wide && k % 2 == 1 => (v >> 32) as u32,
        Loc::Const(v) => v as u32,
    }
}

fn put(w: &mut Wave, loc: Loc, k: usize, lane: usize, v: u32) {
    let Loc::Reg { base, acc } = loc else { return };
    let r = (base as usize + k) % VGPRS;
    let file = if acc {
        if w.agpr.is_empty() {
            w.agpr = vec![0; VGPRS * MAX_LANES];
        }
        &mut w.agpr
    } else {
        &mut w.vgpr
    };
    if let Some(x) = file.get_mut(r * MAX_LANES + lane) {
        *x = v;
    }
}

static ZEROS: [u32; MAX_LANES] = [0; MAX_LANES];

/// The (up to four) registers of an input, each as its 64 lanes, looked up once per
/// instruction; a constant gives its dwords in every lane.
struct Rows<'w> {
    rows: [&'w [u32]; 4],
    konst: Option<[u32; 4]>,
}

impl<'w> Rows<'w> {
    fn new(w: &'w Wave, loc: Loc, words: usize, wide: bool) -> Rows<'w> {
        let mut rows: [&[u32]; 4] = [&ZEROS; 4];
        match loc {
            Loc::Reg { base, acc } => {
                let file = if acc { &w.agpr } else { &w.vgpr };
                for (k, row) in rows.iter_mut().enumerate().take(words) {
                    let r = (base as usize + k) % VGPRS;
                    *row = file.get(r * MAX_LANES..(r + 1) * MAX_LANES).unwrap_or(&ZEROS);
                }
                Rows { rows, konst: None }
            }
            Loc::Const(_) => Rows { rows, konst: Some([0, 1, 2, 3].map(|k| word(w, loc, k, 0, wide))) },
        }
    }

    #[inline]
    fn lane(&self, lane: usize) -> [u32; 4] {
        self.konst.unwrap_or_else(|| self.rows.map(|r| r[lane % MAX_LANES]))
    }
}

/// Raw bits of element slot `slot` of one lane's dwords.
#[inline]
fn element(words: &[u32; 4], bits: u32, slot: usize) -> u64 {
    match bits {
        64 => words[(2 * slot) % 4] as u64 | (words[(2 * slot + 1) % 4] as u64) << 32,
        32 => words[slot % 4] as u64,
        16 => (words[(slot / 2) % 4] >> (16 * (slot % 2)) & 0xffff) as u64,
        _ => (words[(slot / 4) % 4] >> (8 * (slot % 4)) & 0xff) as u64,
    }
}

/// f16 bits to f64, exactly (binary16: 5 exponent bits, bias 15, 10 fraction bits).
#[inline]
fn half(h: u64) -> f64 {
    let sign = (h & 0x8000) << 48;
    let (e, m) = (h >> 10 & 0x1f, h & 0x3ff);
    match e {
        0 => {
            let x = m as f64 * (1.0 / 16_777_216.0);
            f64::from_bits(x.to_bits() | sign)
        }
        0x1f => h2d(h),
        _ => f64::from_bits(sign | (e + 1008) << 52 | m << 42),
    }
}

/// f32 bits rounded to nearest even at 10 fraction bits (xf32); infinities and NaNs kept.
fn xf32(bits: u32) -> f32 {
    if bits & 0x7f80_0000 == 0x7f80_0000 {
        return f32::from_bits(bits);
    }
    let r = bits.wrapping_add(0xfff + (bits >> 13 & 1)) & !0x1fff;
    f32::from_bits(r)
}

#[inline]
fn value(ty: In, raw: u64) -> f64 {
    match ty {
        In::F32 => f32::from_bits(raw as u32) as f64,
        In::Xf32 => xf32(raw as u32) as f64,
        In::F16 => half(raw),
        In::Bf16 => f32::from_bits((raw as u32) << 16) as f64,
        In::I8 => raw as u8 as i8 as f64,
        In::F64 => f64::from_bits(raw),
    }
}

/// How a gathered input is laid out in the working set.
#[derive(Clone, Copy)]
enum Order {
    /// A: [block][row][k].
    RowK,
    /// B: [block][k][column].
    KCol,
}

/// A dense input with `outer` rows and `blocks` blocks into `out`; lane `l` reads register
/// lane `lanes[l]`.
#[allow(clippy::too_many_arguments)]
fn gather(w: &Wave, loc: Loc, ty: In, outer: u32, blocks: u32, per_lane: u32, k: usize, lanes: Option<&[u8; LANES]>, neg: bool, order: Order, out: &mut [f64]) {
    let sign = if neg { -1.0 } else { 1.0 };
    let (bits, wide) = (ty.bits(), ty.bits() == 64);
    let rows = Rows::new(w, loc, (per_lane * bits).div_ceil(32) as usize, wide);
    for lane in 0..LANES as u32 {
        let src = lanes.map_or(lane as usize, |m| m[lane as usize] as usize);
        let lw = rows.lane(src);
        let (b, r, k0) = input_coord(outer, blocks, per_lane, lane);
        let (b, r, k0, outer) = (b as usize, r as usize, k0 as usize, outer as usize);
        for s in 0..per_lane as usize {
            let at = match order {
                Order::RowK => (b * outer + r) * k + k0 + s,
                Order::KCol => (b * k + k0 + s) * outer + r,
            };
            out[at] = sign * value(ty, element(&lw, bits, s));
        }
    }
}

/// SMFMAC's A: the kept values placed at their indexed k of each group of four, zeros
/// elsewhere.
fn gather_sparse(w: &Wave, m: &Mfma, out: &mut [f64]) {
    let (rows, k) = (m.shape.m as u32, m.shape.k as usize);
    let per_lane = m.a_per_lane;
    out[..rows as usize * k].fill(0.0);
    let Some(idx) = m.idx else { return };
    let ty = m.shape.ty;
    let regs = Rows::new(w, m.a, (per_lane * ty.bits()).div_ceil(32) as usize, false);
    for lane in 0..LANES as u32 {
        let (_, r, k0) = input_coord(rows, 1, per_lane, lane);
        let base = r as usize * k + 2 * k0 as usize;
        let bits = word(w, idx, 0, lane as usize, false) as u64;
        let set = (bits >> (m.idx_set * 2 * per_lane).min(63)) as u32;
        let lw = regs.lane(lane as usize);
        for s in 0..per_lane as usize {
            let at = base + 4 * (s / 2) + (set >> (2 * s) & 3) as usize;
            out[at] += value(ty, element(&lw, ty.bits(), s));
        }
    }
}

/// C (or D) element `e`'s register unit and lane.
#[inline]
fn position(m: &Mfma, e: usize) -> (usize, usize) {
    let p = m.out[e] as usize;
    (p / LANES, p % LANES)
}

fn read_c(w: &Wave, m: &Mfma, c: &mut [f64]) {
    let ty = m.shape.ty;
    let sign = if m.neg[2] { -1.0 } else { 1.0 };
    for (e, x) in c[..m.out.len()].iter_mut().enumerate() {
        let (u, lane) = position(m, e);
        *x = match ty {
            In::F64 => sign * f64::from_bits(word(w, m.c, 2 * u, lane, true) as u64 | (word(w, m.c, 2 * u + 1, lane, true) as u64) << 32),
            In::I8 => word(w, m.c, u, lane, false) as i32 as f64,
            _ => f32::from_bits(word(w, m.c, u, lane, false)) as f64,
        };
    }
}

fn write_d(w: &mut Wave, m: &Mfma, d: &[f64]) {
    for (e, &x) in d[..m.out.len()].iter().enumerate() {
        let (u, lane) = position(m, e);
        match m.shape.ty {
            In::F64 => {
                let bits = x.to_bits();
                put(w, m.d, 2 * u, lane, bits as u32);
                put(w, m.d, 2 * u + 1, lane, (bits >> 32) as u32);
            }
            In::I8 => put(w, m.d, u, lane, x as i32 as u32),
            _ => put(w, m.d, u, lane, (x as f32).to_bits()),
        }
    }
}

/// One row of D for every column at once: `d` holds C on entry. Float steps of `step` k:
/// products summed in f64 (`sum`), then added to the f32 accumulator; f64: a fused
/// multiply-add per k; integers: exact sum, wrapped to i32 at the end.
#[allow(clippy::too_many_arguments)]
fn row(ty: In, arow: &[f64], bmat: &[f64], cols: usize, step: usize, d: &mut [f64], sum: &mut [f64]) {
    let d = &mut d[..cols];
    let sum = &mut sum[..cols];
    match ty {
        In::F64 => {
            for (k, &av) in arow.iter().enumerate() {
                for (x, bv) in d.iter_mut().zip(&bmat[k * cols..][..cols]) {
                    *x = av.mul_add(*bv, *x);
                }
            }
        }
        _ => {
            for (c, chunk) in arow.chunks(step).enumerate() {
                sum.fill(0.0);
                for (t, &av) in chunk.iter().enumerate() {
                    for (x, bv) in sum.iter_mut().zip(&bmat[(c * step + t) * cols..][..cols]) {
                        *x += av * bv;
                    }
                }
                if ty != In::I8 {
                    for (x, s) in d.iter_mut().zip(sum.iter()) {
                        *x = (*x + s) as f32 as f64;
                    }
                } else {
                    for (x, s) in d.iter_mut().zip(sum.iter()) {
                        *x += s;
                    }
                }
            }
            if ty == In::I8 {
                // The sum is exact in f64 (|Σ| < 2^53); the i32 result wraps.
                for x in d.iter_mut() {
                    *x = *x as i64 as i32 as f64;
                }
            }
        }
    }
}

fn compute(m: &Mfma, x: &mut Work) {
    let s = &m.shape;
    let (rows, cols, k, blocks) = (s.m as usize, s.n as usize, s.k as usize, s.blocks as usize);
    // Integer sums are exact whatever the grouping: one step.
    let step = if s.ty == In::I8 { k } else { m.b_per_lane.max(1) as usize };
    for b in 0..blocks {
        let ab = m.a_block[b] as usize;
        let bmat = &x.b[b * k * cols..][..k * cols];
        for i in 0..rows {
            let arow = &x.a[(ab * rows + i) * k..][..k];
            let e = (b * rows + i) * cols;
            x.d[e..e + cols].copy_from_slice(&x.c[e..e + cols]);
            row(s.ty, arow, bmat, cols, step, &mut x.d[e..], &mut x.sum);
        }
    }
}

/// Execute `m` on the wave (all 64 lanes; see the parent module on EXEC).
pub fn run(m: &Mfma, w: &mut Wave) {
    WORK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut x) => step(m, w, &mut x),
        // Re-entered (cannot happen: nothing executes instructions from here); a fresh set.
        Err(_) => step(m, w, &mut Work::new()),
    })
}

fn step(m: &Mfma, w: &mut Wave, x: &mut Work) {
    let s = &m.shape;
    let (rows, cols, k, blocks) = (s.m as u32, s.n as u32, s.k as usize, s.blocks as u32);
    if s.sparse {
        gather_sparse(w, m, &mut x.a);
    } else {
        gather(w, m.a, s.ty, rows, blocks, m.a_per_lane, k, None, m.neg[0], Order::RowK, &mut x.a);
    }
    gather(w, m.b, s.ty, cols, blocks, m.b_per_lane, k, Some(&m.b_lane), m.neg[1], Order::KCol, &mut x.b);
    read_c(w, m, &mut x.c);
    compute(m, x);
    write_d(w, m, &x.d);
}
