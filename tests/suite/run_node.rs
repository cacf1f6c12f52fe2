//! `hipscope run --node NAME`: a launch spec runs on the node's GPU 0 (`Device::set_node`), so
//! in timing mode its host-pinned buffers are reached over that GPU's host link. The expected
//! cost comes from the node config (`configs/nodes/mi300x-8.ron`: the PCIe link's one-way
//! latency, cited there) and the GPU config's clock, not from our output:
//! - `vadd` with its input `a` in host-pinned memory takes at least a PCIe round trip longer
//!   on mi300x-8 than on a lone MI300X;
//! - with every buffer in device memory the node changes nothing (same cycles);
//! - `--node` with `--gpu`, or an unknown node, is a one-line error, exit 2;
//! - `--help` documents the option.

use hipscope_sim::node::{Agent, Node};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `workloads/vadd.ron` with its code-object paths made absolute, written to a temporary
/// directory; `pinned`: its buffer `a` in host-pinned memory.
fn vadd_spec(pinned: bool, tag: &str) -> PathBuf {
    let text = std::fs::read_to_string(root().join("workloads/vadd.ron")).expect("workloads/vadd.ron");
    let bin = format!("\"{}/", root().join("workloads/bin").display());
    let mut text = text.replace("\"bin/", &bin);
    if pinned {
        let a = "\"a\": (bytes: \"4*n\", init: Random(F32, 1)),";
        assert!(text.contains(a), "workloads/vadd.ron changed its buffer a");
        text = text.replace(a, "\"a\": (bytes: \"4*n\", init: Random(F32, 1), memory: HostPinned),");
    }
    let dir = std::env::temp_dir().join(format!("hipscope-run-node-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{tag}-{}.ron", if pinned { "vadd_pinned" } else { "vadd" }));
    std::fs::write(&path, text).expect("write the spec");
    path
}

fn hipscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).output().expect("hipscope runs")
}

/// The cycles of the run's one dispatch (`dispatch 0: ... N cycles (...)`).
fn cycles(args: &[&str]) -> u64 {
    let out = hipscope(args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{args:?}\n{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let line = text.lines().find(|l| l.starts_with("dispatch 0:")).unwrap_or_else(|| panic!("no dispatch line:\n{text}"));
    let before = line.split(" cycles").next().expect("a cycles field");
    before.rsplit(' ').next().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no cycle count in {line}"))
}

#[test]
fn host_pinned_buffers_pay_the_nodes_host_link() {
    let node = Node::load(root().join("configs/nodes/mi300x-8.ron").to_str().expect("UTF-8")).expect("the node file");
    let clock_mhz = node.gpus[0].timing.as_ref().expect("timing").clock_mhz as f64;
    let there = node.direction(Agent::Gpu(0), Agent::Host).expect("host link").latency_ns;
    let back = node.direction(Agent::Host, Agent::Gpu(0)).expect("host link").latency_ns;
    let round_trip = ((there + back) * clock_mhz / 1000.0).floor() as u64;
    let pinned = vadd_spec(true, "link");
    let spec = pinned.to_str().expect("UTF-8");
    let on_node = cycles(&["run", spec, "--mode", "timing", "--node", "mi300x-8"]);
    let alone = cycles(&["run", spec, "--mode", "timing", "--gpu", "mi300x"]);
    assert!(on_node >= alone + round_trip, "vadd from pinned memory: {on_node} cycles on mi300x-8, {alone} alone; a PCIe round trip is {round_trip}");
    // Device memory only: the node's links carry nothing.
    let device = vadd_spec(false, "link");
    let spec = device.to_str().expect("UTF-8");
    assert_eq!(cycles(&["run", spec, "--mode", "timing", "--node", "mi300x-8"]), cycles(&["run", spec, "--mode", "timing", "--gpu", "mi300x"]));
    // The text report names the node; functional mode runs on it too.
    let out = hipscope(&["run", spec, "--node", "mi300x-8"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("node: mi300x-8"), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn bad_node_arguments_are_one_line_errors() {
    let spec = vadd_spec(false, "errors");
    let spec = spec.to_str().expect("UTF-8");
    for args in [vec!["run", spec, "--node", "no-such-node"], vec!["run", spec, "--node", "mi300x-8", "--gpu", "mi300x"]] {
        let out = hipscope(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.lines().next().is_some_and(|l| l.contains("node")), "{args:?}: {err}");
    }
    let help = String::from_utf8_lossy(&hipscope(&["run", "--help"]).stdout).to_string();
    assert!(help.contains("--node <NAME|FILE>") && help.contains("mi300x-8"), "{help}");
}
