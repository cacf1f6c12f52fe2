//! The direct path's f32 operations beyond V_ADD/MUL/FMA/MAX_F32 ([`super::fast`]): V_SUB_F32,
//! V_SQRT/RCP/RSQ_F32, the division macro's V_DIV_SCALE/FMAS/FIXUP_F32, the f32 compares and
//! V_CMP_CLASS_F32, and V_PK_ADD/MUL/FMA_F32. Sources may carry abs/neg (packed: neg_lo/neg_hi
//! and op_sel/op_sel_hi), applied to a copy of the row before the operation as the general
//! path's gather applies them; every lane's expression is the general kernel's, through the
//! same helpers ([`super::float`], [`super::fp`]), so results are bit-identical. The caller
//! has checked that MODE keeps f32 denormals on input and output (then the general path
//! flushes nothing but what V_SQRT/RCP/RSQ always flush).

// NaN-aware spellings are deliberate, as in `cmp`: `!(x >= y)` is not `x < y` for floats.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::nonminimal_bool)]

use super::dst::{Cout, Dst, Form};
use super::fast::{self, Fp, Row};
use super::float::{div_fixup32, div_fmas32, div_scale32};
use super::fp::{class_index, ftz, nan32};
use super::src::{Loc, Src};
use super::ty::Ty;
use super::{Alu, Cin};
use crate::exec::Env;
use crate::wave::{Wave, MAX_LANES};

/// The packed pair operations (their sources and destination are register pairs).
pub fn packed(p: Fp) -> bool {
    matches!(p, Fp::PkAdd | Fp::PkMul | Fp::PkFma)
}

/// Whether a packed operation's operands fit the direct path: VGPR pairs or scalar pairs
/// (constants go the general way, whose widening of them for packed types is its own), no
/// DPP/SDWA, a 64-bit VGPR destination, no clamp.
pub fn packed_eligible(a: &Alu) -> bool {
    let src = |s: &Src| {
        let loc = match s.loc {
            Loc::V { acc, .. } => !acc && s.ty == Ty::PkF32,
            Loc::S(_) => s.ty == Ty::PkF32,
            Loc::None => true,
            Loc::K(_) => false,
        };
        loc && s.sdwa.is_none() && !s.dpp
    };
    let dst = matches!(a.dst, Dst::V { acc: false, form: Form::B64, .. });
    a.src.iter().all(src) && dst && a.cin == Cin::None && a.cout == Cout::NONE && a.dpp.is_none() && a.omod == 0 && !a.clamp
}

/// Whether source `s` carries an f32 sign modifier.
#[inline(always)]
pub fn modified(s: &Src) -> bool {
    s.neg || s.abs
}

/// `r` with the f32 sign modifiers of `s` applied.
#[inline(always)]
pub fn signed(r: &Row, s: &Src) -> Row {
    let (clear, flip) = (if s.abs { 0x7fff_ffff } else { !0 }, if s.neg { 0x8000_0000 } else { 0 });
    r.map(|x| (x & clear) ^ flip)
}

/// `let $s = [rows]`: rows `$r` with the sign modifiers of `$a`'s sources applied, a copy
/// (into `$c0..$c2`) only of a source that has any, so that the common case copies and clears
/// nothing.
macro_rules! signed_rows {
    ($s:ident = $a:expr, $r:expr; $c0:ident, $c1:ident, $c2:ident) => {
        let ($c0, $c1, $c2);
        let src = &$a.src;
        let [r0, r1, r2]: [&$crate::exec::valu::fast::Row; 3] = $r;
        let m = |i: usize| $crate::exec::valu::fast_fp::modified(&src[i]);
        let $s: [&$crate::exec::valu::fast::Row; 3] = [
            if m(0) {
                $c0 = $crate::exec::valu::fast_fp::signed(r0, &src[0]);
                &$c0
            } else {
                r0
            },
            if m(1) {
                $c1 = $crate::exec::valu::fast_fp::signed(r1, &src[1]);
                &$c1
            } else {
                r1
            },
            if m(2) {
                $c2 = $crate::exec::valu::fast_fp::signed(r2, &src[2]);
                &$c2
            } else {
                r2
            },
        ];
    };
}
pub(super) use signed_rows;

/// Run `p` for `a` on the direct path; false (nothing written) when the general path must.
#[inline(always)]
pub fn run(p: Fp, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    if packed(p) {
        return run_packed(p, a, w, env);
    }
    let exec = w.exec();
    let (mut k0, mut k1, mut k2) = (None, None, None);
    let row = |i: usize, k| fast::row(w, env, &a.src[i], false, false, k);
    let (Some(r0), Some(r1), Some(r2)) = (row(0, &mut k0), row(1, &mut k1), row(2, &mut k2)) else {
        return false;
    };
    let reg = match a.dst {
        Dst::V { reg, .. } if w.vgpr.len() >= (reg as usize + 1) * MAX_LANES => Some(reg as usize),
        Dst::V { .. } => return false,
        _ => None,
    };
    signed_rows!(s = a, [r0, r1, r2]; c0, c1, c2);
    let mut out = [0u32; MAX_LANES];
    let bits = match p {
        Fp::Cmp(c) => Some(compare(c, s[0], s[1])),
        Fp::Class => Some(class(s[0], s[1])),
        Fp::DivScale => Some(div_scale(s, &mut out)),
        Fp::DivFmas => {
            let ci = fast::cin(w, env, a.cin);
            div_fmas(s, ci, &mut out);
            None
        }
        _ => {
            compute(p, s, &mut out);
            None
        }
    };
    if let Some(b) = bits {
        fast::commit_mask(w, a.cout, b & exec);
    }
    if let Some(d) = reg.and_then(|r| fast::dst_row(w, r)) {
        fast::blend(d, &out, exec);
    }
    true
}

/// One lane of V_SQRT/RCP/RSQ_F32: the input flushed, the kernel's expression, the result
/// flushed.
#[inline(always)]
fn flushed(a: u32, op: impl Fn(f32) -> f32) -> u32 {
    let x = ftz(a as u64, 32);
    ftz(nan32(op(f32::from_bits(x as u32)), &[x]), 32) as u32
}

/// Whether `f` holds in every lane of `r` (one branch-free pass).
#[inline(always)]
fn every(r: &Row, f: impl Fn(u32) -> bool) -> bool {
    // An index loop, not `Iterator::fold`: that one is not inlined into the AVX2 build and
    // reads the row in 16-byte pieces.
    let mut all = true;
    for &x in r {
        all &= f(x);
    }
    all
}

#[inline(always)]
fn compute(p: Fp, s: [&Row; 3], out: &mut Row) {
    match p {
        Fp::Sub => fast::fmap(out, s, |a, b, _| a - b),
        // A positive normal input has a normal square root: nothing to flush, no NaN.
        Fp::Sqrt if every(s[0], |a| a >> 31 == 0 && normal(exponent(a))) => fast::fmap(out, s, |a, _, _| a.sqrt()),
        Fp::Sqrt => fast::map(out, s, |a, _, _| flushed(a, f32::sqrt)),
        // |a| in [2^-126, 2^126): 1/a is a normal finite f32 (at most 2^126, above 2^-126).
        Fp::Rcp if every(s[0], |a| (1..=252).contains(&exponent(a))) => fast::fmap(out, s, |a, _, _| 1.0 / a),
        Fp::Rcp => fast::map(out, s, |a, _, _| flushed(a, |x| 1.0 / x)),
        Fp::Rsq => fast::map(out, s, |a, _, _| flushed(a, |x| (1.0 / (x as f64).sqrt()) as f32)),
        Fp::DivFixup => div_fixup(s, out),
        _ => {}
    }
}

/// V_CMP_CLASS_F32 over the row (`m`: each lane's class mask): when every value is a normal
/// number (one branch-free pass), its class is -normal (3) or +normal (8) by its sign alone;
/// else `class_index` per lane.
#[inline(always)]
fn class(a: &Row, m: &Row) -> u64 {
    if every(a, |x| normal(exponent(x))) {
        let at = |x: u32| if x >> 31 != 0 { 3 } else { 8 };
        return fast::test(a, m, |x, m| (m >> at(x)) & 1 != 0);
    }
    fast::test(a, m, |x, m| m >> class_index(x as u64, 32) & 1 != 0)
}

/// A biased f32 exponent of a normal finite value (1..=254; 0 is zero or denormal, 255 an
/// infinity or NaN).
#[inline(always)]
fn normal(e: i32) -> bool {
    (1..=254).contains(&e)
}

#[inline(always)]
fn exponent(x: u32) -> i32 {
    (x >> 23 & 0xff) as i32
}

/// Whether V_DIV_SCALE_F32 returns S0 as it is with its flag clear, read from the exponents of
/// the denominator `b` and the numerator `c` alone: both normal and finite, the numerator's
/// biased exponent at least 24 and the exponents' difference in (-100, 96). Then no rule of
/// `div_scale32` applies: neither is zero or denormal, 1/b is a normal f64, the quotient is
/// above 2^(difference - 1) >= 2^-99 (a normal f32), the difference is below 96 and the
/// numerator's exponent above 23.
#[inline(always)]
fn scale_passes(b: u32, c: u32) -> bool {
    let (e1, e2) = (exponent(b), exponent(c));
    normal(e1) & normal(e2) & (e2 >= 24) & (e2 - e1 > -100) & (e2 - e1 < 96)
}

/// V_DIV_SCALE_F32 over the row: when every lane passes ([`scale_passes`], one branch-free
/// pass) S0 itself and no flag, else lane by lane, the passing ones without the rules.
#[inline(always)]
fn div_scale([a, b, c]: [&Row; 3], out: &mut Row) -> u64 {
    let mut pass = true;
    for l in 0..MAX_LANES {
        pass &= scale_passes(b[l], c[l]);
    }
    if pass {
        *out = *a;
        return 0;
    }
    let mut bits = 0u64;
    for l in 0..MAX_LANES {
        let (r, co) = if scale_passes(b[l], c[l]) { (a[l] as u64, false) } else { div_scale32(a[l] as u64, b[l] as u64, c[l] as u64) };
        out[l] = r as u32;
        bits |= (co as u64) << l;
    }
    bits
}

/// V_DIV_FMAS_F32 over the row: with no VCC bit set nothing is post-scaled, which is the plain
/// fused multiply-add with `div_fmas32`'s NaN rule ([`fast::fmap`] applies the same one).
#[inline(always)]
fn div_fmas(s @ [a, b, c]: [&Row; 3], ci: u64, out: &mut Row) {
    if ci == 0 {
        return fast::fmap(out, s, |x, y, z| x.mul_add(y, z));
    }
    for l in 0..MAX_LANES {
        out[l] = div_fmas32(a[l] as u64, b[l] as u64, c[l] as u64, ci >> l & 1 != 0) as u32;
    }
}

/// Whether V_DIV_FIXUP_F32 passes the quotient through (with the sign of `den ^ num`), read
/// from the exponents: denominator and numerator normal and finite (no NaN, zero or infinity
/// case of `div_fixup32`) and the numerator's exponent at most 150 below the denominator's
/// (no underflow).
#[inline(always)]
fn fixup_passes(den: u32, num: u32) -> bool {
    let (ed, en) = (exponent(den), exponent(num));
    normal(ed) & normal(en) & (en - ed >= -150)
}

/// V_DIV_FIXUP_F32 over the row (`q` quotient, `den`, `num`): the passing lanes as
/// `div_fixup32` computes them without its case tests, every lane branch-free when all pass.
#[inline(always)]
fn div_fixup([q, den, num]: [&Row; 3], out: &mut Row) {
    let plain = |l: usize| (den[l] ^ num[l]) & 0x8000_0000 | q[l] & 0x7fff_ffff;
    let mut pass = true;
    for l in 0..MAX_LANES {
        pass &= fixup_passes(den[l], num[l]);
    }
    if pass {
        for (l, o) in out.iter_mut().enumerate() {
            *o = plain(l);
        }
        return;
    }
    for l in 0..MAX_LANES {
        out[l] = if fixup_passes(den[l], num[l]) { plain(l) } else { div_fixup32(q[l] as u64, den[l] as u64, num[l] as u64) as u32 };
    }
}

/// The f32 conditions in VOPC order (0 F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE,
/// NEQ, NLT, 15 TRU); ordered ones false and negated ones true on a NaN operand.
#[inline(always)]
fn compare(c: u8, a: &Row, b: &Row) -> u64 {
    let g = f32::from_bits;
    match c & 15 {
        0 => 0,
        1 => fast::test(a, b, |x, y| g(x) < g(y)),
        2 => fast::test(a, b, |x, y| g(x) == g(y)),
        3 => fast::test(a, b, |x, y| g(x) <= g(y)),
        4 => fast::test(a, b, |x, y| g(x) > g(y)),
        5 => fast::test(a, b, |x, y| g(x) < g(y) || g(x) > g(y)),
        6 => fast::test(a, b, |x, y| g(x) >= g(y)),
        7 => fast::test(a, b, |x, y| !g(x).is_nan() && !g(y).is_nan()),
        8 => fast::test(a, b, |x, y| g(x).is_nan() || g(y).is_nan()),
        9 => fast::test(a, b, |x, y| !(g(x) >= g(y))),
        10 => fast::test(a, b, |x, y| !(g(x) < g(y) || g(x) > g(y))),
        11 => fast::test(a, b, |x, y| !(g(x) > g(y))),
        12 => fast::test(a, b, |x, y| !(g(x) <= g(y))),
        13 => fast::test(a, b, |x, y| g(x) != g(y)),
        14 => fast::test(a, b, |x, y| !(g(x) < g(y))),
        _ => !0,
    }
}

/// Element `e` (0 low, 1 high) of packed source `s` in every lane: the register or scalar
/// half op_sel (`e` 0) or op_sel_hi (`e` 1) picks, its sign flipped by neg_lo / neg_hi.
/// A register row without a sign flip is read in place; otherwise the element is built in `buf`
/// (written only then: zeroing three buffers per element was most of a packed operation's stores).
#[inline(always)]
fn element<'r>(w: &'r Wave, env: &Env, s: &Src, e: usize, buf: &'r mut Option<Row>) -> Option<&'r Row> {
    let (sel, neg) = if e == 0 { (s.hi, s.neg) } else { (s.hi2, s.abs) };
    let b = match s.loc {
        Loc::V { reg, .. } => {
            let r = fast::vrow(w, (reg as usize + sel as usize) % 256)?;
            if !neg {
                return Some(r);
            }
            buf.insert(*r)
        }
        _ => buf.insert([fast::uniform(w, env, s, true, sel)?; MAX_LANES]),
    };
    if neg {
        b.iter_mut().for_each(|x| *x ^= 0x8000_0000);
    }
    Some(b)
}

#[inline(always)]
fn run_packed(p: Fp, a: &Alu, w: &mut Wave, env: &Env) -> bool {
    let Dst::V { reg, .. } = a.dst else { return false };
    let mut res = [[0u32; MAX_LANES]; 2];
    for (e, out) in res.iter_mut().enumerate() {
        let mut bufs = [None, None, None];
        let [b0, b1, b2] = &mut bufs;
        let (Some(x), Some(y), Some(z)) = (element(w, env, &a.src[0], e, b0), element(w, env, &a.src[1], e, b1), element(w, env, &a.src[2], e, b2)) else {
            return false;
        };
        let s = [x, y, z];
        match p {
            Fp::PkAdd => fast::fmap(out, s, |a, b, _| a + b),
            Fp::PkMul => fast::fmap(out, s, |a, b, _| a * b),
            _ => fast::fmap(out, s, |a, b, c| a.mul_add(b, c)),
        }
    }
    let exec = w.exec();
    fast::store_pair(w, reg as usize, &res[0], &res[1], exec)
}
