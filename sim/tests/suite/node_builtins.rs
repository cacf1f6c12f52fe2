//! The built-in nodes (`configs/nodes/*.ron`): they load, their topology is the one their
//! vendors document, and a transfer costs latency + bytes / bandwidth with the published
//! figures (each written here with its source, not read back from the config).

use hipscope_sim::gpus;
use hipscope_sim::node::{Agent, LinkKind, Node};

fn node(name: &str) -> Node {
    Node::built_in(name).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_builtin_loads_under_its_own_name() {
    let names = Node::names();
    assert_eq!(names, ["mi300x-8", "mi300a-4", "rx7900xtx-pcie"]);
    for name in &names {
        let n = node(name);
        assert_eq!(n.name(), *name);
        assert_eq!(n.config.origin, format!("configs/nodes/{name}.ron"));
        assert_eq!(n.gpus.len(), n.config.gpus.len());
        // Every GPU has its host link; no agent links to itself.
        for i in 0..n.gpus.len() {
            assert!(n.link(Agent::Host, Agent::Gpu(i)).is_some(), "{name}: gpu {i} has no host link");
            assert!(n.link(Agent::Gpu(i), Agent::Gpu(i)).is_none());
        }
        assert!(n.link(Agent::Host, Agent::Host).is_none());
        assert!(n.link(Agent::Host, Agent::Gpu(n.gpus.len())).is_none(), "past the last GPU");
        assert_eq!(Node::load(name).as_ref(), Ok(&n), "load by name is the built-in");
    }
    assert_eq!(Node::builtins().len(), names.len());
}

/// AMD Instinct MI300X Platform data sheet: eight MI300X OAMs, each with seven Infinity Fabric
/// links, one to each peer (fully connected), and PCIe Gen 5 x16 to the host.
#[test]
fn mi300x_8_is_fully_connected_by_xgmi_with_pcie_gen5_hosts() {
    let n = node("mi300x-8");
    assert_eq!(n.gpus.len(), 8);
    assert!(n.gpus.iter().all(|g| g.name == "mi300x"));
    for i in 0..8 {
        for j in 0..8 {
            let link = n.link(Agent::Gpu(i), Agent::Gpu(j));
            if i == j {
                assert!(link.is_none());
            } else {
                assert_eq!(link.map(|l| l.kind), Some(LinkKind::Xgmi), "gpu {i} - gpu {j}");
            }
        }
        // Seven links per GPU, each to a different peer.
        let peers = n.links().iter().filter(|(a, b, l)| l.kind == LinkKind::Xgmi && (*a == Agent::Gpu(i) || *b == Agent::Gpu(i))).count();
        assert_eq!(peers, 7, "gpu {i}");
        assert_eq!(n.link(Agent::Host, Agent::Gpu(i)).map(|l| l.kind), Some(LinkKind::Pcie { gen: 5, lanes: 16 }));
    }
    assert_eq!(n.links().len(), 8 + 28, "8 host links and C(8, 2) = 28 peer links, each once");
    // Peer access over every pair (MI300X: loads, stores and atomics over xGMI), never to itself.
    assert!((0..8).all(|i| (0..8).all(|j| n.can_access_peer(i, j) == (i != j))));
    assert!(!n.can_access_peer(0, 8), "no GPU 8");
}

/// MI300A data sheet: an APU whose CPU and GPU share 128 GB of unified HBM3; four APUs per
/// node in El Capitan (Schieffer et al., "Inter-APU Communication on AMD MI300A Systems via
/// Infinity Fabric", arXiv:2508.11298), each pair joined by Infinity Fabric.
#[test]
fn mi300a_4_shares_memory_with_its_host_and_links_every_apu_pair() {
    let n = node("mi300a-4");
    assert_eq!(n.gpus.len(), 4);
    assert!(n.gpus.iter().all(|g| g.name == "mi300a" && g.hip.integrated));
    for i in 0..4 {
        assert_eq!(n.link(Agent::Gpu(i), Agent::Host).map(|l| l.kind), Some(LinkKind::SharedMemory));
        for j in (0..4).filter(|&j| j != i) {
            assert_eq!(n.link(Agent::Gpu(i), Agent::Gpu(j)).map(|l| l.kind), Some(LinkKind::Xgmi));
        }
    }
}

#[test]
fn rx7900xtx_pcie_is_one_gpu_on_pcie_gen4_x16() {
    let n = node("rx7900xtx-pcie");
    assert_eq!(n.gpus.iter().map(|g| g.name.as_str()).collect::<Vec<_>>(), ["rx7900xtx"]);
    assert_eq!(n.link(Agent::Host, Agent::Gpu(0)).map(|l| l.kind), Some(LinkKind::Pcie { gen: 4, lanes: 16 }));
    assert!(n.links().len() == 1);
    assert!(!n.can_access_peer(0, 0), "a lone GPU has no peer");
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// ROCm blog "Understanding RCCL Bandwidth and xGMI Performance on AMD Instinct MI300X"
/// (2025-03-02): an MI300X xGMI link is rated 64 GB/s per direction, about 48 GB/s usable.
const XGMI_USABLE_GB_PER_S: f64 = 48.0;

#[test]
fn copies_cost_latency_plus_bytes_over_bandwidth() {
    let n = node("mi300x-8");
    let link = n.link(Agent::Gpu(2), Agent::Gpu(5)).expect("an xGMI link");
    assert_eq!(link.bandwidth_bytes_per_ns, XGMI_USABLE_GB_PER_S);
    let gib = 1u64 << 30;
    for (from, to) in [(Agent::Gpu(2), Agent::Gpu(5)), (Agent::Gpu(5), Agent::Gpu(2))] {
        let t = n.copy_ns(from, to, gib).expect("linked");
        assert!(close(t, link.latency_ns + gib as f64 / XGMI_USABLE_GB_PER_S), "{t}");
        // A 1 GiB peer copy at 48 GB/s takes about 22.4 ms whatever the latency.
        assert!((t / 1e6 - 22.37).abs() < 0.05, "{t} ns");
    }
    assert_eq!(n.copy_ns(Agent::Gpu(3), Agent::Gpu(3), 1), None, "no link from a GPU to itself");
    let zero = n.copy_ns(Agent::Host, Agent::Gpu(0), 0).expect("linked");
    assert_eq!(Some(zero), n.link(Agent::Host, Agent::Gpu(0)).map(|l| l.latency_ns), "an empty copy costs the latency");
}

/// A lone GPU's node takes its host link from the GPU config's copy engine, which for MI300A
/// holds measured figures: h2d 10474 ns + N / 58 B/ns, d2h 15990 ns + N / 58 B/ns (the
/// memcopy_h2d/d2h fits of configs/mi300a.ron).
#[test]
fn a_single_gpu_node_uses_the_copy_engine_figures_each_way() {
    let g = gpus::builtin("mi300a").unwrap_or_else(|e| panic!("{e}"));
    let n = Node::single(g);
    assert_eq!(n.gpus.len(), 1);
    assert!(n.links().len() == 1);
    let mib = 1u64 << 20;
    let h2d = n.copy_ns(Agent::Host, Agent::Gpu(0), mib).expect("linked");
    let d2h = n.copy_ns(Agent::Gpu(0), Agent::Host, mib).expect("linked");
    assert!(close(h2d, 10474.0 + mib as f64 / 58.0), "{h2d}");
    assert!(close(d2h, 15990.0 + mib as f64 / 58.0), "{d2h}");
    assert_eq!(n.link(Agent::Host, Agent::Gpu(0)).map(|l| l.kind), Some(LinkKind::SharedMemory), "MI300A is integrated");
    let x = Node::single(gpus::builtin("mi300x").unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(x.link(Agent::Host, Agent::Gpu(0)).map(|l| l.kind), Some(LinkKind::Unspecified));
}

/// Real MI300A hipMemcpy host-to-device times (../shared/apps/mgpusim-gpu-perf/mi300a-real.csv,
/// rows memcopy_h2d, best of 51): 512 MB in 9.2800 ms and 64 MB in 1.1701 ms. An APU's host
/// link is its shared memory, so a copy over it costs what those copies cost.
#[test]
fn mi300a_4_host_copies_cost_what_real_mi300a_copies_cost() {
    let n = node("mi300a-4");
    for (mib, measured_ms) in [(512u64, 9.2800), (64, 1.1701)] {
        let t = n.copy_ns(Agent::Host, Agent::Gpu(1), mib << 20).expect("linked") / 1e6;
        assert!((t / measured_ms - 1.0).abs() < 0.15, "{mib} MiB: {t} ms against {measured_ms} ms measured");
    }
}

/// The wire's rate bounds a link: PCIe 4.0 moves 16 GT/s x 16 lanes with 128b/130b coding, 31.5
/// GB/s per direction; PCIe 5.0 twice that; an xGMI link of 16 lanes at 32 Gbps (AMD CDNA 3
/// white paper) 64 GB/s per direction.
#[test]
fn no_link_is_faster_than_its_wire() {
    let wire = |kind: LinkKind| match kind {
        LinkKind::Pcie { gen: 4, lanes: 16 } => Some(16.0 * 16.0 * 128.0 / 130.0 / 8.0),
        LinkKind::Pcie { gen: 5, lanes: 16 } => Some(32.0 * 16.0 * 128.0 / 130.0 / 8.0),
        LinkKind::Xgmi => Some(64.0),
        _ => None,
    };
    for n in Node::builtins() {
        for (a, b, l) in n.links() {
            // MI300A pairs have two xGMI links (CDNA 3 white paper, figure 10).
            let links = if n.name() == "mi300a-4" && l.kind == LinkKind::Xgmi { 2.0 } else { 1.0 };
            if let Some(max) = wire(l.kind) {
                assert!(l.bandwidth_bytes_per_ns <= links * max, "{}: {a} - {b}: {} GB/s over a {max} GB/s wire", n.name(), l.bandwidth_bytes_per_ns);
                assert!(l.bandwidth_bytes_per_ns >= 0.5 * links * max, "{}: {a} - {b}: under half the wire's rate", n.name());
            }
        }
    }
}
