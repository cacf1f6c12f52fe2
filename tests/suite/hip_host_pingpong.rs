//! The host as a participant of the node's turns: `workloads/hip/host_pingpong` hands a flag
//! in `hipHostMalloc` memory back and forth 1000 times between a kernel (system-scope atomics)
//! and a host thread that spins on it while the main thread waits in `hipDeviceSynchronize`.
//! The kernel and the host each give up after a spin limit, and the program checks the final
//! flag itself, so PASS means every round trip happened while the kernel ran. What this test
//! adds:
//! - both modes pass on a lone MI300X and on the `mi300a-4` node;
//! - the runs are deterministic: runs again, and with one or two host threads for the parallel
//!   parts (`RAYON_NUM_THREADS`), give identical stdout (the program's own wall-clock figure
//!   masked: it is the host's time, not the simulation's) and `--report` JSON;
//! - in timing mode the kernel runs at least as long as the host's accesses the protocol needs:
//!   each round trip takes a host store and at least one host load after the kernel's answer,
//!   each costing the host's memory latency (`configs/nodes/mi300x-8.ron`,
//!   `host.memory_latency_ns`: 130 ns, cited there), so 999 full round trips before the
//!   kernel's last store take at least 999 x 2 x 130 ns.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn program(name: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name);
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

/// The host watch needs Linux on x86-64 (`amdhip64::host_watch`).
fn supported() -> bool {
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return true;
    }
    println!("SKIPPED: host threads take turns with kernels only on Linux x86-64");
    false
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    report: String,
}

/// `hipscope exec TARGET... --mode MODE --report FILE -- host_pingpong` with
/// `RAYON_NUM_THREADS=threads`.
fn exec(target: &[&str], mode: &str, threads: &str, tag: &str) -> Run {
    let dir = std::env::temp_dir().join(format!("hipscope-host-pingpong-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let report = dir.join(format!("{}-{mode}-{tag}.json", target.join("-")));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.env("RAYON_NUM_THREADS", threads).arg("exec").args(target).args(["--mode", mode, "--report"]).arg(&report).arg("--").arg(program("host_pingpong"));
    let ended = bounded::run(&mut cmd, Duration::from_secs(600));
    assert!(!ended.timed_out, "{mode}: stopped after 600 s\n{}", ended.stderr);
    let report = std::fs::read_to_string(&report).unwrap_or_default();
    Run { code: ended.code, stdout: ended.stdout, stderr: ended.stderr, report }
}

/// The PASS line's host wall time per round trip ("..., 123456 ns each") replaced by "N".
fn masked(stdout: &str) -> String {
    stdout
        .lines()
        .map(|l| match (l.rfind(", "), l.ends_with(" ns each")) {
            (Some(i), true) => format!("{}, N ns each", &l[..i]),
            _ => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first launch's (start_ns, end_ns) in a report.
fn span_ns(report: &str) -> (f64, f64) {
    let doc: serde_json::Value = serde_json::from_str(report).expect("the report is JSON");
    let l = &doc["launches"][0];
    (l["start_ns"].as_f64().expect("start_ns"), l["end_ns"].as_f64().expect("end_ns"))
}

fn check(target: &[&str], mode: &str) {
    if !supported() {
        return;
    }
    let first = exec(target, mode, "1", "a");
    assert_eq!(first.code, Some(0), "{target:?} {mode}: exit {:?}\nstdout:\n{}\nstderr:\n{}", first.code, first.stdout, first.stderr);
    assert!(first.stdout.contains("PASS host_pingpong: 1000 round trips at system scope"), "{target:?} {mode}:\n{}", first.stdout);
    assert!(first.report.contains("pong"), "{target:?} {mode}: report\n{}", first.report);
    if mode == "timing" {
        let (start, end) = span_ns(&first.report);
        assert!(end - start >= 999.0 * 2.0 * 130.0, "{target:?}: the kernel ran {} ns, less than the host's accesses need", end - start);
    }
    for (threads, tag) in [("1", "b"), ("2", "c")] {
        let again = exec(target, mode, threads, tag);
        assert_eq!(
            (again.code, masked(&again.stdout), &again.report),
            (first.code, masked(&first.stdout), &first.report),
            "{target:?} {mode}: RAYON_NUM_THREADS={threads} run differs"
        );
    }
}

#[test]
fn host_pingpong_mi300x_functional() {
    check(&["--gpu", "mi300x"], "functional");
}

#[test]
fn host_pingpong_mi300x_timing() {
    check(&["--gpu", "mi300x"], "timing");
}

#[test]
fn host_pingpong_mi300a_node_functional() {
    check(&["--node", "mi300a-4"], "functional");
}

#[test]
fn host_pingpong_mi300a_node_timing() {
    check(&["--node", "mi300a-4"], "timing");
}

/// The mask keeps everything but the host's figure.
#[test]
fn only_the_wall_clock_figure_is_masked() {
    assert_eq!(
        masked("a\nPASS host_pingpong: 1000 round trips at system scope, 338515 ns each"),
        "a\nPASS host_pingpong: 1000 round trips at system scope, N ns each"
    );
    assert_ne!(masked("PASS x: 999 round trips at system scope, 1 ns each"), masked("PASS x: 1000 round trips at system scope, 1 ns each"));
}
