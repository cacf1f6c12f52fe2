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
    let extra: Vec<usize> = (0..row.operands.len()).filter(|&i| row.operands[i].fields.is_empty() && is_vaddr_n(row.operands[i].name)).collect();
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
/// instruction's controls imply — when an opcode variant of those sizes exists; otherwise the
/// representative's registers are kept (as LLVM's disassembler does).
pub(super) fn resize(ctx: &Ctx, row: &Row, info: &MimgInfo, ops: &mut [Operand]) {
    let imm = |ops: &[Operand], name: OpName| row.operand_index(name).map_or(0, |i| ops[i].imm());
    if info.bvh {
        // The a16 form of a ray-intersection opcode is a separate opcode; it prints `a16`.
        if let Some(i) = row.operand_index(OpName::a16) {
            if ops[i] == Operand::Absent {
                ops[i] = Operand::Imm(info.a16 as i64);
            }
        }
        return;
    }
    let vaddr: Vec<usize> = (0..row.operands.len()).filter(|&i| row.operands[i].name.name().starts_with("vaddr")).collect();
    let mut addr = info.vaddr_dwords as u32;
    let mut partial_nsa = false;
    if ctx.gfx10_plus {
        addr = address_dwords(ctx, info, imm(ops, OpName::dim) as usize, imm(ops, OpName::a16) != 0);
        if !info.nsa {
            if !row.has(crate::tables::flags::VSAMPLE) && addr > 12 {
                addr = 16;
            }
        } else if addr > info.vaddr_dwords as u32 {
            if !ctx.has(feature::PARTIALNSAENCODING) {
                return;
            }
            partial_nsa = true;
        }
    }
    let data = data_dwords(ctx, info, imm(ops, OpName::dmask) as u32, imm(ops, OpName::d16) != 0, imm(ops, OpName::tfe) != 0);
    if (data == info.vdata_dwords as u32 && addr == info.vaddr_dwords as u32) || !info.has_variant(data, addr) {
        return;
    }
    let data_op = row.operand_index(OpName::vdata);
    let new_data = match data_op {
        Some(i) if data != info.vdata_dwords as u32 => Some(widened(ops[i], data).ok_or(())),
        _ => None,
    };
    // Sequential address registers grow in place; a partial NSA form grows its last register.
    let (Some(&first), Some(&last)) = (vaddr.first(), vaddr.last()) else { return };
    let addr_op = if partial_nsa { last } else { first };
    let new_addr = if ctx.has(feature::NSAENCODING) && (!info.nsa || partial_nsa) && addr != info.vaddr_dwords as u32 {
        let held: u32 = if partial_nsa { vaddr[..vaddr.len() - 1].iter().map(|&i| reg_dwords(ops[i])).sum() } else { 0 };
        Some(widened(ops[addr_op], addr.saturating_sub(held).max(1)).ok_or(()))
    } else {
        None
    };
    if matches!(new_data, Some(Err(()))) || matches!(new_addr, Some(Err(()))) {
        return;
    }
    if let (Some(i), Some(Ok(d))) = (data_op, new_data) {
        ops[i] = d;
        if let Some(v) = row.operand_index(OpName::vdst) {
            ops[v] = d;
        }
    }
    match new_addr {
        Some(Ok(a)) => ops[addr_op] = a,
        _ if info.nsa => {
            for &i in vaddr.iter().skip(addr as usize) {
                ops[i] = Operand::Absent;
            }
        }
        _ => {}
    }
}

/// Data registers: one per enabled channel (four for gather4), halved for packed d16, plus the
/// TFE status dword.
fn data_dwords(ctx: &Ctx, info: &MimgInfo, dmask: u32, d16: bool, tfe: bool) -> u32 {
    let mut dwords = if info.gather4 { 4 } else { (dmask & 0xf).count_ones().max(1) };
    if d16 && !ctx.has(feature::UNPACKEDD16VMEM) {
        dwords = dwords.div_ceil(2);
    }
    dwords + tfe as u32
}

/// GFX10+ address size: extra arguments + coordinates (+ lod/clamp/mip), halved with a16,
/// plus gradients (halved with g16, or with a16 on targets without G16).
fn address_dwords(ctx: &Ctx, info: &MimgInfo, dim: usize, a16: bool) -> u32 {
    let (coords, grads) = MIMG_DIMS.get(dim).copied().unwrap_or((1, 2));
    let components = if info.coordinates { coords as u32 } else { 0 } + info.lod_clamp_mip as u32;
    let mut size = info.extra_args as u32 + if a16 { components.div_ceil(2) } else { components };
    if info.gradients {
        size += if (a16 && !ctx.has(feature::G16)) || info.g16 { (grads as u32 / 2).next_multiple_of(2) } else { grads as u32 };
    }
    size
}

fn reg_dwords(op: Operand) -> u32 {
    match op {
        Operand::Reg(r) => r.bits().div_ceil(32),
        _ => 0,
    }
}

/// The same first register with `dwords` registers, if that still fits the register file.
fn widened(op: Operand, dwords: u32) -> Option<Operand> {
    let fits = |index: u8| index as u32 + dwords <= 256;
    match op {
        Operand::Reg(Reg::Vgpr { index, .. }) if fits(index) => Some(Operand::Reg(Reg::Vgpr { index, count: dwords as u8 })),
        Operand::Reg(Reg::Agpr { index, .. }) if fits(index) => Some(Operand::Reg(Reg::Agpr { index, count: dwords as u8 })),
        _ => None,
    }
}
