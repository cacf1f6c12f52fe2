//! Kernels on different GPUs running together: `workloads/hip/ring_allreduce` launches one
//! kernel per GPU of `mi300x-8` before any synchronization, and each kernel waits (system-scope
//! acquire loads) for the chunks its neighbour stores into its memory (peer stores, system-
//! scope release flags). The program checks every GPU's vector against the sum the host
//! computes itself and prints PASS; a run in which the kernels ran one after another would
//! never finish (the first would wait forever). What this test adds:
//! - both modes pass, and every GPU's kernel is reported;
//! - the runs are deterministic: two runs, and runs with one or two host threads for the
//!   parallel parts (`RAYON_NUM_THREADS`), give identical `--report` JSON.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn program() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin/ring_allreduce");
    assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
    p
}

/// (exit status, stdout, stderr, report) of `hipscope exec --node mi300x-8 --mode MODE
/// --report FILE -- ring_allreduce` with `RAYON_NUM_THREADS=threads`.
fn exec(mode: &str, threads: &str, tag: &str) -> (Option<i32>, String, String, String) {
    let dir = std::env::temp_dir().join(format!("hipscope-ring-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let report = dir.join(format!("{mode}-{tag}.json"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.env("RAYON_NUM_THREADS", threads).args(["exec", "--node", "mi300x-8", "--mode", mode, "--report"]).arg(&report).arg("--").arg(program());
    let ended = bounded::run(&mut cmd, Duration::from_secs(600));
    assert!(!ended.timed_out, "{mode}: stopped after 600 s\n{}", ended.stderr);
    let json = std::fs::read_to_string(&report).unwrap_or_default();
    (ended.code, ended.stdout, ended.stderr, json)
}

fn check(mode: &str) {
    let (code, out, err, json) = exec(mode, "1", "a");
    assert_eq!(code, Some(0), "{mode}: exit {code:?}\nstdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("devices 8\n") && out.contains("PASS ring_allreduce"), "{mode}:\n{out}");
    for d in 0..8 {
        assert!(err.contains(&format!("hipscope: gpu {d}: ring_allreduce(")), "{mode}: gpu {d}\n{err}");
    }
    assert!(json.contains("ring_allreduce"), "{mode}: report\n{json}");
    for (threads, tag) in [("1", "b"), ("2", "c")] {
        let again = exec(mode, threads, tag);
        assert_eq!((again.0, &again.1, &again.3), (code, &out, &json), "{mode}: RAYON_NUM_THREADS={threads} run differs");
    }
}

#[test]
fn ring_allreduce_over_8_gpus_functional() {
    check("functional");
}

#[test]
fn ring_allreduce_over_8_gpus_timing() {
    check("timing");
}
