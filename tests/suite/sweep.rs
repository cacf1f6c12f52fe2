//! `hipscope sweep`: one process, two jobs and two shards give byte-identical merged results;
//! an interrupted shard resumes; bad plans, shards and merges are one-line errors (exit 2).
//!
//! The expected values come from the points themselves run alone (`hipscope run` with the
//! point's config), not from the sweep's own output.

use std::path::{Path, PathBuf};

use crate::cli;

use cli::root;

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let o = cli::hipscope(args);
    (cli::code(&o), String::from_utf8_lossy(&o.stdout).into_owned(), cli::stderr(&o))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hipscope-sweep-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

const PLAN: &str = "tests/sweeps/small.ron";

fn sweep(out: &Path, extra: &[&str]) {
    let o = out.display().to_string();
    let (code, stdout, err) = hipscope(&[&["sweep", PLAN, "--out", &o][..], extra].concat());
    assert_eq!(code, 0, "sweep {extra:?}: exit {code}\n{stdout}\n{err}");
}

fn merged(dir: &Path) -> (String, String) {
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(f).display()));
    (read("results.csv"), read("results.json"))
}

#[test]
fn jobs_and_shards_do_not_change_the_results_and_a_shard_resumes() {
    let (one, two, shards) = (tmp("one"), tmp("two"), tmp("shards"));
    sweep(&one, &["--jobs", "1"]);
    sweep(&two, &["--jobs", "2"]);
    let reference = merged(&one);
    assert_eq!(reference, merged(&two), "--jobs 1 and --jobs 2 differ");
    let csv = &reference.0;
    assert_eq!(csv.lines().count(), 21, "20 points and the header:\n{csv}");
    // Every point has its cycles (column 6) and no error (the last column).
    assert!(csv.lines().skip(1).all(|l| l.split(',').nth(6).is_some_and(|c| !c.is_empty()) && l.ends_with(',')), "a point without metrics:\n{csv}");

    // Two shards, the second interrupted: its file cut mid-line and its last whole lines lost.
    sweep(&shards, &["--shard", "0/2", "--no-merge"]);
    sweep(&shards, &["--shard", "1/2", "--no-merge"]);
    let second = shards.join("shard-1-of-2.jsonl");
    let text = std::fs::read_to_string(&second).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let cut = format!("{}\n{}", lines[..4].join("\n"), &lines[4][..lines[4].len() / 2]);
    std::fs::write(&second, cut).unwrap();
    let (code, _, err) = hipscope(&["sweep", "merge", &shards.display().to_string()]);
    assert_eq!(code, 2, "merging an unfinished shard: {err}");
    assert!(err.contains("shard 1/2") && err.contains("missing") && err.lines().count() == 1, "{err}");
    let (code, _, err) = hipscope(&["sweep", PLAN, "--out", &shards.display().to_string(), "--shard", "1/2", "--no-merge"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("6 run now, 4 from an earlier run"), "resumed, running only what was missing:\n{err}");
    let (code, out, err) = hipscope(&["sweep", "merge", &shards.display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(reference, merged(&shards), "shards + merge differ from one process");
    for f in ["plots/cycles.svg", "plots/cycles-speedup.svg", "plots/cycles-heat-vadd.svg"] {
        assert!(shards.join(f).is_file(), "{f} not written: {out}");
    }
    for d in [one, two, shards] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// A point's metrics agree with the same config run alone (`hipscope run --gpu FILE`).
#[test]
fn a_point_is_what_a_run_of_its_config_gives() {
    let out = tmp("point");
    sweep(&out, &["--jobs", "2"]);
    let doc: serde_json::Value = serde_json::from_str(&merged(&out).1).unwrap();
    let point = doc["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["workload"] == "vadd" && p["seed"] == 1 && p["params"]["timing.l2.size_bytes"] == 33554432 && p["params"]["compute_units"] == 52)
        .expect("the point");
    // The config by hand: MI210 with a 32 MiB L2 and 52 CUs.
    let mut cfg = std::fs::read_to_string(root().join("configs/mi210.ron")).unwrap();
    cfg = cfg.replacen("size_bytes: 8388608,", "size_bytes: 33554432,", 1).replacen("compute_units: 104,", "compute_units: 52,", 1);
    let cfg_file = out.join("mi210-32m-52cu.ron");
    std::fs::write(&cfg_file, cfg).unwrap();
    let (code, stdout, err) =
        hipscope(&["run", "workloads/vadd.ron", "--set", "n=65536", "--gpu", &cfg_file.display().to_string(), "--mode", "timing", "--seed", "1", "--json"]);
    assert_eq!(code, 0, "{stdout}{err}");
    let run: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let cycles: u64 = run["dispatches"].as_array().unwrap().iter().map(|d| d["cycles"].as_u64().unwrap()).sum();
    assert_eq!(point["metrics"]["cycles"], cycles, "{point:#}\n{run:#}");
    let _ = std::fs::remove_dir_all(out);
}

/// One line, exit 2, naming the plan field or shard.
fn fails(args: &[&str], want: &str) {
    let (code, out, err) = hipscope(args);
    assert_eq!(code, 2, "{args:?}: exit {code}\n{out}{err}");
    assert!(err.contains(want) && err.trim().lines().count() == 1, "{args:?}: wanted \"{want}\" in one line:\n{err}");
}

#[test]
fn bad_plans_shards_and_merges_are_one_line_errors() {
    let dir = tmp("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let plan = |name: &str, axes: &str| {
        let text = std::fs::read_to_string(root().join(PLAN)).unwrap().replace("../../workloads", &root().join("workloads").display().to_string());
        let start = text.find("axes: [").unwrap();
        let end = start + text[start..].find("    ],\n").unwrap() + "    ],\n".len();
        let p = dir.join(name);
        std::fs::write(&p, format!("{}axes: [{axes}],\n{}", &text[..start], &text[end..])).unwrap();
        p.display().to_string()
    };
    let unknown = plan("unknown.ron", r#"Axis(field: "timing.l2.size_byte", values: [1])"#);
    fails(&["sweep", &unknown, "--out", &dir.join("o").display().to_string()], "no field \"size_byte\" in timing.l2");
    let wrong = plan("wrong.ron", r#"Axis(field: "compute_units", values: ["many"])"#);
    fails(&["sweep", &wrong], "axes[0] compute_units = many");
    let empty = plan("empty.ron", r#"Axis(field: "compute_units", values: [])"#);
    fails(&["sweep", &empty], "axes[0].values: empty axis");
    fails(&["sweep", PLAN, "--shard", "2/2"], "--shard 2/2");
    fails(&["sweep", PLAN, "--shard", "x"], "--shard x");
    fails(&["sweep", "tests/sweeps/no_such.ron"], "no_such.ron");

    // Merges: a missing shard, a point twice, another plan's results.
    let out = dir.join("m");
    let o = out.display().to_string();
    let (code, _, err) = hipscope(&["sweep", PLAN, "--out", &o, "--shard", "0/2", "--no-merge"]);
    assert_eq!(code, 0, "{err}");
    fails(&["sweep", "merge", &o], "shard 1/2 is missing");
    let first = std::fs::read_to_string(out.join("shard-0-of-2.jsonl")).unwrap();
    let one_line = first.lines().next().unwrap().to_string();
    std::fs::write(out.join("shard-1-of-2.jsonl"), "").unwrap();
    std::fs::write(out.join("shard-0-of-2.jsonl"), format!("{first}{one_line}\n")).unwrap();
    fails(&["sweep", "merge", &o], "again");
    let other = one_line.replacen("\"plan_hash\":\"", "\"plan_hash\":\"f", 1);
    std::fs::write(out.join("shard-0-of-2.jsonl"), format!("{other}\n")).unwrap();
    fails(&["sweep", "merge", &o], "is not the plan's");
    fails(&["sweep", PLAN, "--out", &o, "--shard", "0/2"], "another plan");
    let _ = std::fs::remove_dir_all(dir);
}

/// HIP programs and litmus tests as workloads: their metrics are what `hipscope exec` and
/// `hipscope grade` give for the base config on their own.
#[test]
fn exec_and_litmus_workloads_give_what_exec_and_grade_give() {
    let out = tmp("mixed");
    let (code, stdout, err) = hipscope(&["sweep", "tests/sweeps/mixed.ron", "--out", &out.display().to_string()]);
    assert_eq!(code, 0, "{stdout}{err}");
    let doc: serde_json::Value = serde_json::from_str(&merged(&out).1).unwrap();
    let base = |w: &str| doc["points"].as_array().unwrap().iter().find(|p| p["workload"] == w && p["base"] == true).cloned().unwrap();
    let report = out.join("exec-report.json");
    let r = report.display().to_string();
    let (code, _, err) = hipscope(&["exec", "--gpu", "mi210", "--mode", "timing", "--report", &r, "--", "workloads/hip/bin/memset_vadd"]);
    assert_eq!(code, 0, "{err}");
    let rep: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let sum = |k: &str| rep["launches"].as_array().unwrap().iter().map(|l| l[k].as_u64().unwrap()).sum::<u64>();
    let exec = base("memset_vadd");
    assert_eq!((exec["metrics"]["cycles"].as_u64(), exec["metrics"]["instructions"].as_u64()), (Some(sum("cycles")), Some(sum("instructions"))), "{exec:#}");
    assert!(exec["metrics"]["observed"].is_null(), "a program has no litmus condition");
    // The sweep's seed 0 is the hardware layer's first seed 1.
    let (code, stdout, err) =
        hipscope(&["grade", "--gpu", "mi210", "--runs", "50", "--seed", "1", "--isa", "none", "--json", "workloads/litmus/01_mp_relaxed_agent.litmus"]);
    assert_eq!(code, 0, "{err}");
    let g: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let hw = &g[0]["hardware"][0];
    let observed = hw["condition_observed"].as_f64().unwrap() / hw["runs"].as_f64().unwrap();
    assert_eq!(base("mp")["metrics"]["observed"].as_f64(), Some(observed), "{hw:#}");
    let _ = std::fs::remove_dir_all(out);
}
