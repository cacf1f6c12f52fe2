//! Decode tables generated from LLVM 19.1.7's AMDGPU TableGen records by `tools/isagen`.
//!
//! `generated.rs` is data only (see its header and NOTICE); `types.rs` defines its shape.

#[rustfmt::skip]
mod generated;
pub mod types;

pub use generated::{feature, OpName, Opcode, CLASSES, MIMG_DIMS, OPCODE_NAMES, OPNAME_NAMES, PROCESSOR_FEATURES, ROWS};
pub use types::*;

impl Opcode {
    /// Lower-case mnemonic without encoding suffix, e.g. `v_add_f32`.
    pub fn name(self) -> &'static str {
        OPCODE_NAMES[self as usize]
    }
}

impl OpName {
    /// LLVM operand name, e.g. `src0_modifiers`.
    pub fn name(self) -> &'static str {
        OPNAME_NAMES[self as usize]
    }
}
