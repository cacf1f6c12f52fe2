//! The direct path of the commonest plain 32-bit operations (and the 64-bit address arithmetic
//! V_LSHL_ADD_U64, V_LSHLREV_B64 and V_MAD_U64_U32 that compiled kernels do per access): sources read
//! in place from the VGPR rows (a scalar or constant broadcast once), every lane computed in
//! one branch-free loop over whole 64-lane rows, results blended into the destination row
//! under the write mask. It skips the general path's working set ([`super::lanes`]): no
//! widening to 64 bits, no modifier passes, no float post-processing.
//!
//! Only operations whose general-path result is the plain per-lane expression take it (chosen
//! once, when the instruction is built, [`eligible`]): VGPR, scalar or constant sources without
//! op_sel, SDWA or DPP (abs/neg only on f32 sources, applied to a copy of the row); a 32-bit
//! (64-bit for the 64-bit forms) VGPR destination; no clamp or output modifier. Float operations
//! also need MODE to keep f32 denormals on input and output (no flushing), checked per
//! instruction; otherwise, and for a register row past the wave's file, the general path runs.
//! Each expression is the general kernel's (same helpers for floats), so results are
//! bit-identical; [`super::fast_fp`] holds the f32 operations beyond add/mul/fma/max and the
//! packed pairs, and the unit test `fast_diff` runs every taken opcode on both paths.

use super::dst::{write_mask, Cout, Dst, Form, MaskDst};
use super::fast_fp;
use super::fp::{self, Ctl};
use super::src::{Loc, Src};
use super::{Alu, Cin};
use crate::exec::operand::{s32, s64};
use crate::exec::Env;
use crate::wave::{Wave, MAX_LANES};

pub(super) type Row = [u32; MAX_LANES];

/// An operation the direct path computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    Mov,
    Add,
    Sub,
    And,
    Or,
    Xor,
    LshlRev,
    LshrRev,
    AshrRev,
    MulLo,
    Add3,
    LshlAdd,
    Bfe,
    /// V_CNDMASK_B32: S1 where the mask bit is set, else S0.
    Cndmask,
    /// 32-bit integer compare, condition as `cmp::int` numbers it (0 F .. 7 T).
    Cmp {
        cond: u8,
        signed: bool,
    },
    AddF32,
    MulF32,
    FmaF32,
    MaxF32,
    /// V_LSHL_ADD_U64: 64-bit sources 0 and 2, 64-bit result.
    LshlAddU64,
    /// V_LSHLREV_B64: 64-bit source 1 shifted left by source 0, 64-bit result.
    LshlRevB64,
    /// V_MAD_U64_U32: 32-bit sources 0 and 1 multiplied, 64-bit source 2 added, 64-bit result
    /// and a carry-out lane mask (to the instruction's SGPR destination).
    MadU64U32,
    /// The f32 operations of [`super::fast_fp`]: arithmetic beyond the plain four, the
    /// division macro's steps, compares and the packed pairs.
    Fp(Fp),
}

/// A float operation of [`super::fast_fp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fp {
    Sub,
    /// V_SQRT/V_RCP/V_RSQ_F32: denormals flushed on input and output whatever MODE says.
    Sqrt,
    Rcp,
    Rsq,
    /// V_DIV_SCALE_F32: the value and a lane mask (to the instruction's SGPR destination).
    DivScale,
    /// V_DIV_FMAS_F32: VCC selects the post-scale per lane.
    DivFmas,
    DivFixup,
    /// f32 compare, condition as `cmp::float` numbers it (0 F .. 15 TRU).
    Cmp(u8),
    /// V_CMP_CLASS_F32: S1 holds the class mask.
    Class,
    /// V_PK_ADD/MUL/FMA_F32: two f32 elements per lane in a register pair.
    PkAdd,
    PkMul,
    PkFma,
}

impl Fast {
    fn float(self) -> bool {
        matches!(self, Fast::AddF32 | Fast::MulF32 | Fast::FmaF32 | Fast::MaxF32 | Fast::Fp(_))
    }
    /// Whether source `i` is 64 bits wide (read as a register pair or a 64-bit scalar).
    fn wide_src(self, i: usize) -> bool {
        match self {
            Fast::LshlAddU64 => i != 1,
            Fast::LshlRevB64 => i == 1,
            Fast::MadU64U32 => i == 2,
            _ => false,
        }
    }
    /// A 64-bit VGPR result (a register pair).
    fn wide_dst(self) -> bool {
        matches!(self, Fast::LshlAddU64 | Fast::LshlRevB64 | Fast::MadU64U32)
    }
    /// A result that is a lane mask only (no VGPR destination).
    fn mask_only(self) -> bool {
        matches!(self, Fast::Cmp { .. } | Fast::Fp(Fp::Cmp(_) | Fp::Class))
    }
}

/// A source the direct path reads: a VGPR (not an AGPR), scalar or constant of `bits` bits,
/// no selection or DPP; sign modifiers only on the f32 operations (`float`).
fn plain(s: &Src, bits: u32, float: bool) -> bool {
    let loc = match s.loc {
        Loc::V { acc, .. } => !acc,
        Loc::S(_) | Loc::K(_) | Loc::None => true,
    };
    let mods = !(s.neg || s.abs) || (float && s.ty.float_elem() == Some(32));
    loc && !s.hi && s.sdwa.is_none() && mods && !s.dpp && (s.loc == Loc::None || s.ty.bits() == bits)
}

/// Whether the built operation `a` may take the direct path for `f`.
pub fn eligible(f: Fast, a: &Alu) -> bool {
    if let Fast::Fp(p) = f {
        if fast_fp::packed(p) {
            return fast_fp::packed_eligible(a);
        }
    }
    let bits = |i: usize| if f.wide_src(i) { 64 } else { 32 };
    let srcs = a.src.iter().enumerate().all(|(i, s)| plain(s, bits(i), f.float()));
    let form = if f.wide_dst() { Form::B64 } else { Form::B32 };
    let dst = match (f.mask_only(), a.dst) {
        (true, Dst::None) => true,
        (true, _) => false,
        (false, Dst::V { acc, form: fm, .. }) => !acc && fm == form,
        _ => false,
    };
    let masks = match f {
        Fast::Cmp { .. } | Fast::Fp(Fp::Cmp(_) | Fp::Class) | Fast::Fp(Fp::DivScale) => a.cin == Cin::None,
        Fast::Cndmask | Fast::Fp(Fp::DivFmas) => a.cin != Cin::None && a.cout == Cout::NONE,
        // Its carry-out goes where the general path's `commit` puts it.
        Fast::MadU64U32 => a.cin == Cin::None && !a.cout.exec,
        _ => a.cin == Cin::None && a.cout == Cout::NONE,
    };
    srcs && dst && masks && a.dpp.is_none() && a.omod == 0 && !a.clamp
}

/// A source's wave-uniform value (scalar or constant; `wide`: the low half of a 64-bit
/// value, `high`: the high half), `None` for a VGPR.
#[inline(always)]
pub(super) fn uniform(w: &Wave, env: &Env, s: &Src, wide: bool, high: bool) -> Option<u32> {
    let v = match s.loc {
        Loc::V { .. } => return None,
        Loc::S(op) if wide => s64(w, env, op),
        Loc::S(op) => s32(w, env, op) as u64,
        Loc::K(v) => v,
        Loc::None => 0,
    };
    Some(if high { (v >> 32) as u32 } else { v as u32 })
}

/// Source `s` as a whole row: its VGPR row (`high`: the next one) read in place, or its
/// uniform value ([`uniform`] with `wide`, `high`) broadcast into `splat`, which is written
/// only then (a broadcast built before the test was three rows of stores on every
/// instruction). `None` for a row past the wave's register file.
#[inline(always)]
pub(super) fn row<'w>(w: &'w Wave, env: &Env, s: &Src, wide: bool, high: bool, splat: &'w mut Option<Row>) -> Option<&'w Row> {
    match s.loc {
        Loc::V { reg, .. } => vrow(w, (reg as usize + high as usize) % 256),
        _ => Some(splat.insert([uniform(w, env, s, wide, high)?; MAX_LANES])),
    }
}

#[inline(always)]
pub(super) fn vrow(w: &Wave, r: usize) -> Option<&Row> {
    w.vgpr.get(r * MAX_LANES..(r + 1) * MAX_LANES).and_then(|x| x.try_into().ok())
}

/// `out[l] = f(a[l], b[l], c[l])` over every lane (inactive ones too: the kernels are pure).
#[inline(always)]
pub(super) fn map(out: &mut Row, [a, b, c]: [&Row; 3], f: impl Fn(u32, u32, u32) -> u32) {
    for l in 0..MAX_LANES {
        out[l] = f(a[l], b[l], c[l]);
    }
}

/// A float operation over every lane: its bits where the result is a number; if any lane's
/// is NaN, every lane again through `fp::nan32` (the NaN an input carries, quieted), as the
/// general kernels compute it. The first pass has no branch, so it vectorises.
#[inline(always)]
pub(super) fn fmap(out: &mut Row, [a, b, c]: [&Row; 3], f: impl Fn(f32, f32, f32) -> f32) {
    let g = |x: u32| f32::from_bits(x);
    let mut nan = false;
    for l in 0..MAX_LANES {
        let r = f(g(a[l]), g(b[l]), g(c[l]));
        nan |= r.is_nan();
        out[l] = r.to_bits();
    }
    if nan {
        for l in 0..MAX_LANES {
            let r = f(g(a[l]), g(b[l]), g(c[l]));
            out[l] = fp::nan32(r, &[a[l] as u64, b[l] as u64, c[l] as u64]) as u32;
        }
    }
}

/// Bit `l` set where `f(a[l], b[l])`: one byte per lane, then eight lanes packed at a time
/// (a multiply gathers the low bits of eight bytes into the top byte).
#[inline(always)]
pub(super) fn test(a: &Row, b: &Row, f: impl Fn(u32, u32) -> bool) -> u64 {
    let mut bits = [0u8; MAX_LANES];
    for l in 0..MAX_LANES {
        bits[l] = f(a[l], b[l]) as u8;
    }
    pack(&bits)
}

/// Bit `l` set where byte `l` of `bits` (each 0 or 1) is 1.
#[inline(always)]
fn pack(bits: &[u8; MAX_LANES]) -> u64 {
    let mut m = 0u64;
    for (j, c) in bits.chunks_exact(8).enumerate() {
        let x = c.iter().enumerate().fold(0u64, |x, (i, &v)| x | (v as u64) << (8 * i));
        m |= (x.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * j);
    }
    m
}

/// Every lane's bit of `m` as an all-ones or all-zeros word: each half of the mask broadcast
/// and shifted by the lane's constant position, so the loops vectorise into whole-register
/// shifts and the row is written with full-width stores (a row assembled from narrower
/// pieces stalls the loads that read it back).
#[inline(always)]
pub(super) fn lane_masks(m: u64) -> Row {
    let mut out = [0u32; MAX_LANES];
    let (lo, hi) = out.split_at_mut(MAX_LANES / 2);
    let half = |h: &mut [u32], bits: u32| {
        for (l, o) in h.iter_mut().enumerate() {
            *o = 0u32.wrapping_sub((bits >> l) & 1);
        }
    };
    half(lo, m as u32);
    half(hi, (m >> 32) as u32);
    out
}

#[inline(always)]
fn compare(cond: u8, signed: bool, a: &Row, b: &Row) -> u64 {
    let i = |x: u32| x as i32;
    match (cond & 7, signed) {
        (0, _) => 0,
        (1, false) => test(a, b, |x, y| x < y),
        (2, _) => test(a, b, |x, y| x == y),
        (3, false) => test(a, b, |x, y| x <= y),
        (4, false) => test(a, b, |x, y| x > y),
        (5, _) => test(a, b, |x, y| x != y),
        (6, false) => test(a, b, |x, y| x >= y),
        (1, true) => test(a, b, |x, y| i(x) < i(y)),
        (3, true) => test(a, b, |x, y| i(x) <= i(y)),
        (4, true) => test(a, b, |x, y| i(x) > i(y)),
        (6, true) => test(a, b, |x, y| i(x) >= i(y)),
        _ => !0,
    }
}

/// Every lane's 32-bit result of `f` (not the compares, the select or the 64-bit form).
#[inline(always)]
fn compute(f: Fast, s: [&Row; 3], k: &Ctl, out: &mut Row) {
    match f {
        Fast::Mov => map(out, s, |a, _, _| a),
        Fast::Add => map(out, s, |a, b, _| a.wrapping_add(b)),
        Fast::Sub => map(out, s, |a, b, _| a.wrapping_sub(b)),
        Fast::And => map(out, s, |a, b, _| a & b),
        Fast::Or => map(out, s, |a, b, _| a | b),
        Fast::Xor => map(out, s, |a, b, _| a ^ b),
        Fast::LshlRev => map(out, s, |a, b, _| b << (a & 31)),
        Fast::LshrRev => map(out, s, |a, b, _| b >> (a & 31)),
        Fast::AshrRev => map(out, s, |a, b, _| ((b as i32) >> (a & 31)) as u32),
        Fast::MulLo => map(out, s, |a, b, _| a.wrapping_mul(b)),
        Fast::Add3 => map(out, s, |a, b, c| a.wrapping_add(b).wrapping_add(c)),
        Fast::LshlAdd => map(out, s, |a, b, c| (a << (b & 31)).wrapping_add(c)),
        Fast::Bfe => map(out, s, |a, b, c| (a >> (b & 31)) & (1u32 << (c & 31)).wrapping_sub(1)),
        Fast::AddF32 => fmap(out, s, |a, b, _| a + b),
        Fast::MulF32 => fmap(out, s, |a, b, _| a * b),
        Fast::FmaF32 => fmap(out, s, |a, b, c| a.mul_add(b, c)),
        Fast::MaxF32 => map(out, s, |a, b, _| fp::max32(a as u64, b as u64, k.ieee) as u32),
        Fast::Cndmask | Fast::Cmp { .. } | Fast::LshlAddU64 | Fast::LshlRevB64 | Fast::MadU64U32 | Fast::Fp(_) => {}
    }
}

/// `dst[l] = v[l]` for the lanes of `mask` (a select per lane, no branches).
#[inline(always)]
pub(super) fn blend(dst: &mut [u32], v: &Row, mask: u64) {
    if mask == u64::MAX {
        // A fixed-size copy, inlined as full-width moves: the library copy a slice copy
        // becomes writes the row in 16-byte pieces, and the next instruction's 32-byte loads
        // of it cannot be forwarded from those stores.
        if let Ok(d) = <&mut Row>::try_from(&mut *dst) {
            *d = *v;
            return;
        }
    }
    let keep = lane_masks(mask);
    for ((d, &x), &k) in dst.iter_mut().zip(v).zip(&keep) {
        *d = (x & k) | (*d & !k);
    }
}

#[inline(always)]
pub(super) fn dst_row(w: &mut Wave, reg: usize) -> Option<&mut [u32]> {
    w.vgpr.get_mut(reg * MAX_LANES..(reg + 1) * MAX_LANES)
}

/// Run `a` (whose [`Alu::fast`] is `f`) on the direct path; false (nothing done) when it must
/// take the general one.
#[inline]
pub fn run(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the host CPU has the features `run_avx2` is compiled for (checked above).
        return unsafe { run_avx2(f, a, w, env) };
    }
    run_portable(f, a, w, env)
}

/// [`run_on`] for hosts without AVX2 and FMA, out of line: inlined into [`run`], its large
/// frame was set up on every call, the AVX2 ones too.
#[inline(never)]
fn run_portable(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    run_on(f, a, w, env)
}

/// [`run_on`] compiled for AVX2 and FMA: wider lane loops, and `mul_add` as one instruction
/// (the same fused result the portable build gets from a library call).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    run_on(f, a, w, env)
}

/// [`run`] without the host feature test: inlined into each caller's build (the functional
/// engine's straight runs compile it for AVX2 around their loop).
#[inline(always)]
pub(crate) fn run_on(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    let k = Ctl::from_mode(w.mode, false);
    if f.float() && !(k.den32_in && k.den32_out) {
        return false;
    }
    if let Fast::Fp(p) = f {
        return fast_fp::run(p, a, w, env);
    }
    let exec = w.exec();
    let wide = f == Fast::LshlAddU64;
    let (mut k0, mut k1, mut k2) = (None, None, None);
    let (Some(s0), Some(s1), Some(s2)) =
        (row(w, env, &a.src[0], wide, false, &mut k0), row(w, env, &a.src[1], false, false, &mut k1), row(w, env, &a.src[2], wide, false, &mut k2))
    else {
        return false;
    };
    let Dst::V { reg, .. } = a.dst else {
        // A compare: the lane mask goes where the general path's `commit` puts it.
        let Fast::Cmp { cond, signed } = f else { return false };
        let bits = compare(cond, signed, s0, s1) & exec;
        commit_mask(w, a.cout, bits);
        return true;
    };
    let reg = reg as usize;
    let mut out = [0u32; MAX_LANES];
    match f {
        // Their rows are read again, 64-bit wide, out of line.
        Fast::LshlRevB64 | Fast::MadU64U32 => return run_wide(f, a, w, env),
        Fast::Cndmask => {
            let m = cin(w, env, a.cin);
            // A select the same in every written lane is a copy of one source (a compare
            // that no lane passes is the common case): no per-lane masks to build.
            if m & exec == 0 || m & exec == exec {
                let src = if m & exec == 0 { *s0 } else { *s1 };
                let Some(d) = dst_row(w, reg) else { return false };
                blend(d, &src, exec);
                return true;
            }
            let sel = lane_masks(m);
            for l in 0..MAX_LANES {
                out[l] = (s1[l] & sel[l]) | (s0[l] & !sel[l]);
            }
        }
        Fast::LshlAddU64 => {
            let (mut k0, mut k2) = (None, None);
            let (Some(h0), Some(h2)) = (row(w, env, &a.src[0], true, true, &mut k0), row(w, env, &a.src[2], true, true, &mut k2)) else { return false };
            let hi = lshl_add_u64([s0, s1, s2], [h0, h2], &mut out);
            return store_pair(w, reg, &out, &hi, exec);
        }
        _ => {
            // abs/neg on the f32 operations: applied to copies, as the general gather does.
            fast_fp::signed_rows!(s = a, [s0, s1, s2]; c0, c1, c2);
            compute(f, s, &k, &mut out)
        }
    }
    let Some(d) = dst_row(w, reg) else { return false };
    blend(d, &out, exec);
    true
}

#[inline(always)]
pub(super) fn cin(w: &Wave, env: &Env, c: Cin) -> u64 {
    (match c {
        Cin::None => 0,
        Cin::Vcc => w.vcc(),
        Cin::Reg(op) if w.wave64 => s64(w, env, op),
        Cin::Reg(op) => s32(w, env, op) as u64,
    }) & w.lane_mask()
}

#[inline(always)]
pub(super) fn commit_mask(w: &mut Wave, c: Cout, bits: u64) {
    if c.to != MaskDst::None || c.exec {
        write_mask(w, c.to, bits);
        if c.exec {
            w.set_exec(bits);
        }
    }
}

/// V_LSHL_ADD_U64: `(S0.u64 << (S1 & 7, counts above 4 acting as 0)) + S2.u64`, as the
/// general kernel computes it, from the sources' low rows `lo` and sources 0 and 2's high rows
/// `hi`; the low halves into `out`, the high halves returned. Computed on 32-bit halves (the
/// shifted value's high half takes the bits shifted out of the low one, the sum's high half the
/// low half's carry), so that the loop vectorises as eight lanes a register without widening;
/// the unit test `lshl_add_u64_on_halves_is_the_64_bit_sum` compares it with the 64-bit form.
#[inline(always)]
fn lshl_add_u64(lo: [&Row; 3], hi: [&Row; 2], out: &mut Row) -> Row {
    let mut out_hi = [0u32; MAX_LANES];
    for l in 0..MAX_LANES {
        let s = lo[1][l] & 7;
        let s = if s > 4 { 0 } else { s };
        let (xl, xh, zl, zh) = (lo[0][l], hi[0][l], lo[2][l], hi[1][l]);
        // `>> (31 - s) >> 1`: the top `s` bits of the low half, none when `s` is 0.
        let (sl, sh) = (xl << s, xh << s | xl >> (31 - s) >> 1);
        let r = sl.wrapping_add(zl);
        out[l] = r;
        out_hi[l] = sh.wrapping_add(zh).wrapping_add((r < zl) as u32);
    }
    out_hi
}

/// V_LSHLREV_B64 and V_MAD_U64_U32 (a compiled kernel's address arithmetic, once or twice per
/// wave): out of line, so that the lane loops of the 32-bit operations, which straight runs
/// inline into one loop, keep their registers (inlined, these cost fir's other operations 6 %
/// more host instructions; out of line 3 %), and compiled for AVX2 where the host has it
/// (without, the out-of-line loops took 870 host instructions an instruction, with it 510).
#[inline(never)]
fn run_wide(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the host CPU has the feature `run_wide_avx2` is compiled for (checked above).
        return unsafe { run_wide_avx2(f, a, w, env) };
    }
    run_wide_on(f, a, w, env)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn run_wide_avx2(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    run_wide_on(f, a, w, env)
}

#[inline(always)]
fn run_wide_on(f: Fast, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    let exec = w.exec();
    let wide = |i: usize| f.wide_src(i);
    let (mut k0, mut k1, mut k2) = (None, None, None);
    let (Some(s0), Some(s1), Some(s2)) =
        (row(w, env, &a.src[0], wide(0), false, &mut k0), row(w, env, &a.src[1], wide(1), false, &mut k1), row(w, env, &a.src[2], wide(2), false, &mut k2))
    else {
        return false;
    };
    let Dst::V { reg, .. } = a.dst else { return false };
    let reg = reg as usize;
    let mut out = [0u32; MAX_LANES];
    // The high rows of the 64-bit source: source 1 for the shift, source 2 for the sum.
    let (mut kh, hsrc) = (None, if f == Fast::LshlRevB64 { 1 } else { 2 });
    let Some(h) = row(w, env, &a.src[hsrc], true, true, &mut kh) else { return false };
    if f == Fast::LshlRevB64 {
        let mut hi = [0u32; MAX_LANES];
        for l in 0..MAX_LANES {
            let r = (s1[l] as u64 | (h[l] as u64) << 32) << (s0[l] & 63);
            out[l] = r as u32;
            hi[l] = (r >> 32) as u32;
        }
        return store_pair(w, reg, &out, &hi, exec);
    }
    let (hi, carry) = mad_u64_u32([s0, s1, s2], h, &mut out);
    if !store_pair(w, reg, &out, &hi, exec) {
        return false;
    }
    commit_mask(w, a.cout, carry & exec);
    true
}

/// V_MAD_U64_U32 as the general kernel computes it without clamp: `S0.u32 * S1.u32 + S2.u64`
/// from the sources' low rows `lo` and source 2's high row `hi2`; the low halves into `out`,
/// the high halves and the lanes whose sum carried out of 64 bits returned.
#[inline(always)]
fn mad_u64_u32(lo: [&Row; 3], hi2: &Row, out: &mut Row) -> (Row, u64) {
    let mut out_hi = [0u32; MAX_LANES];
    let mut carry = [0u8; MAX_LANES];
    for l in 0..MAX_LANES {
        let (r, co) = (lo[0][l] as u64 * lo[1][l] as u64).overflowing_add(lo[2][l] as u64 | (hi2[l] as u64) << 32);
        out[l] = r as u32;
        out_hi[l] = (r >> 32) as u32;
        carry[l] = co as u8;
    }
    (out_hi, pack(&carry))
}

/// A 64-bit result into the pair `reg`, `reg + 1`; false (nothing written) when the pair is
/// not both in the wave's register file.
#[inline(always)]
pub(super) fn store_pair(w: &mut Wave, reg: usize, lo: &Row, hi: &Row, exec: u64) -> bool {
    if w.vgpr.len() < (reg + 2) * MAX_LANES {
        return false;
    }
    let Some(d) = dst_row(w, reg) else { return false };
    blend(d, lo, exec);
    let Some(d) = dst_row(w, reg + 1) else { return false };
    blend(d, hi, exec);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    /// Seeded rows of random bits, edge values (0, all ones, the top bit) and every shift
    /// count 0..=255 against `(x << (s & 7, above 4 as 0)) + z` on 64-bit values.
    #[test]
    fn lshl_add_u64_on_halves_is_the_64_bit_sum() {
        let edges = [0u32, 1, !0, 1 << 31, 0x7fff_ffff, 0xf000_0000];
        for seed in 0..64u64 {
            let mut rng = StdRng::seed_from_u64(seed);
            let mut pick = || if rng.random::<u8>() < 64 { edges[rng.random_range(0..edges.len())] } else { rng.random() };
            let rows: [Row; 5] = std::array::from_fn(|_| std::array::from_fn(|_| pick()));
            let mut shifts = rows[4];
            for (l, s) in shifts.iter_mut().enumerate() {
                *s = (seed as u32 * MAX_LANES as u32 + l as u32) % 256;
            }
            let (mut out, [xl, xh, zl, zh, _]) = ([0u32; MAX_LANES], &rows);
            let out_hi = lshl_add_u64([xl, &shifts, zl], [xh, zh], &mut out);
            for l in 0..MAX_LANES {
                let (x, z) = (xl[l] as u64 | (xh[l] as u64) << 32, zl[l] as u64 | (zh[l] as u64) << 32);
                let s = shifts[l] & 7;
                let want = (x << if s > 4 { 0 } else { s }).wrapping_add(z);
                assert_eq!(out[l] as u64 | (out_hi[l] as u64) << 32, want, "seed {seed} lane {l}: {x:#x} << {} + {z:#x}", shifts[l]);
            }
        }
    }
}
