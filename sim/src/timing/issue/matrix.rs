//! The matrix unit: an MFMA/WMMA issues through its wave's SIMD and occupies the SIMD's matrix
//! core for its cycles ([`crate::timing::matrix`]); VALU work of the SIMD may issue beside it
//! once the instruction's co-execution delay has passed, the next matrix instruction only when
//! the matrix core frees.

use super::{Finish, Pipes};
use crate::counters::Counter;
use crate::timing::matrix::Rate;

/// Issue at `t` or when both the SIMD and its matrix core are free; book both. Returns the
/// issue cycle.
#[inline]
pub(super) fn reserve(p: &mut Pipes, simd: usize, r: &Rate, t: u64) -> u64 {
    let start = t.max(p.simd[simd]).max(p.matrix[simd]);
    p.matrix[simd] = start + u64::from(r.cycles);
    p.simd[simd] = start + u64::from(r.valu_after);
    start
}

/// Count it (a matrix instruction is also a VALU instruction to rocprof); the wave issues
/// again after the issue interval (`next`) on CDNA, once the SIMD takes VALU work again on
/// RDNA (whose WMMAs do not co-execute).
#[inline]
pub(super) fn finish(f: &mut Finish, r: &Rate, next: u64) -> u64 {
    let (insts, mops) = r.input.counters();
    f.counters.inc(Counter::SqInstsValu);
    f.counters.inc(Counter::SqInstsMfma);
    f.counters.inc(insts);
    f.counters.add(mops, u64::from(r.flops / 512));
    f.counters.add(Counter::SqValuMfmaBusyCycles, u64::from(r.cycles));
    if f.fam.is_rdna() {
        f.issue + u64::from(r.valu_after)
    } else {
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::class::Class;
    use crate::timing::matrix::rate;
    use hipscope_isa::tables::Opcode;
    use hipscope_isa::Processor;

    #[test]
    fn matrix_instructions_serialise_on_their_simds_matrix_core() {
        // CDNA3 32x32x8 f16: 32 cycles, VALU work may co-issue 4 cycles after it (AMD Matrix
        // Instruction Calculator).
        let r = rate(Processor::Gfx942, Opcode::V_MFMA_F32_32X32X8_F16).expect("listed");
        let mut p = Pipes::new(4);
        assert_eq!(p.reserve(Class::Matrix(r), 1, 100), 100);
        // The next MFMA of SIMD 1 waits for the matrix core; VALU work of SIMD 1 does not.
        assert_eq!(p.reserve(Class::Valu { cycles: 4 }, 1, 101), 104);
        assert_eq!(p.reserve(Class::Matrix(r), 1, 108), 132);
        // Another SIMD's matrix core is free.
        assert_eq!(p.reserve(Class::Matrix(r), 2, 110), 110);
    }

    #[test]
    fn f64_matrix_instructions_keep_the_simd_busy() {
        // CDNA3 16x16x4 f64 cannot co-execute with VALU work: the SIMD is busy for all 32 cycles.
        let r = rate(Processor::Gfx942, Opcode::V_MFMA_F64_16X16X4_F64).expect("listed");
        let mut p = Pipes::new(4);
        assert_eq!(p.reserve(Class::Matrix(r), 0, 0), 0);
        assert_eq!(p.reserve(Class::Valu { cycles: 4 }, 0, 4), 32);
    }
}
