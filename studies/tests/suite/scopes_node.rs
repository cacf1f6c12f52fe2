//! Ping-pong between agents of a node (`hipscope scopes`, [`hipscope_studies::scopes::nodepp`])
//! and the agent- versus system-scope L2 maintenance it exposes. Expectations come from the
//! node configs' latencies (`configs/nodes/*.ron`, each value cited there) and from LLVM
//! AMDGPUUsage, *Memory Model GFX942* (what `buffer_inv sc1` and `buffer_inv sc0 sc1` are
//! for), never from a run of ours:
//! * a round trip carries the flag across the link twice (there and back): at least twice the
//!   link's one-way latency; on an APU, whose CPU and GPU share one memory, at least the two
//!   host accesses the CPU makes per round (the read that sees the ping, the store of the
//!   pong), each the node's host memory latency;
//! * and at most ten link round trips (or host accesses): per round each side's critical path
//!   is one store that crosses the link and is acknowledged, and at most two polls (the one
//!   that just missed the value and the one that sees it), each a crossing there and back plus
//!   a memory access and an L2 tag walk — well under ten round trips of the link alone when the
//!   memories' latencies are below the link's (they are: 130 ns host DRAM, the GPU's HBM
//!   below 500 ns, against 570 ns round trips);
//! * a flag whose line GPU 0's L2 holds as another agent's memory (MTYPE NC: a peer's
//!   coarse-grained memory, host memory allocated non-coherent) is read stale after an
//!   agent-scope acquire — the agent-scope invalidate does not act on it — and fresh after a
//!   system-scope one ("following loads will not see stale MTYPE NC global data"): the
//!   agent-scope ping-pong never completes, reading the flag's old value, the system-scope one
//!   does;
//! * a flag the L2 does not hold as another agent's (GPU 0's own memory, MTYPE RW, kept
//!   coherent by probes; uncached host memory, MTYPE UC) completes at both scopes;
//! * the same run twice gives the same rows.

use hipscope_isa::codeobj;
use hipscope_sim::node::{Agent, Node};
use hipscope_studies::scopes::nodepp::{round_trips, Partner, RoundTrips, ROUNDS};
use hipscope_studies::scopes::Scope;
use std::path::PathBuf;

fn code_object() -> codeobj::CodeObject {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads/bin/gfx942/nodepp.co");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    codeobj::load(&bytes, None).unwrap()
}

fn run(node: &str, partner: Partner, scope: Scope) -> RoundTrips {
    let node = Node::built_in(node).unwrap();
    let got = round_trips(&node, partner, scope, &code_object()).unwrap();
    println!("{} {partner:?} {}: {got:?} ({:?} ns)", node.name(), scope.name(), got.ns());
    got
}

/// One-way latency of the link between GPU 0 and `far` (ns), both directions' larger.
fn one_way_ns(node: &Node, far: Agent) -> f64 {
    let there = node.direction(Agent::Gpu(0), far).unwrap().latency_ns;
    let back = node.direction(far, Agent::Gpu(0)).unwrap().latency_ns;
    there.max(back)
}

fn check_bounds(node_name: &str, partner: Partner, far: Agent) {
    let node = Node::built_in(node_name).unwrap();
    let got = run(node_name, partner, Scope::System);
    let ns = got.ns().unwrap_or_else(|| panic!("{node_name} {partner:?}: did not complete: {got:?}"));
    assert_eq!(got.gpu0[1], ROUNDS, "{got:?}");
    // An APU's host link is its shared memory: the floor is the CPU's two accesses a round.
    let step = if node_name == "mi300a-4" { node.config.host.memory_latency_ns } else { one_way_ns(&node, far) };
    assert!(ns >= 2.0 * step, "{node_name} {partner:?}: {ns:.0} ns per round trip, below twice {step} ns");
    assert!(ns <= 10.0 * 2.0 * step, "{node_name} {partner:?}: {ns:.0} ns per round trip, above ten round trips of {step} ns each way");
}

#[test]
fn gpu_to_gpu_round_trips_pay_the_xgmi_link_twice() {
    check_bounds("mi300x-8", Partner::Gpu1, Agent::Gpu(1));
}

#[test]
fn gpu_to_cpu_round_trips_pay_the_pcie_link_twice_and_the_apu_its_host_accesses() {
    check_bounds("mi300x-8", Partner::Cpu, Agent::Host);
    check_bounds("mi300a-4", Partner::Cpu, Agent::Host);
}

/// Agent scope reads a flag cached as another agent's memory stale; system scope does not.
#[test]
fn an_agent_scope_acquire_reads_other_agents_nc_lines_stale_and_a_system_scope_one_does_not() {
    for partner in [Partner::Gpu1Pull, Partner::CpuNc] {
        let agent = run("mi300x-8", partner, Scope::Agent);
        assert_eq!(agent.ns(), None, "{partner:?}: the agent-scope ping-pong completed: {agent:?}");
        // GPU 0 gave up in the first round still reading the flag's first value it cached (0),
        // though the partner had answered.
        assert_eq!((agent.gpu0[1], agent.gpu0[2]), (0, 0), "{partner:?}: {agent:?}");
        let system = run("mi300x-8", partner, Scope::System);
        assert!(system.ns().is_some(), "{partner:?}: the system-scope ping-pong did not complete: {system:?}");
        assert_eq!(system.gpu0[2], 2 * ROUNDS, "{partner:?}: {system:?}");
    }
}

/// Where the L2 does not hold the flag as another agent's memory, both scopes complete.
#[test]
fn flags_in_own_or_uncached_memory_complete_at_both_scopes() {
    for (node, partner) in [("mi300x-8", Partner::Gpu1), ("mi300x-8", Partner::Cpu), ("mi300a-4", Partner::Cpu)] {
        for scope in [Scope::Agent, Scope::System] {
            let got = run(node, partner, scope);
            assert!(got.ns().is_some(), "{node} {partner:?} {}: {got:?}", scope.name());
        }
    }
}

#[test]
fn node_ping_pong_is_deterministic() {
    for partner in [Partner::Gpu1, Partner::Cpu] {
        let first = run("mi300x-8", partner, Scope::System);
        assert_eq!(run("mi300x-8", partner, Scope::System), first, "{partner:?}");
    }
}
