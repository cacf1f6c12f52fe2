//! The protected ranges: a fixed table the signal handlers read without locking, and the
//! `mprotect` calls that open and close them.
//!
//! Protection changes (arming, disarming, closing a page after an access) happen under one
//! spin lock, so a page is never closed again after the watch was disarmed. The table keeps
//! its last ranges after disarming: a thread that faulted just before is still recognised
//! (its page is open by then, so its access simply runs).

use super::{Error, PAGE_BYTES};
use std::cell::UnsafeCell;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Ranges one arming can protect (the program's host-visible allocations).
pub const MAX_RANGES: usize = 1024;

struct Table {
    /// Sorted, disjoint `[start, end)` pairs; written only under [`LOCK`] while
    /// [`ARMED`] is false.
    ranges: UnsafeCell<[(usize, usize); MAX_RANGES]>,
}

// SAFETY: `ranges` is written only under LOCK with the watch disarmed, with COUNT published
// after (Release) and read through it (Acquire); a handler reading a stale table only
// misjudges a fault racing with re-arming, as documented on `protect`.
unsafe impl Sync for Table {}

static TABLE: Table = Table { ranges: UnsafeCell::new([(0, 0); MAX_RANGES]) };
static COUNT: AtomicUsize = AtomicUsize::new(0);
static ARMED: AtomicBool = AtomicBool::new(false);
static LOCK: AtomicBool = AtomicBool::new(false);

/// Run `f` holding the protection lock. Async-signal-safe: holders never fault on watched
/// memory while holding it, so a handler never waits for its own thread.
pub fn locked<R>(f: impl FnOnce() -> R) -> R {
    while LOCK.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
    }
    let r = f();
    LOCK.store(false, Ordering::Release);
    r
}

pub fn armed() -> bool {
    ARMED.load(Ordering::Acquire)
}

/// The table's ranges.
fn table() -> &'static [(usize, usize)] {
    let n = COUNT.load(Ordering::Acquire);
    // SAFETY: see `Table`; the first `n` entries were written before `n` was published.
    unsafe { &(&*TABLE.ranges.get())[..n] }
}

/// Whether `address` lies in a range of the table (armed or not).
pub fn contains(address: usize) -> bool {
    let t = table();
    let i = t.partition_point(|&(start, _)| start <= address);
    i > 0 && address < t[i - 1].1
}

/// The ranges protected now (empty when disarmed).
pub fn saved() -> Vec<Range<usize>> {
    locked(|| if armed() { table().iter().map(|&(s, e)| s..e).collect() } else { Vec::new() })
}

fn mprotect(start: usize, len: usize, prot: i32) -> Result<(), Error> {
    // SAFETY: changes the protection of pages the caller named; an unmapped range fails with
    // ENOMEM and changes nothing.
    let r = unsafe { libc::mprotect(start as *mut libc::c_void, len, prot) };
    if r != 0 {
        // SAFETY: errno of this thread.
        return Err(Error::System("mprotect", unsafe { *libc::__errno_location() }));
    }
    Ok(())
}

const READ_WRITE: i32 = libc::PROT_READ | libc::PROT_WRITE;

/// Check, sort and merge the ranges.
fn normalise(ranges: &[Range<usize>]) -> Result<Vec<(usize, usize)>, Error> {
    let mut v = Vec::with_capacity(ranges.len());
    for r in ranges {
        if r.start >= r.end || r.start % PAGE_BYTES != 0 || r.end % PAGE_BYTES != 0 {
            return Err(Error::BadRange(format!("{:#x}..{:#x} is empty or not page-aligned", r.start, r.end)));
        }
        v.push((r.start, r.end));
    }
    v.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(v.len());
    for (s, e) in v {
        match merged.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => merged.push((s, e)),
        }
    }
    if merged.len() > MAX_RANGES {
        return Err(Error::BadRange(format!("{} ranges, at most {MAX_RANGES}", merged.len())));
    }
    Ok(merged)
}

/// Protect `ranges` in place of the ranges protected before. A fault on an old range that
/// races with this call may be taken for a fault outside the watch.
pub fn protect(ranges: &[Range<usize>]) -> Result<(), Error> {
    let merged = normalise(ranges)?;
    locked(|| {
        disarm()?;
        COUNT.store(0, Ordering::Release);
        // SAFETY: under LOCK and disarmed: no other writer; readers see COUNT = 0 meanwhile.
        let slots = unsafe { &mut *TABLE.ranges.get() };
        slots[..merged.len()].copy_from_slice(&merged);
        COUNT.store(merged.len(), Ordering::Release);
        for (i, &(s, e)) in merged.iter().enumerate() {
            if let Err(err) = mprotect(s, e - s, libc::PROT_NONE) {
                for &(s, e) in &merged[..i] {
                    let _ = mprotect(s, e - s, READ_WRITE);
                }
                return Err(err);
            }
        }
        ARMED.store(true, Ordering::Release);
        Ok(())
    })
}

/// Make every range read-write again; the table stays (see the module comment).
pub fn unprotect() -> Result<(), Error> {
    locked(disarm)
}

/// [`unprotect`] with the lock held.
fn disarm() -> Result<(), Error> {
    if !ARMED.swap(false, Ordering::AcqRel) {
        return Ok(());
    }
    let mut outcome = Ok(());
    for &(s, e) in table() {
        if let Err(err) = mprotect(s, e - s, READ_WRITE) {
            outcome = Err(err);
        }
    }
    outcome
}

/// Open one watched page for an access (from a handler).
pub fn open_page(page: usize) {
    // A failure leaves the page closed: the instruction faults again and the handler retries.
    let _ = mprotect(page, PAGE_BYTES, READ_WRITE);
}

/// Close a page after an access, if the watch is still armed and the page still watched.
pub fn close_page(page: usize) {
    locked(|| {
        if armed() && contains(page) {
            let _ = mprotect(page, PAGE_BYTES, libc::PROT_NONE);
        }
    });
}
