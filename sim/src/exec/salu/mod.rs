//! Scalar ALU (SOP1, SOP2, SOPC, SOPK).
//!
//! Each instruction is classified once into an [`Op`] that holds its resolved operands, so
//! executing needs no operand lookup by name. The operation families live in submodules:
//! [`int`] (SOP2/SOPC/SOPK integer), [`unary`] (SOP1), [`exec_mask`] (saveexec/wrexec),
//! [`control`] (PC and M0-relative moves), [`hwreg`] (getreg/setreg, sendmsg_rtn) and
//! [`float`] (GFX11.5/GFX12 SALU floats).
//!
//! Literal constants: a SALU instruction carries at most one 32-bit literal. Used as a 64-bit
//! operand it is zero-extended for unsigned and bitwise (`_b64`/`_u64`) operands,
//! sign-extended for signed (`_i64`) ones, and supplies the high half of a 64-bit float (ISA
//! manuals, "Literal Expansion to 64 bits" / "Literal constants"). The decoder zero-extends;
//! [`signed64`] corrects the signed operands of `s_ashr_i64` and `s_bfe_i64`.

pub mod control;
pub mod exec_mask;
pub mod float;
pub mod fp;
pub mod hwreg;
pub mod int;
pub mod unary;

use super::operand::{s32, s64, write_s32, write_s64};
use super::{Env, ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use control::MovRel;
use exec_mask::ExecOp;
use float::{Float, Shape};
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::{OpName, Opcode};
use hwreg::Field;
use int::{Alu32, Alu64, Cmp, KOp};
use unary::Unary;

/// A classified SALU instruction with its operands.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// D.b32 = op(S0, S1); SCC per operation.
    Alu32 {
        op: Alu32,
        d: Operand,
        a: Operand,
        b: Operand,
    },
    /// D.b64 = op(S0.b64, S1); SCC per operation.
    Alu64 {
        op: Alu64,
        d: Operand,
        a: Operand,
        b: Operand,
    },
    /// One-source operation with its source and destination widths.
    Unary {
        op: Unary,
        d: Operand,
        a: Operand,
        src64: bool,
        dst64: bool,
    },
    /// SCC = compare(S0, S1).
    Cmp {
        op: Cmp,
        a: Operand,
        b: Operand,
        wide: bool,
    },
    /// `s_cmov_b32/b64`: if SCC, D = S0.
    Cmov {
        d: Operand,
        a: Operand,
        wide: bool,
    },
    /// `s_bitset0/1`: set bit S0 of D to `value`.
    BitSet {
        d: Operand,
        a: Operand,
        value: bool,
        wide: bool,
    },
    /// SOPK on D and a 16-bit immediate.
    K {
        op: KOp,
        d: Operand,
        imm: u16,
    },
    /// saveexec (`write_new` = false) and wrexec (true).
    Exec {
        op: ExecOp,
        d: Operand,
        a: Operand,
        wide: bool,
        write_new: bool,
    },
    GetPc {
        d: Operand,
    },
    SetPc {
        a: Operand,
    },
    SwapPc {
        d: Operand,
        a: Operand,
    },
    /// `s_call_b64`: D = next PC; jump by `offset` bytes from the next instruction.
    Call {
        d: Operand,
        offset: i64,
    },
    MovRel {
        op: MovRel,
        d: Operand,
        a: Operand,
    },
    GetReg {
        d: Operand,
        field: Field,
    },
    /// `s_setreg_b32` (source SGPR) and `s_setreg_imm32_b32` (literal).
    SetReg {
        src: Operand,
        field: Field,
    },
    SendMsgRtn {
        d: Operand,
        msg: u32,
        wide: bool,
    },
    /// Float operation: D = f(S0, S1, S2), or SCC = f(S0, S1) for comparisons.
    Float {
        f: Float,
        d: Operand,
        a: Operand,
        b: Operand,
        c: Operand,
    },
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match *self {
            Op::GetReg { field, .. } => hwreg::read_fidelity(field.reg).map_or(Fidelity::Exact, Fidelity::Approximate),
            Op::SetReg { field, .. } => hwreg::write_fidelity(field.reg).map_or(Fidelity::Exact, Fidelity::Approximate),
            Op::SendMsgRtn { msg, .. } => Fidelity::Approximate(hwreg::message_fidelity(msg)),
            Op::MovRel { .. } => Fidelity::Exact,
            Op::Float { f, .. } if f.half && !matches!(f.op, float::FOp::Cmp(_)) => {
                Fidelity::Approximate("f16 SALU result: the upper 16 bits of the SGPR are written as zero")
            }
            _ => Fidelity::Exact,
        }
    }
}

/// An operand by name (`Absent` when the encoding has none).
pub(super) fn opd(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

/// A literal used as a signed 64-bit operand is sign-extended (see the module comment).
pub fn signed64(inst: &Inst, op: Operand) -> Operand {
    match (op, inst.literal) {
        (Operand::Imm(v), Some(lit)) if v == lit as i64 => Operand::Imm(lit as i32 as i64),
        _ => op,
    }
}

pub fn classify(inst: &Inst, env: &Env) -> Option<Op> {
    let code = inst.opcode();
    let (d, a, b) = (opd(inst, OpName::sdst), opd(inst, OpName::src0), opd(inst, OpName::src1));
    if let Some(op) = int::alu32_of(code) {
        return Some(Op::Alu32 { op, d, a, b });
    }
    if let Some(op) = int::alu64_of(code) {
        let a = if matches!(op, Alu64::Ashr | Alu64::BfeI) { signed64(inst, a) } else { a };
        return Some(Op::Alu64 { op, d, a, b });
    }
    if let Some((op, wide)) = int::cmp_of(code) {
        return Some(Op::Cmp { op, a, b, wide });
    }
    if let Some(op) = int::kop_of(code) {
        return Some(Op::K { op, d, imm: opd(inst, OpName::simm16).imm() as u16 });
    }
    if let Some((op, src64, dst64)) = unary::unary_of(code) {
        return Some(Op::Unary { op, d, a, src64, dst64 });
    }
    if let Some((op, wide, write_new)) = exec_mask::exec_op_of(code) {
        return Some(Op::Exec { op, d, a, wide, write_new });
    }
    if let Some((f, shape)) = float::float_of(code, env.family) {
        return Some(float_op(inst, f, shape, d, a, b));
    }
    other(inst, env, code, d, a)
}

/// Arrange the operands of a float operation as D = f(a, b, c).
fn float_op(inst: &Inst, f: Float, shape: Shape, d: Operand, a: Operand, b: Operand) -> Op {
    let k = opd(inst, OpName::imm);
    let (b, c) = match shape {
        Shape::Fmac => (b, d),
        Shape::Fmaak => (b, k),
        Shape::Fmamk => (k, b),
        _ => (b, Operand::Absent),
    };
    Op::Float { f, d, a, b, c }
}

/// Everything that is neither plain arithmetic nor a float operation.
fn other(inst: &Inst, env: &Env, code: Opcode, d: Operand, a: Operand) -> Option<Op> {
    use Opcode::*;
    let simm16 = opd(inst, OpName::simm16).imm() as u16;
    Some(match code {
        S_CMOV_B32 => Op::Cmov { d, a, wide: false },
        S_CMOV_B64 => Op::Cmov { d, a, wide: true },
        S_BITSET0_B32 => Op::BitSet { d, a, value: false, wide: false },
        S_BITSET0_B64 => Op::BitSet { d, a, value: false, wide: true },
        S_BITSET1_B32 => Op::BitSet { d, a, value: true, wide: false },
        S_BITSET1_B64 => Op::BitSet { d, a, value: true, wide: true },
        S_GETPC_B64 => Op::GetPc { d },
        S_SETPC_B64 => Op::SetPc { a },
        S_SWAPPC_B64 => Op::SwapPc { d, a },
        S_CALL_B64 => Op::Call { d, offset: simm16 as i16 as i64 * 4 },
        S_MOVRELS_B32 => mov_rel(MovRel::Source { wide: false }, d, a)?,
        S_MOVRELS_B64 => mov_rel(MovRel::Source { wide: true }, d, a)?,
        S_MOVRELD_B32 => mov_rel(MovRel::Dest { wide: false }, d, a)?,
        S_MOVRELD_B64 => mov_rel(MovRel::Dest { wide: true }, d, a)?,
        S_MOVRELSD_2_B32 => mov_rel(MovRel::Both, d, a)?,
        S_GETREG_B32 => Op::GetReg { d, field: Field::decode(simm16, env.family) },
        S_SETREG_B32 => Op::SetReg { src: d, field: Field::decode(simm16, env.family) },
        S_SETREG_IMM32_B32 => Op::SetReg { src: opd(inst, OpName::imm), field: Field::decode(simm16, env.family) },
        S_SENDMSG_RTN_B32 => Op::SendMsgRtn { d, msg: a.imm() as u32 & 0xff, wide: false },
        S_SENDMSG_RTN_B64 => Op::SendMsgRtn { d, msg: a.imm() as u32 & 0xff, wide: true },
        _ => return None,
    })
}

fn mov_rel(op: MovRel, d: Operand, a: Operand) -> Option<Op> {
    control::operands_fit(op, d, a).then_some(Op::MovRel { op, d, a })
}

/// Read a source as 32 or 64 bits (zero-extended).
#[inline]
fn src(w: &crate::wave::Wave, env: &Env, op: Operand, wide: bool) -> u64 {
    if wide {
        s64(w, env, op)
    } else {
        s32(w, env, op) as u64
    }
}

#[inline]
fn dst(w: &mut crate::wave::Wave, op: Operand, v: u64, wide: bool) {
    if wide {
        write_s64(w, op, v)
    } else {
        write_s32(w, op, v as u32)
    }
}

/// Whether `op` only computes on scalar registers, SCC and EXEC: no memory, no jump, no clock,
/// no MODE or hardware register, and no fault. [`execute_register`] runs exactly these, so the
/// functional engine may run them inside a straight run (`engine::straight`).
#[inline]
pub fn register_only(op: &Op) -> bool {
    matches!(op, Op::Alu32 { .. } | Op::Alu64 { .. } | Op::Unary { .. } | Op::Cmp { .. } | Op::Cmov { .. } | Op::BitSet { .. } | Op::K { .. } | Op::Exec { .. })
}

/// Execute `op` if it is [`register_only`] (true); false, with nothing done, for the others.
/// This is the one implementation of these operations: [`execute`] runs them through it too.
#[inline(always)]
pub fn execute_register(op: &Op, w: &mut crate::wave::Wave, env: &Env) -> bool {
    match *op {
        Op::Alu32 { op, d, a, b } => {
            let (r, scc) = int::alu32(op, s32(w, env, a), s32(w, env, b), w.scc);
            write_s32(w, d, r);
            set_scc(w, scc);
        }
        Op::Alu64 { op, d, a, b } => {
            let (r, scc) = int::alu64(op, s64(w, env, a), s64(w, env, b), w.scc);
            write_s64(w, d, r);
            set_scc(w, scc);
        }
        Op::Unary { op, d, a, src64, dst64 } => {
            let (r, scc) = unary::unary(op, src(w, env, a, src64), if src64 { 64 } else { 32 });
            dst(w, d, r, dst64);
            set_scc(w, scc);
        }
        Op::Cmp { op, a, b, wide: false } => w.scc = int::cmp32(op, s32(w, env, a), s32(w, env, b)),
        // s_bitcmp*_b64 take a 32-bit bit index; only its low bits are used.
        Op::Cmp { op, a, b, wide: true } => w.scc = int::cmp64(op, s64(w, env, a), s64(w, env, b)),
        Op::Cmov { d, a, wide } => {
            if w.scc {
                let v = src(w, env, a, wide);
                dst(w, d, v, wide);
            }
        }
        Op::BitSet { d, a, value, wide } => bit_set(w, env, d, a, value, wide),
        Op::K { op, d, imm } => {
            let (r, scc) = int::kop(op, s32(w, env, d), imm, w.scc);
            if let Some(r) = r {
                write_s32(w, d, r);
            }
            set_scc(w, scc);
        }
        Op::Exec { op, d, a, wide, write_new } => exec(w, env, op, d, a, wide, write_new),
        _ => return false,
    }
    true
}

pub fn execute(op: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let (w, env) = (&mut *cx.wave, cx.env);
    if execute_register(op, w, env) {
        return Ok(Flow::Next);
    }
    match *op {
        Op::GetPc { d } => write_s64(w, d, inst.next_address()),
        Op::SetPc { a } => return Ok(Flow::Jump(s64(w, env, a))),
        Op::SwapPc { d, a } => {
            let target = s64(w, env, a);
            write_s64(w, d, inst.next_address());
            return Ok(Flow::Jump(target));
        }
        Op::Call { d, offset } => {
            write_s64(w, d, inst.next_address());
            return Ok(Flow::Jump(inst.next_address().wrapping_add(offset as u64)));
        }
        Op::MovRel { op, d, a } => control::mov_rel(op, w, env, d, a),
        Op::GetReg { d, field } => write_s32(w, d, hwreg::get(field, w, env)),
        Op::SetReg { src, field } => {
            let v = s32(w, env, src);
            hwreg::set(field, w, v);
        }
        Op::SendMsgRtn { d, msg, wide } => dst(w, d, hwreg::message_value(msg, env), wide),
        Op::Float { f, d, a, b, c } => {
            let r = float::eval(f, s32(w, env, a), s32(w, env, b), s32(w, env, c), w.mode);
            if matches!(f.op, float::FOp::Cmp(_)) {
                w.scc = r != 0;
            } else {
                write_s32(w, d, r);
            }
        }
        // Run by `execute_register` above.
        Op::Alu32 { .. } | Op::Alu64 { .. } | Op::Unary { .. } | Op::Cmp { .. } | Op::Cmov { .. } | Op::BitSet { .. } | Op::K { .. } | Op::Exec { .. } => {}
    }
    Ok(Flow::Next)
}

#[inline]
fn set_scc(w: &mut crate::wave::Wave, scc: Option<bool>) {
    if let Some(c) = scc {
        w.scc = c;
    }
}

fn bit_set(w: &mut crate::wave::Wave, env: &Env, d: Operand, a: Operand, value: bool, wide: bool) {
    let bits = if wide { 63 } else { 31 };
    let bit = 1u64 << (s32(w, env, a) & bits);
    let old = src(w, env, d, wide);
    let new = if value { old | bit } else { old & !bit };
    dst(w, d, new, wide);
}

/// saveexec / wrexec. The `_b32` forms act on EXEC_LO; `_b64` on the wave's EXEC.
fn exec(w: &mut crate::wave::Wave, env: &Env, op: ExecOp, d: Operand, a: Operand, wide: bool, write_new: bool) {
    let s = src(w, env, a, wide);
    let (old, mask) = if wide { (w.exec(), w.lane_mask()) } else { (w.exec() & 0xffff_ffff, 0xffff_ffff) };
    let new = exec_mask::apply(op, s, old) & mask;
    dst(w, d, if write_new { new } else { old }, wide);
    if wide {
        w.set_exec(new);
    } else {
        w.sreg[crate::wave::slot::EXEC_LO] = new as u32;
    }
    w.scc = new != 0;
}
