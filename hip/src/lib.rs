//! hipscope's HIP runtime: the functions a clang/hipcc-built executable imports from
//! `libamdhip64.so.5` (symbol version `hip_4.2`), served by the simulator. `hipscope exec`
//! puts this library in front of any other, so the program's own host code runs unchanged and
//! every kernel it launches runs on the simulated GPU.
//!
//! This first version serves what the common benchmark programs call: fat-binary and kernel
//! registration, the `<<<>>>` launch path, `hipMalloc`/`hipFree`/`hipMemcpy`, device
//! synchronization, events on the simulated timeline and error strings. A kernel fault prints
//! the GPU-fault report and exits 3, as the real runtime aborts.

mod heap;
mod runtime;

use runtime::{error, LaunchFailure, Runtime};
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::Mutex;

/// HIP's `dim3`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dim3 {
    pub x: u32,
    pub y: u32,
    pub z: u32,
}

/// The process's simulated GPU, created at the first call.
static RUNTIME: Mutex<Option<Result<Runtime, String>>> = Mutex::new(None);

thread_local! {
    /// `<<<grid, block, shmem, stream>>>` configurations pushed by launch stubs.
    static CALL_CONFIG: RefCell<Vec<(Dim3, Dim3, usize, *mut c_void)>> = const { RefCell::new(Vec::new()) };
}

/// Run `f` on the runtime; a runtime that could not start reports once and fails the call.
fn with_runtime(f: impl FnOnce(&mut Runtime) -> u32) -> u32 {
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut guard = RUNTIME.lock().unwrap_or_else(|p| p.into_inner());
        let state = guard.get_or_insert_with(|| {
            let r = runtime::from_env();
            if let Err(e) = &r {
                eprintln!("hipscope: cannot start the simulated GPU: {e}");
            }
            r
        });
        match state {
            Ok(rt) => {
                let code = f(rt);
                if code != error::SUCCESS {
                    rt.last_error = code;
                }
                code
            }
            Err(_) => error::NOT_INITIALIZED,
        }
    }));
    result.unwrap_or_else(|_| {
        eprintln!("hipscope: internal error in the HIP runtime");
        error::NOT_SUPPORTED
    })
}

/// # Safety
/// Called by clang's module constructor with the program's fat-binary wrapper.
#[no_mangle]
pub unsafe extern "C" fn __hipRegisterFatBinary(data: *const c_void) -> *mut c_void {
    with_runtime(|rt| match rt.load_program() {
        Ok(()) => error::SUCCESS,
        Err(e) => {
            eprintln!("hipscope: {e}");
            error::NOT_INITIALIZED
        }
    });
    // The handle is only given back to the other registration calls.
    data as *mut c_void
}

/// # Safety
/// `device_name` is the kernel's NUL-terminated symbol name.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __hipRegisterFunction(
    _modules: *mut c_void,
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
    with_runtime(|rt| {
        rt.functions.insert(host_function as usize, name);
        error::SUCCESS
    });
}

/// # Safety
/// Called from the module destructor with the handle `__hipRegisterFatBinary` returned.
#[no_mangle]
pub unsafe extern "C" fn __hipUnregisterFatBinary(_modules: *mut c_void) {
    with_runtime(|rt| {
        eprint!("{}", rt.summary());
        rt.stats.clear();
        error::SUCCESS
    });
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
    _stream: *mut c_void,
) -> u32 {
    let dims = |g: u32, b: u32| g.checked_mul(b);
    let (Some(x), Some(y), Some(z)) = (dims(grid.x, block.x), dims(grid.y, block.y), dims(grid.z, block.z)) else { return error::INVALID_VALUE };
    let geo = hipscope_sim::Geometry { grid: [x, y, z], block: [block.x, block.y, block.z], dynamic_lds: shared_mem.min(u32::MAX as usize) as u32 };
    let mut fault = None;
    let code = with_runtime(|rt| match rt.launch(function as usize, geo, args as *const *const u8) {
        Ok(()) => error::SUCCESS,
        Err(LaunchFailure::UnknownFunction) => error::INVALID_DEVICE_FUNCTION,
        Err(LaunchFailure::Setup(e)) => {
            eprintln!("hipscope: {e}");
            error::LAUNCH_FAILURE
        }
        Err(LaunchFailure::Fault(f)) => {
            fault = Some(f);
            error::LAUNCH_FAILURE
        }
    });
    if let Some(f) = fault {
        // The real runtime aborts the process on a GPU fault. Only once the runtime's lock is
        // released: `exit` runs the program's module destructor, whose
        // `__hipUnregisterFatBinary` takes the lock again.
        eprintln!("hipscope: {f}");
        std::process::exit(3)
    }
    code
}

/// # Safety
/// `ptr` is where the device address is written.
#[no_mangle]
pub unsafe extern "C" fn hipMalloc(ptr: *mut *mut c_void, size: usize) -> u32 {
    if ptr.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        let base = rt.malloc(size as u64);
        // SAFETY: non-null; the caller's pointer variable.
        unsafe { *ptr = base as *mut c_void };
        error::SUCCESS
    })
}

/// # Safety
/// `ptr` is a device address from `hipMalloc` (or null).
#[no_mangle]
pub unsafe extern "C" fn hipFree(ptr: *mut c_void) -> u32 {
    with_runtime(|rt| rt.free(ptr as u64))
}

/// `hipMemcpyKind`.
const HOST_TO_HOST: u32 = 0;
const HOST_TO_DEVICE: u32 = 1;
const DEVICE_TO_HOST: u32 = 2;
const DEVICE_TO_DEVICE: u32 = 3;
const DEFAULT: u32 = 4;

/// # Safety
/// Host pointers must be valid for `size` bytes, as for the real `hipMemcpy`.
#[no_mangle]
pub unsafe extern "C" fn hipMemcpy(dst: *mut c_void, src: *const c_void, size: usize, kind: u32) -> u32 {
    if size == 0 {
        return error::SUCCESS;
    }
    if dst.is_null() || src.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        let (d, s, n) = (dst as u64, src as u64, size as u64);
        let kind = match kind {
            DEFAULT => match (rt.is_device(d, n), rt.is_device(s, n)) {
                (true, true) => DEVICE_TO_DEVICE,
                (true, false) => HOST_TO_DEVICE,
                (false, true) => DEVICE_TO_HOST,
                (false, false) => HOST_TO_HOST,
            },
            k => k,
        };
        let device_ok = |addr: u64| rt.is_device(addr, n);
        match kind {
            HOST_TO_HOST => {
                // SAFETY: both host ranges valid for `size` bytes (the caller's contract).
                unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, size) };
                error::SUCCESS
            }
            HOST_TO_DEVICE if device_ok(d) => {
                // SAFETY: the caller's host range.
                let bytes = unsafe { std::slice::from_raw_parts(src as *const u8, size) };
                rt.write(d, bytes)
            }
            DEVICE_TO_HOST if device_ok(s) => {
                rt.device.synchronize();
                // SAFETY: the caller's host range.
                let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, size) };
                match rt.device.mem.read(s, out) {
                    Ok(()) => error::SUCCESS,
                    Err(_) => error::INVALID_DEVICE_POINTER,
                }
            }
            DEVICE_TO_DEVICE if device_ok(s) && device_ok(d) => {
                rt.device.synchronize();
                let mut tmp = vec![0u8; size];
                if rt.device.mem.read(s, &mut tmp).is_err() {
                    return error::INVALID_DEVICE_POINTER;
                }
                rt.write(d, &tmp)
            }
            // An unknown kind, or a device side outside every allocation.
            _ => error::INVALID_VALUE,
        }
    })
}

/// # Safety
/// `dst` is a device address from `hipMalloc`.
#[no_mangle]
pub unsafe extern "C" fn hipMemset(dst: *mut c_void, value: c_int, size: usize) -> u32 {
    if size == 0 {
        return error::SUCCESS;
    }
    with_runtime(|rt| rt.memset(dst as u64, value as u8, size as u64))
}

#[no_mangle]
pub extern "C" fn hipDeviceSynchronize() -> u32 {
    with_runtime(|_| error::SUCCESS)
}

#[no_mangle]
pub extern "C" fn hipGetLastError() -> u32 {
    with_runtime(|rt| std::mem::replace(&mut rt.last_error, error::SUCCESS))
}

#[no_mangle]
pub extern "C" fn hipPeekAtLastError() -> u32 {
    with_runtime(|rt| rt.last_error)
}

#[no_mangle]
pub extern "C" fn hipGetErrorString(code: u32) -> *const c_char {
    let s: &'static CStr = match code {
        error::SUCCESS => c"no error",
        error::INVALID_VALUE => c"invalid argument",
        error::OUT_OF_MEMORY => c"out of memory",
        error::NOT_INITIALIZED => c"initialization error (hipscope could not start the simulated GPU)",
        error::INVALID_DEVICE_POINTER => c"invalid device pointer",
        error::INVALID_DEVICE_FUNCTION => c"invalid device function",
        error::LAUNCH_FAILURE => c"unspecified launch failure",
        error::NOT_SUPPORTED => c"operation not supported",
        _ => c"unknown error",
    };
    s.as_ptr()
}

/// An event: the simulated time at which it was recorded.
struct Event {
    ms: f64,
}

/// # Safety
/// `event` is where the handle is written.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut *mut c_void) -> u32 {
    if event.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: non-null.
    unsafe { *event = Box::into_raw(Box::new(Event { ms: 0.0 })) as *mut c_void };
    error::SUCCESS
}

/// # Safety
/// `event` comes from `hipEventCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipEventRecord(event: *mut c_void, _stream: *mut c_void) -> u32 {
    if event.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime(|rt| {
        // SAFETY: a handle hipEventCreate made.
        unsafe { (*(event as *mut Event)).ms = rt.now_ms };
        error::SUCCESS
    })
}

/// # Safety
/// `event` comes from `hipEventCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipEventSynchronize(event: *mut c_void) -> u32 {
    if event.is_null() {
        error::INVALID_VALUE
    } else {
        error::SUCCESS
    }
}

/// # Safety
/// `ms` is writable; the events come from `hipEventCreate`.
#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, start: *mut c_void, stop: *mut c_void) -> u32 {
    if ms.is_null() || start.is_null() || stop.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: handles hipEventCreate made; `ms` non-null.
    unsafe { *ms = ((*(stop as *const Event)).ms - (*(start as *const Event)).ms) as f32 };
    error::SUCCESS
}

/// # Safety
/// `event` comes from `hipEventCreate` and is not used again.
#[no_mangle]
pub unsafe extern "C" fn hipEventDestroy(event: *mut c_void) -> u32 {
    if event.is_null() {
        return error::INVALID_VALUE;
    }
    // SAFETY: made by Box::into_raw in hipEventCreate.
    drop(unsafe { Box::from_raw(event as *mut Event) });
    error::SUCCESS
}
