//! Scalar atomics of GFX9/GFX10 (`s_atomic_*`, `s_buffer_atomic_*`).
//!
//! ISA manuals (Vega, CDNA1-3, RDNA1), "Scalar Memory Operations" / "SMEM Instructions": the
//! operation is applied to the dword (`_x2`: qword) at the address; with GLC set (the `_RTN`
//! encodings) the value before the operation returns to SDATA. CMPSWAP takes
//! {DATA[0] = new value, DATA[1] = compare value} (64-bit halves for `_x2`) and stores the new
//! value only when memory equals the compare value. INC/DEC wrap at the operand:
//! INC: mem = (mem >= src) ? 0 : mem + 1; DEC: mem = (mem == 0 || mem > src) ? src : mem - 1.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomicOp {
    Swap,
    CmpSwap,
    Add,
    Sub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
    Inc,
    Dec,
}

/// Parse `s_atomic_<op>[_x2]` / `s_buffer_atomic_<op>[_x2]`: (operation, 64-bit, buffer).
pub fn atomic_of(mnemonic: &str) -> Option<(AtomicOp, bool, bool)> {
    let (rest, buffer) = match mnemonic.strip_prefix("s_buffer_atomic_") {
        Some(r) => (r, true),
        None => (mnemonic.strip_prefix("s_atomic_")?, false),
    };
    let (name, wide) = match rest.strip_suffix("_x2") {
        Some(n) => (n, true),
        None => (rest, false),
    };
    let op = match name {
        "swap" => AtomicOp::Swap,
        "cmpswap" => AtomicOp::CmpSwap,
        "add" => AtomicOp::Add,
        "sub" => AtomicOp::Sub,
        "smin" => AtomicOp::SMin,
        "umin" => AtomicOp::UMin,
        "smax" => AtomicOp::SMax,
        "umax" => AtomicOp::UMax,
        "and" => AtomicOp::And,
        "or" => AtomicOp::Or,
        "xor" => AtomicOp::Xor,
        "inc" => AtomicOp::Inc,
        "dec" => AtomicOp::Dec,
        _ => return None,
    };
    Some((op, wide, buffer))
}

/// The new memory value from the old one, the source and (CMPSWAP) the compare value; `bits`
/// is 32 or 64 and all values are zero-extended to u64.
pub fn apply(op: AtomicOp, old: u64, src: u64, cmp: u64, bits: u32) -> u64 {
    let sign = |v: u64| if bits == 32 { v as u32 as i32 as i64 } else { v as i64 };
    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
    let r = match op {
        AtomicOp::Swap => src,
        AtomicOp::CmpSwap => {
            if old == cmp {
                src
            } else {
                old
            }
        }
        AtomicOp::Add => old.wrapping_add(src),
        AtomicOp::Sub => old.wrapping_sub(src),
        AtomicOp::SMin => {
            if sign(src) < sign(old) {
                src
            } else {
                old
            }
        }
        AtomicOp::UMin => old.min(src),
        AtomicOp::SMax => {
            if sign(src) > sign(old) {
                src
            } else {
                old
            }
        }
        AtomicOp::UMax => old.max(src),
        AtomicOp::And => old & src,
        AtomicOp::Or => old | src,
        AtomicOp::Xor => old ^ src,
        AtomicOp::Inc => {
            if old >= src {
                0
            } else {
                old + 1
            }
        }
        AtomicOp::Dec => {
            if old == 0 || old > src {
                src
            } else {
                old - 1
            }
        }
    };
    r & mask
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_apply() {
        assert_eq!(atomic_of("s_buffer_atomic_cmpswap_x2"), Some((AtomicOp::CmpSwap, true, true)));
        assert_eq!(atomic_of("s_atomic_umax"), Some((AtomicOp::UMax, false, false)));
        assert_eq!(atomic_of("s_load_dword"), None);
        assert_eq!(apply(AtomicOp::SMin, 5, 0xffff_ffff, 0, 32), 0xffff_ffff);
        assert_eq!(apply(AtomicOp::UMin, 5, 0xffff_ffff, 0, 32), 5);
        assert_eq!(apply(AtomicOp::Inc, 7, 7, 0, 32), 0);
        assert_eq!(apply(AtomicOp::Dec, 0, 7, 0, 32), 7);
        assert_eq!(apply(AtomicOp::Add, 0xffff_ffff, 1, 0, 32), 0);
    }
}
