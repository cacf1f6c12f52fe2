//! Scalar ALU (SOP1, SOP2, SOPC, SOPK).
//!
//! Semantics follow the ISA manuals' SALU tables: 32/64-bit integer arithmetic and logic,
//! SCC results, EXEC-manipulating `s_*_saveexec_*`, comparisons, moves and hardware-register
//! access.

use super::operand::{s32, s64, write_s32, write_s64};
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::{OpName, Opcode};

/// A 32-bit two-source operation: result and SCC (None = SCC unchanged).
pub type Bin32 = fn(u32, u32, bool) -> (u32, Option<bool>);
/// A 64-bit two-source operation.
pub type Bin64 = fn(u64, u64, bool) -> (u64, Option<bool>);

#[derive(Clone)]
pub enum Op {
    Bin32(Bin32),
    Bin64(Bin64),
    Mov32,
    Mov64,
    /// `s_cmp_*`: SCC = f(src0, src1).
    Cmp32(fn(u32, u32) -> bool),
    Cmp64(fn(u64, u64) -> bool),
    /// `s_<op>_saveexec_b64/b32`: sdst = EXEC; EXEC = op(src, EXEC); SCC = EXEC != 0.
    SaveExec { op: fn(u64, u64) -> u64, wide: bool },
    /// `s_movk_i32` / `s_cmpk_*`: sign-extended 16-bit immediate.
    MovK,
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Bin32(_) => "Bin32",
            Op::Bin64(_) => "Bin64",
            Op::Mov32 => "Mov32",
            Op::Mov64 => "Mov64",
            Op::Cmp32(_) => "Cmp32",
            Op::Cmp64(_) => "Cmp64",
            Op::SaveExec { .. } => "SaveExec",
            Op::MovK => "MovK",
        })
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

pub fn classify(inst: &Inst, _env: &super::Env) -> Option<Op> {
    use Opcode::*;
    Some(match inst.opcode() {
        S_MOV_B32 => Op::Mov32,
        S_MOV_B64 => Op::Mov64,
        S_MOVK_I32 => Op::MovK,
        S_ADD_U32 => Op::Bin32(|a, b, _| {
            let (r, c) = a.overflowing_add(b);
            (r, Some(c))
        }),
        S_ADDC_U32 => Op::Bin32(|a, b, c| {
            let r = a as u64 + b as u64 + c as u64;
            (r as u32, Some(r >> 32 != 0))
        }),
        S_SUB_U32 => Op::Bin32(|a, b, _| (a.wrapping_sub(b), Some(b > a))),
        S_MUL_I32 => Op::Bin32(|a, b, _| (a.wrapping_mul(b), None)),
        S_AND_B32 => Op::Bin32(|a, b, _| (a & b, Some(a & b != 0))),
        S_OR_B32 => Op::Bin32(|a, b, _| (a | b, Some(a | b != 0))),
        S_XOR_B32 => Op::Bin32(|a, b, _| (a ^ b, Some(a ^ b != 0))),
        S_LSHL_B32 => Op::Bin32(|a, b, _| (a << (b & 31), Some(a << (b & 31) != 0))),
        S_LSHR_B32 => Op::Bin32(|a, b, _| (a >> (b & 31), Some(a >> (b & 31) != 0))),
        S_AND_B64 => Op::Bin64(|a, b, _| (a & b, Some(a & b != 0))),
        S_OR_B64 => Op::Bin64(|a, b, _| (a | b, Some(a | b != 0))),
        S_XOR_B64 => Op::Bin64(|a, b, _| (a ^ b, Some(a ^ b != 0))),
        S_ANDN2_B64 | S_AND_NOT1_B64 => Op::Bin64(|a, b, _| (a & !b, Some(a & !b != 0))),
        S_CMP_EQ_U32 | S_CMP_EQ_I32 => Op::Cmp32(|a, b| a == b),
        S_CMP_LG_U32 | S_CMP_LG_I32 => Op::Cmp32(|a, b| a != b),
        S_CMP_LT_U32 => Op::Cmp32(|a, b| a < b),
        S_CMP_LT_I32 => Op::Cmp32(|a, b| (a as i32) < (b as i32)),
        S_CMP_GT_U32 => Op::Cmp32(|a, b| a > b),
        S_CMP_GT_I32 => Op::Cmp32(|a, b| (a as i32) > (b as i32)),
        S_AND_SAVEEXEC_B64 => Op::SaveExec { op: |s, e| s & e, wide: true },
        S_AND_SAVEEXEC_B32 => Op::SaveExec { op: |s, e| s & e, wide: false },
        _ => return None,
    })
}

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

pub fn execute(sem: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let (w, env) = (&mut *cx.wave, cx.env);
    let dst = op(inst, OpName::sdst);
    match sem {
        Op::Mov32 => {
            let v = s32(w, env, op(inst, OpName::src0));
            write_s32(w, dst, v);
        }
        Op::Mov64 => {
            let v = s64(w, env, op(inst, OpName::src0));
            write_s64(w, dst, v);
        }
        Op::MovK => {
            let v = op(inst, OpName::simm16).imm() as i16 as i32 as u32;
            write_s32(w, dst, v);
        }
        Op::Bin32(f) => {
            let (a, b) = (s32(w, env, op(inst, OpName::src0)), s32(w, env, op(inst, OpName::src1)));
            let (r, scc) = f(a, b, w.scc);
            write_s32(w, dst, r);
            if let Some(c) = scc {
                w.scc = c;
            }
        }
        Op::Bin64(f) => {
            let (a, b) = (s64(w, env, op(inst, OpName::src0)), s64(w, env, op(inst, OpName::src1)));
            let (r, scc) = f(a, b, w.scc);
            write_s64(w, dst, r);
            if let Some(c) = scc {
                w.scc = c;
            }
        }
        Op::Cmp32(f) => w.scc = f(s32(w, env, op(inst, OpName::src0)), s32(w, env, op(inst, OpName::src1))),
        Op::Cmp64(f) => w.scc = f(s64(w, env, op(inst, OpName::src0)), s64(w, env, op(inst, OpName::src1))),
        Op::SaveExec { op: f, wide } => {
            let old = w.exec();
            let src = if *wide { s64(w, env, op(inst, OpName::src0)) } else { s32(w, env, op(inst, OpName::src0)) as u64 };
            if *wide {
                write_s64(w, dst, old);
            } else {
                write_s32(w, dst, old as u32);
            }
            let new = f(src, old) & w.lane_mask();
            w.set_exec(new);
            w.scc = new != 0;
        }
    }
    Ok(Flow::Next)
}
