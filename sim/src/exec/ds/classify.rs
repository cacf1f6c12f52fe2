//! DS classification: the operation, sizes and operand roles from the mnemonic, once.

use super::transpose::TrShape;
use super::{DsFp, Op};
use crate::exec::vmem::atomic::{self, AtomicOp, Width};
use crate::exec::vmem::shape::{LoadShape, StoreShape};
use crate::exec::Env;
use hipscope_isa::decode::{Inst, Operand};
use hipscope_isa::tables::OpName;

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

fn imm(inst: &Inst, name: OpName) -> u32 {
    op(inst, name).imm() as u32
}

pub fn classify(inst: &Inst, env: &Env) -> Option<Op> {
    if imm(inst, OpName::gds) != 0 {
        return None;
    }
    let rest = inst.mnemonic().strip_prefix("ds_")?;
    special(inst, rest).or_else(|| two_address(inst, rest)).or_else(|| load_store(inst, rest, env)).or_else(|| atomic_op(inst, rest))
}

/// Instructions with their own addressing: lane ops, append/consume, addtid, condxchg.
fn special(inst: &Inst, rest: &str) -> Option<Op> {
    let (dst, addr, data0, offset) = (op(inst, OpName::vdst), op(inst, OpName::addr), op(inst, OpName::data0), imm(inst, OpName::offset));
    Some(match rest {
        "nop" => Op::Nop,
        "swizzle_b32" => Op::Swizzle { dst, src: addr, pattern: offset },
        "permute_b32" => Op::Permute { backward: false, dst, addr, src: data0, offset },
        "bpermute_b32" => Op::Permute { backward: true, dst, addr, src: data0, offset },
        "append" => Op::Append { consume: false, dst, offset },
        "consume" => Op::Append { consume: true, dst, offset },
        "read_addtid_b32" | "load_addtid_b32" => Op::LoadAddTid { dst, offset },
        "write_addtid_b32" | "store_addtid_b32" => Op::StoreAddTid { data: data0, offset },
        "condxchg32_rtn_b64" => Op::CondXchg32 { dst, addr, data: data0, offset },
        _ => return None,
    })
}

/// `read2[st64]`, `write2[st64]`, `wrxchg2[st64]_rtn` and their GFX11 names: offsets in
/// units of the element size, times 64 for the stride-64 forms (CDNA4 ISA §11.3.1 "Double
/// Address Instructions").
fn two_address(inst: &Inst, rest: &str) -> Option<Op> {
    let (kind, st64, ty) = split_two_address(rest)?;
    let width = match ty {
        "b32" => Width::B32,
        "b64" => Width::B64,
        _ => return None,
    };
    let scale = width.bytes() as u32 * if st64 { 64 } else { 1 };
    let off = [imm(inst, OpName::offset0) * scale, imm(inst, OpName::offset1) * scale];
    let (dst, addr) = (op(inst, OpName::vdst), op(inst, OpName::addr));
    let data = [op(inst, OpName::data0), op(inst, OpName::data1)];
    Some(match kind {
        TwoKind::Read => Op::Load2 { width, dst, addr, off },
        TwoKind::Write => Op::Store2 { width, data, addr, off },
        TwoKind::Xchg => Op::Xchg2 { width, dst, data, addr, off },
    })
}

enum TwoKind {
    Read,
    Write,
    Xchg,
}

fn split_two_address(rest: &str) -> Option<(TwoKind, bool, &str)> {
    const FORMS: [(&str, TwoKind, bool); 12] = [
        ("read2st64_", TwoKind::Read, true),
        ("read2_", TwoKind::Read, false),
        ("load_2addr_stride64_", TwoKind::Read, true),
        ("load_2addr_", TwoKind::Read, false),
        ("write2st64_", TwoKind::Write, true),
        ("write2_", TwoKind::Write, false),
        ("store_2addr_stride64_", TwoKind::Write, true),
        ("store_2addr_", TwoKind::Write, false),
        ("wrxchg2st64_rtn_", TwoKind::Xchg, true),
        ("wrxchg2_rtn_", TwoKind::Xchg, false),
        ("storexchg_2addr_stride64_rtn_", TwoKind::Xchg, true),
        ("storexchg_2addr_rtn_", TwoKind::Xchg, false),
    ];
    FORMS.into_iter().find_map(|(p, kind, st64)| rest.strip_prefix(p).map(|ty| (kind, st64, ty)))
}

fn load_store(inst: &Inst, rest: &str, env: &Env) -> Option<Op> {
    let (addr, offset) = (op(inst, OpName::addr), imm(inst, OpName::offset));
    if let Some(shape) = rest.strip_prefix("read_").and_then(TrShape::parse) {
        return Some(Op::LoadTr { shape, dst: op(inst, OpName::vdst), addr, offset });
    }
    if let Some(s) = rest.strip_prefix("read_").or_else(|| rest.strip_prefix("load_")) {
        return LoadShape::parse(s).map(|shape| Op::Load { shape: shape.on(env.family, env.sramecc), dst: op(inst, OpName::vdst), addr, offset });
    }
    let s = rest.strip_prefix("write_").or_else(|| rest.strip_prefix("store_"))?;
    StoreShape::parse(s).map(|shape| Op::Store { shape, data: op(inst, OpName::data0), addr, offset })
}

/// Float environment class of an LDS atomic.
fn fp_class(op_: AtomicOp, width: Width) -> DsFp {
    let wide = width == Width::B64;
    match op_ {
        AtomicOp::FAdd if wide => DsFp::NoFlush,
        AtomicOp::FAdd => DsFp::Mode32,
        AtomicOp::FMin | AtomicOp::FMax | AtomicOp::FCmpSwap if wide => DsFp::ModeIn64,
        AtomicOp::FMin | AtomicOp::FMax | AtomicOp::FCmpSwap => DsFp::ModeIn32,
        AtomicOp::PkAddF16 | AtomicOp::PkAddBf16 => DsFp::Mode64,
        _ => DsFp::None,
    }
}

/// LDS atomics, `*_rtn_*` returning the pre-op value. Compare-store operand order: GCN/CDNA
/// and GFX10 `ds_cmpst_*` take `DATA0 = cmp, DATA1 = src` ("the order of src and cmp are the
/// opposite of the BUFFER_ATOMIC_CMPSWAP opcode", CDNA4 ISA `DS_CMPST_B32`); GFX11+
/// `ds_cmpstore_*` take `DATA0 = src, DATA1 = cmp` (RDNA3/RDNA4 ISA `DS_CMPSTORE_B32`).
fn atomic_op(inst: &Inst, rest: &str) -> Option<Op> {
    let ret = rest.contains("_rtn");
    let base = rest.replacen("_rtn", "", 1);
    let (op_, width) = atomic::parse(&base)?;
    let (d0, d1) = (op(inst, OpName::data0), op(inst, OpName::data1));
    let (src, aux) = if base.starts_with("cmpst_") { (d1, d0) } else { (d0, d1) };
    Some(Op::Atomic {
        op: op_,
        width,
        dst: if ret { op(inst, OpName::vdst) } else { Operand::Absent },
        addr: op(inst, OpName::addr),
        src,
        aux,
        offset: imm(inst, OpName::offset),
        fp: fp_class(op_, width),
    })
}
