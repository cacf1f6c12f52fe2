//! Launches (`<<<>>>`, which clang lowers to a pushed call configuration and a host stub that
//! calls `hipLaunchKernel`), and what a program may ask about a kernel before launching it.

use crate::abi::hip_func_attributes as fa;
use crate::runtime::{error, LaunchFailure, Runtime};
use crate::{put, with_runtime_queued, Dim3};
use hipscope_isa::target::Family;
use hipscope_sim::timing::placement::Occupancy;
use std::cell::RefCell;
use std::ffi::{c_int, c_uint, c_void};

thread_local! {
    /// `<<<grid, block, shmem, stream>>>` configurations pushed by launch stubs.
    static CALL_CONFIG: RefCell<Vec<(Dim3, Dim3, usize, *mut c_void)>> = const { RefCell::new(Vec::new()) };
}

/// # Safety
/// Plain values; called by `<<<>>>` before the launch stub.
#[no_mangle]
pub unsafe extern "C" fn __hipPushCallConfiguration(grid: Dim3, block: Dim3, shared_mem: usize, stream: *mut c_void) -> u32 {
    CALL_CONFIG.with(|c| c.borrow_mut().push((grid, block, shared_mem, stream)));
    error::SUCCESS
}

/// # Safety
/// The pointers are the launch stub's locals.
#[no_mangle]
pub unsafe extern "C" fn __hipPopCallConfiguration(grid: *mut Dim3, block: *mut Dim3, shared_mem: *mut usize, stream: *mut *mut c_void) -> u32 {
    let Some((g, b, s, st)) = CALL_CONFIG.with(|c| c.borrow_mut().pop()) else { return error::INVALID_VALUE };
    if grid.is_null() || block.is_null() || shared_mem.is_null() || stream.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: non-null, and the stub passes its own locals.
    unsafe {
        *grid = g;
        *block = b;
        *shared_mem = s;
        *stream = st;
    }
    error::SUCCESS
}

/// # Safety
/// `args` points to one pointer per kernel argument, each to the argument's value.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared_mem: usize,
    stream: *mut c_void,
) -> u32 {
    with_runtime_queued(|rt| {
        // ROCm's order (clr `hipamd/src/hip_platform.cpp`, `ihipLaunchKernel`): the stream,
        // the function, then the shape.
        if !rt.timeline.is_stream(stream as usize) {
            return error::INVALID_VALUE;
        }
        if !rt.registry.functions.contains_key(&(function as usize)) {
            return error::INVALID_DEVICE_FUNCTION;
        }
        // GFX12 takes at most 65536 work-groups in y and z.
        if rt.gpu().processor.family() == Family::Gfx12 && (grid.y > MAX_GRID_YZ_GFX12 || grid.z > MAX_GRID_YZ_GFX12) {
            return error::INVALID_CONFIGURATION;
        }
        let geo = match checked_geometry(rt, function as usize, &Shape::of_blocks(grid, block, shared_mem as u64)) {
            Ok(g) => g,
            Err(e) => return e,
        };
        if let Some(code) = super::graph::capture_launch(rt, function as usize, geo, args as *const *const u8, stream as usize) {
            return code;
        }
        report(rt.launch(function as usize, geo, args as *const *const u8, stream as usize))
    })
}

/// Work-groups in y and z a GFX12 launch may have (`ihipLaunchKernel`).
const MAX_GRID_YZ_GFX12: u32 = 1 << 16;

/// Work-items in one block, at most: ROCm's `maxWorkGroupSize_` on every AMD GPU.
const MAX_BLOCK_ITEMS: u64 = 1024;

/// A launch's shape as the program gave it: work-items per dimension (grid × block, or the
/// global size of `hipExtModuleLaunchKernel`), the block, and the dynamic LDS bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    pub global: [u64; 3],
    pub block: [u32; 3],
    pub dynamic_lds: u64,
}

impl Shape {
    /// `grid` work-groups of `block` work-items.
    pub fn of_blocks(grid: Dim3, block: Dim3, dynamic_lds: u64) -> Shape {
        let items = |g: u32, b: u32| u64::from(g) * u64::from(b);
        Shape { global: [items(grid.x, block.x), items(grid.y, block.y), items(grid.z, block.z)], block: [block.x, block.y, block.z], dynamic_lds }
    }

    /// `global` work-items in blocks of `local` (the last block of a dimension may be partial).
    pub fn of_items(global: [u32; 3], local: [u32; 3], dynamic_lds: u64) -> Shape {
        Shape { global: global.map(u64::from), block: local, dynamic_lds }
    }
}

/// The geometry of a launch of the kernel registered for `stub`, or the error ROCm answers,
/// checked in its order (clr `hipamd/src/hip_platform.cpp` `ihipLaunchKernel`, then
/// `hipamd/src/hip_module.cpp` `ihipLaunchKernel_validate`): more than 2^32 - 1 work-items
/// in a dimension is `hipErrorInvalidConfiguration`; no work-items is
/// `hipErrorInvalidValue` (so is a zero block, whose grid is empty too); more dynamic LDS
/// than a work-group may have, or a block over 1024 work-items, is `hipErrorInvalidValue`; a
/// block over the kernel's `__launch_bounds__` (`.max_flat_workgroup_size`) is
/// `hipErrorLaunchFailure`.
pub(super) fn checked_geometry(rt: &mut Runtime, stub: usize, shape: &Shape) -> Result<hipscope_sim::Geometry, u32> {
    if shape.global.iter().any(|&g| g > u64::from(u32::MAX)) {
        return Err(error::INVALID_CONFIGURATION);
    }
    if shape.global.contains(&0) {
        return Err(error::INVALID_VALUE);
    }
    if shape.block.contains(&0) {
        return Err(error::INVALID_CONFIGURATION);
    }
    if shape.dynamic_lds > rt.lds_limit_bytes() {
        return Err(error::INVALID_VALUE);
    }
    let items: u64 = shape.block.iter().map(|&b| u64::from(b)).product();
    if items > MAX_BLOCK_ITEMS {
        return Err(error::INVALID_VALUE);
    }
    if let Err(e) = rt.kernel(stub) {
        return Err(report(Err(e)));
    }
    if launch_bound(rt, stub).is_some_and(|bound| items > bound) {
        return Err(error::LAUNCH_FAILURE);
    }
    // Each fits in 32 bits (checked above; the LDS limit is far below 2^32).
    let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    Ok(hipscope_sim::Geometry { grid: shape.global.map(narrow), block: shape.block, dynamic_lds: narrow(shape.dynamic_lds) })
}

/// The most work-items a block of the kernel may have: its metadata's
/// `.max_flat_workgroup_size` (`__launch_bounds__`; 1024 when the source gives none).
fn launch_bound(rt: &Runtime, stub: usize) -> Option<u64> {
    let f = rt.registry.functions.get(&stub)?;
    let k = rt.registry.code_object(f.module)?.kernel(&f.name)?;
    k.metadata.as_ref().map(|m| m.max_flat_workgroup_size)
}

/// A launch's result as a HIP error code.
pub(crate) fn report(result: Result<(), LaunchFailure>) -> u32 {
    match result {
        Ok(()) => error::SUCCESS,
        Err(LaunchFailure::UnknownFunction) => error::INVALID_DEVICE_FUNCTION,
        Err(LaunchFailure::NoBinary) => error::NO_BINARY_FOR_GPU,
        Err(LaunchFailure::BadArguments) => error::INVALID_VALUE,
        Err(LaunchFailure::Setup(e)) => {
            eprintln!("hipscope: {e}");
            error::LAUNCH_FAILURE
        }
        // The real runtime aborts the process on a GPU fault (`crate::fatal`).
        Err(LaunchFailure::Fault(f)) => crate::fatal::end_with_status_3(&f.to_string(), error::LAUNCH_FAILURE),
    }
}

/// # Safety
/// `attr` points to a `hipFuncAttributes`; `function` is a kernel's host stub.
#[no_mangle]
pub unsafe extern "C" fn hipFuncGetAttributes(attr: *mut c_void, function: *const c_void) -> u32 {
    if attr.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime_queued(|rt| {
        let Some(bytes) = func_attributes(rt, function as usize) else { return error::INVALID_DEVICE_FUNCTION };
        // SAFETY: the caller's hipFuncAttributes, `fa::SIZE` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), attr as *mut u8, fa::SIZE) };
        error::SUCCESS
    })
}

/// `hipFuncAttributes` of a registered kernel, from its descriptor.
fn func_attributes(rt: &mut Runtime, stub: usize) -> Option<Vec<u8>> {
    let lds_limit = rt.gpu().timing.as_ref().map_or(65_536, |t| t.lds.size_bytes);
    let k = rt.kernel(stub).ok()?;
    let d = &k.descriptor;
    let mut b = vec![0u8; fa::SIZE];
    let mut put_i32 = |off: usize, v: u32| b[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put_i32(fa::MAX_THREADS_PER_BLOCK, 1024);
    put_i32(fa::NUM_REGS, k.vgprs);
    put_i32(fa::MAX_DYNAMIC_SHARED_SIZE_BYTES, lds_limit.saturating_sub(d.group_segment_fixed_size));
    let mut put_u64 = |off: usize, v: u64| b[off..off + 8].copy_from_slice(&v.to_le_bytes());
    put_u64(fa::LOCAL_SIZE_BYTES, u64::from(d.private_segment_fixed_size));
    put_u64(fa::SHARED_SIZE_BYTES, u64::from(d.group_segment_fixed_size));
    Some(b)
}

/// Work-groups of `block_size` items one CU holds at once (the timing engine's placement
/// rules: wave slots, VGPRs, LDS, work-group slots).
fn blocks_per_cu(rt: &mut Runtime, stub: usize, block_size: u32, dynamic_lds: u32) -> Option<u32> {
    let t = rt.gpu().timing.clone()?;
    let k = rt.kernel(stub).ok()?;
    let lanes = if k.wave64 { 64 } else { 32 };
    let waves = block_size.max(1).div_ceil(lanes);
    let occ = Occupancy::of(k, waves, k.descriptor.group_segment_fixed_size + dynamic_lds);
    u32::try_from(occ.max_resident_groups(&t, occ.cus_per_unit) / u64::from(occ.cus_per_unit.max(1))).ok()
}

/// # Safety
/// `blocks` is writable; `function` is a kernel's host stub.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
) -> u32 {
    if blocks.is_null() || block_size <= 0 {
        return error::INVALID_VALUE;
    }
    with_runtime_queued(|rt| match blocks_per_cu(rt, function as usize, block_size as u32, dynamic_lds as u32) {
        // SAFETY: non-null, the caller's out-parameter.
        Some(n) => unsafe { put(blocks, n as c_int) },
        None => error::INVALID_DEVICE_FUNCTION,
    })
}

/// The occupancy flags ROCm accepts: `hipOccupancyDefault` (0) and
/// `hipOccupancyDisableCachingOverride` (1); any other value is `hipErrorInvalidValue` (clr
/// `hipamd/src/hip_module.cpp`, the `...WithFlags` entry points). Neither changes how many
/// work-groups fit.
const OCCUPANCY_FLAGS: [c_uint; 2] = [0, 1];

/// # Safety
/// As `hipOccupancyMaxActiveBlocksPerMultiprocessor`.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
    flags: c_uint,
) -> u32 {
    if !OCCUPANCY_FLAGS.contains(&flags) {
        return error::INVALID_VALUE;
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, block_size, dynamic_lds) }
}

/// The `hipFunction_t` of `hipModuleGetFunction` names its kernel as a host stub does.
///
/// # Safety
/// `blocks` is writable; `function` is a `hipFunction_t`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
    blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, block_size, dynamic_lds) }
}

/// # Safety
/// As `hipModuleOccupancyMaxActiveBlocksPerMultiprocessor`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    blocks: *mut c_int,
    function: *const c_void,
    block_size: c_int,
    dynamic_lds: usize,
    flags: c_uint,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, function, block_size, dynamic_lds, flags) }
}

/// # Safety
/// As `hipOccupancyMaxPotentialBlockSize`; `function` is a `hipFunction_t`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    function: *const c_void,
    dynamic_lds: usize,
    limit: c_int,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { hipOccupancyMaxPotentialBlockSize(grid, block, function, dynamic_lds, limit) }
}

/// # Safety
/// As `hipModuleOccupancyMaxPotentialBlockSize`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleOccupancyMaxPotentialBlockSizeWithFlags(
    grid: *mut c_int,
    block: *mut c_int,
    function: *const c_void,
    dynamic_lds: usize,
    limit: c_int,
    flags: c_uint,
) -> u32 {
    if !OCCUPANCY_FLAGS.contains(&flags) {
        return error::INVALID_VALUE;
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { hipOccupancyMaxPotentialBlockSize(grid, block, function, dynamic_lds, limit) }
}

/// The block size (a multiple of the wave size, at most `limit`) that keeps the most work-items
/// resident, and the grid that fills the GPU with it.
///
/// # Safety
/// `grid` and `block` are writable; `function` is a kernel's host stub.
#[no_mangle]
pub unsafe extern "C" fn hipOccupancyMaxPotentialBlockSize(
    grid: *mut c_int,
    block: *mut c_int,
    function: *const c_void,
    dynamic_lds: usize,
    limit: c_int,
) -> u32 {
    if grid.is_null() || block.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime_queued(|rt| {
        let wave = rt.gpu().wave_size.max(1);
        let cap = if limit > 0 { (limit as u32).min(1024) } else { 1024 };
        let mut best = (0u32, 0u32);
        let mut size = wave;
        while size <= cap {
            let Some(n) = blocks_per_cu(rt, function as usize, size, dynamic_lds as u32) else { return error::INVALID_DEVICE_FUNCTION };
            if n * size > best.0 * best.1.max(1) || best.1 == 0 {
                best = (n, size);
            }
            size += wave;
        }
        let cus = rt.gpu().hip.multi_processor_count;
        // SAFETY: both non-null, the caller's out-parameters.
        unsafe {
            put(block, best.1 as c_int);
            put(grid, (best.0 * cus).min(i32::MAX as u32) as c_int)
        }
    })
}

/// `hipLaunchKernel` between two event records (either may be null): how rocPRIM and
/// Tensile-style code time their kernels.
///
/// # Safety
/// As `hipLaunchKernel`; the events are null or created by `hipEventCreate`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtLaunchKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared_mem: usize,
    stream: *mut c_void,
    start: *mut c_void,
    stop: *mut c_void,
    _flags: c_int,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { with_events_around(start, stop, stream, || hipLaunchKernel(function, grid, block, args, shared_mem, stream)) }
}

/// A cooperative launch: all work-groups may be resident at once (the simulator places them
/// as the hardware would; grid-wide barriers are the kernel's own atomics).
///
/// # Safety
/// As `hipLaunchKernel`.
#[no_mangle]
pub unsafe extern "C" fn hipLaunchCooperativeKernel(
    function: *const c_void,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    shared_mem: u32,
    stream: *mut c_void,
) -> u32 {
    // ROCm's cooperative launch checks its own way first (clr `hipamd/src/hip_module.cpp`,
    // `hipLaunchCooperativeKernel_common`): a destroyed stream is hipErrorContextIsDestroyed,
    // an oversized grid or block hipErrorInvalidConfiguration, too much dynamic LDS
    // hipErrorCooperativeLaunchTooLarge; then as any launch. (Its check that every
    // work-group can be resident at once is not modelled.)
    let early = with_runtime_queued(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        if !rt.registry.functions.contains_key(&(function as usize)) {
            return error::INVALID_DEVICE_FUNCTION;
        }
        let shape = Shape::of_blocks(grid, block, u64::from(shared_mem));
        let items: u64 = shape.block.iter().map(|&b| u64::from(b)).product();
        if shape.global.iter().any(|&g| g > u64::from(u32::MAX)) || items > MAX_BLOCK_ITEMS {
            return error::INVALID_CONFIGURATION;
        }
        if shape.dynamic_lds > rt.lds_limit_bytes() {
            return error::COOPERATIVE_LAUNCH_TOO_LARGE;
        }
        error::SUCCESS
    });
    if early != error::SUCCESS {
        return early;
    }
    // SAFETY: the caller's contract, passed on.
    unsafe { hipLaunchKernel(function, grid, block, args, shared_mem as usize, stream) }
}

/// Record `start` on `stream`, run `launch`, record `stop` (null events are skipped).
///
/// # Safety
/// The events are null or HIP events; `launch` is the caller's launch.
pub(super) unsafe fn with_events_around(start: *mut c_void, stop: *mut c_void, stream: *mut c_void, launch: impl FnOnce() -> u32) -> u32 {
    if !start.is_null() {
        let code = super::streams::hipEventRecord(start, stream);
        if code != error::SUCCESS {
            return code;
        }
    }
    let code = launch();
    if code == error::SUCCESS && !stop.is_null() {
        return super::streams::hipEventRecord(stop, stream);
    }
    code
}
