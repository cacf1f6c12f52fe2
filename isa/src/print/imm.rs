//! Immediate operands in LLVM syntax: small integers in decimal, the hardware's inline float
//! constants by value, everything else in hex. Which float forms exist depends on the operand
//! type (f16/bf16/f32/f64), as in the ISA manuals' inline-constant tables.

use crate::decode::Ctx;
use crate::tables::OperandType as T;
use std::fmt::Write;

/// Integers that are inline constants (−16..=64) print in decimal.
fn inline_int(v: i64) -> bool {
    (-16..=64).contains(&v)
}

pub fn hex(out: &mut String, v: u64) {
    let _ = write!(out, "{v:#x}");
}

/// Signed hex as LLVM formats negative values (`-0x10`).
pub fn signed_hex(out: &mut String, v: i64) {
    if v < 0 {
        let _ = write!(out, "-{:#x}", v.unsigned_abs());
    } else {
        hex(out, v as u64);
    }
}

use crate::decode::inline_floats::{BF16_NAMES, F16_NAMES, F32_NAMES, F64_NAMES};

const FLOAT_TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];

/// Print `v` by value if it is one of the inline float constants of `table`'s format.
fn named_float(out: &mut String, v: u64, table: &[u64; 9], inv2pi_text: &str, zero: bool, ctx: &Ctx) -> bool {
    if zero && v == 0 {
        out.push_str("0.0");
        return true;
    }
    match table.iter().position(|&t| t == v) {
        Some(8) if has_inv2pi(ctx) => out.push_str(inv2pi_text),
        Some(i) if i < 8 => out.push_str(FLOAT_TEXT[i]),
        _ => return false,
    }
    true
}

fn float32(out: &mut String, v: u32, ctx: &Ctx) -> bool {
    named_float(out, v as u64, &F32_NAMES, "0.15915494", true, ctx)
}

fn float16(out: &mut String, v: u16, ctx: &Ctx) -> bool {
    named_float(out, v as u64, &F16_NAMES, "0.15915494", false, ctx)
}

fn bfloat16(out: &mut String, v: u16, ctx: &Ctx) -> bool {
    named_float(out, v as u64, &BF16_NAMES, "0.15915494", false, ctx)
}

fn has_inv2pi(ctx: &Ctx) -> bool {
    ctx.has(crate::tables::feature::INV2PIINLINEIMM)
}

fn imm32(out: &mut String, v: u32, ctx: &Ctx) {
    if inline_int(v as i32 as i64) {
        let _ = write!(out, "{}", v as i32);
    } else if !float32(out, v, ctx) {
        hex(out, v as u64);
    }
}

fn imm64(out: &mut String, v: u64, ctx: &Ctx, is_fp: bool) {
    let s = v as i64;
    if inline_int(s) {
        let _ = write!(out, "{s}");
    } else if !named_float(out, v, &F64_NAMES, "0.15915494309189532", true, ctx) {
        // A 64-bit float literal carries only its high half.
        hex(out, if is_fp { v >> 32 } else { v });
    }
}

fn imm_int16(out: &mut String, v: u32, ctx: &Ctx) {
    if inline_int(v as i32 as i64) {
        let _ = write!(out, "{}", v as i32);
    } else if !float32(out, v, ctx) {
        hex(out, (v & 0xffff) as u64);
    }
}

fn imm_f16(out: &mut String, v: u32, ctx: &Ctx) {
    let s = v as i16;
    if inline_int(s as i64) {
        let _ = write!(out, "{s}");
    } else if !float16(out, v as u16, ctx) {
        hex(out, (v & 0xffff) as u64);
    }
}

fn imm_bf16(out: &mut String, v: u32, ctx: &Ctx) {
    let s = v as i16;
    if inline_int(s as i64) {
        let _ = write!(out, "{s}");
    } else if !bfloat16(out, v as u16, ctx) {
        hex(out, v as u64);
    }
}

fn imm_v216(out: &mut String, v: u32, t: T, ctx: &Ctx) {
    if inline_int(v as i32 as i64) {
        let _ = write!(out, "{}", v as i32);
        return;
    }
    let done = match t {
        T::RegImmV2int16 | T::RegInlineCV2int16 => float32(out, v, ctx),
        T::RegImmV2fp16 | T::RegInlineCV2fp16 => v <= 0xffff && float16(out, v as u16, ctx),
        // GFX11+ splats the f16 into both halves: a name only when the halves agree.
        T::RegImmV2fp16Splat if ctx.gfx11_plus => v >> 16 == v & 0xffff && float16(out, v as u16, ctx),
        T::RegImmV2fp16Splat => v <= 0xffff && float16(out, v as u16, ctx),
        T::RegImmV2bf16 | T::RegInlineCV2bf16 => v <= 0xffff && bfloat16(out, v as u16, ctx),
        _ => false,
    };
    if !done {
        hex(out, v as u64);
    }
}

/// Print an immediate operand of operand type `t`. Returns false for types that have no
/// immediate form (the caller adds LLVM's "invalid immediate" marker).
pub fn print(out: &mut String, v: i64, t: T, ctx: &Ctx) -> bool {
    let lo = v as u32;
    match t {
        T::RegImmInt32
        | T::RegImmFp32
        | T::RegImmFp32Deferred
        | T::RegInlineCInt32
        | T::RegInlineCFp32
        | T::RegInlineAcInt32
        | T::RegInlineAcFp32
        | T::RegImmV2int32
        | T::RegImmV2fp32
        | T::Immediate
        | T::InlineSplitBarrierInt32
        | T::Kimm32 => imm32(out, lo, ctx),
        T::RegImmInt64 | T::RegInlineCInt64 => imm64(out, v as u64, ctx, false),
        T::RegImmFp64 | T::RegInlineCFp64 | T::RegInlineAcFp64 => imm64(out, v as u64, ctx, true),
        T::RegInlineCInt16 | T::RegImmInt16 => imm_int16(out, lo, ctx),
        T::RegInlineCFp16 | T::RegImmFp16 | T::RegImmFp16Deferred | T::Kimm16 => imm_f16(out, lo, ctx),
        T::RegInlineCBf16 | T::RegImmBf16 => imm_bf16(out, lo, ctx),
        T::RegImmV2int16
        | T::RegImmV2fp16
        | T::RegImmV2bf16
        | T::RegInlineCV2fp16
        | T::RegInlineCV2bf16
        | T::RegInlineCV2int16
        | T::RegImmV2fp16Splat
        | T::RegImmNoinlineV2fp16 => imm_v216(out, lo, t, ctx),
        T::Unknown | T::Pcrel => {
            let _ = write!(out, "{v}");
        }
        T::Register | T::InputMods | T::SdwaVopcDst => {
            imm32(out, lo, ctx);
            return false;
        }
    }
    true
}
