//! Read-modify-write operations shared by memory atomics (FLAT/GLOBAL/buffer) and LDS atomics.
//!
//! Semantics from the ISA pseudocode (CDNA4 ISA "LDS Instructions", RDNA4 ISA §16.15
//! "VDS Instructions"; the memory atomics are defined the same way): with `tmp` the memory
//! value, `src` the data register (DATA) and `aux` the second data register (DATA2 or the
//! compare value):
//! * inc: `tmp >= src ? 0 : tmp + 1`; dec: `(tmp == 0 || tmp > src) ? src : tmp - 1`;
//! * cmpswap: `tmp == cmp ? src : tmp` (callers pass the compare value as `aux`; the register
//!   order differs between memory and LDS, see `ds`);
//! * mskor: `(tmp & ~src) | aux`; wrap: `tmp >= src ? tmp - src : tmp + aux`;
//! * sub_clamp (`csub`): `tmp < src ? 0 : tmp - src`; cond_sub: `tmp >= src ? tmp - src : tmp`.
//!
//! The pre-operation value is what returning forms give back.

use super::fp::{self, FpEnv};

/// The operation of an atomic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Swap,
    CmpSwap,
    Add,
    Sub,
    Rsub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    Inc,
    Dec,
    MskOr,
    Wrap,
    SubClamp,
    CondSub,
    FAdd,
    FMin,
    FMax,
    FCmpSwap,
    PkAddF16,
    PkAddBf16,
}

/// Operand width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    B32,
    B64,
}

impl Width {
    pub fn bytes(self) -> usize {
        match self {
            Width::B32 => 4,
            Width::B64 => 8,
        }
    }

    pub fn dwords(self) -> usize {
        self.bytes() / 4
    }

    fn mask(self) -> u64 {
        match self {
            Width::B32 => 0xffff_ffff,
            Width::B64 => u64::MAX,
        }
    }

    fn signed(self, v: u64) -> i64 {
        match self {
            Width::B32 => v as u32 as i32 as i64,
            Width::B64 => v as i64,
        }
    }
}

impl AtomicOp {
    /// Float operations (their denormal/NaN rules are documented approximations).
    pub fn is_float(self) -> bool {
        matches!(self, AtomicOp::FAdd | AtomicOp::FMin | AtomicOp::FMax | AtomicOp::FCmpSwap | AtomicOp::PkAddF16 | AtomicOp::PkAddBf16)
    }

    /// Whether the second data operand is used (compare value, OR bits, wrap addend).
    pub fn uses_aux(self) -> bool {
        matches!(self, AtomicOp::CmpSwap | AtomicOp::FCmpSwap | AtomicOp::MskOr | AtomicOp::Wrap)
    }
}

/// The new memory value.
pub fn apply(op: AtomicOp, w: Width, tmp: u64, src: u64, aux: u64, env: FpEnv) -> u64 {
    let m = w.mask();
    let (tmp, src, aux) = (tmp & m, src & m, aux & m);
    let r = match op {
        AtomicOp::Swap => src,
        AtomicOp::CmpSwap => select(tmp == aux, src, tmp),
        AtomicOp::Add => tmp.wrapping_add(src),
        AtomicOp::Sub => tmp.wrapping_sub(src),
        AtomicOp::Rsub => src.wrapping_sub(tmp),
        AtomicOp::SMin => select(w.signed(src) < w.signed(tmp), src, tmp),
        AtomicOp::SMax => select(w.signed(src) >= w.signed(tmp), src, tmp),
        AtomicOp::UMin => tmp.min(src),
        AtomicOp::UMax => tmp.max(src),
        AtomicOp::And => tmp & src,
        AtomicOp::Or => tmp | src,
        AtomicOp::Xor => tmp ^ src,
        AtomicOp::Inc => select(tmp >= src, 0, tmp.wrapping_add(1)),
        AtomicOp::Dec => select(tmp == 0 || tmp > src, src, tmp.wrapping_sub(1)),
        AtomicOp::MskOr => (tmp & !src) | aux,
        AtomicOp::Wrap => select(tmp >= src, tmp.wrapping_sub(src), tmp.wrapping_add(aux)),
        AtomicOp::SubClamp => select(tmp < src, 0, tmp.wrapping_sub(src)),
        AtomicOp::CondSub => select(tmp >= src, tmp.wrapping_sub(src), tmp),
        _ => apply_float(op, w, tmp, src, aux, env),
    };
    r & m
}

fn select(c: bool, a: u64, b: u64) -> u64 {
    if c {
        a
    } else {
        b
    }
}

fn apply_float(op: AtomicOp, w: Width, tmp: u64, src: u64, aux: u64, env: FpEnv) -> u64 {
    let (t, s, a) = (tmp as u32, src as u32, aux as u32);
    match (op, w) {
        (AtomicOp::FAdd, Width::B32) => fp::add_f32(t, s, env) as u64,
        (AtomicOp::FAdd, Width::B64) => fp::add_f64(tmp, src, env),
        (AtomicOp::FMin, Width::B32) => fp::min_f32(t, s, env) as u64,
        (AtomicOp::FMin, Width::B64) => fp::min_f64(tmp, src, env),
        (AtomicOp::FMax, Width::B32) => fp::max_f32(t, s, env) as u64,
        (AtomicOp::FMax, Width::B64) => fp::max_f64(tmp, src, env),
        (AtomicOp::FCmpSwap, Width::B32) => fp::cmpswap_f32(t, s, a, env) as u64,
        (AtomicOp::FCmpSwap, Width::B64) => fp::cmpswap_f64(tmp, src, aux, env),
        (AtomicOp::PkAddF16, _) => fp::pk_add_f16(t, s, env) as u64,
        (AtomicOp::PkAddBf16, _) => fp::pk_add_bf16(t, s, env) as u64,
        _ => tmp,
    }
}

/// Parse an atomic operation name without prefix and without `rtn` (`add_u32`, `smax_x2`,
/// `cmpswap_b64`, `min_num_f32`, `csub`, `pk_add_bf16`, LDS `wrxchg_b32`, `cmpst_f64` ...).
/// Both the GCN (`smin`, `_x2`) and the GFX11+ (`min_i32`, `_b64`) spellings are accepted.
pub fn parse(name: &str) -> Option<(AtomicOp, Width)> {
    let (base, ty) = match name.rsplit_once('_') {
        Some((b, t)) if is_type(t) => (b, t),
        _ => (name, ""),
    };
    let width = if matches!(ty, "x2" | "b64" | "u64" | "i64" | "f64") { Width::B64 } else { Width::B32 };
    let float = ty.starts_with('f') || ty == "bf16";
    let signed = ty.starts_with('i');
    let op = match base {
        "swap" | "wrxchg" | "storexchg" => AtomicOp::Swap,
        "cmpswap" | "cmpst" | "cmpstore" if float => AtomicOp::FCmpSwap,
        "cmpswap" | "cmpst" | "cmpstore" => AtomicOp::CmpSwap,
        "fcmpswap" => AtomicOp::FCmpSwap,
        "add" if float => AtomicOp::FAdd,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "rsub" => AtomicOp::Rsub,
        "smin" => AtomicOp::SMin,
        "umin" => AtomicOp::UMin,
        "smax" => AtomicOp::SMax,
        "umax" => AtomicOp::UMax,
        "min" | "max" => return min_max(base == "min", float, signed).map(|op| (op, width)),
        "fmin" | "min_num" => AtomicOp::FMin,
        "fmax" | "max_num" => AtomicOp::FMax,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        "mskor" => AtomicOp::MskOr,
        "wrap" => AtomicOp::Wrap,
        "csub" | "sub_clamp" => AtomicOp::SubClamp,
        "cond_sub" => AtomicOp::CondSub,
        "pk_add" if ty == "f16" => AtomicOp::PkAddF16,
        "pk_add" if ty == "bf16" => AtomicOp::PkAddBf16,
        _ => return None,
    };
    Some((op, width))
}

fn is_type(t: &str) -> bool {
    matches!(t, "x2" | "b32" | "b64" | "u32" | "u64" | "i32" | "i64" | "f32" | "f64" | "f16" | "bf16")
}

fn min_max(min: bool, float: bool, signed: bool) -> Option<AtomicOp> {
    Some(match (min, float, signed) {
        (true, true, _) => AtomicOp::FMin,
        (false, true, _) => AtomicOp::FMax,
        (true, false, true) => AtomicOp::SMin,
        (false, false, true) => AtomicOp::SMax,
        (true, false, false) => AtomicOp::UMin,
        (false, false, false) => AtomicOp::UMax,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_in_both_spellings() {
        assert_eq!(parse("smax_x2"), Some((AtomicOp::SMax, Width::B64)));
        assert_eq!(parse("max_i64"), Some((AtomicOp::SMax, Width::B64)));
        assert_eq!(parse("max_u32"), Some((AtomicOp::UMax, Width::B32)));
        assert_eq!(parse("cmpswap"), Some((AtomicOp::CmpSwap, Width::B32)));
        assert_eq!(parse("cmpswap_f32"), Some((AtomicOp::FCmpSwap, Width::B32)));
        assert_eq!(parse("min_num_f32"), Some((AtomicOp::FMin, Width::B32)));
        assert_eq!(parse("add_f64"), Some((AtomicOp::FAdd, Width::B64)));
        assert_eq!(parse("sub_clamp_u32"), Some((AtomicOp::SubClamp, Width::B32)));
        assert_eq!(parse("cond_sub_u32"), Some((AtomicOp::CondSub, Width::B32)));
        assert_eq!(parse("pk_add_bf16"), Some((AtomicOp::PkAddBf16, Width::B32)));
        assert_eq!(parse("ordered_add_b64"), None);
    }

    #[test]
    fn inc_dec_wrap_as_the_pseudocode_says() {
        let e = FpEnv::IEEE;
        assert_eq!(apply(AtomicOp::Inc, Width::B32, 5, 5, 0, e), 0);
        assert_eq!(apply(AtomicOp::Inc, Width::B32, 4, 5, 0, e), 5);
        assert_eq!(apply(AtomicOp::Dec, Width::B32, 0, 7, 0, e), 7);
        assert_eq!(apply(AtomicOp::Dec, Width::B32, 9, 7, 0, e), 7);
        assert_eq!(apply(AtomicOp::Dec, Width::B32, 3, 7, 0, e), 2);
        assert_eq!(apply(AtomicOp::SMin, Width::B32, 1, 0xffff_ffff, 0, e), 0xffff_ffff);
        assert_eq!(apply(AtomicOp::UMin, Width::B32, 1, 0xffff_ffff, 0, e), 1);
    }
}
