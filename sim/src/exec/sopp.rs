//! Program control (SOPP): branches, `s_endpgm`, barriers, waits and hints.
//!
//! In functional mode memory completes immediately, so the wait-counter instructions
//! (`s_waitcnt*`, GFX12 `s_wait_*`) have no effect; the timing model gives them one.

use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::Inst;
use hipscope_isa::tables::{OpName, Opcode};

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
    Barrier,
    /// Waits, hints and no-ops: nothing to do in functional mode.
    Nop(&'static str),
    /// `s_sleep`: let other waves run.
    Sleep,
    /// `s_trap`: the kernel asked for the trap handler (no handler: a fault).
    Trap,
}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        match self {
            Op::Nop(why) => Fidelity::NoEffect(why),
            _ => Fidelity::Exact,
        }
    }
}

pub fn classify(inst: &Inst, _env: &super::Env) -> Option<Op> {
    use Opcode::*;
    Some(match inst.opcode() {
        S_ENDPGM | S_ENDPGM_SAVED | S_ENDPGM_ORDERED_PS_DONE => Op::EndPgm,
        S_BRANCH => Op::Branch,
        S_CBRANCH_SCC0 => Op::CBranch(Cond::Scc0),
        S_CBRANCH_SCC1 => Op::CBranch(Cond::Scc1),
        S_CBRANCH_VCCZ => Op::CBranch(Cond::Vccz),
        S_CBRANCH_VCCNZ => Op::CBranch(Cond::Vccnz),
        S_CBRANCH_EXECZ => Op::CBranch(Cond::Execz),
        S_CBRANCH_EXECNZ => Op::CBranch(Cond::Execnz),
        S_BARRIER | S_BARRIER_SIGNAL | S_BARRIER_SIGNAL_ISFIRST => Op::Barrier,
        S_BARRIER_WAIT => Op::Nop("barrier wait: the signal already waits for the work-group"),
        S_SLEEP => Op::Sleep,
        S_TRAP => Op::Trap,
        S_WAITCNT | S_WAITCNT_DEPCTR | S_WAIT_LOADCNT | S_WAIT_STORECNT | S_WAIT_DSCNT | S_WAIT_KMCNT
        | S_WAIT_SAMPLECNT | S_WAIT_BVHCNT | S_WAIT_EXPCNT | S_WAIT_LOADCNT_DSCNT | S_WAIT_STORECNT_DSCNT
        | S_WAIT_ALU | S_WAIT_IDLE | S_WAIT_EVENT => Op::Nop("wait counters: memory completes at once in functional mode"),
        S_NOP | S_SETPRIO | S_CLAUSE | S_DELAY_ALU | S_INST_PREFETCH | S_SET_INST_PREFETCH_DISTANCE | S_CODE_END
        | S_TTRACEDATA | S_TTRACEDATA_IMM | S_ICACHE_INV | S_WAKEUP | S_SETKILL | S_INCPERFLEVEL | S_DECPERFLEVEL
        | S_SINGLEUSE_VDST | S_DENORM_MODE | S_ROUND_MODE => Op::Nop("scheduling hint or no-op"),
        _ => return None,
    })
}

fn simm16(inst: &Inst) -> i64 {
    inst.operand(OpName::simm16).map_or(0, |o| o.imm()) as i16 as i64
}

fn target(inst: &Inst) -> u64 {
    inst.next_address().wrapping_add((simm16(inst) * 4) as u64)
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
        Op::Barrier => Flow::Barrier,
        Op::Sleep => Flow::Yield,
        Op::Nop(_) => Flow::Next,
        Op::Trap => return Err(FaultKind::Other(format!("s_trap {} (no trap handler)", simm16(inst) & 0xff))),
    })
}
