//! A copy-on-write view of an address space: what a worker of the parallel functional engine
//! runs on (`engine::par`). The starting memory is shared by every worker, read-only; a
//! worker's first write to a page copies that page into bytes of its own, and later accesses
//! to the page go there. Reads of pages it never wrote fall through to the shared bytes, so a
//! worker costs what it writes, not the size of the address space.
//!
//! Pages are [`PAGE_BYTES`] from each allocation's base. The private bytes of an allocation
//! are a [`Sparse`] of its length (chunks made at the first write into them, each a lazily
//! mapped backing), with a bit per page saying which pages hold the worker's copy. An access
//! that a whole allocation served before (a wave's coalesced load or store) is served from a
//! run of pages in one state — all shared or all private — so the engine's bulk paths still
//! take a whole instruction at once; lanes outside the run take the per-lane path, which
//! gives the same result.
//!
//! The private pages outlive the view ([`Pages`]): the engine keeps them per worker and hands
//! them to the next dispatch's view of the same allocations, so that after the first
//! dispatch a worker's writes make no host allocation and take no page fault.

use super::{Allocation, LastHit, Memory, Unmapped};
use crate::sparse::{Sparse, CHUNK_BYTES};
use std::sync::Arc;

/// Bytes per copy-on-write page: the host's page, the unit a worker copies before its first
/// write into it.
pub const PAGE_BYTES: usize = 4096;
/// Pages per private chunk (a private run never crosses a chunk).
const CHUNK_PAGES: usize = CHUNK_BYTES / PAGE_BYTES;
/// The most shared pages a bulk store copies before it writes (a store whose lanes spread
/// wider takes the per-lane path, which copies only the pages it writes).
const BULK_COPY_PAGES: usize = 16;
/// How far from an access a run of pages in one state is looked for (pages each way): lanes
/// of one instruction farther apart take the per-lane path. One word of the page bitmap
/// each way: a wider look cost a parallel worker's coalesced loads more than they move (a
/// wave's lanes span a few pages at most).
const RUN_LOOK_PAGES: usize = 64;

/// One allocation's private pages.
#[derive(Debug, Clone, Default)]
struct Private {
    /// The allocation's base and length these pages were made for.
    key: (u64, u64),
    /// Bit `p`: page `p` holds this worker's copy (empty until the first write).
    dirty: Vec<u64>,
    /// Pages with their bit set.
    count: usize,
    bytes: Sparse,
}

/// The private pages of a view, kept for the next one (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct Pages {
    own: Vec<Private>,
}

impl Pages {
    /// Host bytes the private chunks hold (touched chunks at their full size).
    pub fn held_bytes(&self) -> usize {
        self.own.iter().map(|p| p.bytes.touched_chunks() * CHUNK_BYTES).sum()
    }

    /// Hand `to` the bytes at `off..off + n` of allocation `index` (of the address space the
    /// view was made over) from this view's private pages, a piece per private chunk with its
    /// offset; false (nothing handed) if they are not all private (the view did not write them).
    pub(super) fn copy_each(&self, index: usize, off: usize, n: usize, mut to: impl FnMut(usize, &[u8])) -> bool {
        let Some(p) = self.own.get(index) else { return false };
        let (first, last) = (off / PAGE_BYTES, (off + n.max(1) - 1) / PAGE_BYTES);
        if !(first..=last).all(|q| p.is_dirty(q)) {
            return false;
        }
        let mut at = off;
        while at < off + n {
            let piece = (CHUNK_BYTES - at % CHUNK_BYTES).min(off + n - at);
            // Private pages lie in made chunks: the window is the chunk holding the piece.
            if let Some((start, bytes)) = p.bytes.window(at, piece) {
                to(at, &bytes[at - start..at - start + piece]);
            }
            at += piece;
        }
        true
    }
}

impl Private {
    #[inline]
    fn is_dirty(&self, page: usize) -> bool {
        self.dirty.get(page / 64).is_some_and(|w| w >> (page % 64) & 1 != 0)
    }

    /// Make page `page` of `a` private (a copy of the shared bytes), if it is not.
    fn ensure(&mut self, a: &Allocation, page: usize) {
        if self.is_dirty(page) {
            return;
        }
        let len = a.len() as usize;
        if self.dirty.is_empty() {
            self.dirty = vec![0; len.div_ceil(PAGE_BYTES).div_ceil(64)];
            if self.key != (a.base, a.len()) || self.bytes.len() != len {
                self.key = (a.base, a.len());
                // A worker writes the pages of a buffer it stores to densely (its work-groups'
                // outputs): whole huge pages, up to the size a dense allocation has them.
                self.bytes = if len <= crate::backing::DENSE_HUGE_MAX_BYTES { Sparse::new_dense(len) } else { Sparse::new(len) };
            }
        }
        let lo = page * PAGE_BYTES;
        let hi = (lo + PAGE_BYTES).min(len);
        // A page lies in one chunk (chunks are whole pages).
        if let Some((start, chunk)) = self.bytes.window_mut(lo, hi - lo) {
            a.read_at(lo, &mut chunk[lo - start..hi - start]);
        }
        self.dirty[page / 64] |= 1 << (page % 64);
        self.count += 1;
    }

    /// The pages `r0..r1` around `page` that share its state `set`, within `lo..hi`.
    fn run(&self, page: usize, set: bool, lo: usize, hi: usize) -> (usize, usize) {
        let word = |w: usize| {
            let x = self.dirty.get(w).copied().unwrap_or(0);
            if set {
                x
            } else {
                !x
            }
        };
        let mut up = page;
        while up < hi {
            let b = up % 64;
            let ones = (word(up / 64) >> b).trailing_ones() as usize;
            up += ones;
            if ones < 64 - b {
                break;
            }
        }
        let mut down = page;
        while down > lo {
            let top = down - 1;
            let b = top % 64;
            let ones = (word(top / 64) << (63 - b)).leading_ones() as usize;
            down -= ones;
            if ones < b + 1 {
                break;
            }
        }
        (down.max(lo), up.min(hi))
    }

    /// Read `off..off + out.len()` of `a`, page by page from wherever each page is.
    fn read(&self, a: &Allocation, off: usize, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            let at = off + done;
            let n = (PAGE_BYTES - at % PAGE_BYTES).min(out.len() - done);
            if self.is_dirty(at / PAGE_BYTES) {
                self.bytes.read(at, &mut out[done..done + n]);
            } else {
                a.read_at(at, &mut out[done..done + n]);
            }
            done += n;
        }
    }
}

/// A copy-on-write view over a shared address space (see the module doc).
#[derive(Debug, Clone)]
pub(super) struct Overlay {
    base: Arc<Memory>,
    /// Per allocation of `base`, same index.
    own: Vec<Private>,
    /// The allocation the last access hit (this view's own: the shared one is not written).
    last: LastHit,
}

impl Overlay {
    /// A view of `base` reusing the private pages of `spare` made for the same allocations.
    pub fn new(base: Arc<Memory>, spare: Pages) -> Overlay {
        let mut spare = spare.own;
        let own = base
            .allocs
            .iter()
            .map(|a| {
                let key = (a.base, a.len());
                match spare.iter().position(|p| p.key == key) {
                    Some(k) => {
                        let mut p = spare.swap_remove(k);
                        if p.count > 0 {
                            p.dirty.fill(0);
                            p.count = 0;
                        }
                        p
                    }
                    None => Private::default(),
                }
            })
            .collect();
        Overlay { base, own, last: LastHit::default() }
    }

    /// The shared address space.
    pub fn base(&self) -> &Memory {
        &self.base
    }

    /// The private pages, the view ended (the shared address space released).
    pub fn into_pages(self) -> Pages {
        Pages { own: self.own }
    }

    fn locate(&self, address: u64, size: u64) -> Result<(usize, usize), Unmapped> {
        self.base.locate_with(&self.last, address, size)
    }

    pub fn read(&self, address: u64, out: &mut [u8]) -> Result<(), Unmapped> {
        let (i, off) = self.locate(address, out.len() as u64)?;
        let (a, p) = (&self.base.allocs[i], &self.own[i]);
        if p.count == 0 {
            a.read_at(off, out);
        } else {
            p.read(a, off, out);
        }
        Ok(())
    }

    pub fn write(&mut self, address: u64, bytes: &[u8]) -> Result<(), Unmapped> {
        let (i, off) = self.locate(address, bytes.len() as u64)?;
        let (a, p) = (&self.base.allocs[i], &mut self.own[i]);
        if bytes.is_empty() {
            return Ok(());
        }
        for page in off / PAGE_BYTES..=(off + bytes.len() - 1) / PAGE_BYTES {
            p.ensure(a, page);
        }
        p.bytes.write(off, bytes);
        Ok(())
    }

    /// [`Memory::span`]: the run of pages in one state holding `lo..end`.
    pub fn span(&self, lo: u64, end: u64) -> Option<(u64, &[u8])> {
        let n = end.checked_sub(lo)? as usize;
        let (i, off) = self.locate(lo, n as u64).ok()?;
        let (a, p) = (&self.base.allocs[i], &self.own[i]);
        if p.count == 0 {
            let (start, bytes) = a.window(off, n)?;
            return Some((a.base + start as u64, bytes));
        }
        let (first, last) = (off / PAGE_BYTES, (off + n.max(1) - 1) / PAGE_BYTES);
        let set = p.is_dirty(first);
        let pages = (a.len() as usize).div_ceil(PAGE_BYTES);
        let (lo_page, hi_page) = if set {
            let c = first / CHUNK_PAGES * CHUNK_PAGES;
            (c.max(first.saturating_sub(RUN_LOOK_PAGES)), (c + CHUNK_PAGES).min(pages).min(first + RUN_LOOK_PAGES))
        } else {
            (first.saturating_sub(RUN_LOOK_PAGES), (first + RUN_LOOK_PAGES).min(pages))
        };
        let (r0, r1) = p.run(first, set, lo_page, hi_page);
        if last >= r1 {
            return None;
        }
        let (from, to) = (r0 * PAGE_BYTES, (r1 * PAGE_BYTES).min(a.len() as usize));
        let (start, bytes) = if set { p.bytes.window(off, n)? } else { a.window(off, n)? };
        let (from, to) = (from.max(start), to.min(start + bytes.len()));
        Some((a.base + from as u64, &bytes[from - start..to - start]))
    }

    /// [`Memory::span_mut`]: the pages of `lo..end` made private (`None` if that would copy
    /// more than [`BULK_COPY_PAGES`] or they lie in two private chunks), with the private run
    /// holding them.
    pub fn span_mut(&mut self, lo: u64, end: u64) -> Option<(u64, &mut [u8])> {
        let n = end.checked_sub(lo)? as usize;
        let (i, off) = self.locate(lo, n as u64).ok()?;
        let (a, p) = (&self.base.allocs[i], &mut self.own[i]);
        let (first, last) = (off / PAGE_BYTES, (off + n.max(1) - 1) / PAGE_BYTES);
        if first / CHUNK_PAGES != last / CHUNK_PAGES || (first..=last).filter(|&q| !p.is_dirty(q)).count() > BULK_COPY_PAGES {
            return None;
        }
        for page in first..=last {
            p.ensure(a, page);
        }
        let pages = (a.len() as usize).div_ceil(PAGE_BYTES);
        let c = first / CHUNK_PAGES * CHUNK_PAGES;
        // The run holds every page of the store (all private now, in this chunk).
        let reach = (first + RUN_LOOK_PAGES).max(last + 1);
        let (r0, r1) = p.run(first, true, c.max(first.saturating_sub(RUN_LOOK_PAGES)), (c + CHUNK_PAGES).min(pages).min(reach));
        let (from, to) = (r0 * PAGE_BYTES, (r1 * PAGE_BYTES).min(a.len() as usize));
        let (start, bytes) = p.bytes.window_mut(off, n)?;
        let (from, to) = (from.max(start), to.min(start + bytes.len()));
        Some((a.base + from as u64, &mut bytes[from - start..to - start]))
    }

    /// [`Memory::read_clamped`]: the bytes inside allocations, the rest zero.
    pub fn read_clamped(&self, address: u64, out: &mut [u8]) {
        out.fill(0);
        let end = address.saturating_add(out.len() as u64);
        let first = self.base.by_base.range(..=address).next_back().map_or(address, |(&b, _)| b);
        for (_, &i) in self.base.by_base.range(first..end) {
            let a = &self.base.allocs[i];
            let (lo, hi) = (a.base.max(address), a.end().min(end));
            if lo < hi {
                let _ = self.read(lo, &mut out[(lo - address) as usize..(hi - address) as usize]);
            }
        }
    }

    /// [`Memory::write_masked`]: the selected bytes that lie inside allocations, one at a time
    /// (the timing engine's cache lines; no worker writes them).
    pub fn write_masked(&mut self, address: u64, data: &[u8], mask: u128) {
        for (k, &b) in data.iter().enumerate().filter(|&(k, _)| k < 128 && mask >> k & 1 != 0) {
            // Bytes in no allocation are dropped, as the address space of its own drops them.
            let _ = self.write(address.wrapping_add(k as u64), &[b]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::MemoryKind;

    /// An address space with a flat buffer of 3 pages + 100 bytes holding byte `i % 251` at
    /// offset `i`, and a sparse one spanning two chunks.
    fn start() -> (Memory, u64, u64) {
        let mut m = Memory::new();
        let len = 3 * PAGE_BYTES + 100;
        let flat = m.alloc_init("flat", (0..len).map(|i| (i % 251) as u8).collect(), MemoryKind::Device);
        let sparse = m.alloc_sparse("sparse", 2 * CHUNK_BYTES, MemoryKind::Device);
        m.write_u32(sparse + CHUNK_BYTES as u64 - 4, 0x0102_0304).unwrap();
        (m, flat, sparse)
    }

    #[test]
    fn a_view_reads_the_base_until_it_writes_and_never_changes_the_base() {
        let (m, flat, sparse) = start();
        let base = Arc::new(m);
        let mut v = Memory::overlay(base.clone(), Pages::default());
        // A write across the edge of pages 0 and 1, read back across it.
        let edge = flat + PAGE_BYTES as u64 - 2;
        v.write(edge, &[0xaa; 4]).unwrap();
        let mut got = [0u8; 8];
        v.read(edge - 2, &mut got).unwrap();
        let byte = |i: usize| (i % 251) as u8;
        let p = PAGE_BYTES - 4;
        let want = [byte(p), byte(p + 1), 0xaa, 0xaa, 0xaa, 0xaa, byte(p + 6), byte(p + 7)];
        assert_eq!(got, want, "the copied pages keep the bytes around the write");
        assert_eq!(base.read_u32(edge), Ok(u32::from_le_bytes([byte(p + 2), byte(p + 3), byte(p + 4), byte(p + 5)])));
        // The short last page and the sparse buffer's chunk edge.
        let last = flat + 3 * PAGE_BYTES as u64 + 96;
        v.write_u32(last, 7).unwrap();
        assert_eq!(v.read_u32(last), Ok(7));
        assert!(v.write_u32(last + 2, 7).is_err(), "past the end, as the base");
        let chunk_edge = sparse + CHUNK_BYTES as u64 - 2;
        v.write(chunk_edge, &[9, 9, 9, 9]).unwrap();
        // The base's 04 03 02 01 at CHUNK - 4, its last two bytes and the next chunk's first
        // two overwritten in the view only.
        assert_eq!(v.read_u64(chunk_edge - 4), Ok(u64::from_le_bytes([0, 0, 4, 3, 9, 9, 9, 9])));
        assert_eq!(base.read_u64(chunk_edge - 4), Ok(u64::from_le_bytes([0, 0, 4, 3, 2, 1, 0, 0])));
        assert_eq!(v.allocation_at(flat).map(|a| a.name.as_str()), Some("flat"));
        assert!(v.read_u32(flat - 4).is_err(), "the guard gap stays unmapped");
        drop(v);
        assert_eq!(Arc::strong_count(&base), 1, "the view released the base");
    }

    #[test]
    fn spans_are_runs_of_pages_in_one_state() {
        let (m, flat, _) = start();
        let mut v = Memory::overlay(Arc::new(m), Pages::default());
        let (b, whole) = v.span(flat + 10, flat + 20).expect("untouched: the whole allocation");
        assert_eq!((b, whole.len()), (flat, 3 * PAGE_BYTES + 100));
        v.write_u32(flat + PAGE_BYTES as u64 + 8, 0xdead_beef).unwrap();
        // Page 0 is shared, page 1 private, pages 2 and 3 shared.
        let (b, s) = v.span(flat + 10, flat + 20).expect("page 0");
        assert_eq!((b, s.len(), s[10]), (flat, PAGE_BYTES, 10));
        let (b, s) = v.span(flat + PAGE_BYTES as u64, flat + PAGE_BYTES as u64 + 16).expect("page 1, private");
        assert_eq!((b, s.len()), (flat + PAGE_BYTES as u64, PAGE_BYTES));
        assert_eq!(&s[8..12], &0xdead_beef_u32.to_le_bytes());
        let (b, s) = v.span(flat + 2 * PAGE_BYTES as u64, flat + 2 * PAGE_BYTES as u64 + 4).expect("pages 2 and 3");
        assert_eq!((b, s.len()), (flat + 2 * PAGE_BYTES as u64, PAGE_BYTES + 100));
        assert!(v.span(flat + PAGE_BYTES as u64 - 4, flat + PAGE_BYTES as u64 + 4).is_none(), "shared and private: per lane");
        // A bulk store over pages 2 and 3 makes both private and returns the run 1..4.
        let (b, s) = v.span_mut(flat + 2 * PAGE_BYTES as u64 + 4, flat + 3 * PAGE_BYTES as u64 + 8).expect("one chunk");
        assert_eq!((b, s.len()), (flat + PAGE_BYTES as u64, 2 * PAGE_BYTES + 100));
        s[PAGE_BYTES + 4] = 0x55;
        assert_eq!(v.read(flat + 2 * PAGE_BYTES as u64 + 3, &mut [0u8; 2]).map(|_| ()), Ok(()));
        let mut two = [0u8; 2];
        v.read(flat + 2 * PAGE_BYTES as u64 + 3, &mut two).unwrap();
        assert_eq!(two, [((2 * PAGE_BYTES + 3) % 251) as u8, 0x55]);
        assert_eq!(v.bytes(flat + 2 * PAGE_BYTES as u64 + 4, 1), Some(&[0x55u8][..]));
    }

    #[test]
    fn two_views_writing_one_page_commit_their_own_bytes_and_reuse_their_pages() {
        let (m, flat, _) = start();
        let base = Arc::new(m);
        let (mut a, mut b) = (Memory::overlay(base.clone(), Pages::default()), Memory::overlay(base.clone(), Pages::default()));
        a.write_u32(flat + 100, 1).unwrap();
        b.write_u32(flat + 104, 2).unwrap();
        let at = |i: u8| Ok(u32::from_le_bytes([i, i + 1, i + 2, i + 3]));
        assert_eq!((a.read_u32(flat + 104), b.read_u32(flat + 100)), (at(104), at(100)), "each sees the base outside its writes");
        let (pa, pb) = (a.into_pages(), b.into_pages());
        let mut m = Arc::try_unwrap(base).expect("no view left");
        assert!(m.commit_from(&pa, flat + 100, flat + 104));
        assert!(m.commit_from(&pb, flat + 104, flat + 108));
        assert!(!m.commit_from(&pa, flat + 2 * PAGE_BYTES as u64, flat + 2 * PAGE_BYTES as u64 + 4), "a page it never wrote");
        assert_eq!((m.read_u32(flat + 100), m.read_u32(flat + 104)), (Ok(1), Ok(2)));
        assert_eq!(m.read_u32(flat + 96), Ok(u32::from_le_bytes([96, 97, 98, 99])), "bytes around them unchanged");
        // The next view over the changed memory reuses a's pages: stale bytes are never read.
        let base = Arc::new(m);
        let mut c = Memory::overlay(base.clone(), pa);
        assert_eq!(c.read_u32(flat + 104), Ok(2), "b's write, from the base, not a's old page");
        c.write_u8_for_test(flat + 200, 3);
        assert_eq!((c.read_u32(flat + 100), c.read_u32(flat + 104)), (Ok(1), Ok(2)), "the page copied again from the base");
    }

    #[test]
    fn a_commit_across_a_chunk_edge_copies_both_sides() {
        let (m, _, sparse) = start();
        let base = Arc::new(m);
        let mut v = Memory::overlay(base.clone(), Pages::default());
        let edge = sparse + CHUNK_BYTES as u64;
        let bytes: Vec<u8> = (0..3 * PAGE_BYTES as u32).map(|i| (i % 253) as u8 + 1).collect();
        v.write(edge - PAGE_BYTES as u64 - 8, &bytes).unwrap();
        let pages = v.into_pages();
        let mut m = Arc::try_unwrap(base).expect("no view left");
        let (lo, hi) = (edge - PAGE_BYTES as u64 - 8, edge + 2 * PAGE_BYTES as u64 - 8);
        assert!(m.commit_from(&pages, lo, hi));
        let mut got = vec![0u8; bytes.len()];
        m.read(lo, &mut got).unwrap();
        assert!(got == bytes, "both chunks' bytes committed");
        assert_eq!(m.read_u64(lo - 8), Ok(0), "nothing before");
        assert_eq!(m.read_u64(hi), Ok(0), "nothing after");
    }

    #[test]
    fn a_commit_of_many_ranges_copies_each_from_its_view_in_pieces() {
        // 1 MiB flat, blocks of 12 KiB + 4 bytes (crossing pages) written alternately by two
        // views; the pieces split at range starts (past `PARALLEL_COMMIT_BYTES`).
        let mut m = Memory::new();
        let len = 1 << 20;
        let big = m.alloc_init("big", vec![0xee; len], MemoryKind::Device);
        let small = m.alloc_sparse("small", 2 * CHUNK_BYTES, MemoryKind::Device);
        let base = Arc::new(m);
        let mut views = [Memory::overlay(base.clone(), Pages::default()), Memory::overlay(base.clone(), Pages::default())];
        let block = 3 * PAGE_BYTES + 4;
        let mut runs = Vec::new();
        let mut want = vec![0xeeu8; len];
        for (k, lo) in (0..len - block).step_by(block + 8).enumerate() {
            let bytes: Vec<u8> = (0..block).map(|i| ((i + k) % 241) as u8).collect();
            views[k % 2].write(big + lo as u64, &bytes).unwrap();
            want[lo..lo + block].copy_from_slice(&bytes);
            runs.push((k % 2, big + lo as u64, big + (lo + block) as u64));
        }
        // A range the view did not write (missed), then one in the sparse buffer.
        views[0].write_u32(small + 8, 0x0a0b_0c0d).unwrap();
        let unwritten = runs.len();
        runs.push((1, small, small + 4));
        runs.push((0, small + 8, small + 12));
        let pages: Vec<Pages> = views.into_iter().map(Memory::into_pages).collect();
        let mut m = Arc::try_unwrap(base).expect("no view left");
        let refs: Vec<&Pages> = pages.iter().collect();
        let missed = m.commit_runs(&refs, &runs);
        assert_eq!(missed, vec![unwritten], "only the range its view never wrote");
        let mut got = vec![0u8; len];
        m.read(big, &mut got).unwrap();
        assert!(got == want, "every block from its own view, the gaps untouched");
        assert_eq!((m.read_u32(small), m.read_u32(small + 8)), (Ok(0), Ok(0x0a0b_0c0d)));
    }

    impl Memory {
        fn write_u8_for_test(&mut self, address: u64, v: u8) {
            self.write(address, &[v]).unwrap();
        }
    }
}
