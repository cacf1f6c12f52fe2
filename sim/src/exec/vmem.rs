//! Vector memory: FLAT, GLOBAL, SCRATCH and buffer (MUBUF/MTBUF) loads, stores and atomics.
//!
//! Minimal first set: global/flat dword loads and stores. Addresses: GLOBAL with `saddr` is
//! `saddr + zext(vaddr32) + offset`, without it `vaddr64 + offset`; FLAT is `vaddr64 +
//! offset` (ISA manuals, "Global/Flat/Scratch addressing").

use super::operand::{s64, v32, v64, v_dword, write_v_dword};
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::{Inst, Operand, Reg, Special};
use hipscope_isa::tables::{flags, OpName};

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Load { dwords: usize },
    Store { dwords: usize },
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        Fidelity::Exact
    }
}

/// Dword count from a mnemonic suffix (`dword`, `dwordx2`.., `b32`, `b64`, `b96`, `b128`).
fn dwords_of(suffix: &str) -> Option<usize> {
    Some(match suffix {
        "dword" | "b32" => 1,
        "dwordx2" | "b64" => 2,
        "dwordx3" | "b96" => 3,
        "dwordx4" | "b128" => 4,
        _ => return None,
    })
}

pub fn classify(inst: &Inst, _env: &super::Env) -> Option<Op> {
    if !inst.row.has(flags::FLAT) || inst.row.has(flags::FLATSCRATCH) {
        return None;
    }
    let name = inst.mnemonic();
    let rest = name.strip_prefix("global_").or_else(|| name.strip_prefix("flat_"))?;
    if let Some(s) = rest.strip_prefix("load_") {
        return dwords_of(s).map(|dwords| Op::Load { dwords });
    }
    if let Some(s) = rest.strip_prefix("store_") {
        return dwords_of(s).map(|dwords| Op::Store { dwords });
    }
    None
}

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

fn has_saddr(saddr: Operand) -> bool {
    matches!(saddr, Operand::Reg(r) if !matches!(r, Reg::Special(Special::Null)))
}

/// Per-lane address of a GLOBAL/FLAT access.
fn address(cx: &ExecCtx, inst: &Inst, lane: usize) -> u64 {
    let offset = inst.offset() as u64;
    let vaddr = op(inst, OpName::vaddr);
    let saddr = op(inst, OpName::saddr);
    if has_saddr(saddr) {
        s64(cx.wave, cx.env, saddr).wrapping_add(v32(cx.wave, cx.env, vaddr, lane) as u64).wrapping_add(offset)
    } else {
        v64(cx.wave, cx.env, vaddr, lane).wrapping_add(offset)
    }
}

pub fn execute(sem: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let exec = cx.wave.exec();
    for lane in (0..cx.wave.lanes()).filter(|l| exec >> l & 1 != 0) {
        let a = address(cx, inst, lane);
        let fault = |e: crate::memory::Unmapped| FaultKind::MemoryViolation { lane: lane as u32, address: e.address, size: e.size };
        match *sem {
            Op::Load { dwords } => {
                let dst = op(inst, OpName::vdst);
                for k in 0..dwords {
                    let v = cx.mem.read_u32(a + 4 * k as u64).map_err(fault)?;
                    write_v_dword(cx.wave, dst, k, lane, v);
                }
            }
            Op::Store { dwords } => {
                let data = op(inst, OpName::vdata);
                for k in 0..dwords {
                    let v = v_dword(cx.wave, data, k, lane);
                    cx.mem.write_u32(a + 4 * k as u64, v).map_err(fault)?;
                }
            }
        }
    }
    Ok(Flow::Next)
}
