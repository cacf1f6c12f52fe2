//! `hipscope grade --exec --node`: race detection across kernels on different GPUs run
//! together. workloads/hip/peer_flag.cpp: a kernel on GPU 0 stores data into GPU 1's memory
//! and sets a flag there with a release store; a kernel on GPU 1, launched at the same time,
//! acquires the flag and reads the data. HIP's memory scopes (LLVM AMDGPUUsage, "Memory
//! Scopes") make agent scope one GPU: with the flag at agent scope (`peer_flag_agent`) the
//! release and the acquire are on different agents and do not synchronise, so the flag's
//! accesses are a heterogeneous race and the data's a data race, each between GPU 0 and
//! GPU 1; at system scope (`peer_flag`) there is no race. The verdicts do not depend on the
//! seed, and the same seeds give the same report.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).current_dir(root()).output().expect("hipscope runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn grade(program: &str, runs: &str) -> serde_json::Value {
    grade_with_threads(program, runs, "1")
}

/// `grade --exec --node mi300x-8 --json` with `RAYON_NUM_THREADS=threads` (host threads for
/// the engines' parallel parts).
fn grade_with_threads(program: &str, runs: &str, threads: &str) -> serde_json::Value {
    let path = format!("workloads/hip/bin/{program}");
    assert!(root().join(&path).is_file(), "{path} is missing (workloads/build.sh --only peer_flag builds it)");
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope"))
        .env("RAYON_NUM_THREADS", threads)
        .args(["grade", "--exec", "--node", "mi300x-8", "--runs", runs, "--json", "--", &path])
        .current_dir(root())
        .output()
        .expect("hipscope runs");
    let (code, out, err) =
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned());
    assert_eq!(code, 0, "{program}: exit {code}\n{out}\n{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{program}: not JSON ({e}):\n{out}"))
}

fn kernel<'a>(doc: &'a serde_json::Value, prefix: &str) -> &'a serde_json::Value {
    doc["kernels"]
        .as_array()
        .and_then(|ks| ks.iter().find(|k| k["kernel"].as_str().is_some_and(|n| n.starts_with(prefix))))
        .unwrap_or_else(|| panic!("no kernel {prefix} in {doc}"))
}

/// The races of `k` breaking `rule` between a write on GPU 0 and a read on GPU 1, with both
/// sides' source lines in peer_flag.cpp.
fn across(k: &serde_json::Value, rule: &str) -> usize {
    k["races"].as_array().map_or(0, |rs| {
        rs.iter()
            .filter(|r| {
                let line = |side: &str| r[side]["file"].as_str().is_some_and(|f| f.ends_with("peer_flag.cpp"));
                r["rule"] == rule
                    && r["first"]["gpu"] == 0
                    && r["first"]["write"] == true
                    && r["second"]["gpu"] == 1
                    && r["second"]["write"] == false
                    && line("first_line")
                    && line("second_line")
            })
            .count()
    })
}

#[test]
fn agent_scope_flag_between_two_gpus_is_a_heterogeneous_race() {
    let doc = grade("peer_flag_agent", "3");
    let consume = kernel(&doc, "consume");
    assert_eq!(consume["race"], true, "{consume:#}");
    assert!(across(consume, "ScopeRace") >= 1, "the flag's agent-scope release and acquire on two GPUs:\n{consume:#}");
    assert!(across(consume, "DataRace") >= 1, "the data the flag did not order:\n{consume:#}");
    let fixes: Vec<&str> = consume["races"].as_array().into_iter().flatten().filter_map(|r| r["fix"].as_str()).collect();
    assert!(fixes.iter().all(|f| f.contains("system scope")), "{fixes:?}");
    for r in consume["races"].as_array().into_iter().flatten() {
        assert_eq!(r["seeds"].as_array().map(Vec::len), Some(3), "every seed shows it: {r:#}");
    }
    // The program passes: functionally the flag is seen, the race is in what the model promises.
    assert!(
        doc["outcomes"].as_array().is_some_and(|o| o.iter().all(|o| o["state"].as_str().is_some_and(|s| s.contains("PASS peer_flag (agent scope)")))),
        "{doc:#}"
    );
    // Deterministic: the same seeds give the same report, with one or two host threads.
    assert_eq!(grade("peer_flag_agent", "3"), doc);
    assert_eq!(grade_with_threads("peer_flag_agent", "3", "2"), doc);
}

#[test]
fn system_scope_flag_between_two_gpus_is_race_free() {
    let doc = grade("peer_flag", "3");
    for k in ["produce", "consume"] {
        let g = kernel(&doc, k);
        assert_eq!(g["race"], false, "{k}:\n{g:#}");
        assert!(g["undecided"].as_array().is_some_and(Vec::is_empty), "{k}:\n{g:#}");
    }
    let (code, out, err) = hipscope(&["grade", "--exec", "--node", "mi300x-8", "--runs", "2", "--expect", "race-free", "--", "workloads/hip/bin/peer_flag"]);
    assert_eq!(code, 0, "{out}\n{err}");
    let (code, out, err) =
        hipscope(&["grade", "--exec", "--node", "mi300x-8", "--runs", "2", "--expect", "race-free", "--", "workloads/hip/bin/peer_flag_agent"]);
    assert_eq!(code, 1, "{out}\n{err}");
    assert!(out.contains("on GPU 0 (produce") && out.contains("on GPU 1 (consume"), "both GPUs named:\n{out}");
}

#[test]
fn node_is_refused_outside_grade_exec() {
    let (code, _, err) = hipscope(&["grade", "--node", "mi300x-8", "fuzz/seeds/litmus/hip_sb.litmus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--node") && err.lines().count() <= 2, "{err}");
    let (code, _, err) = hipscope(&["grade", "--exec", "--node", "no-such-node", "--", "workloads/hip/bin/peer_flag"]);
    assert_eq!(code, 2, "{err}");
}

/// The timing model runs the kernels on the node's links; the detector's verdicts are the
/// model's, so the same race is reported, again the same for the same seeds.
#[test]
fn timing_mode_reports_the_race_between_gpus_too() {
    let run = || {
        let (code, out, err) =
            hipscope(&["grade", "--exec", "--node", "mi300x-8", "--timing", "--runs", "2", "--json", "--", "workloads/hip/bin/peer_flag_agent"]);
        assert_eq!(code, 0, "{out}\n{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap_or_else(|e| panic!("not JSON ({e}):\n{out}"))
    };
    let doc = run();
    let consume = kernel(&doc, "consume");
    assert!(across(consume, "ScopeRace") >= 1 && across(consume, "DataRace") >= 1, "{consume:#}");
    assert_eq!(run(), doc);
    let (code, out, err) = hipscope(&["grade", "--exec", "--node", "mi300x-8", "--timing", "--runs", "2", "--json", "--", "workloads/hip/bin/peer_flag"]);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(!out.contains("\"race\": true"), "{out}");
}
