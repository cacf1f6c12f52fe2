//! Several GPUs in one process: `workloads/hip/multi_gpu` under `hipscope exec --node
//! mi300x-8` in both modes. The program checks its own results on the host (peer stores into
//! the next GPU's buffer, system-scope atomics into GPU 0's counter, `hipMemcpyPeer` copies
//! doubled by a kernel on the receiving GPU, a stream of GPU 1 waiting for an event of GPU 0)
//! and exits 1 on any wrong value or failed call. What this test adds:
//! - each peer copy's simulated time is the node config's xGMI link figures (latency + bytes /
//!   bandwidth, `configs/nodes/mi300x-8.ron`, cited there), read here through `sim::node`;
//! - a kernel that stores into another GPU's memory without peer access faults (exit 3), as on
//!   hardware;
//! - the same seed gives the same output twice;
//! - a bad node name is a one-line error, exit 2.

use crate::bounded;

use hipscope_sim::node::{Agent, Node};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn program() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin/multi_gpu");
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

/// (exit status, stdout, stderr) of `hipscope exec --node NODE --mode MODE -- multi_gpu ARGS`.
fn exec(node: &str, mode: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.args(["exec", "--node", node, "--mode", mode, "--"]).arg(program()).args(args);
    let ended = bounded::run(&mut cmd, Duration::from_secs(300));
    assert!(!ended.timed_out, "{node} {mode}: stopped after 300 s\n{}", ended.stderr);
    (ended.code, ended.stdout, ended.stderr)
}

/// The `copy I->J BYTES bytes MS ms` lines: (from, to, bytes, ms).
fn copies(stdout: &str) -> Vec<(usize, usize, u64, f64)> {
    stdout
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("copy ")?;
            let w: Vec<&str> = rest.split_whitespace().collect();
            let (a, b) = w.first()?.split_once("->")?;
            Some((a.parse().ok()?, b.parse().ok()?, w.get(1)?.parse().ok()?, w.get(3)?.parse().ok()?))
        })
        .collect()
}

#[test]
fn peer_stores_and_copies_run_on_every_gpu_of_mi300x_8_in_both_modes() {
    let node = Node::built_in("mi300x-8").expect("built-in node");
    for mode in ["functional", "timing"] {
        let (code, out, err) = exec("mi300x-8", mode, &[]);
        assert_eq!(code, Some(0), "{mode}: exit {code:?}\nstdout:\n{out}\nstderr:\n{err}");
        assert!(out.contains("devices 8\n") && out.contains("PASS multi_gpu"), "{mode}:\n{out}");
        // Each GPU's two kernels are reported on that GPU.
        for d in 0..8 {
            assert!(err.contains(&format!("hipscope: gpu {d}: store_peer(int*, int*, int): 1 launch(es)")), "{mode}: gpu {d}\n{err}");
        }
        let copies = copies(&out);
        assert_eq!(copies.len(), 8, "{mode}:\n{out}");
        for (from, to, bytes, ms) in copies {
            assert_eq!(to, (from + 1) % 8);
            if mode == "functional" {
                assert_eq!(ms, 0.0, "functional mode has no timeline");
                continue;
            }
            let link_ms = node.copy_ns(Agent::Gpu(from), Agent::Gpu(to), bytes).expect("every pair is linked") / 1e6;
            assert!((ms - link_ms).abs() <= 0.01 * link_ms, "copy {from}->{to}: {ms} ms, the xGMI link gives {link_ms} ms");
        }
    }
}

#[test]
fn a_kernel_storing_to_a_peer_without_peer_access_faults() {
    let (code, out, err) = exec("mi300a-4", "functional", &["--no-peer"]);
    assert_eq!(code, Some(3), "exit {code:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(err.contains("memory violation") && !out.contains("PASS"), "{err}");
}

#[test]
fn the_same_seed_gives_the_same_multi_gpu_run() {
    let first = exec("mi300a-4", "timing", &[]);
    let second = exec("mi300a-4", "timing", &[]);
    assert_eq!(first.0, Some(0), "{}", first.2);
    assert_eq!(first, second, "two timing runs of one seed differ");
}

#[test]
fn an_unknown_node_is_a_one_line_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(["exec", "--node", "no-such-node", "--", "true"]).output().expect("hipscope runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("no-such-node"), "{err}");
}

/// Cycles of `store_peer` on GPU `d` in a timing run's stderr summary.
fn store_peer_cycles(stderr: &str, d: usize) -> Option<u64> {
    let line = stderr.lines().find(|l| l.starts_with(&format!("hipscope: gpu {d}: store_peer(")))?;
    let w: Vec<&str> = line.split(", ").collect();
    w.iter().find_map(|p| p.strip_suffix(" cycles")?.parse().ok())
}

/// In timing mode on a node, `store_peer`'s stores into the next GPU's memory and its
/// system-scope atomics into GPU 0's travel xGMI (`sim/src/memsys/remote.rs`): the kernel
/// takes at least a link round trip (the node config's one-way latency twice, at the GPU's
/// clock) longer than the same kernel on copies of the GPU without a node's links.
#[test]
fn peer_accesses_pay_the_xgmi_link_in_timing_mode() {
    let node = Node::built_in("mi300x-8").expect("built-in node");
    let (code, _, linked) = exec("mi300x-8", "timing", &[]);
    assert_eq!(code, Some(0), "{linked}");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.env("HIPSCOPE_DEVICES", "8").args(["exec", "--gpu", "mi300x", "--mode", "timing", "--"]).arg(program());
    let alone = bounded::run(&mut cmd, Duration::from_secs(300));
    assert_eq!(alone.code, Some(0), "{}", alone.stderr);
    let clock = node.gpus[7].timing.as_ref().expect("timing").clock_mhz as f64;
    let link = node.link(Agent::Gpu(7), Agent::Gpu(0)).expect("xGMI").latency_ns;
    let round_trip = (2.0 * link * clock / 1000.0).floor() as u64;
    let (with, without) = (store_peer_cycles(&linked, 7).expect("gpu 7 summary"), store_peer_cycles(&alone.stderr, 7).expect("gpu 7 summary"));
    assert!(with >= without + round_trip, "store_peer on gpu 7: {with} cycles on mi300x-8, {without} without links; the round trip is {round_trip}");
}
