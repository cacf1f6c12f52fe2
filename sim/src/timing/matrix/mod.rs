//! Matrix-core issue rates (MFMA, SMFMAC, WMMA, SWMMAC): how long each matrix instruction
//! keeps its SIMD's matrix core busy, and when VALU work of the same SIMD may issue beside it.
//!
//! The figures are AMD's own, from the Matrix Instruction Calculator (per architecture and
//! instruction: "cycles", "can co-execute with VALU" and its delay), generated into
//! [`rates`] by `tools/matrixgen`. A kernel's time is then set by its matrix cores, LDS and
//! memory as on the hardware: back-to-back MFMAs of one SIMD serialise at their cycle count
//! (a 32x32x8 f16 MFMA on CDNA3 takes 32 cycles: 16384 FLOPs per 32 cycles per SIMD, 1307
//! TFLOP/s on MI300X's 304 CUs at 2.1 GHz, the data sheet's dense FP16 peak).
//!
//! Dependent instructions are not held here: the ISA guides leave the matrix pipeline's
//! hazards to software (the compiler's `s_nop`s, which the timing model counts).

mod cdna4;
mod rates;

use crate::counters::Counter;
use hipscope_isa::tables::Opcode;
use hipscope_isa::{Family, Processor};

/// The matrix-core generations the calculator describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    Cdna1,
    Cdna2,
    Cdna3,
    /// gfx950's own opcodes ([`cdna4`]: the calculator snapshot in use has no CDNA4 table).
    Cdna4,
    Rdna3,
    Rdna4,
}

impl Arch {
    /// The matrix cores of an ISA family (GFX9 here is CDNA1's gfx908: the only GFX9 target
    /// with matrix instructions).
    pub fn of(fam: Family) -> Option<Arch> {
        match fam {
            Family::Gfx9 => Some(Arch::Cdna1),
            Family::Gfx90a => Some(Arch::Cdna2),
            Family::Gfx940 => Some(Arch::Cdna3),
            Family::Gfx11 => Some(Arch::Rdna3),
            Family::Gfx12 => Some(Arch::Rdna4),
            Family::Gfx8 | Family::Gfx10 => None,
        }
    }
}

/// A matrix instruction's input element type, as the counters group them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    F64,
    F32,
    Xf32,
    F16,
    Bf16,
    I8,
    I4,
    F8,
    #[allow(dead_code)] // CDNA4's FP6 and FP4 forms, once the calculator lists them.
    F6,
    #[allow(dead_code)]
    F4,
}

impl Input {
    /// The rocprof counters of instructions of this input type: instructions, and "MOPs"
    /// (units of 512 operations). XF32 counts as F32, integer 4-bit as I8 and FP6/FP4 as F8
    /// (rocprof-compute's MI300 counter list has no counters of their own).
    pub fn counters(self) -> (Counter, Counter) {
        match self {
            Input::F64 => (Counter::SqInstsValuMfmaF64, Counter::SqInstsValuMfmaMopsF64),
            Input::F32 | Input::Xf32 => (Counter::SqInstsValuMfmaF32, Counter::SqInstsValuMfmaMopsF32),
            Input::F16 => (Counter::SqInstsValuMfmaF16, Counter::SqInstsValuMfmaMopsF16),
            Input::Bf16 => (Counter::SqInstsValuMfmaBf16, Counter::SqInstsValuMfmaMopsBf16),
            Input::I8 | Input::I4 => (Counter::SqInstsValuMfmaI8, Counter::SqInstsValuMfmaMopsI8),
            Input::F8 | Input::F6 | Input::F4 => (Counter::SqInstsValuMfmaF8, Counter::SqInstsValuMfmaMopsF8),
        }
    }
}

/// One matrix instruction on one architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub arch: Arch,
    pub op: Opcode,
    /// Cycles it occupies its SIMD's matrix core.
    pub cycles: u16,
    /// Cycles after its issue before VALU instructions of the same SIMD may issue (its whole
    /// duration where VALU work cannot co-execute).
    pub valu_after: u16,
    pub input: Input,
    /// Floating-point (or integer) operations: 2 × M × N × K × blocks.
    pub flops: u32,
}

/// The rate of matrix opcode `op` on processor `p`'s matrix cores (looked up once, when a
/// kernel is classified). gfx950 (CDNA4) takes its own rates where [`cdna4`] lists them (the
/// opcodes only it has, and those whose rate changed), else CDNA3's.
pub fn rate(p: Processor, op: Opcode) -> Option<&'static Rate> {
    let arch = Arch::of(p.family())?;
    let cdna4 = || cdna4::RATES.iter().find(|r| r.op == op);
    let own = || rates::RATES.iter().find(|r| r.arch == arch && r.op == op);
    if p == Processor::Gfx950 {
        cdna4().or_else(own)
    } else {
        own()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peak_rates_match_the_data_sheets() {
        // MI300X: 1307.4 TFLOP/s dense FP16 and 163.4 FP64 matrix; 304 CUs x 4 SIMDs at 2.1 GHz.
        let tflops = |p, op| {
            let r = rate(p, op).expect("listed");
            f64::from(r.flops) / f64::from(r.cycles) * 4.0 * 304.0 * 2.1e9 / 1e12
        };
        assert!((tflops(Processor::Gfx942, Opcode::V_MFMA_F32_32X32X8_F16) - 1307.4).abs() < 1.0);
        assert!((tflops(Processor::Gfx942, Opcode::V_MFMA_F64_16X16X4_F64) - 163.4).abs() < 0.5);
        // MI100 (120 CUs, 1.502 GHz): 184.6 TFLOP/s FP16 matrix.
        let r = rate(Processor::Gfx908, Opcode::V_MFMA_F32_32X32X8F16).expect("listed");
        let mi100 = f64::from(r.flops) / f64::from(r.cycles) * 4.0 * 120.0 * 1.502e9 / 1e12;
        assert!((mi100 - 184.6).abs() < 0.5, "{mi100}");
        // MI355X (256 CUs, 2.4 GHz) data sheet: dense FP16 2.5 PFLOPS, FP8 5.0, INT8 5.0 POPS;
        // sparse FP16 5.0, FP8 10.1; FP64 matrix 78.6 TFLOPS.
        let mi355x = |op| {
            let r = rate(Processor::Gfx950, op).expect("listed");
            f64::from(r.flops) / f64::from(r.cycles) * 4.0 * 256.0 * 2.4e9 / 1e15
        };
        for (op, peta) in [
            (Opcode::V_MFMA_F32_16X16X32_F16, 2.5),
            (Opcode::V_MFMA_F32_32X32X64_F8F6F4, 5.0),
            (Opcode::V_MFMA_I32_16X16X64_I8, 5.0),
            (Opcode::V_SMFMAC_F32_32X32X32_BF16, 5.0),
            (Opcode::V_SMFMAC_F32_16X16X128_FP8_BF8, 10.1),
            (Opcode::V_MFMA_F64_16X16X4_F64, 0.0786),
        ] {
            assert!((mi355x(op) - peta).abs() < 0.05, "{op:?}: {}", mi355x(op));
        }
    }

    #[test]
    fn families_without_matrix_cores_have_no_rates() {
        assert!(rate(Processor::Gfx1030, Opcode::V_MFMA_F32_32X32X8F16).is_none());
        assert!(rate(Processor::Gfx942, Opcode::V_ADD_F32).is_none());
        // gfx942 does not take gfx950's rates.
        assert!(rate(Processor::Gfx942, Opcode::V_MFMA_F32_16X16X32_F16).is_none());
    }
}
