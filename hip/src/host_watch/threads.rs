//! Per-thread state of an access in flight, in a fixed table keyed by the kernel's thread id
//! (signal handlers cannot allocate, and thread-locals are not async-signal-safe).
//!
//! A thread holds a slot from its first fault of an instruction to the single-step trap after
//! it, so the table bounds the threads *in the middle of* an access at once, not the threads
//! of the program.

use super::{Change, PAGE_BYTES};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicI32, Ordering};

/// Threads in the middle of an access at once.
pub const MAX_THREADS: usize = 64;
/// Watched pages one instruction may touch: an unaligned access across a page boundary is two,
/// a string move from one watched buffer to another with both crossing a boundary four.
pub const MAX_PAGES: usize = 4;

/// The state of one access in flight.
pub struct Step {
    /// The first fault's address.
    pub address: usize,
    /// Pages opened for the instruction.
    pub pages: [usize; MAX_PAGES],
    pub npages: usize,
    /// Whether the trap flag was already set when the access faulted (a debugger stepping):
    /// then it stays set.
    pub had_trap_flag: bool,
    /// Each open page as it was before the instruction; after it, the changed spans hold the
    /// new bytes.
    pub copy: [u8; PAGE_BYTES * MAX_PAGES],
    pub changes: [Change; MAX_PAGES],
    pub nchanges: usize,
}

struct Slot {
    /// Owner's thread id; 0 when free.
    tid: AtomicI32,
    step: UnsafeCell<Step>,
}

struct Slots([Slot; MAX_THREADS]);

// SAFETY: a slot's `step` is touched only by the thread whose id its `tid` holds (claimed by
// compare-exchange, released with Release ordering).
unsafe impl Sync for Slots {}

const EMPTY: Step = Step {
    address: 0,
    pages: [0; MAX_PAGES],
    npages: 0,
    had_trap_flag: false,
    copy: [0; PAGE_BYTES * MAX_PAGES],
    changes: [Change { address: 0, len: 0, offset: 0 }; MAX_PAGES],
    nchanges: 0,
};

static SLOTS: Slots = Slots([const { Slot { tid: AtomicI32::new(0), step: UnsafeCell::new(EMPTY) } }; MAX_THREADS]);

/// The calling thread's kernel id.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

/// The slot `tid` holds, if any.
pub fn find(tid: i32) -> Option<usize> {
    SLOTS.0.iter().position(|s| s.tid.load(Ordering::Acquire) == tid)
}

/// Claim a free slot for `tid`, waiting for one if all are held (each is held for one
/// instruction's time).
pub fn claim(tid: i32) -> usize {
    loop {
        for (i, s) in SLOTS.0.iter().enumerate() {
            if s.tid.compare_exchange(0, tid, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                return i;
            }
        }
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
    }
}

/// The step of slot `i`.
///
/// # Safety
/// The calling thread holds slot `i` and has no other reference to its step.
#[allow(clippy::mut_from_ref)]
pub unsafe fn step(i: usize) -> &'static mut Step {
    // SAFETY: the caller's contract: the slot's owner is the only one touching it.
    unsafe { &mut *SLOTS.0[i].step.get() }
}

/// Give slot `i` back.
pub fn release(i: usize) {
    SLOTS.0[i].tid.store(0, Ordering::Release);
}
