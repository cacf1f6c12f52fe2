//! What clang's module constructor calls: the fat binary, each kernel's host stub, each
//! `__device__`/`__constant__` variable's host shadow; and the destructor's unregistration,
//! where the per-kernel summary is printed.

use crate::registry::{FunctionRef, VariableRef};
use crate::with_registration;
use crate::Dim3;
use std::ffi::{c_char, c_int, c_void, CStr};

/// Records the fat binary (the program's, or a shared library's: one per translation unit);
/// its code object is checked at the next HIP call and loaded at its first use.
///
/// # Safety
/// Called by clang's module constructor with a fat-binary wrapper.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut c_void {
    let mut handle = 0;
    with_registration(|rt| {
        // SAFETY: clang's wrapper (the caller's contract).
        match unsafe { rt.registry.register_fat_binary(data as *const u8) } {
            Ok(h) => handle = h,
            Err(e) => eprintln!("hipscope: {e}"),
        }
    });
    // The handle is only given back to the other registration calls.
    handle as *mut c_void
}

/// # Safety
/// `device_name` is the kernel's NUL-terminated symbol name.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterFunction(
    modules: *mut c_void,
    host_function: *const c_void,
    _device_function: *mut c_char,
    device_name: *const c_char,
    _thread_limit: c_int,
    _tid: *mut c_void,
    _bid: *mut c_void,
    _block_dim: *mut Dim3,
    _grid_dim: *mut Dim3,
    _wave_size: *mut c_int,
) {
    if device_name.is_null() {
        return;
    }
    // SAFETY: clang passes a string literal.
    let name = unsafe { CStr::from_ptr(device_name) }.to_string_lossy().into_owned();
    with_registration(|rt| {
        if let Some(module) = rt.registry.module_of(modules as usize) {
            rt.registry.functions.insert(host_function as usize, FunctionRef { module, name });
        }
    });
}

/// A `__device__` or `__constant__` variable: `host_var` is its host shadow (the address the
/// program passes to `hipMemcpyToSymbol` and friends), `device_name` its symbol in the code
/// object, whose mapped data section already holds its initial value.
///
/// # Safety
/// `device_name` is a NUL-terminated string.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterVar(
    modules: *mut c_void,
    host_var: *mut c_void,
    _host_name: *mut c_char,
    device_name: *const c_char,
    _ext: c_int,
    size: usize,
    _constant: c_int,
    _global: c_int,
) {
    if device_name.is_null() {
        return;
    }
    // SAFETY: clang passes a string literal.
    let name = unsafe { CStr::from_ptr(device_name) }.to_string_lossy().into_owned();
    with_registration(|rt| {
        if let Some(module) = rt.registry.module_of(modules as usize) {
            rt.registry.variables.insert(host_var as usize, VariableRef { module, name, size: size as u64 });
        }
    });
}

/// The last registered fat binary to go ends the program's device work: the summary and the
/// reports are written then.
///
/// # Safety
/// Called from the module destructor with the handle `__hipRegisterFatBinary` returned.
#[no_mangle]
pub unsafe extern "C" fn __hipUnregisterFatBinary(modules: *mut c_void) {
    with_registration(|rt| {
        let Some(id) = rt.registry.module_of(modules as usize) else { return };
        if !rt.registry.unregister(id) {
            rt.finish();
        }
    });
}
