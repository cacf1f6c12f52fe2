//! The host watch (`amdhip64::host_watch`): every load and store a host thread makes to a
//! protected range is reported once, with its address and the bytes it wrote, and runs with
//! the right values; accesses elsewhere still crash; a simulated side driven only from the
//! hooks hands a flag back and forth with a spinning host thread in a fixed number of accesses.
//!
//! Expected counts come from the x86-64 instructions each test issues (one per access, a
//! `rep movsb` one per iteration: under the trace flag a REP string instruction runs one
//! iteration per step, NASM x86 instruction reference, appendix A.2.5.3) and from the ping-pong protocol,
//! never from a run's output.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

use amdhip64::host_watch::wait::Word;
use amdhip64::host_watch::{Access, Hooks, Watch, PAGE_BYTES};
use std::ptr::{read_volatile, write_volatile};
use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

/// The watch is one per process: tests take turns.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// `n` fresh zeroed read-write pages.
fn pages(n: usize) -> usize {
    // SAFETY: a private anonymous mapping; never unmapped (tests are short-lived).
    let p = unsafe { libc::mmap(std::ptr::null_mut(), n * PAGE_BYTES, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0) };
    assert_ne!(p, libc::MAP_FAILED);
    p as usize
}

/// Protection for the test's duration, lifted even when an assertion fails.
struct Armed(Watch);

impl Armed {
    /// Watch `n` pages from `start` with `hooks`.
    fn new(hooks: &'static dyn Hooks, start: usize, n: usize) -> Armed {
        let w = Watch::install().expect("install");
        w.set_hooks(hooks).expect("hooks");
        let range = start..start + n * PAGE_BYTES;
        w.protect(std::slice::from_ref(&range)).expect("protect");
        Armed(w)
    }
}

impl Drop for Armed {
    fn drop(&mut self) {
        let _ = self.0.unprotect();
    }
}

const LOG: usize = 1 << 14;

/// One reported access as the recorder saw it: up to two written spans with their first
/// eight bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Rec {
    tid: i32,
    address: usize,
    pages: usize,
    spans: [(usize, usize, u64); 2],
    nspans: usize,
}

struct Slot {
    tid: AtomicI32,
    address: AtomicUsize,
    pages: AtomicUsize,
    spans: [(AtomicUsize, AtomicUsize, AtomicU64); 2],
    nspans: AtomicUsize,
}

/// Hooks that log every access into a fixed table (async-signal-safe: atomics only).
struct Recorder {
    before: AtomicUsize,
    after: AtomicUsize,
    log: [Slot; LOG],
}

static RECORDER: Recorder = Recorder {
    before: AtomicUsize::new(0),
    after: AtomicUsize::new(0),
    log: [const {
        Slot {
            tid: AtomicI32::new(0),
            address: AtomicUsize::new(0),
            pages: AtomicUsize::new(0),
            spans: [const { (AtomicUsize::new(0), AtomicUsize::new(0), AtomicU64::new(0)) }; 2],
            nspans: AtomicUsize::new(0),
        }
    }; LOG],
};

impl Hooks for Recorder {
    fn on_access(&self, _: i32, _: usize) {
        self.before.fetch_add(1, Ordering::SeqCst);
    }

    fn after_access(&self, a: &Access<'_>) {
        let i = self.after.fetch_add(1, Ordering::SeqCst);
        let Some(s) = self.log.get(i) else { return };
        s.tid.store(a.thread, Ordering::Relaxed);
        s.address.store(a.address, Ordering::Relaxed);
        s.pages.store(a.pages.len(), Ordering::Relaxed);
        let mut n = 0;
        for (k, (addr, bytes)) in a.written().take(2).enumerate() {
            let mut first = [0u8; 8];
            let m = bytes.len().min(8);
            first[..m].copy_from_slice(&bytes[..m]);
            s.spans[k].0.store(addr, Ordering::Relaxed);
            s.spans[k].1.store(bytes.len(), Ordering::Relaxed);
            s.spans[k].2.store(u64::from_le_bytes(first), Ordering::Relaxed);
            n = k + 1;
        }
        s.nspans.store(n, Ordering::Release);
    }
}

impl Recorder {
    fn reset(&self) {
        self.before.store(0, Ordering::SeqCst);
        self.after.store(0, Ordering::SeqCst);
    }

    fn records(&self) -> Vec<Rec> {
        let n = self.after.load(Ordering::SeqCst);
        assert!(n <= LOG, "{n} accesses overflow the log");
        assert_eq!(self.before.load(Ordering::SeqCst), n, "every on_access has its after_access");
        self.log[..n]
            .iter()
            .map(|s| {
                let mut r = Rec {
                    tid: s.tid.load(Ordering::Relaxed),
                    address: s.address.load(Ordering::Relaxed),
                    pages: s.pages.load(Ordering::Relaxed),
                    nspans: s.nspans.load(Ordering::Acquire),
                    ..Rec::default()
                };
                for k in 0..r.nspans {
                    r.spans[k] = (s.spans[k].0.load(Ordering::Relaxed), s.spans[k].1.load(Ordering::Relaxed), s.spans[k].2.load(Ordering::Relaxed));
                }
                r
            })
            .collect()
    }
}

fn gettid() -> i32 {
    // SAFETY: no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as i32 }
}

#[test]
fn volatile_loads_and_stores_of_u32_and_u64() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(1);
    let armed = Armed::new(&RECORDER, p, 1);
    let (a, b) = (p + 0x10, p + 0x100);
    let (tid, x, y) = std::thread::spawn(move || {
        // SAFETY: a and b are aligned addresses inside the mapped page.
        unsafe {
            write_volatile(a as *mut u32, 0xdead_beef);
            let x = read_volatile(a as *const u32);
            write_volatile(b as *mut u64, 0x0123_4567_89ab_cdef);
            let y = read_volatile(b as *const u64);
            (gettid(), x, y)
        }
    })
    .join()
    .expect("host thread");
    drop(armed);
    assert_eq!((x, y), (0xdead_beef, 0x0123_4567_89ab_cdef), "values read through the watch");
    let r = RECORDER.records();
    assert_eq!(r.len(), 4, "{r:?}");
    assert!(r.iter().all(|r| r.tid == tid && r.pages == 1));
    assert_eq!(r.iter().map(|r| r.address).collect::<Vec<_>>(), [a, a, b, b]);
    assert_eq!(r[0].spans[0], (a, 4, 0xdead_beef), "the u32 store's bytes");
    assert_eq!(r[2].spans[0], (b, 8, 0x0123_4567_89ab_cdef), "the u64 store's bytes");
    assert_eq!((r[0].nspans, r[1].nspans, r[2].nspans, r[3].nspans), (1, 0, 1, 0), "stores write, loads do not");
    // SAFETY: unprotected again.
    assert_eq!(unsafe { read_volatile(b as *const u64) }, 0x0123_4567_89ab_cdef);
}

/// One 16-byte `movdqu` store from `src` to `dst`.
unsafe fn movdqu(dst: usize, src: usize) {
    // SAFETY: the caller gives 16 readable bytes at src and 16 writable at dst.
    unsafe { std::arch::asm!("movdqu {x}, [{s}]", "movdqu [{d}], {x}", s = in(reg) src, d = in(reg) dst, x = out(xmm_reg) _, options(nostack)) };
}

#[test]
fn one_unaligned_store_across_a_page_boundary_is_one_access() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(2);
    let src: [u8; 16] = std::array::from_fn(|i| 0xa0 + i as u8);
    let dst = p + PAGE_BYTES - 8;
    {
        let _armed = Armed::new(&RECORDER, p, 2);
        // SAFETY: 16 bytes of the mapped pair of pages.
        unsafe { movdqu(dst, src.as_ptr() as usize) };
    }
    let r = RECORDER.records();
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(r[0].pages, 2);
    assert!((dst..dst + 16).contains(&r[0].address));
    let mut spans = r[0].spans[..r[0].nspans].to_vec();
    spans.sort();
    let half = |k: usize| u64::from_le_bytes(src[k..k + 8].try_into().expect("8 bytes"));
    assert_eq!(spans, [(dst, 8, half(0)), (p + PAGE_BYTES, 8, half(8))]);
    // SAFETY: unprotected, inside the mapping.
    assert_eq!(unsafe { std::slice::from_raw_parts(dst as *const u8, 16) }, src);
}

#[test]
fn memcpy_across_a_page_boundary_reports_only_its_bytes() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(2);
    let n = std::hint::black_box(64usize);
    let src: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37) | 1).collect();
    let dst = p + PAGE_BYTES - 24;
    let mut back = vec![0u8; n];
    {
        let _armed = Armed::new(&RECORDER, p, 2);
        // SAFETY: n bytes inside the pair of pages; distinct buffers.
        unsafe {
            libc::memcpy(dst as *mut libc::c_void, src.as_ptr().cast(), n);
            libc::memcpy(back.as_mut_ptr().cast(), dst as *const libc::c_void, n);
        }
    }
    assert_eq!(back, src, "copied out through the watch");
    let r = RECORDER.records();
    assert!(r.len() >= 2, "at least one store and one load: {r:?}");
    let mut written = vec![false; n];
    for rec in &r {
        assert!((dst..dst + n).contains(&rec.address), "{rec:?}");
        for &(a, len, first) in &rec.spans[..rec.nspans] {
            assert!(a >= dst && a + len <= dst + n, "{rec:?}");
            let k = a - dst;
            let m = len.min(8);
            let mut want = [0u8; 8];
            want[..m].copy_from_slice(&src[k..k + m]);
            assert_eq!(first, u64::from_le_bytes(want), "{rec:?}");
            written[k..k + len].iter_mut().for_each(|w| *w = true);
        }
    }
    // Bytes equal to zero would not show as changed; the pattern has none.
    assert!(written.iter().all(|&w| w), "every copied byte seen written");
}

#[test]
fn compare_exchange_is_one_access() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(1);
    let a = p + 8;
    let (ok, fail) = {
        let _armed = Armed::new(&RECORDER, p, 1);
        // SAFETY: aligned, inside the mapping, only used atomically here.
        let cell = unsafe { &*(a as *const AtomicU64) };
        (cell.compare_exchange(0, 5, Ordering::SeqCst, Ordering::SeqCst), cell.compare_exchange(0, 7, Ordering::SeqCst, Ordering::SeqCst))
    };
    assert_eq!((ok, fail), (Ok(0), Err(5)));
    let r = RECORDER.records();
    assert_eq!(r.len(), 2, "one lock cmpxchg each: {r:?}");
    assert_eq!(r[0].spans[..r[0].nspans], [(a, 1, 5)], "the successful exchange wrote 5");
    assert_eq!(r[1].nspans, 0, "the failed one changed nothing");
}

#[test]
fn rep_movsb_is_one_access_per_byte() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(1);
    let src: [u8; 24] = std::array::from_fn(|i| 0x41 + i as u8);
    let dst = p + 100;
    {
        let _armed = Armed::new(&RECORDER, p, 1);
        // SAFETY: 24 bytes inside the mapping; the direction flag is clear (SysV ABI).
        unsafe {
            std::arch::asm!("rep movsb", inout("rcx") src.len() => _, inout("rsi") src.as_ptr() => _, inout("rdi") dst => _, options(nostack));
        }
    }
    let r = RECORDER.records();
    assert_eq!(r.len(), src.len(), "{r:?}");
    for (i, rec) in r.iter().enumerate() {
        assert_eq!((rec.address, rec.nspans, rec.spans[0]), (dst + i, 1, (dst + i, 1, src[i] as u64)));
    }
}

#[test]
fn two_threads_at_once_each_see_their_own() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(2);
    let rounds = 1000u64;
    let _armed = Armed::new(&RECORDER, p, 2);
    let start = std::sync::Arc::new(std::sync::Barrier::new(2));
    let workers: Vec<_> = (0..2)
        .map(|t| {
            let start = start.clone();
            let a = p + t * PAGE_BYTES + 64;
            std::thread::spawn(move || {
                start.wait();
                let mut sum = 0;
                for i in 1..=rounds {
                    // SAFETY: aligned, inside this thread's own page.
                    unsafe {
                        write_volatile(a as *mut u64, i);
                        sum += read_volatile(a as *const u64);
                    }
                }
                (gettid(), a, sum)
            })
        })
        .collect();
    let done: Vec<_> = workers.into_iter().map(|w| w.join().expect("worker")).collect();
    drop(_armed);
    let r = RECORDER.records();
    assert_eq!(r.len() as u64, 4 * rounds);
    for (tid, a, sum) in done {
        assert_eq!(sum, rounds * (rounds + 1) / 2, "each load saw the thread's store");
        let mine: Vec<_> = r.iter().filter(|r| r.tid == tid).collect();
        assert_eq!(mine.len() as u64, 2 * rounds);
        assert!(mine.iter().all(|r| r.address == a));
        let stores: Vec<u64> = mine.iter().filter(|r| r.nspans == 1).map(|r| r.spans[0].2).collect();
        // Every store changes the word (i differs from i - 1): its low byte at least.
        assert_eq!(stores.len() as u64, rounds);
    }
}

/// Runs `test` in a child copy of this test binary with `HOST_WATCH_CHILD` set; gives how it
/// ended.
fn child(test: &str, what: &str) -> std::process::ExitStatus {
    let exe = std::env::current_exe().expect("test binary");
    std::process::Command::new(exe)
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env("HOST_WATCH_CHILD", what)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("spawn")
}

/// A SIGSEGV handler of the program's own, installed before the watch: ends the process with
/// status 42.
extern "C" fn own_handler(_: i32) {
    // SAFETY: _exit is async-signal-safe.
    unsafe { libc::_exit(42) };
}

/// In a child process: set up the handler `what` asks for, then fault outside the watched
/// ranges (or hit a breakpoint).
fn crash_in_child(what: &str) -> ! {
    let p = pages(2);
    // SAFETY: installing handlers in a process about to die.
    unsafe {
        match what {
            "own handler" => libc::signal(libc::SIGSEGV, own_handler as *const () as usize),
            // A C++ program's start: no handler at all.
            _ => libc::signal(libc::SIGSEGV, libc::SIG_DFL),
        };
    }
    let _armed = Armed::new(&RECORDER, p, 1);
    // SAFETY: not safe: this child is meant to die in here.
    unsafe {
        match what {
            "breakpoint" => std::arch::asm!("int3"),
            "unmapped" => _ = read_volatile(16 as *const u64),
            _ => {
                // A page the program protected itself, next to the watched one.
                libc::mprotect((p + PAGE_BYTES) as *mut libc::c_void, PAGE_BYTES, libc::PROT_NONE);
                _ = read_volatile((p + PAGE_BYTES) as *const u64);
            }
        }
    }
    std::process::exit(0)
}

#[test]
fn faults_and_traps_outside_the_watch_still_crash() {
    use std::os::unix::process::ExitStatusExt;
    if let Ok(what) = std::env::var("HOST_WATCH_CHILD") {
        crash_in_child(&what);
    }
    for (what, signal, code) in [
        ("protected", Some(libc::SIGSEGV), None),
        ("unmapped", Some(libc::SIGSEGV), None),
        ("breakpoint", Some(libc::SIGTRAP), None),
        ("own handler", None, Some(42)),
    ] {
        let status = child("faults_and_traps_outside_the_watch_still_crash", what);
        assert_eq!((status.signal(), status.code()), (signal, code), "{what}: {status:?}");
    }
}

/// The simulated side of the ping-pong, driven only from the hooks: each host access waits
/// in `on_access` until the simulated side grants its number.
struct PingPong {
    /// Host accesses announced so far (the one waiting is the last).
    requested: Word,
    /// The access allowed to run.
    granted: Word,
    /// Accesses that have run.
    completed: Word,
    /// The last completed access's first written span: offset in the page, length, bytes
    /// (length 0: it wrote nothing).
    wrote: (AtomicUsize, AtomicUsize, AtomicU64),
}

static PING: PingPong =
    PingPong { requested: Word::new(0), granted: Word::new(0), completed: Word::new(0), wrote: (AtomicUsize::new(0), AtomicUsize::new(0), AtomicU64::new(0)) };

impl Hooks for PingPong {
    fn on_access(&self, _: i32, _: usize) {
        // One host thread: announce, then wait for the turn.
        let n = self.requested.load() + 1;
        self.requested.store(n);
        self.granted.wait_until(|g| g >= n);
    }

    fn after_access(&self, a: &Access<'_>) {
        let (page_offset, len, bytes) = match a.written().next() {
            Some((addr, b)) => {
                let mut first = [0u8; 8];
                let m = b.len().min(8);
                first[..m].copy_from_slice(&b[..m]);
                (addr % PAGE_BYTES, m, u64::from_le_bytes(first))
            }
            None => (0, 0, 0),
        };
        self.wrote.0.store(page_offset, Ordering::Relaxed);
        self.wrote.1.store(len, Ordering::Relaxed);
        self.wrote.2.store(bytes, Ordering::Relaxed);
        self.completed.store(self.requested.load());
    }
}

const ROUNDS: u32 = 1000;
/// Host accesses from the host's hand-off store to the load that sees the answer: the
/// simulated side answers just before the host's K-th access after its store.
const K: u32 = 3;

/// The simulated side: keeps its own copy of the flag (what the host wrote, byte by byte),
/// answers each odd value v with v + 1 when the host's access count reaches the store's
/// number + K. Gives the accesses seen and a fingerprint of their kinds in order.
fn simulated_side(w: Watch, flag: usize) -> (u32, u64) {
    let mut model = [0u8; 8];
    let (mut n, mut release_at, mut answered, mut print) = (0u32, None, 0u32, 0xcbf2_9ce4_8422_2325u64);
    loop {
        PING.requested.wait_until(|r| r > n);
        n += 1;
        if release_at == Some(n) {
            answered += 1;
            let v = 2 * answered;
            // The host thread waits in on_access; the flag is written without opening its page.
            w.poke(flag, &v.to_le_bytes()).expect("poke");
            model[..4].copy_from_slice(&v.to_le_bytes());
            release_at = None;
        }
        PING.granted.store(n);
        PING.completed.wait_until(|c| c >= n);
        let (off, len, bytes) = (PING.wrote.0.load(Ordering::Relaxed), PING.wrote.1.load(Ordering::Relaxed), PING.wrote.2.load(Ordering::Relaxed));
        if len > 0 {
            let at = off - flag % PAGE_BYTES;
            model[at..at + len].copy_from_slice(&bytes.to_le_bytes()[..len]);
        }
        print = (print ^ (n as u64) << 1 ^ (len > 0) as u64).wrapping_mul(0x0100_0000_01b3);
        let v = u32::from_le_bytes(model[..4].try_into().expect("4 bytes"));
        if len > 0 {
            assert_eq!(v, 2 * answered + 1, "the host hands over the next odd value");
            release_at = Some(n + K);
        }
        if answered == ROUNDS && release_at.is_none() && n > 0 && len == 0 && v == 2 * ROUNDS {
            return (n, print);
        }
    }
}

fn ping_pong() -> (u32, u64) {
    for word in [&PING.requested, &PING.granted, &PING.completed] {
        word.store(0);
    }
    let p = pages(1);
    let armed = Armed::new(&PING, p, 1);
    let flag = p + 0x40;
    let host = std::thread::spawn(move || {
        for i in 0..ROUNDS {
            // SAFETY: an aligned word of the watched page.
            unsafe {
                write_volatile(flag as *mut u32, 2 * i + 1);
                while read_volatile(flag as *const u32) != 2 * i + 2 {}
            }
        }
    });
    let seen = simulated_side(armed.0, flag);
    host.join().expect("host thread");
    seen
}

#[test]
fn ping_pong_1000_round_trips_takes_a_fixed_number_of_accesses() {
    let _s = serial();
    let runs: Vec<(u32, u64)> = (0..3).map(|_| ping_pong()).collect();
    // Per round: the hand-off store, then K loads, the K-th seeing the answer.
    assert_eq!(runs[0].0, ROUNDS * (1 + K));
    assert!(runs.iter().all(|r| *r == runs[0]), "{runs:?}");
}

/// Hooks that only count.
struct Count(AtomicUsize);

impl Hooks for Count {
    fn on_access(&self, _: i32, _: usize) {}
    fn after_access(&self, _: &Access<'_>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

static COUNT: Count = Count(AtomicUsize::new(0));

/// This thread's CPU time (user and system), ns: unlike the wall clock, not inflated by other
/// processes sharing the machine.
fn thread_cpu_ns() -> u128 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as u128 * 1_000_000_000 + t.tv_nsec as u128
}

/// The cost of a trapped access in host time (printed; run with `--nocapture`): two signals,
/// two `mprotect`s and a page copy and compare per access.
#[test]
fn cost_of_a_trapped_access() {
    let _s = serial();
    const N: usize = 100_000;
    COUNT.0.store(0, Ordering::Relaxed);
    let p = pages(1);
    // What two mprotect calls cost alone, for comparison.
    let bare = thread_cpu_ns();
    for _ in 0..N {
        // SAFETY: our own page, left read-write.
        unsafe {
            libc::mprotect(p as *mut libc::c_void, PAGE_BYTES, libc::PROT_NONE);
            libc::mprotect(p as *mut libc::c_void, PAGE_BYTES, libc::PROT_READ | libc::PROT_WRITE);
        }
    }
    let bare = (thread_cpu_ns() - bare) as f64 / N as f64;
    let (wall, cpu) = (std::time::Instant::now(), thread_cpu_ns());
    {
        let _armed = Armed::new(&COUNT, p, 1);
        for _ in 0..N {
            // SAFETY: an aligned word of the watched page.
            unsafe { read_volatile((p + 8) as *const u64) };
        }
    }
    let cpu = (thread_cpu_ns() - cpu) as f64 / N as f64;
    let wall = wall.elapsed().as_nanos() as f64 / N as f64;
    assert_eq!(COUNT.0.load(Ordering::Relaxed), N);
    eprintln!("host_watch: {N} trapped loads, {cpu:.0} ns of the thread's CPU time each ({wall:.0} ns wall); an mprotect pair alone {bare:.0} ns");
}

#[test]
fn bad_ranges_and_changing_hooks_while_armed_are_refused() {
    use amdhip64::host_watch::Error;
    let _s = serial();
    let w = Watch::install().expect("install");
    let p = pages(1);
    for (bad, why) in [(p + 1..p + PAGE_BYTES, "unaligned start"), (p..p, "empty")] {
        assert!(matches!(w.protect(std::slice::from_ref(&bad)), Err(Error::BadRange(_))), "{why}");
    }
    // A range over a hole in the address space: mprotect fails, nothing stays protected.
    let hole = pages(3);
    // SAFETY: the middle page of our own mapping.
    unsafe { libc::munmap((hole + PAGE_BYTES) as *mut libc::c_void, PAGE_BYTES) };
    let r = w.protect(&[p..p + PAGE_BYTES, hole + PAGE_BYTES..hole + 2 * PAGE_BYTES]);
    assert_eq!(r, Err(Error::System("mprotect", libc::ENOMEM)));
    assert!(!w.armed());
    // SAFETY: p is mapped; it must be read-write again.
    unsafe { write_volatile(p as *mut u32, 7) };
    let armed = Armed::new(&RECORDER, p, 1);
    assert_eq!(armed.0.set_hooks(&COUNT), Err(Error::Armed));
}

#[test]
fn peek_poke_and_unprotected_run_unreported_and_leave_the_watch_armed() {
    let _s = serial();
    RECORDER.reset();
    let p = pages(1);
    let armed = Armed::new(&RECORDER, p, 1);
    let w = armed.0;
    w.poke(p + 16, &0x1122_3344u32.to_le_bytes()).expect("poke");
    let mut back = [0u8; 4];
    w.peek(p + 16, &mut back).expect("peek");
    assert_eq!(u32::from_le_bytes(back), 0x1122_3344);
    // SAFETY: an aligned word of the page, open inside the closure.
    w.unprotected(|| unsafe { write_volatile((p + 32) as *mut u32, 9) }).expect("unprotected");
    assert!(w.armed(), "protected again after unprotected()");
    assert_eq!(RECORDER.after.load(Ordering::SeqCst), 0, "none of that was a host access");
    // SAFETY: aligned words of the watched page.
    let (x, y) = unsafe { (read_volatile((p + 16) as *const u32), read_volatile((p + 32) as *const u32)) };
    drop(armed);
    assert_eq!((x, y), (0x1122_3344, 9), "the host sees what was poked and written");
    assert_eq!(RECORDER.records().len(), 2);
}
