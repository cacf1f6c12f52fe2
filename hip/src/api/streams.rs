//! Streams and events on the simulated timeline ([`crate::timeline`]): a program that times
//! its kernels with events reads simulated times.

use crate::runtime::error;
use crate::timeline::STREAM_PER_THREAD;
use crate::{put, with_runtime, with_runtime_queued};
use std::collections::BTreeMap;
use std::ffi::{c_int, c_void};
use std::sync::Mutex;

/// # Safety
/// `stream` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreate(stream: *mut *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipStreamCreateWithFlags(stream, 0) }
}

/// # Safety
/// `stream` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithFlags(stream: *mut *mut c_void, flags: u32) -> u32 {
    if stream.is_null() {
        return error::INVALID_VALUE;
    }
    with_runtime_queued(|rt| {
        let h = rt.timeline.create_stream(flags);
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(stream, h as *mut c_void) }
    })
}

/// # Safety
/// `stream` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipStreamCreateWithPriority(stream: *mut *mut c_void, flags: u32, _priority: c_int) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipStreamCreateWithFlags(stream, flags) }
}

/// The null stream and `hipStreamPerThread` cannot be destroyed
/// (`hipErrorInvalidHandle`); a stream destroyed before, or never created, is
/// `hipErrorContextIsDestroyed` (clr `hipamd/src/hip_stream.cpp`, `hipStreamDestroy`).
#[no_mangle]
pub extern "C" fn hipStreamDestroy(stream: *mut c_void) -> u32 {
    with_runtime(|rt| match stream as usize {
        0 | STREAM_PER_THREAD => error::INVALID_HANDLE,
        s if rt.timeline.destroy_stream(s) => error::SUCCESS,
        _ => error::CONTEXT_IS_DESTROYED,
    })
}

/// A destroyed stream is `hipErrorContextIsDestroyed` (`hipStreamSynchronize_common`).
#[no_mangle]
pub extern "C" fn hipStreamSynchronize(stream: *mut c_void) -> u32 {
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        rt.timeline.synchronize_stream(stream as usize);
        error::SUCCESS
    })
}

/// Work completes when it is issued, so a stream is never busy; the host catches up to the
/// stream's end on the timeline, as a polling loop would.
#[no_mangle]
pub extern "C" fn hipStreamQuery(stream: *mut c_void) -> u32 {
    hipStreamSynchronize(stream)
}

/// The device a stream belongs to (-1 for a handle that names no stream, as ROCm answers).
#[no_mangle]
pub extern "C" fn hipGetStreamDeviceId(stream: *mut c_void) -> c_int {
    crate::on_runtime(|rt| {
        rt.select(crate::current_device());
        rt.timeline.is_stream(stream as usize).then(|| rt.timeline.device_of(stream as usize) as c_int)
    })
    .flatten()
    .unwrap_or(-1)
}

/// # Safety
/// `device` is where the ordinal is written.
#[no_mangle]
pub unsafe extern "C" fn hipStreamGetDevice(stream: *mut c_void, device: *mut c_int) -> u32 {
    with_runtime_queued(|rt| {
        if device.is_null() {
            return error::INVALID_VALUE;
        }
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        // SAFETY: the caller's contract.
        unsafe { crate::put(device, rt.timeline.device_of(stream as usize) as c_int) }
    })
}

/// An event: where on the timeline it was last recorded (None: never recorded).
#[derive(Debug, Clone, Copy, Default)]
struct Event {
    at_ms: Option<f64>,
}

/// Live events by handle. Handles are counters, never pointers the program could forge into
/// something we dereference. ROCm checks an event handle only when destroying it
/// (`hipErrorContextIsDestroyed` for one destroyed before, clr `hipamd/src/hip_event.cpp`,
/// `hipEventDestroy`); its other calls use the freed event. hipscope answers those with
/// `hipErrorInvalidHandle`, ROCm's code for a null event in the same calls.
static EVENTS: Mutex<(usize, BTreeMap<usize, Event>)> = Mutex::new((0, BTreeMap::new()));

/// Drop every event ([`super::reset_tables`]).
pub(crate) fn forget_events() {
    with_events(|map, _| map.clear());
}

fn with_events<R>(f: impl FnOnce(&mut BTreeMap<usize, Event>, &mut usize) -> R) -> R {
    let mut g = EVENTS.lock().unwrap_or_else(|p| p.into_inner());
    let (next, map) = &mut *g;
    f(map, next)
}

/// # Safety
/// `event` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreate(event: *mut *mut c_void) -> u32 {
    // SAFETY: the caller's contract.
    unsafe { hipEventCreateWithFlags(event, 0) }
}

/// # Safety
/// `event` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipEventCreateWithFlags(event: *mut *mut c_void, _flags: u32) -> u32 {
    if event.is_null() {
        return with_runtime_queued(|_| error::INVALID_VALUE);
    }
    let h = with_events(|map, next| {
        *next += 1;
        map.insert(*next, Event::default());
        *next
    });
    with_runtime(|rt| {
        rt.note_event(false);
        // SAFETY: non-null, the caller's out-parameter.
        unsafe { put(event, h as *mut c_void) }
    })
}

/// A null event is `hipErrorInvalidHandle`, a destroyed stream `hipErrorContextIsDestroyed`
/// (`hipEventRecord_common`).
#[no_mangle]
pub extern "C" fn hipEventRecord(event: *mut c_void, stream: *mut c_void) -> u32 {
    with_runtime(|rt| {
        if event.is_null() {
            return error::INVALID_HANDLE;
        }
        if !rt.timeline.is_stream(stream as usize) {
            return error::CONTEXT_IS_DESTROYED;
        }
        rt.note_event(true);
        // On a stream being captured, the event marks the capture's position (api/graph.rs).
        if let Some(code) = super::graph::capture_event_record(event as usize, stream as usize) {
            return code;
        }
        let at = rt.timeline.record(stream as usize);
        with_events(|map, _| match map.get_mut(&(event as usize)) {
            Some(e) => {
                e.at_ms = Some(at);
                error::SUCCESS
            }
            None => error::INVALID_HANDLE,
        })
    })
}

/// Where a live event was last recorded: `Ok(None)` if never; an unknown handle is
/// `hipErrorInvalidHandle`.
fn recorded(event: *mut c_void) -> Result<Option<f64>, u32> {
    with_events(|map, _| map.get(&(event as usize)).map(|e| e.at_ms).ok_or(error::INVALID_HANDLE))
}

/// An event never recorded is complete at once (`Event::synchronize`: "If event is not
/// recorded, event_ is null, hence return hipSuccess").
#[no_mangle]
pub extern "C" fn hipEventSynchronize(event: *mut c_void) -> u32 {
    with_runtime(|rt| match recorded(event) {
        Ok(Some(at)) => {
            rt.timeline.host_wait(at);
            error::SUCCESS
        }
        Ok(None) => error::SUCCESS,
        Err(e) => e,
    })
}

/// Like a stream, an event is complete once the host has caught up with it.
#[no_mangle]
pub extern "C" fn hipEventQuery(event: *mut c_void) -> u32 {
    hipEventSynchronize(event)
}

/// # Safety
/// `ms` is writable.
#[no_mangle]
pub unsafe extern "C" fn hipEventElapsedTime(ms: *mut f32, start: *mut c_void, stop: *mut c_void) -> u32 {
    if ms.is_null() {
        return with_runtime(|_| error::INVALID_VALUE);
    }
    with_runtime(|_| match (recorded(start), recorded(stop)) {
        // SAFETY: the caller's out-parameter, not null.
        (Ok(Some(a)), Ok(Some(b))) => unsafe { put(ms, (b - a) as f32) },
        // An event never recorded cannot be measured (`Event::elapsedTime`).
        (Ok(_), Ok(_)) => error::INVALID_HANDLE,
        (Err(e), _) | (_, Err(e)) => e,
    })
}

/// A null event is `hipErrorInvalidHandle`; one destroyed before (or never created)
/// `hipErrorContextIsDestroyed` (`hipEventDestroy`).
#[no_mangle]
pub extern "C" fn hipEventDestroy(event: *mut c_void) -> u32 {
    with_runtime(|_| {
        if event.is_null() {
            return error::INVALID_HANDLE;
        }
        with_events(|map, _| if map.remove(&(event as usize)).is_some() { error::SUCCESS } else { error::CONTEXT_IS_DESTROYED })
    })
}

/// A destroyed stream or an unknown event is `hipErrorInvalidHandle`
/// (`hipStreamWaitEvent_common`); an event never recorded leaves nothing to wait for.
#[no_mangle]
pub extern "C" fn hipStreamWaitEvent(stream: *mut c_void, event: *mut c_void, _flags: u32) -> u32 {
    with_runtime(|rt| {
        if !rt.timeline.is_stream(stream as usize) {
            return error::INVALID_HANDLE;
        }
        // An event recorded during a capture joins the waiting stream to it (api/graph.rs).
        if let Some(code) = super::graph::capture_wait_event(stream as usize, event as usize) {
            return code;
        }
        match recorded(event) {
            Ok(Some(at)) => {
                rt.timeline.wait(stream as usize, at);
                error::SUCCESS
            }
            // Nothing to wait for.
            Ok(None) => error::SUCCESS,
            Err(e) => e,
        }
    })
}
