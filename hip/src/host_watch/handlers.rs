//! The SIGSEGV and SIGTRAP handlers: a fault on a watched page opens it and single-steps the
//! instruction; the trap after it finds what changed and closes the page.

use super::threads::{self, Step, MAX_PAGES};
use super::{ranges, Access, Change, Error, Hooks, NoHooks, PAGE_BYTES};
use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::OnceLock;

/// EFLAGS.TF: the processor raises a debug trap after the next instruction (Intel SDM vol. 1
/// §3.4.3.3; AMD APM vol. 2, the RFLAGS register).
const TRAP_FLAG: i64 = 1 << 8;

/// A handler found installed before ours, passed what is not ours.
struct Previous(UnsafeCell<libc::sigaction>);

// SAFETY: written once, by `install` before our handler can run; read only by the handlers.
unsafe impl Sync for Previous {}

// SAFETY: an all-zero sigaction is a valid value (SIG_DFL, no flags, empty mask).
static PREV_SEGV: Previous = Previous(UnsafeCell::new(unsafe { std::mem::zeroed() }));
// SAFETY: as above.
static PREV_TRAP: Previous = Previous(UnsafeCell::new(unsafe { std::mem::zeroed() }));

/// The hooks in use (null: none).
static HOOKS: AtomicPtr<&'static dyn Hooks> = AtomicPtr::new(std::ptr::null_mut());

pub fn set_hooks(hooks: &'static dyn Hooks) {
    // Leaked: a handler may still be reading the old pointer; hooks change rarely.
    HOOKS.store(Box::into_raw(Box::new(hooks)), Ordering::Release);
}

fn hooks() -> &'static dyn Hooks {
    let p = HOOKS.load(Ordering::Acquire);
    if p.is_null() {
        &NoHooks
    } else {
        // SAFETY: set from a leaked box, never freed.
        unsafe { *p }
    }
}

/// Install both handlers, once per process.
pub fn install() -> Result<(), Error> {
    static DONE: OnceLock<Result<(), Error>> = OnceLock::new();
    DONE.get_or_init(|| {
        install_one(libc::SIGSEGV, on_segv, &PREV_SEGV)?;
        install_one(libc::SIGTRAP, on_trap, &PREV_TRAP)
    })
    .clone()
}

type Handler = extern "C" fn(i32, *mut libc::siginfo_t, *mut libc::c_void);

fn install_one(sig: i32, handler: Handler, prev: &'static Previous) -> Result<(), Error> {
    // SAFETY: zeroed sigaction is valid; the calls get valid pointers; `prev` is written
    // before our handler is installed, so a handler never reads it half-written.
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = handler as usize;
        // SA_ONSTACK: a program running on an alternate signal stack keeps it.
        act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(sig, std::ptr::null(), prev.0.get()) != 0 {
            return Err(Error::System("sigaction", *libc::__errno_location()));
        }
        if libc::sigaction(sig, &act, std::ptr::null_mut()) != 0 {
            return Err(Error::System("sigaction", *libc::__errno_location()));
        }
    }
    Ok(())
}

/// Pass a signal that is not ours to the handler that was there before, or, if that was the
/// default (or ignoring, which the kernel does not honour for a fault), take the default
/// action: reset it and raise the signal again, delivered when this handler returns.
fn chain(prev: &Previous, sig: i32, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: `prev` was written by `install` before this handler could run.
    let act = unsafe { &*prev.0.get() };
    let h = act.sa_sigaction;
    if h == libc::SIG_DFL || h == libc::SIG_IGN {
        // SAFETY: resetting to the default and raising are async-signal-safe calls.
        unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
            libc::raise(sig);
        }
    } else if act.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed as a three-argument handler.
        let f: Handler = unsafe { std::mem::transmute::<usize, Handler>(h) };
        f(sig, info, ctx);
    } else {
        // SAFETY: the previous handler was installed as a one-argument handler.
        let f: extern "C" fn(i32) = unsafe { std::mem::transmute::<usize, extern "C" fn(i32)>(h) };
        f(sig);
    }
}

/// The interrupted context's EFLAGS.
fn eflags(ctx: *mut libc::c_void) -> &'static mut i64 {
    let uc = ctx as *mut libc::ucontext_t;
    // SAFETY: the kernel passes the interrupted thread's ucontext to an SA_SIGINFO handler.
    unsafe { &mut (*uc).uc_mcontext.gregs[libc::REG_EFL as usize] }
}

fn errno() -> &'static mut i32 {
    // SAFETY: this thread's errno.
    unsafe { &mut *libc::__errno_location() }
}

extern "C" fn on_segv(sig: i32, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let saved = *errno();
    // SAFETY: the kernel's siginfo for SIGSEGV carries the fault address.
    let address = unsafe { (*info).si_addr() } as usize;
    if !ranges::contains(address) {
        chain(&PREV_SEGV, sig, info, ctx);
        *errno() = saved;
        return;
    }
    let tid = threads::gettid();
    let slot = match threads::find(tid) {
        // The instruction already opened a page and touches one more.
        Some(i) => i,
        None => {
            hooks().on_access(tid, address);
            let i = threads::claim(tid);
            // SAFETY: this thread holds slot i.
            let step = unsafe { threads::step(i) };
            step.address = address;
            step.npages = 0;
            step.nchanges = 0;
            step.had_trap_flag = *eflags(ctx) & TRAP_FLAG != 0;
            i
        }
    };
    // SAFETY: this thread holds the slot.
    open(unsafe { threads::step(slot) }, address & !(PAGE_BYTES - 1));
    *eflags(ctx) |= TRAP_FLAG;
    *errno() = saved;
}

/// Open `page` for the instruction, keeping a copy of it.
fn open(step: &mut Step, page: usize) {
    if step.pages[..step.npages].contains(&page) {
        // Closed again by another thread's access meanwhile.
        ranges::open_page(page);
        return;
    }
    if step.npages == MAX_PAGES {
        let msg = b"hipscope: one host instruction touched more watched pages than the watch tracks\n";
        // SAFETY: write and abort are async-signal-safe.
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::abort();
        }
    }
    ranges::open_page(page);
    let k = step.npages;
    // SAFETY: the page is mapped and now readable; the copy is this thread's.
    unsafe { libc::memcpy(step.copy[k * PAGE_BYTES..].as_mut_ptr().cast(), page as *const libc::c_void, PAGE_BYTES) };
    step.pages[k] = page;
    step.npages += 1;
}

extern "C" fn on_trap(sig: i32, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    let saved = *errno();
    let tid = threads::gettid();
    let Some(i) = threads::find(tid) else {
        chain(&PREV_TRAP, sig, info, ctx);
        *errno() = saved;
        return;
    };
    // SAFETY: this thread holds slot i.
    let step = unsafe { threads::step(i) };
    if !step.had_trap_flag {
        *eflags(ctx) &= !TRAP_FLAG;
    }
    for k in 0..step.npages {
        diff(step, k);
    }
    for &page in &step.pages[..step.npages] {
        ranges::close_page(page);
    }
    let access = Access { thread: tid, address: step.address, pages: &step.pages[..step.npages], changes: &step.changes[..step.nchanges], bytes: &step.copy };
    hooks().after_access(&access);
    threads::release(i);
    *errno() = saved;
}

/// Compare open page `k` with its copy; record the span of changed bytes and keep the new
/// bytes of that span in the copy.
fn diff(step: &mut Step, k: usize) {
    let page = step.pages[k];
    let copy = &mut step.copy[k * PAGE_BYTES..(k + 1) * PAGE_BYTES];
    // Volatile: another thread may be writing the page.
    // SAFETY: the page is mapped and still open.
    let live = |j: usize| unsafe { std::ptr::read_volatile((page + j) as *const u8) };
    let word = |j: usize| unsafe { std::ptr::read_volatile((page + j) as *const u64) };
    let old = |c: &[u8], j: usize| u64::from_ne_bytes(c[j..j + 8].try_into().unwrap_or([0; 8]));
    let Some(first_word) = (0..PAGE_BYTES).step_by(8).find(|&j| word(j) != old(copy, j)) else { return };
    let last_word = (0..PAGE_BYTES).step_by(8).rev().find(|&j| word(j) != old(copy, j)).unwrap_or(first_word);
    let first = (first_word..first_word + 8).find(|&j| live(j) != copy[j]).unwrap_or(first_word);
    let last = (last_word..last_word + 8).rev().find(|&j| live(j) != copy[j]).unwrap_or(last_word + 7);
    for (j, byte) in copy.iter_mut().enumerate().take(last + 1).skip(first) {
        *byte = live(j);
    }
    step.changes[step.nchanges] = Change { address: page + first, len: last + 1 - first, offset: k * PAGE_BYTES + first };
    step.nchanges += 1;
}
