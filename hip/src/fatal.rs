//! Ends of the process that the real runtime would also reach: a kernel's memory fault, and
//! device memory the host cannot back. Both print one report and exit with status 3 (the GPU
//! fault status of `hipscope exec`), after the program's buffered output. They exit at once
//! rather than return: the caller holds the runtime's lock, which exit handlers would want.
//!
//! The in-process fuzzer ([`crate::fuzzing`]) sets [`contain`]: there an end of the process is
//! an outcome to count, so the report is dropped and the call returns an error code instead.

use crate::runtime::error;
use hipscope_sim::backing::HostMemoryError;
use std::sync::atomic::{AtomicBool, Ordering};

/// Return error codes instead of ending the process (the fuzzer's setting).
static CONTAINED: AtomicBool = AtomicBool::new(false);

/// From now on, the ends below return an error code instead of exiting.
pub fn contain() {
    CONTAINED.store(true, Ordering::Relaxed);
}

/// Print `report` and exit with status 3, or (contained) return `code`.
pub fn end_with_status_3(report: &str, code: u32) -> u32 {
    if CONTAINED.load(Ordering::Relaxed) {
        return code;
    }
    eprintln!("hipscope: {report}");
    // SAFETY: flushing every C stream, then ending the process.
    unsafe {
        libc::fflush(std::ptr::null_mut());
        libc::_exit(3)
    }
}

/// An allocation the simulated GPU holds but the host cannot map: the device memory the
/// program asked for is more than this host can give it, which the program cannot handle.
/// (The simulated GPU's capacity decides `hipErrorOutOfMemory`; this is the host's limit.)
pub fn host_out_of_memory(call: &str, bytes: u64, e: &HostMemoryError) -> u32 {
    let report = format!("device memory fault: {call} of {bytes} bytes: the simulated GPU has room, but {e}; ending the program as a GPU memory fault would");
    end_with_status_3(&report, error::OUT_OF_MEMORY)
}
