//! The node's simulated devices: their count, selection (per host thread), properties, peer
//! access and synchronisation.

use crate::abi::Release;
use crate::properties::Properties;
use crate::runtime::error;
use crate::{put, with_runtime, with_runtime_queued};
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
    with_runtime_queued(|rt| unsafe { put(count, rt.gpus.len() as c_int) })
}

/// The calling host thread's current device from now on.
#[no_mangle]
pub extern "C" fn hipSetDevice(device: c_int) -> u32 {
    with_runtime_queued(|rt| match usize::try_from(device) {
        Ok(d) if d < rt.gpus.len() => {
            crate::set_current_device(d);
            rt.select(d);
            error::SUCCESS
        }
        _ => error::INVALID_DEVICE,
    })
}

/// The GPU ordinal `device` names, if the node has it.
fn ordinal(rt: &crate::runtime::Runtime, device: c_int) -> Option<usize> {
    usize::try_from(device).ok().filter(|&d| d < rt.gpus.len())
}

/// # Safety
/// `device` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevice(device: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime_queued(|rt| unsafe { put(device, rt.current as c_int) })
}

/// Fill the caller's property struct with `bytes` (its layout's size).
///
/// # Safety
/// `prop` is null or points to a struct of `bytes.len()` bytes.
unsafe fn properties(prop: *mut c_void, device: c_int, bytes: impl FnOnce(&Properties) -> Vec<u8>) -> u32 {
    if prop.is_null() {
        return with_runtime_queued(|_| error::INVALID_VALUE);
    }
    with_runtime_queued(|rt| {
        let Some(d) = ordinal(rt, device) else { return error::INVALID_DEVICE };
        let b = bytes(&Properties::of(&rt.gpus[d].config));
        // SAFETY: the caller's struct of the layout's size.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), prop as *mut u8, b.len()) };
        error::SUCCESS
    })
}

/// HIP 5.2's `hipDeviceProp_t` (6.x and 7.x keep this name for old binaries).
///
/// # Safety
/// `prop` points to a `hipDeviceProp_t` of HIP 5.2's layout.
#[no_mangle]
pub unsafe extern "C" fn hipGetDeviceProperties(prop: *mut c_void, device: c_int) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { properties(prop, device, Properties::device_prop) }
}

/// # Safety
/// `prop` points to a `hipDeviceProp_tR0000` (HIP 5.2's layout).
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0000(prop: *mut c_void, device: c_int) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { properties(prop, device, Properties::device_prop) }
}

/// What programs built against HIP 6.x/7.x headers call for `hipGetDeviceProperties`.
///
/// # Safety
/// `prop` points to a `hipDeviceProp_tR0600`.
#[no_mangle]
pub unsafe extern "C" fn hipGetDevicePropertiesR0600(prop: *mut c_void, device: c_int) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { properties(prop, device, Properties::device_prop_r0600) }
}

/// The one device matches any request.
///
/// # Safety
/// `device` is writable; `prop` is the caller's request (not read).
#[no_mangle]
pub unsafe extern "C" fn hipChooseDevice(device: *mut c_int, _prop: *const c_void) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime(|_| unsafe { put(device, 0) })
}

/// # Safety
/// As `hipChooseDevice`.
#[no_mangle]
pub unsafe extern "C" fn hipChooseDeviceR0000(device: *mut c_int, prop: *const c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipChooseDevice(device, prop) }
}

/// # Safety
/// As `hipChooseDevice`.
#[no_mangle]
pub unsafe extern "C" fn hipChooseDeviceR0600(device: *mut c_int, prop: *const c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipChooseDevice(device, prop) }
}

/// # Safety
/// `value` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceGetAttribute(value: *mut c_int, attr: c_int, device: c_int) -> u32 {
    with_runtime_queued(|rt| {
        let Some(d) = ordinal(rt, device) else { return error::INVALID_DEVICE };
        match Properties::of(&rt.gpus[d].config).attribute_of(Release::current(), attr) {
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
        let Some(d) = ordinal(rt, device) else { return error::INVALID_DEVICE };
        let s = rt.gpus[d].config.marketing_name.as_bytes();
        let n = s.len().min(len as usize - 1);
        // SAFETY: the caller's buffer of `len` bytes; n + 1 <= len.
        unsafe {
            std::ptr::copy_nonoverlapping(s.as_ptr(), name as *mut u8, n);
            *name.add(n) = 0;
        }
        error::SUCCESS
    })
}

/// Whether a kernel on `device` may reach `peer`'s memory once peer access is enabled: the
/// node links them for loads and stores. A device and itself: 0, as ROCm answers.
///
/// # Safety
/// `can` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipDeviceCanAccessPeer(can: *mut c_int, device: c_int, peer: c_int) -> u32 {
    with_runtime(|rt| {
        let (Some(d), Some(p)) = (ordinal(rt, device), ordinal(rt, peer)) else { return error::INVALID_DEVICE };
        match rt.can_access_peer(d, p) {
            // SAFETY: the caller's out-parameter (null is refused by `put`).
            Ok(yes) => unsafe { put(can, c_int::from(yes)) },
            Err(e) => e,
        }
    })
}

/// The current device's kernels may reach `peer`'s memory from now on (`flags` must be 0).
#[no_mangle]
pub extern "C" fn hipDeviceEnablePeerAccess(peer: c_int, flags: u32) -> u32 {
    with_runtime(|rt| match ordinal(rt, peer) {
        _ if flags != 0 => error::INVALID_VALUE,
        Some(p) => rt.enable_peer(p),
        None => error::INVALID_DEVICE,
    })
}

#[no_mangle]
pub extern "C" fn hipDeviceDisablePeerAccess(peer: c_int) -> u32 {
    with_runtime(|rt| match ordinal(rt, peer) {
        Some(p) => rt.disable_peer(p),
        None => error::INVALID_DEVICE,
    })
}

/// Waits for the current device's work.
#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> u32 {
    with_runtime(|rt| {
        rt.timeline.synchronize_device();
        error::SUCCESS
    })
}

/// Releases the allocations made on the current device (their addresses are no longer device memory) and
/// destroys the streams it created, as ROCm's reset does (clr `hipamd/src/hip_device.cpp`,
/// `Device::Reset`; texture objects are memory too); kernels, variables, events and graphs
/// stay.
#[no_mangle]
pub extern "C" fn hipDeviceReset() -> u32 {
    with_runtime(|rt| {
        rt.timeline.synchronize_device();
        rt.free_device(rt.current);
        rt.timeline.destroy_created_streams();
        super::texture::forget_all();
        error::SUCCESS
    })
}

/// # Safety
/// `version` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipRuntimeGetVersion(version: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime_queued(|_| unsafe { put(version, hip_version()) })
}

/// # Safety
/// `version` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipDriverGetVersion(version: *mut c_int) -> u32 {
    // SAFETY: the caller's out-parameter (null is refused by `put`).
    with_runtime_queued(|_| unsafe { put(version, hip_version()) })
}

/// HIP_VERSION of the release the program linked (major * 10^7 + minor * 10^5): the
/// releases whose ABI this library serves, 5.2, 6.4 and 7.2.
fn hip_version() -> c_int {
    match Release::current() {
        Release::Hip5 => 50_200_000,
        Release::Hip6 => 60_400_000,
        Release::Hip7 => 70_200_000,
    }
}
