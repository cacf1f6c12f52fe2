//! Results: output modifiers, clamping and denormal flushing of float results, and the
//! write-back of vector results (32/64-bit, 16-bit halves, SDWA sub-dword forms) and lane masks.
//!
//! ISA facts (CDNA3/4 ISA §6.2.2 "Instruction Outputs", RDNA3 ISA §7.2.3 "Output Operands"):
//! a lane writes only if its EXEC bit is set; OMOD (x2, x4, /2) applies to float results only
//! when output denormals are disabled and MODE.IEEE is 0, turns -0 into +0 and flushes
//! denormals; CLAMP clamps float results to [0.0, 1.0] (-0 becomes +0; NaN becomes 0 when
//! MODE.DX10_CLAMP is set). 16-bit results: GFX8 zeroes the upper half of the VGPR, GFX9 does
//! too except for the op_sel-capable VOP3 forms (V_MAD_F16, V_FMA_F16, ...), which write the
//! half chosen by op_sel[3] and keep the other; GFX10+ always keeps the other half.

use super::fp::*;
use super::src::Ftz;
use super::ty::Ty;
use crate::exec::operand::{write_s32, write_s64};
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::{Operand, Reg, Special};

/// How a vector result is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    B32,
    B64,
    /// 16-bit result into one half; the other half is kept or zeroed.
    Half {
        hi: bool,
        zero_other: bool,
    },
    /// SDWA DST_SEL (0-3 byte, 4-5 word, 6 dword) and DST_UNUSED (0 pad, 1 sign-extend,
    /// 2 preserve).
    Sdwa {
        sel: u8,
        unused: u8,
    },
}

/// A vector destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dst {
    None,
    V {
        reg: u8,
        acc: bool,
        form: Form,
    },
    /// GFX12's pseudo-scalar transcendentals (`v_s_exp_f32`, `v_s_rcp_f32`, ...): VALU
    /// operations on a scalar source whose result goes to an SGPR (RDNA4 ISA, "VOP3
    /// Instructions"). Their sources are uniform, so every lane computes the same value; lane 0's
    /// is written, whatever EXEC holds (assumed: the ISA gives no EXEC dependence for an SGPR
    /// result). A 16-bit result is zero-extended.
    S {
        op: Operand,
        half: bool,
    },
}

/// Where a lane-mask result goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskDst {
    None,
    Vcc,
    /// An SGPR (pair), VCC, EXEC or `null` named by the encoding.
    Reg(Operand),
}

/// Lane-mask result of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cout {
    pub to: MaskDst,
    /// V_CMPX: the result also replaces EXEC.
    pub exec: bool,
}

impl Cout {
    pub const NONE: Cout = Cout { to: MaskDst::None, exec: false };
}

/// Float post-processing of results of type `ty`.
pub fn finish(d: &mut [u64], ty: Ty, omod: u8, clamp: bool, out: Ftz, k: &Ctl) {
    if !ty.flushes() {
        return;
    }
    let e = ty.elem_bits();
    let den_out = if e == 32 { k.den32_out } else { k.den64_out };
    let flush = match out {
        Ftz::Always => true,
        Ftz::Never => false,
        Ftz::Mode => !den_out,
    };
    // Output modifiers are ignored with output denormals enabled, in IEEE mode, and for packed
    // results.
    let omod = if den_out || k.ieee || ty.is_packed() { 0 } else { omod };
    let parts = ty.bits() / e;
    if omod == 0 && !clamp {
        if flush {
            ftz_all(d, e, parts);
        }
        return;
    }
    let mask = if e == 64 { !0 } else { (1u64 << e) - 1 };
    for v in d.iter_mut() {
        let mut r = 0;
        for p in 0..parts {
            r |= post(*v >> (p * e) & mask, e, omod, clamp, flush, k.dx10) << (p * e);
        }
        *v = r;
    }
}

/// One float element: omod, then clamp, then flush.
fn post(v: u64, bits: u32, omod: u8, clamp: bool, flush: bool, dx10: bool) -> u64 {
    type Conv = (fn(u64) -> f64, fn(f64) -> u64);
    let (to, from): Conv = match bits {
        16 => (h2d, d2h),
        32 => (|v| f(v) as f64, |x| bf(x as f32)),
        _ => (d, bd),
    };
    let mut v = v;
    if omod != 0 && !is_nan(v, bits) {
        let x = to(v) * [1.0, 2.0, 4.0, 0.5][omod as usize & 3];
        v = from(if x == 0.0 { 0.0 } else { x });
    }
    if clamp {
        v = if is_nan(v, bits) {
            if dx10 {
                0
            } else {
                v
            }
        } else {
            let x = to(v);
            from(if x > 1.0 {
                1.0
            } else if x > 0.0 {
                x
            } else {
                0.0
            })
        };
    }
    if flush {
        ftz(v, bits)
    } else {
        v
    }
}

fn is_nan(v: u64, bits: u32) -> bool {
    match bits {
        16 => is_nan16(v as u16),
        32 => is_nan32(v as u32),
        _ => is_nan64(v),
    }
}

/// The 64 lanes of a VGPR or AGPR (AGPRs are allocated on first write).
fn lanes_mut(w: &mut Wave, reg: usize, acc: bool) -> &mut [u32] {
    let r = reg % 256;
    let file = if acc {
        if w.agpr.is_empty() {
            w.agpr = vec![0; 256 * MAX_LANES];
        }
        &mut w.agpr
    } else {
        &mut w.vgpr
    };
    &mut file[r * MAX_LANES..(r + 1) * MAX_LANES]
}

/// `v[l] = f(l, v[l])` for the lanes of `mask`: a straight loop when every lane of the
/// (`n`-lane) wave writes, else one step per set bit.
#[inline]
fn blend(v: &mut [u32], mask: u64, n: usize, f: impl Fn(usize, u32) -> u32) {
    let n = n.min(MAX_LANES);
    let full = if n == MAX_LANES { u64::MAX } else { (1u64 << n) - 1 };
    if mask & full == full {
        for (l, x) in v[..n].iter_mut().enumerate() {
            *x = f(l, *x);
        }
        return;
    }
    let mut m = mask & full;
    while m != 0 {
        let l = m.trailing_zeros() as usize;
        v[l] = f(l, v[l]);
        m &= m - 1;
    }
}

/// Store `d` into the lanes of `mask`.
pub fn write(w: &mut Wave, dst: &Dst, d: &[u64], mask: u64) {
    let (reg, acc, form) = match *dst {
        Dst::V { reg, acc, form } => (reg, acc, form),
        Dst::S { op, half } => return write_s32(w, op, if half { d[0] as u32 & 0xffff } else { d[0] as u32 }),
        Dst::None => return,
    };
    let r = reg as usize;
    let n = w.lanes();
    let d = &d[..MAX_LANES];
    match form {
        Form::B32 => blend(lanes_mut(w, r, acc), mask, n, |l, _| d[l] as u32),
        Form::B64 => {
            blend(lanes_mut(w, r, acc), mask, n, |l, _| d[l] as u32);
            blend(lanes_mut(w, r + 1, acc), mask, n, |l, _| (d[l] >> 32) as u32);
        }
        Form::Half { hi, zero_other } => blend(lanes_mut(w, r, acc), mask, n, |l, old| {
            let v = d[l] as u32 & 0xffff;
            let old = if zero_other { 0 } else { old };
            if hi {
                (old & 0xffff) | v << 16
            } else {
                (old & 0xffff_0000) | v
            }
        }),
        Form::Sdwa { sel, unused } => blend(lanes_mut(w, r, acc), mask, n, |l, old| sdwa_dst(d[l] as u32, old, sel, unused)),
    }
}

/// SDWA destination: the selected field of the result, the rest padded with zeros, sign-
/// extended (bits above the field; bits below stay zero) or preserved.
pub fn sdwa_dst(v: u32, old: u32, sel: u8, unused: u8) -> u32 {
    let (shift, bits) = match sel {
        0..=3 => (sel as u32 * 8, 8),
        4 | 5 => ((sel as u32 - 4) * 16, 16),
        _ => return v,
    };
    let field_mask = ((1u32 << bits) - 1) << shift;
    let field = (v << shift) & field_mask;
    match unused {
        1 => {
            let sign = v >> (bits - 1) & 1 != 0;
            let above = if shift + bits >= 32 { 0 } else { !0u32 << (shift + bits) };
            field | if sign { above } else { 0 }
        }
        2 => (old & !field_mask) | field,
        _ => field,
    }
}

/// Write a lane mask (VCC, an SGPR or pair, EXEC; `null` discards it).
pub fn write_mask(w: &mut Wave, to: MaskDst, mask: u64) {
    let op = match to {
        MaskDst::None => return,
        MaskDst::Vcc => return w.set_vcc(mask),
        MaskDst::Reg(op) => op,
    };
    match op {
        Operand::Reg(Reg::Special(Special::Vcc | Special::VccLo)) => w.set_vcc(mask),
        Operand::Reg(Reg::Special(Special::Exec | Special::ExecLo)) => w.set_exec(mask),
        _ if w.wave64 => write_s64(w, op, mask),
        _ => write_s32(w, op, mask as u32),
    }
}
