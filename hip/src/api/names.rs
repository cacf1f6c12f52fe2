//! The exported functions that answer with a string, not a status: a "not supported" stub
//! would hand the caller a bad pointer. Names of things hipscope keeps no record of are given
//! as the real runtime gives an unknown one.

use std::ffi::{c_char, c_void};

/// `hiprtcGetErrorString`: the text of a `hiprtcResult` (`hiprtc.h`).
#[no_mangle]
pub extern "C" fn hiprtcGetErrorString(result: u32) -> *const c_char {
    let text: &'static std::ffi::CStr = match result {
        0 => c"HIPRTC_SUCCESS",
        1 => c"HIPRTC_ERROR_OUT_OF_MEMORY",
        2 => c"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
        3 => c"HIPRTC_ERROR_INVALID_INPUT",
        4 => c"HIPRTC_ERROR_INVALID_PROGRAM",
        5 => c"HIPRTC_ERROR_INVALID_OPTION",
        6 => c"HIPRTC_ERROR_COMPILATION",
        7 => c"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        8 => c"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
        9 => c"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
        10 => c"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
        11 => c"HIPRTC_ERROR_INTERNAL_ERROR",
        100 => c"HIPRTC_ERROR_LINKING",
        _ => c"Invalid HIPRTC error code",
    };
    text.as_ptr()
}

/// `hipApiName`: the name of a tracing API id (hipscope has no tracer).
#[no_mangle]
pub extern "C" fn hipApiName(_id: u32) -> *const c_char {
    c"unknown".as_ptr()
}

/// `hipGetCmdName`: the name of a tracing command id.
#[no_mangle]
pub extern "C" fn hipGetCmdName(_id: u32) -> *const c_char {
    c"unknown".as_ptr()
}

/// `hipKernelNameRef`: a function handle's kernel name (tracing).
#[no_mangle]
pub extern "C" fn hipKernelNameRef(_function: *const c_void) -> *const c_char {
    std::ptr::null()
}

/// `hipKernelNameRefByPtr`: a host stub's kernel name (tracing).
#[no_mangle]
pub extern "C" fn hipKernelNameRefByPtr(_stub: *const c_void, _stream: *mut c_void) -> *const c_char {
    std::ptr::null()
}
