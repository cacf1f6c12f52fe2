//! The `*_spt` entry points: what a program compiled with `-fgpu-default-stream=per-thread`
//! (`HIP_API_PER_THREAD_DEFAULT_STREAM`) calls instead of the plain API. The headers
//! (`amd_hip_runtime_pt_api.h`) rename each call `X` to `X_spt`; its default stream (null)
//! then means the calling thread's own stream, `hipStreamPerThread`, and the synchronous
//! copies and fills wait for that stream only, not for every blocking stream as the legacy
//! null stream does.

use std::ffi::{c_int, c_void};

use super::host_funcs::{HostFn, StreamCallback};
use super::memory2d::{Extent, Memcpy3DParms, PitchedPtr};
use crate::timeline::STREAM_PER_THREAD;
use crate::Dim3;

/// The stream a `_spt` call means: null is the thread's own default stream.
fn own(stream: *mut c_void) -> *mut c_void {
    if stream.is_null() {
        STREAM_PER_THREAD as *mut c_void
    } else {
        stream
    }
}

/// A synchronous `_spt` call: the enqueued operation, then a wait for the thread's stream.
fn then_wait(code: u32) -> u32 {
    if code != crate::error::SUCCESS {
        return code;
    }
    super::streams::hipStreamSynchronize(own(std::ptr::null_mut()))
}

/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy_spt(dst: *mut c_void, src: *const c_void, size: usize, kind: u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    then_wait(unsafe { super::memory::hipMemcpyAsync(dst, src, size, kind, own(std::ptr::null_mut())) })
}

/// # Safety
/// As `hipMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync_spt(dst: *mut c_void, src: *const c_void, size: usize, kind: u32, stream: *mut c_void) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::memory::hipMemcpyAsync(dst, src, size, kind, own(stream)) }
}

/// # Safety
/// As `hipMemcpyToSymbol`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol_spt(symbol: *const c_void, src: *const c_void, size: usize, offset: usize, kind: u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    then_wait(unsafe { super::memory::hipMemcpyToSymbolAsync(symbol, src, size, offset, kind, own(std::ptr::null_mut())) })
}

/// # Safety
/// As `hipMemcpyToSymbolAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbolAsync_spt(
    symbol: *const c_void,
    src: *const c_void,
    size: usize,
    offset: usize,
    kind: u32,
    stream: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::memory::hipMemcpyToSymbolAsync(symbol, src, size, offset, kind, own(stream)) }
}

/// # Safety
/// As `hipMemcpyFromSymbol`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol_spt(dst: *mut c_void, symbol: *const c_void, size: usize, offset: usize, kind: u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    then_wait(unsafe { super::memory::hipMemcpyFromSymbolAsync(dst, symbol, size, offset, kind, own(std::ptr::null_mut())) })
}

/// # Safety
/// As `hipMemcpyFromSymbolAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbolAsync_spt(
    dst: *mut c_void,
    symbol: *const c_void,
    size: usize,
    offset: usize,
    kind: u32,
    stream: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::memory::hipMemcpyFromSymbolAsync(dst, symbol, size, offset, kind, own(stream)) }
}

/// # Safety
/// As `hipMemcpy2D`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy2D_spt(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    then_wait(unsafe { super::memory2d::hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, own(std::ptr::null_mut())) })
}

/// # Safety
/// As `hipMemcpy2DAsync`.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C signature
pub unsafe extern "C" fn hipMemcpy2DAsync_spt(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::memory2d::hipMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, own(stream)) }
}

/// # Safety
/// As `hipMemcpy3D`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3D_spt(p: *const Memcpy3DParms) -> u32 {
    // SAFETY: the caller's contract, passed on.
    then_wait(unsafe { super::memory2d::hipMemcpy3DAsync(p, own(std::ptr::null_mut())) })
}

/// # Safety
/// As `hipMemcpy3DAsync`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3DAsync_spt(p: *const Memcpy3DParms, stream: *mut c_void) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::memory2d::hipMemcpy3DAsync(p, own(stream)) }
}

#[no_mangle]
pub extern "C" fn hipMemset_spt(dst: *mut c_void, value: c_int, size: usize) -> u32 {
    then_wait(super::memory::hipMemsetAsync(dst, value, size, own(std::ptr::null_mut())))
}

#[no_mangle]
pub extern "C" fn hipMemsetAsync_spt(dst: *mut c_void, value: c_int, size: usize, stream: *mut c_void) -> u32 {
    super::memory::hipMemsetAsync(dst, value, size, own(stream))
}

#[no_mangle]
pub extern "C" fn hipMemset2D_spt(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> u32 {
    then_wait(super::memory2d::hipMemset2DAsync(dst, pitch, value, width, height, own(std::ptr::null_mut())))
}

#[no_mangle]
pub extern "C" fn hipMemset2DAsync_spt(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: *mut c_void) -> u32 {
    super::memory2d::hipMemset2DAsync(dst, pitch, value, width, height, own(stream))
}

#[no_mangle]
pub extern "C" fn hipMemset3D_spt(pitched: PitchedPtr, value: c_int, extent: Extent) -> u32 {
    then_wait(super::memory2d::hipMemset3DAsync(pitched, value, extent, own(std::ptr::null_mut())))
}

#[no_mangle]
pub extern "C" fn hipMemset3DAsync_spt(pitched: PitchedPtr, value: c_int, extent: Extent, stream: *mut c_void) -> u32 {
    super::memory2d::hipMemset3DAsync(pitched, value, extent, own(stream))
}

#[no_mangle]
pub extern "C" fn hipStreamSynchronize_spt(stream: *mut c_void) -> u32 {
    super::streams::hipStreamSynchronize(own(stream))
}

#[no_mangle]
pub extern "C" fn hipStreamQuery_spt(stream: *mut c_void) -> u32 {
    super::streams::hipStreamQuery(own(stream))
}

#[no_mangle]
pub extern "C" fn hipStreamWaitEvent_spt(stream: *mut c_void, event: *mut c_void, flags: u32) -> u32 {
    super::streams::hipStreamWaitEvent(own(stream), event, flags)
}

#[no_mangle]
pub extern "C" fn hipEventRecord_spt(event: *mut c_void, stream: *mut c_void) -> u32 {
    super::streams::hipEventRecord(event, own(stream))
}

/// # Safety
/// As `hipStreamAddCallback`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamAddCallback_spt(stream: *mut c_void, callback: Option<StreamCallback>, user: *mut c_void, flags: u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::host_funcs::hipStreamAddCallback(own(stream), callback, user, flags) }
}

/// # Safety
/// As `hipLaunchHostFunc`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchHostFunc_spt(stream: *mut c_void, f: Option<HostFn>, user: *mut c_void) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::host_funcs::hipLaunchHostFunc(own(stream), f, user) }
}

/// # Safety
/// As `hipLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel_spt(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared_mem: usize,
    stream: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::launch::hipLaunchKernel(function, grid, block, args, shared_mem, own(stream)) }
}

/// # Safety
/// As `hipLaunchCooperativeKernel`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel_spt(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared_mem: u32,
    stream: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::launch::hipLaunchCooperativeKernel(function, grid, block, args, shared_mem, own(stream)) }
}

#[no_mangle]
pub extern "C" fn hipGraphLaunch_spt(exec: *mut c_void, stream: *mut c_void) -> u32 {
    super::graph::hipGraphLaunch(exec, own(stream))
}

#[no_mangle]
pub extern "C" fn hipStreamBeginCapture_spt(stream: *mut c_void, mode: u32) -> u32 {
    super::graph::hipStreamBeginCapture(own(stream), mode)
}

/// # Safety
/// As `hipStreamEndCapture`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamEndCapture_spt(stream: *mut c_void, graph: *mut *mut c_void) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::graph::hipStreamEndCapture(own(stream), graph) }
}

/// # Safety
/// As `hipStreamIsCapturing`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamIsCapturing_spt(stream: *mut c_void, status: *mut u32) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::graph::hipStreamIsCapturing(own(stream), status) }
}

/// # Safety
/// As `hipStreamGetCaptureInfo`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo_spt(stream: *mut c_void, status: *mut u32, id: *mut u64) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::graph::hipStreamGetCaptureInfo(own(stream), status, id) }
}

/// # Safety
/// As `hipStreamGetCaptureInfo_v2`.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetCaptureInfo_v2_spt(
    stream: *mut c_void,
    status: *mut u32,
    id: *mut u64,
    graph: *mut *mut c_void,
    deps: *mut *const *mut c_void,
    num_deps: *mut usize,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { super::graph::hipStreamGetCaptureInfo_v2(own(stream), status, id, graph, deps, num_deps) }
}
