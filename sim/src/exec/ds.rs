//! LDS instructions (DS): reads, writes, atomics, swizzles and lane permutes on the
//! work-group's local data share.

use super::{ExecCtx, Fidelity, Flow};
use crate::fault::FaultKind;
use hipscope_isa::decode::Inst;

#[derive(Debug, Clone, PartialEq)]
pub enum Op {}

impl Op {
    pub fn fidelity(&self) -> Fidelity {
        Fidelity::Exact
    }
}

pub fn classify(_inst: &Inst, _env: &super::Env) -> Option<Op> {
    None
}

pub fn execute(op: &Op, _inst: &Inst, _cx: &mut ExecCtx) -> Result<Flow, FaultKind> {
    match *op {}
}
