//! Allocation, copies, fills and symbols. Synchronous copies complete before they return;
//! `Async` ones run at once too (in stream order on the timeline), which is one of the orders
//! the program allowed.

use crate::abi::hip_pointer_attribute as pa;
use crate::memory::AllocKind;
use crate::runtime::{error, Runtime};
use crate::timeline::Engine;
use crate::transfer::{CopyKind, DEVICE_TO_DEVICE_NO_CU};
use crate::{put, with_runtime};
use std::ffi::{c_int, c_uint, c_void};

/// # Safety
/// `ptr` is where the address is written.
unsafe fn allocate(ptr: *mut *mut c_void, size: usize, kind: AllocKind) -> u32 {
    if ptr.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| match rt.malloc(size as u64, kind) {
        // SAFETY: non-null; the caller's pointer variable.
        Ok(base) => unsafe { put(ptr, base as *mut c_void) },
        Err(e) => e,
    })
}

/// # Safety
/// `ptr` is where the device address is written.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, AllocKind::Device) }
}

/// # Safety
/// `ptr` is where the address is written.
#[no_mangle]
pub unsafe extern "C" fn hipExtMallocWithFlags(ptr: *mut *mut c_void, size: usize, _flags: c_uint) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, AllocKind::Device) }
}

/// # Safety
/// `ptr` is where the address is written.
#[no_mangle]
pub unsafe extern "C" fn hipMallocManaged(ptr: *mut *mut c_void, size: usize, _flags: c_uint) -> u32 {
    // Unlike hipMalloc, 0 bytes of managed memory is hipErrorInvalidValue (clr
    // `hipamd/src/hip_hmm.cpp`, `hipMallocManaged`).
    if size == 0 {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, AllocKind::Managed) }
}

/// # Safety
/// `ptr` is where the address is written.
#[no_mangle]
pub unsafe extern "C" fn hipHostMalloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, host_kind(flags)) }
}

/// `hipHostMallocNonCoherent` (`hip_runtime_api.h`): memory the GPU may cache, coherent only
/// at synchronisation points (HIP documentation, *Coherence control*).
const HOST_MALLOC_NON_COHERENT: c_uint = 0x8000_0000;

/// What `hipHostMalloc`/`hipHostAlloc` with `flags` allocates: non-coherent memory when asked
/// for, else coherent (fine-grained, MTYPE UC) pinned memory; with no coherence flag ROCm's
/// choice depends on `HIP_HOST_COHERENT`, so the runtime keeps the coherent kind it always used.
fn host_kind(flags: c_uint) -> AllocKind {
    if flags & HOST_MALLOC_NON_COHERENT != 0 {
        AllocKind::HostNonCoherent
    } else {
        AllocKind::HostPinned
    }
}

/// The deprecated name of `hipHostMalloc`.
///
/// # Safety
/// `ptr` is where the address is written.
#[no_mangle]
pub unsafe extern "C" fn hipMallocHost(ptr: *mut *mut c_void, size: usize) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, AllocKind::HostPinned) }
}

/// # Safety
/// `ptr` is where the address is written.
#[no_mangle]
pub unsafe extern "C" fn hipHostAlloc(ptr: *mut *mut c_void, size: usize, flags: c_uint) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, host_kind(flags)) }
}

#[no_mangle]
pub extern "C" fn hipFree(ptr: *mut c_void) -> u32 {
    // ROCm's hipFree releases any allocation: device, managed or host-pinned.
    with_runtime(|rt| rt.free(ptr as u64, &AllocKind::ALL))
}

#[no_mangle]
pub extern "C" fn hipHostFree(ptr: *mut c_void) -> u32 {
    with_runtime(|rt| rt.free(ptr as u64, &AllocKind::HOST))
}

#[no_mangle]
pub extern "C" fn hipFreeHost(ptr: *mut c_void) -> u32 {
    hipHostFree(ptr)
}

/// # Safety
/// `device` is writable; `host` came from `hipHostMalloc` (the same address serves both sides).
#[no_mangle]
pub unsafe extern "C" fn hipHostGetDevicePointer(device: *mut *mut c_void, host: *mut c_void, _flags: c_uint) -> u32 {
    with_runtime(|rt| match rt.memory.holding(host as u64, 1) {
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        Some((_, a)) if a.kind != AllocKind::Device => unsafe { put(device, host) },
        _ => error::INVALID_VALUE,
    })
}

/// # Safety
/// `free` and `total` are writable.
#[no_mangle]
pub unsafe extern "C" fn hipMemGetInfo(free: *mut usize, total: *mut usize) -> u32 {
    with_runtime(|rt| {
        let (f, t) = (rt.free_bytes() as usize, rt.total_bytes() as usize);
        // SAFETY: the caller's out-parameters (null is refused by `put`).
        match unsafe { put(free, f) } {
            error::SUCCESS => unsafe { put(total, t) },
            e => e,
        }
    })
}

/// `hipPointerAttribute_t` of an address inside an allocation.
///
/// # Safety
/// `attr` points to a `hipPointerAttribute_t`.
#[no_mangle]
pub unsafe extern "C" fn hipPointerGetAttributes(attr: *mut c_void, ptr: *const c_void) -> u32 {
    if attr.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        let Some((_, a)) = rt.memory.holding(ptr as u64, 1) else { return error::INVALID_VALUE };
        // hipMemoryType as the program's release numbers it (renumbered in 6.0; the field,
        // `memoryType` in 5.2 and `type` from 6.0 on, stays at offset 0).
        let types = crate::abi::Release::current().memory_types();
        let memory_type = match a.kind {
            AllocKind::HostPinned | AllocKind::HostNonCoherent => types.host,
            AllocKind::Managed => types.managed,
            AllocKind::Device => types.device,
        };
        let mut b = [0u8; pa::SIZE];
        b[pa::MEMORY_TYPE..pa::MEMORY_TYPE + 4].copy_from_slice(&memory_type.to_le_bytes());
        b[pa::DEVICE_POINTER..pa::DEVICE_POINTER + 8].copy_from_slice(&(ptr as u64).to_le_bytes());
        b[pa::DEVICE..pa::DEVICE + 4].copy_from_slice(&(a.device as u32).to_le_bytes());
        if a.kind != AllocKind::Device {
            b[pa::HOST_POINTER..pa::HOST_POINTER + 8].copy_from_slice(&(ptr as u64).to_le_bytes());
        }
        b[pa::IS_MANAGED..pa::IS_MANAGED + 4].copy_from_slice(&u32::from(a.kind == AllocKind::Managed).to_le_bytes());
        // SAFETY: the caller's struct of `pa::SIZE` bytes.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), attr as *mut u8, pa::SIZE) };
        error::SUCCESS
    })
}

/// Where an operation goes: its stream, and whether the host waits for it.
#[derive(Clone, Copy)]
pub(super) struct On {
    pub(super) stream: usize,
    pub(super) blocking: bool,
}

pub(super) const SYNC: On = On { stream: 0, blocking: true };

pub(super) fn on_stream(stream: *mut c_void) -> On {
    On { stream: stream as usize, blocking: false }
}

impl On {
    /// Place an operation that ended its data movement on the timeline.
    pub(super) fn place(self, rt: &mut Runtime, engine: Engine, ms: f64) {
        let (_, end) = rt.timeline.run(self.stream, engine, ms);
        if self.blocking {
            rt.timeline.host_wait(end);
        }
    }
}

/// What a copy or fill on a destroyed (or never created) stream answers: ROCm's copies check
/// the stream and answer `hipErrorContextIsDestroyed` (clr `hipamd/src/hip_memory.cpp`,
/// `hipMemcpyAsync_common`, `hipMemcpyWithStream`, `hipMemcpyHtoDAsync` and the others; its
/// fills use the stream unchecked, which hipscope answers the same way).
pub(super) const STREAM_GONE: u32 = error::CONTEXT_IS_DESTROYED;

/// A copy, placed on the timeline by the engine that carries it.
pub(super) fn copy_on(rt: &mut Runtime, dst: u64, src: u64, len: usize, kind: u32, on: On) -> u32 {
    let stream = on.stream;
    let raw_kind = kind;
    let Some(kind) = CopyKind::from_raw(kind) else { return error::INVALID_MEMCPY_DIRECTION };
    if !rt.timeline.is_stream(stream) {
        return STREAM_GONE;
    }
    // A stream being captured into a graph records the copy instead (api/graph.rs).
    if let Some(code) = super::graph::capture_copy(stream, super::memory2d::Copy3d::linear(dst, src, len as u64, raw_kind)) {
        return code;
    }
    let code = rt.copy(dst, src, len as u64, kind);
    if code == error::SUCCESS && len > 0 {
        let bytes = len as u64;
        let (engine, ms) = crate::copy_engine::route(rt, (dst, rt.side(dst, bytes)), (src, rt.side(src, bytes)), bytes);
        on.place(rt, engine, ms);
    }
    code
}

/// # Safety
/// Host pointers must be valid for `size` bytes, as for the real `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(dst: *mut c_void, src: *const c_void, size: usize, kind: u32) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, kind, SYNC))
}

/// # Safety
/// As `hipMemcpy`; `stream` is 0 or a stream from `hipStreamCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyAsync(dst: *mut c_void, src: *const c_void, size: usize, kind: u32, stream: *mut c_void) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, kind, on_stream(stream)))
}

/// A copy from GPU `src_device`'s memory to GPU `dst_device`'s, on the link between them; the
/// pointers say where the bytes are (unified addresses), the ordinals must name GPUs of the
/// node.
fn copy_peer(rt: &mut Runtime, dst: u64, dst_device: c_int, src: u64, src_device: c_int, size: usize, on: On) -> u32 {
    let n = rt.gpus.len();
    if [dst_device, src_device].iter().any(|&d| usize::try_from(d).map_or(true, |d| d >= n)) {
        return error::INVALID_DEVICE;
    }
    copy_on(rt, dst, src, size, 3, on)
}

/// # Safety
/// As `hipMemcpy` between two devices' memory.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyPeer(dst: *mut c_void, dst_device: c_int, src: *const c_void, src_device: c_int, size: usize) -> u32 {
    with_runtime(|rt| copy_peer(rt, dst as u64, dst_device, src as u64, src_device, size, SYNC))
}

/// # Safety
/// As `hipMemcpyPeer`; `stream` is 0 or a stream from `hipStreamCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dst_device: c_int,
    src: *const c_void,
    src_device: c_int,
    size: usize,
    stream: *mut c_void,
) -> u32 {
    with_runtime(|rt| copy_peer(rt, dst as u64, dst_device, src as u64, src_device, size, on_stream(stream)))
}

/// `hipMemcpy` host to device.
///
/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoD(dst: *mut c_void, src: *const c_void, size: usize) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 1, SYNC))
}

/// `hipMemcpy` device to host.
///
/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoH(dst: *mut c_void, src: *const c_void, size: usize) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 2, SYNC))
}

/// `hipMemcpy` device to device.
///
/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoD(dst: *mut c_void, src: *const c_void, size: usize) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 3, SYNC))
}

/// `hipMemcpy2D`: `height` rows of `width` bytes, each side with its own pitch (one copy of
/// all its rows, `api/memory2d.rs`).
///
/// # Safety
/// Host pointers must be valid for the rows they describe.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: u32) -> u32 {
    let c = super::memory2d::Copy3d::rows2d(dst as u64, dpitch as u64, src as u64, spitch as u64, width as u64, height as u64, kind);
    with_runtime(|rt| super::memory2d::submit_copy(rt, c, SYNC))
}

/// A fill on `stream`: device-side, as the runtime's fill kernel is.
pub(super) fn fill_on(rt: &mut Runtime, dst: u64, pattern: &[u8], count: usize, on: On) -> u32 {
    if !rt.timeline.is_stream(on.stream) {
        return STREAM_GONE;
    }
    // A stream being captured into a graph records the fill instead (api/graph.rs).
    if let Some(code) = super::graph::capture_fill(on.stream, super::memory2d::Fill3d::linear(dst, pattern, count as u64)) {
        return code;
    }
    let code = rt.fill(dst, pattern, count as u64);
    if code == error::SUCCESS {
        let bytes = (count * pattern.len()) as u64;
        let ms = rt.fill_ms(bytes);
        on.place(rt, Engine::Compute, ms);
    }
    code
}

#[no_mangle]
pub extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &[value as u8], size, SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemsetAsync(dst: *mut c_void, value: c_int, size: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &[value as u8], size, on_stream(stream)))
}

#[no_mangle]
pub extern "C" fn hipMemsetD8(dst: *mut c_void, value: u8, count: usize) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &[value], count, SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemsetD16(dst: *mut c_void, value: u16, count: usize) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &value.to_le_bytes(), count, SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemsetD32(dst: *mut c_void, value: c_int, count: usize) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &value.to_le_bytes(), count, SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemsetD8Async(dst: *mut c_void, value: u8, count: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &[value], count, on_stream(stream)))
}

#[no_mangle]
pub extern "C" fn hipMemsetD16Async(dst: *mut c_void, value: u16, count: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &value.to_le_bytes(), count, on_stream(stream)))
}

#[no_mangle]
pub extern "C" fn hipMemsetD32Async(dst: *mut c_void, value: c_int, count: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| fill_on(rt, dst as u64, &value.to_le_bytes(), count, on_stream(stream)))
}

/// The device range `[offset, offset + size)` of a registered variable.
fn symbol_range(rt: &mut Runtime, symbol: *const c_void, size: usize, offset: usize) -> Result<u64, u32> {
    let (address, len) = rt.variable(symbol as usize).ok_or(error::INVALID_SYMBOL)?;
    let end = offset.checked_add(size).ok_or(error::INVALID_VALUE)?;
    if end as u64 > len {
        return Err(error::INVALID_VALUE);
    }
    Ok(address + offset as u64)
}

/// Whether `kind` may copy to (`to_device`) or from a variable: ROCm allows only
/// `hipMemcpyHostToDevice` (`hipMemcpyDeviceToHost` from a variable) and the device-to-device
/// kinds, and checks that first (clr `hipMemcpyToSymbol_common`, `hipMemcpyFromSymbol_common`).
fn symbol_kind(kind: u32, to_device: bool) -> bool {
    kind == if to_device { 1 } else { 2 } || kind == 3 || kind == DEVICE_TO_DEVICE_NO_CU
}

/// A copy into a variable: a copy to its device address once the range is checked.
fn to_symbol(rt: &mut Runtime, symbol: *const c_void, src: *const c_void, size: usize, offset: usize, kind: u32, on: On) -> u32 {
    if !symbol_kind(kind, true) {
        return error::INVALID_MEMCPY_DIRECTION;
    }
    match symbol_range(rt, symbol, size, offset) {
        Ok(dst) => copy_on(rt, dst, src as u64, size, kind, on),
        Err(e) => e,
    }
}

/// A copy out of a variable.
fn from_symbol(rt: &mut Runtime, dst: *mut c_void, symbol: *const c_void, size: usize, offset: usize, kind: u32, on: On) -> u32 {
    if !symbol_kind(kind, false) {
        return error::INVALID_MEMCPY_DIRECTION;
    }
    match symbol_range(rt, symbol, size, offset) {
        Ok(src) => copy_on(rt, dst as u64, src, size, kind, on),
        Err(e) => e,
    }
}

/// # Safety
/// `symbol` is a registered variable's host shadow; `src` valid for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbol(symbol: *const c_void, src: *const c_void, size: usize, offset: usize, kind: u32) -> u32 {
    with_runtime(|rt| to_symbol(rt, symbol, src, size, offset, kind, SYNC))
}

/// # Safety
/// As `hipMemcpyToSymbol`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyToSymbolAsync(symbol: *const c_void, src: *const c_void, size: usize, offset: usize, kind: u32, stream: *mut c_void) -> u32 {
    with_runtime(|rt| to_symbol(rt, symbol, src, size, offset, kind, on_stream(stream)))
}

/// # Safety
/// `symbol` is a registered variable's host shadow; `dst` valid for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbol(dst: *mut c_void, symbol: *const c_void, size: usize, offset: usize, kind: u32) -> u32 {
    with_runtime(|rt| from_symbol(rt, dst, symbol, size, offset, kind, SYNC))
}

/// # Safety
/// As `hipMemcpyFromSymbol`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyFromSymbolAsync(dst: *mut c_void, symbol: *const c_void, size: usize, offset: usize, kind: u32, stream: *mut c_void) -> u32 {
    with_runtime(|rt| from_symbol(rt, dst, symbol, size, offset, kind, on_stream(stream)))
}

/// # Safety
/// `ptr` is writable; `symbol` a registered variable's host shadow.
#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolAddress(ptr: *mut *mut c_void, symbol: *const c_void) -> u32 {
    with_runtime(|rt| match rt.variable(symbol as usize) {
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        Some((address, _)) => unsafe { put(ptr, address as *mut c_void) },
        None => error::INVALID_SYMBOL,
    })
}

/// # Safety
/// `size` is writable; `symbol` a registered variable's host shadow.
#[no_mangle]
pub unsafe extern "C" fn hipGetSymbolSize(size: *mut usize, symbol: *const c_void) -> u32 {
    with_runtime(|rt| match rt.variable(symbol as usize) {
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        Some((_, len)) => unsafe { put(size, len as usize) },
        None => error::INVALID_SYMBOL,
    })
}

/// Stream-ordered allocation. Work is done in order as it is enqueued here, so memory
/// allocated "at the stream's position" is simply allocated now.
///
/// # Safety
/// `ptr` is where the device address is written.
#[no_mangle]
pub unsafe extern "C" fn hipMallocAsync(ptr: *mut *mut c_void, size: usize, stream: *mut c_void) -> u32 {
    if !crate::on_runtime(|rt| rt.timeline.is_stream(stream as usize)).unwrap_or(false) {
        return with_runtime(|_| error::INVALID_HANDLE);
    }
    // SAFETY: the caller's contract.
    unsafe { allocate(ptr, size, AllocKind::Device) }
}

/// Stream-ordered release: everything enqueued before it has already run (see
/// `hipMallocAsync`), so the memory is released now.
#[no_mangle]
pub extern "C" fn hipFreeAsync(ptr: *mut c_void, stream: *mut c_void) -> u32 {
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::INVALID_HANDLE;
        }
        rt.free(ptr as u64, &AllocKind::ALL)
    })
}
