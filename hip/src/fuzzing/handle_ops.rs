//! Streams, events, stream capture and graphs, and device-wide calls, with fuzzed handles
//! (live, destroyed, null, never made).

use super::input::Input;
use super::state::State;
use crate::api::{device, errors, graph, host_funcs, streams};
use std::ffi::c_void;

extern "C" fn host_function(_user: *mut c_void) {}

extern "C" fn callback(_stream: *mut c_void, _status: u32, _user: *mut c_void) {}

pub(super) fn stream(st: &mut State, r: &mut Input) {
    let s = st.stream(r) as *mut c_void;
    let (mut out, mut dev) = (std::ptr::null_mut(), 0);
    // SAFETY: local out-parameters; the callbacks do nothing.
    let (op, code) = unsafe {
        match r.u8() % 8 {
            0 => ("hipStreamCreateWithFlags", streams::hipStreamCreateWithFlags(&mut out, u32::from(r.u8() % 2))),
            1 => ("hipStreamDestroy", streams::hipStreamDestroy(s)),
            2 => ("hipStreamSynchronize", streams::hipStreamSynchronize(s)),
            3 => ("hipStreamQuery", streams::hipStreamQuery(s)),
            4 => ("hipStreamGetDevice", streams::hipStreamGetDevice(s, &mut dev)),
            5 => ("hipLaunchHostFunc", host_funcs::hipLaunchHostFunc(s, Some(host_function), std::ptr::null_mut())),
            6 => ("hipStreamAddCallback", host_funcs::hipStreamAddCallback(s, Some(callback), std::ptr::null_mut(), u32::from(r.u8() % 2))),
            _ => ("hipStreamCreate(null)", streams::hipStreamCreate(std::ptr::null_mut())),
        }
    };
    st.record(op, code);
    if code == 0 {
        State::keep(&mut st.streams, out as usize);
    }
}

pub(super) fn event(st: &mut State, r: &mut Input) {
    let (e, other, s) = (st.event(r) as *mut c_void, st.event(r) as *mut c_void, st.stream(r) as *mut c_void);
    let (mut out, mut ms) = (std::ptr::null_mut(), 0f32);
    // SAFETY: local out-parameters.
    let (op, code) = unsafe {
        match r.u8() % 8 {
            0 => ("hipEventCreate", streams::hipEventCreate(&mut out)),
            1 => ("hipEventDestroy", streams::hipEventDestroy(e)),
            2 => ("hipEventRecord", streams::hipEventRecord(e, s)),
            3 => ("hipEventSynchronize", streams::hipEventSynchronize(e)),
            4 => ("hipEventQuery", streams::hipEventQuery(e)),
            5 => ("hipEventElapsedTime", streams::hipEventElapsedTime(&mut ms, e, other)),
            6 => ("hipStreamWaitEvent", streams::hipStreamWaitEvent(s, e, 0)),
            _ => ("hipEventElapsedTime(null)", streams::hipEventElapsedTime(std::ptr::null_mut(), e, other)),
        }
    };
    st.record(op, code);
    if code == 0 {
        State::keep(&mut st.events, out as usize);
    }
}

/// Stream capture and executable graphs: what was enqueued on a capturing stream becomes a
/// graph, which is instantiated, launched and destroyed (perhaps twice, perhaps never).
pub(super) fn graphs(st: &mut State, r: &mut Input) {
    let s = st.stream(r) as *mut c_void;
    let g = State::handle(r, &st.graphs) as *mut c_void;
    let x = State::handle(r, &st.execs) as *mut c_void;
    let (mut out, mut clone, mut status) = (std::ptr::null_mut(), std::ptr::null_mut(), 0u32);
    // SAFETY: local out-parameters.
    let (op, code) = unsafe {
        match r.u8() % 9 {
            0 => ("hipStreamBeginCapture", graph::hipStreamBeginCapture(s, u32::from(r.u8() % 3))),
            1 => ("hipStreamEndCapture", graph::hipStreamEndCapture(s, &mut out)),
            2 => ("hipStreamIsCapturing", graph::hipStreamIsCapturing(s, &mut status)),
            3 => ("hipGraphCreate", graph::hipGraphCreate(&mut out, u32::from(r.u8() % 2))),
            4 => ("hipGraphInstantiate", graph::hipGraphInstantiate(&mut clone, g, std::ptr::null_mut(), std::ptr::null_mut(), 0)),
            5 => ("hipGraphLaunch", graph::hipGraphLaunch(x, s)),
            6 => ("hipGraphExecDestroy", graph::hipGraphExecDestroy(x)),
            7 => ("hipGraphDestroy", graph::hipGraphDestroy(g)),
            _ => ("hipGraphClone", graph::hipGraphClone(&mut out, g)),
        }
    };
    st.record(op, code);
    if code == 0 {
        State::keep(&mut st.graphs, out as usize);
        State::keep(&mut st.execs, clone as usize);
    }
}

pub(super) fn device(st: &mut State, r: &mut Input) {
    let (op, code) = match r.u8() % 5 {
        0 => ("hipDeviceReset", device::hipDeviceReset()),
        1 => ("hipDeviceSynchronize", device::hipDeviceSynchronize()),
        2 => ("hipGetLastError", errors::hipGetLastError()),
        3 => ("hipPeekAtLastError", errors::hipPeekAtLastError()),
        _ => ("hipSetDevice", device::hipSetDevice(i32::from(r.u8() % 3) - 1)),
    };
    st.record(op, code);
    if op == "hipDeviceReset" {
        // Every allocation went with the reset.
        for b in &mut st.buffers {
            b.live = false;
        }
    }
}
