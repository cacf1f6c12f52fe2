//! hipscope's HIP runtime: the functions a clang/hipcc-built executable imports from
//! `libamdhip64.so.5`, served by the simulator. `hipscope exec` puts this library in front of
//! any other, so the program's own host code runs unchanged and every kernel it launches runs
//! on the simulated GPU (or GPUs: `HIPSCOPE_DEVICES`, [`node`]).
//!
//! Layout: `api/` holds the C entry points, one file per area of the HIP API (registration,
//! launches, memory, devices, streams and events, errors), each a thin shim that checks its
//! pointers and calls the runtime; [`runtime`] is the state behind them (device, code object,
//! kernels, variables), [`memory`] the allocations, [`transfer`] the copies and fills, [`timeline`] where streams and
//! events place work in simulated time, [`properties`] the device queries, [`trace`] the
//! kernel-trace CSV, [`host_watch`] the host's own loads and stores to host-visible memory while a
//! kernel runs, `host_agent` the host threads' turns with the kernels built on it. Every function the HIP headers declare and this library does not serve
//! answers `hipErrorNotSupported` and says so once (`api/unsupported.rs`, generated from
//! [`abi::FUNCTIONS`]). A kernel fault prints the GPU-fault report and exits 3, as the real
//! runtime aborts.

pub mod abi;
mod api;
mod copy_engine;
mod cosim;
mod fatal;
#[doc(hidden)]
pub mod fuzzing;
mod heap;
mod host_agent;
pub mod host_watch;
mod hostcall;
mod memory;
mod node;
mod peer;
mod properties;
mod registry;
mod runtime;
mod timeline;
mod trace;
mod transfer;

use runtime::{error, Runtime};
use std::sync::Mutex;

/// HIP's `dim3`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// The process's simulated GPU, created at the first call.
static RUNTIME: Mutex<Option<Result<Runtime, String>>> = Mutex::new(None);

/// Run `f` on the runtime; a runtime that could not start reports once and gives `None`.
fn on_runtime<R>(f: impl FnOnce(&mut Runtime) -> R) -> Option<R> {
    // Marked before the lock is taken: a thread waiting for it is in a call too.
    let _inside = host_agent::link::Inside::enter();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut guard = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
        let state = guard.get_or_insert_with(|| {
            let r = runtime::from_env();
            match &r {
                Err(e) => eprintln!("hipscope: cannot start the simulated GPU: {e}"),
                // SAFETY: registering a plain function to run at exit.
                Ok(_) => unsafe {
                    libc::atexit(at_exit);
                },
            }
            r
        });
        state.as_mut().ok().map(f)
    }));
    result.unwrap_or_else(|_| {
        eprintln!("hipscope: internal error in the HIP runtime");
        None
    })
}

/// The fuzzer's fresh start ([`fuzzing`]): a new simulated GPU, configured from the
/// environment as at the first call, in place of the old one, whose allocations are released
/// first (their host mappings go with them). No exit handler is registered for it.
fn fresh_runtime() -> Result<(), String> {
    let mut guard = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(Ok(rt)) = guard.as_mut() {
        rt.free_all();
    }
    let fresh = runtime::from_env();
    let outcome = fresh.as_ref().map(|_| ()).map_err(|e| e.clone());
    *guard = Some(fresh);
    outcome
}

/// At exit: the summary and report of a program whose device code never unregistered (one
/// that only loaded modules); after an unregistration it does nothing.
/// A program exiting from inside a call (a kernel fault exits 3 holding the lock) skips it.
extern "C" fn at_exit() {
    let _inside = host_agent::link::Inside::enter();
    let _ = std::panic::catch_unwind(|| {
        if let Ok(mut guard) = RUNTIME.try_lock() {
            if let Some(Ok(rt)) = guard.as_mut() {
                rt.finish();
            }
        }
    });
}

thread_local! {
    /// The calling host thread's current device (`hipSetDevice`): HIP's current device is per
    /// host thread, 0 until the thread sets another.
    static CURRENT_DEVICE: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The calling thread's current device.
fn current_device() -> usize {
    CURRENT_DEVICE.with(|c| c.get())
}

/// `hipSetDevice` for the calling thread.
fn set_current_device(d: usize) {
    CURRENT_DEVICE.with(|c| c.set(d));
}

/// Run an API call on the runtime. Its result becomes the last error, success included: what
/// `hipGetLastError` returns in the HIP releases before ROCm 7.0, whose library this one
/// stands in for (HIP docs, "Error handling"; ROCm/hip pull request 3834).
///
/// Fat binaries registered since the last call are checked first: one with no code object
/// for the simulated GPU ends the process as ROCm's runtime does.
fn with_runtime(f: impl FnOnce(&mut Runtime) -> u32) -> u32 {
    run_call(true, f)
}

/// [`with_runtime`] for a call that leaves queued launches queued (a multi-GPU node,
/// [`cosim`]): one that neither reads device results nor orders device work (a launch,
/// device selection and count, attribute and property queries, the last-error calls, stream
/// and event creation). Every other call runs the queue first.
fn with_runtime_queued(f: impl FnOnce(&mut Runtime) -> u32) -> u32 {
    run_call(false, f)
}

fn run_call(flush: bool, f: impl FnOnce(&mut Runtime) -> u32) -> u32 {
    on_runtime(|rt| {
        rt.select(CURRENT_DEVICE.with(|c| c.get()));
        if rt.registry.has_pending() {
            rt.check_registrations();
        }
        let code = match flush && !rt.queued.is_empty() {
            true => match rt.flush() {
                Ok(()) => f(rt),
                Err(e) => api::launch::report(Err(e)),
            },
            false => f(rt),
        };
        rt.last_error = code;
        // HIP 7's hipGetLastError: the last error, which neither a success nor "not ready"
        // (a query's answer) replaces.
        if code != error::SUCCESS && code != error::NOT_READY {
            rt.sticky_error = code;
        }
        code
    })
    .unwrap_or(error::NOT_INITIALIZED)
}

/// A flush asked for by a host thread's access that waits for kernels nobody ran yet
/// ([`host_agent::flusher`]); a failure is reported as the call that flushes would.
fn background_flush() {
    on_runtime(|rt| {
        if rt.queued.is_empty() {
            return;
        }
        if let Err(e) = rt.flush() {
            let code = api::launch::report(Err(e));
            (rt.last_error, rt.sticky_error) = (code, code);
        }
    });
}

/// Run a registration call (`__hipRegister*`, made by module constructors before `main`):
/// no check, no last error.
fn with_registration(f: impl FnOnce(&mut Runtime)) {
    on_runtime(|rt| {
        rt.select(CURRENT_DEVICE.with(|c| c.get()));
        f(rt)
    });
}

/// Store `value` through an out-parameter; a null pointer is `hipErrorInvalidValue`.
///
/// # Safety
/// `ptr` is null or valid for a write of `T` (the caller's out-parameter).
unsafe fn put<T>(ptr: *mut T, value: T) -> u32 {
    if ptr.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: non-null, and the caller's contract.
    unsafe { ptr.write(value) };
    error::SUCCESS
}
