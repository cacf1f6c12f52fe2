//! Kernel launches with fuzzed shapes, arguments and streams: the registered `axpb` through
//! `hipLaunchKernel` and the cooperative launch, and `vadd` from a module loaded with
//! `hipModuleLoadData` through the module launches (kernelParams or a packed `extra`).

use super::input::Input;
use super::state::{State, STUB, UNREGISTERED, VADD_GFX942};
use crate::api::{launch, module};
use crate::Dim3;
use std::ffi::c_void;

/// Work-groups and block sizes per dimension: empty, one, typical, more than a block may
/// have, and more work-items than a dimension may have.
const GRID: [u32; 6] = [0, 1, 2, 7, 64, 1 << 23];
const BLOCK: [u32; 6] = [0, 1, 32, 64, 256, 2048];
/// Dynamic LDS bytes: none, some, the limit, one byte more, 1 GiB.
const LDS: [u64; 5] = [0, 1024, 65_536, 65_537, 1 << 30];
/// `n`: how many elements the kernel touches (it stores `y[i]` for `i < n`).
const COUNTS: [i32; 6] = [0, 1, 64, 1000, 1 << 20, -1];

/// Work-items a launch the runtime accepts may have: more would only make an input slow.
const MAX_LAUNCH_ITEMS: u64 = 1 << 16;

/// `grid`, or one work-group when `grid` blocks of `block` make a launch the runtime would
/// accept but with more than [`MAX_LAUNCH_ITEMS`] work-items (`per_group`: whether the grid
/// counts work-groups, as `hipLaunchKernel`'s does, or work-items).
fn bounded(grid: Dim3, block: Dim3, per_group: bool) -> Dim3 {
    let g = [grid.x, grid.y, grid.z].map(u64::from);
    let b = [block.x, block.y, block.z].map(u64::from);
    let per_dim: Vec<u64> = if per_group { g.iter().zip(&b).map(|(g, b)| g * b).collect() } else { g.to_vec() };
    let refused = per_dim.iter().any(|&d| d == 0 || d > u64::from(u32::MAX)) || b.iter().product::<u64>() > 1024 || b.contains(&0);
    if refused || per_dim.iter().product::<u64>() <= MAX_LAUNCH_ITEMS {
        grid
    } else if per_group {
        Dim3 { x: 1, y: 1, z: 1 }
    } else {
        block
    }
}

fn dim3(r: &mut Input) -> Dim3 {
    Dim3 { x: r.pick(&GRID), y: [1, 1, 1, 0, 2][r.index(5)], z: [1, 1, 1, 0, 1 << 17][r.index(5)] }
}

fn block(r: &mut Input) -> Dim3 {
    Dim3 { x: r.pick(&BLOCK), y: [1, 1, 2, 0][r.index(4)], z: [1, 1, 1, 0][r.index(4)] }
}

pub(super) fn kernel(st: &mut State, r: &mut Input) {
    let stub = match r.u8() % 4 {
        0 => &UNREGISTERED as *const u8 as *const c_void,
        1 => std::ptr::null(),
        _ => &STUB as *const u8 as *const c_void,
    };
    let (grid, blk, lds) = (dim3(r), block(r), r.pick(&LDS));
    let grid = bounded(grid, blk, true);
    // axpb's arguments: y, x, a, n (device pointers from the pools: a bad one faults the
    // kernel, which the fuzzer's runtime reports as an error instead of ending the process).
    let (mut y, mut x, mut a, mut n) = (st.pointer(r, 0), st.pointer(r, 0), 2.0f32, r.pick(&COUNTS));
    let mut args: [*mut c_void; 4] = [&mut y as *mut u64 as _, &mut x as *mut u64 as _, &mut a as *mut f32 as _, &mut n as *mut i32 as _];
    let args = if r.u8() % 8 == 0 { std::ptr::null_mut() } else { args.as_mut_ptr() };
    let s = st.stream(r) as *mut c_void;
    // SAFETY: `args` is null or four pointers to the arguments' values.
    let (op, code) = unsafe {
        match r.u8() % 3 {
            0 | 1 => ("hipLaunchKernel", launch::hipLaunchKernel(stub, grid, blk, args, lds as usize, s)),
            _ => ("hipLaunchCooperativeKernel", launch::hipLaunchCooperativeKernel(stub, grid, blk, args, lds as u32, s)),
        }
    };
    st.record(op, code);
}

/// `hipModuleLoadData`, `hipModuleGetFunction` (a real and an unknown name),
/// `hipModuleGetGlobal`, `hipModuleUnload` and the module launches.
pub(super) fn modules(st: &mut State, r: &mut Input) {
    let m = State::handle(r, &st.modules) as *mut c_void;
    let (mut out, mut f, mut p, mut bytes) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), 0usize);
    let name = if r.u8() % 4 == 0 { c"no_such_kernel" } else { c"vadd" };
    // SAFETY: the image is a whole code object; the out-parameters are locals.
    let (op, code) = unsafe {
        match r.u8() % 5 {
            0 | 1 => ("hipModuleLoadData", module::hipModuleLoadData(&mut out, VADD_GFX942.as_ptr() as *const c_void)),
            2 => ("hipModuleGetFunction", module::hipModuleGetFunction(&mut f, m, name.as_ptr())),
            3 => ("hipModuleGetGlobal", module::hipModuleGetGlobal(&mut p, &mut bytes, m, name.as_ptr())),
            _ => ("hipModuleUnload", module::hipModuleUnload(m)),
        }
    };
    st.record(op, code);
    if code == 0 {
        State::keep(&mut st.modules, out as usize);
        State::keep(&mut st.functions, f as usize);
    }
}

/// The packed `extra` argument buffer: vadd's four arguments as its kernarg segment lays them
/// out (a, b, c at 0, 8, 16; n at 24), or shorter.
const PACKED_BYTES: [usize; 4] = [28, 32, 16, 0];

pub(super) fn module_launch(st: &mut State, r: &mut Input) {
    let f = State::handle(r, &st.functions) as *mut c_void;
    let (grid, blk, lds) = (dim3(r), block(r), r.pick(&LDS));
    // hipModuleLaunchKernel counts work-groups, hipExtModuleLaunchKernel work-items.
    let ext = r.u8() % 2 == 1;
    let grid = bounded(grid, blk, !ext);
    let (mut a, mut b, mut c, mut n) = (st.pointer(r, 0), st.pointer(r, 0), st.pointer(r, 0), r.pick(&COUNTS));
    let mut params: [*mut c_void; 4] = [&mut a as *mut u64 as _, &mut b as *mut u64 as _, &mut c as *mut u64 as _, &mut n as *mut i32 as _];
    let mut packed = [0u8; 32];
    for (i, v) in [a, b, c].iter().enumerate() {
        packed[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    packed[24..28].copy_from_slice(&n.to_le_bytes());
    let mut size = r.pick(&PACKED_BYTES);
    // HIP_LAUNCH_PARAM_BUFFER_POINTER, _SIZE, _END, padded to the 16 entries the runtime
    // reads at most; a variant without END, one without the size.
    let mut extra: [*mut c_void; 16] = [std::ptr::null_mut(); 16];
    let layout: &[usize] = match r.u8() % 3 {
        0 => &[1, 0, 2, 1, 3, 0],
        1 => &[1, 0, 2, 1, 9, 0],
        _ => &[1, 0, 3, 0],
    };
    for (i, &k) in layout.iter().enumerate() {
        extra[i] = k as *mut c_void;
    }
    extra[1] = packed.as_mut_ptr() as *mut c_void;
    if layout[2] == 2 {
        extra[3] = &mut size as *mut usize as *mut c_void;
    }
    let (params, extra) = match r.u8() % 4 {
        0 => (std::ptr::null_mut(), extra.as_mut_ptr()),
        1 => (std::ptr::null_mut(), std::ptr::null_mut()),
        _ => (params.as_mut_ptr(), std::ptr::null_mut()),
    };
    let s = st.stream(r) as *mut c_void;
    let null = std::ptr::null_mut();
    // SAFETY: `params` holds four pointers to the arguments' values; `extra` is a padded
    // HIP_LAUNCH_PARAM array whose buffer is 32 bytes and whose size says at most that.
    let (op, code) = unsafe {
        match ext {
            false => ("hipModuleLaunchKernel", module::hipModuleLaunchKernel(f, grid.x, grid.y, grid.z, blk.x, blk.y, blk.z, lds as u32, s, params, extra)),
            true => (
                "hipExtModuleLaunchKernel",
                module::hipExtModuleLaunchKernel(f, grid.x, grid.y, grid.z, blk.x, blk.y, blk.z, lds as usize, s, params, extra, null, null, 0),
            ),
        }
    };
    st.record(op, code);
}
