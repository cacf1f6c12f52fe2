//! `hipscope validate` end to end: the JSON schema, exit codes 0/2 and one-line errors, and
//! `--profile` on a real and on a malformed rocprof-compute folder. Comparisons that need
//! `../shared/device-data` print `SKIPPED` without it.

use serde_json::Value;
use std::path::{Path, PathBuf};

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn data() -> Option<PathBuf> {
    let d = root().join("../shared/device-data");
    if d.join("derived/vcopy_counters_summary.csv").is_file() {
        Some(d)
    } else {
        println!("SKIPPED: {} not found (device measurements live outside the repository)", d.display());
        None
    }
}

#[test]
fn vcopy_mi100_json_schema_and_exit_code() {
    let Some(data) = data() else { return };
    let o = hipscope(&["validate", "--only", "vcopy", "--gpu", "mi100", "--json", "--data", &data.to_string_lossy()]);
    assert_eq!(code(&o), 0, "stderr: {}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let groups = v["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 1);
    let g = &groups[0];
    assert_eq!((g["dataset"].as_str(), g["gpu"].as_str()), (Some("vcopy"), Some("mi100")));
    let rows = g["rows"].as_array().expect("rows");
    assert!(rows.len() >= 14);
    for r in rows {
        for key in ["case", "metric", "tolerance"] {
            assert!(r[key].is_string(), "{key} in {r}");
        }
        for key in ["measured", "simulated"] {
            assert!(r[key].is_number(), "{key} in {r}");
        }
        assert!(r["error_percent"].is_number() || r["error_percent"].is_null());
        assert!(r["ok"].is_boolean() && r["unexpected"].is_boolean());
        assert!(r["known_miss"].is_string() || r["known_miss"].is_null());
        assert!(!(r["ok"] == false && r["known_miss"].is_null() && r["unexpected"] == false), "a miss is known or unexpected: {r}");
    }
    assert!(rows.iter().any(|r| r["metric"] == "TCP_TCC_READ_REQ_sum" && r["measured"] == 131072.0 && r["ok"] == true));
    let s = &v["summary"];
    assert_eq!(s["rows"].as_u64(), Some(rows.len() as u64));
    assert_eq!(s["unexpected_misses"].as_u64(), Some(0));
    assert!(s["known_misses"].as_u64().is_some_and(|n| n >= 2), "the MI100 memory-write misses are listed");
    assert_eq!(v["errors"].as_array().map(Vec::len), Some(0));
}

#[test]
fn bad_input_exits_2_with_one_line() {
    let o = hipscope(&["validate", "--data", "/nonexistent/device-data"]);
    assert_eq!(code(&o), 2);
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("--data /nonexistent/device-data: not a directory"));
    let Some(data) = data() else { return };
    let d = data.to_string_lossy();
    let o = hipscope(&["validate", "--only", "latency", "--gpu", "mi100", "--data", &d]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("dataset latency has data for mi100"), "{}", stderr(&o));
    let o = hipscope(&["validate", "--only", "nonsense"]);
    assert_eq!(code(&o), 2, "clap rejects unknown datasets");
}

/// A profile folder under target/ with the given pmc_perf.csv.
fn profile_dir(name: &str, pmc: &str) -> PathBuf {
    let dir = root().join("target/validate-cli-tests").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sysinfo.csv"), "command,gpu_model,gpu_arch,cu_per_gpu\n\"vcopy -n 4096 -b 256 -i 1\",MI200,gfx90a,104\n").unwrap();
    std::fs::write(dir.join("pmc_perf.csv"), pmc).unwrap();
    dir
}

#[test]
fn profile_folders() {
    let bad =
        profile_dir("bad", "Dispatch_ID,Kernel_Name,Grid_Size,Workgroup_Size,TCC_HIT_sum,Start_Timestamp,End_Timestamp\n0,vecCopy,4096,256,lots,100,200\n");
    let o = hipscope(&["validate", "--profile", &bad.to_string_lossy()]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("pmc_perf.csv:2: field 'TCC_HIT_sum': 'lots' is not a number"), "{e}");

    // A small synthetic run: the counters the model claims must match what a 4096-element copy
    // does (64 waves; 4 vector-L1 tag accesses per dword per wave, two dwords per lane,
    // load and store).
    let small = profile_dir("small", "Dispatch_ID,Kernel_Name,Grid_Size,Workgroup_Size,SQ_WAVES,TCP_TOTAL_CACHE_ACCESSES_sum,Start_Timestamp,End_Timestamp\n0,\"vecCopy(double*, double*, double*, int, int) [clone .kd]\",4096,256,64,2048,1000,4000\n");
    let o = hipscope(&["validate", "--profile", &small.to_string_lossy(), "--json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON");
    assert_eq!(v["groups"][0]["gpu"], "mi210");
    let rows = v["groups"][0]["rows"].as_array().expect("rows");
    let row = |m: &str| rows.iter().find(|r| r["metric"] == m).cloned().unwrap_or(Value::Null);
    assert_eq!(row("SQ_WAVES")["tolerance"], "not judged");
    assert_eq!(row("TCP_TOTAL_CACHE_ACCESSES_sum")["simulated"], 2048.0);
    assert_eq!(row("duration_ns")["measured"], 3000.0);
}

#[test]
fn profile_of_a_real_mi210_run() {
    let Some(data) = data() else { return };
    let dir = data.join("rocprofiler-compute/tests/workloads/no_roof/MI200");
    let o = hipscope(&["validate", "--profile", &dir.to_string_lossy()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(code(&o), 0, "{out}{}", stderr(&o));
    assert!(out.contains(": mi210") && out.contains("later (dispatch 2)") && out.contains("MISS (known)"), "{out}");
    assert!(Path::new(&dir).is_dir());
}
