//! Litmus threads on the host CPU (`thread H @ host`) run by the hardware layer on a modelled
//! core of the node's host, beside the kernel of the test's GPU threads.
//!
//! What must hold comes from the memory model, not from our own output: a host access is at
//! system scope (the host is an agent of its own; HSA's scope hierarchy ends at system, LLVM
//! AMDGPUUsage "Memory Scopes"), so a GPU release at system scope and a host acquire
//! synchronise, and so do a host release and a GPU acquire at system scope: message passing
//! either way never ends with the flag seen and the data stale. An agent-scope acquire does
//! not include the host, and on host memory allocated non-coherent a GPU's L2 may keep a copy
//! (gfx942: MTYPE NC lines stay in the L2 until an invalidate at system scope drops them,
//! AMDGPUUsage "Memory Model GFX942"), so the stale read may be seen there; on coherent host
//! memory (MTYPE UC: no GPU cache keeps it past the acquire's L1 invalidate) it is not.

use hipscope_grade::hardware::host::HostAlloc;
use hipscope_grade::hardware::{self, HardwareError, HardwareReport, Runs, Setup};
use hipscope_grade::litmus::{self, Litmus};
use hipscope_grade::model::{self, Model};
use hipscope_sim::gpus::{self, Mode};
use std::path::Path;

fn load(stem: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus/agents").join(format!("{stem}.litmus"));
    let source = litmus::read_source(&path).expect("readable");
    litmus::parse(&path, &source).unwrap_or_else(|e| panic!("{stem}: {e}"))
}

fn run(test: &Litmus, gpu: &str, count: u64, seed: u64, host_memory: HostAlloc) -> HardwareReport {
    let g = gpus::builtin(gpu).expect("built-in GPU");
    let setup = Setup { host_memory, ..Setup::default() };
    hardware::run_with(test, &g, Mode::CU, Runs { count, seed, one_xcd: false }, &setup).unwrap_or_else(|e| panic!("{} on {gpu}: {e}", test.name))
}

fn states(r: &HardwareReport) -> Vec<(String, u64)> {
    r.outcomes.iter().map(|o| (o.state.clone(), o.count)).collect()
}

/// The host thread runs: its registers are in every outcome, and across seeds it reads the
/// flag both before and after the kernel's release (so the seeds vary the interleaving).
#[test]
fn the_host_thread_runs_and_its_registers_are_the_outcome() {
    let r = run(&load("mp_gpu_to_host_system"), "mi300x", 200, 1, HostAlloc::Coherent);
    println!("{}: {:?}", r.placement, states(&r));
    assert!(r.placement.contains("mi300x-8") && r.placement.contains("host CPU core") && r.placement.contains("host_pinned"), "{}", r.placement);
    assert_eq!(r.outcomes.iter().map(|o| o.count).sum::<u64>(), 200);
    assert!(r.outcomes.iter().all(|o| o.state.starts_with("H:r0=")), "{:?}", states(&r));
    for seen in ["H:r0=0 H:r1=-1", "H:r0=1 H:r1=1"] {
        assert!(r.outcomes.iter().any(|o| o.state == seen), "never {seen}: {:?}", states(&r));
    }
}

/// Message passing between a GPU and the host at system scope, either way, on both nodes with a
/// host (the APU's shared HBM and the PCIe host of MI300X), and with the consumer's cache warmed
/// on non-coherent host memory: the model forbids the weak outcome and no run of 1000 shows it.
#[test]
fn system_scope_message_passing_with_the_host_is_never_weak_in_1000_runs() {
    let cases = [
        ("mp_gpu_to_host_system", "mi300a", HostAlloc::Coherent),
        ("mp_gpu_to_host_system", "mi300x", HostAlloc::Coherent),
        ("mp_host_to_gpu_system", "mi300a", HostAlloc::Coherent),
        ("mp_host_to_gpu_system", "mi300x", HostAlloc::Coherent),
        ("mp_host_to_gpu_system_warm", "mi300x", HostAlloc::NonCoherent),
    ];
    for (stem, gpu, alloc) in cases {
        let test = load(stem);
        let v = model::check(&test, Model::Hip).expect("graded");
        assert!(v.race_free() && !v.reachable(), "{stem}: the model forbids the weak outcome of a race-free test");
        let r = run(&test, gpu, 1000, 1, alloc);
        println!("{stem} on {gpu} ({}): {:?}", alloc.name(), states(&r));
        assert_eq!(r.condition_observed, 0, "{stem} on {gpu}: first seed {:?}", r.condition_first_seed);
        // Both sides of the race for the flag are seen: the consumer sees it set in some runs.
        assert!(r.outcomes.len() >= 2, "{stem} on {gpu}: {:?}", states(&r));
    }
}

/// An agent-scope acquire of the host's release does not synchronise (the model: a race, the
/// weak outcome allowed). On non-coherent host memory the GPU's L2 keeps the copy of x read
/// before the flag, and the second read returns it: seen. On coherent host memory nothing keeps
/// it: never seen.
#[test]
fn an_agent_scope_acquire_reads_stale_host_memory_only_when_non_coherent() {
    let test = load("mp_host_to_gpu_agent_warm");
    let v = model::check(&test, Model::Hip).expect("graded");
    assert!(!v.race_free() && v.reachable());
    let nc = run(&test, "mi300x", 300, 1, HostAlloc::NonCoherent);
    let uc = run(&test, "mi300x", 300, 1, HostAlloc::Coherent);
    println!("non-coherent: {:?}\ncoherent: {:?}", states(&nc), states(&uc));
    assert!(nc.placement.contains("host_pinned_nc") && uc.placement.contains("host_pinned") && !uc.placement.contains("_nc"));
    assert!(nc.condition_observed > 0, "{:?}", states(&nc));
    assert_eq!(uc.condition_observed, 0, "{:?}", states(&uc));
}

/// Store buffering between a kernel and the host with relaxed system-scope atomics: the model
/// allows both loads to read 0; whatever the runs show, every run ends with one of the model's
/// final states (printed: the README reports what was seen).
#[test]
fn store_buffering_with_the_host_ends_in_the_models_states() {
    let test = load("sb_host_gpu_relaxed");
    assert!(model::check(&test, Model::Hip).expect("graded").reachable());
    let r = run(&test, "mi300x", 1000, 1, HostAlloc::Coherent);
    println!("sb host/gpu on mi300x: {:?}", states(&r));
    assert_eq!(r.outcomes.iter().map(|o| o.count).sum::<u64>(), 1000);
    for o in &r.outcomes {
        assert!(["T0:r0=0 H:r1=0", "T0:r0=0 H:r1=1", "T0:r0=1 H:r1=0", "T0:r0=1 H:r1=1"].contains(&o.state.as_str()), "{}", o.state);
    }
}

/// The same seeds give the same outcomes, host thread included; other seeds may differ.
#[test]
fn a_seed_replays_the_host_thread() {
    let test = load("mp_host_to_gpu_agent_warm");
    let first = run(&test, "mi300x", 60, 11, HostAlloc::NonCoherent);
    let again = run(&test, "mi300x", 60, 11, HostAlloc::NonCoherent);
    assert_eq!(format!("{:?}", first.outcomes), format!("{:?}", again.outcomes));
    for o in &first.outcomes {
        let one = run(&test, "mi300x", 1, o.first_seed, HostAlloc::NonCoherent);
        assert_eq!(one.outcomes[0].state, o.state, "seed {}", o.first_seed);
    }
}

/// A plain `--gpu` with a host thread runs on the first built-in node made of that GPU; a GPU
/// no built-in node holds is refused, naming the host and the nodes there are.
#[test]
fn a_host_thread_runs_on_the_gpus_node_or_is_refused() {
    let test = load("mp_gpu_to_host_system");
    let r = run(&test, "rx7900xtx", 20, 1, HostAlloc::Coherent);
    assert!(r.placement.contains("rx7900xtx-pcie"), "{}", r.placement);
    let g = gpus::builtin("mi210").expect("built-in GPU");
    match hardware::run(&test, &g, Mode::CU, Runs { count: 1, seed: 1, one_xcd: false }) {
        Err(HardwareError::Unsupported(u)) => assert!(u.0.contains("host") && u.0.contains("no built-in node") && u.0.contains("mi300x-8"), "{}", u.0),
        other => panic!("mi210: {:?}", other.map(|r| r.outcomes)),
    }
}

/// What the modelled core cannot run is refused with the reason, before any run: it reads and
/// writes 32-bit words only.
#[test]
fn a_host_thread_the_core_cannot_run_is_refused() {
    let source = r#"HIP host_wide
__device__ long x = 0;
thread T0 @ device 0, block 0, thread 0 {
  __hip_atomic_store(&x, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
thread H @ host {
  long r0 = __hip_atomic_load(&x, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}
exists (H:r0 == 1)
"#;
    let test = litmus::parse(Path::new("host_wide.litmus"), source).expect("parses");
    let g = gpus::builtin("mi300x").expect("built-in GPU");
    match hardware::run(&test, &g, Mode::CU, Runs { count: 1, seed: 1, one_xcd: false }) {
        Err(HardwareError::Unsupported(u)) => assert!(u.0.contains("host thread H") && u.0.contains("32-bit"), "{}", u.0),
        other => panic!("{:?}", other.map(|r| r.outcomes)),
    }
}
