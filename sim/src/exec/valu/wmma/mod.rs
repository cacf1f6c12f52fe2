//! WMMA and SWMMAC (RDNA3 gfx11, RDNA4 gfx12): D = A x B + C on 16x16 tiles held across the
//! lanes of a wave, in wave32 and wave64.
//!
//! Each instruction is classified once into a [`Wmma`]: its shape ([`layout`], the register
//! layouts as data), element types, registers and modifiers. Executing gathers A, B and C into
//! fixed-size matrices on the stack (no allocation), multiplies, and scatters D to the lanes
//! EXEC enables (the ISA requires EXEC to be all ones; other lanes keep their values here).
//!
//! Modifiers (RDNA3/RDNA4 ISA, WMMA "NEG" and "NEG_HI"; AMD Matrix Instruction Calculator):
//! * float inputs: `neg_lo[0]`/`neg_lo[1]` negate the low 16-bit element of every A/B register,
//!   `neg_hi[0..1]` the high one; `neg_lo[2]` subtracts C and `neg_hi[2]` takes |C|;
//! * integer inputs: `neg_lo[0]`/`neg_lo[1]` make A/B signed; `clamp` saturates D to i32;
//! * RDNA3 16-bit C/D: `op_sel[2]` picks the high half of each VGPR (the other half is kept);
//! * SWMMAC: `index_key` picks the set of compression indices within the index VGPR.
//!
//! Fidelity: integer forms are exact (products and sums are exact in f64 for these widths and
//! wrap or saturate to i32 as the ISA says). Float forms: the hardware's accumulation order
//! and intermediate precision are not documented; here every product is exact (f64), the K
//! products are summed in f64 as four interleaved partial sums (k mod 4) added pairwise, then
//! C is added and the sum rounded once to the output type (bf16 via f32), with denormal inputs
//! kept. Results can differ from hardware in the last bits.

pub mod exec;
pub mod layout;

use super::minifloat::Format;
use crate::exec::{Env, Fidelity};
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::{flags, OpName, Opcode};
use hipscope_isa::Family;
use layout::*;

/// Why the float forms are approximate.
pub const FLOAT: &str = "WMMA float accumulation order and internal precision are undocumented: exact products summed in f64 and rounded once";

/// An element type of a WMMA operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    F8(Format),
    /// 8- or 4-bit integers; signedness from `neg_lo`.
    Int8,
    Int4,
    F32,
    I32,
}

impl Elem {
    pub fn is_int(self) -> bool {
        matches!(self, Elem::Int8 | Elem::Int4 | Elem::I32)
    }
}

/// Where C comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CSrc {
    Vgpr(u8),
    /// An inline constant (raw bits of the C element type).
    Const(u32),
}

/// A classified WMMA/SWMMAC instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wmma {
    /// Shapes for wave32 and wave64.
    pub shapes: [&'static Shape; 2],
    pub a_ty: Elem,
    pub b_ty: Elem,
    pub cd_ty: Elem,
    pub a: u8,
    pub b: u8,
    pub c: CSrc,
    pub d: u8,
    /// SWMMAC: the index VGPR and the selected set.
    pub index: Option<(u8, u8)>,
    /// Per source: neg_lo (A, B, C) and neg_hi (A, B, C).
    pub neg: [bool; 3],
    pub neg_hi: [bool; 3],
    pub clamp: bool,
    /// RDNA3 16-bit C/D: use the high half of each VGPR.
    pub high_half: bool,
}

/// Shapes of `op` on `fam` (wave32, wave64) and its element types (A, B, C/D).
fn describe(op: Opcode, fam: Family) -> Option<([&'static Shape; 2], [Elem; 3])> {
    use Elem::*;
    use Opcode::*;
    let (fp8, bf8) = (F8(Format::E4M3), F8(Format::E5M2));
    let g11 = fam == Family::Gfx11;
    let pick = |a: &'static Shape, b: &'static Shape, c: &'static Shape, d: &'static Shape| if g11 { [a, b] } else { [c, d] };
    let f32_16 = pick(&GFX11_W32_K16_16_32, &GFX11_W64_K16_16_32, &GFX12_W32_K16_16_32, &GFX12_W64_K16_16_32);
    let f16_16 = pick(&GFX11_W32_K16_16_16, &GFX11_W64_K16_16_16, &GFX12_W32_K16_16_16, &GFX12_W64_K16_16_16);
    let i8_16 = pick(&GFX11_W32_K16_8_32, &GFX11_W64_K16_8_32, &GFX12_W32_K16_8_32, &GFX12_W64_K16_8_32);
    let i4_16 = pick(&GFX11_W32_K16_4_32, &GFX11_W64_K16_4_32, &GFX12_W32_K16_4_32, &GFX12_W64_K16_4_32);
    let (i4_32, s16_32, s16_16) =
        ([&GFX12_W32_K32_4_32, &GFX12_W64_K32_4_32], [&GFX12_W32_SK32_16_32, &GFX12_W64_SK32_16_32], [&GFX12_W32_SK32_16_16, &GFX12_W64_SK32_16_16]);
    let (s8, s4, s4_64) =
        ([&GFX12_W32_SK32_8_32, &GFX12_W64_SK32_8_32], [&GFX12_W32_SK32_4_32, &GFX12_W64_SK32_4_32], [&GFX12_W32_SK64_4_32, &GFX12_W64_SK64_4_32]);
    Some(match op {
        V_WMMA_F32_16X16X16_F16 => (f32_16, [F16, F16, F32]),
        V_WMMA_F32_16X16X16_BF16 => (f32_16, [Bf16, Bf16, F32]),
        V_WMMA_F16_16X16X16_F16 => (f16_16, [F16, F16, F16]),
        V_WMMA_BF16_16X16X16_BF16 => (f16_16, [Bf16, Bf16, Bf16]),
        V_WMMA_I32_16X16X16_IU8 => (i8_16, [Int8, Int8, I32]),
        V_WMMA_I32_16X16X16_IU4 => (i4_16, [Int4, Int4, I32]),
        _ if g11 => return None,
        V_WMMA_I32_16X16X32_IU4 => (i4_32, [Int4, Int4, I32]),
        V_WMMA_F32_16X16X16_FP8_FP8 => (i8_16, [fp8, fp8, F32]),
        V_WMMA_F32_16X16X16_FP8_BF8 => (i8_16, [fp8, bf8, F32]),
        V_WMMA_F32_16X16X16_BF8_FP8 => (i8_16, [bf8, fp8, F32]),
        V_WMMA_F32_16X16X16_BF8_BF8 => (i8_16, [bf8, bf8, F32]),
        V_SWMMAC_F32_16X16X32_F16 => (s16_32, [F16, F16, F32]),
        V_SWMMAC_F32_16X16X32_BF16 => (s16_32, [Bf16, Bf16, F32]),
        V_SWMMAC_F16_16X16X32_F16 => (s16_16, [F16, F16, F16]),
        V_SWMMAC_BF16_16X16X32_BF16 => (s16_16, [Bf16, Bf16, Bf16]),
        V_SWMMAC_I32_16X16X32_IU8 => (s8, [Int8, Int8, I32]),
        V_SWMMAC_I32_16X16X32_IU4 => (s4, [Int4, Int4, I32]),
        V_SWMMAC_I32_16X16X64_IU4 => (s4_64, [Int4, Int4, I32]),
        V_SWMMAC_F32_16X16X32_FP8_FP8 => (s8, [fp8, fp8, F32]),
        V_SWMMAC_F32_16X16X32_FP8_BF8 => (s8, [fp8, bf8, F32]),
        V_SWMMAC_F32_16X16X32_BF8_FP8 => (s8, [bf8, fp8, F32]),
        V_SWMMAC_F32_16X16X32_BF8_BF8 => (s8, [bf8, bf8, F32]),
        _ => return None,
    })
}

fn vgpr(op: Option<Operand>) -> Option<u8> {
    match op? {
        Operand::Reg(Reg::Vgpr { index, .. }) => Some(index),
        _ => None,
    }
}

/// Classify a WMMA/SWMMAC instruction; `None` for anything else (or unusable operands).
pub fn classify(inst: &Inst, env: &Env) -> Option<(Wmma, Fidelity)> {
    if !inst.has(flags::ISWMMA | flags::ISSWMMAC) || !matches!(env.family, Family::Gfx11 | Family::Gfx12) {
        return None;
    }
    let (shapes, [a_ty, b_ty, cd_ty]) = describe(inst.opcode(), env.family)?;
    let sparse = inst.has(flags::ISSWMMAC);
    let m = [inst.src_mods(0), inst.src_mods(1), inst.src_mods(2)];
    let c = if sparse {
        CSrc::Vgpr(vgpr(inst.operand(OpName::vdst))?)
    } else {
        match inst.operand(OpName::src2)? {
            Operand::Imm(v) => CSrc::Const(v as u32),
            op => CSrc::Vgpr(vgpr(Some(op))?),
        }
    };
    let key = [OpName::index_key_16bit, OpName::index_key_8bit].iter().find_map(|&n| inst.operand(n)).map_or(0, |o| o.imm() as u8);
    let index = if sparse { Some((vgpr(inst.operand(OpName::src2))?, key)) } else { None };
    let w = Wmma {
        shapes,
        a_ty,
        b_ty,
        cd_ty,
        a: vgpr(inst.operand(OpName::src0))?,
        b: vgpr(inst.operand(OpName::src1))?,
        c,
        d: vgpr(inst.operand(OpName::vdst))?,
        index,
        neg: m.map(|m| m.neg),
        neg_hi: m.map(|m| m.abs),
        clamp: inst.clamp(),
        high_half: env.family == Family::Gfx11 && cd_ty != Elem::F32 && cd_ty != Elem::I32 && m[2].op_sel,
    };
    // Every register an operand spans must exist (a bad encoding must not index past v255).
    let fits = |base: u8, l: &Layout| base as usize + l.regs() <= 256;
    let c_fits = |s: &Shape| match w.c {
        CSrc::Vgpr(r) => fits(r, &s.d),
        CSrc::Const(_) => true,
    };
    let index_fits = |s: &Shape| w.index.is_none_or(|(r, _)| s.index.is_none_or(|l| fits(r, &l)));
    if !shapes.iter().all(|s| fits(w.a, &s.a) && fits(w.b, &s.b) && fits(w.d, &s.d) && c_fits(s) && index_fits(s)) {
        return None;
    }
    let fid = if cd_ty.is_int() { Fidelity::Exact } else { Fidelity::Approximate(FLOAT) };
    Some((w, fid))
}
