//! Vector ALU (VOP1, VOP2, VOPC, VOP3, VOP3P, with SDWA/DPP forms).
//!
//! Minimal first set; the full instruction set follows the same pattern: classify once into
//! an operation, then run it for every lane enabled in EXEC.

use super::operand::{v32, v64, write_s64, write_v32, write_v64};
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand, Reg, Special};
use hipscope_isa::tables::{flags, OpName, Opcode};

#[derive(Clone)]
pub enum Op {
    /// vdst = f(src0, src1) on 32-bit lanes.
    Bin32(fn(u32, u32) -> u32),
    /// vdst = f(src0) on 32-bit lanes.
    Un32(fn(u32) -> u32),
    /// 64-bit result from (src0 dword, src1 qword): v_lshlrev_b64.
    Shl64,
    /// Carry-out add/sub: vdst = a ± b, carry/borrow to the lane mask `sdst` (VCC for VOP2).
    AddCo { sub: bool, rev: bool },
    /// Carry-in add: vdst = a + b + carry-in bit.
    AddCi { sub: bool, rev: bool },
    /// Lane mask = f(src0, src1).
    Cmp32 { f: fn(u32, u32) -> bool, cmpx: bool },
    /// vdst = lane bit of src2/VCC ? src1 : src0.
    Cndmask,
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "valu::Op")
    }
}

impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        Fidelity::Exact
    }
}

pub fn classify(inst: &Inst, env: &super::Env) -> Option<Op> {
    use Opcode::*;
    // DPP/SDWA/VOP3 source modifiers are not in this first set.
    if inst.row.has(flags::SDWA | flags::DPP) {
        return None;
    }
    let gfx8 = env.family == hipscope_isa::Family::Gfx8;
    Some(match inst.opcode() {
        V_MOV_B32 => Op::Un32(|a| a),
        V_ADD_F32 => Op::Bin32(|a, b| (f32::from_bits(a) + f32::from_bits(b)).to_bits()),
        V_LSHLREV_B32 => Op::Bin32(|a, b| b << (a & 31)),
        V_LSHLREV_B64 => Op::Shl64,
        // GFX8's v_add_u32 writes a carry (it is GFX9's v_add_co_u32).
        V_ADD_U32 if gfx8 => Op::AddCo { sub: false, rev: false },
        V_ADD_U32 | V_ADD_NC_U32 => Op::Bin32(|a, b| a.wrapping_add(b)),
        V_ADD_CO_U32 => Op::AddCo { sub: false, rev: false },
        V_ADDC_U32 | V_ADDC_CO_U32 | V_ADD_CO_CI_U32 => Op::AddCi { sub: false, rev: false },
        V_CMP_GT_U32 => Op::Cmp32 { f: |a, b| a > b, cmpx: false },
        V_CMPX_GT_U32 => Op::Cmp32 { f: |a, b| a > b, cmpx: true },
        V_CNDMASK_B32 => Op::Cndmask,
        _ => return None,
    })
}

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

/// The lane-mask destination: `sdst` if the encoding has one, else VCC.
fn mask_dst(inst: &Inst) -> Operand {
    match inst.operand(OpName::sdst) {
        Some(o @ Operand::Reg(_)) => o,
        _ => Operand::Reg(Reg::Special(Special::Vcc)),
    }
}

/// Lane-mask source (carry-in, cndmask select): `src2` in VOP3 forms, else VCC.
fn mask_src(cx: &ExecCtx, inst: &Inst) -> u64 {
    match inst.operand(OpName::src2) {
        Some(o @ Operand::Reg(_)) => super::operand::s64(cx.wave, cx.env, o),
        _ => cx.wave.vcc(),
    }
}

fn write_mask(cx: &mut ExecCtx, dst: Operand, mask: u64) {
    let w = &mut *cx.wave;
    match dst {
        Operand::Reg(Reg::Special(Special::Vcc | Special::VccLo)) => w.set_vcc(mask),
        _ if w.wave64 => write_s64(w, dst, mask),
        _ => super::operand::write_s32(w, dst, mask as u32),
    }
}

pub fn execute(sem: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let (s0, s1, dst) = (op(inst, OpName::src0), op(inst, OpName::src1), op(inst, OpName::vdst));
    let exec = cx.wave.exec();
    let lanes = cx.wave.lanes();
    match sem {
        Op::Bin32(f) => {
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                let r = f(v32(cx.wave, cx.env, s0, l), v32(cx.wave, cx.env, s1, l));
                write_v32(cx.wave, dst, l, r);
            }
        }
        Op::Un32(f) => {
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                let r = f(v32(cx.wave, cx.env, s0, l));
                write_v32(cx.wave, dst, l, r);
            }
        }
        Op::Shl64 => {
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                let r = v64(cx.wave, cx.env, s1, l) << (v32(cx.wave, cx.env, s0, l) & 63);
                write_v64(cx.wave, dst, l, r);
            }
        }
        Op::AddCo { sub, rev } | Op::AddCi { sub, rev } => {
            let carry_in = if matches!(sem, Op::AddCi { .. }) { mask_src(cx, inst) } else { 0 };
            let mut carry = 0u64;
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                let (mut a, mut b) = (v32(cx.wave, cx.env, s0, l) as u64, v32(cx.wave, cx.env, s1, l) as u64);
                if *rev {
                    std::mem::swap(&mut a, &mut b);
                }
                let c = carry_in >> l & 1;
                let (r, out) = if *sub {
                    let r = a.wrapping_sub(b).wrapping_sub(c);
                    (r, b + c > a)
                } else {
                    let r = a + b + c;
                    (r, r >> 32 != 0)
                };
                write_v32(cx.wave, dst, l, r as u32);
                carry |= (out as u64) << l;
            }
            let d = mask_dst(inst);
            write_mask(cx, d, carry);
        }
        Op::Cmp32 { f, cmpx } => {
            let mut mask = 0u64;
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                if f(v32(cx.wave, cx.env, s0, l), v32(cx.wave, cx.env, s1, l)) {
                    mask |= 1 << l;
                }
            }
            if *cmpx {
                cx.wave.set_exec(mask);
                // Pre-GFX10 v_cmpx also writes the mask to VCC / sdst.
                if cx.env.family < hipscope_isa::Family::Gfx10 {
                    let d = mask_dst(inst);
                    write_mask(cx, d, mask);
                }
            } else {
                let d = mask_dst(inst);
                write_mask(cx, d, mask);
            }
        }
        Op::Cndmask => {
            let sel = mask_src(cx, inst);
            for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
                let v = if sel >> l & 1 != 0 { v32(cx.wave, cx.env, s1, l) } else { v32(cx.wave, cx.env, s0, l) };
                write_v32(cx.wave, dst, l, v);
            }
        }
    }
    Ok(Flow::Next)
}
