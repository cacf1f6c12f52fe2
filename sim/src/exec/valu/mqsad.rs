//! V_MQSAD_U32_U8, whose accumulator and result are 128 bits (four VGPRs): four masked byte
//! SADs of the 32-bit windows S0[31+8i:8i] of the 64-bit S0 against S1, each added to the
//! 32-bit field i of S2 (CDNA4 ISA VOP3 pseudo-code: `v_msad_u8(S0[31+8i:8i], S1, S2[32i+31:
//! 32i])`; V_MSAD_U8 skips the bytes where S1's byte is 0).

use super::vgpr;
use crate::exec::operand::{s32, s64};
use crate::exec::Env;
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::{OpName, Opcode};

/// A classified V_MQSAD_U32_U8: S0 (64-bit), S1, and the first VGPRs of S2 and the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mqsad {
    pub src0: Operand,
    pub src1: Operand,
    pub src2: u8,
    pub dst: u8,
}

/// Classify V_MQSAD_U32_U8 (its accumulator must be VGPRs); `None` otherwise.
pub fn classify(inst: &Inst) -> Option<Mqsad> {
    if inst.opcode() != Opcode::V_MQSAD_U32_U8 {
        return None;
    }
    Some(Mqsad {
        src0: inst.operand(OpName::src0)?,
        src1: inst.operand(OpName::src1)?,
        src2: vgpr(inst.operand(OpName::src2))?,
        dst: vgpr(inst.operand(OpName::vdst))?,
    })
}

/// The masked byte SAD of V_MSAD_U8 plus `acc`, wrapping at 32 bits.
pub fn msad(a: u32, b: u32, acc: u32) -> u32 {
    (0..4).fold(acc, |s, i| {
        let (x, y) = (a >> (8 * i) & 0xff, b >> (8 * i) & 0xff);
        if y == 0 {
            s
        } else {
            s.wrapping_add(x.abs_diff(y))
        }
    })
}

/// Execute for every active lane.
pub fn run(m: &Mqsad, w: &mut Wave, env: &Env) {
    let lane_op = |w: &Wave, op: Operand, l: usize, pair: bool| match op {
        Operand::Reg(Reg::Vgpr { index, .. }) => {
            let hi = if pair { w.v((index as usize + 1) % 256, l) as u64 } else { 0 };
            w.v(index as usize, l) as u64 | hi << 32
        }
        _ if pair => s64(w, env, op),
        _ => s32(w, env, op) as u64,
    };
    let exec = w.exec();
    for l in (0..w.lanes().min(MAX_LANES)).filter(|l| exec >> l & 1 != 0) {
        let (a, b) = (lane_op(w, m.src0, l, true), lane_op(w, m.src1, l, false) as u32);
        let out: [u32; 4] = std::array::from_fn(|i| msad((a >> (8 * i)) as u32, b, w.v((m.src2 as usize + i) % 256, l)));
        for (i, v) in out.into_iter().enumerate() {
            w.set_v((m.dst as usize + i) % 256, l, v);
        }
    }
}
