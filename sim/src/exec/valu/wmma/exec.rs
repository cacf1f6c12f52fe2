//! Executing a classified [`Wmma`]: gather A, B (and the sparse index) and C through their
//! layouts into stack matrices, multiply-accumulate, scatter D. See the parent module for the
//! arithmetic and its fidelity.

use super::layout::Layout;
use super::{CSrc, Elem, Wmma};
use crate::exec::valu::fp::d2h;
use crate::exec::valu::minifloat::decode;
use crate::wave::Wave;

/// Largest K of any shape (SWMMAC 16x16x64).
const KMAX: usize = 64;
type Mat = [[f64; KMAX]; 16];

/// The value of one raw element.
#[inline]
fn value(ty: Elem, raw: u32, signed: bool) -> f64 {
    match ty {
        Elem::F16 => h2f(raw) as f64,
        Elem::Bf16 => f32::from_bits((raw & 0xffff) << 16) as f64,
        Elem::F8(fmt) => decode(fmt, raw as u8) as f64,
        Elem::Int8 if signed => raw as u8 as i8 as f64,
        Elem::Int8 => (raw & 0xff) as f64,
        Elem::Int4 if signed => (((raw as u8) << 4) as i8 >> 4) as f64,
        Elem::Int4 => (raw & 0xf) as f64,
        Elem::F32 => f32::from_bits(raw) as f64,
        Elem::I32 => raw as i32 as f64,
    }
}

/// f16 bits to f32, exactly, by moving the fields (no libm power on the hot path).
#[inline]
fn h2f(h: u32) -> f32 {
    let sign = (h & 0x8000) << 16;
    let (e, m) = (h >> 10 & 0x1f, h & 0x3ff);
    let mag = match e {
        // m * 2^-24
        0 => m as f32 * f32::from_bits(103 << 23),
        0x1f => f32::from_bits(0x7f80_0000 | m << 13),
        _ => f32::from_bits((e + 112) << 23 | m << 13),
    };
    f32::from_bits(sign | mag.to_bits())
}

fn mask(bits: u8) -> u32 {
    if bits >= 32 {
        !0
    } else {
        (1 << bits) - 1
    }
}

/// The raw element at `outer`/`index` of an operand starting at VGPR `base`, and its bit
/// offset in the register.
#[inline]
fn raw(w: &Wave, base: u8, l: &Layout, outer: usize, index: usize, extra_shift: u32) -> (u32, u32) {
    let (reg, lane, off) = l.locate(outer, index);
    let v = w.v(base as usize + reg, lane);
    ((v >> (off + extra_shift)) & mask(l.elem_bits), off)
}

/// Gather A (or B) as `m[outer][k]`: `neg` flips low-half 16-bit elements, `neg_hi` the high.
fn gather_input(w: &Wave, base: u8, l: &Layout, ty: Elem, k: usize, signs: (bool, bool, bool), m: &mut Mat) {
    let (signed, neg, neg_hi) = signs;
    for (o, row) in m.iter_mut().enumerate() {
        for (kk, x) in row.iter_mut().enumerate().take(k) {
            let (bits, off) = raw(w, base, l, o, kk, 0);
            let v = value(ty, bits, signed);
            let flip = !ty.is_int() && l.elem_bits == 16 && if off % 32 == 0 { neg } else { neg_hi };
            *x = if flip { -v } else { v };
        }
    }
}

/// SWMMAC: expand compressed A (`kc` positions) into dense `m` using the index VGPR.
fn gather_sparse(w: &Wave, op: &Wmma, shape: &super::layout::Shape, m: &mut Mat) {
    let (Some((ireg, key)), Some(il)) = (op.index, shape.index.as_ref()) else { return };
    let kc = shape.k as usize / 2;
    let mut comp: Mat = [[0.0; KMAX]; 16];
    gather_input(w, op.a, &shape.a, op.a_ty, kc, (op.neg[0], op.neg[0], op.neg_hi[0]), &mut comp);
    let set_shift = (key as u32 % shape.sets.max(1) as u32) * (32 / shape.sets.max(1) as u32);
    for (i, row) in m.iter_mut().enumerate() {
        row.fill(0.0);
        for (c, &v) in comp[i].iter().enumerate().take(kc) {
            let pos = raw(w, ireg, il, i, c, set_shift).0 as usize;
            // Two values share a group of four k: the index is the position within the group.
            row[(c / 2) * 4 + pos] = v;
        }
    }
}

/// C as `c[row][col]`, with neg (subtract) and neg_hi (absolute value) applied to floats.
fn gather_c(w: &Wave, op: &Wmma, l: &Layout, c: &mut [[f64; 16]; 16]) {
    let shift = if op.high_half { 16 } else { 0 };
    for (i, row) in c.iter_mut().enumerate() {
        for (j, x) in row.iter_mut().enumerate() {
            let bits = match op.c {
                CSrc::Vgpr(r) => raw(w, r, l, j, i, shift).0,
                CSrc::Const(k) => k & mask(l.elem_bits),
            };
            let mut v = value(op.cd_ty, bits, true);
            if !op.cd_ty.is_int() {
                if op.neg_hi[2] {
                    v = v.abs();
                }
                if op.neg[2] {
                    v = -v;
                }
            }
            *x = v;
        }
    }
}

/// D's raw bits from the exact-product sum.
fn result(ty: Elem, x: f64, clamp: bool) -> u32 {
    match ty {
        Elem::F32 => (x as f32).to_bits(),
        Elem::F16 => d2h(x) as u32,
        Elem::Bf16 => bf16(x as f32) as u32,
        _ if clamp => x.clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32,
        // Exact integer sum; wrap to 32 bits.
        _ => (x as i64) as u32,
    }
}

/// f32 to bf16, round to nearest even; NaN stays NaN (quiet).
fn bf16(x: f32) -> u16 {
    let b = x.to_bits();
    if x.is_nan() {
        return ((b >> 16) | 0x40) as u16;
    }
    let round = 0x7fff + (b >> 16 & 1);
    ((b as u64 + round as u64) >> 16) as u16
}

/// The dot product of two rows (K is a multiple of 16): four interleaved partial sums, added
/// pairwise at the end (the summation order this model chooses; see the module docs).
#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
        for l in 0..4 {
            acc[l] += x[l] * y[l];
        }
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// Execute `op` on the wave.
pub fn execute(op: &Wmma, w: &mut Wave) {
    let shape = op.shapes[w.wave64 as usize];
    let k = shape.k as usize;
    let mut a: Mat = [[0.0; KMAX]; 16];
    let mut b: Mat = [[0.0; KMAX]; 16];
    let mut c = [[0.0f64; 16]; 16];
    if op.index.is_some() {
        gather_sparse(w, op, shape, &mut a);
    } else {
        gather_input(w, op.a, &shape.a, op.a_ty, k, (op.neg[0], op.neg[0], op.neg_hi[0]), &mut a);
    }
    gather_input(w, op.b, &shape.b, op.b_ty, k, (op.neg[1], op.neg[1], op.neg_hi[1]), &mut b);
    gather_c(w, op, &shape.d, &mut c);
    let exec = w.exec();
    let shift = if op.high_half { 16 } else { 0 };
    let d = &shape.d;
    for (i, (arow, crow)) in a.iter().zip(c.iter()).enumerate() {
        for (j, brow) in b.iter().enumerate() {
            let sum = crow[j] + dot(&arow[..k], &brow[..k]);
            let bits = result(op.cd_ty, sum, op.clamp);
            let (reg, lane, off) = d.locate(j, i);
            if exec >> lane & 1 == 0 {
                continue;
            }
            let r = op.d as usize + reg;
            let m = mask(d.elem_bits) << (off + shift);
            let old = w.v(r, lane);
            w.set_v(r, lane, (old & !m) | ((bits << (off + shift)) & m));
        }
    }
}
