//! Watching the host's plain loads and stores to host-visible memory while a simulated kernel
//! runs, one access at a time, so that each can take its turn in simulated time.
//!
//! While the watch is armed ([`Watch::protect`]) the ranges are inaccessible (`mprotect`
//! `PROT_NONE`). A host thread's load or store there faults; the SIGSEGV handler calls
//! [`Hooks::on_access`] (where the host thread waits for its simulated turn), opens the page,
//! copies it, and sets the trap flag (EFLAGS.TF, bit 8: Intel SDM vol. 1 §3.4.3.3; AMD APM
//! vol. 2, the RFLAGS register) in the interrupted context, so that when the handler returns exactly the
//! faulting instruction runs and then raises a single-step debug trap (SIGTRAP). The SIGTRAP
//! handler compares the page with its copy (a changed byte means the access wrote; no byte
//! changed means it read, or wrote what was there), closes the page again, clears the flag and
//! calls [`Hooks::after_access`] with the bytes written. No instruction is decoded.
//!
//! An instruction that touches several watched pages (an unaligned access across a page
//! boundary, a string move from one watched page to another) faults once per page before it
//! completes; each fault opens one more page and the access is reported once. A repeated
//! string instruction (`rep movsb`) runs one iteration per single step and traps with its
//! instruction pointer still on it (the trace-flag rules of the NASM x86 instruction reference,
//! appendix A.2.5.3; a REP string instruction is resumable between iterations, Intel SDM vol.
//! 2, REP), so each iteration that touches watched memory is one access.
//!
//! Handlers are async-signal-safe: atomics, raw system calls and fixed tables (ranges in
//! `ranges.rs`, per-thread state in `threads.rs` keyed by the kernel's thread id); the hooks must
//! be too (wait with [`wait::Word`], never with a lock). A fault outside the ranges goes to the
//! handler that was installed before ours, or kills the process as it would have without us.
//!
//! What it does not cover: a program that installs its own SIGSEGV or SIGTRAP handler after
//! ours replaces it; the kernel's own accesses (a `read(2)` into a watched buffer fails with
//! `EFAULT` instead of faulting); while one thread's instruction runs with its page open,
//! another thread's access to the same page is not seen. Linux on x86-64 only; elsewhere
//! [`Watch::install`] answers [`Error::Unsupported`].
//!
//! # How the host becomes a participant of the node's turns
//!
//! Joined in `crate::host_agent` (its documentation has the rule and why it is deterministic):
//! - What is protected when: every host-visible allocation (`hipHostMalloc`,
//!   `hipMallocManaged`) from a launch until the flush that runs it has ended; the runtime's
//!   own copies between host mappings and the simulator meanwhile go through [`Watch::peek`]
//!   and [`Watch::poke`] (`/proc/self/mem`: protected pages read and written without opening
//!   them to other host threads).
//! - The host threads are one participant of the flush's turns, its time the host's simulated
//!   time: the flush's start, then advanced only by accesses. One access is one turn step:
//!   [`Hooks::on_access`] posts it and waits on a [`wait::Word`] until the participant, holding
//!   the turn, has written the simulator's current bytes of the page into the host page
//!   ([`Watch::poke`]); [`Hooks::after_access`] hands the written spans over, which enter the
//!   simulator's memory at that time, and the participant advances by the node config's host
//!   `memory_latency_ns` (host DRAM; on an APU its shared HBM).
//! - What breaks: a program's own SIGSEGV/SIGTRAP handlers installed after ours; system calls
//!   on watched buffers while kernels run (`EFAULT`); a second thread's access to a page during
//!   another thread's single step (unseen; serialising host turns keeps it rare, not
//!   impossible); more than [`MAX_RANGES`] allocations (refused); targets other than Linux
//!   x86-64. (More than [`MAX_THREADS`] threads mid-access at once only wait for a slot.) Each
//!   access costs tens of microseconds of host time (README, *Nodes*), so a spin loop of
//!   millions of host loads is slow, not wrong.

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod handlers;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod proc_mem;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod ranges;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod threads;
#[cfg(target_os = "linux")]
pub mod wait;

use std::ops::Range;

/// The granule of protection: x86-64's base page.
pub const PAGE_BYTES: usize = 4096;

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub use ranges::MAX_RANGES;
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
pub use threads::MAX_THREADS;

/// Why the watch could not do what was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Not Linux on x86-64.
    Unsupported,
    /// A range not page-aligned, empty, or more ranges than the table holds.
    BadRange(String),
    /// A system call failed (what, errno).
    System(&'static str, i32),
    /// Hooks changed while the watch is armed.
    Armed,
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Unsupported => write!(f, "watching host accesses needs Linux on x86-64"),
            Error::BadRange(why) => write!(f, "cannot watch the range: {why}"),
            Error::System(call, errno) => write!(f, "{call} failed (errno {errno})"),
            Error::Armed => write!(f, "the hooks cannot change while ranges are protected"),
        }
    }
}

/// One byte range an access changed: its address and where its new bytes sit in
/// [`Access::written`]'s buffer.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Change {
    pub address: usize,
    pub len: usize,
    pub(crate) offset: usize,
}

/// One completed access of a host thread to watched memory.
#[derive(Debug)]
pub struct Access<'a> {
    /// The kernel's id of the thread (`gettid`).
    pub thread: i32,
    /// The address of its first fault (`si_addr`): inside the first watched page the
    /// instruction touched.
    pub address: usize,
    /// The watched pages the instruction touched, in fault order.
    pub pages: &'a [usize],
    pub(crate) changes: &'a [Change],
    pub(crate) bytes: &'a [u8],
}

impl Access<'_> {
    /// Whether a byte changed: the access wrote (a write of the bytes already there looks like
    /// a read).
    pub fn is_write(&self) -> bool {
        !self.changes.is_empty()
    }

    /// Per page touched, the span from its first to its last changed byte and the bytes now
    /// there (unchanged bytes inside the span included).
    pub fn written(&self) -> impl Iterator<Item = (usize, &[u8])> + '_ {
        self.changes.iter().map(|c| (c.address, &self.bytes[c.offset..c.offset + c.len]))
    }
}

/// What the simulator does around each host access. Both run inside a signal handler on the
/// accessing thread: async-signal-safe code only (atomics, [`wait::Word`], raw system calls;
/// no allocation, no lock, no access to watched memory).
pub trait Hooks: Send + Sync {
    /// Before the access runs: the thread and the address it faulted on. May block until the
    /// thread's turn.
    fn on_access(&self, thread: i32, address: usize);
    /// After the access ran and its pages are closed again.
    fn after_access(&self, access: &Access<'_>);
}

/// Hooks that do nothing: the watch's default.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn on_access(&self, _: i32, _: usize) {}
    fn after_access(&self, _: &Access<'_>) {}
}

/// The process's watch: its signal handlers are installed once, by the first
/// [`Watch::install`]; every handle works on the same ranges.
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    _private: (),
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
impl Watch {
    /// Install the SIGSEGV and SIGTRAP handlers (once per process; later calls only give a
    /// handle). The handlers found there are kept, to pass them what is not ours.
    pub fn install() -> Result<Watch, Error> {
        handlers::install()?;
        Ok(Watch { _private: () })
    }

    /// Use `hooks` from the next access on. Refused while ranges are protected.
    pub fn set_hooks(&self, hooks: &'static dyn Hooks) -> Result<(), Error> {
        if ranges::armed() {
            return Err(Error::Armed);
        }
        handlers::set_hooks(hooks);
        Ok(())
    }

    /// Protect `ranges` (page-aligned, read-write memory), replacing any ranges protected
    /// before: from now on every host access there is reported.
    pub fn protect(&self, ranges: &[Range<usize>]) -> Result<(), Error> {
        ranges::protect(ranges)
    }

    /// Make the ranges read-write again and stop reporting.
    pub fn unprotect(&self) -> Result<(), Error> {
        ranges::unprotect()
    }

    /// Whether ranges are protected.
    pub fn armed(&self) -> bool {
        ranges::armed()
    }

    /// Read watched memory without opening it (no access is reported, and no other thread sees
    /// the page open): through `/proc/self/mem`. Async-signal-safe after the first call.
    pub fn peek(&self, address: usize, buf: &mut [u8]) -> Result<(), Error> {
        proc_mem::read(address, buf)
    }

    /// Write watched memory without opening it, as [`Watch::peek`] reads it: how a hook puts
    /// the simulator's bytes into a page before the host's load runs.
    pub fn poke(&self, address: usize, bytes: &[u8]) -> Result<(), Error> {
        proc_mem::write(address, bytes)
    }

    /// Run `f` (the runtime's own copies to and from host memory) with the ranges open, then
    /// protect them again if they were. Other host threads' accesses meanwhile go unseen.
    pub fn unprotected<R>(&self, f: impl FnOnce() -> R) -> Result<R, Error> {
        let saved = ranges::saved();
        if saved.is_empty() {
            return Ok(f());
        }
        ranges::unprotect()?;
        let r = f();
        ranges::protect(&saved)?;
        Ok(r)
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
impl Watch {
    /// Not supported on this target.
    pub fn install() -> Result<Watch, Error> {
        Err(Error::Unsupported)
    }
    pub fn set_hooks(&self, _: &'static dyn Hooks) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    pub fn protect(&self, _: &[Range<usize>]) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    pub fn unprotect(&self) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    pub fn armed(&self) -> bool {
        false
    }
    pub fn unprotected<R>(&self, f: impl FnOnce() -> R) -> Result<R, Error> {
        Ok(f())
    }
    pub fn peek(&self, _: usize, _: &mut [u8]) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
    pub fn poke(&self, _: usize, _: &[u8]) -> Result<(), Error> {
        Err(Error::Unsupported)
    }
}
