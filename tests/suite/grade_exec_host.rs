//! A kernel and a host thread hand a flag back and forth through pinned host memory
//! (workloads/hip/host_pingpong.cpp). The expectations come from the memory model, not from
//! our output:
//! - HIP's memory scopes (LLVM AMDGPUUsage, "Memory Scopes"): agent scope is the threads of
//!   one GPU; the host is another agent, which only system scope includes. So with the
//!   kernel's acquire loads and release stores at agent scope (`host_pingpong_agent`) every
//!   pair of the kernel's flag access and the host's conflicting one is a heterogeneous race
//!   that `grade --exec` reports, naming the kernel's source line and the host thread; at
//!   system scope (`host_pingpong`) there is none.
//! - Memory types (AMDGPUUsage, memory model GFX942): `hipHostMallocNonCoherent` memory is
//!   MTYPE NC, which the L2 may cache, and only system-scope acquires invalidate it
//!   (`buffer_inv sc0 sc1`). So in timing mode, where the L2 is modelled, the agent-scope
//!   kernel on NC memory keeps reading its L2's old flag and the program reports STALE (exit
//!   1), while the system-scope one passes; in functional mode there are no caches and the
//!   agent-scope one completes.

use crate::bounded;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The host watch needs Linux on x86-64 (`hip/src/host_watch`).
fn supported() -> bool {
    if cfg!(all(target_os = "linux", target_arch = "x86_64")) {
        return true;
    }
    println!("SKIPPED: host threads take turns with kernels only on Linux x86-64");
    false
}

/// `hipscope ARGS -- workloads/hip/bin/PROGRAM` with `RAYON_NUM_THREADS=threads`: exit code,
/// stdout, stderr.
fn hipscope(args: &[&str], program: &str, threads: &str) -> (Option<i32>, String, String) {
    let path = root().join("workloads/hip/bin").join(program);
    assert!(path.is_file(), "{} is missing (workloads/build.sh --only host_pingpong builds it)", path.display());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_hipscope"));
    cmd.env("RAYON_NUM_THREADS", threads).args(args).arg("--").arg(&path).current_dir(root());
    let ended = bounded::run(&mut cmd, Duration::from_secs(600));
    assert!(!ended.timed_out, "{program}: stopped after 600 s\n{}", ended.stderr);
    (ended.code, ended.stdout, ended.stderr)
}

/// `grade --exec --runs 2 --json` of `program` as JSON text, the program's own wall-clock
/// figure ("…, 123456 ns each": the host's time, not the simulation's) masked.
fn grade(program: &str, threads: &str) -> String {
    let (code, out, err) = hipscope(&["grade", "--exec", "--runs", "2", "--json"], program, threads);
    assert_eq!(code, Some(0), "{program}: exit {code:?}\n{out}\n{err}");
    masked(&out)
}

fn masked(text: &str) -> String {
    let mut out = String::new();
    for (i, piece) in text.split(" ns each").enumerate() {
        if i > 0 {
            out.push_str(" ns each");
        }
        let keep = piece.trim_end_matches(|c: char| c.is_ascii_digit());
        out.push_str(keep);
        if keep.len() < piece.len() {
            out.push('N');
        }
    }
    out
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

/// The report without each race's `count` (accesses the pair raced on). The host's last load,
/// which sees the kernel's last store, is made while the kernel ends: whether it falls inside
/// the kernels' run (and is counted) or after it (and runs on the host page) depends on the
/// host's wall clock, as `hip/src/host_agent` says of an access that comes as the kernels end.
/// Which pairs race, on which seeds, does not.
fn without_counts(mut doc: serde_json::Value) -> serde_json::Value {
    for k in doc["kernels"].as_array_mut().into_iter().flatten() {
        for r in k["races"].as_array_mut().into_iter().flatten() {
            if let Some(o) = r.as_object_mut() {
                o.remove("count");
            }
        }
    }
    doc
}

fn pong(doc: &serde_json::Value) -> &serde_json::Value {
    doc["kernels"]
        .as_array()
        .and_then(|ks| ks.iter().find(|k| k["kernel"].as_str().is_some_and(|n| n.starts_with("pong"))))
        .unwrap_or_else(|| panic!("no kernel pong in {doc:#}"))
}

/// The heterogeneous races between the kernel's agent-scope flag access (with its line in
/// host_pingpong.cpp) and a host thread's access, where the host's side `host_writes`.
fn kernel_vs_host(k: &serde_json::Value, host_writes: bool) -> usize {
    k["races"].as_array().map_or(0, |rs| {
        rs.iter()
            .filter(|r| {
                let (host, kernel, line) = if r["first"]["host"] == true { ("first", "second", "second_line") } else { ("second", "first", "first_line") };
                r["rule"] == "ScopeRace"
                    && r[host]["host"] == true
                    && r[host]["write"] == host_writes
                    && r[kernel]["gpu"] == 0
                    && r[kernel]["atomic"] == "agent"
                    && r[kernel]["write"] == !host_writes
                    && r[line]["file"].as_str().is_some_and(|f| f.ends_with("host_pingpong.cpp"))
            })
            .count()
    })
}

#[test]
fn agent_scope_flag_between_kernel_and_host_is_a_heterogeneous_race() {
    if !supported() {
        return;
    }
    let text = grade("host_pingpong_agent", "1");
    let doc = json(&text);
    let k = pong(&doc);
    assert_eq!(k["race"], true, "{k:#}");
    // Both directions of the hand-over: the host's store read by the kernel's acquire, and the
    // kernel's store read by the host's.
    assert!(kernel_vs_host(k, true) >= 1, "the host's store and the kernel's agent-scope load:\n{k:#}");
    assert!(kernel_vs_host(k, false) >= 1, "the kernel's agent-scope store and the host's load:\n{k:#}");
    for r in k["races"].as_array().into_iter().flatten() {
        assert!(r["first"]["host"] == true || r["second"]["host"] == true, "only the flag between kernel and host races: {r:#}");
        assert!(r["fix"].as_str().is_some_and(|f| f.contains("system scope")), "{r:#}");
        assert_eq!(r["seeds"].as_array().map(Vec::len), Some(2), "every seed shows it: {r:#}");
    }
    // Deterministic: the same seeds give the same report, again and with two host threads
    // (but for how many accesses a pair raced on, `without_counts`).
    assert_eq!(without_counts(json(&grade("host_pingpong_agent", "1"))), without_counts(doc.clone()));
    assert_eq!(without_counts(json(&grade("host_pingpong_agent", "2"))), without_counts(doc.clone()));
    // The text report names both agents and the kernel's line.
    let (code, out, err) = hipscope(&["grade", "--exec", "--runs", "1", "--expect", "race-free"], "host_pingpong_agent", "1");
    assert_eq!(code, Some(1), "{out}\n{err}");
    assert!(out.contains("by a host thread") && out.contains("on GPU 0 (pong") && out.contains("host_pingpong.cpp:"), "{out}");
}

#[test]
fn system_scope_flag_between_kernel_and_host_is_race_free() {
    if !supported() {
        return;
    }
    let text = grade("host_pingpong", "1");
    let doc = json(&text);
    let k = pong(&doc);
    assert_eq!(k["race"], false, "{k:#}");
    assert!(k["undecided"].as_array().is_some_and(Vec::is_empty), "{k:#}");
    assert!(text.contains("PASS host_pingpong: 1000 round trips at system scope"), "the host took part: {text}");
    assert_eq!(grade("host_pingpong", "2"), text);
}

/// `exec --gpu mi300x --mode MODE` of `program`: exit code and stdout.
fn exec(program: &str, mode: &str) -> (Option<i32>, String) {
    let (code, out, _) = hipscope(&["exec", "--gpu", "mi300x", "--mode", mode], program, "1");
    (code, out)
}

#[test]
fn agent_scope_on_non_coherent_host_memory_reads_stale_in_timing_mode() {
    if !supported() {
        return;
    }
    let (code, out) = exec("host_pingpong_nc_agent", "timing");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("STALE: agent scope on non-coherent memory: round ") && out.contains("after 4096 polls"), "{out}");
    assert_eq!(exec("host_pingpong_nc_agent", "timing"), (code, out), "the same run again");
    // No caches in functional mode: every load reads memory, and the hand-over completes.
    let (code, out) = exec("host_pingpong_nc_agent", "functional");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("PASS host_pingpong: 1000 round trips at agent scope on non-coherent memory"), "{out}");
}

#[test]
fn system_scope_on_non_coherent_host_memory_passes_in_timing_mode() {
    if !supported() {
        return;
    }
    let (code, out) = exec("host_pingpong_nc", "timing");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("PASS host_pingpong: 1000 round trips at system scope on non-coherent memory"), "{out}");
}

#[test]
fn the_mask_keeps_all_but_the_wall_clock_figure() {
    assert_eq!(masked("a, 123 ns each\"}, 1000 round trips, 7 ns each"), "a, N ns each\"}, 1000 round trips, N ns each");
    assert_ne!(masked("999 round trips, 1 ns each"), masked("1000 round trips, 1 ns each"));
}
