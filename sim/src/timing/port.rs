//! The memory system as the instructions' memory port.

use crate::exec::MemPort;
use crate::memory::{Memory, Unmapped};
use crate::memsys::MemSystem;
use std::cell::RefCell;

/// Lanes' global accesses go to the memory system (which the engine has told, with
/// `MemSystem::begin`, what the current instruction is).
pub struct Port<'m> {
    pub ms: RefCell<&'m mut MemSystem>,
}

impl MemPort for Port<'_> {
    fn read(&self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        self.ms.borrow_mut().read(mem, lane, address, out)
    }

    fn write(&self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        self.ms.borrow_mut().write(mem, lane, address, bytes)
    }
}
