//! Classification of FLAT/GLOBAL/SCRATCH and MUBUF/MTBUF instructions: sizes, kinds,
//! addressing modes and operands are parsed from the mnemonic and the encoding row once,
//! when a kernel is loaded.

use super::atomic;
use super::buffer::{BufAddr, BufOp, BufWhat, D16};
use super::cache::CacheOp;
use super::flat::{AtomicSpec, FlatAddr, FlatOp, FlatWhat, Seg};
use super::format::Format;
use super::fp::FpEnv;
use super::shape::{LoadShape, StoreShape};
use super::Op;
use crate::exec::Env;
use hipscope_isa::decode::{sign_extend, Inst, Operand, Reg, Special};
use hipscope_isa::tables::{flags, OpName};
use hipscope_isa::Family;

pub fn classify(inst: &Inst, env: &Env) -> Option<Op> {
    let name = inst.mnemonic();
    if let Some(c) = CacheOp::parse(name) {
        return Some(Op::Cache(c));
    }
    if inst.has(flags::FLAT) {
        return flat(inst, env).map(Op::Flat);
    }
    if inst.has(flags::MUBUF | flags::MTBUF) {
        return buffer(inst, env).map(Op::Buffer);
    }
    if inst.has(flags::MIMG | flags::VIMAGE | flags::VSAMPLE) {
        return super::image::classify(inst).map(|i| Op::Image(Box::new(i)));
    }
    None
}

fn op(inst: &Inst, name: OpName) -> Operand {
    inst.operand(name).unwrap_or(Operand::Absent)
}

/// `saddr`, or `Absent` for `off`/`null`.
fn saddr(inst: &Inst) -> Operand {
    match op(inst, OpName::saddr) {
        Operand::Reg(Reg::Special(Special::Null)) => Operand::Absent,
        o @ Operand::Reg(_) => o,
        _ => Operand::Absent,
    }
}

/// The instruction offset: signed for GLOBAL/SCRATCH (13 bits GFX9/GFX11, 12 bits GFX10) and
/// for everything on GFX12 (24 bits); unsigned with the field's MSB ignored for FLAT before
/// GFX12 (CDNA4 ISA Table 54: "Flat: 12-bit unsigned offset (MSB is ignored)").
fn flat_offset(inst: &Inst, fam: Family, seg: Seg) -> i64 {
    let Some(i) = inst.row.operand_index(OpName::offset) else {
        return 0;
    };
    let bits: u32 = inst.row.operands[i].fields.iter().map(|f| f.1 as u32).sum();
    if bits == 0 {
        return 0;
    }
    let raw = inst.operands[i].imm() as u64 & ((1u64 << bits) - 1);
    if seg != Seg::Flat || fam == Family::Gfx12 {
        sign_extend(raw, bits)
    } else {
        (raw & ((1u64 << (bits - 1)) - 1)) as i64
    }
}

fn flat(inst: &Inst, env: &Env) -> Option<FlatOp> {
    let seg = if inst.has(flags::FLATGLOBAL) {
        Seg::Global
    } else if inst.has(flags::FLATSCRATCH) {
        Seg::Scratch
    } else {
        Seg::Flat
    };
    let rest = inst.mnemonic().split_once('_')?.1;
    let addr = FlatAddr { seg, vaddr: op(inst, OpName::vaddr), saddr: saddr(inst), ioff: flat_offset(inst, env.family, seg) };
    let what = flat_what(inst, env, rest)?;
    Some(FlatOp { addr, what })
}

/// LDS-DMA form: no destination VGPR, `lds` in the syntax (`global_load_dword v[2:3], off lds`).
fn is_lds_dma(inst: &Inst) -> bool {
    inst.row.operand_index(OpName::vdst).is_none() && inst.row.asm.ends_with(" lds")
}

fn flat_what(inst: &Inst, env: &Env, rest: &str) -> Option<FlatWhat> {
    if let Some(s) = rest.strip_prefix("atomic_") {
        return atomic_spec(inst, env, s, OpName::vdst).map(FlatWhat::Atomic);
    }
    match rest {
        "load_addtid_b32" | "load_dword_addtid" => return Some(FlatWhat::LoadAddTid { dst: op(inst, OpName::vdst) }),
        "store_addtid_b32" | "store_dword_addtid" => return Some(FlatWhat::StoreAddTid { data: op(inst, OpName::vdata) }),
        _ => {}
    }
    if let Some(s) = rest.strip_prefix("load_lds_") {
        return lds_dma(s).map(|shape| FlatWhat::LoadLds { shape });
    }
    if let Some(s) = rest.strip_prefix("load_") {
        if is_lds_dma(inst) {
            return lds_dma(s).map(|shape| FlatWhat::LoadLds { shape });
        }
        return LoadShape::parse(s).map(|shape| FlatWhat::Load { shape: shape.on(env.family, env.sramecc), dst: op(inst, OpName::vdst) });
    }
    let s = rest.strip_prefix("store_")?;
    StoreShape::parse(s).map(|shape| FlatWhat::Store { shape, data: op(inst, OpName::vdata) })
}

/// LDS-DMA loads move a byte, a short or a dword per lane, and on gfx950 also three or four
/// dwords (`global_load_lds_dwordx3/x4`, `buffer_load_dwordx3/x4 ... lds`: the decoder only
/// accepts those encodings there, LLVM's `hasLDSLoadB96_B128()` is gfx950-only).
fn lds_dma(s: &str) -> Option<LoadShape> {
    LoadShape::parse(s).filter(|sh| matches!(sh.bytes, 1 | 2 | 4 | 12 | 16) && sh.half == super::shape::Half::Full)
}

/// Float environment of a memory (L2) atomic: CDNA flushes input denormals of F32 adds
/// (CDNA4 ISA Table 53 "L2 Cache Handling"); other float atomics keep denormals.
fn mem_fp_env(fam: Family, op: atomic::AtomicOp, w: atomic::Width) -> FpEnv {
    let cdna = matches!(fam, Family::Gfx9 | Family::Gfx90a | Family::Gfx940);
    let flush = cdna && op == atomic::AtomicOp::FAdd && w == atomic::Width::B32;
    FpEnv { flush_in: flush, flush_out: false }
}

/// A memory atomic; the pre-op value goes to `ret_reg` when the encoding returns one.
fn atomic_spec(inst: &Inst, env: &Env, name: &str, ret_reg: OpName) -> Option<AtomicSpec> {
    let (op_, width) = atomic::parse(name)?;
    let dst = if inst.has(flags::ISATOMICRET) { op(inst, ret_reg) } else { Operand::Absent };
    Some(AtomicSpec { op: op_, width, dst, data: op(inst, OpName::vdata), fp: mem_fp_env(env.family, op_, width) })
}

fn buffer(inst: &Inst, env: &Env) -> Option<BufOp> {
    let asm = inst.row.asm;
    if asm.contains(" addr64") {
        return None;
    }
    let addr = BufAddr {
        vaddr: op(inst, OpName::vaddr),
        srsrc: op(inst, OpName::srsrc),
        soffset: op(inst, OpName::soffset),
        ioff: op(inst, OpName::offset).imm() as u32,
        idxen: asm.contains(" idxen"),
        offen: asm.contains(" offen"),
    };
    let name = inst.mnemonic();
    let rest = name.strip_prefix("tbuffer_").or_else(|| name.strip_prefix("buffer_"))?;
    Some(BufOp { addr, what: buf_what(inst, env, rest)? })
}

fn buf_what(inst: &Inst, env: &Env, rest: &str) -> Option<BufWhat> {
    let vdata = op(inst, OpName::vdata);
    let tfe = inst.row.asm.ends_with(" tfe");
    let lds = inst.row.asm.ends_with(" lds") || rest.starts_with("load_lds_");
    if let Some(s) = rest.strip_prefix("atomic_") {
        return atomic_spec(inst, env, s, OpName::vdata).map(BufWhat::Atomic);
    }
    if let Some((load, comps, d16)) = parse_format(rest) {
        let typed = if inst.has(flags::MTBUF) { Some(typed_format(inst, env.family)?) } else { None };
        return match (load, lds) {
            (true, false) => Some(BufWhat::LoadFormat { comps, d16, typed, dst: vdata, tfe }),
            (false, _) => Some(BufWhat::StoreFormat { comps, d16, typed, data: vdata }),
            (true, true) => None,
        };
    }
    if let Some(s) = rest.strip_prefix("load_lds_") {
        return lds_dma(s).map(|shape| BufWhat::LoadLds { shape });
    }
    if let Some(s) = rest.strip_prefix("load_") {
        if lds {
            return lds_dma(s).map(|shape| BufWhat::LoadLds { shape });
        }
        return LoadShape::parse(s).map(|shape| BufWhat::Load { shape: shape.on(env.family, env.sramecc), dst: vdata, tfe });
    }
    let s = rest.strip_prefix("store_")?;
    StoreShape::parse(s).map(|shape| BufWhat::Store { shape, data: vdata })
}

/// `load_format_xy`, `store_format_d16_x`, `load_format_d16_hi_x`, GFX11 `load_d16_format_x`.
fn parse_format(rest: &str) -> Option<(bool, u8, D16)> {
    let (load, r) = match rest.strip_prefix("load_") {
        Some(r) => (true, r),
        None => (false, rest.strip_prefix("store_")?),
    };
    let (d16, comps) = if let Some(c) = r.strip_prefix("format_d16_hi_").or_else(|| r.strip_prefix("d16_hi_format_")) {
        (D16::Hi, c)
    } else if let Some(c) = r.strip_prefix("format_d16_").or_else(|| r.strip_prefix("d16_format_")) {
        (D16::Lo, c)
    } else {
        (D16::No, r.strip_prefix("format_")?)
    };
    let n = match comps {
        "x" => 1,
        "xy" => 2,
        "xyz" => 3,
        "xyzw" => 4,
        _ => return None,
    };
    Some((load, n, d16))
}

/// The MTBUF instruction's format: GFX8/9 `dfmt | nfmt << 4`, GFX10+ unified.
fn typed_format(inst: &Inst, fam: Family) -> Option<Format> {
    let v = op(inst, OpName::format).imm() as u32;
    match fam {
        Family::Gfx10 => Format::from_gfx10(v),
        Family::Gfx11 | Family::Gfx12 => Format::from_gfx11(v),
        _ => Format::from_gcn(v & 0xf, (v >> 4) & 7),
    }
}
