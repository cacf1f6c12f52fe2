//! `hipscope grade --exec` on rx7900xtx (gfx1100, WGP mode) with a fat binary: scopes the
//! gfx1100 code cannot show are recovered from the gfx942 code of the same kernel.
//!
//! workloads/hip/seed_mp_fat.cpp is the seed document's message-passing example built for
//! gfx942 and gfx1100 (workloads/build.sh): by default the flag's release store is at
//! work-group scope, which does not include the reading work-group (HIP memory model: a
//! heterogeneous race, and the data accesses are unordered); with -DAGENT_SCOPE it is at agent
//! scope (race-free). On gfx1100 in WGP mode both compile alike (LLVM AMDGPUUsage, "Memory
//! Model GFX11"), on gfx942 they do not ("Memory Model GFX942"). The gfx1100-only build has no
//! other code to read, so its pair stays undecided.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// `grade --exec --gpu rx7900xtx --json` on `program`: the one kernel's grade.
fn grade(program: &str) -> serde_json::Value {
    grade_on(&["--gpu", "rx7900xtx"], program)
}

/// `grade --exec` on the GPU or node `on` (`--gpu NAME` / `--node NAME`).
fn grade_on(on: &[&str], program: &str) -> serde_json::Value {
    let args = [&["grade", "--exec"][..], on, &["--runs", "2", "--json", "--", program]].concat();
    let out = Command::new(env!("CARGO_BIN_EXE_hipscope")).args(args).current_dir(root()).output().expect("hipscope runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(0), "{program}: {text}\n{}", String::from_utf8_lossy(&out.stderr));
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{program}: not JSON ({e}):\n{text}"));
    let kernels = doc["kernels"].as_array().cloned().unwrap_or_default();
    assert_eq!(kernels.len(), 1, "{program}: {doc:#}");
    kernels[0].clone()
}

fn undecided(k: &serde_json::Value) -> Vec<String> {
    k["undecided"].as_array().map(|u| u.iter().filter_map(|x| x["what"].as_str().map(String::from)).collect()).unwrap_or_default()
}

#[test]
fn a_work_group_release_races_with_its_scope_recovered_from_gfx942() {
    let k = grade("workloads/hip/bin/seed_mp_fat");
    assert_eq!(k["race"], true, "{k:#}");
    assert!(undecided(&k).is_empty(), "{k:#}");
    let races = k["races"].as_array().cloned().unwrap_or_default();
    // The store of the flag (seed_mp_fat.cpp:25) against the acquire loads (line 29): both
    // atomic, the store's work-group scope does not include the reader.
    let flag = races.iter().find(|r| r["rule"] == "ScopeRace").unwrap_or_else(|| panic!("no heterogeneous race: {k:#}"));
    let store = ["first", "second"].iter().map(|s| &flag[*s]).find(|s| s["write"] == true).unwrap_or_else(|| panic!("{flag:#}"));
    assert_eq!(store["atomic"], "workgroup", "{flag:#}");
    let how = store["scope_from"].as_str().unwrap_or_default();
    assert!(how.contains("gfx942") && how.contains("same kernel"), "{flag:#}");
    // And the data: the write of x (line 24) and its read (line 30) are unordered.
    let lines = |r: &serde_json::Value| [r["first_line"]["line"].as_u64(), r["second_line"]["line"].as_u64()];
    assert!(races.iter().any(|r| r["rule"] == "DataRace" && lines(r).contains(&Some(24)) && lines(r).contains(&Some(30))), "{k:#}");
}

#[test]
fn an_agent_release_is_race_free_and_decided() {
    let k = grade("workloads/hip/bin/seed_mp_fat_agent");
    assert_eq!(k["race"], false, "{k:#}");
    assert!(undecided(&k).is_empty(), "{k:#}");
    let sync = k["sync"].as_array().cloned().unwrap_or_default();
    let store = sync.iter().find(|s| s["line"]["line"].as_u64() == Some(25)).unwrap_or_else(|| panic!("{k:#}"));
    let decided = store["decided"].as_str().unwrap_or_default();
    assert!(decided.starts_with("agent scope") && decided.contains("gfx942"), "{store:#}");
}

#[test]
fn a_gfx1100_only_build_stays_undecided() {
    let k = grade("workloads/hip/bin/seed_mp_fat_gfx1100");
    assert_eq!(k["race"], false, "{k:#}");
    let u = undecided(&k);
    assert!(!u.is_empty() && u.iter().all(|w| w.contains("no other target")), "{k:#}");
}

#[test]
fn on_a_node_of_gfx1100_gpus_the_scope_is_recovered_too() {
    // Launches on a node of several GPUs run through the co-simulation and its shared detector.
    let k = grade_on(&["--node", "rx7900xtx-pcie"], "workloads/hip/bin/seed_mp_fat");
    assert_eq!(k["race"], true, "{k:#}");
    let text = k.to_string();
    assert!(text.contains("recovered from the gfx942 code of the same kernel"), "{k:#}");
    let k = grade_on(&["--node", "rx7900xtx-pcie"], "workloads/hip/bin/seed_mp_fat_agent");
    assert_eq!(k["race"], false, "{k:#}");
    assert!(undecided(&k).is_empty(), "{k:#}");
}
