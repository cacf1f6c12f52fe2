//! EXEC-mask operations: `s_<op>_saveexec_b32/b64` and the GFX10+ `s_<op>_wrexec_b32/b64`.
//!
//! ISA manuals, "SOP1 Instructions": saveexec writes the old EXEC to SDST, then
//! EXEC = op(S0, EXEC) and SCC = (EXEC != 0). The wrexec forms (GFX10+) compute the same new
//! EXEC and write it to SDST as well. `andn1`/`orn1` (GFX11+ `and_not0`/`or_not0`) negate S0;
//! `andn2`/`orn2` (`and_not1`/`or_not1`) negate EXEC. The `_b32` forms act on EXEC_LO only.

use hipscope_isa::tables::Opcode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecOp {
    And,
    Or,
    Xor,
    /// S0 & !EXEC
    AndN2,
    /// S0 | !EXEC
    OrN2,
    Nand,
    Nor,
    Xnor,
    /// !S0 & EXEC
    AndN1,
    /// !S0 | EXEC
    OrN1,
}

/// (operation, 64-bit, wrexec) of an opcode.
pub fn exec_op_of(op: Opcode) -> Option<(ExecOp, bool, bool)> {
    use ExecOp::*;
    use Opcode::*;
    Some(match op {
        S_AND_SAVEEXEC_B32 => (And, false, false),
        S_AND_SAVEEXEC_B64 => (And, true, false),
        S_OR_SAVEEXEC_B32 => (Or, false, false),
        S_OR_SAVEEXEC_B64 => (Or, true, false),
        S_XOR_SAVEEXEC_B32 => (Xor, false, false),
        S_XOR_SAVEEXEC_B64 => (Xor, true, false),
        S_ANDN2_SAVEEXEC_B32 | S_AND_NOT1_SAVEEXEC_B32 => (AndN2, false, false),
        S_ANDN2_SAVEEXEC_B64 | S_AND_NOT1_SAVEEXEC_B64 => (AndN2, true, false),
        S_ORN2_SAVEEXEC_B32 | S_OR_NOT1_SAVEEXEC_B32 => (OrN2, false, false),
        S_ORN2_SAVEEXEC_B64 | S_OR_NOT1_SAVEEXEC_B64 => (OrN2, true, false),
        S_NAND_SAVEEXEC_B32 => (Nand, false, false),
        S_NAND_SAVEEXEC_B64 => (Nand, true, false),
        S_NOR_SAVEEXEC_B32 => (Nor, false, false),
        S_NOR_SAVEEXEC_B64 => (Nor, true, false),
        S_XNOR_SAVEEXEC_B32 => (Xnor, false, false),
        S_XNOR_SAVEEXEC_B64 => (Xnor, true, false),
        S_ANDN1_SAVEEXEC_B32 | S_AND_NOT0_SAVEEXEC_B32 => (AndN1, false, false),
        S_ANDN1_SAVEEXEC_B64 | S_AND_NOT0_SAVEEXEC_B64 => (AndN1, true, false),
        S_ORN1_SAVEEXEC_B32 | S_OR_NOT0_SAVEEXEC_B32 => (OrN1, false, false),
        S_ORN1_SAVEEXEC_B64 | S_OR_NOT0_SAVEEXEC_B64 => (OrN1, true, false),
        S_ANDN1_WREXEC_B32 | S_AND_NOT0_WREXEC_B32 => (AndN1, false, true),
        S_ANDN1_WREXEC_B64 | S_AND_NOT0_WREXEC_B64 => (AndN1, true, true),
        S_ANDN2_WREXEC_B32 | S_AND_NOT1_WREXEC_B32 => (AndN2, false, true),
        S_ANDN2_WREXEC_B64 | S_AND_NOT1_WREXEC_B64 => (AndN2, true, true),
        _ => return None,
    })
}

/// The new EXEC from S0 and the old EXEC.
pub fn apply(op: ExecOp, s: u64, e: u64) -> u64 {
    match op {
        ExecOp::And => s & e,
        ExecOp::Or => s | e,
        ExecOp::Xor => s ^ e,
        ExecOp::AndN2 => s & !e,
        ExecOp::OrN2 => s | !e,
        ExecOp::Nand => !(s & e),
        ExecOp::Nor => !(s | e),
        ExecOp::Xnor => !(s ^ e),
        ExecOp::AndN1 => !s & e,
        ExecOp::OrN1 => !s | e,
    }
}
