//! The host memory behind one allocation of the simulated address space: a flat byte slice
//! either way, so that an access costs the same (a pointer and a length), but a large one is
//! an anonymous mapping made with `MAP_NORESERVE`. The kernel backs such a mapping page by
//! page at the first write (a read of an untouched page sees the shared zero page), and
//! `MAP_NORESERVE` keeps the overcommit heuristic from refusing a mapping larger than the
//! host's memory: a program may `hipMalloc` 100 GiB of a 192 GB GPU on a 24 GB host and touch
//! a few pages of it, as on the real device. Small allocations (kernarg, AQL packets, code
//! object sections) stay ordinary heap memory.
//!
//! A backing may also be *shared* ([`Backing::share`]): several views of the same bytes, one
//! per simulated device whose address space maps them (another GPU's memory after peer access
//! is enabled, host memory every GPU reaches). The bytes live until the last view is dropped.

use std::ptr::NonNull;
use std::sync::Arc;

/// From this size up an allocation is its own mapping (below it, the C heap: `calloc` of a
/// large block maps it lazily too, but without `MAP_NORESERVE`).
pub const MAPPED_MIN_BYTES: usize = 1 << 20;

/// Host bytes per transparent huge page (x86-64 and most 64-bit hosts: a page table's 2 MiB
/// large page). Advice on ranges smaller than this does nothing.
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Ask the kernel to back `bytes` at `ptr` with transparent huge pages where it can (Linux
/// `MADV_HUGEPAGE`; the machines here run THP in `madvise` mode, so nothing gets huge pages
/// unasked). Why: a large array that is written all over, such as a device buffer a program
/// fills or the tags of a 256 MB memory-side cache whose hashed sets spread even a small
/// working set over every page, otherwise costs one page fault per 4 KiB, about a fifth of a
/// short timing run. Only the whole huge pages inside the range are advised, so memory next
/// to it is untouched; what is never written stays unbacked either way. A dense range costs
/// the same memory; a range written at a few scattered places costs up to 2 MiB per place,
/// so sparse memory ([`crate::sparse`]) is never advised. Advice the kernel refuses (no THP,
/// another OS) leaves small pages, with the same contents.
pub fn prefer_huge_pages<T>(data: &mut [T]) {
    let (start, len) = (data.as_mut_ptr() as usize, std::mem::size_of_val(data));
    let first = start.next_multiple_of(HUGE_PAGE_BYTES);
    let end = (start + len) / HUGE_PAGE_BYTES * HUGE_PAGE_BYTES;
    if end <= first {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on whole pages inside memory `data` owns; MADV_HUGEPAGE changes how the
    // kernel backs them, never their contents, and a refusal is only a return value.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

/// The largest allocation [`Backing::zeroed_dense`] advises, so at most this much host
/// memory more than small pages would take for an allocation written at scattered places;
/// the HIP runtime holds blocks from this size up sparsely (`hip/src/heap.rs` takes it from
/// here).
pub const DENSE_HUGE_MAX_BYTES: usize = 64 << 20;

/// `n` zeros in a vector whose whole huge pages are advised as [`prefer_huge_pages`] says:
/// the allocator maps a large zeroed block lazily, and the advice comes before any write.
pub fn zeroed_vec_huge<T: Clone + Default + Copy>(n: usize) -> Vec<T> {
    let mut v = vec![T::default(); n];
    prefer_huge_pages(&mut v);
    v
}

/// The host could not reserve address space for an allocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the host cannot map {bytes} bytes: {reason}")]
pub struct HostMemoryError {
    pub bytes: usize,
    pub reason: String,
}

/// The host has no memory left for `bytes` more bytes of simulated device memory that a
/// kernel or copy has just touched: the run ends as on a GPU memory fault (one report, exit
/// status 3), never with an abort.
pub fn host_exhausted(bytes: usize) -> ! {
    eprintln!("hipscope: device memory fault: the host has no memory left for {bytes} more bytes of simulated device memory; ending the run as a GPU memory fault would");
    std::process::exit(3)
}

/// A fresh private anonymous mapping of `len` bytes (`MAP_NORESERVE`: see the module doc).
fn map_anonymous(len: usize) -> Result<NonNull<u8>, HostMemoryError> {
    // SAFETY: a fresh private anonymous mapping at an address the kernel picks.
    let p = unsafe {
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE, -1, 0)
    };
    if p == libc::MAP_FAILED {
        return Err(HostMemoryError { bytes: len, reason: std::io::Error::last_os_error().to_string() });
    }
    NonNull::new(p.cast::<u8>()).ok_or_else(|| HostMemoryError { bytes: len, reason: "mmap returned null".into() })
}

/// Zero-initialised bytes owned by one allocation (or, shared, viewed by several).
pub struct Backing {
    ptr: NonNull<u8>,
    len: usize,
    own: Own,
}

/// Who releases the bytes.
enum Own {
    /// A boxed slice, freed on drop.
    Boxed,
    /// Made by `mmap`, unmapped on drop.
    Mapped,
    /// A view of bytes another backing owns, released with the last view.
    Shared(Arc<Backing>),
}

// SAFETY: `Backing` owns its bytes exclusively, like a `Box<[u8]>`. Views of shared bytes
// (`Backing::share`) are each held by one device's address space; their holders touch them
// one at a time, so no two `&mut [u8]` of the same bytes are alive together: the HIP runtime
// runs one device's copy at a time under its lock (a copy between two devices stages through
// a buffer of its own), and launches on several devices run together only through
// `node::turns`, where a device's thread touches memory only while it holds the turn and the
// turn passes under a mutex, so one thread's writes happen-before the next holder's reads.
unsafe impl Send for Backing {}
// SAFETY: shared references only read, as for `Box<[u8]>`.
unsafe impl Sync for Backing {}

impl Backing {
    /// `len` zero bytes: mapped lazily from [`MAPPED_MIN_BYTES`] up.
    pub fn zeroed(len: usize) -> Result<Backing, HostMemoryError> {
        if len < MAPPED_MIN_BYTES {
            return Ok(Backing::from_vec(vec![0; len]));
        }
        Ok(Backing { ptr: map_anonymous(len)?, len, own: Own::Mapped })
    }

    /// `len` zero bytes as [`Backing::zeroed`], backed by huge pages where the host has them
    /// ([`prefer_huge_pages`]) up to [`DENSE_HUGE_MAX_BYTES`]: for a flat allocation a program
    /// fills (a `hipMalloc` block below the sparse size). Larger ones keep small pages, so a
    /// program that writes a few places of a big buffer does not pay 2 MiB for each.
    pub fn zeroed_dense(len: usize) -> Result<Backing, HostMemoryError> {
        let mut b = Backing::zeroed(len)?;
        if b.is_mapped() && len <= DENSE_HUGE_MAX_BYTES {
            prefer_huge_pages(&mut b);
        }
        Ok(b)
    }

    /// `len` zero bytes as [`Backing::zeroed`], mapped from a huge-page boundary and advised
    /// as [`prefer_huge_pages`] says, so that a length of whole huge pages is all huge pages
    /// (a mapping the kernel places at a 4 KiB boundary holds one huge page fewer than it
    /// spans, none for a 2 MiB chunk). Shorter than a huge page: [`Backing::zeroed`].
    pub fn zeroed_huge(len: usize) -> Result<Backing, HostMemoryError> {
        if len < HUGE_PAGE_BYTES {
            return Backing::zeroed(len);
        }
        let keep = len.next_multiple_of(PAGE_BYTES);
        let span = keep + HUGE_PAGE_BYTES;
        let start = map_anonymous(span)?;
        let skip = (start.as_ptr() as usize).next_multiple_of(HUGE_PAGE_BYTES) - start.as_ptr() as usize;
        let tail = span - skip - keep;
        // SAFETY: `start..start + span` is a fresh private mapping of ours, untouched; `skip` and
        // `tail` are whole pages (the mapping's ends and a 2 MiB boundary are page-aligned), so
        // these calls unmap its two ends and leave exactly the `keep` bytes from the boundary.
        let ptr = unsafe {
            if skip > 0 {
                libc::munmap(start.as_ptr().cast(), skip);
            }
            if tail > 0 {
                libc::munmap(start.as_ptr().add(skip + keep).cast(), tail);
            }
            start.add(skip)
        };
        let mut b = Backing { ptr, len, own: Own::Mapped };
        prefer_huge_pages(&mut b);
        Ok(b)
    }

    /// Bytes already in a vector (kept on the heap, whatever their size).
    pub fn from_vec(bytes: Vec<u8>) -> Backing {
        let boxed: Box<[u8]> = bytes.into_boxed_slice();
        let len = boxed.len();
        // `Box::into_raw` is never null (a dangling, aligned pointer when empty).
        let ptr = NonNull::new(Box::into_raw(boxed).cast::<u8>()).unwrap_or(NonNull::dangling());
        Backing { ptr, len, own: Own::Boxed }
    }

    /// No bytes (a freed allocation).
    pub fn empty() -> Backing {
        Backing::from_vec(Vec::new())
    }

    /// Whether the bytes are a mapping of their own (large allocations).
    pub fn is_mapped(&self) -> bool {
        match &self.own {
            Own::Mapped => true,
            Own::Boxed => false,
            Own::Shared(owner) => owner.is_mapped(),
        }
    }

    /// Make these bytes shared and return another view of them: writes through either view
    /// are seen by the other (a device's memory that a peer device maps at the same address).
    /// A backing already shared hands out one more view.
    pub fn share(&mut self) -> Backing {
        if let Own::Shared(owner) = &self.own {
            return Backing { ptr: self.ptr, len: self.len, own: Own::Shared(owner.clone()) };
        }
        // Moving the owner moves only its pointer: the bytes stay where they are.
        let owner = Arc::new(std::mem::take(self));
        let (ptr, len) = (owner.ptr, owner.len);
        *self = Backing { ptr, len, own: Own::Shared(owner.clone()) };
        Backing { ptr, len, own: Own::Shared(owner) }
    }

    /// Whether the bytes are shared with another view ([`Backing::share`]).
    pub fn is_shared(&self) -> bool {
        matches!(self.own, Own::Shared(_))
    }
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        // SAFETY: `len` initialised bytes at `ptr`, owned by `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for Backing {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for Backing {
    fn drop(&mut self) {
        match self.own {
            // SAFETY: the mapping `zeroed` made, of `len` bytes, unmapped once.
            Own::Mapped => unsafe {
                libc::munmap(self.ptr.as_ptr().cast(), self.len);
            },
            // SAFETY: the boxed slice `from_vec` released, rebuilt once.
            Own::Boxed => drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.len)) }),
            // The owner releases the bytes when its last view goes.
            Own::Shared(_) => {}
        }
    }
}

impl Clone for Backing {
    /// A copy of the bytes, mapped lazily again when large (a clone of a mostly untouched
    /// mapping reads the zero page and writes only what is not zero). A shared view's clone
    /// is a private copy: a cloned device is a snapshot, not another view.
    fn clone(&self) -> Backing {
        let mut copy = Backing::zeroed(self.len).unwrap_or_else(|_| Backing::from_vec(vec![0; self.len]));
        for (dst, src) in copy.chunks_mut(PAGE_BYTES).zip(self.chunks(PAGE_BYTES)) {
            if src.iter().any(|&b| b != 0) {
                dst.copy_from_slice(src);
            }
        }
        copy
    }
}

/// Host page size for [`Backing::clone`]'s sparse copy.
const PAGE_BYTES: usize = 4096;

impl Default for Backing {
    fn default() -> Backing {
        Backing::empty()
    }
}

impl std::fmt::Debug for Backing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = match self.own {
            Own::Boxed => "",
            Own::Mapped => ", mapped",
            Own::Shared(_) => ", shared",
        };
        write!(f, "Backing({} bytes{how})", self.len)
    }
}

impl PartialEq for Backing {
    fn eq(&self, other: &Backing) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_and_large_backings_are_zeroed_slices() {
        let mut small = Backing::zeroed(100).expect("heap");
        assert!(!small.is_mapped() && small.len() == 100 && small.iter().all(|&b| b == 0));
        small[99] = 7;
        let mut large = Backing::zeroed(MAPPED_MIN_BYTES * 4).expect("mapping");
        assert!(large.is_mapped() && large.iter().step_by(4096).all(|&b| b == 0));
        large[MAPPED_MIN_BYTES * 3 + 5] = 9;
        let copy = large.clone();
        assert_eq!(copy[MAPPED_MIN_BYTES * 3 + 5], 9);
        assert!(copy == large && small.clone() == small);
        assert_eq!(Backing::from_vec(vec![1, 2, 3])[..], [1, 2, 3]);
        assert!(Backing::empty().is_empty());
    }

    /// The kernel's word on the mapping holding `addr` (its `THPeligible` line in smaps).
    #[cfg(target_os = "linux")]
    fn thp_eligible(addr: usize) -> Option<bool> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let mut inside = false;
        for line in smaps.lines() {
            let range = line.split_whitespace().next().and_then(|r| r.split_once('-'));
            if let Some((lo, hi)) = range.and_then(|(a, b)| Some((usize::from_str_radix(a, 16).ok()?, usize::from_str_radix(b, 16).ok()?))) {
                inside = (lo..hi).contains(&addr);
            } else if inside {
                if let Some(v) = line.strip_prefix("THPeligible:") {
                    return Some(v.trim() == "1");
                }
            }
        }
        None
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn dense_backings_and_huge_vectors_are_advised_and_sparse_ones_are_not() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        if thp.is_empty() || thp.contains("[never]") {
            println!("SKIPPED: this host has no transparent huge pages");
            return;
        }
        let mut dense = Backing::zeroed_dense(4 * HUGE_PAGE_BYTES).expect("mapping");
        let plain = Backing::zeroed(4 * HUGE_PAGE_BYTES).expect("mapping");
        let big = Backing::zeroed_dense(DENSE_HUGE_MAX_BYTES + HUGE_PAGE_BYTES).expect("mapping");
        let mut tags: Vec<u64> = zeroed_vec_huge(4 * HUGE_PAGE_BYTES / 8);
        // Advice changes no contents: zeros, then what is written.
        assert!(dense.iter().step_by(4096).all(|&b| b == 0) && tags.iter().step_by(512).all(|&t| t == 0));
        dense[3 * HUGE_PAGE_BYTES + 1] = 5;
        tags[HUGE_PAGE_BYTES / 8 + 1] = 6;
        assert_eq!((dense[3 * HUGE_PAGE_BYTES + 1], tags[HUGE_PAGE_BYTES / 8 + 1]), (5, 6));
        let mid = |p: *const u8| p as usize + 2 * HUGE_PAGE_BYTES;
        assert_eq!(thp_eligible(mid(dense.as_ptr())), Some(true), "a dense backing");
        assert_eq!(thp_eligible(mid(tags.as_ptr().cast())), Some(true), "a huge vector");
        if !thp.contains("[always]") {
            assert_eq!(thp_eligible(mid(plain.as_ptr())), Some(false), "a plain (sparse chunk) backing");
            assert_eq!(thp_eligible(mid(big.as_ptr())), Some(false), "a dense backing above the cap");
        }
    }

    /// A huge-page chunk starts at a huge-page boundary, is advised, holds zeros and what is
    /// written, and a length short of a huge page is an ordinary backing.
    #[test]
    #[cfg(target_os = "linux")]
    fn huge_chunks_start_at_a_huge_page_and_are_advised() {
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
        for len in [HUGE_PAGE_BYTES, 2 * HUGE_PAGE_BYTES + 100] {
            let mut b = Backing::zeroed_huge(len).expect("mapping");
            assert_eq!((b.len(), b.as_ptr() as usize % HUGE_PAGE_BYTES), (len, 0));
            assert!(b.iter().step_by(4096).all(|&x| x == 0) && b[len - 1] == 0);
            b[len - 1] = 7;
            b[0] = 9;
            assert_eq!((b[0], b[len - 1]), (9, 7));
            if !thp.is_empty() && !thp.contains("[never]") {
                assert_eq!(thp_eligible(b.as_ptr() as usize + 4096), Some(true), "{len} bytes");
            }
        }
        let small = Backing::zeroed_huge(HUGE_PAGE_BYTES - 4096).expect("mapping");
        assert_eq!(small.len(), HUGE_PAGE_BYTES - 4096);
    }

    #[test]
    fn shared_views_see_each_others_writes_and_outlive_the_first() {
        for len in [64, MAPPED_MIN_BYTES * 2] {
            let mut a = Backing::zeroed(len).expect("host memory");
            a[3] = 1;
            let mut b = a.share();
            assert!(a.is_shared() && b.is_shared() && b[3] == 1);
            b[len - 1] = 2;
            assert_eq!(a[len - 1], 2);
            let c = b.share();
            drop(a);
            drop(b);
            assert_eq!((c[3], c[len - 1]), (1, 2), "the bytes live as long as a view");
            let private = c.clone();
            assert!(!private.is_shared() && private == c);
        }
    }

    #[test]
    fn a_mapping_larger_than_the_host_costs_nothing_until_touched() {
        // 1 TiB: more than any test host has. MAP_NORESERVE makes the mapping; only the pages
        // written below become memory. (A host that limits address space, RLIMIT_AS, refuses
        // it with an error instead.)
        match Backing::zeroed(1 << 40) {
            Ok(mut huge) => {
                huge[0] = 1;
                huge[(1 << 40) - 1] = 2;
                assert_eq!((huge[0], huge[(1 << 40) - 1], huge[1 << 39]), (1, 2, 0));
            }
            Err(e) => assert!(e.to_string().contains("cannot map"), "{e}"),
        }
    }
}
