//! Pitched allocations (`hipMallocPitch`, `hipMemAllocPitch`, `hipMalloc3D`), 2D and 3D copies
//! and fills over pitched pointers (`hipMemcpy2DAsync`, `hipMemcpyParam2D(Async)`,
//! `hipMemcpy3D(Async)`, `hipMemset2D(Async)`, `hipMemset3D(Async)`), and the remaining
//! linear copies (`hipMemcpyWithStream`, `hipMemcpyPeer(Async)`, `hipMemcpy{HtoD,DtoH,DtoD}Async`)
//! and `hipMemPtrGetInfo`.
//!
//! Every copy is a [`Copy3d`] and every fill a [`Fill3d`]: `depth` slices of `height` rows of
//! `width` bytes, each side with its own row pitch and slice pitch. Like the linear copies of
//! `api/memory.rs`, one runs in the simulator when the program calls it (its rows in order)
//! and is placed on the timeline once, as one transfer of all its bytes on the engine its
//! direction uses; a stream being captured into a graph records it instead (`api/graph.rs`).
//! A copy engine's per-row cost for narrow rows is not modelled.
//!
//! The direction is taken from where the pointers are (ROCm likewise picks the copy by the
//! memory objects, HIP docs "hipMemcpy": `hipMemcpyDefault` infers it); an explicit kind whose
//! device side is not device memory is `hipErrorInvalidValue`, as in `api/memory.rs`. hipArray
//! sides (`hipMemcpy3D` with `srcArray`/`dstArray`, `hipMemoryTypeArray`) are not supported.

use super::memory::{copy_on, on_stream, On, STREAM_GONE, SYNC};
use crate::memory::AllocKind;
use crate::runtime::{error, Runtime};
use crate::timeline::Engine;
use crate::transfer::{CopyKind, Side};
use crate::{put, with_runtime};
use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};

/// Row pitch alignment of `hipMallocPitch`/`hipMalloc3D`: ROCm aligns the pitch to the device's
/// image pitch alignment (ROCclr `imagePitchAlignment_`, 256 bytes on ROCm devices), so a
/// pitched allocation can back a 2D texture.
pub(super) const PITCH_ALIGNMENT: u64 = 256;

/// `hipPitchedPtr` (HIP 5.2 `driver_types.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PitchedPtr {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

/// `hipExtent` (HIP 5.2 `driver_types.h`): width in bytes for linear memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// `hipPos` (HIP 5.2 `driver_types.h`): x in bytes for linear memory.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Pos {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// `hipMemcpy3DParms` (HIP 5.2 `driver_types.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Memcpy3DParms {
    pub src_array: *mut c_void,
    pub src_pos: Pos,
    pub src_ptr: PitchedPtr,
    pub dst_array: *mut c_void,
    pub dst_pos: Pos,
    pub dst_ptr: PitchedPtr,
    pub extent: Extent,
    pub kind: u32,
}

/// `hip_Memcpy2D` (HIP 5.2 `driver_types.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Memcpy2D {
    src_x_in_bytes: usize,
    src_y: usize,
    src_memory_type: u32,
    src_host: *const c_void,
    src_device: *const c_void,
    src_array: *mut c_void,
    src_pitch: usize,
    dst_x_in_bytes: usize,
    dst_y: usize,
    dst_memory_type: u32,
    dst_host: *mut c_void,
    dst_device: *mut c_void,
    dst_array: *mut c_void,
    dst_pitch: usize,
    width_in_bytes: usize,
    height: usize,
}

// Sizes and offsets as the C compiler lays the HIP 5.2 headers out: `offsetof`/`sizeof` printed
// by a C program including /usr/include/hip/hip_runtime_api.h with -D__HIP_PLATFORM_AMD__
// (gcc, x86-64). The Rust layouts above must agree.
const _: () = {
    assert!(size_of::<PitchedPtr>() == 32 && size_of::<Extent>() == 24 && size_of::<Pos>() == 24);
    assert!(size_of::<Memcpy3DParms>() == 160);
    assert!(offset_of!(Memcpy3DParms, src_pos) == 8 && offset_of!(Memcpy3DParms, src_ptr) == 32);
    assert!(offset_of!(Memcpy3DParms, dst_array) == 64 && offset_of!(Memcpy3DParms, dst_pos) == 72);
    assert!(offset_of!(Memcpy3DParms, dst_ptr) == 96 && offset_of!(Memcpy3DParms, extent) == 128);
    assert!(offset_of!(Memcpy3DParms, kind) == 152);
    assert!(size_of::<Memcpy2D>() == 128);
    assert!(offset_of!(Memcpy2D, src_memory_type) == 16 && offset_of!(Memcpy2D, src_host) == 24);
    assert!(offset_of!(Memcpy2D, src_pitch) == 48 && offset_of!(Memcpy2D, dst_x_in_bytes) == 56);
    assert!(offset_of!(Memcpy2D, dst_memory_type) == 72 && offset_of!(Memcpy2D, dst_device) == 88);
    assert!(offset_of!(Memcpy2D, dst_pitch) == 104 && offset_of!(Memcpy2D, width_in_bytes) == 112);
    assert!(offset_of!(Memcpy2D, height) == 120);
};

/// `hipMemoryType` values of `hip_Memcpy2D`'s sides: (host, device, array, unified) as the
/// release the program was built against numbers them (HIP 6 renumbered the enum).
fn memory_types() -> (u32, u32, u32, u32) {
    use crate::abi::{hip6, hip7, memory_type as hip5, Release};
    match Release::current() {
        Release::Hip5 => (hip5::HOST, hip5::DEVICE, hip5::ARRAY, hip5::UNIFIED),
        Release::Hip6 => (hip6::memory_type::HOST, hip6::memory_type::DEVICE, hip6::memory_type::ARRAY, hip6::memory_type::UNIFIED),
        Release::Hip7 => (hip7::memory_type::HOST, hip7::memory_type::DEVICE, hip7::memory_type::ARRAY, hip7::memory_type::UNIFIED),
    }
}

/// `hipMemcpyDefault`.
const KIND_DEFAULT: u32 = 4;

/// A copy of `depth` slices of `height` rows of `width` bytes. Row `y` of slice `z` starts at
/// `base + z * slice + y * pitch` on each side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Copy3d {
    pub dst: u64,
    pub dst_pitch: u64,
    pub dst_slice: u64,
    pub src: u64,
    pub src_pitch: u64,
    pub src_slice: u64,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
    /// `hipMemcpyKind` as the program gave it.
    pub kind: u32,
}

impl Copy3d {
    /// A plain copy of `len` bytes.
    pub fn linear(dst: u64, src: u64, len: u64, kind: u32) -> Copy3d {
        Copy3d { dst, dst_pitch: len, dst_slice: len, src, src_pitch: len, src_slice: len, width: len, height: 1, depth: 1, kind }
    }

    /// `hipMemcpy2D`'s rows.
    pub fn rows2d(dst: u64, dpitch: u64, src: u64, spitch: u64, width: u64, height: u64, kind: u32) -> Copy3d {
        let (ds, ss) = (dpitch.saturating_mul(height), spitch.saturating_mul(height));
        Copy3d { dst, dst_pitch: dpitch, dst_slice: ds, src, src_pitch: spitch, src_slice: ss, width, height, depth: 1, kind }
    }

    /// A `hipMemcpy3DParms` over pitched pointers (no hipArray): positions are in bytes
    /// along x, rows along y and slices along z.
    pub fn from_parms(p: &Memcpy3DParms) -> Result<Copy3d, u32> {
        if !p.src_array.is_null() || !p.dst_array.is_null() {
            return Err(error::NOT_SUPPORTED);
        }
        let side = |ptr: &PitchedPtr, pos: &Pos| -> Option<(u64, u64, u64)> {
            let pitch = ptr.pitch as u64;
            let slice = pitch.checked_mul(ptr.ysize as u64)?;
            let offset = (pos.z as u64).checked_mul(slice)?.checked_add((pos.y as u64).checked_mul(pitch)?)?.checked_add(pos.x as u64)?;
            Some(((ptr.ptr as u64).checked_add(offset)?, pitch, slice))
        };
        let (Some((dst, dst_pitch, dst_slice)), Some((src, src_pitch, src_slice))) = (side(&p.dst_ptr, &p.dst_pos), side(&p.src_ptr, &p.src_pos)) else {
            return Err(error::INVALID_VALUE);
        };
        let e = p.extent;
        Ok(Copy3d { dst, dst_pitch, dst_slice, src, src_pitch, src_slice, width: e.width as u64, height: e.height as u64, depth: e.depth as u64, kind: p.kind })
    }

    /// Bytes moved.
    pub fn bytes(&self) -> u64 {
        self.width.saturating_mul(self.height).saturating_mul(self.depth)
    }

    /// Rows must fit their pitch, and slices their rows (`hipErrorInvalidPitchValue`,
    /// `hipErrorInvalidValue`), when there is more than one.
    fn check(&self) -> Result<(), u32> {
        let multi_row = self.height > 1 || self.depth > 1;
        if multi_row && (self.width > self.dst_pitch || self.width > self.src_pitch) {
            return Err(error::INVALID_PITCH_VALUE);
        }
        if self.depth > 1 && (self.dst_slice < self.dst_pitch.saturating_mul(self.height) || self.src_slice < self.src_pitch.saturating_mul(self.height)) {
            return Err(error::INVALID_VALUE);
        }
        Ok(())
    }

    /// (destination, source) start of every row, in order.
    fn rows(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        (0..self.depth).flat_map(move |z| {
            (0..self.height).map(move |y| (self.dst + z * self.dst_slice + y * self.dst_pitch, self.src + z * self.src_slice + y * self.src_pitch))
        })
    }
}

/// From the first to the last byte a pitched region touches.
fn span(width: u64, height: u64, depth: u64, pitch: u64, slice: u64) -> u64 {
    if width == 0 || height == 0 || depth == 0 {
        return 0;
    }
    (depth - 1) * slice + (height - 1) * pitch + width
}

/// A fill of `depth` slices of `height` rows of `width` elements of `pattern` (1, 2 or 4 bytes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Fill3d {
    pub dst: u64,
    pub pitch: u64,
    pub slice: u64,
    pub pattern: Vec<u8>,
    pub width: u64,
    pub height: u64,
    pub depth: u64,
}

impl Fill3d {
    /// `count` elements of `pattern` from `dst`.
    pub fn linear(dst: u64, pattern: &[u8], count: u64) -> Fill3d {
        let bytes = count.saturating_mul(pattern.len() as u64);
        Fill3d { dst, pitch: bytes, slice: bytes, pattern: pattern.to_vec(), width: count, height: 1, depth: 1 }
    }

    fn row_bytes(&self) -> u64 {
        self.width.saturating_mul(self.pattern.len() as u64)
    }

    pub fn bytes(&self) -> u64 {
        self.row_bytes().saturating_mul(self.height).saturating_mul(self.depth)
    }
}

/// Host memory of the program's, `len` bytes from `address`.
///
/// # Safety
/// HIP's contract for a host side of a copy: valid for `len` bytes.
unsafe fn host_bytes<'a>(address: u64, len: u64) -> &'a [u8] {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(address as *const u8, len as usize) }
}

/// Write rows into device-reachable memory as a copy engine does (memory, not caches), with the
/// shared-memory bookkeeping of `Runtime::write` done once for all rows.
fn write_rows(rt: &mut Runtime, rows: &[(u64, Vec<u8>)]) -> u32 {
    rt.host_to_device();
    let mut code = error::SUCCESS;
    for (address, bytes) in rows {
        rt.invalidate_all(*address, bytes.len() as u64);
        if rt.mem_at(*address).write(*address, bytes).is_err() {
            code = error::INVALID_VALUE;
            break;
        }
    }
    rt.device_to_host();
    code
}

/// Read rows of device-reachable memory after everything before them finished.
fn read_rows(rt: &mut Runtime, rows: impl Iterator<Item = u64>, len: u64) -> Result<Vec<Vec<u8>>, u32> {
    rt.host_to_device();
    rt.synchronize_all();
    rows.map(|a| {
        let mut buf = vec![0u8; len as usize];
        rt.mem_at(a).read(a, &mut buf).map(|()| buf).map_err(|_| error::INVALID_VALUE)
    })
    .collect()
}

/// Run a copy now and place it on `on`'s stream. No capture check: graphs run their copy
/// nodes through here. The direction comes from where the two spans lie
/// ([`crate::transfer`]); each must lie in one allocation when it is device-side.
pub(super) fn run_copy(rt: &mut Runtime, c: &Copy3d, on: On) -> u32 {
    let Some(kind) = CopyKind::from_raw(c.kind) else { return error::INVALID_MEMCPY_DIRECTION };
    if !rt.timeline.is_stream(on.stream) {
        return STREAM_GONE;
    }
    if let Err(e) = c.check() {
        return e;
    }
    let bytes = c.bytes();
    if bytes == 0 {
        return error::SUCCESS;
    }
    if usize::try_from(bytes).is_err() {
        return error::INVALID_VALUE;
    }
    let dst = rt.side(c.dst, span(c.width, c.height, c.depth, c.dst_pitch, c.dst_slice));
    let src = rt.side(c.src, span(c.width, c.height, c.depth, c.src_pitch, c.src_slice));
    let code = match (dst, src) {
        (Side::Bad, _) | (_, Side::Bad) => error::INVALID_VALUE,
        (Side::Host, Side::Host) if !matches!(kind, CopyKind::HostToHost | CopyKind::Default) => error::INVALID_VALUE,
        (Side::Host, Side::Host) => {
            for (d, s) in c.rows() {
                // SAFETY: both host rows valid for `width` bytes (the caller's contract); `copy`
                // allows overlap.
                unsafe { std::ptr::copy(s as *const u8, d as *mut u8, c.width as usize) };
            }
            error::SUCCESS
        }
        (Side::Device, Side::Host) => {
            // SAFETY: each source row is the caller's host memory of `width` bytes.
            let rows: Vec<(u64, Vec<u8>)> = c.rows().map(|(d, s)| (d, unsafe { host_bytes(s, c.width) }.to_vec())).collect();
            write_rows(rt, &rows)
        }
        (Side::Host, Side::Device) => match read_rows(rt, c.rows().map(|(_, s)| s), c.width) {
            Ok(data) => {
                for ((d, _), row) in c.rows().zip(&data) {
                    // SAFETY: the caller's host row of `width` bytes.
                    unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), d as *mut u8, row.len()) };
                }
                error::SUCCESS
            }
            Err(e) => e,
        },
        (Side::Device, Side::Device) => match read_rows(rt, c.rows().map(|(_, s)| s), c.width) {
            Ok(data) => {
                let rows: Vec<(u64, Vec<u8>)> = c.rows().map(|(d, _)| d).zip(data).collect();
                write_rows(rt, &rows)
            }
            Err(e) => e,
        },
    };
    if code == error::SUCCESS {
        let (engine, ms) = crate::copy_engine::route(rt, (c.dst, dst), (c.src, src), bytes);
        on.place(rt, engine, ms);
    }
    code
}

/// A copy the program asked for: recorded by a capturing stream, else run.
pub(super) fn submit_copy(rt: &mut Runtime, c: Copy3d, on: On) -> u32 {
    if CopyKind::from_raw(c.kind).is_none() {
        return error::INVALID_MEMCPY_DIRECTION;
    }
    if !rt.timeline.is_stream(on.stream) {
        return STREAM_GONE;
    }
    if let Err(e) = c.check() {
        return e;
    }
    if let Some(code) = super::graph::capture_copy(on.stream, c) {
        return code;
    }
    run_copy(rt, &c, on)
}

/// Run a fill now and place it on `on`'s stream (device-side, as ROCm's fill kernel).
pub(super) fn run_fill(rt: &mut Runtime, f: &Fill3d, on: On) -> u32 {
    if !rt.timeline.is_stream(on.stream) {
        return STREAM_GONE;
    }
    let row = f.row_bytes();
    if (f.height > 1 || f.depth > 1) && row > f.pitch || f.depth > 1 && f.slice < f.pitch.saturating_mul(f.height) {
        return error::INVALID_PITCH_VALUE;
    }
    let bytes = f.bytes();
    if bytes == 0 {
        return error::SUCCESS;
    }
    if usize::try_from(bytes).is_err() || rt.side(f.dst, span(row, f.height, f.depth, f.pitch, f.slice)) != Side::Device {
        return error::INVALID_VALUE;
    }
    let data: Vec<u8> = f.pattern.iter().copied().cycle().take(row as usize).collect();
    let rows: Vec<(u64, Vec<u8>)> =
        (0..f.depth).flat_map(|z| (0..f.height).map(move |y| f.dst + z * f.slice + y * f.pitch)).map(|a| (a, data.clone())).collect();
    let code = write_rows(rt, &rows);
    if code == error::SUCCESS {
        let ms = rt.fill_ms(bytes);
        on.place(rt, Engine::Compute, ms);
    }
    code
}

/// A fill the program asked for: recorded by a capturing stream, else run.
fn submit_fill(rt: &mut Runtime, f: Fill3d, on: On) -> u32 {
    if !rt.timeline.is_stream(on.stream) {
        return STREAM_GONE;
    }
    if let Some(code) = super::graph::capture_fill(on.stream, f.clone()) {
        return code;
    }
    run_fill(rt, &f, on)
}

/// A pitched allocation of `height * depth` rows of `width` bytes; its base and pitch.
fn malloc_pitched(rt: &mut Runtime, width: u64, height: u64, depth: u64) -> Result<(u64, u64), u32> {
    let pitch = width.checked_next_multiple_of(PITCH_ALIGNMENT).ok_or(error::OUT_OF_MEMORY)?;
    if width == 0 || height == 0 || depth == 0 {
        // ROCm (hip_memory.cpp ihipMallocPitch): nothing to allocate, a null pointer.
        return Ok((0, pitch));
    }
    let bytes = pitch.checked_mul(height).and_then(|b| b.checked_mul(depth)).ok_or(error::OUT_OF_MEMORY)?;
    Ok((rt.malloc(bytes, AllocKind::Device)?, pitch))
}

/// # Safety
/// `ptr` and `pitch` are writable.
#[no_mangle]
pub unsafe extern "C" fn hipMallocPitch(ptr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize) -> u32 {
    if ptr.is_null() || pitch.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|rt| match malloc_pitched(rt, width as u64, height as u64, 1) {
        // SAFETY: both non-null, the caller's out-parameters.
        Ok((base, p)) => unsafe {
            put(pitch, p as usize);
            put(ptr, base as *mut c_void)
        },
        Err(e) => e,
    })
}

/// The driver-API name: `elementSizeBytes` (4, 8 or 16) only bounds the access size in CUDA.
///
/// # Safety
/// `ptr` and `pitch` are writable.
#[no_mangle]
pub unsafe extern "C" fn hipMemAllocPitch(ptr: *mut *mut c_void, pitch: *mut usize, width: usize, height: usize, _element_size: c_uint) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipMallocPitch(ptr, pitch, width, height) }
}

/// # Safety
/// `pitched` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc3D(pitched: *mut PitchedPtr, extent: Extent) -> u32 {
    if pitched.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|rt| match malloc_pitched(rt, extent.width as u64, extent.height as u64, extent.depth as u64) {
        Ok((base, pitch)) => {
            let p = PitchedPtr { ptr: base as *mut c_void, pitch: pitch as usize, xsize: extent.width, ysize: extent.height };
            // SAFETY: non-null, the caller's out-parameter.
            unsafe { put(pitched, p) }
        }
        Err(e) => e,
    })
}

/// # Safety
/// Host sides valid for the rows they describe.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipMemcpy2DAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: *mut c_void,
) -> u32 {
    let c = Copy3d::rows2d(dst as u64, dpitch as u64, src as u64, spitch as u64, width as u64, height as u64, kind);
    with_runtime(|rt| {
        // ROCm checks a 2D copy's stream first and answers hipErrorInvalidValue
        // (`hipMemcpy2DValidateParams`), unlike its other copies.
        if !rt.timeline.is_stream(stream as usize) {
            return error::INVALID_VALUE;
        }
        submit_copy(rt, c, on_stream(stream))
    })
}

/// A `hip_Memcpy2D` as a copy (no hipArray sides).
///
/// # Safety
/// `p` points to a `hip_Memcpy2D`.
unsafe fn param2d(rt: &mut Runtime, p: *const Memcpy2D, on: On) -> u32 {
    if p.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: the caller's struct.
    let p = unsafe { *p };
    let (host, device, array, unified) = memory_types();
    if p.src_memory_type == array || p.dst_memory_type == array {
        return rt.unsupported("hipMemcpyParam2D with a hipArray side");
    }
    let side = |ty: u32, h: u64, d: u64| {
        if ty == host {
            Some(h)
        } else if ty == device || ty == unified {
            Some(d)
        } else {
            None
        }
    };
    let (Some(src), Some(dst)) =
        (side(p.src_memory_type, p.src_host as u64, p.src_device as u64), side(p.dst_memory_type, p.dst_host as u64, p.dst_device as u64))
    else {
        return error::INVALID_VALUE;
    };
    let (s_host, d_host) = (p.src_memory_type == host, p.dst_memory_type == host);
    let (s_dev, d_dev) = (p.src_memory_type == device, p.dst_memory_type == device);
    let kind = match (s_host, s_dev, d_host, d_dev) {
        (true, _, true, _) => 0,
        (true, _, _, true) => 1,
        (_, true, true, _) => 2,
        (_, true, _, true) => 3,
        _ => KIND_DEFAULT,
    };
    let at = |base: u64, x: usize, y: usize, pitch: usize| base.wrapping_add(y as u64 * pitch as u64 + x as u64);
    let c = Copy3d::rows2d(
        at(dst, p.dst_x_in_bytes, p.dst_y, p.dst_pitch),
        p.dst_pitch as u64,
        at(src, p.src_x_in_bytes, p.src_y, p.src_pitch),
        p.src_pitch as u64,
        p.width_in_bytes as u64,
        p.height as u64,
        kind,
    );
    submit_copy(rt, c, on)
}

/// # Safety
/// `p` points to a `hip_Memcpy2D` whose host sides are valid for their rows.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2D(p: *const c_void) -> u32 {
    // SAFETY: the caller's contract.
    with_runtime(|rt| unsafe { param2d(rt, p as *const Memcpy2D, SYNC) })
}

/// # Safety
/// As `hipMemcpyParam2D`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyParam2DAsync(p: *const c_void, stream: *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    with_runtime(|rt| unsafe { param2d(rt, p as *const Memcpy2D, on_stream(stream)) })
}

/// # Safety
/// `p` points to a `hipMemcpy3DParms`.
unsafe fn memcpy3d(rt: &mut Runtime, p: *const Memcpy3DParms, on: On) -> u32 {
    if p.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: the caller's struct.
    match Copy3d::from_parms(unsafe { &*p }) {
        Ok(c) => submit_copy(rt, c, on),
        Err(error::NOT_SUPPORTED) => rt.unsupported("hipMemcpy3D with a hipArray side"),
        Err(e) => e,
    }
}

/// # Safety
/// `p` points to a `hipMemcpy3DParms` whose host sides are valid for their rows.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3D(p: *const Memcpy3DParms) -> u32 {
    // SAFETY: the caller's contract.
    with_runtime(|rt| unsafe { memcpy3d(rt, p, SYNC) })
}

/// # Safety
/// As `hipMemcpy3D`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy3DAsync(p: *const Memcpy3DParms, stream: *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    with_runtime(|rt| unsafe { memcpy3d(rt, p, on_stream(stream)) })
}

/// `height` rows of `width` bytes set to `value`.
fn fill2d(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> Fill3d {
    let (pitch, height) = (pitch as u64, height as u64);
    Fill3d { dst: dst as u64, pitch, slice: pitch.saturating_mul(height), pattern: vec![value as u8], width: width as u64, height, depth: 1 }
}

#[no_mangle]
pub extern "C" fn hipMemset2D(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize) -> u32 {
    with_runtime(|rt| submit_fill(rt, fill2d(dst, pitch, value, width, height), SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemset2DAsync(dst: *mut c_void, pitch: usize, value: c_int, width: usize, height: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| submit_fill(rt, fill2d(dst, pitch, value, width, height), on_stream(stream)))
}

/// `extent.width` bytes of each of `height` rows of each of `depth` slices.
fn fill3d(pitched: PitchedPtr, value: c_int, extent: Extent) -> Fill3d {
    let pitch = pitched.pitch as u64;
    Fill3d {
        dst: pitched.ptr as u64,
        pitch,
        slice: pitch.saturating_mul(pitched.ysize as u64),
        pattern: vec![value as u8],
        width: extent.width as u64,
        height: extent.height as u64,
        depth: extent.depth as u64,
    }
}

#[no_mangle]
pub extern "C" fn hipMemset3D(pitched: PitchedPtr, value: c_int, extent: Extent) -> u32 {
    with_runtime(|rt| submit_fill(rt, fill3d(pitched, value, extent), SYNC))
}

#[no_mangle]
pub extern "C" fn hipMemset3DAsync(pitched: PitchedPtr, value: c_int, extent: Extent, stream: *mut c_void) -> u32 {
    with_runtime(|rt| submit_fill(rt, fill3d(pitched, value, extent), on_stream(stream)))
}

/// A synchronous copy ordered on `stream`: the host waits for it (ROCm's `hipMemcpyWithStream`,
/// what rocBLAS and MIOpen use for their blocking copies).
///
/// # Safety
/// As `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyWithStream(dst: *mut c_void, src: *const c_void, size: usize, kind: u32, stream: *mut c_void) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, kind, On { stream: stream as usize, blocking: true }))
}

/// # Safety
/// As `hipMemcpyAsync` host to device.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyHtoDAsync(dst: *mut c_void, src: *const c_void, size: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 1, on_stream(stream)))
}

/// # Safety
/// As `hipMemcpyAsync` device to host.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoHAsync(dst: *mut c_void, src: *const c_void, size: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 2, on_stream(stream)))
}

/// # Safety
/// As `hipMemcpyAsync` device to device.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpyDtoDAsync(dst: *mut c_void, src: *const c_void, size: usize, stream: *mut c_void) -> u32 {
    with_runtime(|rt| copy_on(rt, dst as u64, src as u64, size, 3, on_stream(stream)))
}

/// The size the program allocated at the allocation holding `ptr` (ROCm: the memory object's
/// size, for any address inside it).
///
/// # Safety
/// `size` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipMemPtrGetInfo(ptr: *mut c_void, size: *mut usize) -> u32 {
    with_runtime(|rt| match rt.memory.holding(ptr as u64, 1) {
        // SAFETY: the caller's out-parameter (null is refused by `put`).
        Some((_, a)) => unsafe { put(size, a.requested as usize) },
        None => error::INVALID_VALUE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_3d_copy_visits_every_row_of_every_slice() {
        let p = Memcpy3DParms {
            src_array: std::ptr::null_mut(),
            src_pos: Pos { x: 4, y: 1, z: 1 },
            src_ptr: PitchedPtr { ptr: 0x1000 as *mut c_void, pitch: 256, xsize: 100, ysize: 8 },
            dst_array: std::ptr::null_mut(),
            dst_pos: Pos { x: 0, y: 0, z: 0 },
            dst_ptr: PitchedPtr { ptr: 0x9000 as *mut c_void, pitch: 64, xsize: 64, ysize: 3 },
            extent: Extent { width: 40, height: 3, depth: 2 },
            kind: KIND_DEFAULT,
        };
        let c = Copy3d::from_parms(&p).unwrap();
        assert_eq!(c.src, 0x1000 + 256 * 8 + 256 + 4);
        assert_eq!((c.src_slice, c.dst_slice), (256 * 8, 64 * 3));
        let rows: Vec<(u64, u64)> = c.rows().collect();
        assert_eq!(rows.len(), 6);
        assert_eq!(rows[4], (0x9000 + 192 + 64, c.src + 2048 + 256));
        assert_eq!(c.bytes(), 240);
        assert!(c.check().is_ok());
        assert_eq!(span(40, 3, 2, 64, 192), 192 + 128 + 40);
        // Rows wider than the destination pitch.
        let wide = Copy3d { width: 65, ..c };
        assert_eq!(wide.check(), Err(error::INVALID_PITCH_VALUE));
        // Slices shorter than their rows.
        let thin = Copy3d { dst_slice: 64, ..c };
        assert_eq!(thin.check(), Err(error::INVALID_VALUE));
        // A hipArray side is not supported.
        let arr = Memcpy3DParms { dst_array: 8 as *mut c_void, ..p };
        assert_eq!(Copy3d::from_parms(&arr), Err(error::NOT_SUPPORTED));
    }
}
