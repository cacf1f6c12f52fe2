//! The decoded instruction and how a table row turns into one.

use super::operand::State;
use super::reg::{Reg, Special};
use super::{CachePolicy, Ctx};
use crate::tables::{flags, OpName, Opcode, OperandType, Row};

/// A decoded operand value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    Reg(Reg),
    /// Immediate field, inline constant (as its bit pattern) or literal.
    Imm(i64),
    /// The encoding does not carry this operand; it has its default (zero) meaning.
    Absent,
}

impl Operand {
    pub fn imm(&self) -> i64 {
        match *self {
            Operand::Imm(v) => v,
            _ => 0,
        }
    }

    pub fn reg(&self) -> Option<Reg> {
        match *self {
            Operand::Reg(r) => Some(r),
            _ => None,
        }
    }
}

/// One decoded instruction.
#[derive(Debug, Clone)]
pub struct Inst {
    /// The encoding it matched (mnemonic, format flags, operand layout).
    pub row: &'static Row,
    /// Operand values in the row's operand order.
    pub operands: Vec<Operand>,
    /// Bytes including a trailing literal.
    pub size: u8,
    pub address: u64,
    /// The 32-bit literal that followed the instruction words, if any.
    pub literal: Option<u32>,
    /// GFX11+ VOP3 op_sel bits [14:11] (bit 0 src0 .. bit 2 src2, bit 3 the destination) that
    /// no operand of the row carries: LLVM 19's fake16 VOP3 forms of 16-bit operations
    /// (`v_lshrrev_b16`, `v_and_b16`, `v_or_b16` without modifiers, `v_cndmask_b16` with
    /// abs/neg only) decode these bits as don't-care, but the hardware selects 16-bit halves
    /// with them as for every 16-bit VOP3 operand (RDNA3 ISA §7.4 "16-bit Math and VGPRs",
    /// VOP3 `OPSEL`); clang emits them. Zero otherwise.
    pub opsel: u8,
}

impl Inst {
    pub fn opcode(&self) -> Opcode {
        self.row.opcode
    }

    pub fn mnemonic(&self) -> &'static str {
        self.row.opcode.name()
    }

    pub fn has(&self, flag: u64) -> bool {
        self.row.has(flag)
    }

    /// The operand with this name, if the instruction has one.
    pub fn operand(&self, name: OpName) -> Option<Operand> {
        self.row.operand_index(name).map(|i| self.operands[i])
    }

    /// Cache-policy bits (zero for instructions without them).
    pub fn cache_policy(&self) -> CachePolicy {
        CachePolicy(self.operand(OpName::cpol).map_or(0, |o| o.imm() as u32))
    }

    /// Next instruction's address.
    pub fn next_address(&self) -> u64 {
        self.address + self.size as u64
    }

    /// Branch target of a SOPP branch (`simm16` counts dwords from the next instruction).
    pub fn branch_target(&self) -> Option<u64> {
        let i = self.row.operands.iter().position(|o| self.row_class_is_pcrel(o.class))?;
        let simm = self.operands[i].imm() as i16 as i64;
        Some(self.next_address().wrapping_add((simm * 4) as u64))
    }

    fn row_class_is_pcrel(&self, class: u16) -> bool {
        crate::tables::CLASSES[class as usize].op_type == OperandType::Pcrel
    }
}

/// Gather an operand's bits from the instruction word.
fn field_value(word: u128, fields: &[(u8, u8, u8)]) -> u64 {
    fields.iter().fold(0u64, |acc, &(lo, len, at)| {
        let bits = (word >> lo) as u64 & ((1u64 << len) - 1);
        acc | (bits << at)
    })
}

/// Decode `row`'s operands from `word` (and a literal from `rest`). `None` rejects the row.
pub(super) fn decode_row(ctx: &Ctx, row: &'static Row, word: u128, rest: &[u8], address: u64) -> Option<Inst> {
    // A K immediate held in the encoding words is the instruction's one literal, which a
    // source encoded as 255 reads too (RDNA3 ISA §7.6 VOPD: both halves share one literal;
    // LLVM 22 encodes K in bits 95:64 of the VOPD word).
    let literal = row.operands.iter().enumerate().find(|(i, d)| !d.fields.is_empty() && row.class_of(*i).decoder == crate::tables::DecoderKind::KImm);
    let mut state = State { ctx, rest, literal: literal.map(|(_, d)| field_value(word, &d.fields) as u32) };
    let mut operands: Vec<Operand> = Vec::with_capacity(row.operands.len());
    for (i, desc) in row.operands.iter().enumerate() {
        let op = if desc.fields.is_empty() {
            if desc.tied >= 0 && (desc.tied as usize) < i {
                operands[desc.tied as usize]
            } else {
                Operand::Absent
            }
        } else {
            let class = row.class_of(i);
            let inherit = agpr_partner(row, desc.name, &operands);
            state.decode(class.decoder, field_value(word, &desc.fields), &operands, inherit).ok()?
        };
        operands.push(op);
    }
    // A K operand the encoding does not hold (`immDeferred` of dual-issue VOPD forms) is the
    // instruction's one literal.
    for (i, desc) in row.operands.iter().enumerate() {
        if operands[i] == Operand::Absent && desc.tied < 0 && row.class_of(i).decoder == crate::tables::DecoderKind::KImm {
            operands[i] = Operand::Imm(state.literal_value().ok()? as i64);
        }
    }
    // Operands tied to a later operand take its value.
    for (i, desc) in row.operands.iter().enumerate() {
        if operands[i] == Operand::Absent && desc.tied >= 0 {
            operands[i] = operands[desc.tied as usize];
        }
    }
    apply_implied_values(ctx, row, &mut operands, state.literal);
    if ctx.llvm22 {
        true16_halves_from_op_sel(row, &mut operands);
        if row.has(flags::F8F6F4_WIDTHS) {
            f8f6f4_source_widths(row, &mut operands);
        }
    }
    let mut size = row.bytes + if state.literal.is_some() && !has_kimm(row) { 4 } else { 0 };
    if let Some(info) = &row.mimg {
        size += super::mimg::read_nsa_addresses(row, &mut operands, rest)? as u8;
        super::mimg::resize(ctx, row, info, &mut operands);
    }
    let opsel = if ctx.gfx11_plus && row.has(flags::VOP3) && !row.has(flags::VOP3P) {
        let covered = row.operands.iter().flat_map(|d| d.fields.iter()).fold(0u128, |m, &(lo, len, _)| m | (((1u128 << len) - 1) << lo));
        ((word & !covered) >> 11 & 0xf) as u8
    } else {
        0
    };
    Some(Inst { row, operands, size, address, literal: state.literal, opsel })
}

/// LLVM 22's true16 VOP3 forms name the 16-bit half of each VGPR operand in the register
/// (`v1.h`): op_sel bit N of `srcN_modifiers` selects the high half of source N, and the
/// destination's op_sel bit (bit 3, carried in `src0_modifiers`) that of `vdst` (RDNA3 ISA
/// §7.4 "16-bit Math and VGPRs"; LLVM 22.1.8's disassembler applies the same rule after
/// decoding). The op_sel bits stay in the modifiers, so `op_sel:[...]` still prints.
fn true16_halves_from_op_sel(row: &Row, ops: &mut [Operand]) {
    const OP_SEL: i64 = 4;
    const DST_OP_SEL: i64 = 8;
    let pairs = [
        (OpName::src0, OpName::src0_modifiers, OP_SEL),
        (OpName::src1, OpName::src1_modifiers, OP_SEL),
        (OpName::src2, OpName::src2_modifiers, OP_SEL),
        (OpName::vdst, OpName::src0_modifiers, DST_OP_SEL),
    ];
    for (name, mods, bit) in pairs {
        let (Some(i), Some(m)) = (row.operand_index(name), row.operand_index(mods)) else { continue };
        if let (Operand::Reg(Reg::Vgpr16 { index, .. }), Operand::Imm(v)) = (ops[i], ops[m]) {
            if v & bit != 0 {
                ops[i] = Operand::Reg(Reg::Vgpr16 { index, hi: true });
            }
        }
    }
}

/// gfx950's f8f6f4 MFMAs read as many A (`src0`) and B (`src1`) registers as their formats
/// need: `cbsz` and `blgp` name the formats FP8 (0), BF8 (1), FP6 (2), BF6 (3), FP4 (4), which
/// take 8, 8, 6, 6 and 4 VGPRs (CDNA4 ISA, "Matrix Fused Multiply Add" f8f6f4 formats; LLVM
/// 22.1.8 prints the tuple of that width).
fn f8f6f4_source_widths(row: &Row, ops: &mut [Operand]) {
    let regs = |format: i64| match format {
        2 | 3 => 6,
        4 => 4,
        _ => 8,
    };
    for (src, fmt) in [(OpName::src0, OpName::cbsz), (OpName::src1, OpName::blgp)] {
        let (Some(i), Some(f)) = (row.operand_index(src), row.operand_index(fmt)) else { continue };
        let count = regs(ops[f].imm());
        ops[i] = match ops[i] {
            Operand::Reg(Reg::Vgpr { index, .. }) => Operand::Reg(Reg::Vgpr { index, count }),
            Operand::Reg(Reg::Agpr { index, .. }) => Operand::Reg(Reg::Agpr { index, count }),
            other => other,
        };
    }
}

/// GFX90A memory instructions have one ACC bit: the data operand (`vdata`, DS `data0`) is an
/// AGPR when `vdst` is, and DS `data1` follows `data0` (CDNA2 ISA, "ACC" field).
fn agpr_partner(row: &Row, name: OpName, decoded: &[Operand]) -> bool {
    let partner = match name {
        OpName::vdata if !row.has(flags::DS) => OpName::vdst,
        OpName::data0 if row.has(flags::DS) => OpName::vdst,
        OpName::data1 => OpName::data0,
        _ => return false,
    };
    let is_agpr = |i: usize| matches!(decoded.get(i), Some(Operand::Reg(Reg::Agpr { .. })));
    row.operand_index(partner).is_some_and(is_agpr)
}

/// A K-immediate is part of the encoding words themselves, so it adds no bytes.
fn has_kimm(row: &Row) -> bool {
    (0..row.operands.len()).any(|i| row.class_of(i).decoder == crate::tables::DecoderKind::KImm && !row.operands[i].fields.is_empty())
}

/// Values the encoding implies without carrying them.
fn apply_implied_values(ctx: &Ctx, row: &Row, ops: &mut [Operand], literal: Option<u32>) {
    // Returning atomics are encoded with GLC set: the bit is part of the opcode, not the operand
    // (GFX12: TH_ATOMIC_RETURN, the same bit).
    if super::is_memory_with_cpol(row) && row.has(flags::ISATOMICRET) {
        if let Some(i) = row.operand_index(OpName::cpol) {
            ops[i] = Operand::Imm(ops[i].imm() | 1);
        }
    }
    // Targets without GDS (GFX90A, GFX940, GFX12) ignore the DS `gds` bit when printing.
    if row.has(flags::DS) && !ctx.has(crate::tables::feature::GDS) {
        if let Some(i) = row.operand_index(OpName::gds) {
            ops[i] = Operand::Imm(0);
        }
    }
    // GFX8 SDWA compares always write VCC.
    if ctx.vi && row.has(flags::SDWA) {
        if let Some(i) = row.operand_index(OpName::sdst) {
            if ops[i] == Operand::Absent {
                let vcc = if ctx.wave64 { Special::Vcc } else { Special::VccLo };
                ops[i] = Operand::Reg(Reg::Special(vcc));
            }
        }
    }
    // FMAMK/FMAAK-style deferred literals: operands that decoded the literal marker 255 take
    // the K value.
    if let Some(lit) = literal {
        for (i, op) in ops.iter_mut().enumerate() {
            let t = row.class_of(i).op_type;
            if matches!(t, OperandType::RegImmFp32Deferred | OperandType::RegImmFp16Deferred) && *op == Operand::Imm(255) {
                *op = Operand::Imm(lit as i64);
            }
        }
    }
}

/// Source modifiers of a VOP3/VOP3P/SDWA/DPP source (`srcN_modifiers` operand).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SrcMods {
    /// Float negate (VOP3P: negate the low half).
    pub neg: bool,
    /// Float absolute value (VOP3P: negate the high half, `neg_hi`).
    pub abs: bool,
    /// SDWA integer sign extension (the `neg` bit in LLVM 19's rows, bit 4 in LLVM 22's).
    pub sext: bool,
    /// op_sel: take the high 16-bit half of this source (VOP3 16-bit ops, VOP3P low lane).
    pub op_sel: bool,
    /// op_sel_hi (VOP3P high lane), or the destination op_sel bit on src0 of VOP3.
    pub op_sel_hi: bool,
}

impl Inst {
    /// Modifiers of source `n` (0..=2); all false when the encoding has none.
    pub fn src_mods(&self, n: usize) -> SrcMods {
        let name = [OpName::src0_modifiers, OpName::src1_modifiers, OpName::src2_modifiers].get(n).copied();
        let Some(v) = name.and_then(|name| self.operand(name)).map(|o| o.imm()) else {
            return SrcMods::default();
        };
        SrcMods { neg: v & 1 != 0, abs: v & 2 != 0, sext: v & (1 | 1 << 4) != 0, op_sel: v & 4 != 0, op_sel_hi: v & 8 != 0 }
    }

    /// Source operand `n` (`src0`..`src2`).
    pub fn src(&self, n: usize) -> Option<Operand> {
        [OpName::src0, OpName::src1, OpName::src2].get(n).and_then(|&name| self.operand(name))
    }

    /// Output modifier: 0 none, 1 ×2, 2 ×4, 3 ÷2.
    pub fn omod(&self) -> u8 {
        self.operand(OpName::omod).map_or(0, |o| o.imm() as u8)
    }

    /// Clamp bit.
    pub fn clamp(&self) -> bool {
        self.operand(OpName::clamp).is_some_and(|o| o.imm() != 0)
    }

    /// Immediate offset of a memory instruction (`offset`, or DS `offset0`/`offset1` pair).
    pub fn offset(&self) -> i64 {
        self.operand(OpName::offset).map_or(0, |o| o.imm())
    }
}
