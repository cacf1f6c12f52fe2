//! Program control: branches, `s_endpgm`, barriers, waits, hints, messages, traps, MODE
//! shortcuts (`s_round_mode`, `s_denorm_mode`) and GFX8/9 VGPR index mode.
//!
//! Mostly SOPP; also the SOPK waits (`s_waitcnt_vscnt` ...), the SOPC/SOP1 `s_set_gpr_idx_*`
//! and the GFX12 SOP1 `s_barrier_signal` / `s_sleep_var`. In functional mode memory completes
//! immediately, so the wait-counter instructions have no effect; the timing model gives them
//! one. Semantics: ISA manuals, "SOPP Instructions"; trap ids: LLVM AMDGPUUsage "Trap Handler
//! ABI" (`s_trap 3` is `llvm.debugtrap`, a no-op without a debugger; other ids end the
//! dispatch); `s_sendmsg` ids: ISA manuals, "S_SENDMSG" (id in simm16[3:0] before GFX11,
//! [7:0] from GFX11; MSG_DEALLOC_VGPRS = 3 on GFX11+).

use super::operand::s32;
use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use crate::wave::slot;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::{OpName, Opcode};
use hipscope_isa::Family;

/// Branch conditions of `s_cbranch_*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cond {
    Scc0,
    Scc1,
    Vccz,
    Vccnz,
    Execz,
    Execnz,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    EndPgm,
    Branch,
    CBranch(Cond),
    /// `s_cbranch_cdbg*`: taken only when a debugger sets the condition bits; none is attached.
    DebugBranch,
    Barrier,
    /// Waits, hints and no-ops: nothing to do in functional mode.
    Nop(&'static str),
    /// `s_sleep`, `s_sleep_var`: let other waves run.
    Sleep,
    /// `s_trap` other than the debug trap: no trap handler, the dispatch ends with a fault.
    Trap,
    /// `s_sethalt 1`, `s_sendmsghalt`: the wave stops until the host resumes it (never).
    Halt,
    /// A message the model does not act on.
    SendMsg,
    /// MODE[3:0] = simm16[3:0].
    RoundMode,
    /// MODE[7:4] = simm16[3:0].
    DenormMode,
    /// GFX8/9 `s_set_gpr_idx_on`: M0[7:0] = S0[7:0], M0[15:12] = the SRC0/SRC1/SRC2/DST enable
    /// bits, MODE.GPR_IDX_EN = 1.
    GprIdxOn {
        index: Operand,
        enables: u32,
    },
    /// `s_set_gpr_idx_off`: MODE.GPR_IDX_EN = 0.
    GprIdxOff,
    /// `s_set_gpr_idx_mode`: M0[15:12] = simm16[3:0].
    GprIdxMode {
        enables: u32,
    },
    /// `s_set_gpr_idx_idx`: M0[7:0] = S0[7:0].
    GprIdxIdx {
        index: Operand,
    },
}

/// MODE.GPR_IDX_EN (GCN3/Vega ISA, "MODE register", bit 27).
pub const MODE_GPR_IDX_EN: u32 = 1 << 27;

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::Nop(why) => Fidelity::NoEffect(why),
            Op::SendMsg => Fidelity::Approximate("message not modelled: no effect"),
            _ => Fidelity::Exact,
        }
    }
}

const WAIT: &str = "wait counters: memory completes at once in functional mode";
const HINT: &str = "scheduling or performance hint";

fn simm16(inst: &Inst) -> u32 {
    inst.operand(OpName::simm16).map_or(0, |o| o.imm() as u32 & 0xffff)
}

pub fn classify(inst: &Inst, env: &super::Env) -> Option<Op> {
    use Opcode::*;
    let imm = simm16(inst);
    Some(match inst.opcode() {
        S_ENDPGM | S_ENDPGM_SAVED | S_ENDPGM_ORDERED_PS_DONE => Op::EndPgm,
        S_BRANCH => Op::Branch,
        S_CBRANCH_SCC0 => Op::CBranch(Cond::Scc0),
        S_CBRANCH_SCC1 => Op::CBranch(Cond::Scc1),
        S_CBRANCH_VCCZ => Op::CBranch(Cond::Vccz),
        S_CBRANCH_VCCNZ => Op::CBranch(Cond::Vccnz),
        S_CBRANCH_EXECZ => Op::CBranch(Cond::Execz),
        S_CBRANCH_EXECNZ => Op::CBranch(Cond::Execnz),
        S_CBRANCH_CDBGSYS | S_CBRANCH_CDBGUSER | S_CBRANCH_CDBGSYS_OR_USER | S_CBRANCH_CDBGSYS_AND_USER => Op::DebugBranch,
        S_BARRIER => Op::Barrier,
        // GFX12: `s_barrier_signal -1` is the work-group barrier; the wave waits at the signal,
        // which the later `s_barrier_wait` then finds complete. Named barriers (M0 form,
        // other ids) and `_isfirst` (SCC from the barrier unit) are not modelled.
        S_BARRIER_SIGNAL if inst.operand(OpName::src0) == Some(Operand::Imm(-1)) => Op::Barrier,
        S_BARRIER_WAIT => Op::Nop("barrier wait: the wave already waited at s_barrier_signal"),
        S_SLEEP | S_SLEEP_VAR => Op::Sleep,
        S_TRAP if imm & 0xff == 3 => Op::Nop("s_trap 3 (llvm.debugtrap): no debugger attached"),
        S_TRAP => Op::Trap,
        S_SETHALT if imm & 1 == 0 => Op::Nop("s_sethalt 0: the wave is running"),
        S_SETHALT | S_SENDMSGHALT => Op::Halt,
        S_SENDMSG => send_msg(imm, env.family),
        S_WAITCNT
        | S_WAITCNT_DEPCTR
        | S_WAITCNT_VSCNT
        | S_WAITCNT_VMCNT
        | S_WAITCNT_EXPCNT
        | S_WAITCNT_LGKMCNT
        | S_WAIT_LOADCNT
        | S_WAIT_STORECNT
        | S_WAIT_DSCNT
        | S_WAIT_KMCNT
        | S_WAIT_SAMPLECNT
        | S_WAIT_BVHCNT
        | S_WAIT_EXPCNT
        | S_WAIT_LOADCNT_DSCNT
        | S_WAIT_STORECNT_DSCNT
        | S_WAIT_ALU
        | S_WAIT_IDLE
        | S_WAIT_EVENT => Op::Nop(WAIT),
        S_NOP => Op::Nop("s_nop: issue delay only"),
        S_SETPRIO | S_CLAUSE | S_DELAY_ALU | S_INST_PREFETCH | S_SET_INST_PREFETCH_DISTANCE | S_SINGLEUSE_VDST | S_INCPERFLEVEL | S_DECPERFLEVEL | S_WAKEUP => {
            Op::Nop(HINT)
        }
        S_ICACHE_INV => Op::Nop("instruction cache invalidate: code is never modified"),
        S_TTRACEDATA | S_TTRACEDATA_IMM => Op::Nop("thread trace data: no thread trace"),
        S_SETKILL => Op::Nop("s_setkill: pixel-shader kill, no effect in compute"),
        S_CODE_END | S_VERSION => Op::Nop("marker"),
        S_ROUND_MODE => Op::RoundMode,
        S_DENORM_MODE => Op::DenormMode,
        S_SET_GPR_IDX_ON => Op::GprIdxOn {
            index: inst.operand(OpName::src0).unwrap_or(Operand::Absent),
            enables: inst.operand(OpName::src1).map_or(0, |o| o.imm() as u32 & 0xf),
        },
        S_SET_GPR_IDX_OFF => Op::GprIdxOff,
        S_SET_GPR_IDX_MODE => Op::GprIdxMode { enables: imm & 0xf },
        S_SET_GPR_IDX_IDX => Op::GprIdxIdx { index: inst.operand(OpName::src0).unwrap_or(Operand::Absent) },
        _ => return None,
    })
}

/// `s_sendmsg`: MSG_DEALLOC_VGPRS (GFX11+) releases the wave's VGPRs after its last use, which
/// changes nothing the model observes; other messages (interrupts, GS, save-wave ...) are
/// not modelled.
fn send_msg(imm: u32, family: Family) -> Op {
    let gfx11_plus = matches!(family, Family::Gfx11 | Family::Gfx12);
    if gfx11_plus && imm & 0xff == 3 {
        Op::Nop("MSG_DEALLOC_VGPRS: register release is not modelled")
    } else {
        Op::SendMsg
    }
}

fn target(inst: &Inst) -> u64 {
    inst.next_address().wrapping_add((simm16(inst) as i16 as i64 * 4) as u64)
}

pub fn execute(op: &Op, inst: &Inst, cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    let w = &mut *cx.wave;
    Ok(match op {
        Op::EndPgm => Flow::End,
        Op::Branch => Flow::Jump(target(inst)),
        Op::CBranch(c) => {
            let taken = match c {
                Cond::Scc0 => !w.scc,
                Cond::Scc1 => w.scc,
                Cond::Vccz => w.vcc() == 0,
                Cond::Vccnz => w.vcc() != 0,
                Cond::Execz => w.exec() == 0,
                Cond::Execnz => w.exec() != 0,
            };
            if taken {
                Flow::Jump(target(inst))
            } else {
                Flow::Next
            }
        }
        Op::DebugBranch | Op::Nop(_) | Op::SendMsg => Flow::Next,
        Op::Barrier => Flow::Barrier,
        Op::Sleep => Flow::Yield,
        Op::Trap => return Err(FaultKind::Other(format!("s_trap {} (no trap handler)", simm16(inst) & 0xff))),
        Op::Halt => return Err(FaultKind::Other("wave halted (s_sethalt / s_sendmsghalt); no host to resume it".into())),
        Op::RoundMode => {
            w.mode = (w.mode & !0xf) | (simm16(inst) & 0xf);
            Flow::Next
        }
        Op::DenormMode => {
            w.mode = (w.mode & !0xf0) | (simm16(inst) & 0xf) << 4;
            Flow::Next
        }
        Op::GprIdxOn { index, enables } => {
            let i = s32(w, cx.env, *index) & 0xff;
            w.sreg[slot::M0] = (w.sreg[slot::M0] & !0xf0ff) | i | enables << 12;
            w.mode |= MODE_GPR_IDX_EN;
            Flow::Next
        }
        Op::GprIdxOff => {
            w.mode &= !MODE_GPR_IDX_EN;
            Flow::Next
        }
        Op::GprIdxMode { enables } => {
            w.sreg[slot::M0] = (w.sreg[slot::M0] & !0xf000) | enables << 12;
            Flow::Next
        }
        Op::GprIdxIdx { index } => {
            let i = s32(w, cx.env, *index) & 0xff;
            w.sreg[slot::M0] = (w.sreg[slot::M0] & !0xff) | i;
            Flow::Next
        }
    })
}
