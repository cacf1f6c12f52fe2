//! What copies and fills cost on the simulated timeline: `hipMemcpy` host-to-device,
//! device-to-host and device-to-device, and `hipMemset`, each `latency + bytes / bandwidth` with
//! the GPU config's `timing.copy_engine` parameters (`configs/*.ron`, sourced there; MI300A's
//! are fitted to real copy times). On a named node (`--node`), a copy between host memory
//! (pageable or pinned) and a GPU also crosses that GPU's host link (`configs/nodes/*.ron`):
//! it runs at the slower of the engine's and the link's rates ([`host_copy_ns`]). Only timing
//! mode takes time; a config without the section leaves copies free.
//!
//! The timeline (`timeline.rs`) places each copy on its engine. A kernel launched while
//! nothing is queued ahead of it (the host waited for the GPU: a synchronize, a blocking copy)
//! also pays the idle-launch latency (`dispatch.idle_launch_latency_ns`): the runtime's
//! submission is exposed then, where it overlaps the previous kernel in a stream of
//! back-to-back launches.

use crate::node::{home_of, Home};
use crate::runtime::Runtime;
use crate::timeline::Engine;
use crate::transfer::Side;
use hipscope_sim::gpus::timing::CopyEngine;
use hipscope_sim::node::{Agent, Direction, LinkKind};

/// The kinds of transfer a copy engine prices. Host-to-device and device-to-host copies are
/// also limited by a named node's host link ([`copy_ms`]); the tests below check the
/// figures themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
pub enum Transfer {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
    /// `hipMemset`: ROCm runs it as a fill kernel, device-side writes only.
    Fill,
}

/// Milliseconds a transfer of `bytes` takes with parameters `p`.
pub fn duration_ms(p: &CopyEngine, kind: Transfer, bytes: u64) -> f64 {
    let (latency_ns, bytes_per_ns) = match kind {
        Transfer::HostToDevice => (p.h2d_latency_ns, p.h2d_bandwidth_bytes_per_ns),
        Transfer::DeviceToHost => (p.d2h_latency_ns, p.d2h_bandwidth_bytes_per_ns),
        Transfer::DeviceToDevice => (p.d2d_latency_ns, p.d2d_bandwidth_bytes_per_ns),
        Transfer::Fill => (p.fill_latency_ns, p.fill_bandwidth_bytes_per_ns),
    };
    // `Timing::check` keeps bandwidths at 1 byte/ns or more; max(1) only guards the division.
    (f64::from(latency_ns) + bytes as f64 / f64::from(bytes_per_ns.max(1))) / 1e6
}

/// The config's parameters of GPU `device`, in timing mode only.
fn params(rt: &Runtime, device: usize) -> Option<&CopyEngine> {
    let gpu = &rt.gpus.get(device)?.config;
    rt.mode.is_timing().then(|| gpu.timing.as_ref().and_then(|t| t.copy_engine.as_ref())).flatten()
}

/// A copy of `bytes` on `engine` of GPU `device` (0 in functional mode or without
/// `copy_engine`): between host and device as [`host_copy_ns`] prices it on that GPU's host
/// link, within the GPU by its copy engine.
pub fn copy_ms(rt: &Runtime, engine: Engine, device: usize, bytes: u64) -> f64 {
    let (from, to) = match engine {
        Engine::HostToDevice => (Agent::Host, Agent::Gpu(device)),
        Engine::DeviceToHost => (Agent::Gpu(device), Agent::Host),
        Engine::DeviceToDevice | Engine::Compute => return params(rt, device).map_or(0.0, |p| duration_ms(p, Transfer::DeviceToDevice, bytes)),
    };
    if !rt.mode.is_timing() {
        return 0.0;
    }
    let engine_side = params(rt, device).map(|p| {
        let (latency_ns, bw) =
            if from == Agent::Host { (p.h2d_latency_ns, p.h2d_bandwidth_bytes_per_ns) } else { (p.d2h_latency_ns, p.d2h_bandwidth_bytes_per_ns) };
        Direction { latency_ns: f64::from(latency_ns), bandwidth_bytes_per_ns: f64::from(bw.max(1)) }
    });
    // The wire: a named node's host link that carries copies. A lone GPU's link is its copy
    // engine's own figures (`Node::single`), and an APU's shared memory is no wire at all:
    // there the copy engine alone sets the pace.
    let wire =
        rt.node.links().filter(|n| n.link(from, to).is_some_and(|l| l.carries.copies && l.kind != LinkKind::SharedMemory)).and_then(|n| n.direction(from, to));
    let ns = match (engine_side, wire) {
        (None, None) => rt.node.copy_ns(from, to, bytes),
        (e, w) => host_copy_ns(e, w, bytes),
    };
    ns.map_or(0.0, |ns| ns / 1e6)
}

/// The engine that carries a copy of `bytes` to `dst` from `src` (each an address and its
/// [`Side`], the copy already checked) and its simulated time. By where each end's memory
/// lives: host memory (the program's pageable memory, or a host-pinned or managed
/// allocation, which lives in host RAM) to or from a GPU's memory crosses that GPU's host
/// link; between two GPUs, their peer link; within one GPU, its copy engine. Between two host
/// ends, as before nodes existed: by the sides alone, on the current GPU.
pub fn route(rt: &Runtime, dst: (u64, Side), src: (u64, Side), bytes: u64) -> (Engine, f64) {
    let end = |(address, side): (u64, Side)| match (side, home_of(address)) {
        (Side::Device, Home::Host) | (Side::Host | Side::Bad, _) => Agent::Host,
        (Side::Device, Home::Gpu(d)) if d < rt.gpus.len() => Agent::Gpu(d),
        (Side::Device, _) => Agent::Gpu(rt.current),
    };
    let d2d = Engine::DeviceToDevice;
    match (end(src), end(dst)) {
        (Agent::Host, Agent::Gpu(d)) => (Engine::HostToDevice, copy_ms(rt, Engine::HostToDevice, d, bytes)),
        (Agent::Gpu(d), Agent::Host) => (Engine::DeviceToHost, copy_ms(rt, Engine::DeviceToHost, d, bytes)),
        (Agent::Gpu(a), Agent::Gpu(b)) if a != b => (d2d, rt.peer_copy_ms(a, b, bytes)),
        (Agent::Gpu(a), Agent::Gpu(_)) => (d2d, copy_ms(rt, d2d, a, bytes)),
        (Agent::Host, Agent::Host) => {
            let engine = match (dst.1, src.1) {
                (Side::Device, Side::Device) => d2d,
                (Side::Device, _) => Engine::HostToDevice,
                _ => Engine::DeviceToHost,
            };
            (engine, copy_ms(rt, engine, rt.current, bytes))
        }
    }
}

/// Nanoseconds a host-to-device or device-to-host copy of `bytes` takes with the copy
/// engine's figures (`engine`: its DMA setup latency and rate) and the host link's (`wire`:
/// its one-way latency and per-direction rate): the data streams at the slower of the two
/// rates, after the engine's setup and the wire's first-byte latency. Pageable and pinned
/// host memory are priced alike: ROCm copies pageable memory through a pinned staging buffer
/// (`GPU_STAGING_BUFFER_SIZE`, 4 MiB) in pieces the DMA engine moves while the CPU fills the
/// next, or pins it in place from `GPU_PINNED_MIN_XFER_SIZE` (128 MiB) up (ROCm's environment
/// variables reference, rocclr section), so the link stays the bottleneck; assumed: the
/// CPU's staging copy keeps ahead of the link (no pageable measurement in hand).
pub fn host_copy_ns(engine: Option<Direction>, wire: Option<Direction>, bytes: u64) -> Option<f64> {
    let (latency_ns, bytes_per_ns) = match (engine, wire) {
        (Some(e), Some(w)) => (e.latency_ns + w.latency_ns, e.bandwidth_bytes_per_ns.min(w.bandwidth_bytes_per_ns)),
        (Some(d), None) | (None, Some(d)) => (d.latency_ns, d.bandwidth_bytes_per_ns),
        (None, None) => return None,
    };
    Some(latency_ns + bytes as f64 / bytes_per_ns)
}

/// A fill of `bytes` (`hipMemset`).
pub fn fill_ms(rt: &Runtime, bytes: u64) -> f64 {
    params(rt, rt.current).map_or(0.0, |p| duration_ms(p, Transfer::Fill, bytes))
}

/// What a kernel launched now on `stream` adds to its own time: the config's
/// `dispatch.idle_launch_latency_ns` when nothing is queued ahead of it (timing mode only).
pub fn idle_launch_ms(rt: &Runtime, stream: usize) -> f64 {
    match rt.gpu().timing.as_ref() {
        Some(t) if rt.mode.is_timing() && rt.timeline.idle(stream, Engine::Compute) => f64::from(t.dispatch.idle_launch_latency_ns) / 1e6,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hipscope_sim::gpus;

    /// The built-in MI300A parameters reproduce the real copies they were fitted to
    /// (`../shared/apps/mgpusim-gpu-perf/mi300a-real.csv`, min_ms): 256 MB host-to-device
    /// 4.6465 ms, device-to-host 4.6460 ms, device-to-device 0.1434 ms.
    #[test]
    fn mi300a_copies_match_the_measured_ones() {
        let g = gpus::builtin("mi300a").expect("built-in mi300a");
        let p = g.timing.as_ref().and_then(|t| t.copy_engine.as_ref()).expect("mi300a has copy_engine");
        let mb256 = 256 << 20;
        for (kind, real) in [(Transfer::HostToDevice, 4.6465), (Transfer::DeviceToHost, 4.6460), (Transfer::DeviceToDevice, 0.1434)] {
            let sim = duration_ms(p, kind, mb256);
            assert!((sim - real).abs() / real < 0.1, "{kind:?}: {sim} ms against {real} ms");
        }
        // A 4-byte copy costs its latency.
        assert!((duration_ms(p, Transfer::HostToDevice, 4) - f64::from(p.h2d_latency_ns) / 1e6).abs() < 1e-6);
    }

    #[test]
    fn every_builtin_gpu_prices_copies() {
        for name in gpus::builtin_names() {
            let g = gpus::builtin(name).expect("built-in");
            assert!(g.timing.as_ref().is_some_and(|t| t.copy_engine.is_some()), "{name} has no copy_engine");
        }
    }
}
