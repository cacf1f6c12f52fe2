//! The last error and what error codes are called.

use crate::on_runtime;
use crate::runtime::{error, error_name};
use std::collections::BTreeMap;
use std::ffi::{c_char, CString};
use std::sync::Mutex;

/// HIP 5.x and 6.x: the status of the last call (then reset). HIP 7.0 made it CUDA's: the
/// last *error* any call returned since the last `hipGetLastError` (then reset), which a
/// later success does not clear ([`crate::runtime::Runtime::sticky_error`]; ROCm docs, "HIP
/// API 7.0 changes").
#[no_mangle]
pub extern "C" fn hipGetLastError() -> u32 {
    on_runtime(|rt| {
        let last = std::mem::replace(&mut rt.last_error, error::SUCCESS);
        let sticky = std::mem::replace(&mut rt.sticky_error, error::SUCCESS);
        if crate::abi::Release::current() == crate::abi::Release::Hip7 {
            sticky
        } else {
            last
        }
    })
    .unwrap_or(error::NOT_INITIALIZED)
}

/// The pre-7.0 `hipGetLastError` (the status of the last call), kept under this name from
/// HIP 6.0 on.
#[no_mangle]
pub extern "C" fn hipExtGetLastError() -> u32 {
    on_runtime(|rt| std::mem::replace(&mut rt.last_error, error::SUCCESS)).unwrap_or(error::NOT_INITIALIZED)
}

#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> u32 {
    let hip7 = crate::abi::Release::current() == crate::abi::Release::Hip7;
    on_runtime(|rt| if hip7 { rt.sticky_error } else { rt.last_error }).unwrap_or(error::NOT_INITIALIZED)
}

/// NUL-terminated copies of names and descriptions, kept for the life of the process (HIP
/// returns `const char*` the program never frees).
static STRINGS: Mutex<BTreeMap<String, CString>> = Mutex::new(BTreeMap::new());

fn interned(s: String) -> *const c_char {
    let mut map = STRINGS.lock().unwrap_or_else(|p| p.into_inner());
    let c = map.entry(s.clone()).or_insert_with(|| CString::new(s).unwrap_or_default());
    c.as_ptr()
}

#[no_mangle]
pub extern "C" fn hipGetErrorName(code: u32) -> *const c_char {
    interned(error_name(code).to_string())
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(code: u32) -> *const c_char {
    let text = match code {
        error::SUCCESS => "no error",
        error::INVALID_VALUE => "invalid argument",
        error::OUT_OF_MEMORY => "out of memory",
        error::NOT_INITIALIZED => "initialization error (hipscope could not start the simulated GPU)",
        error::INVALID_CONFIGURATION => "invalid configuration argument",
        error::INVALID_PITCH_VALUE => "invalid pitch argument",
        error::INVALID_SYMBOL => "invalid device symbol",
        error::INVALID_DEVICE_POINTER => "invalid device pointer",
        error::INVALID_MEMCPY_DIRECTION => "invalid copy direction",
        error::INVALID_DEVICE_FUNCTION => "invalid device function",
        error::INVALID_DEVICE => "invalid device ordinal",
        error::INVALID_HANDLE => "invalid resource handle",
        error::ILLEGAL_STATE => "the operation cannot be performed in the present state",
        error::CONTEXT_IS_DESTROYED => "context is destroyed (the handle was destroyed)",
        error::NOT_READY => "device not ready",
        error::LAUNCH_FAILURE => "unspecified launch failure",
        error::NOT_SUPPORTED => "operation not supported (by hipscope's HIP runtime)",
        other => return interned(format!("{} ({other})", error_name(other))),
    };
    interned(text.to_string())
}
