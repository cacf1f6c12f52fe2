//! The memory system as the instructions' memory port.

use crate::exec::MemPort;
use crate::memory::{Memory, Unmapped};
use crate::memsys::MemSystem;
use std::cell::RefCell;

/// Lanes' global accesses go to the memory system (which the engine has told, with
/// `MemSystem::begin`, what the current instruction is).
pub struct Port<'m> {
    pub ms: RefCell<&'m mut MemSystem>,
    /// The current instruction's LDS accesses (lane, byte offset, bytes), for the bank model.
    pub lds: RefCell<Vec<(u32, u32, u32)>>,
}

impl MemPort for Port<'_> {
    fn read(&self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        self.ms.borrow_mut().read(mem, lane, address, out)
    }

    fn write(&self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        self.ms.borrow_mut().write(mem, lane, address, bytes)
    }

    fn read_lanes(&self, mem: &Memory, lanes: &[u32], addrs: &[u64], size: usize, out: &mut [u8]) -> Result<(), (usize, Unmapped)> {
        self.ms.borrow_mut().read_lanes(mem, lanes, addrs, size, out)
    }

    fn write_lanes(&self, mem: &mut Memory, lanes: &[u32], addrs: &[u64], size: usize, bytes: &[u8]) -> Result<(), (usize, Unmapped)> {
        self.ms.borrow_mut().write_lanes(mem, lanes, addrs, size, bytes)
    }

    fn lds_access(&self, lane: u32, offset: u32, bytes: u32, _dir: crate::exec::Dir) {
        self.lds.borrow_mut().push((lane, offset, bytes));
    }
}
