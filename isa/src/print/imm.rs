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

fn float32(out: &mut String, v: u32, ctx: &Ctx) -> bool {
    let s = match v {
        0x00000000 => "0.0",
        0x3f800000 => "1.0",
        0xbf800000 => "-1.0",
        0x3f000000 => "0.5",
        0xbf000000 => "-0.5",
        0x40000000 => "2.0",
        0xc0000000 => "-2.0",
        0x40800000 => "4.0",
        0xc0800000 => "-4.0",
        0x3e22f983 if has_inv2pi(ctx) => "0.15915494",
        _ => return false,
    };
    out.push_str(s);
    true
}

fn float16(out: &mut String, v: u16, ctx: &Ctx) -> bool {
    let s = match v {
        0x3c00 => "1.0",
        0xbc00 => "-1.0",
        0x3800 => "0.5",
        0xb800 => "-0.5",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4400 => "4.0",
        0xc400 => "-4.0",
        0x3118 if has_inv2pi(ctx) => "0.15915494",
        _ => return false,
    };
    out.push_str(s);
    true
}

fn bfloat16(out: &mut String, v: u16, ctx: &Ctx) -> bool {
    let s = match v {
        0x3f80 => "1.0",
        0xbf80 => "-1.0",
        0x3f00 => "0.5",
        0xbf00 => "-0.5",
        0x4000 => "2.0",
        0xc000 => "-2.0",
        0x4080 => "4.0",
        0xc080 => "-4.0",
        0x3e22 if has_inv2pi(ctx) => "0.15915494",
        _ => return false,
    };
    out.push_str(s);
    true
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
        return;
    }
    let named = match v {
        0x0000000000000000 => "0.0",
        0x3ff0000000000000 => "1.0",
        0xbff0000000000000 => "-1.0",
        0x3fe0000000000000 => "0.5",
        0xbfe0000000000000 => "-0.5",
        0x4000000000000000 => "2.0",
        0xc000000000000000 => "-2.0",
        0x4010000000000000 => "4.0",
        0xc010000000000000 => "-4.0",
        0x3fc45f306dc9c882 if has_inv2pi(ctx) => "0.15915494309189532",
        _ if is_fp => {
            // A 64-bit float literal carries only its high half.
            hex(out, v >> 32);
            return;
        }
        _ => {
            hex(out, v);
            return;
        }
    };
    out.push_str(named);
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
        T::RegImmV2int16 => float32(out, v, ctx),
        T::RegImmV2fp16 | T::RegInlineCV2fp16 => v <= 0xffff && float16(out, v as u16, ctx),
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
        T::RegImmV2int16 | T::RegImmV2fp16 | T::RegImmV2bf16 | T::RegInlineCV2fp16 | T::RegInlineCV2bf16 => {
            imm_v216(out, lo, t, ctx)
        }
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
