//! Reading and writing watched memory without opening it: through `/proc/self/mem`, whose
//! accesses the kernel makes as a debugger's (proc(5), `/proc/pid/mem`; the access-mode check is
//! ptrace's), so page protection does not stop them and no other thread sees a page open.
//! `pread`/`pwrite` are async-signal-safe, so a hook may use this too.

use super::Error;
use std::sync::atomic::{AtomicI32, Ordering};

/// The open file and the process it was opened in (a forked child must open its own: the
/// file names the memory of the process that opened it).
static FD: AtomicI32 = AtomicI32::new(-1);
static PID: AtomicI32 = AtomicI32::new(0);

fn errno() -> i32 {
    // SAFETY: this thread's errno.
    unsafe { *libc::__errno_location() }
}

/// The file, opened on first use in this process.
fn fd() -> Result<i32, Error> {
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    let fd = FD.load(Ordering::Acquire);
    if fd >= 0 && PID.load(Ordering::Acquire) == pid {
        return Ok(fd);
    }
    // SAFETY: a NUL-terminated path.
    let new = unsafe { libc::open(c"/proc/self/mem".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if new < 0 {
        return Err(Error::System("open /proc/self/mem", errno()));
    }
    // A racing opener may leave one descriptor unused; harmless.
    PID.store(pid, Ordering::Release);
    FD.store(new, Ordering::Release);
    Ok(new)
}

/// Copy `buf.len()` bytes from `address` into `buf`.
pub fn read(address: usize, buf: &mut [u8]) -> Result<(), Error> {
    let fd = fd()?;
    let mut done = 0;
    while done < buf.len() {
        // SAFETY: buf is valid for the remaining bytes.
        let n = unsafe { libc::pread(fd, buf[done..].as_mut_ptr().cast(), buf.len() - done, (address + done) as libc::off_t) };
        if n <= 0 {
            return Err(Error::System("pread /proc/self/mem", if n == 0 { libc::EIO } else { errno() }));
        }
        done += n as usize;
    }
    Ok(())
}

/// Copy `bytes` to `address`.
pub fn write(address: usize, bytes: &[u8]) -> Result<(), Error> {
    let fd = fd()?;
    let mut done = 0;
    while done < bytes.len() {
        // SAFETY: bytes is valid for the remaining bytes.
        let n = unsafe { libc::pwrite(fd, bytes[done..].as_ptr().cast(), bytes.len() - done, (address + done) as libc::off_t) };
        if n <= 0 {
            return Err(Error::System("pwrite /proc/self/mem", if n == 0 { libc::EIO } else { errno() }));
        }
        done += n as usize;
    }
    Ok(())
}
