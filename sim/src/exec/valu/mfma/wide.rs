//! gfx950's wide matrix forms: operands of more than four VGPRs (the f8f6f4 MFMAs, with or
//! without block scales, and the SMFMACs whose B takes eight) and elements of 4 or 6 bits.
//!
//! Layout: an operand with `outer` rows (M for A, N for B), inner dimension K and `per_lane`
//! elements per lane packs them low bits first across consecutive registers; they form runs of
//! `run` consecutive k (at most 128 bits each: [`super::f8f6f4`] gives the sources),
//! lane `l` holding row `l % outer` and, in run `q`, k from `q · K/runs + (l / outer) · run`.
//! With one run this is the layout of the older forms ([`super::layout`]). The gfx950 SMFMACs
//! keep A in four VGPRs (one run; the 4:2 index rules of the parent module) and take B in
//! eight: B's two 128-bit halves cover the two halves of K as the f8f6f4 FP8 operands do
//! (16x16x64 f16: `B[k][j]` in lane `j + 16·((k % 32) / 8)`, VGPR `(k % 8) / 2 + 4·(k >= 32)`;
//! 32x32x32 f16: lanes `l % 32` hold column `l % 32`, k `16·(e / 8) + 8·(l / 32) + e % 8`
//! for element `e`), as AMD's own gfx950 SMFMAC layout tests state them, "verified on MI350"
//! (an AMD 2026 test suite of the gfx950 matrix builtins, `SmfmacF16_16x16x64.LayoutMatchesHardware`);
//! the same tests find that a nonzero CBSZ makes the instruction use index set 0 and no A
//! broadcast, as the parent module does.
//!
//! Execution converts every element once into the tiles of [`super::exec`], applies the block
//! scales ([`super::scale`]) and reuses its product kernel, C read and D write. M and N are 16
//! or 32 in every wide form.

use super::exec::{half, product, reg, Acc, Tiles, Work};
use super::f8f6f4::Elem;
use super::scale::{self, Scales};
use super::shape::{In, Shape};
use super::{Loc, Mfma};
use crate::exec::valu::minifloat::{self, Format};
use crate::wave::Wave;

/// How an operand's elements sit in its registers (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operand {
    pub loc: Loc,
    pub outer: u32,
    pub k: u32,
    pub per_lane: u32,
    pub bits: u32,
    pub run: u32,
}

/// How raw element codes become values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decode {
    /// Through the operand's table (8-, 6- and 4-bit floats).
    Table,
    Half,
    Bf16,
    I8,
}

/// A classified wide form.
#[derive(Debug, Clone)]
pub struct Wide {
    pub a: Operand,
    pub b: Operand,
    pub decode: Decode,
    /// Values of every A and every B code ([`Decode::Table`]).
    pub table: [[f32; 256]; 2],
    pub scales: Option<Scales>,
}

/// The wide description of a matrix instruction, `Some(None)` when it is not a wide form and
/// `None` when its controls name no format: `ops` are A and B, `fmt` the CBSZ and BLGP values,
/// `per_lane` A's (stored) and B's elements per lane.
pub fn describe(s: &Shape, ops: [Loc; 2], fmt: [u32; 2], per_lane: [u32; 2], scales: Option<Scales>) -> Option<Option<Wide>> {
    let (m, n, k) = (s.m as u32, s.n as u32, s.k as u32);
    let opnd = |i: usize, outer: u32, bits: u32, run: u32| Operand { loc: ops[i], outer, k, per_lane: per_lane[i], bits, run };
    let wide = match s.ty {
        In::F8f6f4 { scaled } => {
            let (ea, eb) = (Elem::from_code(fmt[0])?, Elem::from_code(fmt[1])?);
            Wide {
                a: opnd(0, m, ea.bits(), ea.run()),
                b: opnd(1, n, eb.bits(), eb.run()),
                decode: Decode::Table,
                table: [ea.table(), eb.table()],
                scales: if scaled { Some(scales?) } else { None },
            }
        }
        ty if s.sparse && per_lane[1] * ty.bits() > 128 => {
            let bits = ty.bits();
            let (decode, table) = match ty {
                In::F16 => (Decode::Half, [[0.0; 256]; 2]),
                In::Bf16 => (Decode::Bf16, [[0.0; 256]; 2]),
                In::F8 { a, b } => (Decode::Table, [a, b].map(table8)),
                _ => (Decode::I8, [[0.0; 256]; 2]),
            };
            // A: one run (the parent module's sparse layout); B: 128-bit runs.
            Wide { a: opnd(0, m, bits, per_lane[0]), b: opnd(1, n, bits, 128 / bits), decode, table, scales: None }
        }
        _ => return Some(None),
    };
    Some(Some(wide))
}

fn table8(f: Format) -> [f32; 256] {
    std::array::from_fn(|c| minifloat::decode(f, c as u8))
}

/// The (up to eight) registers of an operand as 64-lane slices; a constant in every word.
fn regs<'a>(w: &'a Wave, loc: Loc, konst: &'a [u32; 64]) -> [&'a [u32]; 8] {
    match loc {
        Loc::Reg { base, acc } => std::array::from_fn(|i| reg(w, base, acc, i)),
        Loc::Const(_) => [&konst[..]; 8],
    }
}

/// Slot `s` (the `bits`-bit element at bit `s · bits`, which may straddle two registers) of
/// every lane, converted, into `tmp`: branch-free over the lanes.
#[inline(always)]
fn slot<T>(rows: &[&[u32]; 8], s: u32, bits: u32, tmp: &mut [T; 64], conv: &impl Fn(u32) -> T) {
    let off = s * bits;
    let (w, sh, mask) = ((off / 32) as usize % 8, off % 32, (1u64 << bits) - 1);
    // The next register is read only to complete a straddling element (none at the last word).
    let (lo, hi) = (rows[w], rows[(w + 1) % 8]);
    for ((x, &a), &b) in tmp.iter_mut().zip(lo).zip(hi) {
        *x = conv(((a as u64 | (b as u64) << 32) >> sh & mask) as u32);
    }
}

/// A dense operand into its [k][outer] tile: slot by slot for all lanes, each group of
/// `outer` lanes (one k for every row) copied as one tile row.
fn dense<T: Acc>(rows: &[&[u32]; 8], o: &Operand, out: &mut [T], conv: impl Fn(u32) -> T) {
    // A compile-time row length makes each copy a few vector moves, not a library call.
    match o.outer {
        16 => dense_rows::<T, 16>(rows, o, out, conv),
        _ => dense_rows::<T, 32>(rows, o, out, conv),
    }
}

#[inline(always)]
fn dense_rows<T: Acc, const OUTER: usize>(rows: &[&[u32]; 8], o: &Operand, out: &mut [T], conv: impl Fn(u32) -> T) {
    let (run, outer) = (o.run.max(1) as usize, OUTER);
    let runs = (o.per_lane as usize / run).max(1);
    let span = o.k as usize / runs;
    let mut tmp = [T::default(); 64];
    for q in 0..runs {
        for j in 0..run {
            slot(rows, (q * run + j) as u32, o.bits, &mut tmp, &conv);
            for (g, lanes) in tmp.chunks_exact(outer).enumerate() {
                let at = (q * span + g * run + j) * outer;
                if let Some(dst) = out.get_mut(at..at + outer) {
                    dst.copy_from_slice(lanes);
                }
            }
        }
    }
}

/// SMFMAC's A into its [k][row] tile: each kept value at its indexed k of its group of four
/// (the parent module's rules), zeros elsewhere.
fn sparse<T: Acc>(w: &Wave, m: &Mfma, rows: &[&[u32]; 8], o: &Operand, out: &mut [T], conv: impl Fn(u32) -> T) {
    let Some(out) = out.get_mut(..(o.outer * o.k) as usize) else { return };
    out.fill(T::default());
    let raw: [u32; 64] = match m.idx {
        Some(Loc::Reg { base, acc }) => {
            let r = reg(w, base, acc, 0);
            std::array::from_fn(|l| r.get(l).copied().unwrap_or(0))
        }
        Some(Loc::Const(v)) => [v as u32; 64],
        None => return,
    };
    // ABID's index set.
    let index = raw.map(|v| v.checked_shr(m.idx_set * 2 * o.per_lane).unwrap_or(0));
    let mut tmp = [T::default(); 64];
    for s in 0..o.per_lane {
        slot(rows, s, o.bits, &mut tmp, &conv);
        for ((&(r, k0), &set), &v) in m.sparse_at.iter().zip(&index).zip(&tmp) {
            let kk = k0 as u32 + 4 * (s / 2) + (set.checked_shr(2 * s).unwrap_or(0) & 3);
            if let Some(x) = out.get_mut((kk * o.outer + r as u32) as usize) {
                *x = x.add(v);
            }
        }
    }
}

/// Both operands into `t`; `conv(operand, code)`.
fn operands<T: Acc>(wd: &Wide, m: &Mfma, w: &Wave, t: &mut Tiles<T>, conv: impl Fn(usize, u32) -> T) {
    let ka = [konst(wd.a.loc), konst(wd.b.loc)];
    let ra = regs(w, wd.a.loc, &ka[0]);
    if m.shape.sparse {
        sparse(w, m, &ra, &wd.a, &mut t.a, |v| conv(0, v));
    } else {
        dense(&ra, &wd.a, &mut t.a, |v| conv(0, v));
    }
    dense(&regs(w, wd.b.loc, &ka[1]), &wd.b, &mut t.b, |v| conv(1, v));
}

fn konst(loc: Loc) -> [u32; 64] {
    match loc {
        Loc::Const(v) => [v as u32; 64],
        Loc::Reg { .. } => [0; 64],
    }
}

/// Multiply each converted input by its row's (column's) scale of its block of 32 k.
fn apply(w: &Wave, s: Scales, m: &Mfma, t: &mut Tiles<f32>) {
    let (k, sa, sb) = (m.shape.k as usize, scale::lanes(w, s.a), scale::lanes(w, s.b));
    for (tile, outer, sc) in [(&mut t.a, m.shape.m as usize, &sa), (&mut t.b, m.shape.n as usize, &sb)] {
        for (kk, row) in tile.chunks_exact_mut(outer.max(1)).take(k).enumerate() {
            let lanes = sc.get(outer * (kk / 32)..).unwrap_or(&[]);
            row.iter_mut().zip(lanes).for_each(|(x, &s)| *x *= s);
        }
    }
}

/// Execute a wide form (called by [`super::exec`]'s dispatcher).
#[inline(always)]
pub(super) fn step(wd: &Wide, m: &Mfma, w: &mut Wave, x: &mut Work) {
    if wd.decode == Decode::I8 {
        let t = &mut x.i;
        operands(wd, m, w, t, |_, v| v as u8 as i8 as i32);
        return product(w, m, t);
    }
    let t = &mut x.f;
    match wd.decode {
        Decode::Half => operands(wd, m, w, t, |_, v| half(v)),
        Decode::Bf16 => operands(wd, m, w, t, |_, v| f32::from_bits(v << 16)),
        _ => operands(wd, m, w, t, |op, v| wd.table[op % 2][v as usize & 0xff]),
    }
    if let Some(s) = wd.scales {
        apply(w, s, m, t);
    }
    product(w, m, t);
}
