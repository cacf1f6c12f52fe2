//! `hipscope validate --only apps` on a handful of small real rows: the programs of
//! `../shared/apps/mgpusim-gpu-perf` run under the HIP runtime and every row comes back
//! simulated, sampled out or failed with a reason. The figures themselves are the calibration
//! report's business (`reports/calibration-apps.md`); what must hold here comes from the data
//! set: every row is accounted for, each with the arguments run_all.sh gives it, and
//! hipMemcpy now takes time. Prints `SKIPPED` without ../shared/apps.

use serde_json::Value;
use std::path::PathBuf;

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn apps() -> Option<PathBuf> {
    let d = root().join("../shared/apps/mgpusim-gpu-perf");
    if d.join("mi300a-real.csv").is_file() && d.join("bin/memcopy").is_file() {
        Some(d)
    } else {
        println!("SKIPPED: {} not found (the benchmark programs live outside the repository)", d.display());
        None
    }
}

/// A data-set directory holding `csv` as its real rows and the real programs.
fn fixture(name: &str, csv: &str, bin: &std::path::Path) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hipscope-apps-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("mi300a-real.csv"), csv).expect("write csv");
    std::os::unix::fs::symlink(bin, dir.join("bin")).expect("link bin");
    dir
}

/// Seven real rows (copied from mi300a-real.csv) of four programs, the largest sampled out.
const ROWS: &str = "kernel_name,problem_size,iterations,avg_ms,min_ms,max_ms
memcopy_h2d,2MB,51,0.0488,0.0464,0.0575
memcopy_d2d,2MB,51,0.0120,0.0048,0.0327
stencil2d,64x64,51,0.0060,0.0052,0.0128
kmeans,pts1024_feat8_clus5,51,0.0077,0.0070,0.0160
floydwarshall,8_nodes,51,0.0482,0.0380,0.1127
bfs,nodes1024,51,0.3491,0.3162,0.3809
floydwarshall,4096_nodes,51,529.6318,523.4960,553.8486
";

#[test]
fn a_handful_of_small_rows_run_and_are_tabled() {
    let Some(apps) = apps() else { return };
    let dir = fixture("small", ROWS, &apps.join("bin"));
    let d = dir.to_string_lossy().into_owned();
    // Unsampled: the cost cap (1 ms real) applies, as it does without sampling.
    let o = hipscope(&["validate", "--only", "apps", "--apps", &d, "--json", "--sample", "off"]);
    assert!(code(&o) == 0 || code(&o) == 1, "exit {}: {}", code(&o), stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let rows = v["apps"]["rows"].as_array().expect("apps.rows");
    assert_eq!(rows.len(), 7, "every real row is listed");
    let by = |k: &str, p: &str| rows.iter().find(|r| r["kernel_name"] == k && r["problem_size"] == p).unwrap_or_else(|| panic!("row {k} {p}"));
    // run_all.sh: bfs --nodes 1024 comes first with --degree 4.
    assert_eq!(by("bfs", "nodes1024")["args"], "--nodes 1024 --degree 4");
    assert_eq!(by("floydwarshall", "8_nodes")["args"], "--nodes 8");
    let big = by("floydwarshall", "4096_nodes");
    assert_eq!(big["status"], "skipped");
    assert!(big["reason"].as_str().is_some_and(|r| r.contains("sampled out")), "{big}");
    for (k, p) in [
        ("memcopy_h2d", "2MB"),
        ("memcopy_d2d", "2MB"),
        ("stencil2d", "64x64"),
        ("kmeans", "pts1024_feat8_clus5"),
        ("floydwarshall", "8_nodes"),
        ("bfs", "nodes1024"),
    ] {
        let r = by(k, p);
        assert_eq!(r["status"], "simulated", "{r}");
        assert!(r["simulated_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{r}");
        // The run's CPU seconds, read while it ran (these runs are short: under the 10 ms
        // granularity of /proc's clock ticks some read 0).
        assert!(r["cpu_s"].as_f64().is_some_and(|s| s >= 0.0), "{r}");
    }
    assert!(big["cpu_s"].is_null(), "a row not run used no CPU: {big}");
    // A 2 MiB host-to-device copy moves 2 MiB over the host link: it takes time now.
    assert!(by("memcopy_h2d", "2MB")["simulated_ms"].as_f64().is_some_and(|ms| ms > 0.01));
    let scores = v["apps"]["scores"].as_array().expect("scores");
    let all = scores.iter().find(|s| s["program"] == "all").expect("overall score");
    assert_eq!(all["simulated"], 6);
    assert!(all["wmape_percent"].is_number());
    let group = v["groups"].as_array().and_then(|g| g.iter().find(|g| g["dataset"] == "apps")).expect("apps group");
    assert!(group["rows"].as_array().is_some_and(|r| r.iter().any(|r| r["metric"].as_str().is_some_and(|m| m.starts_with("WMAPE")))));

    // The text form prints the table.
    let o = hipscope(&["validate", "--only", "apps", "--apps", &d, "--sample", "off"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("real ms") && out.contains("sim ms") && out.contains("WMAPE"), "{out}");
    assert!(out.lines().any(|l| l.contains("floydwarshall") && l.contains("skipped: sampled out")), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_rows_exit_2_naming_file_line_and_field() {
    let Some(apps) = apps() else { return };
    let dir = fixture(
        "bad",
        "kernel_name,problem_size,iterations,avg_ms,min_ms,max_ms\natax,48x48,51,0.0235,0.0227,0.0273\natax,64x64,many,0.0290,0.0282,0.0302\n",
        &apps.join("bin"),
    );
    let o = hipscope(&["validate", "--only", "apps", "--apps", &dir.to_string_lossy()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert_eq!(e.trim().lines().count(), 1, "{e}");
    assert!(e.contains("mi300a-real.csv:3: iterations: `many` is not a count"), "{e}");
    let o = hipscope(&["validate", "--only", "apps", "--gpu", "mi210"]);
    assert_eq!(code(&o), 2, "apps has data for mi300a only: {}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
