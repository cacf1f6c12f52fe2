//! The product of a matrix instruction with 32-bit results (f32 or i32) straight between the
//! register files: each group of D rows is loaded from C's registers into the accumulators,
//! multiplied, and stored into D's registers, with no D tile in between. That saves reading
//! all of C into the tile and writing all of D out of it again (two passes over 4 KiB per
//! 32x32 instruction, about a quarter of the instruction's host work).
//!
//! The hardware reads all of C before it writes any of D; going group by group gives the same
//! result only when no D row stored early is a C row read later. That holds when C is a
//! constant, when C and D are the same registers (each group reads and writes only its own
//! rows), or when their registers do not overlap (different files, or disjoint ranges);
//! otherwise ([`applies`] false) the caller takes the tile path, which gives the same bits.

use super::exec::{mac_group, Acc, Tiles};
use super::layout::LANES;
use super::{Loc, Mfma};
use crate::wave::{Wave, MAX_LANES, VGPRS};

/// A 32-bit accumulator, held in a register as its bits.
pub(super) trait Acc32: Acc {
    fn from_u32(v: u32) -> Self;
    fn to_u32(self) -> u32;
}

impl Acc32 for f32 {
    #[inline(always)]
    fn from_u32(v: u32) -> f32 {
        f32::from_bits(v)
    }
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self.to_bits()
    }
}

impl Acc32 for i32 {
    #[inline(always)]
    fn from_u32(v: u32) -> i32 {
        v as i32
    }
    #[inline(always)]
    fn to_u32(self) -> u32 {
        self as u32
    }
}

/// Whether C and D allow the direct path (see the module documentation).
pub(super) fn applies(m: &Mfma) -> bool {
    if m.shape.ty.out_bits() == 64 {
        return false; // register pairs: the tile path
    }
    let (Loc::Reg { base: d, acc: dacc }, Loc::Reg { base: c, acc: cacc }) = (m.d, m.c) else {
        return matches!((m.d, m.c), (Loc::Reg { .. }, Loc::Const(_)));
    };
    // Registers of the range: the highest register unit any row uses, plus one.
    let regs = m.rows.iter().map(|&(u, _)| u as usize + 1).max().unwrap_or(0);
    let apart = |x: u8, y: u8| (x as usize + VGPRS - y as usize) % VGPRS >= regs;
    c == d || cacc != dacc || apart(c, d) && apart(d, c)
}

/// Each row's offset of C and of D in its register file (register · lanes + first lane), for
/// the classified instruction, so that moving a row costs one bounds check and a copy. A row
/// not inside one register gets `u32::MAX` (read as zeros, not written, as the tile path does).
pub(super) fn offsets(m: &Mfma) -> Box<[[u32; 2]]> {
    let n = m.shape.n as usize;
    let at = |loc: Loc, u: u8, l0: u8| match loc {
        Loc::Reg { base, .. } if l0 as usize + n <= LANES => ((base as usize + u as usize) % VGPRS * MAX_LANES + l0 as usize) as u32,
        _ => u32::MAX,
    };
    m.rows.iter().map(|&(u, l0)| [at(m.c, u, l0), at(m.d, u, l0)]).collect()
}

/// The `N` words at `at` of `file`, when they are all inside it.
#[inline(always)]
fn row<const N: usize>(file: &[u32], at: u32) -> Option<&[u32; N]> {
    let at = at as usize;
    file.get(at..at.wrapping_add(N))?.try_into().ok()
}

#[inline(always)]
fn row_mut<const N: usize>(file: &mut [u32], at: u32) -> Option<&mut [u32; N]> {
    let at = at as usize;
    file.get_mut(at..at.wrapping_add(N))?.try_into().ok()
}

/// One accumulator row: C's row at `at` of `file` (zeros when outside), as `T`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn load<T: Acc32, const N: usize>(file: &[u32], at: u32) -> [T; N] {
    let mut x = [T::default(); N];
    if let Some(c) = row::<N>(file, at) {
        for j in 0..N {
            x[j] = T::from_u32(c[j]);
        }
    }
    x
}

/// Every block's D = A·B + C, `R` rows of `N` columns at a time, the accumulators loaded from
/// C's registers and stored to D's (requires [`applies`]), at the offsets [`offsets`] gave.
#[inline(always)]
pub(super) fn product<T: Acc32, const N: usize, const R: usize>(t: &Tiles<T>, m: &Mfma, w: &mut Wave) {
    let Loc::Reg { acc: dacc, .. } = m.d else { return };
    if dacc && w.agpr.is_empty() {
        w.agpr = vec![0; VGPRS * MAX_LANES];
    }
    let (vg, ag) = (&mut w.vgpr[..], &mut w.agpr[..]);
    // Where C comes from, decided once per instruction, not per row.
    match m.c {
        Loc::Const(v) => groups::<T, N, R>(t, m, if dacc { ag } else { vg }, |_, _| [T::from_u32(v as u32); N]),
        Loc::Reg { acc, .. } if acc == dacc => groups::<T, N, R>(t, m, if dacc { ag } else { vg }, load),
        Loc::Reg { acc: true, .. } => groups::<T, N, R>(t, m, vg, |_, at| load(ag, at)),
        Loc::Reg { acc: false, .. } => groups::<T, N, R>(t, m, ag, |_, at| load(vg, at)),
    }
}

/// The row groups of [`product`]: `c(dfile, at)` gives the accumulator row of C at `at` (of
/// `dfile` when C and D share the file). Index loops, as in [`mac_group`].
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn groups<T: Acc32, const N: usize, const R: usize>(t: &Tiles<T>, m: &Mfma, dfile: &mut [u32], c: impl Fn(&[u32], u32) -> [T; N]) {
    let s = &m.shape;
    let (rows, k) = (s.m as usize, s.k as usize);
    for (b, bat) in m.at.chunks_exact(rows).take(s.blocks as usize).enumerate() {
        let ab = m.a_block[b] as usize;
        let (Some(bm), Some(am)) = (t.b.get(b * k * N..(b + 1) * k * N), t.a.get(ab * k * rows..(ab + 1) * k * rows)) else { return };
        for (g, gat) in bat.chunks_exact(R).enumerate() {
            let Ok(gat) = <&[[u32; 2]; R]>::try_from(gat) else { return };
            let mut acc = [[T::default(); N]; R];
            for r in 0..R {
                acc[r] = c(dfile, gat[r][0]);
            }
            if !mac_group(&mut acc, bm, am, rows, g) {
                return;
            }
            for r in 0..R {
                if let Some(d) = row_mut::<N>(dfile, gat[r][1]) {
                    for j in 0..N {
                        d[j] = acc[r][j].to_u32();
                    }
                }
            }
        }
    }
}
