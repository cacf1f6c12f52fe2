//! Watching a run: the one seam through which race detection, traces and metrics see what
//! the waves do, in both modes.
//!
//! An [`Observer`] given to a launch ([`crate::launch::Hooks`]) is told, in the order the
//! engine runs them: the dispatch's start and end, each wave's start and end, each
//! instruction a wave executes (before its effects, with its decoded form and semantics, so
//! an observer can tell a fence sequence or an atomic from its opcode and cache-policy bits),
//! every lane access that instruction makes to global memory, LDS or scratch, and every
//! barrier release. In timing mode the instruction also carries its issue cycle.
//!
//! Why a port wrapper: every lane access already passes [`MemPort`] (timing mode: the cache
//! hierarchy) or goes straight to [`Memory`] (functional mode). [`Watched`] sits in front of
//! either and forwards each access to the observer after it succeeded, so neither the
//! instruction semantics nor the memory system learn about observers. With no observer the
//! engines run exactly as before: functional mode keeps its bulk copies and no event is
//! built; the cost is one `Option` test per instruction (measured in `benches/functional.rs`).

use crate::exec::{MemPort, Sem};
use crate::fault::WaveId;
use crate::memory::{Memory, Unmapped};
use hipscope_isa::decode::Inst;
use std::cell::RefCell;
use std::ops::Range;

/// Which memory a lane access went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    /// Device memory (global, flat-to-global, buffer and scalar accesses, kernel arguments).
    Global,
    /// The work-group's LDS; the address is the byte offset in it.
    Lds,
    /// A lane's private memory; the address is in the dispatch's scratch backing store.
    Scratch,
    /// The dispatch's kernarg segment (its arguments), which the kernel only reads (HSA
    /// Programmer's Reference Manual: the kernarg segment is read-only to the kernel).
    Kernarg,
}

/// Where in device memory a dispatch's private spaces lie, so an address can be told apart
/// from ordinary global memory.
#[derive(Debug, Clone, Default)]
pub struct Regions {
    /// The scratch backing store.
    pub scratch: Range<u64>,
    /// The kernarg segment.
    pub kernarg: Range<u64>,
}

impl Regions {
    /// The space a non-LDS address belongs to.
    pub fn space_of(&self, address: u64) -> Space {
        if self.scratch.contains(&address) {
            Space::Scratch
        } else if self.kernarg.contains(&address) {
            Space::Kernarg
        } else {
            Space::Global
        }
    }
}

/// Whether a lane access read or wrote. An atomic read-modify-write is a read followed by a
/// write of the same lane and address within one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dir {
    Read,
    Write,
}

/// One lane's access, made by the instruction last reported to [`Observer::executed`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub lane: u32,
    pub space: Space,
    pub dir: Dir,
    pub address: u64,
    pub bytes: u32,
}

/// An instruction about to execute.
#[derive(Debug, Clone, Copy)]
pub struct Executed<'a> {
    pub wave: WaveId,
    /// The wave's number within the dispatch (dispatch order).
    pub wave_index: u32,
    pub pc: u64,
    /// The EXEC mask before the instruction (wave32: the low 32 bits).
    pub exec: u64,
    pub inst: &'a Inst,
    pub sem: &'a Sem,
    /// Timing mode: the cycle it issues; functional mode: `None`.
    pub cycle: Option<u64>,
}

/// What a dispatch runs, for [`Observer::dispatch_started`].
#[derive(Debug, Clone)]
pub struct DispatchInfo<'a> {
    /// The kernel: its name, target, descriptor and decoded code (what an observer needs to
    /// read the code, e.g. to tag its atomics).
    pub kernel: &'a crate::kernel::LoadedKernel,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Bytes of LDS each work-group has (static and dynamic).
    pub lds_bytes: u32,
    /// Its scratch and kernarg segments.
    pub regions: Regions,
}

/// Told what a run does. Every method has an empty default, so an observer implements only
/// what it watches.
pub trait Observer {
    fn dispatch_started(&mut self, _d: &DispatchInfo) {}
    fn wave_started(&mut self, _wave: WaveId, _wave_index: u32) {}
    fn executed(&mut self, _e: &Executed) {}
    fn access(&mut self, _a: &Access) {}
    /// Several lanes of one instruction, each accessing `bytes` bytes at `addresses[lane]`
    /// in `space` (a bulk move); by default one [`Observer::access`] per lane, in lane order.
    fn accesses(&mut self, lanes: u64, addresses: &[u64; crate::wave::MAX_LANES], bytes: u32, space: Space, dir: Dir) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.access(&Access { lane, space, dir, address: addresses[lane as usize], bytes });
        }
    }
    /// A work-group's barrier released these waves (by `wave_index`), which all arrived at it.
    fn barrier_released(&mut self, _waves: &[u32]) {}
    fn wave_ended(&mut self, _wave: WaveId, _wave_index: u32) {}
    fn dispatch_ended(&mut self) {}
}

/// An observer as the engines hold it: shared by the port (whose methods take `&self`) and
/// the scheduler.
pub(crate) type Shared<'o> = RefCell<&'o mut dyn Observer>;

/// A memory port that reports every successful lane access to an observer, in front of
/// another port (timing mode) or of memory itself (functional mode).
pub(crate) struct Watched<'a, 'o> {
    pub inner: Option<&'a dyn MemPort>,
    pub obs: &'a Shared<'o>,
    /// The dispatch's scratch and kernarg segments, reported as their own spaces.
    pub regions: &'a Regions,
}

impl Watched<'_, '_> {
    fn report(&self, lane: u32, address: u64, bytes: usize, dir: Dir) {
        let space = self.regions.space_of(address);
        self.obs.borrow_mut().access(&Access { lane, space, dir, address, bytes: bytes as u32 });
    }
}

impl MemPort for Watched<'_, '_> {
    fn read(&self, mem: &Memory, lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        match self.inner {
            Some(p) => p.read(mem, lane, address, out),
            None => mem.read(address, out),
        }?;
        self.report(lane, address, out.len(), Dir::Read);
        Ok(())
    }

    fn write(&self, mem: &mut Memory, lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        match self.inner {
            Some(p) => p.write(mem, lane, address, bytes),
            None => mem.write(address, bytes),
        }?;
        self.report(lane, address, bytes.len(), Dir::Write);
        Ok(())
    }

    fn lds_access(&self, lane: u32, offset: u32, bytes: u32, dir: Dir) {
        if let Some(p) = self.inner {
            p.lds_access(lane, offset, bytes, dir);
        }
        self.obs.borrow_mut().access(&Access { lane, space: Space::Lds, dir, address: u64::from(offset), bytes });
    }

    fn watches_only(&self) -> bool {
        self.inner.is_none()
    }

    /// The lanes of a bulk move, reported in lane order as the per-lane path reports them (in
    /// one event when all are in ordinary global memory).
    fn moved(&self, lanes: u64, addrs: &[u64; crate::wave::MAX_LANES], bytes: u32, dir: Dir) {
        let mut m = lanes;
        let mut private = false;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            private |= self.regions.space_of(addrs[lane as usize]) != Space::Global;
        }
        if !private {
            self.obs.borrow_mut().accesses(lanes, addrs, bytes, Space::Global, dir);
            return;
        }
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros();
            m &= m - 1;
            self.report(lane, addrs[lane as usize], bytes as usize, dir);
        }
    }
}
