//! The hand-shake between a host thread stopped on its access to watched memory (inside the
//! watch's signal handler, so async-signal-safe: atomics and [`Word`]s only) and the host's
//! participant in the node's turns ([`super::agent`]), which serves one access at a time.
//!
//! A request moves through [`REQ`]: the thread that owns the channel ([`OWNER`], one thread
//! at a time) posts its address (`POSTED`); the participant, holding the turn, writes the
//! simulator's bytes into the page and grants it (`GRANTED`); the access runs; the thread
//! leaves the bytes it wrote in [`WRITTEN`] (`DONE`); the participant gives them to the
//! simulator and closes the request (`IDLE`). When no flush will serve a request any more
//! (the kernels ended, [`release`]) it is passed (`PASS`): the access runs on the host page,
//! which by then holds what the kernels left.

use crate::host_watch::wait::Word;
use crate::host_watch::{Access, Hooks, PAGE_BYTES};
use std::cell::UnsafeCell;
use std::sync::atomic::{fence, AtomicBool, AtomicI32, AtomicU32, AtomicUsize, Ordering};

pub const IDLE: u32 = 0;
pub const POSTED: u32 = 1;
pub const GRANTED: u32 = 2;
pub const DONE: u32 = 3;
pub const PASS: u32 = 4;

/// The request's state.
pub static REQ: Word = Word::new(IDLE);
/// The thread id owning the channel (0: free).
static OWNER: Word = Word::new(0);
/// The posted access's fault address.
pub static ADDRESS: AtomicUsize = AtomicUsize::new(0);
/// Host participation is on: launches are queued with the watch armed, so an access waits
/// for its turn.
pub static ON: AtomicBool = AtomicBool::new(false);
/// A flush's host participant is running (else an access asks the flusher for a flush).
pub static LIVE: AtomicBool = AtomicBool::new(false);
/// Bumped to ask the background flusher for a flush ([`super::flusher`]).
pub static FLUSH_WANTED: Word = Word::new(0);
/// Threads between their fault and the end of their access (waiting ones included): each
/// may still touch watched memory, whatever state the kernel shows for it.
pub static IN_ACCESS: AtomicU32 = AtomicU32::new(0);

/// Most watched pages one instruction touches (the watch's own bound).
const MAX_PAGES: usize = 4;

/// The spans the granted access wrote: filled by the accessing thread between `GRANTED` and
/// `DONE`, read by the participant between `DONE` and `IDLE`.
pub struct Written {
    bytes: UnsafeCell<[u8; PAGE_BYTES * MAX_PAGES]>,
    spans: UnsafeCell<[(usize, usize, usize); MAX_PAGES]>,
    count: AtomicUsize,
}

// SAFETY: written only by the thread holding a granted request, read only by the participant
// after `DONE` (Release/Acquire through REQ): never both at once.
unsafe impl Sync for Written {}

pub static WRITTEN: Written =
    Written { bytes: UnsafeCell::new([0; PAGE_BYTES * MAX_PAGES]), spans: UnsafeCell::new([(0, 0, 0); MAX_PAGES]), count: AtomicUsize::new(0) };

impl Written {
    /// Each span written, (address, bytes).
    ///
    /// # Safety
    /// The caller is the participant and the request is `DONE`.
    pub unsafe fn spans(&self) -> impl Iterator<Item = (usize, &[u8])> {
        let n = self.count.load(Ordering::Acquire);
        // SAFETY: the caller's contract: the writer is done until the request is closed.
        let (spans, bytes) = unsafe { (&*self.spans.get(), &*self.bytes.get()) };
        spans[..n].iter().map(move |&(address, len, offset)| (address, &bytes[offset..offset + len]))
    }

    /// Keep what `access` wrote (the accessing thread, its request granted).
    fn keep(&self, access: &Access<'_>) {
        // SAFETY: this thread holds the granted request; the participant waits for `DONE`.
        let (spans, bytes) = unsafe { (&mut *self.spans.get(), &mut *self.bytes.get()) };
        let mut n = 0;
        let mut at = 0;
        for (address, new) in access.written().take(MAX_PAGES) {
            bytes[at..at + new.len()].copy_from_slice(new);
            spans[n] = (address, new.len(), at);
            (n, at) = (n + 1, at + new.len());
        }
        self.count.store(n, Ordering::Release);
    }
}

/// Threads inside a HIP call: the runtime's own accesses are never turns (the runtime lock
/// is theirs, so a flush could not start), and such a thread is not a host thread that may
/// still access watched memory.
const INSIDE_SLOTS: usize = 64;
static INSIDE: [AtomicI32; INSIDE_SLOTS] = [const { AtomicI32::new(0) }; INSIDE_SLOTS];

/// The calling thread's kernel id.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

/// Whether thread `tid` is inside a HIP call.
pub fn inside(tid: i32) -> bool {
    INSIDE.iter().any(|s| s.load(Ordering::Acquire) == tid)
}

/// The calling thread is inside a HIP call until this is dropped. With every slot taken (more
/// than 64 threads in calls at once) the thread goes unmarked: it then counts as a host thread
/// that may still access watched memory, which only costs waiting.
pub struct Inside(Option<usize>);

impl Inside {
    pub fn enter() -> Inside {
        let tid = gettid();
        Inside(INSIDE.iter().position(|s| s.compare_exchange(0, tid, Ordering::AcqRel, Ordering::Relaxed).is_ok()))
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        if let Some(i) = self.0 {
            INSIDE[i].store(0, Ordering::Release);
        }
    }
}

/// The hooks: each access of a host thread outside HIP calls waits for its turn.
pub struct TurnHooks;

impl Hooks for TurnHooks {
    fn on_access(&self, thread: i32, address: usize) {
        IN_ACCESS.fetch_add(1, Ordering::AcqRel);
        if !ON.load(Ordering::Acquire) || inside(thread) {
            return;
        }
        let me = thread as u32;
        loop {
            let owner = OWNER.load();
            if owner == 0 && OWNER.compare_exchange(0, me) {
                break;
            }
            if owner != 0 {
                OWNER.wait_while(owner);
            }
        }
        ADDRESS.store(address, Ordering::Release);
        REQ.store(POSTED);
        // Pairs with the fence in `release`: either this thread sees participation ended, or
        // the release sees the posted request.
        fence(Ordering::SeqCst);
        if !LIVE.load(Ordering::SeqCst) {
            FLUSH_WANTED.fetch_add(1);
        }
        if !ON.load(Ordering::SeqCst) {
            REQ.compare_exchange(POSTED, PASS);
        }
        if REQ.wait_until(|v| v == GRANTED || v == PASS) == PASS {
            REQ.compare_exchange(PASS, IDLE);
            OWNER.store(0);
        }
    }

    fn after_access(&self, access: &Access<'_>) {
        if OWNER.load() == access.thread as u32 && REQ.load() == GRANTED {
            WRITTEN.keep(access);
            REQ.store(DONE);
            REQ.wait_while(DONE);
            OWNER.store(0);
        }
        IN_ACCESS.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Participation ended (the watch disarmed, the host pages hold the kernels' results): a
/// request still waiting is passed, and later accesses run at once.
pub fn release() {
    ON.store(false, Ordering::SeqCst);
    fence(Ordering::SeqCst);
    REQ.compare_exchange(POSTED, PASS);
}
