//! Copy bandwidth on a node: `workloads/hip/copy_bandwidth` times 64 MiB copies with hipEvents
//! under `hipscope exec --node NAME --mode timing` (host to GPU 0 and back, from pageable and
//! from pinned host memory, and GPU 0 to GPU 1 with `hipMemcpyPeerAsync`) and checks the bytes
//! of every round trip itself. The rates it prints must be within ±15 % of the figures of the
//! node's config file (`configs/nodes/*.ron`, each figure cited there), read here from the
//! file, not from our output:
//! - host↔device: the GPU's host link (PCIe gen5 x16 on mi300x-8, gen4 on rx7900xtx-pcie; on
//!   mi300a-4 the shared HBM, whose figures are those of the APU's measured copies);
//! - peer: the xGMI link between GPUs 0 and 1.
//!
//! And the copy engine bounds a copy as much as the link does: on a node of our own whose link
//! is slower than the GPU config's copy engine the link sets the rate, on one whose link is
//! faster the copy engine (`configs/mi300x.ron`'s `copy_engine`) does.

use crate::bounded;

use hipscope_sim::gpus;
use hipscope_sim::node::{Agent, Node};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn program() -> PathBuf {
    let p = root().join("workloads/hip/bin/copy_bandwidth");
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

/// The `copy KIND BYTES bytes MS ms GBPS GB/s` lines of a timing run on `node`: (kind, GB/s).
fn rates(node: &str) -> Vec<(String, f64)> {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.args(["exec", "--node", node, "--mode", "timing", "--"]).arg(program());
    let ended = bounded::run(&mut cmd, Duration::from_secs(300));
    assert!(!ended.timed_out, "{node}: stopped after 300 s\n{}", ended.stderr);
    assert_eq!(ended.code, Some(0), "{node}: exit {:?}\nstdout:\n{}\nstderr:\n{}", ended.code, ended.stdout, ended.stderr);
    assert!(ended.stdout.contains("PASS copy_bandwidth"), "{}", ended.stdout);
    ended
        .stdout
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.strip_prefix("copy ")?.split_whitespace().collect();
            Some((w.first()?.to_string(), w.get(5)?.parse().ok()?))
        })
        .collect()
}

/// GB/s the config file gives from `from` to `to` (bytes per ns are numerically GB/s).
fn figure(node: &Node, from: Agent, to: Agent) -> f64 {
    node.direction(from, to).expect("the config links them").bandwidth_bytes_per_ns
}

fn within_15_percent(what: &str, measured: f64, figure: f64) {
    assert!((measured - figure).abs() <= 0.15 * figure, "{what}: {measured:.3} GB/s measured, the config gives {figure:.3} GB/s");
}

/// Every copy of a run on the built-in node `name` against its config file's figures.
fn check_node(name: &str, peer: bool) {
    let node = Node::load(root().join(format!("configs/nodes/{name}.ron")).to_str().expect("a UTF-8 path")).expect("the node file loads");
    let rates = rates(name);
    let kinds: Vec<&str> = rates.iter().map(|(k, _)| k.as_str()).collect();
    let mut want = vec!["h2d-pageable", "d2h-pageable", "h2d-pinned", "d2h-pinned"];
    if peer {
        want.push("peer-0-1");
    }
    assert_eq!(kinds, want, "{name}");
    for (kind, gbps) in &rates {
        let (from, to) = match kind.as_str() {
            k if k.starts_with("h2d") => (Agent::Host, Agent::Gpu(0)),
            k if k.starts_with("d2h") => (Agent::Gpu(0), Agent::Host),
            _ => (Agent::Gpu(0), Agent::Gpu(1)),
        };
        within_15_percent(&format!("{name} {kind}"), *gbps, figure(&node, from, to));
    }
}

#[test]
fn mi300x_8_copies_run_at_its_pcie_gen5_and_xgmi_figures() {
    check_node("mi300x-8", true);
}

#[test]
fn rx7900xtx_pcie_copies_run_at_its_pcie_gen4_figure() {
    check_node("rx7900xtx-pcie", false);
}

#[test]
fn mi300a_4_copies_run_at_its_shared_memory_and_xgmi_figures() {
    check_node("mi300a-4", true);
}

/// A node file of one MI300X whose host link runs at `gbps` per direction.
fn one_mi300x_on(dir: &Path, gbps: f64) -> PathBuf {
    let text = format!(
        "Node(name: \"one-mi300x\", description: \"test\",
          host: (model: \"test\", cores: 1, memory_latency_ns: 100.0, memory_bandwidth_bytes_per_ns: 100.0),
          gpus: [\"mi300x\"],
          host_links: [(gpus: [0], link: (kind: Pcie(gen: 5, lanes: 16), latency_ns: 300.0, bandwidth_bytes_per_ns: {gbps:.1},
                        carries: (copies: true, loads_stores: true, atomics: true)))])"
    );
    let path = dir.join(format!("one-mi300x-{gbps}.ron"));
    std::fs::write(&path, text).expect("write the node file");
    path
}

#[test]
fn the_slower_of_link_and_copy_engine_sets_the_rate() {
    let dir = std::env::temp_dir().join(format!("hipscope-copy-bw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let g = gpus::builtin("mi300x").expect("built-in mi300x");
    let engine = g.timing.as_ref().and_then(|t| t.copy_engine.as_ref()).expect("mi300x has copy_engine");
    let (h2d, d2h) = (f64::from(engine.h2d_bandwidth_bytes_per_ns), f64::from(engine.d2h_bandwidth_bytes_per_ns));
    // A link of a quarter of the engine's rate sets the pace; one of four times it does not.
    for (link, expect_h2d, expect_d2h) in [(h2d / 4.0, h2d / 4.0, d2h.min(h2d / 4.0)), (h2d * 4.0, h2d, d2h)] {
        let file = one_mi300x_on(&dir, link);
        let rates = rates(file.to_str().expect("a UTF-8 path"));
        for (kind, gbps) in &rates {
            let expected = if kind.starts_with("h2d") { expect_h2d } else { expect_d2h };
            within_15_percent(&format!("link {link} GB/s, {kind}"), *gbps, expected);
        }
        assert_eq!(rates.len(), 4, "{rates:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
