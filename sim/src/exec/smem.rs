//! Scalar memory (SMEM): `s_load_*`, `s_buffer_load_*`, `s_memtime`, `s_memrealtime`,
//! scalar-cache maintenance.
//!
//! Address: `sbase` (a 64-bit address, or a buffer resource for `s_buffer_*`) plus the
//! immediate offset plus an optional `soffset` SGPR; the two low address bits are ignored
//! (ISA manuals, "Scalar Memory Operations").

use super::operand::{s32, s64, s_dword, write_s64, write_s_dword};
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::{OpName, Opcode};

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Load `dwords` dwords from a 64-bit address.
    Load { dwords: usize },
    /// Load through a buffer resource (out-of-range dwords read as 0).
    BufferLoad { dwords: usize },
    MemTime,
    MemRealTime,
    /// Scalar-cache maintenance: no effect without a cache model.
    CacheOp,
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::CacheOp => Fidelity::NoEffect("scalar cache maintenance: no scalar cache in functional mode"),
            Op::MemTime => Fidelity::Approximate("s_memtime counts instructions in functional mode"),
            Op::MemRealTime => Fidelity::Approximate("s_memrealtime counts instructions in functional mode"),
            _ => Fidelity::Exact,
        }
    }
}

fn data_dwords(inst: &Inst) -> usize {
    inst.operand(OpName::sdst).or_else(|| inst.operand(OpName::sdata)).map_or(1, super::operand::dwords)
}

pub fn classify(inst: &Inst, _env: &super::Env) -> Option<Op> {
    use Opcode::*;
    let name = inst.mnemonic();
    Some(match inst.opcode() {
        S_MEMTIME => Op::MemTime,
        S_MEMREALTIME => Op::MemRealTime,
        S_DCACHE_INV | S_DCACHE_WB | S_DCACHE_INV_VOL | S_DCACHE_WB_VOL | S_GL1_INV => Op::CacheOp,
        _ if name.starts_with("s_buffer_load_") => Op::BufferLoad { dwords: data_dwords(inst) },
        _ if name.starts_with("s_load_") => Op::Load { dwords: data_dwords(inst) },
        _ => return None,
    })
}

fn offset(inst: &Inst, cx: &ExecCtx) -> u64 {
    let imm = inst.operand(OpName::offset).map_or(0, |o| o.imm());
    let soff = match inst.operand(OpName::soffset) {
        Some(op @ Operand::Reg(_)) => s32(cx.wave, cx.env, op) as u64,
        _ => 0,
    };
    (imm as u64).wrapping_add(soff)
}

pub fn execute(op: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let dst = inst.operand(OpName::sdst).or_else(|| inst.operand(OpName::sdata)).unwrap_or(Operand::Absent);
    match *op {
        Op::Load { dwords } => {
            let base = s64(cx.wave, cx.env, inst.operand(OpName::sbase).unwrap_or(Operand::Absent));
            let address = base.wrapping_add(offset(inst, cx)) & !3;
            for k in 0..dwords {
                let a = address + 4 * k as u64;
                let v = cx.mem.read_u32(a).map_err(|e| FaultKind::MemoryViolation { lane: 0, address: e.address, size: 4 })?;
                write_s_dword(cx.wave, dst, k, v);
            }
        }
        Op::BufferLoad { dwords } => {
            let rsrc = inst.operand(OpName::sbase).unwrap_or(Operand::Absent);
            let base = s_dword(cx.wave, rsrc, 0) as u64 | ((s_dword(cx.wave, rsrc, 1) & 0xffff) as u64) << 32;
            let num_records = s_dword(cx.wave, rsrc, 2) as u64;
            let off = offset(inst, cx) & !3;
            for k in 0..dwords {
                let o = off + 4 * k as u64;
                let v = if o + 4 <= num_records {
                    cx.mem.read_u32(base + o).map_err(|e| FaultKind::MemoryViolation { lane: 0, address: e.address, size: 4 })?
                } else {
                    0
                };
                write_s_dword(cx.wave, dst, k, v);
            }
        }
        Op::MemTime => write_s64(cx.wave, dst, cx.env.clock),
        Op::MemRealTime => write_s64(cx.wave, dst, cx.env.realtime),
        Op::CacheOp => {}
    }
    Ok(Flow::Next)
}
