//! gfx950 block scales: `V_MFMA_SCALE_F32_*_F8F6F4` (the 128-bit VOP3PX2 encoding: a
//! `V_MFMA_LD_SCALE_B32` word pair followed by the f8f6f4 MFMA) multiply every 32-element
//! block of k of A and of B by an E8M0 scale.
//!
//! Facts (CDNA4 ISA guide, "Matrix Arithmetic Instructions", block-scaled MFMA; the OCP MX
//! specification v1.0 §5.4 for E8M0; AMD's ROCm blog "Matrix Core Programming on AMD CDNA3 and
//! CDNA4 architecture", 2025):
//! * E8M0 code `e` is 2^(e - 127); 0xFF is NaN.
//! * `scale_src0` holds A's scales, `scale_src1` B's: lane `l` holds the scale of row (A) or
//!   column (B) `l % M` and k block `l / M` (M = 16: four blocks of 32 k; M = 32: two).
//! * The byte of the scale VGPR is `op_sel[n] + 2 · op_sel_hi[n]` for operand n (LLVM 22
//!   prints the intrinsic's OPSEL_A = 1 as `op_sel:[1,0,0]`, 2 as `op_sel_hi:[1,0,0]`).
//! * An inline constant or SGPR scale uses bits 30:23 of the value (a hardware defect noted
//!   in LLVM 22's `VOP3PInstructions.td`, which therefore accepts only VGPR scales).
//! * The scales apply to the block's dot product before it is added to the accumulator.
//!
//! Model: the scales are powers of two, so scaling each input by its block's scale gives the
//! same exact products; we scale the converted inputs (exact unless a scaled value leaves the
//! f32 range, where it becomes zero or infinity, or the scale is NaN).
//!
//! A standalone `V_MFMA_LD_SCALE_B32` (not part of the 128-bit form) writes no register; we
//! execute it as doing nothing: whether the hardware keeps its scales for a following
//! unscaled f8f6f4 MFMA is not stated in public material ([`LD_SCALE_ALONE`]).

use super::exec::reg;
use crate::wave::{sreg_index, Wave};
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::OpName;

/// Why a standalone V_MFMA_LD_SCALE_B32 is approximate.
pub const LD_SCALE_ALONE: &str = "standalone V_MFMA_LD_SCALE_B32 is executed as no effect: only its fused 128-bit form (V_MFMA_SCALE_*) applies scales";

/// A scale operand's register or value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    /// A VGPR (`acc` false) or AGPR: a scale per lane.
    Vector {
        base: u8,
        acc: bool,
    },
    /// A scalar-file slot (`wave::sreg_index`) or an inline constant: one value for all lanes.
    Scalar(usize),
    Const(u64),
}

/// Where one operand's scales come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Src {
    pub loc: Where,
    /// The byte of each lane's 32-bit value (0..=3).
    pub byte: u32,
}

/// The scales of A and B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scales {
    pub a: Src,
    pub b: Src,
}

/// The scale operands of a scaled f8f6f4 MFMA; `None` when an operand is unusable.
pub fn classify(inst: &Inst) -> Option<Scales> {
    let src = |name: OpName, n: usize| {
        let loc = match inst.operand(name)? {
            Operand::Reg(Reg::Vgpr { index, .. }) => Where::Vector { base: index, acc: false },
            Operand::Reg(Reg::Agpr { index, .. }) => Where::Vector { base: index, acc: true },
            Operand::Reg(r) => Where::Scalar(sreg_index(r)?),
            Operand::Imm(v) => Where::Const(v as u64),
            _ => return None,
        };
        let m = inst.src_mods(n);
        Some(Src { loc, byte: m.op_sel as u32 | (m.op_sel_hi as u32) << 1 })
    };
    Some(Scales { a: src(OpName::scale_src0, 0)?, b: src(OpName::scale_src1, 1)? })
}

/// The value of E8M0 code `e`.
pub fn e8m0(e: u32) -> f32 {
    match e & 0xff {
        0xff => f32::NAN,
        // 2^-127 is an f32 subnormal.
        0 => f32::from_bits(0x0040_0000),
        e => f32::from_bits(e << 23),
    }
}

/// Every lane's scale value.
pub fn lanes(w: &Wave, s: Src) -> [f32; 64] {
    match s.loc {
        Where::Vector { base, acc } => {
            let r = reg(w, base, acc, 0);
            std::array::from_fn(|l| e8m0(r.get(l).copied().unwrap_or(0) >> (8 * s.byte)))
        }
        Where::Scalar(slot) => [e8m0(w.sreg.get(slot).copied().unwrap_or(0) >> 23); 64],
        Where::Const(v) => [e8m0((v >> 23) as u32); 64],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e8m0_values() {
        assert_eq!(e8m0(127), 1.0);
        assert_eq!(e8m0(130), 8.0);
        assert_eq!(e8m0(1), 2f32.powi(-126));
        assert_eq!(e8m0(0), 2f32.powi(-127));
        assert!(e8m0(255).is_nan());
    }
}
