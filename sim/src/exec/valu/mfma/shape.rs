//! The matrix instructions of gfx908 (CDNA1), gfx90a (CDNA2) and gfx940/942 (CDNA3) as data:
//! M×N×K, the number of blocks and the input type of each opcode.
//!
//! Source of the facts: the "Matrix Arithmetic Instructions" chapters of the AMD Instinct
//! MI100 (CDNA1), MI200 (CDNA2) and MI300 (CDNA3) ISA reference guides, which list each
//! `V_MFMA_*`/`V_SMFMAC_*` with its dimensions and block count, as tabulated by AMD's Matrix
//! Instruction Calculator (ROCm/amd_matrix_instruction_calculator, `dict_insts`). LLVM 19
//! spells the CDNA3 forms differently (`v_mfma_f32_32x32x8_f16` for `v_mfma_f32_32x32x8f16`,
//! `..._4b_bf16` for `..._bf16_1k`); both spellings are listed, with the same shape.
//!
//! The CDNA3 FP8/BF8 forms name A's type first and B's second (`..._fp8_bf8`: A fp8, B bf8);
//! on gfx940/942 both are the FNUZ formats of the MI300 ISA guide's "FP8 and BF8 data types"
//! ([`Format::E4M3Fnuz`], [`Format::E5M2Fnuz`]). Their layouts are those of the 8-bit integer
//! forms of the same shape (8 elements per lane in a VGPR pair).
//!
//! gfx950 (CDNA4) adds (AMD Instinct MI355X "CDNA4" ISA guide, "Matrix Arithmetic
//! Instructions"; shapes as LLVM 22 names them, `VOP3PInstructions.td`): f16/bf16 16x16x32 and
//! 32x32x16, i8 16x16x64 and 32x32x32, the SMFMACs of twice the K of gfx942's, and the f8f6f4
//! forms 16x16x128 and 32x32x64, whose A and B formats are chosen per instruction by CBSZ and
//! BLGP ([`super::f8f6f4`]), with or without E8M0 block scales ([`super::scale`]). On gfx950
//! the FP8/BF8 of the older opcodes are the OCP formats, not FNUZ: [`super::classify`] maps
//! them through `cvt8::formats`.

use crate::exec::valu::minifloat::Format;
use hipscope_isa::tables::Opcode;

/// Element type of the A and B inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    F32,
    /// CDNA3 "xf32": f32 storage, reduced-precision multiply (see the module doc).
    Xf32,
    F16,
    /// bf16, in both the 2-per-VGPR (CDNA1) and the 4-per-VGPR-pair (`_1k`, CDNA2+) forms; the
    /// layout difference follows from K (see `layout`).
    Bf16,
    I8,
    F64,
    /// 8-bit floats, A's format and B's.
    F8 {
        a: Format,
        b: Format,
    },
    /// gfx950 FP8/BF8/FP6/BF6/FP4 by CBSZ (A) and BLGP (B); `scaled`: the VOP3PX2 form with
    /// E8M0 block scales.
    F8f6f4 {
        scaled: bool,
    },
}

impl In {
    /// Bits of one element in a register.
    pub fn bits(self) -> u32 {
        match self {
            In::F32 | In::Xf32 => 32,
            In::F16 | In::Bf16 => 16,
            // f8f6f4: nominal; the widths follow the formats (`super::f8f6f4`).
            In::I8 | In::F8 { .. } | In::F8f6f4 { .. } => 8,
            In::F64 => 64,
        }
    }

    /// Result (C/D) element bits: i32 and f32 are 32, f64 is 64.
    pub fn out_bits(self) -> u32 {
        if self == In::F64 {
            64
        } else {
            32
        }
    }
}

/// One matrix operation: `blocks` independent products D = A·B + C of an M×K A and a K×N B.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub m: u8,
    pub n: u8,
    pub k: u8,
    pub blocks: u8,
    pub ty: In,
    /// SMFMAC: A is 4:2 structured-sparse (K is the dense, logical K).
    pub sparse: bool,
}

const fn s(m: u8, n: u8, k: u8, blocks: u8, ty: In) -> Shape {
    Shape { m, n, k, blocks, ty, sparse: false }
}

const fn sp(m: u8, n: u8, k: u8, ty: In) -> Shape {
    Shape { m, n, k, blocks: 1, ty, sparse: true }
}

/// CDNA3 FP8 (E4M3, FNUZ) and BF8 (E5M2, FNUZ).
const FP8: Format = Format::E4M3Fnuz;
const BF8: Format = Format::E5M2Fnuz;

const fn f8(a: Format, b: Format) -> In {
    In::F8 { a, b }
}

/// The shape of a matrix opcode; `None` for every other opcode.
pub fn of(op: Opcode) -> Option<Shape> {
    use In::*;
    use Opcode::*;
    Some(match op {
        V_MFMA_F32_32X32X1F32 | V_MFMA_F32_32X32X1_2B_F32 => s(32, 32, 1, 2, F32),
        V_MFMA_F32_16X16X1F32 | V_MFMA_F32_16X16X1_4B_F32 => s(16, 16, 1, 4, F32),
        V_MFMA_F32_4X4X1F32 | V_MFMA_F32_4X4X1_16B_F32 => s(4, 4, 1, 16, F32),
        V_MFMA_F32_32X32X2F32 | V_MFMA_F32_32X32X2_F32 => s(32, 32, 2, 1, F32),
        V_MFMA_F32_16X16X4F32 | V_MFMA_F32_16X16X4_F32 => s(16, 16, 4, 1, F32),
        V_MFMA_F32_32X32X4F16 | V_MFMA_F32_32X32X4_2B_F16 => s(32, 32, 4, 2, F16),
        V_MFMA_F32_16X16X4F16 | V_MFMA_F32_16X16X4_4B_F16 => s(16, 16, 4, 4, F16),
        V_MFMA_F32_4X4X4F16 | V_MFMA_F32_4X4X4_16B_F16 => s(4, 4, 4, 16, F16),
        V_MFMA_F32_32X32X8F16 | V_MFMA_F32_32X32X8_F16 => s(32, 32, 8, 1, F16),
        V_MFMA_F32_16X16X16F16 | V_MFMA_F32_16X16X16_F16 => s(16, 16, 16, 1, F16),
        V_MFMA_I32_32X32X4I8 | V_MFMA_I32_32X32X4_2B_I8 => s(32, 32, 4, 2, I8),
        V_MFMA_I32_16X16X4I8 | V_MFMA_I32_16X16X4_4B_I8 => s(16, 16, 4, 4, I8),
        V_MFMA_I32_4X4X4I8 | V_MFMA_I32_4X4X4_16B_I8 => s(4, 4, 4, 16, I8),
        V_MFMA_I32_32X32X8I8 => s(32, 32, 8, 1, I8),
        V_MFMA_I32_16X16X16I8 => s(16, 16, 16, 1, I8),
        V_MFMA_I32_32X32X16_I8 => s(32, 32, 16, 1, I8),
        V_MFMA_I32_16X16X32_I8 => s(16, 16, 32, 1, I8),
        V_MFMA_F32_32X32X2BF16 => s(32, 32, 2, 2, Bf16),
        V_MFMA_F32_16X16X2BF16 => s(16, 16, 2, 4, Bf16),
        V_MFMA_F32_4X4X2BF16 => s(4, 4, 2, 16, Bf16),
        V_MFMA_F32_32X32X4BF16 => s(32, 32, 4, 1, Bf16),
        V_MFMA_F32_16X16X8BF16 => s(16, 16, 8, 1, Bf16),
        V_MFMA_F32_32X32X4BF16_1K | V_MFMA_F32_32X32X4_2B_BF16 => s(32, 32, 4, 2, Bf16),
        V_MFMA_F32_16X16X4BF16_1K | V_MFMA_F32_16X16X4_4B_BF16 => s(16, 16, 4, 4, Bf16),
        V_MFMA_F32_4X4X4BF16_1K | V_MFMA_F32_4X4X4_16B_BF16 => s(4, 4, 4, 16, Bf16),
        V_MFMA_F32_32X32X8BF16_1K | V_MFMA_F32_32X32X8_BF16 => s(32, 32, 8, 1, Bf16),
        V_MFMA_F32_16X16X16BF16_1K | V_MFMA_F32_16X16X16_BF16 => s(16, 16, 16, 1, Bf16),
        V_MFMA_F32_16X16X8_XF32 => s(16, 16, 8, 1, Xf32),
        V_MFMA_F32_32X32X4_XF32 => s(32, 32, 4, 1, Xf32),
        V_MFMA_F64_16X16X4F64 | V_MFMA_F64_16X16X4_F64 => s(16, 16, 4, 1, F64),
        V_MFMA_F64_4X4X4F64 | V_MFMA_F64_4X4X4_4B_F64 => s(4, 4, 4, 4, F64),
        V_SMFMAC_F32_16X16X32_F16 => sp(16, 16, 32, F16),
        V_SMFMAC_F32_32X32X16_F16 => sp(32, 32, 16, F16),
        V_SMFMAC_F32_16X16X32_BF16 => sp(16, 16, 32, Bf16),
        V_SMFMAC_F32_32X32X16_BF16 => sp(32, 32, 16, Bf16),
        V_SMFMAC_I32_16X16X64_I8 => sp(16, 16, 64, I8),
        V_SMFMAC_I32_32X32X32_I8 => sp(32, 32, 32, I8),
        V_MFMA_F32_16X16X32_FP8_FP8 => s(16, 16, 32, 1, f8(FP8, FP8)),
        V_MFMA_F32_16X16X32_FP8_BF8 => s(16, 16, 32, 1, f8(FP8, BF8)),
        V_MFMA_F32_16X16X32_BF8_FP8 => s(16, 16, 32, 1, f8(BF8, FP8)),
        V_MFMA_F32_16X16X32_BF8_BF8 => s(16, 16, 32, 1, f8(BF8, BF8)),
        V_MFMA_F32_32X32X16_FP8_FP8 => s(32, 32, 16, 1, f8(FP8, FP8)),
        V_MFMA_F32_32X32X16_FP8_BF8 => s(32, 32, 16, 1, f8(FP8, BF8)),
        V_MFMA_F32_32X32X16_BF8_FP8 => s(32, 32, 16, 1, f8(BF8, FP8)),
        V_MFMA_F32_32X32X16_BF8_BF8 => s(32, 32, 16, 1, f8(BF8, BF8)),
        V_SMFMAC_F32_16X16X64_FP8_FP8 => sp(16, 16, 64, f8(FP8, FP8)),
        V_SMFMAC_F32_16X16X64_FP8_BF8 => sp(16, 16, 64, f8(FP8, BF8)),
        V_SMFMAC_F32_16X16X64_BF8_FP8 => sp(16, 16, 64, f8(BF8, FP8)),
        V_SMFMAC_F32_16X16X64_BF8_BF8 => sp(16, 16, 64, f8(BF8, BF8)),
        V_SMFMAC_F32_32X32X32_FP8_FP8 => sp(32, 32, 32, f8(FP8, FP8)),
        V_SMFMAC_F32_32X32X32_FP8_BF8 => sp(32, 32, 32, f8(FP8, BF8)),
        V_SMFMAC_F32_32X32X32_BF8_FP8 => sp(32, 32, 32, f8(BF8, FP8)),
        V_SMFMAC_F32_32X32X32_BF8_BF8 => sp(32, 32, 32, f8(BF8, BF8)),
        _ => return gfx950(op),
    })
}

/// The opcodes gfx950 adds (module docs).
fn gfx950(op: Opcode) -> Option<Shape> {
    use In::*;
    use Opcode::*;
    Some(match op {
        V_MFMA_F32_16X16X32_F16 => s(16, 16, 32, 1, F16),
        V_MFMA_F32_16X16X32_BF16 => s(16, 16, 32, 1, Bf16),
        V_MFMA_F32_32X32X16_F16 => s(32, 32, 16, 1, F16),
        V_MFMA_F32_32X32X16_BF16 => s(32, 32, 16, 1, Bf16),
        V_MFMA_I32_16X16X64_I8 => s(16, 16, 64, 1, I8),
        V_MFMA_I32_32X32X32_I8 => s(32, 32, 32, 1, I8),
        V_MFMA_F32_16X16X128_F8F6F4 => s(16, 16, 128, 1, F8f6f4 { scaled: false }),
        V_MFMA_F32_32X32X64_F8F6F4 => s(32, 32, 64, 1, F8f6f4 { scaled: false }),
        V_MFMA_SCALE_F32_16X16X128_F8F6F4 => s(16, 16, 128, 1, F8f6f4 { scaled: true }),
        V_MFMA_SCALE_F32_32X32X64_F8F6F4 => s(32, 32, 64, 1, F8f6f4 { scaled: true }),
        V_SMFMAC_F32_16X16X64_F16 => sp(16, 16, 64, F16),
        V_SMFMAC_F32_16X16X64_BF16 => sp(16, 16, 64, Bf16),
        V_SMFMAC_F32_32X32X32_F16 => sp(32, 32, 32, F16),
        V_SMFMAC_F32_32X32X32_BF16 => sp(32, 32, 32, Bf16),
        V_SMFMAC_I32_16X16X128_I8 => sp(16, 16, 128, I8),
        V_SMFMAC_I32_32X32X64_I8 => sp(32, 32, 64, I8),
        V_SMFMAC_F32_16X16X128_FP8_FP8 => sp(16, 16, 128, f8(FP8, FP8)),
        V_SMFMAC_F32_16X16X128_FP8_BF8 => sp(16, 16, 128, f8(FP8, BF8)),
        V_SMFMAC_F32_16X16X128_BF8_FP8 => sp(16, 16, 128, f8(BF8, FP8)),
        V_SMFMAC_F32_16X16X128_BF8_BF8 => sp(16, 16, 128, f8(BF8, BF8)),
        V_SMFMAC_F32_32X32X64_FP8_FP8 => sp(32, 32, 64, f8(FP8, FP8)),
        V_SMFMAC_F32_32X32X64_FP8_BF8 => sp(32, 32, 64, f8(FP8, BF8)),
        V_SMFMAC_F32_32X32X64_BF8_FP8 => sp(32, 32, 64, f8(BF8, FP8)),
        V_SMFMAC_F32_32X32X64_BF8_BF8 => sp(32, 32, 64, f8(BF8, BF8)),
        _ => return None,
    })
}
