//! Which code a kernel can run besides its own: the functions it calls.
//!
//! A kernel is decoded from its entry to the end of its symbol only, so that a code object of
//! thousands of kernels (a ROCm library's) costs memory per kernel that runs, not per kernel it
//! holds. Calls leave that range. The compiler materialises a callee's address PC-relatively
//! (AMDGPUUsage, "Call Convention" and the `R_AMDGPU_REL32_LO/HI` relocations it resolves):
//!
//! ```text
//! s_getpc_b64  s[4:5]                 ; s[4:5] = address of the next instruction
//! s_add_u32    s4, s4, callee@rel32@lo+4
//! s_addc_u32   s5, s5, callee@rel32@hi+12
//! s_swappc_b64 s[30:31], s[4:5]
//! ```
//!
//! so following `s_getpc_b64` and the constant adds that build on it (GFX12 spells them
//! `s_add_co_u32` / `s_add_co_ci_u32`) gives every address the code computes that way; those
//! that start a function symbol are its callees. `s_call_b64` (GFX10+) names its target
//! directly. A call through an address loaded from memory (a function pointer) cannot be
//! followed; [`Reach::unresolved_calls`] says whether the code makes one.

use super::{CodeSlot, ExecInst};
use hipscope_isa::decode::{Operand, Reg};
use hipscope_isa::tables::{flags, OpName, Opcode};
use std::collections::BTreeMap;

/// What a stretch of decoded code reaches.
#[derive(Debug, Default)]
pub struct Reach {
    /// Addresses built by `s_getpc_b64` plus constants, and direct call targets.
    pub targets: Vec<u64>,
    /// Calls whose target is not one of `targets`' constructions (an indirect call).
    pub unresolved_calls: bool,
}

/// The 32-bit halves of scalar registers whose value is known (a PC-relative construction).
#[derive(Default)]
struct Known {
    regs: BTreeMap<u8, u32>,
    /// The carry of the last `s_add_u32` that produced a known value.
    carry: u32,
}

impl Known {
    fn get(&self, op: Option<Operand>) -> Option<u32> {
        match op? {
            Operand::Reg(Reg::Sgpr { index, .. }) => self.regs.get(&index).copied(),
            Operand::Imm(v) => Some(v as u32),
            _ => None,
        }
    }

    fn pair(&self, op: Option<Operand>) -> Option<u64> {
        let Some(Operand::Reg(Reg::Sgpr { index, .. })) = op else { return None };
        let lo = *self.regs.get(&index)?;
        let hi = *self.regs.get(&index.checked_add(1)?)?;
        Some(u64::from(hi) << 32 | u64::from(lo))
    }

    /// Forget what `inst` overwrites in its scalar destination.
    fn clobber(&mut self, inst: &hipscope_isa::decode::Inst) {
        if let Some(Operand::Reg(Reg::Sgpr { index, count })) = inst.operand(OpName::sdst) {
            for r in index..index.saturating_add(count.max(1)) {
                self.regs.remove(&r);
            }
        }
    }
}

fn sgpr(op: Option<Operand>) -> Option<u8> {
    match op? {
        Operand::Reg(Reg::Sgpr { index, .. }) => Some(index),
        _ => None,
    }
}

/// Scan `code` (one function or kernel, in address order) for the addresses it computes.
pub fn scan(code: &[CodeSlot]) -> Reach {
    let mut reach = Reach::default();
    let mut known = Known::default();
    for slot in code {
        let CodeSlot::Inst(ExecInst { inst, .. }) = slot else { continue };
        match inst.opcode() {
            Opcode::S_GETPC_B64 => {
                known.clobber(inst);
                if let Some(d) = sgpr(inst.operand(OpName::sdst)) {
                    let pc = inst.next_address();
                    known.regs.insert(d, pc as u32);
                    known.regs.insert(d.saturating_add(1), (pc >> 32) as u32);
                }
            }
            Opcode::S_ADD_U32 | Opcode::S_ADD_CO_U32 => {
                let sum = known.get(inst.operand(OpName::src0)).zip(known.get(inst.operand(OpName::src1)));
                known.clobber(inst);
                if let (Some((a, b)), Some(d)) = (sum, sgpr(inst.operand(OpName::sdst))) {
                    let (v, c) = a.overflowing_add(b);
                    known.regs.insert(d, v);
                    known.carry = u32::from(c);
                }
            }
            Opcode::S_ADDC_U32 | Opcode::S_ADD_CO_CI_U32 => {
                let sum = known.get(inst.operand(OpName::src0)).zip(known.get(inst.operand(OpName::src1)));
                let lo = sgpr(inst.operand(OpName::sdst)).and_then(|d| d.checked_sub(1)).and_then(|l| known.regs.get(&l).copied());
                known.clobber(inst);
                if let (Some((a, b)), Some(d)) = (sum, sgpr(inst.operand(OpName::sdst))) {
                    let hi = a.wrapping_add(b).wrapping_add(known.carry);
                    known.regs.insert(d, hi);
                    if let Some(lo) = lo {
                        reach.targets.push(u64::from(hi) << 32 | u64::from(lo));
                    }
                }
            }
            Opcode::S_CALL_B64 => {
                if let Some(t) = inst.branch_target() {
                    reach.targets.push(t);
                }
                known.clobber(inst);
            }
            _ if inst.has(flags::ISCALL) => {
                if known.pair(inst.operand(OpName::src0)).is_none() {
                    reach.unresolved_calls = true;
                }
                known.clobber(inst);
            }
            _ => known.clobber(inst),
        }
    }
    reach
}
