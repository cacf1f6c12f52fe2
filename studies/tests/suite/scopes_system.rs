//! System scope by where the data lives (`hipscope scopes --placement`). Expectations come from
//! the node configs' link figures (`configs/nodes/*.ron`, each value cited there) and from the
//! memory-model lowering tables (`hipscope_mm::lower`, LLVM AMDGPUUsage), never from a run of
//! ours:
//! * a system-scope release store to pinned host memory on MI300X costs at least the host
//!   link's round trip (mi300x-8: PCIe gen5, 285 ns each way) more than an agent-scope release
//!   store to device memory: the store must reach host memory and be acknowledged before the
//!   wave's wait ends;
//! * a system-scope acquire load of a peer GPU's fine-grained memory (MTYPE UC, not cached in
//!   this GPU's L2) costs at least the xGMI round trip (285 ns each way);
//! * on device memory, where the compiler emits the same instructions for agent and system
//!   scope (GFX8, GFX10/11), the system row costs what the agent row costs, in the suite's own
//!   rows and in the placement rows on the GPU's node.

use hipscope_mm::lower::{lower, Line, Op, Rmw, Target as MmTarget};
use hipscope_mm::{Access, Order, RmwOp, Scope, Space, Spaces};
use hipscope_sim::gpus::{self, Mode};
use hipscope_sim::node::{Agent, Node};
use hipscope_studies::scopes::{run_target_placed, Filter, Placements, Row, Target};
use std::path::PathBuf;

fn workloads() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../workloads")
}

const OPS: [&str; 4] = ["fence_seq_cst", "load_acq", "store_rel", "rmw_acq_rel"];

/// The suite's rows and every placement's for [`OPS`] at agent and system scope, one wave, no
/// dirty data, on `gpu` in `mode`.
fn rows(gpu: &str, mode: Mode) -> Vec<Row> {
    let g = gpus::builtin(gpu).unwrap();
    let target = Target { gpu: g, mode, tgsplit: false };
    let filter = Filter {
        ops: OPS.iter().map(|s| s.to_string()).collect(),
        scopes: vec!["agent".into(), "system".into()],
        footprints: vec![0],
        contentions: vec!["one_wave".into()],
    };
    run_target_placed(&target, &workloads(), &(), &filter, Placements::All).unwrap()
}

/// Median cycles of the row; `placement` `None`: the suite's own row (device memory, no node).
fn cycles(rows: &[Row], op: &str, scope: &str, placement: Option<&str>) -> u64 {
    let r = rows
        .iter()
        .find(|r| r.op == op && r.scope.name() == scope && r.placement.as_deref() == placement && r.contention == "one_wave" && r.footprint_bytes == 0)
        .unwrap_or_else(|| panic!("no row {op} {scope} {placement:?}"));
    println!("{} {op} {scope} {placement:?}: {:?} cycles; {} — {}", r.gpu, r.cycles_median, r.sequence.join(" ; "), r.actions.join("; "));
    r.cycles_median.unwrap_or_else(|| panic!("{op} {scope} {placement:?} has no time"))
}

/// Cycles at `clock_mhz` of `ns` nanoseconds, rounded down (a lower bound).
fn cycles_of(ns: f64, clock_mhz: u32) -> u64 {
    (ns * clock_mhz as f64 / 1000.0).floor() as u64
}

/// Round trip between GPU 0 and `far` on `node`: the one-way latencies both ways.
fn round_trip_ns(node: &Node, far: Agent) -> f64 {
    let there = node.direction(Agent::Gpu(0), far).unwrap().latency_ns;
    let back = node.direction(far, Agent::Gpu(0)).unwrap().latency_ns;
    there + back
}

#[test]
fn mi300x_host_and_peer_rows_pay_their_links() {
    let rows = rows("mi300x", Mode::CU);
    let node = Node::built_in("mi300x-8").unwrap();
    let clock = gpus::builtin("mi300x").unwrap().timing.unwrap().clock_mhz;
    // mi300x-8: PCIe gen5 x16 host link, 285 ns each way (Chips and Cheese's 650 ns GPU load
    // from host memory less the DRAM access); xGMI peer links 285 ns each way (assumed equal).
    let pcie = cycles_of(round_trip_ns(&node, Agent::Host), clock);
    let xgmi = cycles_of(round_trip_ns(&node, Agent::Gpu(1)), clock);
    assert!(pcie > 0 && xgmi > 0);
    let host = cycles(&rows, "store_rel", "system", Some("host_pinned"));
    let device = cycles(&rows, "store_rel", "agent", None);
    assert!(
        host >= device + pcie,
        "system release store to host memory {host} cycles, agent release to device memory {device}: less than the PCIe round trip {pcie} apart"
    );
    let peer = cycles(&rows, "load_acq", "system", Some("peer_fine"));
    assert!(peer >= xgmi, "system acquire load of fine-grained peer memory {peer} cycles, below the xGMI round trip {xgmi}");
    // The rows say what crossed the link.
    let r = rows.iter().find(|r| r.op == "load_acq" && r.scope.name() == "system" && r.placement.as_deref() == Some("peer_fine")).unwrap();
    assert!(r.actions.iter().any(|a| a.starts_with("link:") && !a.starts_with("link: 0 B read")), "{:?}", r.actions);
    assert!(r.node.as_deref().is_some_and(|n| n.contains("mi300x-8")), "{:?}", r.node);
}

/// `op` (a row name) as the memory model's operation at `scope`.
fn mm_op(op: &str, scope: Scope) -> Op {
    let at = |order| Access::Atomic { order, scope };
    match op {
        "fence_seq_cst" => Op::Fence { order: Order::SeqCst, scope, spaces: Spaces::ALL },
        "load_acq" => Op::Load { access: at(Order::Acquire), space: Space::Global },
        "store_rel" => Op::Store { access: at(Order::Release), space: Space::Global },
        _ => Op::Rmw { rmw: Rmw::Op(RmwOp::Add), access: at(Order::AcqRel), space: Space::Global, returns: true },
    }
}

/// The instructions only (waits and mnemonics), without their cache-policy bits.
fn shape(lines: &[Line]) -> Vec<String> {
    lines
        .iter()
        .map(|l| match l {
            Line::Inst { mnemonic, .. } => mnemonic.clone(),
            w => w.to_string(),
        })
        .collect()
}

#[test]
fn system_rows_on_device_memory_equal_agent_rows_where_the_lowering_is_the_same() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for (gpu, mode) in [("rx7900xtx", Mode::WGP), ("r9nano", Mode::CU), ("mi300x", Mode::CU)] {
        let g = gpus::builtin(gpu).unwrap();
        let target = MmTarget { processor: g.processor, wave64: !g.processor.family().is_rdna(), wgp_mode: mode == Mode::WGP, tgsplit: false };
        let rows = rows(gpu, mode);
        for op in OPS {
            let (agent, system) = (lower(&mm_op(op, Scope::Agent), &target), lower(&mm_op(op, Scope::System), &target));
            if agent != system {
                // gfx942: the same instructions with `sc1` for agent and `sc0 sc1` for system
                // scope; the tables do not say the hardware does the same for both.
                assert_eq!(shape(&agent), shape(&system), "{gpu} {op}: agent and system lowerings differ beyond their bits");
                println!("{gpu} {op}: agent and system lowerings differ in their bits; no equality expected");
                continue;
            }
            for placement in [None, Some("device")] {
                let (a, s) = (cycles(&rows, op, "agent", placement), cycles(&rows, op, "system", placement));
                checked += 1;
                if a != s {
                    failures.push(format!("{gpu} {op} {placement:?}: agent {a} cycles, system {s}, though both are {}", hipscope_mm::lower::show(&agent)));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // RX 7900 XTX and R9 Nano lower every op the same at both scopes (AMDGPUUsage: system = agent).
    assert!(checked >= 16, "only {checked} comparisons");
}

/// A spec that places device memory on the host (or host memory on a GPU) is refused with a
/// one-line error naming the buffer's `owner` field.
#[test]
fn a_buffer_owner_that_does_not_fit_its_memory_type_is_refused() {
    use hipscope_sim::memory::Owner;
    use hipscope_sim::spec::model::{Arg, Buffer, Dispatch, MemoryType};
    use hipscope_sim::spec::{RunOptions, Session, Spec};
    let path = workloads().join("scopes-owner-check.ron");
    for (memory, owner) in [(MemoryType::Device, Owner::Host), (MemoryType::HostPinned, Owner::Gpu(1))] {
        let spec = Spec::builder()
            .code_object("gfx942", "bin/gfx942/scopes.co")
            .buffer("sync", Buffer::zeroed(64).placed(memory, owner))
            .buffer("times", Buffer::zeroed(64))
            .dispatch(Dispatch::linear(
                "sc_none__none",
                64,
                64,
                vec![Arg::Buffer("sync".into()), Arg::Buffer("sync".into()), Arg::U32(0), Arg::Buffer("times".into())],
            ))
            .build(&path)
            .unwrap();
        let opts = RunOptions { gpu: Some("mi300x".into()), ..RunOptions::default() };
        let err = Session::new(&spec, &path, &opts).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("buffers.sync.owner") && !err.contains('\n'), "{memory:?} {owner:?}: {err:?}");
    }
}

/// Lines dropped by the row's L2 invalidates (`L2 invalidate ×N: M lines dropped`).
fn l2_dropped(r: &Row) -> u64 {
    r.actions.iter().filter_map(|a| a.strip_prefix("L2 invalidate ×")).filter_map(|a| a.split(": ").nth(1)?.split(' ').next()?.parse::<u64>().ok()).sum()
}

fn row<'a>(rows: &'a [Row], op: &str, scope: &str, placement: &str) -> &'a Row {
    rows.iter()
        .find(|r| r.op == op && r.scope.name() == scope && r.placement.as_deref() == Some(placement) && r.contention == "one_wave" && r.footprint_bytes == 0)
        .unwrap_or_else(|| panic!("no row {op} {scope} {placement}"))
}

/// MI300X (gfx942, eight L2s in one agent), after LLVM AMDGPUUsage, *Memory Model GFX942*:
/// the system-scope acquire's `buffer_inv sc0 sc1` is what keeps loads from seeing "stale MTYPE
/// NC global data", so on memory of another agent the L2 caches as NC (a peer's coarse-grained
/// memory, non-coherent host memory) it drops the line the warm-up cached and the agent-scope
/// `buffer_inv sc1` leaves it (the agent row says the line may be read stale). On memory the
/// doc says is never stale in the L2 (this agent's own, MTYPE RW/CC: "never be stale due to the
/// memory probes") or never in it (MTYPE UC: "bypasses the L2") the two scopes do the same
/// thing and cost the same.
#[test]
fn mi300x_agent_and_system_rows_part_exactly_on_other_agents_nc_memory() {
    let rows = rows("mi300x", Mode::CU);
    for p in ["peer", "host_pinned_nc"] {
        let (a, s) = (row(&rows, "load_acq", "agent", p), row(&rows, "load_acq", "system", p));
        println!("{p}: agent {:?}; system {:?}", a.actions, s.actions);
        assert!(l2_dropped(s) >= 1 && l2_dropped(a) == 0, "{p}: system dropped {}, agent {}", l2_dropped(s), l2_dropped(a));
        assert!(a.actions.iter().any(|x| x.contains("stale")), "{p}: the agent row does not say its lines stay stale: {:?}", a.actions);
        assert!(!s.actions.iter().any(|x| x.contains("stale")), "{p}: {:?}", s.actions);
    }
    let mut failures = Vec::new();
    for p in ["device", "device_fine", "host_pinned", "peer_fine"] {
        for op in OPS {
            let (a, s) = (cycles(&rows, op, "agent", Some(p)), cycles(&rows, op, "system", Some(p)));
            if a != s {
                failures.push(format!("{op} on {p}: agent {a} cycles, system {s}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
