//! Device memory handed out as ROCm's runtime hands it out. ROCr maps ordinary device memory in
//! 2 MiB blocks and sub-allocates `hipMalloc` requests (rounded up to 4 KiB pages) from them
//! best-fit; a request larger than a block gets a block of its own, rounded up to whole blocks,
//! from which nothing else is carved (ROCR-Runtime `src/core/runtime/amd_memory_region.cpp`,
//! `MemoryRegion::AllocateImpl` and `BlockAllocator`; `src/core/util/simple_heap.h`).
//!
//! What a program sees of this: an access a little past the end of its buffer lands in mapped
//! memory (the block's free rest or a neighbouring buffer) and does not fault, while one past the
//! block's end does. Programs rely on the first without knowing it (a GEMM tile that stores a
//! whole 16-row tile into a 3-row output), and the real device reports the second as a memory
//! access fault; both come out the same here, because each block is one allocation of the
//! simulated address space, with unmapped space after it. Blocks of [`SPARSE_MIN_BYTES`] and
//! more are held sparsely: a huge allocation costs the host only what is written of it.

use hipscope_sim::backing::HostMemoryError;
use hipscope_sim::{Memory, MemoryKind};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// ROCr's block size (`BlockAllocator::block_size_`).
pub const BLOCK_BYTES: u64 = 2 * 1024 * 1024;

/// Blocks from this size up are held sparsely by the simulator (`Memory::alloc_sparse`):
/// nothing of them takes host memory or address space until a kernel or copy writes it, so
/// a program may allocate most of a large GPU on a small host. Smaller ones are flat, the
/// simulator's fastest layout (a sparse block costs a chunk lookup per access), and backed
/// by huge pages: the simulator advises flat blocks up to this size
/// ([`hipscope_sim::backing::DENSE_HUGE_MAX_BYTES`], one figure for both).
pub const SPARSE_MIN_BYTES: u64 = hipscope_sim::backing::DENSE_HUGE_MAX_BYTES as u64;

/// One fragment of a block: in use or free.
#[derive(Debug, Clone, Copy)]
struct Fragment {
    bytes: u64,
    used: bool,
}

#[derive(Debug)]
struct Block {
    bytes: u64,
    /// Nothing more is carved from this block and it is unmapped once free (blocks made for
    /// one large request).
    discard: bool,
    /// Fragment base → fragment; the fragments tile the block.
    fragments: BTreeMap<u64, Fragment>,
}

/// The sub-allocator over the simulated device's address space.
#[derive(Debug, Default)]
pub struct Heap {
    /// Block base → block.
    blocks: BTreeMap<u64, Block>,
    /// Free fragments of blocks still carved from: (bytes, base), so the first at or above a
    /// size is the best fit.
    free: BTreeSet<(u64, u64)>,
    /// Wholly free blocks kept mapped for reuse: (base, bytes).
    cache: VecDeque<(u64, u64)>,
    /// Bytes of blocks at least partly in use (and not discarded).
    in_use_bytes: u64,
}

impl Heap {
    /// `bytes` (a whole number of pages, at least one) of device memory; returns the address,
    /// or why the host cannot back a new block.
    pub fn alloc(&mut self, bytes: u64, mem: &mut Memory) -> Result<u64, HostMemoryError> {
        if let Some(&(size, base)) = self.free.range((bytes, 0)..).next() {
            self.free.remove(&(size, base));
            let block = self.block_mut(base);
            block.fragments.insert(base, Fragment { bytes, used: true });
            if size > bytes {
                block.fragments.insert(base + bytes, Fragment { bytes: size - bytes, used: false });
                self.free.insert((size - bytes, base + bytes));
            }
            return Ok(base);
        }
        let (base, size) = match self.cache.pop_back() {
            Some(cached) if bytes < BLOCK_BYTES => cached,
            other => {
                if let Some(cached) = other {
                    self.cache.push_back(cached);
                }
                let size = bytes.next_multiple_of(BLOCK_BYTES);
                let n = usize::try_from(size)
                    .map_err(|_| HostMemoryError { bytes: usize::MAX, reason: format!("{size} bytes exceed the host's address space") })?;
                let base = if size >= SPARSE_MIN_BYTES {
                    mem.alloc_sparse("hipMalloc", n, MemoryKind::Device)
                } else {
                    mem.try_alloc("hipMalloc", n, MemoryKind::Device)?
                };
                (base, size)
            }
        };
        let mut block = Block { bytes: size, discard: false, fragments: BTreeMap::from([(base, Fragment { bytes, used: true })]) };
        if size > bytes {
            block.fragments.insert(base + bytes, Fragment { bytes: size - bytes, used: false });
        }
        // ROCr: "Disallow multiple suballocation from large blocks. Prevents a small
        // allocation from retaining a large block."
        if bytes > BLOCK_BYTES {
            block.discard = true;
        } else {
            self.in_use_bytes += size;
            if size > bytes {
                self.free.insert((size - bytes, base + bytes));
            }
        }
        self.blocks.insert(base, block);
        Ok(base)
    }

    /// Release what [`Heap::alloc`] returned at `address`; false if it is not such an address.
    pub fn free(&mut self, address: u64, mem: &mut Memory) -> bool {
        let Some((&block_base, block)) = self.blocks.range_mut(..=address).next_back() else { return false };
        let Some(&Fragment { bytes, used: true }) = block.fragments.get(&address) else { return false };
        let (mut lo, mut size) = (address, bytes);
        block.fragments.remove(&address);
        // Merge with a free neighbour below and above.
        if let Some((&below, &f)) = block.fragments.range(..lo).next_back() {
            if !f.used {
                block.fragments.remove(&below);
                self.free.remove(&(f.bytes, below));
                (lo, size) = (below, size + f.bytes);
            }
        }
        if let Some(&f) = block.fragments.get(&(lo + size)) {
            if !f.used {
                block.fragments.remove(&(lo + size));
                self.free.remove(&(f.bytes, lo + size));
                size += f.bytes;
            }
        }
        if block.fragments.is_empty() {
            let (discard, block_bytes) = (block.discard, block.bytes);
            self.blocks.remove(&block_base);
            if discard {
                mem.free(block_base);
            } else {
                self.in_use_bytes -= block_bytes;
                self.cache.push_back((block_base, block_bytes));
                // ROCr's `balance`: cached blocks are unmapped, oldest first, while more than
                // one is cached and they hold over twice what is in use.
                while self.cache.len() > 1 && self.cache.iter().map(|c| c.1).sum::<u64>() > 2 * self.in_use_bytes {
                    if let Some((base, _)) = self.cache.pop_front() {
                        mem.free(base);
                    }
                }
            }
            return true;
        }
        block.fragments.insert(lo, Fragment { bytes: size, used: false });
        if !block.discard {
            self.free.insert((size, lo));
        }
        true
    }

    /// Unmap every wholly free block kept for reuse (a device reset: nothing of the old
    /// buffers stays mapped).
    pub fn release_cached(&mut self, mem: &mut Memory) {
        for (base, _) in self.cache.drain(..) {
            mem.free(base);
        }
    }

    /// Whether `address` lies in one of the heap's blocks (in use or cached): memory of the
    /// program's buffers and their slack, not of a code object's variables.
    pub fn maps(&self, address: u64) -> bool {
        let in_use = self.blocks.range(..=address).next_back().is_some_and(|(&base, b)| address - base < b.bytes);
        in_use || self.cache.iter().any(|&(base, bytes)| (base..base + bytes).contains(&address))
    }

    fn block_mut(&mut self, address: u64) -> &mut Block {
        let (_, block) = self.blocks.range_mut(..=address).next_back().unwrap_or_else(|| unreachable!("a free fragment lies in a block"));
        block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: u64 = 4096;

    #[test]
    fn small_requests_share_a_block_and_accesses_past_them_stay_mapped() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let a = heap.alloc(PAGE, &mut mem).expect("host memory");
        let b = heap.alloc(2 * PAGE, &mut mem).expect("host memory");
        assert_eq!(b, a + PAGE, "best fit in the block's free rest, right after the first");
        // Past b's end but inside the block: mapped, as on the device.
        assert!(mem.kind_at(b + 100 * PAGE, 4).is_ok());
        assert!(mem.kind_at(a + BLOCK_BYTES, 4).is_err(), "past the block's end");
        assert!(heap.maps(b + 100 * PAGE) && !heap.maps(a + BLOCK_BYTES));
    }

    #[test]
    fn a_large_request_gets_blocks_of_its_own() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let big = heap.alloc(BLOCK_BYTES + PAGE, &mut mem).expect("host memory");
        let small = heap.alloc(PAGE, &mut mem).expect("host memory");
        assert!(small >= big + 2 * BLOCK_BYTES, "nothing is carved from a large block");
        assert!(mem.kind_at(big + 2 * BLOCK_BYTES - 4, 4).is_ok(), "rounded up to whole blocks");
        assert!(heap.free(big, &mut mem));
        assert!(mem.kind_at(big, 4).is_err(), "a large block is unmapped when freed");
    }

    #[test]
    fn freed_fragments_merge_and_are_reused() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let a = heap.alloc(PAGE, &mut mem).expect("host memory");
        let b = heap.alloc(PAGE, &mut mem).expect("host memory");
        let _c = heap.alloc(PAGE, &mut mem).expect("host memory");
        assert!(heap.free(a, &mut mem) && heap.free(b, &mut mem));
        assert!(!heap.free(b, &mut mem), "a double free is refused");
        assert_eq!(heap.alloc(2 * PAGE, &mut mem).expect("host memory"), a, "a and b merged into one fragment");
    }

    #[test]
    fn a_wholly_free_block_stays_mapped_for_the_next_request() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let a = heap.alloc(PAGE, &mut mem).expect("host memory");
        assert!(heap.free(a, &mut mem));
        assert!(mem.kind_at(a, 4).is_ok(), "kept in the block cache");
        assert_eq!(heap.alloc(PAGE, &mut mem).expect("host memory"), a);
    }

    #[test]
    fn a_large_block_is_sparse_and_costs_nothing_until_written() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let small = heap.alloc(PAGE, &mut mem).expect("host memory");
        let big = heap.alloc(100 << 30, &mut mem).expect("no host memory needed");
        assert!(!mem.allocation_at(small).is_some_and(|a| a.is_sparse()), "small blocks stay flat");
        assert!(mem.allocation_at(big).is_some_and(|a| a.is_sparse() && a.len() == 100 << 30));
        mem.write_u32(big + (99 << 30), 7).expect("in bounds");
        assert_eq!(mem.read_u32(big + (99 << 30)), Ok(7));
    }

    #[test]
    fn a_reset_unmaps_the_cached_blocks() {
        let mut mem = Memory::new();
        let mut heap = Heap::default();
        let a = heap.alloc(PAGE, &mut mem).expect("host memory");
        assert!(heap.free(a, &mut mem));
        heap.release_cached(&mut mem);
        assert!(mem.kind_at(a, 4).is_err() && !heap.maps(a), "nothing of the old block stays mapped");
        assert_ne!(heap.alloc(PAGE, &mut mem).expect("host memory"), a, "a fresh block");
    }
}
