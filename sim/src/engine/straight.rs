//! Straight runs: consecutive instructions that need nothing of the engine but counting —
//! VALU operations on the direct path ([`crate::exec::valu::fast`]), scalar ALU operations on
//! registers alone ([`crate::exec::salu::register_only`]: integer arithmetic, compares, moves,
//! EXEC masking; the direct path reads EXEC afresh for each operation) and the program-control
//! no-ops (`s_nop`, the waits, hints: [`crate::exec::sopp::Op::Nop`]) — executed in one call.
//! None of them touches memory, jumps, reads the clock, changes MODE or faults, so the functional
//! engine may run a whole stretch of them and then count each, as it would have one at a
//! time; the results are the same. What it saves is the engine's per-instruction step around
//! each (dispatch, fault and flow handling) and, on AVX2 hosts, the feature test and frame of
//! the direct path per operation: one loop compiled for AVX2 holds them all.

use crate::exec::salu;
use crate::exec::sopp::{self, MODE_GPR_IDX_EN};
use crate::exec::valu::{self, fast};
use crate::exec::{Env, Sem};
use crate::kernel::CodeSlot;
use crate::wave::Wave;
use hipscope_isa::decode::Inst;

/// Whether `slot` is an instruction a run may hold (whether its direct path applies now is
/// known only when it runs): a cheap test that spares the call for the others.
#[inline(always)]
pub fn candidate(slot: &CodeSlot) -> bool {
    match slot {
        CodeSlot::Inst(e) => match &e.sem {
            Sem::Valu(op) => valu::direct_alu(op).is_some(),
            Sem::Salu(op) => salu::register_only(op),
            Sem::Sopp(sopp::Op::Nop(_)) => true,
            _ => false,
        },
        _ => false,
    }
}

/// Run `code[idx..]` while its slots are such instructions and their direct path applies, at
/// most `max` of them; returns how many ran (0: the instruction at `idx` takes the general
/// path), having added each to `counts` (per opcode). The caller counts the rest and moves the
/// wave past them. Inlined, with both loops out of line: a run is ~3 instructions of fir's
/// loop, so the call's own frame and argument copies showed.
#[inline]
pub fn run(code: &[CodeSlot], idx: usize, max: usize, w: &mut Wave, env: &Env, counts: &mut [u64]) -> usize {
    // In a VGPR-indexing window operands move: the general path alone handles them. Nothing a
    // run executes changes MODE, so one test covers the run.
    if w.mode & MODE_GPR_IDX_EN != 0 {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        // SAFETY: the host CPU has the features `run_avx2` is compiled for (checked above).
        return unsafe { run_avx2(code, idx, max, w, env, counts) };
    }
    run_portable(code, idx, max, w, env, counts)
}

#[inline(never)]
fn run_portable(code: &[CodeSlot], idx: usize, max: usize, w: &mut Wave, env: &Env, counts: &mut [u64]) -> usize {
    run_loop::<false>(code, idx, max, w, env, counts)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn run_avx2(code: &[CodeSlot], idx: usize, max: usize, w: &mut Wave, env: &Env, counts: &mut [u64]) -> usize {
    run_loop::<true>(code, idx, max, w, env, counts)
}

/// The loop; `INLINE`: the direct path inlined (the AVX2 build; a function passed in was
/// called, not inlined, and without the features), else called with its own feature test.
#[inline(always)]
fn run_loop<const INLINE: bool>(code: &[CodeSlot], idx: usize, max: usize, w: &mut Wave, env: &Env, counts: &mut [u64]) -> usize {
    let mut n = 0;
    while n < max {
        let Some(CodeSlot::Inst(e)) = code.get(idx + n) else { break };
        let ran = match &e.sem {
            // No closure around the call: one is compiled on its own, without the features.
            Sem::Valu(op) => match valu::direct_alu(op) {
                Some((f, a)) if INLINE => fast::run_on(f, a, w, env),
                Some((f, a)) => fast::run(f, a, w, env),
                None => false,
            },
            Sem::Salu(op) => salu::execute_register(op, w, env),
            Sem::Sopp(sopp::Op::Nop(_)) => true,
            _ => false,
        };
        if !ran {
            break;
        }
        count(counts, &e.inst);
        n += 1;
    }
    n
}

/// Count `inst` in `counts` (per opcode).
#[inline(always)]
fn count(counts: &mut [u64], inst: &Inst) {
    if let Some(c) = counts.get_mut(inst.opcode() as usize) {
        *c += 1;
    }
}
