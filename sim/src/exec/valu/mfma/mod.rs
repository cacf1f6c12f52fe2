//! Matrix fused multiply-add: the `V_MFMA_*` instructions of gfx908/gfx90a/gfx942/gfx950 and
//! the structured-sparse `V_SMFMAC_*` of gfx942/gfx950, including the FP8/BF8 forms and
//! gfx950's f8f6f4 forms with block scales ([`f8f6f4`], [`scale`], [`wide`]).
//!
//! One instruction computes, for each of its blocks, D = A·B + C over the whole wave: the
//! inputs and results are spread over the lanes of VGPRs/AGPRs ([`layout`], from the ISA
//! guides' matrix chapters). Each opcode's M×N×K, block count and input type are data
//! ([`shape`]); [`classify`] resolves the operands once, precomputes where each row of C/D sits,
//! the CBSZ/ABID block broadcast and the BLGP lane pattern; [`exec`] converts A and B once
//! into dense tiles of a reusable working set, multiplies, and writes D (32-bit results
//! straight between the register files when C and D allow it, [`direct`]). Nothing on that path
//! allocates.
//!
//! Register files: gfx908 reads A/B from VGPRs and C/D from AGPRs; gfx90a+ allows AGPRs for
//! A/B and either file for C/D (the `acc_cd` bit); the decoder already resolves every operand to
//! `Reg::Vgpr`/`Reg::Agpr`, so execution just follows it. C may be an inline constant (every
//! element the same value), as compilers emit for a zero accumulator.
//!
//! EXEC: the guides define MFMA on the whole matrix, each result depending on other lanes'
//! inputs, and say nothing that gives a partial EXEC a lane-wise meaning; compilers issue
//! MFMA with EXEC all ones. We read all 64 lanes and write all of D regardless of EXEC
//! (an assumption, stated here because no guide sentence was found).
//!
//! SMFMAC (MI300 ISA guide's SMFMAC instructions, as AMD's Matrix Instruction Calculator
//! states their A and K (compression index) layouts): A holds only
//! the two kept values of every group of four consecutive k (4:2 sparsity), packed in half
//! the slots of a dense A; the `idx` VGPR holds, in the same lane, a 2-bit k index within the
//! group for each kept value (kept slot `s` at bits `2s+1:2s`); with CBSZ = 0, ABID selects
//! which of the index sets packed in that VGPR (4 for 16-bit inputs, 2 for 8-bit) applies.
//! The accumulator C is the destination itself (`vdst` is read and written). Two kept values
//! naming the same index both multiply that k's B value (the sum); undefined in the guide.
//!
//! Numerics. Integer forms (i8 → i32) are exact: products and sums in integer arithmetic,
//! wrapping at 32 bits. For the f32/xf32/f16/bf16/fp8/bf8 forms the hardware's accumulation
//! order and internal precision are undocumented; we choose a chain of f32 fused
//! multiply-adds in ascending k starting from C: each k adds the exact product a·b to the f32
//! accumulator and rounds once, to nearest even (so K roundings per result, and the error is
//! at most K·2^-24·(|C| + Σ|a·b|)). Every input of these forms is exactly an f32 (f16, bf16
//! and FP8/BF8 widen exactly), so the forms differ only in how the inputs are decoded. xf32
//! inputs are first rounded to nearest even to 10 fraction bits (the format's precision; the
//! hardware's conversion is undocumented). FP8/BF8 inputs are the gfx942 FNUZ formats,
//! decoded exactly by [`minifloat::decode`]; the code 0x80 is NaN and propagates. MODE
//! denormal and round controls are not applied. f64 forms are chains of IEEE fused
//! multiply-adds in ascending k starting from C (exact given that order; the order itself is
//! undocumented).
//! On gfx940+ the f64 forms use the BLGP field as negate bits for A, B and C (CDNA3; stated by
//! the Matrix Instruction Calculator, and LLVM prints them as `neg:[a,b,c]`). All float forms
//! are `Fidelity::Approximate`.
//!
//! gfx950: FP8/BF8 are the OCP formats (E4M3, E5M2; `cvt8::formats`), for the CDNA3-style
//! opcodes too. The f8f6f4 forms use CBSZ/BLGP as A/B format selectors (no broadcast, no lane
//! pattern) and, scaled, multiply 32-k blocks by E8M0 scales; they and the SMFMACs with an
//! eight-VGPR B run through [`wide`], with the same f32 accumulation model.

mod direct;
pub mod exec;
pub mod f8f6f4;
pub mod layout;
pub mod scale;
pub mod shape;
pub mod wide;

use super::super::{Env, Fidelity};
use super::{cvt8, minifloat};
use hipscope_isa::decode::{Inst, Operand, Reg};
use hipscope_isa::tables::OpName;
use hipscope_isa::Family;
use shape::{In, Shape};

/// Where an input or the accumulator comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loc {
    /// A VGPR (`acc` false) or AGPR range starting at `base`.
    Reg { base: u8, acc: bool },
    /// An inline constant (its bit pattern) for every element.
    Const(u64),
}

/// A classified matrix instruction.
#[derive(Debug, Clone)]
pub struct Mfma {
    pub shape: Shape,
    pub a: Loc,
    pub b: Loc,
    /// C: `src2` (MFMA) or the destination (SMFMAC).
    pub c: Loc,
    /// SMFMAC index VGPR.
    pub idx: Option<Loc>,
    pub d: Loc,
    /// Elements per lane of A (stored, for SMFMAC) and of B.
    pub a_per_lane: u32,
    pub b_per_lane: u32,
    /// SMFMAC: the index set ABID selects.
    pub idx_set: u32,
    /// Negate A, B, C (gfx940 f64 forms).
    pub neg: [bool; 3],
    /// The A block each output block uses (CBSZ/ABID).
    pub a_block: [u8; 16],
    /// The register lane each logical B lane reads (BLGP).
    pub b_lane: [u8; layout::LANES],
    /// SMFMAC: lane `l`'s row of A and the first k of its first group of four.
    pub sparse_at: [(u8, u8); layout::LANES],
    /// Output register unit (a VGPR, or a VGPR pair for f64) and first lane of row `b·M + i`
    /// of C/D: the row's N elements sit in N consecutive lanes of that unit ([`layout::output`]).
    pub rows: Box<[(u8, u8)]>,
    /// Each row's word offset of C and of D in its register file ([`direct::offsets`]).
    pub at: Box<[[u32; 2]]>,
    /// FP8/BF8 forms: the values of every A code and every B code.
    pub f8: Option<Box<[[f32; 256]; 2]>>,
    /// gfx950's wide forms ([`wide`]): executed by their own gather.
    pub wide: Option<Box<wide::Wide>>,
    /// Whether 32-bit results may go straight from C's registers to D's ([`direct`]).
    pub direct: bool,
}

const NO_FLOAT_ORDER: &str =
    "matrix float accumulation order and internal precision are undocumented: chained f32 fused multiply-adds in ascending k (one rounding per product)";
const F64_ORDER: &str = "f64 matrix accumulation order is undocumented: chained fused multiply-adds in ascending k";
const WIDE: &str = "gfx950 f8f6f4/SMFMAC: accumulation order undocumented (chained f32 fused multiply-adds in ascending k); block scales applied to the inputs";

fn loc(op: Option<Operand>) -> Option<Loc> {
    Some(match op? {
        Operand::Reg(Reg::Vgpr { index, .. }) => Loc::Reg { base: index, acc: false },
        Operand::Reg(Reg::Agpr { index, .. }) => Loc::Reg { base: index, acc: true },
        Operand::Imm(v) => Loc::Const(v as u64),
        _ => return None,
    })
}

fn field(inst: &Inst, name: OpName) -> u32 {
    inst.operand(name).map_or(0, |o| o.imm() as u32)
}

/// Classify a matrix instruction; `None` when `inst` is none (or its operands are unusable).
pub fn classify(inst: &Inst, env: &Env) -> Option<(Mfma, Fidelity)> {
    let mut shape = shape::of(inst.opcode())?;
    ocp_on_gfx950(&mut shape, env);
    let (m, n, k, blocks) = (shape.m as u32, shape.n as u32, shape.k as u32, shape.blocks as u32);
    let d = loc(inst.operand(OpName::vdst)).filter(|l| matches!(l, Loc::Reg { .. }))?;
    let (mut cbsz, abid, mut blgp) = (field(inst, OpName::cbsz), field(inst, OpName::abid), field(inst, OpName::blgp));
    // f8f6f4: CBSZ and BLGP name the formats, nothing else.
    let formats = [cbsz, blgp];
    if matches!(shape.ty, In::F8f6f4 { .. }) {
        (cbsz, blgp) = (0, 0);
    }
    let mut neg = [false; 3];
    if shape.ty == In::F64 && env.family == Family::Gfx940 {
        neg = [blgp & 1 != 0, blgp & 2 != 0, blgp & 4 != 0];
        blgp = 0;
    }
    let (c, idx, a_k) = if shape.sparse { (d, Some(loc(inst.operand(OpName::idx))?), k / 2) } else { (loc(inst.operand(OpName::src2))?, None, k) };
    let mut a_block = [0u8; 16];
    for (b, x) in a_block.iter_mut().enumerate().take(blocks as usize) {
        *x = if shape.sparse { b as u8 } else { layout::a_block(b as u32, cbsz, abid, blocks) as u8 };
    }
    let mut b_lane = [0u8; layout::LANES];
    for (l, x) in b_lane.iter_mut().enumerate() {
        *x = layout::blgp_lane(l as u32, blgp) as u8;
    }
    let mut rows = Vec::with_capacity((blocks * m) as usize);
    for b in 0..blocks {
        for i in 0..m {
            let (r, l) = layout::output(&shape, i, 0, b);
            rows.push((r as u8, l as u8));
        }
    }
    let f8 = match shape.ty {
        In::F8 { a, b } => Some(Box::new([a, b].map(|f| std::array::from_fn(|c| minifloat::decode(f, c as u8))))),
        _ => None,
    };
    let a_per_lane = layout::per_lane(m, a_k, blocks);
    let b_per_lane = layout::per_lane(n, k, blocks);
    let mut sparse_at = [(0u8, 0u8); layout::LANES];
    for (l, x) in sparse_at.iter_mut().enumerate().filter(|_| shape.sparse) {
        let (_, r, k0) = layout::input_coord(m, 1, a_per_lane, l as u32);
        // Stored slot pairs expand to groups of four k, so the first k doubles.
        *x = (r as u8, (2 * k0) as u8);
    }
    let idx_set = if cbsz == 0 { abid } else { 0 };
    let (a, b) = (loc(inst.operand(OpName::src0))?, loc(inst.operand(OpName::src1))?);
    let scales = if matches!(shape.ty, In::F8f6f4 { scaled: true }) { scale::classify(inst) } else { None };
    let wide = wide::describe(&shape, [a, b], formats, [a_per_lane, b_per_lane], scales)?.map(Box::new);
    let mut mfma = Mfma {
        shape,
        a,
        b,
        c,
        idx,
        d,
        a_per_lane,
        b_per_lane,
        idx_set,
        neg,
        a_block,
        b_lane,
        sparse_at,
        rows: rows.into_boxed_slice(),
        at: Box::new([]),
        f8,
        wide,
        direct: false,
    };
    mfma.direct = direct::applies(&mfma);
    mfma.at = direct::offsets(&mfma);
    let fid = match shape.ty {
        In::I8 => Fidelity::Exact,
        _ if mfma.wide.is_some() => Fidelity::Approximate(WIDE),
        In::F64 => Fidelity::Approximate(F64_ORDER),
        _ => Fidelity::Approximate(NO_FLOAT_ORDER),
    };
    Some((mfma, fid))
}

/// On gfx950 the FP8/BF8 of the CDNA3-style opcodes are the processor's (OCP) formats.
fn ocp_on_gfx950(shape: &mut Shape, env: &Env) {
    let Some((fp8, bf8)) = cvt8::formats(env.decode.processor) else { return };
    if let In::F8 { a, b } = &mut shape.ty {
        for f in [a, b] {
            *f = if matches!(*f, minifloat::Format::E4M3Fnuz | minifloat::Format::E4M3) { fp8 } else { bf8 };
        }
    }
}
