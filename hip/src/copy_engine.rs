//! What copies and fills cost on the simulated timeline: `hipMemcpy` host-to-device,
//! device-to-host and device-to-device, and `hipMemset`, each `latency + bytes / bandwidth` with
//! the GPU config's `timing.copy_engine` parameters (`configs/*.ron`, sourced there; MI300A's
//! are fitted to real copy times). Only timing mode takes time; a config without the section
//! leaves copies free.
//!
//! The timeline (`timeline.rs`) places each copy on its engine. A kernel launched while
//! nothing is queued ahead of it (the host waited for the GPU: a synchronize, a blocking copy)
//! also pays the idle-launch latency (`dispatch.idle_launch_latency_ns`): the runtime's
//! submission is exposed then, where it overlaps the previous kernel in a stream of
//! back-to-back launches.

use crate::runtime::Runtime;
use crate::timeline::Engine;
use hipscope_sim::gpus::timing::CopyEngine;
use hipscope_sim::node::Agent;

/// The kinds of transfer a copy engine prices. Host-to-device and device-to-host copies are
/// priced on the node's host link, which for a lone GPU is built from these same figures
/// (`sim::node::Node::single`); the tests below check the figures themselves.
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

/// The config's parameters, in timing mode only.
fn params(rt: &Runtime) -> Option<&CopyEngine> {
    rt.mode.is_timing().then(|| rt.gpu().timing.as_ref().and_then(|t| t.copy_engine.as_ref())).flatten()
}

/// A copy of `bytes` on `engine` of GPU `device` (0 in functional mode or without
/// `copy_engine`): between host and device on the node's host link of that GPU (for a lone
/// GPU, the link its copy engine describes: the same figures), within the GPU by its copy
/// engine.
pub fn copy_ms(rt: &Runtime, engine: Engine, device: usize, bytes: u64) -> f64 {
    let (from, to) = match engine {
        Engine::HostToDevice => (Agent::Host, Agent::Gpu(device)),
        Engine::DeviceToHost => (Agent::Gpu(device), Agent::Host),
        Engine::DeviceToDevice | Engine::Compute => return params(rt).map_or(0.0, |p| duration_ms(p, Transfer::DeviceToDevice, bytes)),
    };
    if !rt.mode.is_timing() {
        return 0.0;
    }
    rt.node.copy_ns(from, to, bytes).map_or(0.0, |ns| ns / 1e6)
}

/// A fill of `bytes` (`hipMemset`).
pub fn fill_ms(rt: &Runtime, bytes: u64) -> f64 {
    params(rt).map_or(0.0, |p| duration_ms(p, Transfer::Fill, bytes))
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
