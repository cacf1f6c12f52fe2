//! Source operands: where a value comes from (resolved once at classification) and how every
//! lane's value is gathered at execution: register/scalar/constant fetch, DPP lane selection,
//! 16-bit half selection (VOP3 op_sel, true16 `.h`, GFX11 VOP1/2/C bit 7), SDWA byte/word
//! selection with sign extension, VOP3P op_sel/op_sel_hi packing, abs/neg on the sign bit of the
//! operand's float type, and input denormal flushing.

use super::dpp::LaneMap;
use super::fp::{ftz_all, Ctl};
use super::lanes::{Lanes, Vals};
use super::ty::Ty;
use crate::exec::operand::{s32, s64};
use crate::exec::Env;
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::Operand;

/// Where a source value lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    None,
    /// VGPR (or AGPR) number; 64-bit types use the pair starting there.
    V {
        reg: u8,
        acc: bool,
    },
    /// Scalar register or special value, read once per instruction.
    S(Operand),
    /// Inline constant or literal, already widened for the operand type.
    K(u64),
}

/// Input denormal handling of one source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ftz {
    /// As MODE says for the type.
    Mode,
    /// Always flushed (f32 transcendentals: "denormals are flushed").
    Always,
    /// Never flushed (V_DIV_FMAS: "input denormals are not flushed", V_CMP_CLASS).
    Never,
}

/// A resolved source operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Src {
    pub loc: Loc,
    pub ty: Ty,
    /// Take bits [31:16] (VOP3 op_sel, `.h`); for packed types the low element's select.
    pub hi: bool,
    /// Packed types: the high element's select (VOP3P op_sel_hi).
    pub hi2: bool,
    /// SDWA select (0-3 byte, 4-5 word, 6 dword) and sign extension; `None` without SDWA.
    pub sdwa: Option<(u8, bool)>,
    /// Float modifiers (packed: `neg` = neg_lo, `abs` = neg_hi).
    pub neg: bool,
    pub abs: bool,
    /// Read through the DPP lane map (src0 of a DPP instruction).
    pub dpp: bool,
    pub ftz: Ftz,
}

impl Src {
    pub const NONE: Src = Src { loc: Loc::None, ty: Ty::None, hi: false, hi2: false, sdwa: None, neg: false, abs: false, dpp: false, ftz: Ftz::Mode };

    pub fn is_none(&self) -> bool {
        self.loc == Loc::None
    }
}

#[inline]
fn vreg(w: &Wave, reg: usize, acc: bool) -> &[u32; MAX_LANES] {
    let r = reg % 256;
    let file = if acc { &w.agpr } else { &w.vgpr };
    file.get(r * MAX_LANES..(r + 1) * MAX_LANES).and_then(|s| s.try_into().ok()).unwrap_or(&ZEROS)
}

static ZEROS: [u32; MAX_LANES] = [0; MAX_LANES];

/// Gather every lane's value of `src` into `out`.
///
/// `x.uniform[i]` remembers the value a wave-uniform source (scalar or constant) last filled
/// `x.s[i]` with, so a repeated fill of the same value is skipped; a per-lane gather clears it.
pub fn gather(w: &Wave, env: &Env, src: &Src, map: Option<&LaneMap>, x: &mut Lanes, i: usize) {
    let (n, ctl) = (x.n, x.ctl);
    let (out, uniform) = (&mut x.s[i], &mut x.uniform[i]);
    let one = match src.loc {
        Loc::None => 0,
        Loc::K(v) => v,
        Loc::S(op) if src.ty.bits() == 64 => s64(w, env, op),
        Loc::S(op) => s32(w, env, op) as u64,
        Loc::V { .. } => {
            *uniform = None;
            fetch(w, src, map, out, n);
            transform(src, &ctl, &mut out[..n]);
            return;
        }
    };
    let mut v = [one];
    transform(src, &ctl, &mut v);
    if *uniform != Some((v[0], n)) {
        out[..n].fill(v[0]);
        *uniform = Some((v[0], n));
    }
}

/// Every lane's register bits, through the DPP lane map for a DPP source.
fn fetch(w: &Wave, src: &Src, map: Option<&LaneMap>, out: &mut Vals, n: usize) {
    let Loc::V { reg, acc } = src.loc else { return };
    let lo = vreg(w, reg as usize, acc);
    let hi = if src.ty.bits() == 64 { Some(vreg(w, reg as usize + 1, acc)) } else { None };
    match (map.filter(|_| src.dpp), hi) {
        (None, None) => out[..n].iter_mut().zip(lo).for_each(|(o, &v)| *o = v as u64),
        (None, Some(hi)) => {
            out[..n].iter_mut().zip(lo.iter().zip(hi)).for_each(|(o, (&l, &h))| *o = l as u64 | (h as u64) << 32);
        }
        (Some(m), None) if m.valid == lanes_of(n) => {
            out[..n].iter_mut().zip(m.src.iter()).for_each(|(o, &s)| *o = lo[s as usize & 63] as u64);
        }
        // Invalid source lanes read 0 (a branch-free select per lane).
        (Some(m), None) => {
            for (l, o) in out[..n].iter_mut().enumerate() {
                *o = lo[m.src[l] as usize & 63] as u64 & 0u64.wrapping_sub(m.valid >> l & 1);
            }
        }
        (Some(m), Some(hi)) => {
            for (l, o) in out[..n].iter_mut().enumerate() {
                let s = m.src[l] as usize & 63;
                *o = (lo[s] as u64 | (hi[s] as u64) << 32) & 0u64.wrapping_sub(m.valid >> l & 1);
            }
        }
    }
}

fn lanes_of(n: usize) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1 << n) - 1
    }
}

/// Selection, modifiers and flushing, each pass only when the operand needs it.
fn transform(src: &Src, ctl: &Ctl, v: &mut [u64]) {
    let ty = src.ty;
    if ty.is_packed() {
        pack(src, v);
    } else {
        if let Some((sel, sext)) = src.sdwa {
            v.iter_mut().for_each(|x| *x = sdwa_select(*x, sel, sext));
        }
        if src.hi {
            v.iter_mut().for_each(|x| *x = *x >> 16 & 0xffff);
        }
        if ty.bits() == 16 {
            v.iter_mut().for_each(|x| *x &= 0xffff);
        }
        if let (Some(bits), true) = (ty.float_elem(), src.neg || src.abs) {
            let sign = 1u64 << (bits - 1);
            let (clear, flip) = (if src.abs { !sign } else { !0 }, if src.neg { sign } else { 0 });
            v.iter_mut().for_each(|x| *x = (*x & clear) ^ flip);
        }
    }
    if flush_in(src, ctl) {
        let e = ty.elem_bits();
        ftz_all(v, e, ty.bits() / e);
    }
}

fn flush_in(src: &Src, ctl: &Ctl) -> bool {
    match src.ftz {
        Ftz::Never => false,
        Ftz::Always => true,
        Ftz::Mode if !src.ty.flushes() => false,
        Ftz::Mode => {
            if src.ty.elem_bits() == 32 {
                !ctl.den32_in
            } else {
                !ctl.den64_in
            }
        }
    }
}

/// VOP3P: element 0 from the half/dword chosen by op_sel, element 1 by op_sel_hi; neg_lo/neg_hi
/// flip the sign of float elements.
fn pack(src: &Src, v: &mut [u64]) {
    let e = src.ty.elem_bits();
    let mask = (1u64 << e) - 1;
    let sign = if src.ty.float_elem().is_some() { 1u64 << (e - 1) } else { 0 };
    let (s0, s1) = (if src.hi { e } else { 0 }, if src.hi2 { e } else { 0 });
    let (f0, f1) = (if src.neg { sign } else { 0 }, if src.abs { sign } else { 0 });
    v.iter_mut().for_each(|x| *x = ((*x >> s0 & mask) ^ f0) | ((*x >> s1 & mask) ^ f1) << e);
}

/// SDWA source select (ISA "SDWA" SRC0_SEL/SRC1_SEL: 0-3 BYTE0-3, 4-5 WORD0-1, 6 DWORD) with
/// optional sign extension of the selected field.
pub fn sdwa_select(x: u64, sel: u8, sext: bool) -> u64 {
    let (shift, bits) = match sel {
        0..=3 => (sel as u32 * 8, 8),
        4 | 5 => ((sel as u32 - 4) * 16, 16),
        _ => return x & 0xffff_ffff,
    };
    let field = (x >> shift) & ((1 << bits) - 1);
    if sext {
        let s = 64 - bits;
        (((field << s) as i64 >> s) as u64) & 0xffff_ffff
    } else {
        field
    }
}
