//! The module API: a code object the program loads itself (`hipModuleLoad` from a file,
//! `hipModuleLoadData` from memory, whose size comes from the image's own headers: see
//! `image_len.rs`; a plain code object or an offload bundle, compressed or not), its kernels
//! by name and launches with `kernelParams` or a packed `extra` buffer. Each module is mapped
//! beside the others and the program's own device code, at its own load base
//! ([`crate::registry`]); how rocBLAS's Tensile loads its kernel libraries.

use crate::registry::{FunctionRef, ImageError};
use crate::runtime::{error, LaunchFailure, Runtime};
use crate::{put, with_runtime, with_runtime_queued};
use std::ffi::{c_char, c_uint, c_void, CStr};

/// `HIP_LAUNCH_PARAM_*` markers of an `extra` array.
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;
const PARAM_END: usize = 3;

/// Load and map a module; its handle, or the HIP error (the reason is printed).
fn load(rt: &mut Runtime, image: Vec<u8>, what: &str) -> Result<usize, u32> {
    rt.registry.load_image(image, what.to_string(), &mut rt.gpus[rt.current].device, rt.current, &rt.target).map_err(|e| match e {
        ImageError::NoBinary(why) => {
            eprintln!("hipscope: {why}");
            error::NO_BINARY_FOR_GPU
        }
        ImageError::Invalid(why) => {
            eprintln!("hipscope: {why}");
            error::INVALID_IMAGE
        }
    })
}

/// # Safety
/// `module` is writable; `path` a NUL-terminated file name.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoad(module: *mut *mut c_void, path: *const c_char) -> u32 {
    if module.is_null() || path.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's string.
    let path = unsafe { CStr::from_ptr(path) }.to_string_lossy().into_owned();
    with_runtime(|rt| {
        let Ok(image) = std::fs::read(&path) else { return error::FILE_NOT_FOUND };
        match load(rt, image, &path) {
            // SAFETY: non-null, the caller's out-parameter.
            Ok(handle) => unsafe { put(module, handle as *mut c_void) },
            Err(e) => e,
        }
    })
}

/// # Safety
/// `module` is writable; `image` points to a whole code object or offload bundle (its size
/// comes from its ELF / bundle headers).
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadData(module: *mut *mut c_void, image: *const c_void) -> u32 {
    if module.is_null() || image.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's image; its headers bound what is read.
    let bytes = match unsafe { image_bytes(image as *const u8) } {
        Ok(bytes) => bytes,
        Err(why) => {
            eprintln!("hipscope: hipModuleLoadData: {why}");
            return with_runtime(|_| error::INVALID_IMAGE);
        }
    };
    with_runtime(|rt| match load(rt, bytes.to_vec(), "hipModuleLoadData") {
        // SAFETY: non-null, the caller's out-parameter.
        Ok(handle) => unsafe { put(module, handle as *mut c_void) },
        Err(e) => e,
    })
}

/// # Safety
/// As `hipModuleLoadData`.
#[no_mangle]
pub unsafe extern "C" fn hipModuleLoadDataEx(
    module: *mut *mut c_void,
    image: *const c_void,
    _n: c_uint,
    _options: *mut c_void,
    _values: *mut *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipModuleLoadData(module, image) }
}

/// The bytes of an in-memory image (ELF code object, offload bundle or compressed bundle),
/// as long as its headers say ([`super::image_len`]).
///
/// # Safety
/// `p` points to the whole image its headers describe.
unsafe fn image_bytes<'a>(p: *const u8) -> Result<&'a [u8], String> {
    // SAFETY: each read lies inside the headers of the image (the caller's contract).
    let at = |offset: usize, n: usize| Some(unsafe { std::slice::from_raw_parts(p.add(offset), n) }.to_vec());
    let len = super::image_len::image_len(&at)?;
    // SAFETY: the image its headers describe (the caller's contract).
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// The module's kernels stay decoded and its data mapped (addresses are not reused), but its
/// handle and its functions are no longer valid. A null module is
/// `hipErrorInvalidResourceHandle`, one unloaded before `hipErrorNotFound` (clr
/// `hipamd/src/hip_module.cpp` `hipModuleUnload`, `hip_platform.cpp` `unloadModule`).
#[no_mangle]
pub extern "C" fn hipModuleUnload(module: *mut c_void) -> u32 {
    with_runtime(|rt| match rt.registry.module_of(module as usize) {
        _ if module.is_null() => error::INVALID_HANDLE,
        Some(id) => {
            rt.registry.unregister(id);
            error::SUCCESS
        }
        None => error::NOT_FOUND,
    })
}

/// What a call naming module `module` answers when it names none: a null handle is
/// `hipErrorInvalidResourceHandle`, an unloaded or unknown one `hipErrorNotFound` (ROCm looks
/// the module up and finds nothing: `hipModuleGetFunction`, `hipModuleGetGlobal`).
fn no_module(module: *mut c_void) -> u32 {
    if module.is_null() {
        error::INVALID_HANDLE
    } else {
        error::NOT_FOUND
    }
}

/// # Safety
/// `function` is writable; `name` a NUL-terminated kernel name.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetFunction(function: *mut *mut c_void, module: *mut c_void, name: *const c_char) -> u32 {
    if function.is_null() || name.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's string.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    with_runtime(|rt| {
        let Some(id) = rt.registry.module_of(module as usize) else { return no_module(module) };
        let Some(k) = rt.registry.code_object(id).and_then(|c| c.find_kernel(&name).ok()) else { return error::NOT_FOUND };
        let symbol = k.name.clone();
        let handle = rt.registry.function_handle(id, &symbol);
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(function, handle as *mut c_void) }
    })
}

/// # Safety
/// `ptr` and `bytes` are writable or null; `name` a NUL-terminated variable name.
#[no_mangle]
pub unsafe extern "C" fn hipModuleGetGlobal(ptr: *mut *mut c_void, bytes: *mut usize, module: *mut c_void, name: *const c_char) -> u32 {
    if name.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    // SAFETY: the caller's string.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    with_runtime(|rt| {
        let Some(id) = rt.registry.module_of(module as usize) else { return no_module(module) };
        let Some(g) = rt.registry.code_object(id).and_then(|c| c.data_symbols.iter().find(|d| d.name == name)) else { return error::NOT_FOUND };
        let (address, size) = (g.address, g.size);
        // SAFETY: the caller's out-parameters, each optional.
        unsafe {
            if !ptr.is_null() {
                *ptr = address as *mut c_void;
            }
            if !bytes.is_null() {
                *bytes = size as usize;
            }
        }
        error::SUCCESS
    })
}

/// # Safety
/// `params` holds one pointer per kernel argument, or `extra` is a `HIP_LAUNCH_PARAM_*`
/// array whose buffer holds the arguments packed as the kernel's kernarg segment lays them.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipModuleLaunchKernel(
    function: *mut c_void,
    gx: c_uint,
    gy: c_uint,
    gz: c_uint,
    bx: c_uint,
    by: c_uint,
    bz: c_uint,
    shared_mem: c_uint,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> u32 {
    let (grid, block) = (crate::Dim3 { x: gx, y: gy, z: gz }, crate::Dim3 { x: bx, y: by, z: bz });
    // SAFETY: the caller's `extra` array, terminated by HIP_LAUNCH_PARAM_END.
    let packed = match unsafe { packed_buffer(extra) } {
        Ok(p) => p,
        Err(e) => return with_runtime_queued(|_| e),
    };
    with_runtime(|rt| {
        // ROCm's order (clr `hipamd/src/hip_module.cpp`, `hipModuleLaunchKernel`): the stream,
        // the grid's limits in work-groups, then the function and the shape.
        if !rt.timeline.is_stream(stream as usize) {
            return error::INVALID_VALUE;
        }
        if u64::from(gx) > MAX_GRID_X || u64::from(gy) > MAX_GRID_YZ || u64::from(gz) > MAX_GRID_YZ {
            return error::INVALID_VALUE;
        }
        let shape = super::launch::Shape::of_blocks(grid, block, u64::from(shared_mem));
        module_launch(rt, function as usize, &shape, packed, params as *const *const u8, stream as usize)
    })
}

/// Work-groups in x a module launch may have (`hipModuleLaunchKernel`: `INT32_MAX`).
const MAX_GRID_X: u64 = i32::MAX as u64;
/// Work-groups in y and z (`hipModuleLaunchKernel`: `UINT16_MAX + 1`).
const MAX_GRID_YZ: u64 = 1 << 16;

/// The launch of `hipModuleLaunchKernel` and `hipExtModuleLaunchKernel` once the arguments
/// are decoded: a function handle this runtime knows (an unknown or null one is
/// `hipErrorInvalidResourceHandle`, as ROCm answers a null one, `ihipModuleLaunchKernel`),
/// a shape ROCm accepts ([`super::launch::checked_geometry`]), recorded as a graph node
/// when the stream is capturing, else run.
fn module_launch(rt: &mut Runtime, function: usize, shape: &super::launch::Shape, packed: Option<&[u8]>, params: *const *const u8, stream: usize) -> u32 {
    // A function of an unloaded module is gone too (ROCm frees it with its module).
    if !rt.registry.functions.get(&function).is_some_and(|f| rt.registry.is_live(f.module)) {
        return error::INVALID_HANDLE;
    }
    let geo = match super::launch::checked_geometry(rt, function, shape) {
        Ok(g) => g,
        Err(e) => return e,
    };
    let captured = match packed {
        Some(buf) => super::graph::capture_launch_packed(rt, function, geo, buf, stream),
        None => super::graph::capture_launch(rt, function, geo, params, stream),
    };
    if let Some(code) = captured {
        return code;
    }
    let result = match packed {
        Some(buf) => rt.launch_packed(function, geo, buf, stream),
        None => rt.launch(function, geo, params, stream),
    };
    super::launch::report(result)
}

/// The `extra` array's argument buffer, `None` when there is no `extra`.
///
/// # Safety
/// `extra` is null or a `HIP_LAUNCH_PARAM_*` array ending with `HIP_LAUNCH_PARAM_END`.
unsafe fn packed_buffer<'a>(extra: *mut *mut c_void) -> Result<Option<&'a [u8]>, u32> {
    if extra.is_null() {
        return Ok(None);
    }
    let (mut buf, mut size) = (std::ptr::null::<u8>(), None);
    // At most a handful of pairs; a missing END is an error, not a walk off the array.
    for i in (0..16).step_by(2) {
        // SAFETY: within the caller's array until END.
        let (key, value) = unsafe { (*extra.add(i) as usize, *extra.add(i + 1)) };
        match key {
            PARAM_END => {
                let (Some(n), false) = (size, buf.is_null()) else { return Err(error::INVALID_VALUE) };
                // SAFETY: the caller's buffer of `n` bytes.
                return Ok(Some(unsafe { std::slice::from_raw_parts(buf, n) }));
            }
            PARAM_BUFFER_POINTER => buf = value as *const u8,
            // SAFETY: HIP_LAUNCH_PARAM_BUFFER_SIZE is followed by a pointer to a size_t.
            PARAM_BUFFER_SIZE if !value.is_null() => size = Some(unsafe { *(value as *const usize) }),
            _ => return Err(error::INVALID_VALUE),
        }
    }
    Err(error::INVALID_VALUE)
}

impl Runtime {
    /// Launch with the arguments packed as the kernarg segment lays them out. A buffer too
    /// short for the kernel's arguments is `hipErrorInvalidValue`.
    fn launch_packed(&mut self, stub: usize, geo: hipscope_sim::Geometry, buf: &[u8], stream: usize) -> Result<(), LaunchFailure> {
        let f: FunctionRef = self.registry.functions.get(&stub).ok_or(LaunchFailure::UnknownFunction)?.clone();
        let kernel = self.kernel(stub)?;
        let args: Vec<(u64, u64)> =
            kernel.kernarg.as_ref().map_or_else(Vec::new, |l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).map(|a| (a.offset, a.size)).collect());
        let mut values = Vec::with_capacity(args.len());
        for (offset, size) in args {
            let end = offset.checked_add(size).and_then(|e| usize::try_from(e).ok());
            let Some(bytes) = end.and_then(|e| buf.get(offset as usize..e)) else { return Err(LaunchFailure::BadArguments) };
            values.push(bytes.to_vec());
        }
        self.launch_values(&f, geo, &values, stream)
    }
}

/// A module launch sized in work-items (`globalWorkSize`, as an AQL packet: the last
/// work-group of a dimension may be partial), between two optional event records: how
/// rocBLAS's Tensile launches its kernels.
///
/// # Safety
/// As `hipModuleLaunchKernel`; the events are null or HIP events.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipExtModuleLaunchKernel(
    function: *mut c_void,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shared_mem: usize,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: *mut c_void,
    stop: *mut c_void,
    _flags: u32,
) -> u32 {
    let shape = super::launch::Shape::of_items([global_x, global_y, global_z], [local_x, local_y, local_z], shared_mem as u64);
    // SAFETY: the caller's `extra` array, terminated by HIP_LAUNCH_PARAM_END.
    let packed = match unsafe { packed_buffer(extra) } {
        Ok(p) => p,
        Err(e) => return with_runtime_queued(|_| e),
    };
    let launch = || {
        with_runtime(|rt| {
            // hipExtModuleLaunchKernel checks the stream first (`hipamd/src/hip_module.cpp`).
            if !rt.timeline.is_stream(stream as usize) {
                return error::INVALID_VALUE;
            }
            module_launch(rt, function as usize, &shape, packed, params as *const *const u8, stream as usize)
        })
    };
    // SAFETY: the caller's events.
    unsafe { super::launch::with_events_around(start, stop, stream, launch) }
}

/// ROCm's older name for [`hipExtModuleLaunchKernel`].
///
/// # Safety
/// As `hipExtModuleLaunchKernel`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn hipHccModuleLaunchKernel(
    function: *mut c_void,
    global_x: u32,
    global_y: u32,
    global_z: u32,
    local_x: u32,
    local_y: u32,
    local_z: u32,
    shared_mem: usize,
    stream: *mut c_void,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    start: *mut c_void,
    stop: *mut c_void,
) -> u32 {
    // SAFETY: the caller's contract, passed on.
    unsafe { hipExtModuleLaunchKernel(function, global_x, global_y, global_z, local_x, local_y, local_z, shared_mem, stream, params, extra, start, stop, 0) }
}
