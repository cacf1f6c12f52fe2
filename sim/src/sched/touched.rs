//! What a functionally fast-forwarded part of a dispatch does to the MALL ([`crate::sched::sample`]):
//! the functional engine models no cache, so without this a work-group-sampled launch left the
//! caches holding only what its detailed part brought in, minus an estimate aged out, and the
//! next launch missed where full detail hits. atax 4 096 on an MI300A reads its 64 MiB matrix
//! in both kernels; the first kernel's fast-forwarded quarter never reached the MALL, and the
//! second kernel, whose own windows were right for the caches it was given, ran at 1.27
//! wave-instructions a cycle against 1.69 after a first kernel in full detail (the program 53 %
//! long with `skip`, 27 % in an earlier build).
//!
//! The MALL is tag-only (memory-side, no dirty data), so the fast-forward can look its lines up
//! as it goes: this [`MemPort`] only watches, and each global or scalar access's line is looked
//! up in the MALL and brought in or made most recently used, a line equal to the previous one
//! skipped (a coalesced instruction is a few lines). Not counted. A line's order of use is what
//! the accesses say, so the MALL ends as an LRU cache that saw them would; it differs from
//! detail where the L2s would have served an access (the MALL does not see it there) and in that
//! no latency or bandwidth is booked (the rate extrapolation and the memory-side charge cost
//! them). The L2s are not told: the functional engine does not know which XCD an access came
//! from; they age out as before ([`crate::memsys::MemSystem::turn_over`]).

use crate::exec::{Dir, MemPort};
use crate::memory::{Memory, Unmapped};
use crate::memsys::cache::Cache;
use std::cell::{Cell, RefCell};

/// The MALL, lent to a fast-forward to be looked up by its accesses.
pub struct Touched {
    mall: RefCell<Cache>,
    /// The line last looked up (`u64::MAX`: none), to skip repeats.
    last: Cell<u64>,
}

impl Touched {
    pub fn new(mall: Cache) -> Touched {
        Touched { mall: RefCell::new(mall), last: Cell::new(u64::MAX) }
    }

    /// The MALL back, with the fast-forward's lines in it.
    pub fn into_cache(self) -> Cache {
        self.mall.into_inner()
    }

    fn note(&self, address: u64) {
        let mut m = self.mall.borrow_mut();
        let line = m.line_address(address);
        if self.last.replace(line) == line {
            return;
        }
        match m.find(line) {
            Some(s) => m.touch(s),
            None => {
                // Tag-only: nothing dirty is evicted.
                m.allocate(line);
            }
        }
    }
}

impl MemPort for Touched {
    fn read(&self, mem: &Memory, _lane: u32, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        mem.read(address, out)?;
        self.note(address);
        Ok(())
    }

    fn write(&self, mem: &mut Memory, _lane: u32, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        mem.write(address, bytes)?;
        self.note(address);
        Ok(())
    }

    fn watches_only(&self) -> bool {
        true
    }

    fn moved(&self, lanes: u64, addrs: &[u64; crate::wave::MAX_LANES], _bytes: u32, _dir: Dir) {
        let mut m = lanes;
        while m != 0 {
            let lane = m.trailing_zeros() as usize;
            m &= m - 1;
            self.note(addrs[lane % crate::wave::MAX_LANES]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memsys::cache::Geometry;

    #[test]
    fn the_accesses_leave_the_lines_they_used_last_in_the_cache() {
        // One set of two ways, lines of 128 bytes: of lines 0, 1, 2 used in turn, with 0 used
        // again after 1, the last two distinct lines used (0 and 2) stay.
        let t = Touched::new(Cache::new(Geometry { size_bytes: 256, line_bytes: 128, ways: 2 }, false));
        for a in [0u64, 4, 130, 0, 300] {
            t.note(a);
        }
        let c = t.into_cache();
        assert!(c.find(0).is_some() && c.find(256).is_some(), "lines 0 and 2 held");
        assert!(c.find(128).is_none(), "line 1, the least recently used, left");
    }
}
