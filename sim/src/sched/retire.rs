//! An instruction from fetch to retirement, the steps both engines take the same way: the
//! code slot it runs from, its counts and the runaway limit, and where the wave goes next.

use super::DispatchStats;
use crate::exec::Flow;
use crate::fault::FaultKind;
use crate::kernel::{CodeSlot, ExecInst, LoadedKernel};
use crate::wave::Wave;

/// The instruction at slot `idx` of a kernel's `code`, or the fault of running into bytes
/// that do not decode or past the end of the code.
#[inline]
pub fn fetch(code: &[CodeSlot], idx: usize) -> Result<&ExecInst, FaultKind> {
    match &code[idx] {
        CodeSlot::Inst(e) => Ok(e),
        CodeSlot::Invalid { word, .. } => Err(FaultKind::InvalidEncoding { word: *word }),
        CodeSlot::End { address } => Err(FaultKind::BadPc(*address)),
    }
}

impl DispatchStats {
    /// Count an instruction (`opcode`) wave `w` executed; a runaway loop once `w` has run more
    /// than `limit` instructions.
    #[inline]
    pub(crate) fn retire(&mut self, w: &mut Wave, opcode: usize, limit: u64) -> Result<(), FaultKind> {
        w.instructions += 1;
        self.instructions += 1;
        self.opcode_counts[opcode] += 1;
        if w.instructions > limit {
            return Err(FaultKind::RunawayLoop(limit));
        }
        Ok(())
    }
}

/// Move `w` (at code slot `*idx`) past an instruction that finished with `flow` and is
/// followed by `next_address`: to the next slot, or to a jump's target. An ended wave stays.
#[inline]
pub fn follow(k: &LoadedKernel, w: &mut Wave, idx: &mut usize, next_address: u64, flow: Flow) -> Result<(), FaultKind> {
    match flow {
        Flow::Next | Flow::Yield | Flow::Barrier => {
            w.pc = next_address;
            *idx += 1;
            // Every code segment ends with an `End` slot, so this only guards the index.
            if *idx >= k.code.len() {
                return Err(FaultKind::BadPc(w.pc));
            }
        }
        Flow::Jump(to) => {
            w.pc = to;
            *idx = k.index_of(to)?;
        }
        Flow::End => {}
    }
    Ok(())
}
