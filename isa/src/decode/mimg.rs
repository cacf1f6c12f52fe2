//! Image instructions: the register ranges an encoding really uses.
//!
//! An image opcode's table row is one representative of a family that differs only in how
//! many data and address registers it covers. The data size follows `dmask` (channels), `d16`
//! (packed halves) and `tfe` (status dword); the address size on GFX10+ follows the image
//! dimension and `a16` (RDNA ISA manuals, "Image instructions": address VGPR layout). NSA
//! ("non-sequential address") forms carry extra address VGPR numbers, one byte each, in the
//! dwords after the instruction.

use super::inst::Operand;
use super::reg::Reg;
use super::Ctx;
use crate::tables::{feature, MimgInfo, OpName, Row, MIMG_DIMS};

/// Extra address operands of an NSA form (`vaddr1`..), read from the trailing bytes.
/// Returns the number of bytes consumed, or `None` if they are missing.
pub(super) fn read_nsa_addresses(row: &Row, ops: &mut [Operand], rest: &[u8]) -> Option<usize> {
    let extra: Vec<usize> = (0..row.operands.len())
        .filter(|&i| row.operands[i].fields.is_empty() && is_vaddr_n(row.operands[i].name))
        .collect();
    if extra.is_empty() {
        return Some(0);
    }
    let words = extra.len().div_ceil(4);
    let bytes = rest.get(..4 * words)?;
    for (k, &i) in extra.iter().enumerate() {
        let count = (row.class_of(i).reg_class.map_or(32, |c| c.bits) as u32).div_ceil(32) as u8;
        let index = bytes[k];
        if index as u32 + count as u32 > 256 {
            return None;
        }
        ops[i] = Operand::Reg(Reg::Vgpr { index, count });
    }
    Some(4 * words)
}

fn is_vaddr_n(name: OpName) -> bool {
    let n = name.name();
    n.starts_with("vaddr") && n != "vaddr0" && n != "vaddr"
}

/// Widen `vdata` (and the atomic `vdst` copy) and the address registers to the sizes the
/// instruction's controls imply.
pub(super) fn resize(ctx: &Ctx, row: &Row, info: &MimgInfo, ops: &mut [Operand]) {
    if info.bvh {
        // The a16 form of a ray-intersection opcode is a separate opcode; it prints `a16`.
        if let Some(i) = row.operand_index(OpName::a16) {
            if ops[i] == Operand::Absent {
                ops[i] = Operand::Imm(info.a16 as i64);
            }
        }
        return;
    }
    let imm = |ops: &[Operand], name: OpName| row.operand_index(name).map_or(0, |i| ops[i].imm());
    if ctx.gfx10_plus {
        resize_address(ctx, row, info, ops, imm(ops, OpName::dim) as usize, imm(ops, OpName::a16) != 0);
    }
    let dmask = imm(ops, OpName::dmask) as u32 & 0xf;
    let mut dwords = if info.gather4 { 4 } else { dmask.count_ones().max(1) };
    if imm(ops, OpName::d16) != 0 && !ctx.has(feature::UNPACKEDD16VMEM) {
        dwords = dwords.div_ceil(2);
    }
    if imm(ops, OpName::tfe) != 0 {
        dwords += 1;
    }
    if dwords != info.vdata_dwords as u32 && info.vdata_sizes & (1 << dwords.min(31)) != 0 {
        for name in [OpName::vdata, OpName::vdst] {
            if let Some(i) = row.operand_index(name) {
                ops[i] = widened(ops[i], dwords);
            }
        }
    }
}

/// GFX10+ address size: extra arguments + coordinates (+ lod/clamp/mip), halved with a16,
/// plus gradients (halved with g16, or with a16 on targets without G16).
fn resize_address(ctx: &Ctx, row: &Row, info: &MimgInfo, ops: &mut [Operand], dim: usize, a16: bool) {
    let Some(&(coords, grads)) = MIMG_DIMS.get(dim) else { return };
    let components = if info.coordinates { coords as u32 } else { 0 } + info.lod_clamp_mip as u32;
    let mut size = info.extra_args as u32 + if a16 { components.div_ceil(2) } else { components };
    if info.gradients {
        size += if (a16 && !ctx.has(feature::G16)) || info.g16 { (grads as u32 / 2).next_multiple_of(2) } else { grads as u32 };
    }
    let vaddr: Vec<usize> =
        (0..row.operands.len()).filter(|&i| row.operands[i].name.name().starts_with("vaddr")).collect();
    let Some(&first) = vaddr.first() else { return };
    if !info.nsa {
        if size > 12 {
            size = 16;
        }
        if size != info.vaddr_dwords as u32 && info.vaddr_sizes & (1 << size.min(31)) != 0 {
            ops[first] = widened(ops[first], size);
        }
        return;
    }
    if size > info.vaddr_dwords as u32 {
        if !ctx.has(feature::PARTIALNSAENCODING) {
            return;
        }
        // Partial NSA: the last address operand holds all remaining dwords.
        let last = vaddr[vaddr.len() - 1];
        let held: u32 = vaddr[..vaddr.len() - 1].iter().map(|&i| reg_dwords(ops[i])).sum();
        ops[last] = widened(ops[last], size.saturating_sub(held).max(1));
    } else {
        for &i in vaddr.iter().skip(size as usize) {
            ops[i] = Operand::Absent;
        }
    }
}

fn reg_dwords(op: Operand) -> u32 {
    match op {
        Operand::Reg(r) => r.bits().div_ceil(32),
        _ => 0,
    }
}

/// The same first register with `dwords` registers, if that still fits the register file.
fn widened(op: Operand, dwords: u32) -> Operand {
    let fits = |index: u8| index as u32 + dwords <= 256;
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) if fits(index) => Operand::Reg(Reg::Vgpr { index, count: dwords as u8 }),
        Operand::Reg(Reg::Agpr { index, .. }) if fits(index) => Operand::Reg(Reg::Agpr { index, count: dwords as u8 }),
        other => other,
    }
}
