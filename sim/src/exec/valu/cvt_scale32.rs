//! gfx950's (CDNA4) 32-element scaled conversions between f32/f16/bf16 and the OCP FP6/BF6
//! formats, whose operands span up to 32 VGPRs: V_CVT_SCALEF32_PK32_{F32,F16,BF16}_{FP6,BF6},
//! _PK32_{FP6,BF6}_{F16,BF16}, _2XPK16_{FP6,BF6}_F32 and _SR_PK32_{FP6,BF6}_{F32,F16,BF16}.
//!
//! Layouts, from the CDNA4 ISA guide's VOP3 pseudo-code:
//! * The packed side is 192 bits (six VGPRs): element i in bits [6i+5:6i].
//! * The wide side is 32 elements of 32 bits (32 VGPRs) or 16 bits (16 VGPRs, element i in
//!   bits [16i+15:16i]).
//! * _2XPK16_*_F32 interleaves two 16-element f32 sources: S0's element p goes to bits
//!   [12p+5:12p], S1's to [12p+11:12p+6]; its scale is S2.
//! * _SR_PK32_*: element 0 is rounded with the seed S1, each next one with `v_prng_b32` of the
//!   previous seed; the scale is S2. Otherwise the scale is S1.
//!
//! Scale, rounding and the meaning of the conversions as in [`cvt_scale`] (the same
//! inferences, so the narrowing forms are approximate).

use super::cvt_scale::{narrow, prng, read, scale_of, widen, Wide, NARROW, SR};
use super::minifloat::{Format, Round};
use super::vgpr;
use crate::exec::operand::s32;
use crate::exec::{Env, Fidelity};
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::{OpName, Opcode};
use hipscope_isa::Processor;

/// Direction and layout of one of these conversions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// 32 packed codes to 32 wide values.
    Widen,
    /// 32 wide values to 32 packed codes (`sr`: stochastically, seed S1).
    Narrow { sr: bool },
    /// Two 16-element f32 sources, interleaved.
    Interleave,
}

/// A classified conversion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pk32 {
    pub dir: Dir,
    pub fmt: Format,
    pub wide: Wide,
    /// First VGPR of S0, of S1 (interleaved form) and of the destination.
    pub src0: u8,
    pub src1: u8,
    pub dst: u8,
    /// The scale operand and, for the SR forms, the seed operand.
    pub scale: Operand,
    pub seed: Operand,
}

fn shape(op: Opcode) -> Option<(Dir, Format, Wide)> {
    use Dir::*;
    use Format::{E2M3 as FP6, E3M2 as BF6};
    use Opcode::*;
    use Wide::*;
    let n = Narrow { sr: false };
    let sr = Narrow { sr: true };
    Some(match op {
        V_CVT_SCALEF32_PK32_F32_FP6 => (Widen, FP6, F32),
        V_CVT_SCALEF32_PK32_F32_BF6 => (Widen, BF6, F32),
        V_CVT_SCALEF32_PK32_F16_FP6 => (Widen, FP6, F16),
        V_CVT_SCALEF32_PK32_F16_BF6 => (Widen, BF6, F16),
        V_CVT_SCALEF32_PK32_BF16_FP6 => (Widen, FP6, Bf16),
        V_CVT_SCALEF32_PK32_BF16_BF6 => (Widen, BF6, Bf16),
        V_CVT_SCALEF32_PK32_FP6_F16 => (n, FP6, F16),
        V_CVT_SCALEF32_PK32_BF6_F16 => (n, BF6, F16),
        V_CVT_SCALEF32_PK32_FP6_BF16 => (n, FP6, Bf16),
        V_CVT_SCALEF32_PK32_BF6_BF16 => (n, BF6, Bf16),
        V_CVT_SCALEF32_SR_PK32_FP6_F32 => (sr, FP6, F32),
        V_CVT_SCALEF32_SR_PK32_BF6_F32 => (sr, BF6, F32),
        V_CVT_SCALEF32_SR_PK32_FP6_F16 => (sr, FP6, F16),
        V_CVT_SCALEF32_SR_PK32_BF6_F16 => (sr, BF6, F16),
        V_CVT_SCALEF32_SR_PK32_FP6_BF16 => (sr, FP6, Bf16),
        V_CVT_SCALEF32_SR_PK32_BF6_BF16 => (sr, BF6, Bf16),
        V_CVT_SCALEF32_2XPK16_FP6_F32 => (Interleave, FP6, F32),
        V_CVT_SCALEF32_2XPK16_BF6_F32 => (Interleave, BF6, F32),
        _ => return None,
    })
}

/// Classify one of these conversions on gfx950; `None` otherwise (or for unusable operands).
pub fn classify(inst: &Inst, processor: Processor) -> Option<(Pk32, Fidelity)> {
    if processor != Processor::Gfx950 {
        return None;
    }
    let (dir, fmt, wide) = shape(inst.opcode())?;
    let op = |n| inst.operand(n);
    let two = matches!(dir, Dir::Narrow { sr: true } | Dir::Interleave);
    let scale = op(if two { OpName::src2 } else { OpName::src1 })?;
    let seed = if dir == (Dir::Narrow { sr: true }) { op(OpName::src1)? } else { Operand::Absent };
    let src1 = if dir == Dir::Interleave { vgpr(op(OpName::src1))? } else { 0 };
    let p = Pk32 { dir, fmt, wide, src0: vgpr(op(OpName::src0))?, src1, dst: vgpr(op(OpName::vdst))?, scale, seed };
    let fid = match dir {
        Dir::Widen => Fidelity::Exact,
        Dir::Narrow { sr: true } => Fidelity::Approximate(SR),
        _ => Fidelity::Approximate(NARROW),
    };
    Some((p, fid))
}

/// A per-lane operand: a VGPR's lane value, else the scalar or constant.
fn lane_value(w: &Wave, env: &Env, op: Operand, lane: usize) -> u32 {
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => w.v(index as usize, lane),
        _ => s32(w, env, op),
    }
}

/// Bits [lo+len-1:lo] of the little-endian dword array `v` (`len` <= 32).
fn field(v: &[u32], lo: usize, len: usize) -> u32 {
    let word = |i: usize| v.get(i).copied().unwrap_or(0) as u64;
    let pair = word(lo / 32) | word(lo / 32 + 1) << 32;
    (pair >> (lo % 32)) as u32 & ((1u64 << len) - 1) as u32
}

/// Set bits [lo+len-1:lo] of `v` to `x`.
fn set_field(v: &mut [u32], lo: usize, len: usize, x: u32) {
    for b in 0..len {
        if let Some(w) = v.get_mut((lo + b) / 32) {
            let bit = (lo + b) % 32;
            *w = (*w & !(1 << bit)) | (x >> b & 1) << bit;
        }
    }
}

/// One lane: the source dwords in, the destination dwords out (`seed`, `scale` its values).
fn lane(p: &Pk32, s0: &[u32; 32], s1: &[u32; 32], seed: u32, scale: u32, out: &mut [u32; 32]) {
    let k = scale_of(scale as u64);
    let wbits = if p.wide == Wide::F32 { 32 } else { 16 };
    match p.dir {
        Dir::Widen => {
            for i in 0..32 {
                let v = widen(p.fmt, field(s0, 6 * i, 6) as u8, k, p.wide);
                set_field(out, wbits * i, wbits, v as u32);
            }
        }
        Dir::Narrow { sr } => {
            let mut seed = seed;
            for i in 0..32 {
                let round = if sr { Round::Stochastic(seed) } else { Round::NearestEven };
                let c = narrow(p.fmt, read(p.wide, field(s0, wbits * i, wbits) as u64), k, round);
                set_field(out, 6 * i, 6, c as u32);
                seed = prng(seed);
            }
        }
        Dir::Interleave => {
            for i in 0..16 {
                for (j, s) in [s0, s1].into_iter().enumerate() {
                    let c = narrow(p.fmt, read(Wide::F32, s[i] as u64), k, Round::NearestEven);
                    set_field(out, 12 * i + 6 * j, 6, c as u32);
                }
            }
        }
    }
}

/// Register counts: (S0, S1, destination).
fn counts(p: &Pk32) -> (usize, usize, usize) {
    let wide = if p.wide == Wide::F32 { 32 } else { 16 };
    match p.dir {
        Dir::Widen => (6, 0, wide),
        Dir::Narrow { .. } => (wide, 0, 6),
        Dir::Interleave => (16, 16, 6),
    }
}

/// Execute for every active lane.
pub fn run(p: &Pk32, w: &mut Wave, env: &Env) {
    let (n0, n1, nd) = counts(p);
    let (scale_k, seed_k) = (s32(w, env, p.scale), s32(w, env, p.seed));
    let exec = w.exec();
    for l in (0..w.lanes().min(MAX_LANES)).filter(|l| exec >> l & 1 != 0) {
        let mut s0 = [0u32; 32];
        let mut s1 = [0u32; 32];
        (0..n0).for_each(|r| s0[r] = w.v((p.src0 as usize + r) % 256, l));
        (0..n1).for_each(|r| s1[r] = w.v((p.src1 as usize + r) % 256, l));
        let scale = if matches!(p.scale, Operand::Reg(Reg::Vgpr { .. })) { lane_value(w, env, p.scale, l) } else { scale_k };
        let seed = if matches!(p.seed, Operand::Reg(Reg::Vgpr { .. })) { lane_value(w, env, p.seed, l) } else { seed_k };
        let mut out = [0u32; 32];
        lane(p, &s0, &s1, seed, scale, &mut out);
        for (r, &v) in out.iter().enumerate().take(nd) {
            w.set_v((p.dst as usize + r) % 256, l, v);
        }
    }
}
