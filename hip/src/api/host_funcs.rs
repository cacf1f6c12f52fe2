//! Host work in stream order: `hipLaunchHostFunc` and `hipStreamAddCallback`.
//!
//! HIP runs a host function once all work issued before it on its stream has completed, and
//! the stream's later work waits for it to return (HIP docs, "hipLaunchHostFunc",
//! "hipStreamAddCallback"; `hip_runtime_api.h`). In this runtime every operation runs in the
//! simulator when the program issues it (`timeline.rs`), so when the call arrives the stream's
//! earlier work (and every other stream's) has already run: the function is placed on the
//! stream's timeline (at the time the stream's earlier work ends, with the implicit
//! null-stream waits) and then called at once, on the calling thread, after the runtime's lock
//! is released, so it may read what the earlier work wrote. It takes no simulated time (host
//! code is not timed). A function that blocks until the issuing thread does something after
//! the call would deadlock here, where on a GPU it would only stall the stream; HIP forbids
//! host functions that call the HIP API, as CUDA does, which covers the usual cases.
//!
//! A stream being captured into a graph records `hipLaunchHostFunc` as a host node
//! (`api/graph.rs`); `hipStreamAddCallback` during capture is
//! `hipErrorStreamCaptureUnsupported`, as in CUDA, where host functions replace callbacks in
//! graphs.

use crate::runtime::{error, Runtime};
use crate::with_runtime;
use std::ffi::c_void;

/// `hipHostFn_t`.
pub(super) type HostFn = unsafe extern "C" fn(*mut c_void);
/// `hipStreamCallback_t`: (stream, status, userData).
pub(super) type StreamCallback = unsafe extern "C" fn(*mut c_void, u32, *mut c_void);

/// `hipErrorStreamCaptureUnsupported`.
const STREAM_CAPTURE_UNSUPPORTED: u32 = 900;

/// Place a host function on `stream`'s timeline: it runs when the stream's earlier work ends.
pub(super) fn place_host(rt: &mut Runtime, stream: usize) {
    rt.timeline.record(stream);
}

/// # Safety
/// `f` is a host function the program may call with `user`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchHostFunc(stream: *mut c_void, f: Option<HostFn>, user: *mut c_void) -> u32 {
    let Some(f) = f else { return with_runtime(|_| error::INVALID_VALUE) };
    let mut run = false;
    let code = with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        if let Some(code) = super::graph::capture_host(stream as usize, f as usize, user as usize) {
            return code;
        }
        place_host(rt, stream as usize);
        run = true;
        error::SUCCESS
    });
    if run {
        // SAFETY: the program's host function and its argument, called as HIP calls them.
        unsafe { f(user) };
    }
    code
}

/// # Safety
/// `callback` is a host function the program may call with (`stream`, status, `user`).
#[no_mangle]
pub unsafe extern "C" fn hipStreamAddCallback(stream: *mut c_void, callback: Option<StreamCallback>, user: *mut c_void, flags: u32) -> u32 {
    // HIP: `flags` is reserved and must be 0.
    let (Some(callback), 0) = (callback, flags) else { return with_runtime(|_| error::INVALID_VALUE) };
    let mut run = false;
    let code = with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        if super::graph::is_capturing(stream as usize) {
            return STREAM_CAPTURE_UNSUPPORTED;
        }
        place_host(rt, stream as usize);
        run = true;
        error::SUCCESS
    });
    if run {
        // SAFETY: the program's callback: the stream it was added to, the stream's status
        // (its earlier work succeeded: a fault would have ended the process), its argument.
        unsafe { callback(stream, error::SUCCESS, user) };
    }
    code
}
