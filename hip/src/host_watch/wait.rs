//! Waiting inside a signal handler: a 32-bit word threads wait on with `futex(2)`
//! (async-signal-safe: an atomic and a raw system call, unlike a mutex or a condition
//! variable). A host thread's [`super::Hooks::on_access`] waits on one for its turn; the
//! simulator side stores and wakes.

use std::sync::atomic::{AtomicU32, Ordering};

#[derive(Debug, Default)]
pub struct Word(AtomicU32);

impl Word {
    pub const fn new(v: u32) -> Word {
        Word(AtomicU32::new(v))
    }

    pub fn load(&self) -> u32 {
        self.0.load(Ordering::Acquire)
    }

    /// Store `v` and wake every waiter.
    pub fn store(&self, v: u32) {
        self.0.store(v, Ordering::Release);
        self.wake();
    }

    /// Add `v`, wake every waiter, and give the value before.
    pub fn fetch_add(&self, v: u32) -> u32 {
        let old = self.0.fetch_add(v, Ordering::AcqRel);
        self.wake();
        old
    }

    /// Store `new` if the word holds `current` (waking every waiter); whether it did.
    pub fn compare_exchange(&self, current: u32, new: u32) -> bool {
        let done = self.0.compare_exchange(current, new, Ordering::AcqRel, Ordering::Acquire).is_ok();
        if done {
            self.wake();
        }
        done
    }

    /// Wait until the word no longer holds `v`, or `timeout_ns` of host time passed (or a
    /// signal came); gives what it holds then.
    pub fn wait_while_for(&self, v: u32, timeout_ns: u64) -> u32 {
        let t = libc::timespec { tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t, tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long };
        if self.load() == v {
            // SAFETY: FUTEX_WAIT on a live aligned u32 with a relative timeout.
            unsafe {
                libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, v, &t as *const libc::timespec);
            }
        }
        self.load()
    }

    /// Wait until the word no longer holds `v`; gives what it holds then.
    pub fn wait_while(&self, v: u32) -> u32 {
        loop {
            let now = self.load();
            if now != v {
                return now;
            }
            // SAFETY: FUTEX_WAIT on a live aligned u32; it returns at once if the word changed.
            unsafe {
                libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, v, std::ptr::null::<libc::timespec>());
            }
        }
    }

    /// Wait until `done` holds for the word's value; gives that value.
    pub fn wait_until(&self, done: impl Fn(u32) -> bool) -> u32 {
        loop {
            let now = self.load();
            if done(now) {
                return now;
            }
            self.wait_while(now);
        }
    }

    fn wake(&self) {
        // SAFETY: FUTEX_WAKE on a live aligned u32.
        unsafe {
            libc::syscall(libc::SYS_futex, self.0.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX);
        }
    }
}
