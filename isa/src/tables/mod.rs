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

/// The flags of the instruction named `mnemonic` (LLVM's lower-case name), from its first
/// table row; 0 for a name no row has. For listings that hold instructions by name rather
/// than decoded (the memory-model lowering's), so that they too classify by flags.
pub fn flags_of(mnemonic: &str) -> u64 {
    let Ok(i) = OPCODE_NAMES.binary_search(&mnemonic) else { return 0 };
    ROWS.iter().find(|r| r.opcode as usize == i).map_or(0, |r| r.flags)
}

/// The opcode of the instruction named `mnemonic` (LLVM's lower-case name), for code that
/// builds instructions by name (the memory-model lowering's listings); `None` for a name no
/// row has.
pub fn opcode_of(mnemonic: &str) -> Option<Opcode> {
    let i = OPCODE_NAMES.binary_search(&mnemonic).ok()?;
    ROWS.iter().find(|r| r.opcode as usize == i).map(|r| r.opcode)
}

impl OpName {
    /// LLVM operand name, e.g. `src0_modifiers`.
    pub fn name(self) -> &'static str {
        OPNAME_NAMES[self as usize]
    }
}
