//! Decode tables generated from LLVM 19.1.7's AMDGPU TableGen records by `tools/isagen`.
//!
//! `generated.rs` is data only (see its header and NOTICE); `types.rs` defines its shape.

#[rustfmt::skip]
mod generated;
pub mod types;

pub use generated::{feature, OpName, Opcode, CLASSES, MIMG_DIMS, OPCODE_NAMES, OPERANDS, OPNAME_NAMES, PROCESSOR_FEATURES, ROWS, TEXT};
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows hold ranges of `TEXT` and `OPERANDS` instead of references: every range must lie
    /// inside its array (on character boundaries for text), or a row would read as empty.
    #[test]
    fn every_row_range_is_inside_its_array() {
        let mut bad = Vec::new();
        for (i, r) in ROWS.iter().enumerate() {
            let text_ok = |t: Text| TEXT.get(t.0 as usize..(t.0 + t.1) as usize).is_some();
            let ops_ok = OPERANDS.get(r.operands.0 as usize..(r.operands.0 + r.operands.1) as usize).is_some();
            if !text_ok(r.record) || !text_ok(r.asm) || r.record.is_empty() || !ops_ok {
                bad.push(i);
            }
        }
        assert!(bad.is_empty(), "rows with a range outside TEXT or OPERANDS: {bad:?}");
        // The text of a row is its own: the record names its mnemonic's encoding, and the
        // template starts with the mnemonic (LLVM's AsmString).
        let vadd = ROWS.iter().find(|r| r.record == "V_ADD_F32_e32_vi").expect("V_ADD_F32_e32_vi row");
        assert_eq!(vadd.opcode.name(), "v_add_f32");
        assert!(vadd.asm.starts_with("v_add_f32"), "{}", vadd.asm);
        assert_eq!(vadd.operands.len(), 3, "{:?}", vadd.operands);
    }
}
