//! Scalar atomics of GFX9/GFX10 (`s_atomic_*`, `s_buffer_atomic_*`).
//!
//! ISA manuals (Vega, CDNA1-3, RDNA1), "Scalar Memory Operations" / "SMEM Instructions": the
//! operation is applied to the dword (`_x2`: qword) at the address; with GLC set (the `_RTN`
//! encodings) the value before the operation returns to SDATA. CMPSWAP takes
//! {DATA[0] = new value, DATA[1] = compare value} (64-bit halves for `_x2`) and stores the new
//! value only when memory equals the compare value. The operations are the integer subset of
//! the vector memory atomics and defined the same way, so they share their names and
//! arithmetic ([`crate::exec::vmem::atomic`]).

use crate::exec::vmem::atomic::{self as vector, Width};
use crate::exec::vmem::fp::FpEnv;

pub use vector::AtomicOp;

/// Parse `s_atomic_<op>[_x2]` / `s_buffer_atomic_<op>[_x2]`: (operation, 64-bit, buffer).
/// Only the scalar unit's operations (swap, cmpswap, add, sub, s/u min and max, and, or, xor,
/// inc, dec) are accepted.
pub fn atomic_of(mnemonic: &str) -> Option<(AtomicOp, bool, bool)> {
    let (rest, buffer) = match mnemonic.strip_prefix("s_buffer_atomic_") {
        Some(r) => (r, true),
        None => (mnemonic.strip_prefix("s_atomic_")?, false),
    };
    let (op, width) = vector::parse(rest)?;
    use AtomicOp::*;
    let scalar = matches!(op, Swap | CmpSwap | Add | Sub | SMin | UMin | SMax | UMax | And | Or | Xor | Inc | Dec);
    scalar.then_some((op, width == Width::B64, buffer))
}

/// The new memory value from the old one, the source and (CMPSWAP) the compare value, at 32
/// or 64 bits (`wide`); all values zero-extended to u64.
pub fn apply(op: AtomicOp, wide: bool, old: u64, src: u64, cmp: u64) -> u64 {
    let width = if wide { Width::B64 } else { Width::B32 };
    // No floating-point operation is among the scalar ones, so the denormal mode is moot.
    vector::apply(op, width, old, src, cmp, FpEnv::IEEE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_apply() {
        assert_eq!(atomic_of("s_buffer_atomic_cmpswap_x2"), Some((AtomicOp::CmpSwap, true, true)));
        assert_eq!(atomic_of("s_atomic_umax"), Some((AtomicOp::UMax, false, false)));
        assert_eq!(atomic_of("s_load_dword"), None);
        assert_eq!(atomic_of("s_atomic_mskor"), None);
        assert_eq!(apply(AtomicOp::SMin, false, 5, 0xffff_ffff, 0), 0xffff_ffff);
        assert_eq!(apply(AtomicOp::UMin, false, 5, 0xffff_ffff, 0), 5);
        assert_eq!(apply(AtomicOp::Inc, false, 7, 7, 0), 0);
        assert_eq!(apply(AtomicOp::Dec, false, 0, 7, 0), 7);
        assert_eq!(apply(AtomicOp::Add, false, 0xffff_ffff, 1, 0), 0);
        assert_eq!(apply(AtomicOp::CmpSwap, true, 1 << 40, 3, 1 << 40), 3);
    }
}
