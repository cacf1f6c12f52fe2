//! Executing a classified matrix instruction: convert A and B once (through the CBSZ/ABID and
//! BLGP maps) into dense tiles of the accumulator's type (f32, f64 or i32), read C row by row,
//! accumulate every block's D = A·B + C, write D row by row. The numerics are described in
//! the parent module's documentation.
//!
//! Speed: inputs are converted one element position at a time for all 64 lanes (contiguous,
//! branch-free, vectorisable; f16 eight lanes per F16C conversion where the host has it) and
//! copied into the tiles as runs of M or N lanes, both tiles laid out [block][k][row or
//! column]. The product (`kernel`) keeps a group of D rows (N a compile-time constant) in
//! vector registers and adds one B row times a broadcast A value per k, two k per iteration,
//! with no branches or bounds checks in the loop. On x86-64 hosts with AVX2, FMA and F16C
//! (detected at run time) the whole instruction is compiled with those features; elsewhere
//! `mul_add` is a correctly rounded library call: slower, the same bits.

use super::direct::{self, Acc32};
use super::layout::LANES;
use super::shape::In;
use super::{Loc, Mfma};
use crate::wave::{Wave, MAX_LANES, VGPRS};
use std::cell::RefCell;

/// Largest input (A or B, logical) and output element counts of any shape: 64 lanes × 32
/// logical k (gfx950 f8f6f4 and 8-bit SMFMAC), and 32 registers × 64 lanes (`32x32x1_2b`).
const MAX_IN: usize = 2048;
const MAX_OUT: usize = 2048;

/// An accumulator type: `mac` is one step of D += a·b.
pub(super) trait Acc: Copy + Default {
    fn mac(self, a: Self, b: Self) -> Self;
    fn add(self, b: Self) -> Self;
}

impl Acc for f32 {
    #[inline(always)]
    fn mac(self, a: f32, b: f32) -> f32 {
        a.mul_add(b, self)
    }
    #[inline(always)]
    fn add(self, b: f32) -> f32 {
        self + b
    }
}

impl Acc for f64 {
    #[inline(always)]
    fn mac(self, a: f64, b: f64) -> f64 {
        a.mul_add(b, self)
    }
    #[inline(always)]
    fn add(self, b: f64) -> f64 {
        self + b
    }
}

impl Acc for i32 {
    #[inline(always)]
    fn mac(self, a: i32, b: i32) -> i32 {
        self.wrapping_add(a.wrapping_mul(b))
    }
    #[inline(always)]
    fn add(self, b: i32) -> i32 {
        self.wrapping_add(b)
    }
}

/// A as [block][row][k], B as [block][k][column], D as [block][row][column].
pub(super) struct Tiles<T> {
    pub(super) a: [T; MAX_IN],
    pub(super) b: [T; MAX_IN],
    pub(super) d: [T; MAX_OUT],
}

impl<T: Acc> Tiles<T> {
    fn new() -> Tiles<T> {
        Tiles { a: [T::default(); MAX_IN], b: [T::default(); MAX_IN], d: [T::default(); MAX_OUT] }
    }
}

/// The working set of the thread: one set of tiles per accumulator type.
pub(super) struct Work {
    pub(super) f: Tiles<f32>,
    g: Tiles<f64>,
    pub(super) i: Tiles<i32>,
    konst: Konst,
}

impl Work {
    fn new() -> Box<Work> {
        Box::new(Work { f: Tiles::new(), g: Tiles::new(), i: Tiles::new(), konst: Konst { a: [[0; LANES]; 4], b: [[0; LANES]; 4] } })
    }
}

thread_local! {
    static WORK: RefCell<Box<Work>> = RefCell::new(Work::new());
}

static ZEROS: [u32; MAX_LANES] = [0; MAX_LANES];

/// Register `k` of the range at `base` in the VGPR or AGPR file, as its 64 lanes.
#[inline]
pub(super) fn reg(w: &Wave, base: u8, acc: bool, k: usize) -> &[u32] {
    let r = (base as usize + k) % VGPRS;
    let file = if acc { &w.agpr } else { &w.vgpr };
    file.get(r * MAX_LANES..r * MAX_LANES + LANES).unwrap_or(&ZEROS[..LANES])
}

/// The identity lane map.
const IDENT: [u8; LANES] = {
    let mut x = [0u8; LANES];
    let mut i = 0;
    while i < LANES {
        x[i] = i as u8;
        i += 1;
    }
    x
};

/// The (up to four) registers of an input, each as its 64 lanes, looked up once per
/// instruction; a constant's dwords (low, high for 64-bit elements) are broadcast into `konst`.
fn sources<'a>(w: &'a Wave, loc: Loc, words: usize, wide: bool, konst: &'a mut [[u32; LANES]; 4]) -> [&'a [u32]; 4] {
    match loc {
        Loc::Reg { base, acc } => {
            let mut rows: [&[u32]; 4] = [&ZEROS[..LANES]; 4];
            for (k, row) in rows.iter_mut().enumerate().take(words) {
                *row = reg(w, base, acc, k);
            }
            rows
        }
        Loc::Const(v) => {
            for (k, row) in konst.iter_mut().enumerate() {
                row.fill(if wide && k % 2 == 1 { (v >> 32) as u32 } else { v as u32 });
            }
            let konst: &'a [[u32; LANES]; 4] = konst;
            konst.each_ref().map(|r| &r[..])
        }
    }
}

/// f16 bits to f32, exactly: the binary16 exponent and fraction shifted into f32 position and
/// scaled by 2^(127 - 15) (which also normalises denormals); infinities and NaNs kept.
#[inline(always)]
pub(super) fn half(h: u32) -> f32 {
    let mag = h & 0x7fff;
    let sign = (h & 0x8000) << 16;
    let bits = if mag >= 0x7c00 { 0x7f80_0000 | (mag & 0x3ff) << 13 } else { (f32::from_bits(mag << 13) * f32::from_bits(0x7780_0000)).to_bits() };
    f32::from_bits(bits | sign)
}

/// f32 bits rounded to nearest even at 10 fraction bits (xf32); infinities and NaNs kept.
#[inline(always)]
fn xf32(bits: u32) -> f32 {
    if bits & 0x7f80_0000 == 0x7f80_0000 {
        return f32::from_bits(bits);
    }
    let r = bits.wrapping_add(0xfff + (bits >> 13 & 1)) & !0x1fff;
    f32::from_bits(r)
}

/// f16 bits to f32 as F16C's conversion gives them: exactly, signalling NaNs quieted. Every
/// input value then goes through a fused multiply-add, which quiets a signalling NaN anyway,
/// so the results are those of [`half`].
#[inline(always)]
fn half_quiet(h: u32) -> f32 {
    let quiet = (((h & 0x7fff) > 0x7c00) as u32) << 22;
    f32::from_bits(half(h).to_bits() | quiet)
}

/// Element `s` of every lane (register lane `map[l]` for lane `l`, when given) of an f16
/// input, as [`half_quiet`] converts it: with `F16C` (the host has it) eight lanes per
/// vector conversion.
#[inline(always)]
fn halves<const F16C: bool>(rows: &[&[u32]; 4], s: usize, map: Option<&[u8; LANES]>, tmp: &mut [f32; LANES]) {
    #[cfg(target_arch = "x86_64")]
    if let (true, None, Ok(row)) = (F16C, map, <&[u32; LANES]>::try_from(rows[(s / 2) % 4])) {
        // SAFETY: `F16C` is true only in `step_avx2`, which runs after `dispatch` checked that
        // the host has AVX2 and F16C.
        return unsafe { f16c::halves(row, 16 * (s % 2) as u32, tmp) };
    }
    lanes(rows, 16, s, map, tmp, half_quiet)
}

#[cfg(target_arch = "x86_64")]
mod f16c {
    use super::LANES;
    use std::arch::x86_64::*;

    /// Bits `sh..sh + 16` of each word of `row` as an f16, converted to f32 (`vcvtph2ps`:
    /// exact, signalling NaNs quieted), eight words at a time.
    #[target_feature(enable = "avx2,f16c")]
    #[inline]
    pub(super) fn halves(row: &[u32; LANES], sh: u32, out: &mut [f32; LANES]) {
        let count = _mm_cvtsi32_si128(sh as i32);
        let mask = _mm256_set1_epi32(0xffff);
        for (src, dst) in row.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
            // SAFETY: `src` is eight u32s, 32 readable bytes (the load needs no alignment).
            let v = unsafe { _mm256_loadu_si256(src.as_ptr().cast()) };
            let v = _mm256_and_si256(_mm256_srl_epi32(v, count), mask);
            // The eight halves in lane order (each fits 16 bits, so nothing saturates).
            let h = _mm_packus_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            // SAFETY: `dst` is eight f32s, 32 writable bytes (the store needs no alignment).
            unsafe { _mm256_storeu_ps(dst.as_mut_ptr(), _mm256_cvtph_ps(h)) };
        }
    }
}

/// Element `s` of every lane (register lane `map[l]` for lane `l`, when given) of an input of
/// `bits`-bit elements (8, 16 or 32) in `rows`, converted by `f(raw)`.
#[inline(always)]
fn lanes<T>(rows: &[&[u32]; 4], bits: u32, s: usize, map: Option<&[u8; LANES]>, tmp: &mut [T; LANES], f: impl Fn(u32) -> T) {
    let per_word = (32 / bits.max(1)) as usize;
    let row = rows[(s / per_word) % 4];
    let sh = bits * (s % per_word) as u32;
    let mask = if bits >= 32 { u32::MAX } else { (1 << bits) - 1 };
    match map {
        None => tmp.iter_mut().zip(row).for_each(|(x, &wd)| *x = f(wd >> sh & mask)),
        Some(m) => tmp.iter_mut().zip(m).for_each(|(x, &l)| *x = f(row.get(l as usize).copied().unwrap_or(0) >> sh & mask)),
    }
}

/// Element `s` (a register pair) of every lane of an f64 input, times `sign`.
#[inline(always)]
fn lanes_f64(rows: &[&[u32]; 4], s: usize, map: Option<&[u8; LANES]>, sign: f64, tmp: &mut [f64; LANES]) {
    let (lo, hi) = (rows[(2 * s) % 4], rows[(2 * s + 1) % 4]);
    let m = map.unwrap_or(&IDENT);
    for (x, &l) in tmp.iter_mut().zip(m) {
        let (a, b) = (lo.get(l as usize).copied().unwrap_or(0), hi.get(l as usize).copied().unwrap_or(0));
        *x = sign * f64::from_bits(a as u64 | (b as u64) << 32);
    }
}

/// The geometry of an input: `outer` rows (M or N), `blocks`, `per_lane` k per lane, K = `k`.
#[derive(Clone, Copy)]
struct Geo {
    outer: usize,
    blocks: usize,
    per_lane: usize,
    k: usize,
}

/// An input into its [block][k][outer] tile. Element `s` of each lane's run of k is converted
/// for all 64 lanes at once (`conv(s, tmp)`); then each run of `outer` lanes, which holds
/// k = g·per_lane + s of one block for every outer index in order (lane groups go through
/// the blocks first, then the k groups: [`super::layout`]), is copied as one tile row.
#[inline(always)]
fn gather<T: Acc>(g: Geo, out: &mut [T], conv: impl FnMut(usize, &mut [T; LANES])) {
    // A compile-time run length makes each copy a few vector moves, not a library call.
    match g.outer {
        4 => gather_runs::<T, 4>(g, out, conv),
        16 => gather_runs::<T, 16>(g, out, conv),
        _ => gather_runs::<T, 32>(g, out, conv),
    }
}

#[inline(always)]
fn gather_runs<T: Acc, const O: usize>(g: Geo, out: &mut [T], mut conv: impl FnMut(usize, &mut [T; LANES])) {
    let mut tmp = [T::default(); LANES];
    let groups = LANES / (O * g.blocks).max(1);
    for s in 0..g.per_lane {
        conv(s, &mut tmp);
        let mut runs = tmp.chunks_exact(O);
        for grp in 0..groups {
            for b in 0..g.blocks {
                let at = (b * g.k + grp * g.per_lane + s) * O;
                if let (Some(run), Some(dst)) = (runs.next(), out.get_mut(at..at + O)) {
                    dst.copy_from_slice(run);
                }
            }
        }
    }
}

/// SMFMAC's A as its [k][row] tile: the kept values placed at their indexed k of each group
/// of four, zeros elsewhere.
#[inline(always)]
fn gather_sparse<T: Acc>(w: &Wave, m: &Mfma, out: &mut [T], mut conv: impl FnMut(usize, &mut [T; LANES])) {
    let (rows, k) = (m.shape.m as usize, m.shape.k as usize);
    let Some(out) = out.get_mut(..rows * k) else { return };
    out.fill(T::default());
    let mut konst = [0u32; LANES];
    let index = match m.idx {
        Some(Loc::Reg { base, acc }) => reg(w, base, acc, 0),
        Some(Loc::Const(v)) => {
            konst.fill(v as u32);
            &konst[..]
        }
        None => return,
    };
    let shift = m.idx_set * 2 * m.a_per_lane;
    let mut tmp = [T::default(); LANES];
    for s in 0..m.a_per_lane as usize {
        conv(s, &mut tmp);
        for ((&(r, k0), &set), &v) in m.sparse_at.iter().zip(index).zip(&tmp) {
            let kk = k0 as usize + 4 * (s / 2) + (set.checked_shr(shift).unwrap_or(0) >> (2 * s) & 3) as usize;
            if let Some(x) = out.get_mut(kk * rows + r as usize) {
                *x = x.add(v);
            }
        }
    }
}

/// Broadcast buffers for constant inputs.
struct Konst {
    a: [[u32; LANES]; 4],
    b: [[u32; LANES]; 4],
}

/// Both inputs into `t`; `conv(operand, rows, s, map, tmp)` converts element `s` of every lane
/// of operand 0 (A) or 1 (B).
#[inline(always)]
fn inputs<T: Acc>(w: &Wave, m: &Mfma, t: &mut Tiles<T>, kb: &mut Konst, conv: impl Fn(usize, &[&[u32]; 4], usize, Option<&[u8; LANES]>, &mut [T; LANES])) {
    let s = &m.shape;
    let bits = s.ty.bits();
    let wide = bits == 64;
    let words = |per: u32| (per * bits).div_ceil(32) as usize;
    let (k, blocks) = (s.k as usize, s.blocks as usize);
    let ra = sources(w, m.a, words(m.a_per_lane), wide, &mut kb.a);
    if s.sparse {
        gather_sparse(w, m, &mut t.a, |e, tmp| conv(0, &ra, e, None, tmp));
    } else {
        let g = Geo { outer: s.m as usize, blocks, per_lane: m.a_per_lane as usize, k };
        gather(g, &mut t.a, |e, tmp| conv(0, &ra, e, None, tmp));
    }
    let rb = sources(w, m.b, words(m.b_per_lane), wide, &mut kb.b);
    let map = (m.b_lane != IDENT).then_some(&m.b_lane);
    let g = Geo { outer: s.n as usize, blocks, per_lane: m.b_per_lane as usize, k };
    gather(g, &mut t.b, |e, tmp| conv(1, &rb, e, map, tmp));
}

/// The `N` lanes from `l0` of register `k` of the range at `base` in `file`; `None` when
/// they are not inside one register of the file.
#[inline(always)]
fn seg<const N: usize>(file: &[u32], base: u8, k: usize, l0: u8) -> Option<&[u32; N]> {
    let (r, l0) = ((base as usize + k) % VGPRS, l0 as usize);
    let at = r * MAX_LANES + l0;
    (l0 + N <= LANES).then(|| file.get(at..at + N)?.try_into().ok())?
}

#[inline(always)]
fn seg_mut<const N: usize>(file: &mut [u32], base: u8, k: usize, l0: u8) -> Option<&mut [u32; N]> {
    let (r, l0) = ((base as usize + k) % VGPRS, l0 as usize);
    let at = r * MAX_LANES + l0;
    (l0 + N <= LANES).then(|| file.get_mut(at..at + N)?.try_into().ok())?
}

/// C into the D tile, one register row segment (N lanes) per row of C; `conv(lo, hi)` makes
/// an element of the low and (f64) high dwords.
#[inline(always)]
pub(super) fn read_c<T: Acc>(w: &Wave, m: &Mfma, d: &mut [T], conv: impl Fn(u32, u32) -> T) {
    // A compile-time row length makes each row a few vector moves (as in `gather`).
    match m.shape.n {
        4 => read_c_n::<T, 4>(w, m, d, conv),
        16 => read_c_n::<T, 16>(w, m, d, conv),
        _ => read_c_n::<T, 32>(w, m, d, conv),
    }
}

#[inline(always)]
fn read_c_n<T: Acc, const N: usize>(w: &Wave, m: &Mfma, d: &mut [T], conv: impl Fn(u32, u32) -> T) {
    let wide = m.shape.ty.out_bits() == 64;
    let rows = m.rows.iter().zip(d.chunks_exact_mut(N));
    let (base, file) = match m.c {
        Loc::Const(v) => {
            let x = conv(v as u32, (v >> 32) as u32);
            rows.for_each(|(_, row)| row.fill(x));
            return;
        }
        Loc::Reg { base, acc: true } => (base, &w.agpr[..]),
        Loc::Reg { base, acc: false } => (base, &w.vgpr[..]),
    };
    let zeros = [0u32; N];
    for (&(u, l0), row) in rows {
        let u = u as usize;
        let lo = seg::<N>(file, base, if wide { 2 * u } else { u }, l0).unwrap_or(&zeros);
        let hi = if wide { seg::<N>(file, base, 2 * u + 1, l0).unwrap_or(&zeros) } else { &zeros };
        // Converted into a local row first: the compiler cannot tell the register file and
        // the tile apart, but a local aliases neither, so both loops become vector moves.
        let mut x = [T::default(); N];
        for ((x, &l), &h) in x.iter_mut().zip(lo).zip(hi) {
            *x = conv(l, h);
        }
        row.copy_from_slice(&x);
    }
}

/// The D tile into the registers, one row segment at a time; `bits(x)` gives (low, high) dwords.
#[inline(always)]
pub(super) fn write_d<T: Acc>(w: &mut Wave, m: &Mfma, d: &[T], bits: impl Fn(T) -> (u32, u32)) {
    match m.shape.n {
        4 => write_d_n::<T, 4>(w, m, d, bits),
        16 => write_d_n::<T, 16>(w, m, d, bits),
        _ => write_d_n::<T, 32>(w, m, d, bits),
    }
}

#[inline(always)]
fn write_d_n<T: Acc, const N: usize>(w: &mut Wave, m: &Mfma, d: &[T], bits: impl Fn(T) -> (u32, u32)) {
    let wide = m.shape.ty.out_bits() == 64;
    let Loc::Reg { base, acc } = m.d else { return };
    let file = if acc {
        if w.agpr.is_empty() {
            w.agpr = vec![0; VGPRS * MAX_LANES];
        }
        &mut w.agpr
    } else {
        &mut w.vgpr
    };
    for (&(u, l0), row) in m.rows.iter().zip(d.chunks_exact(N)) {
        let u = u as usize;
        // Through local rows, for the reason given in `read_c_n`.
        let (mut lo, mut hi) = ([0u32; N], [0u32; N]);
        for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(row) {
            (*l, *h) = bits(v);
        }
        if let Some(dst) = seg_mut::<N>(file, base, if wide { 2 * u } else { u }, l0) {
            *dst = lo;
        }
        if wide {
            if let Some(dst) = seg_mut::<N>(file, base, 2 * u + 1, l0) {
                *dst = hi;
            }
        }
    }
}

/// Every block's rows of D (holding C on entry) += A·B, A as [block][k][row] and B as
/// [block][k][column]: `R` rows of `N` columns at a time ([`mac_group`]).
#[inline(always)]
fn rows_n<T: Acc, const N: usize, const R: usize>(t: &mut Tiles<T>, m: &Mfma) {
    let s = &m.shape;
    let (rows, k) = (s.m as usize, s.k as usize);
    for (b, dblock) in t.d.chunks_exact_mut(rows * N).take(s.blocks as usize).enumerate() {
        let ab = m.a_block[b] as usize;
        let (Some(bm), Some(am)) = (t.b.get(b * k * N..(b + 1) * k * N), t.a.get(ab * k * rows..(ab + 1) * k * rows)) else { return };
        for (g, dgroup) in dblock.chunks_exact_mut(R * N).enumerate() {
            let mut acc = [[T::default(); N]; R];
            for (x, d) in acc.iter_mut().zip(dgroup.chunks_exact(N)) {
                x.copy_from_slice(d);
            }
            if !mac_group(&mut acc, bm, am, rows, g) {
                return;
            }
            for (x, d) in acc.iter().zip(dgroup.chunks_exact_mut(N)) {
                d.copy_from_slice(x);
            }
        }
    }
}

/// Row group `g` (`R` rows of `N` columns, held in `acc`) += A·B of one block, A (`am`) as
/// [k][row] with `rows` rows and B (`bm`) as [k][column]: R·N independent accumulators hide
/// the multiply-add latency and each B row is loaded once per group, with no branches or
/// bounds checks in the loop, two k per iteration (in ascending k, as one at a time). False
/// when the tiles are too short (never, for a classified shape).
#[inline(always)]
// No iterator adaptors such as `zip`, which the compiler does not always inline into the
// large instruction function (the accumulators then live in memory); the bounds checks are
// loop-invariant, so they leave the loop.
pub(super) fn mac_group<T: Acc, const N: usize, const R: usize>(acc: &mut [[T; N]; R], bm: &[T], am: &[T], rows: usize, g: usize) -> bool {
    let rows = rows.max(1);
    let (bpairs, mut apairs) = (bm.chunks_exact(2 * N), am.chunks_exact(2 * rows));
    let (blast, alast) = (bpairs.remainder(), apairs.remainder());
    for b2 in bpairs {
        let Some(a2) = apairs.next() else { return true };
        let ((b0, b1), (a0, a1)) = (b2.split_at(N), a2.split_at(rows));
        let (Ok(b0), Ok(b1), Some(a0), Some(a1)) = (<&[T; N]>::try_from(b0), <&[T; N]>::try_from(b1), group::<T, R>(a0, g), group::<T, R>(a1, g)) else {
            return false;
        };
        mac_k(acc, b0, a0);
        mac_k(acc, b1, a1);
    }
    // An odd K: the last k (a lone B row and A column, when both tiles hold it).
    if let (Ok(b0), Some(a0)) = (<&[T; N]>::try_from(blast), group::<T, R>(alast, g)) {
        mac_k(acc, b0, a0);
    }
    true
}

/// Rows `g·R..g·R + R` of a column of A.
#[inline(always)]
fn group<T, const R: usize>(acol: &[T], g: usize) -> Option<&[T; R]> {
    acol.get(g * R..g * R + R)?.try_into().ok()
}

/// One k of a row group: `acc[r][j] += av[r] · brow[j]`.
#[inline(always)]
#[allow(clippy::needless_range_loop)]
fn mac_k<T: Acc, const N: usize, const R: usize>(acc: &mut [[T; N]; R], brow: &[T; N], av: &[T; R]) {
    for r in 0..R {
        for j in 0..N {
            acc[r][j] = acc[r][j].mac(av[r], brow[j]);
        }
    }
}

/// Row groups of 64 accumulators (eight 8-wide f32 vectors).
#[inline(always)]
pub(super) fn kernel<T: Acc>(t: &mut Tiles<T>, m: &Mfma) {
    match m.shape.n {
        4 => rows_n::<T, 4, 4>(t, m),
        16 => rows_n::<T, 16, 4>(t, m),
        _ => rows_n::<T, 32, 2>(t, m),
    }
}

/// D = A·B + C for 32-bit results, the inputs already in `t`: straight between the register
/// files when C and D allow it ([`super::direct`]), else through the D tile. Row groups as
/// in [`kernel`].
#[inline(always)]
pub(super) fn product<T: Acc32>(w: &mut Wave, m: &Mfma, t: &mut Tiles<T>) {
    if !m.direct {
        read_c(w, m, &mut t.d, |lo, _| T::from_u32(lo));
        kernel(t, m);
        return write_d(w, m, &t.d, |v| (v.to_u32(), 0));
    }
    match m.shape.n {
        4 => direct::product::<T, 4, 4>(t, m, w),
        16 => direct::product::<T, 16, 4>(t, m, w),
        _ => direct::product::<T, 32, 2>(t, m, w),
    }
}

/// Execute `m` on the wave (all 64 lanes; see the parent module on EXEC).
pub fn run(m: &Mfma, w: &mut Wave) {
    WORK.with(|cell| match cell.try_borrow_mut() {
        Ok(mut x) => dispatch(m, w, &mut x),
        // Re-entered (cannot happen: nothing executes instructions from here); a fresh set.
        Err(_) => dispatch(m, w, &mut Work::new()),
    })
}

fn dispatch(m: &Mfma, w: &mut Wave, x: &mut Work) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("f16c") {
        // SAFETY: the host CPU has the features `step_avx2` is compiled for (checked above).
        return unsafe { step_avx2(m, w, x) };
    }
    step::<false>(m, w, x)
}

/// [`step`] compiled for AVX2, FMA and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c")]
fn step_avx2(m: &Mfma, w: &mut Wave, x: &mut Work) {
    step::<true>(m, w, x)
}

/// One instruction; `F16C`: the host has F16C (and AVX2) and the caller is compiled for them.
#[inline(always)]
fn step<const F16C: bool>(m: &Mfma, w: &mut Wave, x: &mut Work) {
    if let Some(wd) = &m.wide {
        return super::wide::step(wd, m, w, x);
    }
    let ty = m.shape.ty;
    let kb = &mut x.konst;
    match ty {
        In::F64 => {
            let sign = |neg: bool| if neg { -1.0 } else { 1.0 };
            let (sa, sb, sc) = (sign(m.neg[0]), sign(m.neg[1]), sign(m.neg[2]));
            let t = &mut x.g;
            inputs(w, m, t, kb, |op, rows, e, map, tmp| lanes_f64(rows, e, map, if op == 0 { sa } else { sb }, tmp));
            read_c(w, m, &mut t.d, |lo, hi| sc * f64::from_bits(lo as u64 | (hi as u64) << 32));
            kernel(t, m);
            write_d(w, m, &t.d, |v| (v.to_bits() as u32, (v.to_bits() >> 32) as u32));
        }
        In::I8 => {
            let t = &mut x.i;
            inputs(w, m, t, kb, |_, rows, e, map, tmp| lanes(rows, 8, e, map, tmp, |v| v as u8 as i8 as i32));
            product(w, m, t);
        }
        _ => {
            let t = &mut x.f;
            match (ty, &m.f8) {
                (In::F16, _) => inputs(w, m, t, kb, |_, rows, e, map, tmp| halves::<F16C>(rows, e, map, tmp)),
                (In::Bf16, _) => inputs(w, m, t, kb, |_, rows, e, map, tmp| lanes(rows, 16, e, map, tmp, |v| f32::from_bits(v << 16))),
                (In::Xf32, _) => inputs(w, m, t, kb, |_, rows, e, map, tmp| lanes(rows, 32, e, map, tmp, xf32)),
                (In::F8 { .. }, Some(lut)) => inputs(w, m, t, kb, |op, rows, e, map, tmp| lanes(rows, 8, e, map, tmp, |v| lut[op % 2][v as usize & 0xff])),
                _ => inputs(w, m, t, kb, |_, rows, e, map, tmp| lanes(rows, 32, e, map, tmp, f32::from_bits)),
            }
            product(w, m, t);
        }
    }
}
