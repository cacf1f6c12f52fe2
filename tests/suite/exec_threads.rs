//! `hipscope exec --threads 2` against `--threads 1` on whole programs. Our HIP programs that
//! check their results against a CPU computation (`PASS`) must pass with two threads and
//! print what they print with one; the mgpusim-gpu-perf programs of the speed comparison
//! (fir, relu, matrixtranspose: `../shared/apps`, `SKIPPED` without it) print no results, so
//! their output and the `--report` JSON (every launch's grid, waves and wave-instructions)
//! must be the same for both counts.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The program's stdout and its `--report` JSON, run with `threads` host threads.
fn exec(program: &Path, args: &[&str], threads: u32) -> (String, serde_json::Value) {
    let report =
        std::env::temp_dir().join(format!("hipscope-exec-threads-{}-{threads}-{}.json", std::process::id(), program.display().to_string().replace('/', "_")));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.args(["exec", "--gpu", "mi300a", "--mode", "functional", "--threads", &threads.to_string(), "--report"]).arg(&report).arg("--").arg(program).args(args);
    let ended = bounded::run(&mut cmd, Duration::from_secs(300));
    let what = format!("{} {args:?} --threads {threads}", program.display());
    assert!(!ended.timed_out, "{what}: stopped after 300 s");
    assert_eq!(ended.code, Some(0), "{what}: exit {:?}\n{}", ended.code, ended.stderr);
    let text = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{what}: no report: {e}"));
    let _ = std::fs::remove_file(&report);
    let json = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{what}: report: {e}"));
    (ended.stdout, json)
}

fn same_for_one_and_two_threads(program: &Path, args: &[&str]) -> String {
    let (out1, report1) = exec(program, args, 1);
    let (out2, report2) = exec(program, args, 2);
    assert_eq!(out2, out1, "{} {args:?}: output with two threads", program.display());
    assert_eq!(report2["launches"], report1["launches"], "{} {args:?}: launches with two threads", program.display());
    assert!(report1["launches"].as_array().is_some_and(|l| !l.is_empty()), "{}: no launch reported", program.display());
    out1
}

#[test]
fn self_checking_programs_pass_with_two_threads_as_with_one() {
    // Element-wise kernels after memsets, a work-group's shared memory, a graph of launches.
    for name in ["memset_vadd", "struct_shared", "graphs"] {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("workloads/hip/bin").join(name);
        assert!(p.is_file(), "{} is missing (workloads/build.sh builds it)", p.display());
        let out = same_for_one_and_two_threads(&p, &[]);
        assert!(out.lines().any(|l| l == format!("PASS {name}")), "{name}: no PASS line\n{out}");
    }
}

#[test]
fn mgpusim_perf_programs_report_the_same_launches_with_two_threads() {
    let bin: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/apps/mgpusim-gpu-perf/bin");
    if !bin.is_dir() {
        println!("SKIPPED: {} not found (the benchmark programs live outside the repository)", bin.display());
        return;
    }
    // Sizes of several work-groups per thread, small enough for a test: a filter (global
    // loads of the input and the taps), an element-wise kernel, and a tiled transpose
    // through LDS with barriers.
    let runs: [(&str, &[&str]); 3] = [
        ("fir", &["--length", "65536", "--taps", "16", "--iterations", "1"]),
        ("relu", &["--size", "65536", "--iterations", "1"]),
        ("matrixtranspose", &["--size", "256", "--iterations", "1"]),
    ];
    for (name, args) in runs {
        same_for_one_and_two_threads(&bin.join(name), args);
    }
}
