//! The module API: a code object the program loads itself (`hipModuleLoad` from a file,
//! `hipModuleLoadData` from memory; a plain code object or an offload bundle), its kernels
//! by name and launches with `kernelParams` or a packed `extra` buffer.
//!
//! The simulated device holds one code object (its data sections sit at the addresses they
//! were linked for), so a program may load one module, and only if its own executable
//! carries no device code; a second one is refused with `hipErrorNotSupported`, saying so.

use crate::runtime::{error, LaunchFailure, Runtime};
use crate::{put, with_runtime};
use hipscope_isa::codeobj;
use std::ffi::{c_char, c_uint, c_void, CStr};

/// `HIP_LAUNCH_PARAM_*` markers of an `extra` array.
const PARAM_BUFFER_POINTER: usize = 1;
const PARAM_BUFFER_SIZE: usize = 2;
const PARAM_END: usize = 3;

/// The handle of the one loadable module.
const MODULE: usize = 1;

fn load(rt: &mut Runtime, image: &[u8], what: &str) -> u32 {
    if rt.code.is_some() {
        eprintln!("hipscope: {what}: the simulated device already holds a code object (the program's own or an earlier module); one per process is supported");
        return error::NOT_SUPPORTED;
    }
    let co = match codeobj::load(image, Some(rt.gpu.processor.name())) {
        Ok(co) => co,
        Err(e) => {
            eprintln!("hipscope: {what}: {e}");
            return error::INVALID_IMAGE;
        }
    };
    if let Err(e) = rt.device.map_code_object(&co) {
        eprintln!("hipscope: {what}: {e}");
        return error::INVALID_IMAGE;
    }
    rt.code = Some(co);
    error::SUCCESS
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
        match load(rt, &image, &path) {
            // SAFETY: non-null, the caller's out-parameter.
            error::SUCCESS => unsafe { put(module, MODULE as *mut c_void) },
            e => e,
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
    let Some(bytes) = (unsafe { image_bytes(image as *const u8) }) else { return with_runtime(|_| error::INVALID_IMAGE) };
    with_runtime(|rt| match load(rt, bytes, "hipModuleLoadData") {
        // SAFETY: non-null, the caller's out-parameter.
        error::SUCCESS => unsafe { put(module, MODULE as *mut c_void) },
        e => e,
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

/// The bytes of an in-memory ELF code object: its size is where its section headers end.
///
/// # Safety
/// `p` points to at least an ELF header, and to the whole file the header describes.
unsafe fn image_bytes<'a>(p: *const u8) -> Option<&'a [u8]> {
    // SAFETY: an ELF64 header is 64 bytes (the caller's contract).
    let header = unsafe { std::slice::from_raw_parts(p, 64) };
    if &header[..4] != b"\x7fELF" {
        return None;
    }
    let u64_at = |o: usize| u64::from_le_bytes(header[o..o + 8].try_into().unwrap_or([0; 8]));
    let u16_at = |o: usize| u64::from(u16::from_le_bytes([header[o], header[o + 1]]));
    // e_shoff + e_shnum * e_shentsize: the section header table is last in LLVM's output.
    let len = u64_at(0x28).checked_add(u16_at(0x3c).checked_mul(u16_at(0x3a))?)?;
    // SAFETY: the file the header describes (the caller's contract).
    Some(unsafe { std::slice::from_raw_parts(p, usize::try_from(len).ok()?) })
}

#[no_mangle]
pub extern "C" fn hipModuleUnload(module: *mut c_void) -> u32 {
    with_runtime(|_| if module as usize == MODULE { error::SUCCESS } else { error::INVALID_HANDLE })
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
        if module as usize != MODULE || rt.code.is_none() {
            return error::INVALID_HANDLE;
        }
        if rt.code.as_ref().and_then(|c| c.kernel(&name)).is_none() {
            return error::NOT_FOUND;
        }
        let handle = rt.function_handle(&name);
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
        if module as usize != MODULE {
            return error::INVALID_HANDLE;
        }
        let Some(g) = rt.device.global(&name) else { return error::NOT_FOUND };
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
    let Some(geo) = super::launch::geometry(grid, block, shared_mem as usize) else { return with_runtime(|_| error::INVALID_CONFIGURATION) };
    // SAFETY: the caller's `extra` array, terminated by HIP_LAUNCH_PARAM_END.
    let packed = match unsafe { packed_buffer(extra) } {
        Ok(p) => p,
        Err(e) => return with_runtime(|_| e),
    };
    with_runtime(|rt| {
        if !rt.is_function_handle(function as usize) {
            return error::INVALID_HANDLE;
        }
        let result = match packed {
            Some(buf) => rt.launch_packed(function as usize, geo, buf, stream as usize),
            None => rt.launch(function as usize, geo, params as *const *const u8, stream as usize),
        };
        super::launch::report(result)
    })
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
    /// A `hipFunction_t` for a kernel of the loaded module (the same one each time).
    fn function_handle(&mut self, name: &str) -> usize {
        if let Some((&h, _)) = self.functions.iter().find(|(h, n)| n.as_str() == name && self.module_functions.contains(h)) {
            return h;
        }
        // A fresh heap address: unique, and never a host stub's code address.
        let h = Box::into_raw(Box::new(0u8)) as usize;
        self.functions.insert(h, name.to_string());
        self.module_functions.insert(h);
        h
    }

    fn is_function_handle(&self, h: usize) -> bool {
        self.module_functions.contains(&h) || self.functions.contains_key(&h)
    }

    /// Launch with the arguments packed as the kernarg segment lays them out. A buffer too
    /// short for the kernel's arguments is `hipErrorInvalidValue`.
    fn launch_packed(&mut self, stub: usize, geo: hipscope_sim::Geometry, buf: &[u8], stream: usize) -> Result<(), LaunchFailure> {
        let kernel = self.kernel(stub)?;
        let name = kernel.name.clone();
        let args: Vec<(u64, u64)> =
            kernel.kernarg.as_ref().map_or_else(Vec::new, |l| l.args.iter().filter(|a| !a.value_kind.is_hidden()).map(|a| (a.offset, a.size)).collect());
        let mut values = Vec::with_capacity(args.len());
        for (offset, size) in args {
            let end = offset.checked_add(size).and_then(|e| usize::try_from(e).ok());
            let Some(bytes) = end.and_then(|e| buf.get(offset as usize..e)) else { return Err(LaunchFailure::BadArguments) };
            values.push(bytes.to_vec());
        }
        self.launch_values(&name, geo, &values, stream)
    }
}
