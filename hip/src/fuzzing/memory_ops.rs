//! Allocation, copies, fills, symbols and pointer queries with fuzzed arguments.

use super::input::Input;
use super::state::{State, SHADOW, UNREGISTERED};
use crate::api::memory2d::{Extent, Memcpy3DParms, PitchedPtr, Pos};
use crate::api::{memory as m, memory2d as m2};
use std::ffi::c_void;

/// Allocation sizes: zero, odd sizes and page boundaries, a 2 MiB block and one byte more,
/// 256 MiB, 16 GiB (more than a test host has, never all touched), 1 TiB (more than any
/// simulated GPU has) and the largest `size_t`.
const ALLOC_BYTES: [u64; 13] = [0, 1, 100, 4095, 4096, 4097, 65536, 2 << 20, (2 << 20) + 1, 256 << 20, 16 << 30, 1 << 40, u64::MAX];
/// Managed and pinned memory is host memory the runtime copies whole at each launch and copy:
/// larger sizes are allocated as device memory instead, to keep an input fast.
const HOST_VISIBLE_MAX_BYTES: u64 = 1 << 20;
/// Copy and fill lengths: around small buffers' ends, pages, and lengths no buffer has.
const LENGTHS: [u64; 12] = [0, 1, 3, 4, 99, 100, 101, 4096, 4097, 65536, 1 << 20, 1 << 40];
/// `hipMemcpyKind` values: the five kinds, hipMemcpyDeviceToDeviceNoCU, and a bad one.
const KINDS: [u32; 7] = [0, 1, 2, 3, 4, 1024, 42];
/// Row widths, heights, pitches and depths of 2D and 3D copies and fills.
const WIDTHS: [u64; 6] = [0, 1, 20, 64, 100, 256];
const HEIGHTS: [u64; 5] = [0, 1, 3, 5, 64];
const PITCHES: [u64; 6] = [0, 1, 20, 64, 256, 4096];
const DEPTHS: [u64; 4] = [0, 1, 2, 3];

/// From the first to the last byte `depth` slices of `height` rows of `width` bytes touch,
/// at `pitch` per row and `ysize` rows per slice (a bound on what the runtime may touch of a
/// host side; saturating, so an impossible shape is simply too long for a host buffer).
fn span(width: u64, height: u64, depth: u64, pitch: u64, ysize: u64) -> u64 {
    if width == 0 || height == 0 || depth == 0 {
        return 0;
    }
    let slice = pitch.saturating_mul(ysize.max(height));
    (depth - 1).saturating_mul(slice).saturating_add((height - 1).saturating_mul(pitch)).saturating_add(width)
}

pub(super) fn malloc(st: &mut State, r: &mut Input) {
    let bytes = r.pick(&ALLOC_BYTES);
    let mut p = std::ptr::null_mut();
    let which = r.u8() % 5;
    let which = if bytes > HOST_VISIBLE_MAX_BYTES && matches!(which, 1 | 2) { 0 } else { which };
    // SAFETY: `p` is a local out-parameter.
    let (op, code) = unsafe {
        match which {
            0 => ("hipMalloc", m::hipMalloc(&mut p, bytes as usize)),
            1 => ("hipMallocManaged", m::hipMallocManaged(&mut p, bytes as usize, 1)),
            2 => ("hipHostMalloc", m::hipHostMalloc(&mut p, bytes as usize, 0)),
            3 => ("hipMallocAsync", m::hipMallocAsync(&mut p, bytes as usize, st.stream(r) as *mut c_void)),
            _ => ("hipMalloc(null)", m::hipMalloc(std::ptr::null_mut(), bytes as usize)),
        }
    };
    st.record(op, code);
    if code == 0 {
        st.add_buffer(p as u64, bytes);
    }
}

pub(super) fn pitched(st: &mut State, r: &mut Input) {
    let (w, h, d) = (r.pick(&WIDTHS), r.pick(&HEIGHTS), r.pick(&DEPTHS));
    if r.u8() % 2 == 0 {
        let (mut p, mut pitch) = (std::ptr::null_mut(), 0usize);
        // SAFETY: local out-parameters.
        let code = unsafe { m2::hipMallocPitch(&mut p, &mut pitch, w as usize, h as usize) };
        st.record("hipMallocPitch", code);
        if code == 0 {
            st.add_buffer(p as u64, pitch as u64 * h);
        }
    } else {
        let mut pp = PitchedPtr { ptr: std::ptr::null_mut(), pitch: 0, xsize: 0, ysize: 0 };
        // SAFETY: a local out-parameter.
        let code = unsafe { m2::hipMalloc3D(&mut pp, Extent { width: w as usize, height: h as usize, depth: d as usize }) };
        st.record("hipMalloc3D", code);
        if code == 0 {
            st.add_buffer(pp.ptr as u64, (pp.pitch as u64) * h * d);
        }
    }
}

pub(super) fn free(st: &mut State, r: &mut Input) {
    let p = st.pointer(r, 0) as *mut c_void;
    let (op, code) = match r.u8() % 3 {
        0 => ("hipFree", m::hipFree(p)),
        1 => ("hipHostFree", m::hipHostFree(p)),
        _ => ("hipFreeAsync", m::hipFreeAsync(p, st.stream(r) as *mut c_void)),
    };
    st.record(op, code);
    if code == 0 {
        if let Some(b) = st.buffers.iter_mut().find(|b| b.ptr == p as u64 && b.live) {
            b.live = false;
        }
    }
}

pub(super) fn copy(st: &mut State, r: &mut Input) {
    let len = r.pick(&LENGTHS);
    let (dst, src) = (st.pointer(r, len) as *mut c_void, st.pointer(r, len) as *const c_void);
    let (kind, stream, n) = (r.pick(&KINDS), st.stream(r) as *mut c_void, len as usize);
    // SAFETY: every host side is a host buffer with `len` bytes of room (`State::pointer`).
    let (op, code) = unsafe {
        match r.u8() % 9 {
            0 => ("hipMemcpy", m::hipMemcpy(dst, src, n, kind)),
            1 => ("hipMemcpyAsync", m::hipMemcpyAsync(dst, src, n, kind, stream)),
            2 => ("hipMemcpyWithStream", m2::hipMemcpyWithStream(dst, src, n, kind, stream)),
            3 => ("hipMemcpyHtoD", m::hipMemcpyHtoD(dst, src, n)),
            4 => ("hipMemcpyDtoH", m::hipMemcpyDtoH(dst, src, n)),
            5 => ("hipMemcpyDtoD", m::hipMemcpyDtoD(dst, src, n)),
            6 => ("hipMemcpyPeer", m::hipMemcpyPeer(dst, i32::from(r.u8() % 2), src, 0, n)),
            7 => ("hipMemcpyHtoDAsync", m2::hipMemcpyHtoDAsync(dst, src, n, stream)),
            _ => ("hipMemcpyDtoDAsync", m2::hipMemcpyDtoDAsync(dst, src, n, stream)),
        }
    };
    st.record(op, code);
}

pub(super) fn fill(st: &mut State, r: &mut Input) {
    let count = r.pick(&LENGTHS) as usize;
    let dst = st.pointer(r, 0) as *mut c_void;
    let (value, stream) = (r.u8(), st.stream(r) as *mut c_void);
    let (op, code) = match r.u8() % 6 {
        0 => ("hipMemset", m::hipMemset(dst, i32::from(value), count)),
        1 => ("hipMemsetAsync", m::hipMemsetAsync(dst, i32::from(value), count, stream)),
        2 => ("hipMemsetD8", m::hipMemsetD8(dst, value, count)),
        3 => ("hipMemsetD16", m::hipMemsetD16(dst, u16::from(value), count)),
        4 => ("hipMemsetD32", m::hipMemsetD32(dst, i32::from(value), count)),
        _ => ("hipMemsetD32Async", m::hipMemsetD32Async(dst, i32::from(value), count, stream)),
    };
    st.record(op, code);
}

pub(super) fn copy2d(st: &mut State, r: &mut Input) {
    let (w, h) = (r.pick(&WIDTHS), r.pick(&HEIGHTS));
    let (dpitch, spitch) = (r.pick(&PITCHES), r.pick(&PITCHES));
    let dst = st.pointer(r, span(w, h, 1, dpitch, h)) as *mut c_void;
    let src = st.pointer(r, span(w, h, 1, spitch, h)) as *const c_void;
    let (kind, stream) = (r.pick(&KINDS), st.stream(r) as *mut c_void);
    let (w, h, dp, sp) = (w as usize, h as usize, dpitch as usize, spitch as usize);
    // SAFETY: host sides have room for every row (`span`).
    let (op, code) = unsafe {
        match r.u8() % 4 {
            0 => ("hipMemcpy2D", m::hipMemcpy2D(dst, dp, src, sp, w, h, kind)),
            1 => ("hipMemcpy2DAsync", m2::hipMemcpy2DAsync(dst, dp, src, sp, w, h, kind, stream)),
            2 => ("hipMemset2D", m2::hipMemset2D(dst, dp, i32::from(r.u8()), w, h)),
            _ => ("hipMemset2DAsync", m2::hipMemset2DAsync(dst, dp, i32::from(r.u8()), w, h, stream)),
        }
    };
    st.record(op, code);
}

pub(super) fn copy3d(st: &mut State, r: &mut Input) {
    let e = Extent { width: r.pick(&WIDTHS) as usize, height: r.pick(&HEIGHTS) as usize, depth: r.pick(&DEPTHS) as usize };
    let (dp, sp, dy, sy) = (r.pick(&PITCHES), r.pick(&PITCHES), r.pick(&HEIGHTS), r.pick(&HEIGHTS));
    let (w, h, d) = (e.width as u64, e.height as u64, e.depth as u64);
    let dst = PitchedPtr { ptr: st.pointer(r, span(w, h, d, dp, dy)) as *mut c_void, pitch: dp as usize, xsize: w as usize, ysize: dy as usize };
    let src = PitchedPtr { ptr: st.pointer(r, span(w, h, d, sp, sy)) as *mut c_void, pitch: sp as usize, xsize: w as usize, ysize: sy as usize };
    let origin = Pos { x: 0, y: 0, z: 0 };
    let p = Memcpy3DParms {
        src_array: std::ptr::null_mut(),
        src_pos: origin,
        src_ptr: src,
        dst_array: std::ptr::null_mut(),
        dst_pos: origin,
        dst_ptr: dst,
        extent: e,
        kind: r.pick(&KINDS),
    };
    let stream = st.stream(r) as *mut c_void;
    // SAFETY: host sides have room for every row of every slice (`span`).
    let (op, code) = unsafe {
        match r.u8() % 4 {
            0 => ("hipMemcpy3D", m2::hipMemcpy3D(&p)),
            1 => ("hipMemcpy3DAsync", m2::hipMemcpy3DAsync(&p, stream)),
            2 => ("hipMemset3D", m2::hipMemset3D(dst, i32::from(r.u8()), e)),
            _ => ("hipMemset3DAsync", m2::hipMemset3DAsync(dst, i32::from(r.u8()), e, stream)),
        }
    };
    st.record(op, code);
}

pub(super) fn symbol(st: &mut State, r: &mut Input) {
    let symbol = match r.u8() % 3 {
        0 => &SHADOW as *const u8 as *const c_void,
        1 => &UNREGISTERED as *const u8 as *const c_void,
        _ => std::ptr::null(),
    };
    let (size, offset) = (r.pick(&[0u64, 1, 4, 5, 8, 1 << 40]), r.pick(&[0u64, 1, 3, 4, u64::MAX]));
    let other = st.pointer(r, size);
    let (kind, stream) = (r.pick(&KINDS), st.stream(r) as *mut c_void);
    let (n, o) = (size as usize, offset as usize);
    let (mut addr, mut bytes) = (std::ptr::null_mut(), 0usize);
    // SAFETY: a host `other` has `size` bytes of room; the out-parameters are locals.
    let (op, code) = unsafe {
        match r.u8() % 6 {
            0 => ("hipMemcpyToSymbol", m::hipMemcpyToSymbol(symbol, other as *const c_void, n, o, kind)),
            1 => ("hipMemcpyToSymbolAsync", m::hipMemcpyToSymbolAsync(symbol, other as *const c_void, n, o, kind, stream)),
            2 => ("hipMemcpyFromSymbol", m::hipMemcpyFromSymbol(other as *mut c_void, symbol, n, o, kind)),
            3 => ("hipMemcpyFromSymbolAsync", m::hipMemcpyFromSymbolAsync(other as *mut c_void, symbol, n, o, kind, stream)),
            4 => ("hipGetSymbolAddress", m::hipGetSymbolAddress(&mut addr, symbol)),
            _ => ("hipGetSymbolSize", m::hipGetSymbolSize(&mut bytes, symbol)),
        }
    };
    st.record(op, code);
}

/// Questions about a pointer, with real out-parameters (a null one is the runtime's to refuse).
pub(super) fn query(st: &mut State, r: &mut Input) {
    let p = st.pointer(r, 0) as *mut c_void;
    let mut attr = [0u8; 256];
    let (mut out, mut size, mut free, mut total) = (std::ptr::null_mut(), 0usize, 0usize, 0usize);
    // SAFETY: local out-parameters, `attr` larger than any release's hipPointerAttribute_t.
    let (op, code) = unsafe {
        match r.u8() % 5 {
            0 => ("hipPointerGetAttributes", m::hipPointerGetAttributes(attr.as_mut_ptr() as *mut c_void, p)),
            1 => ("hipMemPtrGetInfo", m2::hipMemPtrGetInfo(p, &mut size)),
            2 => ("hipHostGetDevicePointer", m::hipHostGetDevicePointer(&mut out, p, 0)),
            3 => ("hipMemGetInfo", m::hipMemGetInfo(&mut free, &mut total)),
            _ => ("hipMemGetInfo(null)", m::hipMemGetInfo(std::ptr::null_mut(), &mut total)),
        }
    };
    st.record(op, code);
}
