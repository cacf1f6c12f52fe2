//! Matrix-core rates of the opcodes gfx950 (CDNA4, MI355X) adds. AMD's Matrix Instruction
//! Calculator has no CDNA4 table yet (the snapshot [`super::rates`] is generated from), so these
//! are written by hand, each from a public source:
//! * [blog] AMD ROCm blog "Matrix Core Programming on AMD CDNA3 and CDNA4 architecture"
//!   (2025), its MFMA table of cycles: f16/bf16 16x16x32 16 and 32x32x16 32; f8f6f4 16x16x128
//!   16 (FP6/FP4 inputs) or 32 (either input FP8/BF8), 32x32x64 32 or 64; scaled forms the same.
//! * [sheet] MI355X data sheet peaks at 256 CUs × 4 SIMDs × 2.4 GHz (`configs/mi355x.ron`):
//!   dense INT8 5.0 POPS gives 2048 ops per SIMD cycle, so i8 16x16x64 takes 16 cycles and
//!   32x32x32 32; the sparse FP16 (5.0 PFLOPS) and FP8/INT8 (10.1) peaks give the SMFMACs'
//!   cycles the same way (FLOPs counted as 2·M·N·K of the dense K, as the calculator does).
//!
//! Assumed: a rate is per opcode, so the f8f6f4 forms take the FP8 cycle count (the longer:
//! FP6/FP4-only instructions are modelled at half their rate); VALU work may co-issue after the
//! same delays as CDNA3's dense (4) and sparse (8) forms of the same width. Opcodes gfx950
//! shares with gfx942 keep CDNA3's rates, right for the [blog]'s f16/bf16/f8/f32 rows, except
//! f64 16x16x4: 64 cycles on CDNA4 per [blog] (32 on CDNA3), which the [sheet]'s FP64 matrix
//! peak, 78.6 TFLOPS = 32 FLOPs per SIMD cycle = 2048 / 64, confirms; like CDNA3's f64 forms
//! it blocks VALU issue for its whole duration. f64 4x4x4 (not in [blog]) keeps CDNA3's 16.

use super::{Arch, Input, Rate};
use hipscope_isa::tables::Opcode;

const fn r(op: Opcode, cycles: u16, valu_after: u16, input: Input, flops: u32) -> Rate {
    Rate { arch: Arch::Cdna4, op, cycles, valu_after, input, flops }
}

/// The gfx950-only matrix opcodes.
#[rustfmt::skip]
pub(super) static RATES: &[Rate] = {
    use Input::*;
    use Opcode::*;
    &[
        r(V_MFMA_F64_16X16X4_F64, 64, 64, F64, 2048),
        r(V_MFMA_F32_16X16X32_F16, 16, 4, F16, 16384),
        r(V_MFMA_F32_16X16X32_BF16, 16, 4, Bf16, 16384),
        r(V_MFMA_F32_32X32X16_F16, 32, 4, F16, 32768),
        r(V_MFMA_F32_32X32X16_BF16, 32, 4, Bf16, 32768),
        r(V_MFMA_I32_16X16X64_I8, 16, 4, I8, 32768),
        r(V_MFMA_I32_32X32X32_I8, 32, 4, I8, 65536),
        r(V_MFMA_F32_16X16X128_F8F6F4, 32, 4, F8, 65536),
        r(V_MFMA_F32_32X32X64_F8F6F4, 64, 4, F8, 131072),
        r(V_MFMA_SCALE_F32_16X16X128_F8F6F4, 32, 4, F8, 65536),
        r(V_MFMA_SCALE_F32_32X32X64_F8F6F4, 64, 4, F8, 131072),
        r(V_SMFMAC_F32_16X16X64_F16, 16, 8, F16, 32768),
        r(V_SMFMAC_F32_16X16X64_BF16, 16, 8, Bf16, 32768),
        r(V_SMFMAC_F32_32X32X32_F16, 32, 8, F16, 65536),
        r(V_SMFMAC_F32_32X32X32_BF16, 32, 8, Bf16, 65536),
        r(V_SMFMAC_I32_16X16X128_I8, 16, 8, I8, 65536),
        r(V_SMFMAC_I32_32X32X64_I8, 32, 8, I8, 131072),
        r(V_SMFMAC_F32_16X16X128_FP8_FP8, 16, 8, F8, 65536),
        r(V_SMFMAC_F32_16X16X128_FP8_BF8, 16, 8, F8, 65536),
        r(V_SMFMAC_F32_16X16X128_BF8_FP8, 16, 8, F8, 65536),
        r(V_SMFMAC_F32_16X16X128_BF8_BF8, 16, 8, F8, 65536),
        r(V_SMFMAC_F32_32X32X64_FP8_FP8, 32, 8, F8, 131072),
        r(V_SMFMAC_F32_32X32X64_FP8_BF8, 32, 8, F8, 131072),
        r(V_SMFMAC_F32_32X32X64_BF8_FP8, 32, 8, F8, 131072),
        r(V_SMFMAC_F32_32X32X64_BF8_BF8, 32, 8, F8, 131072),
    ]
};
