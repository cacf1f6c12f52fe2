//! Litmus threads on different agents: message passing between kernels on two GPUs of a
//! node (`@ device 0` / `@ device 1`) and from a kernel to a host thread (`@ host`).
//!
//! What must hold comes from the memory model, not from our own output: agent scope is one
//! GPU (LLVM AMDGPUUsage, "Memory Scopes"; HSA's scope hierarchy wavefront < work-group <
//! agent < system), so an agent-scope release and acquire on two different agents do not
//! synchronise — the plain data they should order races and the weak outcome is allowed —
//! while at system scope the pair synchronises, the test is race-free and the weak outcome
//! forbidden. The hardware layer runs the two-GPU tests as one kernel per GPU of the
//! `mi300x-8` node, together, 2000 runs each: every run completes, and no run shows an outcome
//! the model forbids. Host threads are graded by the language layer; the hardware layer says
//! plainly that it cannot run them yet.

use hipscope_grade::hardware::{self, HardwareError, Runs};
use hipscope_grade::litmus::{self, Litmus, HOST_AGENT};
use hipscope_grade::model::{self, Model};
use hipscope_sim::gpus::{self, Mode};
use std::path::Path;

fn load(stem: &str) -> Litmus {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../workloads/litmus/agents").join(format!("{stem}.litmus"));
    let source = litmus::read_source(&path).expect("readable");
    litmus::parse(&path, &source).unwrap_or_else(|e| panic!("{stem}: {e}"))
}

#[test]
fn agent_scope_between_agents_races_and_allows_the_weak_outcome() {
    for stem in ["mp_two_gpus_agent", "mp_gpu_to_host_agent"] {
        let test = load(stem);
        for m in [Model::Hip, Model::Hsa] {
            let v = model::check(&test, m).expect("graded");
            assert!(!v.race_free(), "{stem} under {m:?}: agent scope does not include the other agent");
            assert!(v.reachable(), "{stem} under {m:?}: nothing orders x's write before its read");
        }
    }
}

#[test]
fn system_scope_between_agents_is_race_free_and_forbids_the_weak_outcome() {
    for stem in ["mp_two_gpus_system", "mp_gpu_to_host_system"] {
        let test = load(stem);
        for m in [Model::Hip, Model::Hsa] {
            let v = model::check(&test, m).expect("graded");
            assert!(v.race_free(), "{stem} under {m:?}");
            assert!(!v.reachable(), "{stem} under {m:?}");
        }
    }
}

/// herd's LISA with the HSA bell writes agents as subtrees of the scope tree: the same
/// verdict, and the hardware layer runs agent 1's thread on GPU 1.
#[test]
fn lisa_agents_are_gpus_of_the_node() {
    let test = load("mp_two_agents_lisa");
    assert_ne!(test.threads[0].placement.agent, test.threads[1].placement.agent);
    let v = model::check(&test, Model::Hsa).expect("graded");
    assert!(!v.race_free() && v.reachable());
    let gpu = gpus::builtin("mi300x").expect("built-in GPU");
    let r = hardware::run(&test, &gpu, Mode::CU, Runs { count: 200, seed: 1, one_xcd: false }).expect("runs");
    assert!(r.placement.contains("mi300x-8"), "{}", r.placement);
    assert_eq!(r.outcomes.iter().map(|o| o.count).sum::<u64>(), 200);
}

#[test]
fn placements_name_the_agents() {
    let gpus = load("mp_two_gpus_agent");
    assert_eq!(gpus.threads.iter().map(|t| t.placement.agent).collect::<Vec<_>>(), [0, 1]);
    let host = load("mp_gpu_to_host_agent");
    assert_eq!(host.threads[1].placement.agent, HOST_AGENT);
    assert_ne!(host.threads[1].placement.workgroup, host.threads[0].placement.workgroup);
}

#[test]
fn two_gpu_tests_run_on_the_node_2000_times() {
    let gpu = gpus::builtin("mi300x").expect("built-in GPU");
    for stem in ["mp_two_gpus_agent", "mp_two_gpus_system"] {
        let test = load(stem);
        let r = hardware::run(&test, &gpu, Mode::CU, Runs { count: 2000, seed: 1, one_xcd: false }).unwrap_or_else(|e| panic!("{stem}: {e}"));
        assert_eq!(r.outcomes.iter().map(|o| o.count).sum::<u64>(), 2000, "{stem}");
        assert!(r.placement.contains("mi300x-8") && r.placement.contains("0, 1"), "{stem}: {}", r.placement);
        // Every run ends with the flag either unseen (r1 stays -1) or seen with x's value.
        for o in &r.outcomes {
            assert!(o.state.contains("r0=0") || o.state.contains("r0=1"), "{stem}: {}", o.state);
        }
        if !model::check(&test, Model::Hip).expect("graded").reachable() {
            assert_eq!(r.condition_observed, 0, "{stem}: the model forbids it; first seed {:?}", r.condition_first_seed);
        }
        println!("{stem} on mi300x-8: {:?}", r.outcomes.iter().map(|o| (&o.state, o.count)).collect::<Vec<_>>());
        // The same seeds give the same outcomes.
        let again = hardware::run(&test, &gpu, Mode::CU, Runs { count: 50, seed: 1, one_xcd: false }).expect("runs");
        let first = hardware::run(&test, &gpu, Mode::CU, Runs { count: 50, seed: 1, one_xcd: false }).expect("runs");
        assert_eq!(format!("{:?}", again.outcomes), format!("{:?}", first.outcomes), "{stem}");
    }
}

#[test]
fn the_hardware_layer_refuses_what_it_cannot_run() {
    let refusal =
        |stem: &str, gpu: &str| match hardware::run(&load(stem), &gpus::builtin(gpu).expect("GPU"), Mode::CU, Runs { count: 1, seed: 1, one_xcd: false }) {
            Err(HardwareError::Unsupported(u)) => u.0,
            other => panic!("{stem} on {gpu}: {:?}", other.map(|r| r.outcomes)),
        };
    // A host thread needs a node of the GPU; no built-in node has an MI210.
    let host = refusal("mp_gpu_to_host_system", "mi210");
    assert!(host.contains("host") && host.contains("no built-in node"), "{host}");
    // No built-in node has two MI210s, nor two RX 7900 XTXs.
    for gpu in ["mi210", "rx7900xtx"] {
        let why = refusal("mp_two_gpus_system", gpu);
        assert!(why.contains("no built-in node") && why.contains(gpu), "{gpu}: {why}");
    }
}
