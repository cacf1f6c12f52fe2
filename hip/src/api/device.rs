//! The one simulated device: its count, selection, properties and synchronisation.

use crate::abi::hip_device_prop as dp;
use crate::properties::Properties;
use crate::runtime::error;
use crate::{put, with_runtime};
use std::ffi::{c_char, c_int, c_void};

#[no_mangle]
pub extern "C" fn hipInit(_flags: u32) -> u32 {
    with_runtime(|_| error::SUCCESS)
}

/// # Safety
/// `count` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceCount(count: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime(|_| unsafe { put(count, 1) })
}

#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> u32 {
    with_runtime(|_| if device == 0 { error::SUCCESS } else { error::INVALID_DEVICE })
}

/// # Safety
/// `device` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime(|_| unsafe { put(device, 0) })
}

/// # Safety
/// `prop` points to a `hipDeviceProp_t`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(prop: *mut c_void, device: c_int) -> u32 {
    if prop.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        if device != 0 {
            return error::INVALID_DEVICE;
        }
        let bytes = Properties::of(&rt.gpu).device_prop();
        // SAFETY: the caller's struct of `dp::SIZE` bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), prop as *mut u8, dp::SIZE) };
        error::SUCCESS
    })
}

/// # Safety
/// `value` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> u32 {
    with_runtime(|rt| {
        if device != 0 {
            return error::INVALID_DEVICE;
        }
        match Properties::of(&rt.gpu).attribute(attr) {
            // SAFETY: the caller's out-parameter (null is refused by `put`).
            Some(v) => unsafe { put(value, v) },
            None => error::INVALID_VALUE,
        }
    })
}

/// # Safety
/// `name` is writable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetName(name: *mut c_char, len: c_int, device: c_int) -> u32 {
    if name.is_null() || len <= 0 {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        if device != 0 {
            return error::INVALID_DEVICE;
        }
        let s = rt.gpu.marketing_name.as_bytes();
        let n = s.len().min(len as usize - 1);
        // SAFETY: the caller's buffer of `len` bytes; n + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), name as *mut u8, n);
            *name.add(n) = 0;
        }
        error::SUCCESS
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> u32 {
    with_runtime(|rt| {
        rt.timeline.synchronize_device();
        error::SUCCESS
    })
}

/// Releases the program's allocations; kernels and variables stay registered.
#[no_mangle]
pub extern "C" fn hipDeviceReset() -> u32 {
    with_runtime(|rt| {
        rt.timeline.synchronize_device();
        rt.free_all();
        error::SUCCESS
    })
}

/// # Safety
/// `version` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> u32 {
    // HIP_VERSION of the headers the library serves (5.2: major * 10^7 + minor * 10^5).
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime(|_| unsafe { put(version, 50_200_000) })
}

/// # Safety
/// `version` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime(|_| unsafe { put(version, 50_200_000) })
}
