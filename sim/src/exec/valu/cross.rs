//! Lane-crossing and register-moving VALU operations that do not fit the per-lane kernel
//! model: V_READLANE, V_READFIRSTLANE, V_WRITELANE, V_PERMLANE16/X16/64, V_SWAP, V_MOVREL*.
//!
//! ISA facts (VOP1/VOP3 pseudo-code): V_READLANE/V_WRITELANE select the lane with S1[5:0]
//! (S1[4:0] in wave32) and ignore EXEC; V_READFIRSTLANE reads the lowest active lane, lane 0 if
//! EXEC is 0. V_PERMLANE16 gives each lane of a 16-lane row the value of the row's lane named by
//! its 4-bit selector in {S2, S1}; V_PERMLANEX16 reads the same positions in the other row of
//! each 32-lane half; OPSEL[0] is FI and OPSEL[1] BOUND_CTRL as in DPP. V_PERMLANE64 swaps the
//! two 32-lane halves of a wave64. gfx950's V_PERMLANE16_SWAP_B32 swaps lanes 0-15 of the
//! source VGPR with lanes 16-31 of the destination VGPR in each 32-lane half, and
//! V_PERMLANE32_SWAP_B32 lanes 0-31 of the source with lanes 32-63 of the destination (CDNA4
//! ISA VOP1 pseudo-code: a loop over the lanes, EXEC not consulted). V_MOVRELS/D/SD add M0 to the source / destination VGPR
//! number (CDNA3 ISA §6.6 "VGPR Indexing").

use crate::exec::operand::{s32, write_s32};
use crate::exec::{Env, ExecCtx};
use crate::wave::{Wave, MAX_LANES};
use hipscope_isa::decode::Operand;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cross {
    ReadLane {
        src: u8,
        lane: Operand,
        sdst: Operand,
    },
    ReadFirstLane {
        src: u8,
        sdst: Operand,
    },
    WriteLane {
        value: Operand,
        lane: Operand,
        dst: u8,
    },
    Permlane16 {
        src: u8,
        sel_lo: Operand,
        sel_hi: Operand,
        dst: u8,
        fi: bool,
        bc: bool,
        x: bool,
    },
    Permlane64 {
        src: u8,
        dst: u8,
    },
    /// V_PERMLANE16_SWAP_B32 (`half` 16) and V_PERMLANE32_SWAP_B32 (`half` 32).
    PermlaneSwap {
        src: u8,
        dst: u8,
        half: u8,
    },
    Swap {
        a: u8,
        b: u8,
    },
    /// V_MOVRELS (`src_rel`), V_MOVRELD (`dst_rel`), V_MOVRELSD (both); `src` may be a scalar
    /// or constant for V_MOVRELD.
    MovRel {
        src: Operand,
        dst: u8,
        src_rel: bool,
        dst_rel: bool,
    },
}

fn v(w: &Wave, reg: usize, lane: usize) -> u32 {
    w.vgpr[(reg % 256) * MAX_LANES + lane]
}

fn set(w: &mut Wave, reg: usize, lane: usize, val: u32) {
    w.vgpr[(reg % 256) * MAX_LANES + lane] = val;
}

/// Lanes set in `mask`.
fn active(mask: u64) -> impl Iterator<Item = usize> {
    (0..MAX_LANES).filter(move |l| mask >> l & 1 != 0)
}

pub fn execute(op: &Cross, cx: &mut ExecCtx) {
    let env: &Env = cx.env;
    let w = &mut *cx.wave;
    let lanes = w.lanes();
    match *op {
        Cross::ReadLane { src, lane, sdst } => {
            let l = s32(w, env, lane) as usize & (lanes - 1);
            let val = v(w, src as usize, l);
            write_s32(w, sdst, val);
        }
        Cross::ReadFirstLane { src, sdst } => {
            let exec = w.exec();
            let l = if exec == 0 { 0 } else { exec.trailing_zeros() as usize };
            let val = v(w, src as usize, l);
            write_s32(w, sdst, val);
        }
        Cross::WriteLane { value, lane, dst } => {
            let l = s32(w, env, lane) as usize & (lanes - 1);
            let val = s32(w, env, value);
            set(w, dst as usize, l, val);
        }
        Cross::Permlane16 { src, sel_lo, sel_hi, dst, fi, bc, x } => {
            let sel = s32(w, env, sel_lo) as u64 | (s32(w, env, sel_hi) as u64) << 32;
            permlane16(w, src as usize, sel, dst as usize, fi, bc, x);
        }
        Cross::Permlane64 { src, dst } => {
            let mut old = [0u32; MAX_LANES];
            (0..lanes).for_each(|l| old[l] = v(w, src as usize, l));
            for l in active(w.exec()) {
                let s = if lanes == 64 { l ^ 32 } else { l };
                set(w, dst as usize, l, old[s]);
            }
        }
        Cross::PermlaneSwap { src, dst, half } => {
            let half = half as usize;
            // Lanes 0..half of each 2*half group of the source trade places with lanes
            // half..2*half of the destination.
            for l in (0..lanes).filter(|l| l % (2 * half) < half) {
                let (x, y) = (v(w, src as usize, l), v(w, dst as usize, l + half));
                set(w, src as usize, l, y);
                set(w, dst as usize, l + half, x);
            }
        }
        Cross::Swap { a, b } => {
            for l in active(w.exec()) {
                let (x, y) = (v(w, a as usize, l), v(w, b as usize, l));
                set(w, a as usize, l, y);
                set(w, b as usize, l, x);
            }
        }
        Cross::MovRel { src, dst, src_rel, dst_rel } => movrel(w, env, src, dst, src_rel, dst_rel),
    }
}

fn permlane16(w: &mut Wave, src: usize, sel: u64, dst: usize, fi: bool, bc: bool, x: bool) {
    let exec = w.exec();
    let mut tmp = [0u32; MAX_LANES];
    let lanes = w.lanes();
    for (l, t) in tmp.iter_mut().enumerate().take(lanes) {
        *t = v(w, src, l);
    }
    for l in (0..lanes).filter(|l| exec >> l & 1 != 0) {
        let row = l >> 4;
        let from_row = if x { row ^ 1 } else { row };
        let s = from_row * 16 + (sel >> ((l & 15) * 4) & 15) as usize;
        let valid = fi || exec >> s & 1 != 0;
        if valid {
            set(w, dst, l, tmp[s]);
        } else if bc {
            set(w, dst, l, 0);
        }
    }
}

fn movrel(w: &mut Wave, env: &Env, src: Operand, dst: u8, src_rel: bool, dst_rel: bool) {
    let m0 = w.m0() as usize;
    let d = dst as usize + if dst_rel { m0 } else { 0 };
    // Out-of-range source VGPRs read VGPR0; out-of-range destinations are not written
    // (CDNA3 ISA §6.2.3 "Out-of-Range GPRs").
    if d >= 256 {
        return;
    }
    let scalar = s32(w, env, src);
    for l in active(w.exec()) {
        let val = match src {
            Operand::Reg(hipscope_isa::decode::Reg::Vgpr { index, .. }) => {
                let s = index as usize + if src_rel { m0 } else { 0 };
                v(w, if s < 256 { s } else { 0 }, l)
            }
            _ => scalar,
        };
        set(w, d, l, val);
    }
}
