//! Program-counter and M0-relative SGPR instructions: `s_getpc_b64`, `s_setpc_b64`,
//! `s_swappc_b64`, `s_call_b64`, `s_movrels_*`, `s_movreld_*`, `s_movrelsd_2_b32`.
//!
//! ISA manuals, "SOP1 Instructions" / "SOPK Instructions": getpc returns the address of the
//! next instruction; swappc writes it to SDST and jumps to S0; s_call_b64 writes it to SDST and
//! jumps to next + 4 * sext(simm16). movrels reads SGPR[S0.index + M0], movreld writes
//! SGPR[D.index + M0]; movrelsd_2 (GFX10+) copies SGPR[S0.index + M0[9:0]] to
//! SGPR[D.index + M0[25:16]]. An index beyond the SGPR file reads 0 and drops the write.

use super::super::operand::{s32, s64, write_s32, write_s64};
use super::super::Env;
use crate::wave::Wave;
use hipscope_isa::decode::{Operand, Reg};

/// Which M0-relative move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MovRel {
    /// D = SGPR[S0 + M0] (`b64`: a pair).
    Source { wide: bool },
    /// SGPR[D + M0] = S0.
    Dest { wide: bool },
    /// SGPR[D + M0[25:16]] = SGPR[S0 + M0[9:0]].
    Both,
}

/// SGPR number of a plain SGPR operand.
pub fn sgpr_index(op: Operand) -> Option<usize> {
    match op {
        Operand::Reg(Reg::Sgpr { index, .. }) => Some(index as usize),
        _ => None,
    }
}

/// Number of addressable SGPRs (s0..s101 on GFX8/9, s0..s105 on GFX10+).
fn sgpr_count(env: &Env) -> usize {
    env.decode.sgpr_max() as usize + 1
}

fn read_rel(w: &Wave, env: &Env, i: usize, wide: bool) -> u64 {
    let n = sgpr_count(env);
    let get = |k: usize| if k < n { w.sreg[k] as u64 } else { 0 };
    get(i) | if wide { get(i + 1) << 32 } else { 0 }
}

fn write_rel(w: &mut Wave, env: &Env, i: usize, v: u64, wide: bool) {
    let n = sgpr_count(env);
    if i < n {
        w.sreg[i] = v as u32;
    }
    if wide && i + 1 < n {
        w.sreg[i + 1] = (v >> 32) as u32;
    }
}

/// Execute an M0-relative move (the SGPR operands were checked at classify time).
pub fn mov_rel(op: MovRel, w: &mut Wave, env: &Env, d: Operand, a: Operand) {
    let m0 = w.m0() as usize;
    let (di, ai) = (sgpr_index(d).unwrap_or(0), sgpr_index(a).unwrap_or(0));
    match op {
        MovRel::Source { wide: false } => {
            let v = read_rel(w, env, ai + m0, false);
            write_s32(w, d, v as u32);
        }
        MovRel::Source { wide: true } => {
            let v = read_rel(w, env, ai + m0, true);
            write_s64(w, d, v);
        }
        MovRel::Dest { wide } => {
            let v = if wide { s64(w, env, a) } else { s32(w, env, a) as u64 };
            write_rel(w, env, di + m0, v, wide);
        }
        MovRel::Both => {
            let v = read_rel(w, env, ai + (m0 & 0x3ff), false);
            write_rel(w, env, di + ((m0 >> 16) & 0x3ff), v, false);
        }
    }
}

/// Whether the operands fit the move (the relative operands must be plain SGPRs).
pub fn operands_fit(op: MovRel, d: Operand, a: Operand) -> bool {
    match op {
        MovRel::Source { .. } => sgpr_index(a).is_some(),
        MovRel::Dest { .. } => sgpr_index(d).is_some(),
        MovRel::Both => sgpr_index(a).is_some() && sgpr_index(d).is_some(),
    }
}
