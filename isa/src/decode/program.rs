//! A decoded kernel: every instruction of a code range, decoded once.

use super::{DecodeError, Decoder, Inst};

/// The instructions of one code range, in address order, with lookup by address.
#[derive(Debug, Clone)]
pub struct Program {
    pub base_address: u64,
    pub insts: Vec<Inst>,
}

/// A decoding failure inside a code range, located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at {address:#x}: {error}")]
pub struct ProgramError {
    pub address: u64,
    pub error: DecodeError,
}

impl Program {
    /// Decode all of `code` (placed at `base_address`). Fails on the first word that is not
    /// an instruction.
    pub fn decode(decoder: &Decoder, code: &[u8], base_address: u64) -> Result<Program, ProgramError> {
        let mut insts = Vec::new();
        for (address, res) in decoder.decode_all(code, base_address) {
            insts.push(res.map_err(|error| ProgramError { address, error })?);
        }
        Ok(Program { base_address, insts })
    }

    /// Index of the instruction starting at `address`.
    pub fn index_of(&self, address: u64) -> Option<usize> {
        self.insts.binary_search_by_key(&address, |i| i.address).ok()
    }
}
