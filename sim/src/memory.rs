//! The device's 64-bit address space: named allocations of a memory type, holding bytes.
//!
//! Allocations are placed deterministically (ascending from [`HEAP_BASE`], each aligned and
//! followed by an unmapped guard gap so that overruns fault instead of touching a neighbour).
//! Any access outside an allocation is a memory violation. The memory type matters for
//! coherence later (which caches may hold a line, where atomics execute).

use crate::backing::{Backing, HostMemoryError};
use crate::sparse::Sparse;
use overlay::Overlay;
pub use overlay::{Pages, PAGE_BYTES};
use std::collections::BTreeMap;
use std::sync::Arc;

mod overlay;

/// Where device allocations start (above 4 GiB, canonical, below the LDS/private apertures).
pub const HEAP_BASE: u64 = 0x0000_0001_0000_0000;
/// Unmapped space left after each allocation.
const GUARD_BYTES: u64 = 64 * 1024;
/// Allocation alignment.
const ALIGN: u64 = 4096;

/// Memory types a buffer can have (HIP: hipMalloc, hipExtMallocWithFlags(fine-grained),
/// hipHostMalloc, hipMallocManaged), plus the runtime's own regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum MemoryKind {
    /// Coarse-grained device memory.
    Device,
    /// Fine-grained device memory (coherent with the host and other agents at system scope).
    DeviceFineGrain,
    /// Pinned host memory mapped into the device address space.
    HostPinned,
    /// Pinned host memory allocated non-coherent (`hipHostMallocNonCoherent`): the GPU's L2
    /// may cache it (MTYPE NC, [`crate::memsys::mtype`]).
    HostNonCoherent,
    /// Managed (unified) memory.
    Managed,
    /// Kernel arguments (read-only for the kernel; uncached on GFX90A/GFX942).
    Kernarg,
    /// Runtime structures the kernel may read: AQL packet, queue descriptor.
    Runtime,
    /// Per-lane private (scratch) backing store.
    Scratch,
}

/// Whose memory an allocation is: the address space's own, or another agent's mapped into it
/// at the same address ([`Memory::map_view`]: a peer GPU's memory after peer access is
/// enabled, host memory every GPU reaches). The memory system may route an access by it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Owner {
    /// This device's own memory.
    #[default]
    Local,
    /// The host's memory.
    Host,
    /// The memory of the GPU with this ordinal.
    Gpu(u32),
}

/// An allocation's bytes made shared, to be mapped into another address space at the same
/// address ([`Memory::share`], [`Memory::map_view`]).
#[derive(Debug)]
pub struct View {
    name: String,
    kind: MemoryKind,
    base: u64,
    data: Backing,
}

/// One allocation.
#[derive(Debug, Clone)]
pub struct Allocation {
    pub name: String,
    pub kind: MemoryKind,
    pub base: u64,
    /// Whose memory it is (see [`Owner`]).
    pub owner: Owner,
    /// The bytes: a flat slice, mapped lazily when large ([`Backing`]); empty for a sparse
    /// allocation ([`Memory::alloc_sparse`]), whose bytes are in `sparse`.
    pub data: Backing,
    sparse: Option<Box<Sparse>>,
    /// Bytes held (kept here: the bounds check of every access reads it).
    len: u64,
}

impl Allocation {
    /// Bytes the allocation holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn end(&self) -> u64 {
        self.base + self.len()
    }

    /// Whether the bytes are held sparsely (see [`Memory::alloc_sparse`]).
    pub fn is_sparse(&self) -> bool {
        self.sparse.is_some()
    }

    /// The contiguous bytes holding `off..off + n` and the offset they start at: the whole
    /// allocation, or for a sparse one the chunk (if one chunk holds the range).
    fn window(&self, off: usize, n: usize) -> Option<(usize, &[u8])> {
        match &self.sparse {
            None => Some((0, &self.data[..])),
            Some(s) => s.window(off, n),
        }
    }

    /// Mutable [`Allocation::window`].
    fn window_mut(&mut self, off: usize, n: usize) -> Option<(usize, &mut [u8])> {
        match &mut self.sparse {
            None => Some((0, &mut self.data[..])),
            Some(s) => s.window_mut(off, n),
        }
    }

    /// Copy `off..off + out.len()` (within the allocation) into `out`.
    #[inline]
    fn read_at(&self, off: usize, out: &mut [u8]) {
        match &self.sparse {
            None => copy_small(out, &self.data[off..off + out.len()]),
            Some(s) => s.read(off, out),
        }
    }

    /// Copy `data` to `off..` (within the allocation).
    #[inline]
    fn write_at(&mut self, off: usize, data: &[u8]) {
        match &mut self.sparse {
            None => copy_small(&mut self.data[off..off + data.len()], data),
            Some(s) => s.write(off, data),
        }
    }
}

/// Bytes of a commit ([`Memory::commit_runs`]) below which a piece is not split again.
const PARALLEL_COMMIT_BYTES: usize = 256 << 10;

/// Ranges of one commit inside one allocation ([`Memory::commit_runs`]).
#[derive(Clone, Copy)]
struct Group<'p, 'r> {
    pages: &'p [&'p Pages],
    /// `(view, lo, hi)`, sorted and disjoint, all inside the allocation.
    runs: &'r [(usize, u64, u64)],
    /// Index of `runs[0]` among all the commit's ranges.
    first: usize,
    /// The allocation's index and base.
    index: usize,
    base: u64,
}

impl Group<'_, '_> {
    fn bytes(&self) -> usize {
        self.runs.iter().map(|r| (r.2 - r.1) as usize).sum()
    }

    /// Hand each range's bytes to `to` (offset in the allocation, bytes); the ranges not all
    /// written by their view go to `missed`.
    fn copy_each(&self, mut to: impl FnMut(usize, &[u8]), missed: &mut Vec<usize>) {
        for (k, &(view, lo, hi)) in self.runs.iter().enumerate() {
            let copied = self.pages.get(view).is_some_and(|p| p.copy_each(self.index, (lo - self.base) as usize, (hi - lo) as usize, &mut to));
            if !copied {
                missed.push(self.first + k);
            }
        }
    }

    /// Copy the ranges into `bytes`, the allocation's bytes from offset `from` on, in halves
    /// on the current rayon pool; returns the ranges not copied.
    fn copy_into(self, bytes: &mut [u8], from: usize) -> Vec<usize> {
        let total = self.bytes();
        if total < PARALLEL_COMMIT_BYTES || self.runs.len() < 2 {
            let mut missed = Vec::new();
            self.copy_each(|at, b| bytes[at - from..at - from + b.len()].copy_from_slice(b), &mut missed);
            return missed;
        }
        // The first range past half the bytes starts the second half (ranges are disjoint and
        // sorted, so every range before it ends at or before its start).
        let mut sum = 0;
        let m = self.runs.iter().position(|r| {
            sum += (r.2 - r.1) as usize;
            2 * sum >= total
        });
        let m = m.map_or(self.runs.len() / 2, |m| m + 1).clamp(1, self.runs.len() - 1);
        let split = (self.runs[m].1 - self.base) as usize;
        let (left, right) = bytes.split_at_mut(split - from);
        let (a, b) = (Group { runs: &self.runs[..m], ..self }, Group { runs: &self.runs[m..], first: self.first + m, ..self });
        let (mut missed, more) = rayon::join(|| a.copy_into(left, from), || b.copy_into(right, split));
        missed.extend(more);
        missed
    }
}

/// An access that no allocation covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unmapped {
    pub address: u64,
    pub size: u32,
}

/// The four allocations the last accesses hit, most recent first, 16 bits each in one word (a
/// kernel reading two arrays and writing a third, its arguments read between, cycles through
/// four): an atomic, not a cell, so that several threads may copy one address space at once
/// (the parallel functional engine); relaxed loads and stores cost what a cell's do.
#[derive(Debug)]
struct LastHit(std::sync::atomic::AtomicU64);

/// An empty place in [`LastHit`] (indices from it on are not remembered).
const NO_HIT: u64 = 0xffff;

impl Default for LastHit {
    fn default() -> LastHit {
        LastHit(std::sync::atomic::AtomicU64::new(u64::MAX))
    }
}

impl LastHit {
    /// Up to four allocation indices, most recent first.
    #[inline]
    fn get(&self) -> impl Iterator<Item = usize> {
        let v = self.0.load(std::sync::atomic::Ordering::Relaxed);
        (0..4).map(move |k| (v >> (16 * k)) & NO_HIT).take_while(|&i| i != NO_HIT).map(|i| i as usize)
    }

    /// Allocation `i` was hit: it goes first, the others keep their order after it (the
    /// oldest drops out if `i` was not among them).
    #[inline]
    fn set(&self, i: usize) {
        let Some(i) = u64::try_from(i).ok().filter(|&i| i < NO_HIT) else { return };
        let v = self.0.load(std::sync::atomic::Ordering::Relaxed);
        let k = (0..4).find(|&k| (v >> (16 * k)) & NO_HIT == i).unwrap_or(3);
        if k == 0 {
            return;
        }
        // Entries before `k` move up one place; those after it stay.
        let below = v & ((1u64 << (16 * k)) - 1);
        let above = if k == 3 { 0 } else { v & !((1u64 << (16 * (k + 1))) - 1) };
        self.0.store(above | below << 16 | i, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Clone for LastHit {
    fn clone(&self) -> LastHit {
        LastHit(std::sync::atomic::AtomicU64::new(self.0.load(std::sync::atomic::Ordering::Relaxed)))
    }
}

/// The address space.
#[derive(Debug, Clone, Default)]
pub struct Memory {
    allocs: Vec<Allocation>,
    /// base → index into `allocs`.
    by_base: BTreeMap<u64, usize>,
    next: u64,
    /// The allocation the last access hit (accesses cluster).
    last: LastHit,
    /// A copy-on-write view of another address space ([`Memory::overlay`]): then this one
    /// holds no allocations of its own and every access goes to the view.
    cow: Option<Box<Overlay>>,
}

impl Memory {
    pub fn new() -> Memory {
        Memory::with_base(HEAP_BASE)
    }

    /// An address space whose allocations start at `base` (at least [`HEAP_BASE`]): several
    /// devices of one process each place theirs in a range of its own, so that an address
    /// names its device.
    pub fn with_base(base: u64) -> Memory {
        Memory { allocs: Vec::new(), by_base: BTreeMap::new(), next: base.max(HEAP_BASE), last: LastHit::default(), cow: None }
    }

    /// A copy-on-write view of `base` (a worker of the parallel functional engine): reads see
    /// `base` until this view writes a page, which it then copies into bytes of its own;
    /// `base` itself is never written. `spare`: private pages of an earlier view to reuse.
    /// Only accesses are served (reads, writes, spans, what an address holds); the view
    /// allocates nothing.
    pub fn overlay(base: Arc<Memory>, spare: Pages) -> Memory {
        Memory { cow: Some(Box::new(Overlay::new(base, spare))), ..Memory::default() }
    }

    /// The private pages of a view made by [`Memory::overlay`] (its shared memory released);
    /// empty for an address space of its own.
    pub fn into_pages(self) -> Pages {
        self.cow.map_or_else(Pages::default, |c| c.into_pages())
    }

    /// Copy `lo..hi`, which a view of this address space wrote, from the view's `pages` into
    /// this address space; false (nothing copied) if the view did not write all of it or no
    /// allocation holds it. Straight from the private chunks into the allocation: the copy
    /// runs on the dispatch's thread after the workers, and a scratch buffer between them cost
    /// a relu launch two more passes over its 4 MiB (zeroing it, copying it).
    pub fn commit_from(&mut self, pages: &Pages, lo: u64, hi: u64) -> bool {
        let Some(n) = hi.checked_sub(lo) else { return false };
        let Ok((i, off)) = self.locate(lo, n) else { return false };
        let a = &mut self.allocs[i];
        pages.copy_each(i, off, n as usize, |at, bytes| a.write_at(at, bytes))
    }

    /// [`Memory::commit_from`] of many ranges at once: `runs` (sorted by address, disjoint),
    /// each `(view, lo, hi)` written by a view whose private pages are `pages[view]`. The
    /// ranges inside one flat allocation are copied in halves on the threads of the current
    /// rayon pool, down to [`PARALLEL_COMMIT_BYTES`] a piece: the copy is the serial tail of a
    /// parallel dispatch, and on a first launch most of its time is the host zeroing the
    /// allocation's fresh pages under it (matrixtranspose 1024² on two threads: 0.8–10 ms of a
    /// 31 ms process). Returns the indices of the ranges not copied (their view did not write
    /// all of a range, or it spans allocations), for the caller to copy piece by piece.
    pub fn commit_runs(&mut self, pages: &[&Pages], runs: &[(usize, u64, u64)]) -> Vec<usize> {
        let mut missed = Vec::new();
        let mut k = 0;
        while k < runs.len() {
            let (_, lo, hi) = runs[k];
            let Ok((i, _)) = self.locate(lo, hi.saturating_sub(lo)) else {
                missed.push(k);
                k += 1;
                continue;
            };
            let a = &mut self.allocs[i];
            let (base, end) = (a.base, a.end());
            // At least `runs[k]` itself: it was located in this allocation.
            let n = runs[k..].iter().take_while(|r| r.1 >= base && r.2 <= end).count();
            let group = Group { pages, runs: &runs[k..k + n], first: k, index: i, base };
            if a.sparse.is_some() {
                group.copy_each(|at, bytes| a.write_at(at, bytes), &mut missed);
            } else {
                missed.extend(group.copy_into(&mut a.data[..], 0));
            }
            k += n;
        }
        missed
    }

    /// The bytes of the allocation at `base` made shared (a sparse one becomes flat first,
    /// lazily mapped), and a view of them for another address space; `Err` says why not (no
    /// allocation there, or the host cannot map a sparse one's whole range).
    pub fn share(&mut self, base: u64) -> Result<View, String> {
        let &i = self.by_base.get(&base).ok_or_else(|| format!("no allocation at {base:#x}"))?;
        let a = &mut self.allocs[i];
        if let Some(sparse) = a.sparse.take() {
            match sparse.to_flat() {
                Ok(flat) => a.data = flat,
                Err(e) => {
                    a.sparse = Some(sparse);
                    return Err(e.to_string());
                }
            }
        }
        Ok(View { name: a.name.clone(), kind: a.kind, base, data: a.data.share() })
    }

    /// Map `view` (of another address space's allocation) at its own address, as `owner`'s
    /// memory; `Err` if it would overlap an allocation of this one.
    pub fn map_view(&mut self, view: View, owner: Owner) -> Result<(), String> {
        let len = view.data.len() as u64;
        let end = view.base.saturating_add(len.max(1));
        let below = self.by_base.range(..end).next_back().map(|(_, &i)| &self.allocs[i]);
        if let Some(a) = below.filter(|a| a.end() > view.base || a.base == view.base) {
            return Err(format!("{}: {:#x}..{end:#x} overlaps {} at {:#x}", view.name, view.base, a.name, a.base));
        }
        self.by_base.insert(view.base, self.allocs.len());
        self.allocs.push(Allocation { name: view.name, kind: view.kind, base: view.base, owner, data: view.data, sparse: None, len });
        Ok(())
    }

    /// The bases of the live allocations of `owner` mapped here.
    pub fn views_of(&self, owner: Owner) -> Vec<u64> {
        self.by_base.iter().filter(|(_, &i)| self.allocs[i].owner == owner).map(|(&b, _)| b).collect()
    }

    /// Allocate `bytes` zeroed bytes; returns the base address. The runtime's own regions and
    /// the engine's scratch: a large one the host cannot map falls back to the C heap (which
    /// aborts when even that fails, as any allocation of the process does).
    pub fn alloc(&mut self, name: &str, bytes: usize, kind: MemoryKind) -> u64 {
        let data = Backing::zeroed(bytes).unwrap_or_else(|_| Backing::from_vec(vec![0; bytes]));
        self.place(name, data, kind)
    }

    /// Allocate `bytes` zeroed bytes, or say that the host cannot back them: a program's
    /// device memory, which may be far larger than the host's (the GPU's capacity decides
    /// what a program may allocate, not the host's).
    pub fn try_alloc(&mut self, name: &str, bytes: usize, kind: MemoryKind) -> Result<u64, HostMemoryError> {
        let data = Backing::zeroed_dense(bytes)?;
        Ok(self.place(name, data, kind))
    }

    /// Allocate `bytes` zeroed bytes held sparsely ([`crate::sparse`]): nothing of them is
    /// backed, not even address space, until a chunk is first written. For a program's device
    /// memory, which may be far larger than the host's; accesses cost a chunk lookup more, and
    /// [`Allocation::data`] is empty (read them through [`Memory::read`] and friends).
    pub fn alloc_sparse(&mut self, name: &str, bytes: usize, kind: MemoryKind) -> u64 {
        let base = self.place(name, Backing::empty(), kind);
        let size = (bytes as u64).max(1);
        self.next = (base + size + GUARD_BYTES).next_multiple_of(ALIGN);
        let a = &mut self.allocs[self.by_base[&base]];
        a.sparse = Some(Box::new(Sparse::new(bytes)));
        a.len = bytes as u64;
        base
    }

    /// Say the allocation at `base` is `owner`'s memory (a launch spec placing a buffer in
    /// host or peer memory: the bytes stay here, the memory system routes the accesses by the
    /// owner). False when no allocation starts at `base`.
    pub fn set_owner(&mut self, base: u64, owner: Owner) -> bool {
        match self.by_base.get(&base) {
            Some(&i) => {
                self.allocs[i].owner = owner;
                true
            }
            None => false,
        }
    }

    /// Allocate and fill.
    pub fn alloc_init(&mut self, name: &str, data: Vec<u8>, kind: MemoryKind) -> u64 {
        self.place(name, Backing::from_vec(data), kind)
    }

    /// Place `data` at the next free address, followed by a guard gap.
    fn place(&mut self, name: &str, data: Backing, kind: MemoryKind) -> u64 {
        let base = self.next.max(HEAP_BASE);
        let size = (data.len() as u64).max(1);
        self.next = (base + size + GUARD_BYTES).next_multiple_of(ALIGN);
        self.by_base.insert(base, self.allocs.len());
        let len = data.len() as u64;
        self.allocs.push(Allocation { name: name.to_string(), kind, base, owner: Owner::Local, data, sparse: None, len });
        base
    }

    /// Where the next allocation will be placed: every address from [`HEAP_BASE`] up to this
    /// one was handed out by the address space (an allocation, its guard, or a freed one).
    pub fn high_water(&self) -> u64 {
        self.next.max(HEAP_BASE)
    }

    /// Place `data` at the fixed address `base` (a code object's sections, at the addresses
    /// its code was linked for). It must end below [`HEAP_BASE`] and overlap no allocation.
    pub fn alloc_at(&mut self, name: &str, base: u64, data: Vec<u8>, kind: MemoryKind) -> Result<(), String> {
        let end = base
            .checked_add(data.len() as u64)
            .filter(|&e| e <= HEAP_BASE)
            .ok_or_else(|| format!("{name}: {} bytes at {base:#x} reach past {HEAP_BASE:#x}, where device allocations start", data.len()))?;
        let below = self.by_base.range(..end).next_back().map(|(_, &i)| &self.allocs[i]);
        if let Some(a) = below.filter(|a| a.end() > base || a.base == base) {
            return Err(format!("{name}: {base:#x}..{end:#x} overlaps {} at {:#x}", a.name, a.base));
        }
        self.by_base.insert(base, self.allocs.len());
        let len = data.len() as u64;
        self.allocs.push(Allocation { name: name.to_string(), kind, base, owner: Owner::Local, data: Backing::from_vec(data), sparse: None, len });
        Ok(())
    }

    /// Release an allocation: its bytes are dropped and its addresses fault from now on
    /// (addresses are not reused). Unknown bases are ignored.
    pub fn free(&mut self, base: u64) {
        if let Some(i) = self.by_base.remove(&base) {
            let a = &mut self.allocs[i];
            a.data = Backing::empty();
            a.sparse = None;
            a.len = 0;
            a.name.clear();
        }
    }

    pub fn allocations(&self) -> &[Allocation] {
        &self.allocs
    }

    /// Bytes the host holds for the allocations (a sparse one's touched chunks only): what a
    /// copy of the address space costs.
    pub fn held_bytes(&self) -> u64 {
        let held = |a: &Allocation| match &a.sparse {
            Some(s) => (s.touched_chunks() * crate::sparse::CHUNK_BYTES) as u64,
            None => a.len(),
        };
        self.allocs.iter().map(held).sum()
    }

    /// The live allocation named `name`.
    pub fn find(&self, name: &str) -> Option<&Allocation> {
        self.allocs.iter().find(|a| a.name == name && self.by_base.contains_key(&a.base))
    }

    fn locate(&self, address: u64, size: u64) -> Result<(usize, usize), Unmapped> {
        self.locate_with(&self.last, address, size)
    }

    /// The allocation holding `address..address + size` and the offset into it; `last`: the
    /// hint of the allocation hit before (tried first, updated on a miss).
    #[inline]
    fn locate_with(&self, last: &LastHit, address: u64, size: u64) -> Result<(usize, usize), Unmapped> {
        let miss = || Unmapped { address, size: u32::try_from(size).unwrap_or(u32::MAX) };
        let hit = |a: &Allocation| address >= a.base && address.checked_add(size).is_some_and(|e| e <= a.end());
        for (k, i) in last.get().enumerate() {
            if let Some(a) = self.allocs.get(i).filter(|a| hit(a)) {
                if k > 0 {
                    last.set(i);
                }
                return Ok((i, (address - a.base) as usize));
            }
        }
        let (_, &i) = self.by_base.range(..=address).next_back().ok_or_else(miss)?;
        last.set(i);
        let a = &self.allocs[i];
        let off = address - a.base;
        if off.checked_add(size).is_none_or(|end| end > a.len()) {
            return Err(miss());
        }
        Ok((i, off as usize))
    }

    /// Contiguous bytes holding all of `lo..end`, with the address they start at: lets a
    /// whole instruction's lanes be served by one lookup. The whole allocation, or for a
    /// sparse one the chunk holding the range (`None` if it straddles two).
    pub fn span(&self, lo: u64, end: u64) -> Option<(u64, &[u8])> {
        if let Some(c) = &self.cow {
            return c.span(lo, end);
        }
        let n = end.checked_sub(lo)?;
        let (i, off) = self.locate(lo, n).ok()?;
        let a = &self.allocs[i];
        let (start, bytes) = a.window(off, n as usize)?;
        Some((a.base + start as u64, bytes))
    }

    /// The `len` bytes at `address`, if one allocation holds them all (and, for a sparse
    /// allocation, one chunk).
    pub fn bytes(&self, address: u64, len: u64) -> Option<&[u8]> {
        if let Some(c) = &self.cow {
            let (start, bytes) = c.span(address, address.checked_add(len)?)?;
            let lo = usize::try_from(address - start).ok()?;
            return bytes.get(lo..lo + usize::try_from(len).ok()?);
        }
        let (_, &i) = self.by_base.range(..=address).next_back()?;
        let a = &self.allocs[i];
        let lo = usize::try_from(address - a.base).ok()?;
        let n = usize::try_from(len).ok()?;
        if lo.checked_add(n)? as u64 > a.len() {
            return None;
        }
        let (start, bytes) = a.window(lo, n)?;
        bytes.get(lo - start..lo - start + n)
    }

    /// Mutable [`Memory::span`].
    pub fn span_mut(&mut self, lo: u64, end: u64) -> Option<(u64, &mut [u8])> {
        if self.cow.is_some() {
            return self.cow.as_mut().and_then(|c| c.span_mut(lo, end));
        }
        let n = end.checked_sub(lo)?;
        let (i, off) = self.locate(lo, n).ok()?;
        let a = &mut self.allocs[i];
        let base = a.base;
        let (start, bytes) = a.window_mut(off, n as usize)?;
        Some((base + start as u64, bytes))
    }

    /// The memory type of the allocation holding all of `address..address+size`.
    pub fn kind_at(&self, address: u64, size: u32) -> Result<MemoryKind, Unmapped> {
        if let Some(c) = &self.cow {
            return c.base().kind_at(address, size);
        }
        self.locate(address, u64::from(size)).map(|(i, _)| self.allocs[i].kind)
    }

    /// Fill `out` with the bytes at `address..` that lie inside allocations; the rest (gaps,
    /// unmapped space) become zero. For cache lines, which may reach past an allocation or,
    /// with a code object's sections at their linked addresses, start before one or span two.
    pub fn read_clamped(&self, address: u64, out: &mut [u8]) {
        if let Some(c) = &self.cow {
            c.read_clamped(address, out);
            return;
        }
        out.fill(0);
        let end = address.saturating_add(out.len() as u64);
        // Fast path: the whole range in the allocation that holds its start.
        if let Ok((i, off)) = self.locate(address, 1) {
            let a = &self.allocs[i];
            if a.end() >= end || self.by_base.range(address + 1..end).next().is_none() {
                let n = (a.len() as usize - off).min(out.len());
                a.read_at(off, &mut out[..n]);
                return;
            }
        }
        let first = self.by_base.range(..=address).next_back().map_or(address, |(&b, _)| b);
        for (_, &i) in self.by_base.range(first..end) {
            let a = &self.allocs[i];
            let (lo, hi) = (a.base.max(address), a.end().min(end));
            if lo < hi {
                a.read_at((lo - a.base) as usize, &mut out[(lo - address) as usize..(hi - address) as usize]);
            }
        }
    }

    /// Write the bytes of `data` selected by `mask` (bit i = byte i) to `address + i`, where
    /// mapped; bytes outside every allocation are dropped (a cache writing back a line of a
    /// freed buffer, or a line reaching into a gap).
    pub fn write_masked(&mut self, address: u64, data: &[u8], mask: u128) {
        if let Some(c) = &mut self.cow {
            c.write_masked(address, data, mask);
            return;
        }
        let end = address.saturating_add(data.len() as u64);
        let first = self.by_base.range(..=address).next_back().map_or(address, |(&b, _)| b);
        let (by_base, allocs) = (&self.by_base, &mut self.allocs);
        for (_, &i) in by_base.range(first..end) {
            let a = &mut allocs[i];
            let (lo, hi) = (a.base.max(address), a.end().min(end));
            if lo >= hi {
                continue;
            }
            // The bytes once, outside the copies (a cache line's write-back is hot); a sparse
            // allocation's chunk holds an aligned line whole.
            let base = a.base;
            match a.window_mut((lo - base) as usize, (hi - lo) as usize) {
                Some((start, bytes)) => {
                    // Each run of selected bytes in `lo..hi` as one copy (a written-back line
                    // is usually dirty whole).
                    let (k0, k1) = ((lo - address) as u32, ((hi - address) as u32).min(128));
                    let span = if k1 - k0 >= 128 { u128::MAX } else { ((1u128 << (k1 - k0)) - 1) << k0 };
                    let mut m = mask & span;
                    let from = base + start as u64;
                    while m != 0 {
                        let k = m.trailing_zeros();
                        let run = (!(m >> k)).trailing_zeros().min(128 - k);
                        // Selected bytes lie in `lo..hi`, inside the window from `from`.
                        let (at, k, n) = ((address + k as u64 - from) as usize, k as usize, run as usize);
                        bytes[at..at + n].copy_from_slice(&data[k..k + n]);
                        m &= if run >= 128 { 0 } else { !(((1u128 << run) - 1) << k) };
                    }
                }
                None => {
                    for p in (lo..hi).filter(|p| mask >> (p - address) & 1 != 0) {
                        a.write_at((p - base) as usize, &data[(p - address) as usize..][..1]);
                    }
                }
            }
        }
    }

    /// The allocation containing `address`, if any.
    /// For a view ([`Memory::overlay`]), the shared allocation: its bytes are the starting
    /// ones, not the view's writes.
    pub fn allocation_at(&self, address: u64) -> Option<&Allocation> {
        if let Some(c) = &self.cow {
            return c.base().allocation_at(address);
        }
        self.locate(address, 1).ok().map(|(i, _)| &self.allocs[i])
    }

    pub fn read(&self, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        if let Some(c) = &self.cow {
            return c.read(address, out);
        }
        let (i, off) = self.locate(address, out.len() as u64)?;
        self.allocs[i].read_at(off, out);
        Ok(())
    }

    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        if let Some(c) = &mut self.cow {
            return c.write(address, bytes);
        }
        let (i, off) = self.locate(address, bytes.len() as u64)?;
        self.allocs[i].write_at(off, bytes);
        Ok(())
    }

    pub fn read_u32(&self, address: u64) -> Result<u32, Unmapped> {
        let mut b = [0u8; 4];
        self.read(address, &mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    pub fn read_u64(&self, address: u64) -> Result<u64, Unmapped> {
        let mut b = [0u8; 8];
        self.read(address, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    pub fn write_u32(&mut self, address: u64, v: u32) -> Result<(), Unmapped> {
        self.write(address, &v.to_le_bytes())
    }

    pub fn write_u64(&mut self, address: u64, v: u64) -> Result<(), Unmapped> {
        self.write(address, &v.to_le_bytes())
    }
}

/// `dst.copy_from_slice(src)` with the lane-access sizes as fixed-size copies: a call into
/// the general `memcpy` costs more than the copy itself for 1..16 bytes.
#[inline]
fn copy_small(dst: &mut [u8], src: &[u8]) {
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) {
        let s: &[u8; N] = src.try_into().unwrap_or(&[0; N]);
        if let Ok(d) = <&mut [u8; N]>::try_from(dst) {
            *d = *s;
        }
    }
    match dst.len() {
        1 => dst[0] = src[0],
        2 => fixed::<2>(dst, src),
        4 => fixed::<4>(dst, src),
        8 => fixed::<8>(dst, src),
        16 => fixed::<16>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_separated_by_unmapped_guards() {
        let mut m = Memory::new();
        let a = m.alloc("a", 16, MemoryKind::Device);
        let b = m.alloc("b", 16, MemoryKind::Device);
        assert!(b >= a + 16 + GUARD_BYTES);
        m.write_u32(a + 12, 7).unwrap();
        assert_eq!(m.read_u32(a + 12), Ok(7));
        assert_eq!(m.read_u32(a + 13), Err(Unmapped { address: a + 13, size: 4 }));
        assert!(m.read_u32(a - 4).is_err());
        assert!(m.read_u32(b + 16).is_err());
        assert_eq!(m.allocation_at(b + 3).map(|x| x.name.as_str()), Some("b"));
        m.free(b);
        assert!(m.read_u32(b).is_err());
        assert!(m.find("b").is_none());
        assert_eq!(m.read_u32(a + 12), Ok(7));
    }

    #[test]
    fn a_sparse_allocation_reads_zero_until_written_and_serves_spans_by_chunk() {
        use crate::sparse::CHUNK_BYTES;
        let mut m = Memory::new();
        let len = 3 * CHUNK_BYTES;
        let a = m.alloc_sparse("big", len, MemoryKind::Device);
        let after = m.alloc("after", 16, MemoryKind::Device);
        assert!(after >= a + len as u64 + GUARD_BYTES, "placed like any allocation");
        assert!(m.allocation_at(a).is_some_and(|x| x.is_sparse() && x.len() == len as u64 && x.data.is_empty()));
        assert_eq!(m.read_u32(a + 12), Ok(0));
        // A write across the first chunk boundary, read back whole and by span.
        let edge = a + CHUNK_BYTES as u64 - 2;
        m.write(edge, &[1, 2, 3, 4]).unwrap();
        assert_eq!(m.read_u32(edge), Ok(0x0403_0201));
        let (base, bytes) = m.span(a + 8, a + 16).expect("within the first chunk");
        assert_eq!((base, bytes.len()), (a, CHUNK_BYTES));
        assert!(m.span(edge, edge + 4).is_none(), "straddles two chunks: the per-lane path");
        let (base, bytes) = m.span_mut(a + 2 * CHUNK_BYTES as u64, a + 2 * CHUNK_BYTES as u64 + 4).expect("third chunk");
        assert_eq!(base, a + 2 * CHUNK_BYTES as u64);
        bytes[..4].copy_from_slice(&[9; 4]);
        assert_eq!(m.bytes(base, 4), Some(&[9u8; 4][..]));
        // Cache lines: read clamped at the end, written back through a mask.
        let mut line = [7u8; 128];
        m.read_clamped(a + len as u64 - 64, &mut line);
        assert_eq!(&line[..], &[0u8; 128][..], "64 zero bytes, then the guard");
        m.write_masked(a + 128, &[5; 128], 0xff);
        assert_eq!(m.read_u64(a + 128), Ok(0x0505_0505_0505_0505));
        assert_eq!(m.read_u32(a + 136), Ok(0));
        assert!(m.read_u32(a + len as u64 - 2).is_err(), "past the end");
        m.free(a);
        assert!(m.read_u32(a).is_err());
    }

    #[test]
    fn a_view_maps_the_same_bytes_into_another_address_space() {
        use crate::sparse::CHUNK_BYTES;
        let mut own = Memory::with_base(HEAP_BASE + (1 << 40));
        let mut peer = Memory::new();
        let flat = own.alloc("flat", 256, MemoryKind::Device);
        let sparse = own.alloc_sparse("sparse", 2 * CHUNK_BYTES, MemoryKind::Device);
        assert!(flat >= HEAP_BASE + (1 << 40), "placed in its own range");
        own.write_u32(sparse + CHUNK_BYTES as u64, 5).unwrap();
        for base in [flat, sparse] {
            let view = own.share(base).expect("shareable");
            peer.map_view(view, Owner::Gpu(1)).expect("no overlap");
        }
        assert!(own.allocation_at(sparse).is_some_and(|a| !a.is_sparse()), "flattened to share");
        assert_eq!(peer.read_u32(sparse + CHUNK_BYTES as u64), Ok(5));
        peer.write_u32(flat + 8, 9).unwrap();
        assert_eq!(own.read_u32(flat + 8), Ok(9), "the peer's store is the owner's byte");
        assert_eq!(peer.allocation_at(flat).map(|a| a.owner), Some(Owner::Gpu(1)));
        assert_eq!(peer.views_of(Owner::Gpu(1)), vec![flat, sparse]);
        assert!(peer.map_view(own.share(flat).unwrap(), Owner::Gpu(1)).is_err(), "already mapped");
        assert!(own.share(flat + 4).is_err(), "not a base");
        own.free(flat);
        assert_eq!(peer.read_u32(flat + 8), Ok(9), "a view keeps the bytes until it is unmapped");
        peer.free(flat);
        assert!(peer.read_u32(flat).is_err());
    }

    /// The hint keeps the four latest allocations, most recent first, whatever the order of
    /// hits; an index it cannot hold is not remembered.
    #[test]
    fn the_last_hits_are_the_four_latest_in_order() {
        let h = LastHit::default();
        assert_eq!(h.get().count(), 0);
        for i in [3, 7, 3, 9, 1, 4, 9] {
            h.set(i);
        }
        assert_eq!(h.get().collect::<Vec<_>>(), vec![9, 4, 1, 3]);
        h.set(3);
        assert_eq!(h.get().collect::<Vec<_>>(), vec![3, 9, 4, 1]);
        h.set(1 << 20);
        assert_eq!(h.get().collect::<Vec<_>>(), vec![3, 9, 4, 1]);
        // Every access still lands in its own allocation, with and without the hint's help.
        let mut m = Memory::default();
        let bases: Vec<u64> = (0..6).map(|k| m.alloc(&format!("a{k}"), 64, MemoryKind::Device)).collect();
        for round in 0..3 {
            for (k, &b) in bases.iter().enumerate().rev() {
                let (i, off) = m.locate(b + 8, 4).expect("mapped");
                assert_eq!((m.allocs[i].base, off), (b, 8), "round {round} allocation {k}");
            }
        }
    }

    #[test]
    fn fixed_placements_and_lines_that_span_gaps_and_neighbours() {
        let mut m = Memory::new();
        m.alloc_at(".data", 0x4530, vec![1; 0x20], MemoryKind::Device).unwrap();
        m.alloc_at(".bss", 0x4550, vec![2; 0x45], MemoryKind::Device).unwrap();
        assert!(m.alloc_at("x", 0x4540, vec![0; 4], MemoryKind::Device).is_err(), "overlap");
        assert!(m.alloc_at("y", HEAP_BASE - 2, vec![0; 4], MemoryKind::Device).is_err(), "into the heap");
        // A 128-byte line from 0x4500: a gap, then .data, then the start of .bss.
        let mut line = [9u8; 128];
        m.read_clamped(0x4500, &mut line);
        assert_eq!(&line[..0x30], &[0; 0x30][..]);
        assert_eq!(&line[0x30..0x50], &[1; 0x20][..]);
        assert_eq!(&line[0x50..], &[2; 0x30][..]);
        // The next line: the rest of .bss, then nothing.
        m.read_clamped(0x4580, &mut line);
        assert_eq!(&line[..0x15], &[2; 0x15][..]);
        assert_eq!(&line[0x15..], &[0; 0x6b][..]);
        m.write_masked(0x4500, &[7; 128], u128::MAX);
        assert_eq!(m.read_u32(0x4530), Ok(0x0707_0707));
        assert_eq!(m.read_u32(0x457c), Ok(0x0707_0707));
        assert_eq!(m.read_u32(0x4580), Ok(0x0202_0202));
        assert!(m.read_u32(0x4500).is_err(), "the gap stays unmapped");
    }

    #[test]
    fn masked_writes_take_exactly_the_selected_mapped_bytes() {
        use rand::{RngExt, SeedableRng};
        // Lines over a gap, .data, .bss and past its end; masks with runs of every length.
        // The reference writes the selected bytes one at a time where they are mapped.
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let fresh = || {
            let mut m = Memory::new();
            m.alloc_at(".data", 0x4530, vec![1; 0x20], MemoryKind::Device).unwrap();
            m.alloc_at(".bss", 0x4550, vec![2; 0x45], MemoryKind::Device).unwrap();
            m
        };
        for round in 0..400 {
            let (mut fast, mut slow) = (fresh(), fresh());
            let address = 0x4500 + rng.random_range(0..4u64) * 0x40;
            let len = [128usize, 64, 100][round % 3];
            let data: Vec<u8> = (0..len).map(|_| rng.random_range(3..255u8)).collect();
            let mask = match round % 4 {
                0 => u128::MAX,
                1 => rng.random::<u128>(),
                // Long runs: a few bits flipped in a full mask.
                _ => (0..3).fold(u128::MAX, |m, _| m ^ 1u128 << rng.random_range(0..128u32)),
            };
            fast.write_masked(address, &data, mask);
            for (k, &b) in data.iter().enumerate().filter(|&(k, _)| mask >> k & 1 != 0) {
                let _ = slow.write(address + k as u64, &[b]);
            }
            let (mut x, mut y) = ([0u8; 0x100], [0u8; 0x100]);
            fast.read_clamped(0x4500, &mut x);
            slow.read_clamped(0x4500, &mut y);
            assert_eq!(x, y, "round {round}: {address:#x} {mask:#x}");
        }
    }
}
