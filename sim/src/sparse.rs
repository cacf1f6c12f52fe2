//! The bytes of a large device allocation, held sparsely: fixed-size chunks made at their
//! first write, so that untouched memory costs the host nothing at all — no pages and no
//! address space either, which a lazily mapped [`crate::backing::Backing`] still takes (and
//! which an address-space limit or strict overcommit accounting counts). A program may
//! allocate most of a 192 GB GPU on a small host and touch a few pages of it.
//!
//! Reads of an untouched chunk see zeros (a shared zero chunk); an access is served from the
//! one chunk it falls in, so the cost per access is one index and one pointer load more
//! than a flat slice. Chunk boundaries are multiples of [`CHUNK_BYTES`] from the allocation's
//! base, so an aligned cache line or a wave's coalesced access never straddles one.

use crate::backing::Backing;

/// Bytes per chunk: a page table's 2 MiB large page.
pub const CHUNK_BYTES: usize = 2 << 20;

/// The chunk every untouched chunk reads as.
static ZERO_CHUNK: [u8; CHUNK_BYTES] = [0; CHUNK_BYTES];

#[derive(Debug, Clone, Default)]
pub struct Sparse {
    len: usize,
    /// Each a mapping of its own (`Backing::zeroed`): a chunk written in one place costs the
    /// host that page, not the whole chunk.
    chunks: Vec<Option<Backing>>,
    /// Whole chunks are mapped on huge pages ([`Sparse::new_dense`]).
    dense: bool,
}

impl Sparse {
    /// `len` zero bytes, none of them backed yet.
    pub fn new(len: usize) -> Sparse {
        Sparse { len, chunks: vec![None; len.div_ceil(CHUNK_BYTES)], dense: false }
    }

    /// `len` zero bytes whose chunks, made at their first write as [`Sparse::new`]'s are, are
    /// each one huge page where the host has them ([`Backing::zeroed_huge`]): for bytes that
    /// are written densely once written at all (a parallel worker's copies of the pages it
    /// stores to, which otherwise fault in 4 KiB at a time: about a millisecond per 4 MiB
    /// output on the first dispatch of a process).
    pub fn new_dense(len: usize) -> Sparse {
        Sparse { dense: true, ..Sparse::new(len) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Chunks made so far (the host memory the allocation takes is this many [`CHUNK_BYTES`]).
    pub fn touched_chunks(&self) -> usize {
        self.chunks.iter().filter(|c| c.is_some()).count()
    }

    /// The bytes of chunk `c` (the last one may be short).
    fn chunk_len(&self, c: usize) -> usize {
        (self.len - c * CHUNK_BYTES).min(CHUNK_BYTES)
    }

    /// The chunk holding `off..off + n`, where it starts and its length, if one chunk holds
    /// it all.
    fn locate(&self, off: usize, n: usize) -> Option<(usize, usize, usize)> {
        let c = off / CHUNK_BYTES;
        if c >= self.chunks.len() {
            return None;
        }
        let start = c * CHUNK_BYTES;
        let len = self.chunk_len(c);
        (off - start + n <= len).then_some((c, start, len))
    }

    /// The chunk holding `off..off + n` and where it starts, if one chunk holds it all.
    pub fn window(&self, off: usize, n: usize) -> Option<(usize, &[u8])> {
        let (c, start, len) = self.locate(off, n)?;
        let bytes = self.chunks[c].as_deref().unwrap_or(&ZERO_CHUNK[..len]);
        Some((start, bytes))
    }

    /// Chunk `c` (`len` bytes), made at this first write if it was untouched.
    fn chunk_mut(&mut self, c: usize, len: usize) -> &mut Backing {
        let dense = self.dense;
        self.chunks[c].get_or_insert_with(|| zeroed(len, dense))
    }

    /// Mutable [`Sparse::window`]; the chunk is made if it was untouched.
    pub fn window_mut(&mut self, off: usize, n: usize) -> Option<(usize, &mut [u8])> {
        let (c, start, len) = self.locate(off, n)?;
        Some((start, &mut self.chunk_mut(c, len)[..]))
    }

    /// Copy `off..off + out.len()` (within the allocation) into `out`, across chunks.
    pub fn read(&self, off: usize, out: &mut [u8]) {
        let mut done = 0;
        while done < out.len() {
            let at = off + done;
            let (c, within) = (at / CHUNK_BYTES, at % CHUNK_BYTES);
            let n = (self.chunk_len(c) - within).min(out.len() - done);
            match &self.chunks[c] {
                Some(bytes) => out[done..done + n].copy_from_slice(&bytes[within..within + n]),
                None => out[done..done + n].fill(0),
            }
            done += n;
        }
    }

    /// The same bytes as one flat backing (lazily mapped when large: only the touched chunks
    /// are copied, the rest reads the zero page), or why the host cannot map it.
    pub fn to_flat(&self) -> Result<Backing, crate::backing::HostMemoryError> {
        let mut flat = Backing::zeroed(self.len)?;
        for (c, chunk) in self.chunks.iter().enumerate() {
            if let Some(bytes) = chunk {
                flat[c * CHUNK_BYTES..c * CHUNK_BYTES + bytes.len()].copy_from_slice(bytes);
            }
        }
        Ok(flat)
    }

    /// Copy `data` to `off..` (within the allocation), across chunks, making those touched.
    pub fn write(&mut self, off: usize, data: &[u8]) {
        let mut done = 0;
        while done < data.len() {
            let at = off + done;
            let (c, within) = (at / CHUNK_BYTES, at % CHUNK_BYTES);
            let len = self.chunk_len(c);
            let n = (len - within).min(data.len() - done);
            self.chunk_mut(c, len)[within..within + n].copy_from_slice(&data[done..done + n]);
            done += n;
        }
    }
}

/// A zeroed chunk of `len` bytes. When the host has no memory left for it, the run ends as
/// on a GPU memory fault (one report, exit status 3) rather than aborting.
fn zeroed(len: usize, dense: bool) -> Backing {
    let b = if dense { Backing::zeroed_huge(len) } else { Backing::zeroed(len) };
    b.unwrap_or_else(|e| crate::backing::host_exhausted(e.bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untouched_chunks_read_as_zero_and_writes_make_only_their_chunks() {
        let len = 5 * CHUNK_BYTES + 100;
        let mut s = Sparse::new(len);
        assert_eq!(s.touched_chunks(), 0);
        let (start, w) = s.window(CHUNK_BYTES + 8, 4).expect("one chunk");
        assert_eq!((start, w.len(), &w[8..12]), (CHUNK_BYTES, CHUNK_BYTES, &[0u8; 4][..]));
        // A write across a chunk boundary touches both chunks, and reads back whole.
        s.write(2 * CHUNK_BYTES - 2, &[1, 2, 3, 4]);
        assert_eq!(s.touched_chunks(), 2);
        let mut out = [9u8; 6];
        s.read(2 * CHUNK_BYTES - 3, &mut out);
        assert_eq!(out, [0, 1, 2, 3, 4, 0]);
        assert!(s.window(2 * CHUNK_BYTES - 2, 4).is_none(), "not within one chunk");
        // The short last chunk.
        let (start, w) = s.window_mut(len - 4, 4).expect("last chunk");
        assert_eq!((start, w.len()), (5 * CHUNK_BYTES, 100));
        w[96..].copy_from_slice(&[7; 4]);
        let mut last = [0u8; 4];
        s.read(len - 4, &mut last);
        assert_eq!(last, [7; 4]);
        assert!(s.window(len - 2, 4).is_none(), "past the end");
        assert_eq!(s.touched_chunks(), 3);
        let flat = s.to_flat().expect("host address space");
        assert_eq!((flat.len(), &flat[2 * CHUNK_BYTES - 2..2 * CHUNK_BYTES + 2], &flat[len - 4..]), (len, &[1u8, 2, 3, 4][..], &[7u8; 4][..]));
    }
}
