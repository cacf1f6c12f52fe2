//! Vector ALU: VOP1, VOP2, VOPC, VOP3 (a/b), VOP3P and VOPD encodings with their SDWA, DPP16
//! and DPP8 forms, on GFX8 through GFX12, in wave32 and wave64.
//!
//! Each instruction is classified once (when its kernel is loaded) into an [`Op`]: the
//! per-lane kernel of its opcode ([`table`]), its operands resolved to registers or constants
//! with their modifiers ([`build`]), and the destination/lane-mask wiring. Executing gathers
//! every lane's sources into a reusable working set ([`lanes`]), runs the kernel over all
//! lanes, post-processes float results and writes back the lanes EXEC (and DPP masks) enable.
//! Nothing on that path allocates or looks at strings.
//! The commonest plain 32-bit operations skip the working set: [`fast`] (and [`fast_fp`] for
//! the f32 ones beyond add/mul/fma/max and the packed f32 pairs) computes them on the VGPR rows
//! directly, with the same results.
//!
//! Modules: [`fp`] float helpers and MODE, [`ty`] operand types, [`src`] source gather,
//! [`dpp`] lane selection, [`dst`] results and write-back, [`int`]/[`float`]/[`cvt`]/[`cmp`]/
//! [`packed`] kernels, [`trig`] V_TRIG_PREOP, [`cross`] lane-crossing operations, [`vopd`] dual
//! issue, [`minifloat`] the FP8/BF8/FP6/FP4 formats and E8M0, [`cvt8`] the FP8/BF8
//! conversions, [`cvt_scale`]/[`cvt_scale32`] gfx950's scaled conversions, [`misc950`] gfx950's
//! other new per-lane operations, [`mqsad`] V_MQSAD_U32_U8, [`mfma`] MFMA/SMFMAC, [`wmma`]
//! WMMA/SWMMAC.
//!
//! Not modelled: MODE round modes other than nearest-even, FP exceptions/TRAPSTS, VGPR
//! indexing mode ([`index`]) on anything but plain VALU operations, interpolation,
//! V_MULLIT, V_SWAPREL/V_MOVRELSD_2, LDS_DIRECT sources.
//! Opcodes without semantics classify to `None` (executing them is a kernel fault).

pub mod build;
pub mod cmp;
pub mod cross;
pub mod cvt;
pub mod cvt8;
pub mod cvt_scale;
pub mod cvt_scale32;
pub mod desc;
pub mod dpp;
pub mod dst;
pub mod fast;
#[cfg(test)]
mod fast_diff;
pub mod fast_fp;
pub mod float;
pub mod fp;
pub mod index;
pub mod int;
pub mod lanes;
pub mod mfma;
pub mod minifloat;
pub mod misc950;
pub mod mqsad;
pub mod packed;
pub mod src;
pub mod table;
pub mod trig;
pub mod ty;
pub mod vopd;
pub mod wmma;

use super::operand::{s32, s64};
use super::sopp::MODE_GPR_IDX_EN;
use super::{Env, ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use cross::Cross;
use dpp::Dpp;
use dst::{finish, write, write_mask, Cout, Dst, MaskDst};
use fp::Ctl;
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::{OpName, Opcode};
use lanes::{with_scratch, Kernel, Lanes};
use src::{gather, Ftz, Src};
use ty::Ty;

/// Lane-mask input of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cin {
    None,
    Vcc,
    /// VOP3 `src2` (an SGPR pair/VCC, or a constant).
    Reg(Operand),
}

/// A fully resolved per-lane operation.
#[derive(Debug, Clone)]
pub struct Alu {
    pub k: Kernel,
    pub src: [Src; 3],
    pub dst: Dst,
    pub dty: Ty,
    pub cin: Cin,
    pub cout: Cout,
    pub dpp: Option<Dpp>,
    pub omod: u8,
    pub clamp: bool,
    pub ftz_out: Ftz,
    pub aux: u32,
    /// The direct path that computes it ([`fast`]), when its operands allow.
    pub fast: Option<fast::Fast>,
}

#[derive(Debug, Clone)]
pub enum Kind {
    Alu(Box<Alu>),
    /// VOPD: two operations issued together; both read their sources before either writes.
    Dual(Box<[Alu; 2]>),
    Cross(Cross),
    /// WMMA/SWMMAC (RDNA3/RDNA4 matrix cores).
    Wmma(Box<wmma::Wmma>),
    /// V_NOP, V_PIPEFLUSH, V_CLREXCP.
    Nop,
    /// MFMA / SMFMAC matrix operations ([`mfma`]).
    Mfma(Box<mfma::Mfma>),
    /// gfx950's 32-element FP6/BF6 conversions ([`cvt_scale32`]).
    Pk32(Box<cvt_scale32::Pk32>),
    /// V_MQSAD_U32_U8 (128-bit accumulator, [`mqsad`]).
    Mqsad(mqsad::Mqsad),
}

/// A classified VALU instruction.
#[derive(Debug, Clone)]
pub struct Op {
    pub opcode: Opcode,
    pub kind: Kind,
    fid: Fidelity,
}

impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        self.opcode == other.opcode && self.fid == other.fid
    }
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        self.fid
    }
}

/// Classify a VALU instruction; `None` for opcodes and controls without semantics.
pub fn classify(inst: &Inst, env: &Env) -> Option<Op> {
    let opcode = inst.opcode();
    let exact = |kind| Some(Op { opcode, kind, fid: Fidelity::Exact });
    if let Some(c) = cross(inst) {
        return exact(Kind::Cross(c));
    }
    if let Some((m, fid)) = mfma::classify(inst, env) {
        return Some(Op { opcode, kind: Kind::Mfma(Box::new(m)), fid });
    }
    match opcode {
        Opcode::V_NOP | Opcode::V_PIPEFLUSH => return exact(Kind::Nop),
        Opcode::V_CLREXCP => return Some(Op { opcode, kind: Kind::Nop, fid: Fidelity::NoEffect("VALU exception state is not modelled") }),
        Opcode::V_MFMA_LD_SCALE_B32 => return Some(Op { opcode, kind: Kind::Nop, fid: Fidelity::Approximate(mfma::scale::LD_SCALE_ALONE) }),
        _ => {}
    }
    if let Some((w, fid)) = wmma::classify(inst, env) {
        return Some(Op { opcode, kind: Kind::Wmma(Box::new(w)), fid });
    }
    if let Some((p, fid)) = cvt_scale32::classify(inst, env.decode.processor) {
        return Some(Op { opcode, kind: Kind::Pk32(Box::new(p)), fid });
    }
    if let Some(m) = mqsad::classify(inst) {
        return exact(Kind::Mqsad(m));
    }
    if vopd::is_vopd(inst) {
        let (pair, fid) = vopd::classify(inst, env.family)?;
        return Some(Op { opcode, kind: Kind::Dual(Box::new(pair)), fid });
    }
    let d = table::describe(opcode, env.family)
        .or_else(|| table::compare(opcode))
        .or_else(|| cvt8::describe(inst, env.decode.processor))
        .or_else(|| cvt_scale::describe(inst, env.decode.processor))
        .or_else(|| misc950::describe(opcode))?;
    let alu = build::alu(inst, env.family, &d)?;
    Some(Op { opcode, kind: Kind::Alu(Box::new(alu)), fid: d.fid })
}

fn vgpr(op: Option<Operand>) -> Option<u8> {
    match op? {
        Operand::Reg(Reg::Vgpr { index, .. }) => Some(index),
        _ => None,
    }
}

fn operand(inst: &Inst, name: OpName) -> Option<Operand> {
    inst.operand(name)
}

/// The lane-crossing and register-moving opcodes.
fn cross(inst: &Inst) -> Option<Cross> {
    use Opcode::*;
    let op = |n| operand(inst, n);
    Some(match inst.opcode() {
        V_READLANE_B32 => Cross::ReadLane { src: vgpr(op(OpName::src0))?, lane: op(OpName::src1)?, sdst: op(OpName::vdst)? },
        V_READFIRSTLANE_B32 => Cross::ReadFirstLane { src: vgpr(op(OpName::src0))?, sdst: op(OpName::vdst)? },
        V_WRITELANE_B32 => Cross::WriteLane { value: op(OpName::src0)?, lane: op(OpName::src1)?, dst: vgpr(op(OpName::vdst))? },
        V_PERMLANE16_B32 | V_PERMLANEX16_B32 => Cross::Permlane16 {
            src: vgpr(op(OpName::src0))?,
            sel_lo: op(OpName::src1)?,
            sel_hi: op(OpName::src2)?,
            dst: vgpr(op(OpName::vdst))?,
            // OPSEL[0] = FI, OPSEL[1] = BOUND_CTRL.
            fi: inst.src_mods(0).op_sel,
            bc: inst.src_mods(1).op_sel,
            x: inst.opcode() == V_PERMLANEX16_B32,
        },
        V_PERMLANE64_B32 => Cross::Permlane64 { src: vgpr(op(OpName::src0))?, dst: vgpr(op(OpName::vdst))? },
        V_PERMLANE16_SWAP_B32 => Cross::PermlaneSwap { src: vgpr(op(OpName::src0))?, dst: vgpr(op(OpName::vdst))?, half: 16 },
        V_PERMLANE32_SWAP_B32 => Cross::PermlaneSwap { src: vgpr(op(OpName::src0))?, dst: vgpr(op(OpName::vdst))?, half: 32 },
        V_SWAP_B32 => Cross::Swap { a: vgpr(op(OpName::vdst))?, b: vgpr(op(OpName::src0))? },
        V_MOVRELS_B32 => Cross::MovRel { src: op(OpName::src0)?, dst: vgpr(op(OpName::vdst))?, src_rel: true, dst_rel: false },
        V_MOVRELD_B32 => Cross::MovRel { src: op(OpName::src0)?, dst: vgpr(op(OpName::vdst))?, src_rel: false, dst_rel: true },
        V_MOVRELSD_B32 => Cross::MovRel { src: op(OpName::src0)?, dst: vgpr(op(OpName::vdst))?, src_rel: true, dst_rel: true },
        _ => return None,
    })
}

// Inlined into the instruction dispatch (`exec::execute`), as it was before the VGPR index
// check joined it: one call less per VALU instruction.
#[inline]
pub fn execute(op: &Op, _inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    if cx.wave.mode & MODE_GPR_IDX_EN != 0 {
        return execute_indexed(op, cx);
    }
    match &op.kind {
        Kind::Alu(a) => run_alu(a, cx),
        Kind::Dual(pair) => with_scratch(|x| {
            let [x0, x1] = x;
            let m0 = prepare(&pair[0], cx, x0);
            let m1 = prepare(&pair[1], cx, x1);
            (pair[0].k)(x0);
            (pair[1].k)(x1);
            commit(&pair[0], cx, x0, m0);
            commit(&pair[1], cx, x1, m1);
        }),
        Kind::Cross(c) => cross::execute(c, cx),
        Kind::Mfma(m) => mfma::exec::run(m, cx.wave),
        Kind::Wmma(m) => wmma::exec::execute(m, cx.wave),
        Kind::Pk32(p) => cvt_scale32::run(p, cx.wave, cx.env),
        Kind::Mqsad(m) => mqsad::run(m, cx.wave, cx.env),
        Kind::Nop => {}
    }
    Ok(Flow::Next)
}

/// The direct-path operation of `op` and its resolved operands, when it has one
/// ([`fast`]; whether it applies now is [`fast::run`]'s test): what the functional engine's
/// straight runs execute.
#[inline(always)]
pub fn direct_alu(op: &Op) -> Option<(fast::Fast, &Alu)> {
    match &op.kind {
        Kind::Alu(a) => a.fast.map(|f| (f, &**a)),
        _ => None,
    }
}

/// An instruction inside a VGPR-indexing window ([`index`]).
#[cold]
fn execute_indexed(op: &Op, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let Kind::Alu(a) = &op.kind else {
        return match op.kind {
            Kind::Nop => Ok(Flow::Next),
            _ => Err(FaultKind::NotSupported(format!("{} in VGPR index mode (s_set_gpr_idx_on)", op.opcode.name()))),
        };
    };
    // The moved operands go through the general path alone.
    let a = index::indexed(a, cx.wave.sreg[crate::wave::slot::M0])?;
    run_general(&a, cx);
    Ok(Flow::Next)
}

/// One per-lane operation: on the direct path when it applies, else the general one.
#[inline]
fn run_alu(a: &Alu, cx: &mut ExecCtx) {
    if let Some(f) = a.fast {
        if fast::run(f, a, cx.wave, cx.env) {
            return;
        }
    }
    run_general(a, cx)
}

/// One per-lane operation: gather, compute, write back.
fn run_general(a: &Alu, cx: &mut ExecCtx) {
    with_scratch(|x| {
        let m = prepare(a, cx, &mut x[0]);
        (a.k)(&mut x[0]);
        commit(a, cx, &mut x[0], m);
    })
}

/// Gather sources and the mask input; returns the lanes that may write.
fn prepare(a: &Alu, cx: &ExecCtx, x: &mut Lanes) -> u64 {
    let w = &*cx.wave;
    let n = w.lanes();
    let exec = w.exec();
    x.n = n;
    x.ctl = Ctl::from_mode(w.mode, a.clamp);
    x.aux = a.aux;
    x.cout = 0;
    let map = a.dpp.as_ref().map(|d| d.map(exec, n));
    for (i, s) in a.src.iter().enumerate() {
        if !s.is_none() {
            gather(w, cx.env, s, map.as_ref(), x, i);
        }
    }
    x.cin = match a.cin {
        Cin::None => 0,
        Cin::Vcc => w.vcc(),
        Cin::Reg(op) if w.wave64 => s64(w, cx.env, op),
        Cin::Reg(op) => s32(w, cx.env, op) as u64,
    } & w.lane_mask();
    exec & map.map_or(!0, |m| m.write)
}

/// Post-process and write results and lane masks.
fn commit(a: &Alu, cx: &mut ExecCtx, x: &mut Lanes, mask: u64) {
    let n = x.n;
    finish(&mut x.d[..n], a.dty, a.omod, a.clamp, a.ftz_out, &x.ctl);
    let w = &mut *cx.wave;
    write(w, &a.dst, &x.d, mask);
    if a.cout.to != MaskDst::None || a.cout.exec {
        let bits = x.cout & mask;
        write_mask(w, a.cout.to, bits);
        if a.cout.exec {
            w.set_exec(bits);
        }
    }
}
