//! `hipscope sweep` on bad input and broken workloads: every class the robustness campaign
//! found ends cleanly. A launch spec, code object or litmus test edited between shards makes
//! the resume and the merge refuse, naming the file; a workload that overflows its stack fails
//! its point only; points that fail give exit 1 with their count; plans too big, ranges with
//! absurd steps, unknown axis keys, a field on two axes, bad scope names, absurd run counts and
//! `--jobs` are one-line errors (exit 2) before anything runs; an unreadable result line is an
//! error naming its file and line, never a reason to run everything again; the results are
//! written before anything goes to stdout. Plans are generated in temporary directories.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::cli;

fn hipscope(args: &[&str]) -> (i32, String, String) {
    let o = cli::hipscope(args);
    (cli::code(&o), String::from_utf8_lossy(&o.stdout).into_owned(), cli::stderr(&o))
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hipscope-sweep-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

/// One line on stderr, exit 2, containing `want`.
fn fails(args: &[&str], want: &str) -> String {
    let (code, out, err) = hipscope(args);
    assert_eq!(code, 2, "{args:?}: exit {code}\n{out}{err}");
    assert!(err.contains(want) && err.trim().lines().count() == 1, "{args:?}: wanted \"{want}\" in one line:\n{err}");
    err
}

/// The vadd launch spec copied into `dir` with its code objects named by absolute paths,
/// except gfx90a's (MI210's), which is copied next to it.
fn vadd_spec(dir: &Path) -> (PathBuf, PathBuf) {
    let bin = cli::root().join("workloads/bin");
    let co = dir.join("vadd-gfx90a.co");
    std::fs::copy(bin.join("gfx90a/vadd.co"), &co).unwrap();
    let text = std::fs::read_to_string(cli::root().join("workloads/vadd.ron")).unwrap();
    let text = text.replace("\"bin/gfx90a/vadd.co\"", "\"vadd-gfx90a.co\"").replace("\"bin/", &format!("\"{}/", s(&bin)));
    let spec = dir.join("vadd.ron");
    std::fs::write(&spec, text).unwrap();
    (spec, co)
}

fn litmus(dir: &Path, condition_terms: usize) -> PathBuf {
    let text = std::fs::read_to_string(cli::root().join("workloads/litmus/01_mp_relaxed_agent.litmus")).unwrap();
    let text = text.replace("exists (T1:r0 == 1", &format!("exists (T1:r0 == 1{}", " && T1:r0 == 1".repeat(condition_terms)));
    let p = dir.join("mp.litmus");
    std::fs::write(&p, text).unwrap();
    p
}

fn plan(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, body).unwrap();
    s(&p)
}

/// The file a "changed since" message names, resolved.
/// A scratch directory with vadd's spec and a plan of two points over it; the plan's path and
/// the results directory to give it.
fn two_point_vadd(name: &str) -> (PathBuf, String, PathBuf) {
    let dir = tmp(name);
    vadd_spec(&dir);
    let p = plan(
        &dir,
        "p.ron",
        r#"Sweep(gpu: "mi210", mode: Functional, workloads: [Spec(name: "vadd", path: "vadd.ron", params: {"n": 1024})], axes: [Axis(field: "compute_units", values: [52, 104])], metrics: ["instructions"])"#,
    );
    let out = dir.join("out");
    (dir, p, out)
}

fn named_file(err: &str) -> PathBuf {
    let path = err.trim().strip_prefix("hipscope: ").unwrap_or(err).split(": changed since").next().unwrap_or_default();
    Path::new(path).canonicalize().unwrap_or_else(|e| panic!("{path}: {e}\n{err}"))
}

fn append(file: &Path, text: &str) {
    std::fs::OpenOptions::new().append(true).open(file).unwrap().write_all(text.as_bytes()).unwrap();
}

#[test]
fn an_edited_workload_file_makes_resume_and_merge_refuse_naming_it() {
    let dir = tmp("edited");
    let (spec, co) = vadd_spec(&dir);
    let mp = litmus(&dir, 0);
    let p = plan(
        &dir,
        "p.ron",
        r#"Sweep(gpu: "mi210", mode: Functional,
            workloads: [Spec(name: "vadd", path: "vadd.ron", params: {"n": 4096}), Litmus(name: "mp", path: "mp.litmus", runs: 5)],
            axes: [Axis(field: "compute_units", values: [52, 104])], metrics: ["instructions", "observed"])"#,
    );
    let out = s(&dir.join("out"));
    let shard = |i: &str| hipscope(&["sweep", &p, "--out", &out, "--shard", i, "--no-merge"]);
    let (code, _, err) = shard("0/2");
    assert_eq!(code, 0, "{err}");

    // The spec edited between the shards: the second shard refuses to start.
    let original = std::fs::read_to_string(&spec).unwrap();
    append(&spec, "// edited between the shards\n");
    let (code, _, err) = shard("1/2");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("changed since the results in") && err.contains("workloads[0] (vadd) vadd.ron") && err.lines().count() == 1, "{err}");
    assert_eq!(named_file(&err), spec.canonicalize().unwrap());
    assert!(!dir.join("out/shard-1-of-2.jsonl").exists(), "nothing ran");
    std::fs::write(&spec, &original).unwrap();
    let (code, _, err) = shard("1/2");
    assert_eq!(code, 0, "restored, it runs: {err}");

    // Both shards ran with the same files; one edited before the merge: the merge refuses.
    append(&spec, "// edited before the merge\n");
    let err = fails(&["sweep", "merge", &out], "changed since the results in");
    assert_eq!(named_file(&err), spec.canonicalize().unwrap());
    std::fs::write(&spec, &original).unwrap();

    // A code object the spec names, and a litmus test: named too, by the resume and the merge.
    let bytes = std::fs::read(&co).unwrap();
    append(&co, "x");
    let err = fails(&["sweep", "merge", &out], "code_objects.\"gfx90a\" vadd-gfx90a.co");
    assert_eq!(named_file(&err), co.canonicalize().unwrap());
    let (code, _, err) = shard("0/2");
    assert_eq!(code, 2, "{err}");
    assert_eq!(named_file(&err), co.canonicalize().unwrap());
    std::fs::write(&co, bytes).unwrap();
    append(&mp, "// edited\n");
    let err = fails(&["sweep", "merge", &out], "workloads[1] (mp) mp.litmus");
    assert_eq!(named_file(&err), mp.canonicalize().unwrap());
    let (code, _, err) = shard("1/2");
    assert_eq!((code, named_file(&err)), (2, mp.canonicalize().unwrap()), "{err}");
    std::fs::write(&mp, std::fs::read_to_string(cli::root().join("workloads/litmus/01_mp_relaxed_agent.litmus")).unwrap()).unwrap();

    let (code, stdout, err) = hipscope(&["sweep", "merge", &out]);
    assert_eq!(code, 0, "every file as it was: the merge goes through\n{stdout}{err}");
    // The recorded paths are relative to the results directory (no absolute path in a
    // committed results directory), and still find the files from another directory.
    let copy: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("out/plan.json")).unwrap()).unwrap();
    let inputs = copy["inputs"].as_array().unwrap();
    assert!(inputs.len() >= 15, "the spec, its 13 code objects and the litmus test: {inputs:?}");
    assert!(inputs.iter().any(|i| i["path"] == "../vadd.ron") && inputs.iter().all(|i| i["sha256"].as_str().is_some_and(|h| h.len() == 64)), "{inputs:?}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_workload_that_overflows_its_stack_fails_alone() {
    let dir = tmp("overflow");
    let (_spec, _) = vadd_spec(&dir);
    // A condition of 2.5 million terms: deeper than a point's 64 MiB stack when measured.
    litmus(&dir, 2_500_000);
    let p = plan(
        &dir,
        "p.ron",
        r#"Sweep(gpu: "mi210", mode: Functional,
            workloads: [Litmus(name: "mp", path: "mp.litmus", runs: 2), Spec(name: "vadd", path: "vadd.ron", params: {"n": 4096})],
            metrics: ["instructions", "observed"])"#,
    );
    let out = dir.join("out");
    // One job: the litmus point runs first and takes its worker with it; vadd gets a new one.
    let (code, stdout, err) = hipscope(&["sweep", &p, "--out", &s(&out), "--jobs", "1"]);
    assert!(code == 0 || code == 1, "the sweep ends by itself: exit {code}\n{stdout}{err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let points = doc["points"].as_array().unwrap();
    assert_eq!(points.len(), 2, "{doc:#}");
    let vadd = points.iter().find(|p| p["workload"] == "vadd").unwrap();
    assert!(vadd["error"].is_null() && vadd["metrics"]["instructions"].as_u64().is_some_and(|n| n > 0), "{vadd:#}");
    let mp = points.iter().find(|p| p["workload"] == "mp").unwrap();
    if let Some(e) = mp["error"].as_str() {
        assert_eq!(code, 1, "a failed point: exit 1\n{err}");
        assert!(err.contains("1 of 2 point(s) failed"), "{err}");
        assert!(!e.contains('\n'), "{e}");
        println!("the litmus point: {e}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn every_point_failing_exits_1_with_the_count() {
    let dir = tmp("allfail");
    vadd_spec(&dir);
    // A code object the spec does not have: every point fails, each with the reason.
    let p = plan(
        &dir,
        "p.ron",
        r#"Sweep(gpu: "mi210", mode: Functional, workloads: [Spec(name: "vadd", path: "vadd.ron", code_object: Some("gfx0"))],
            axes: [Axis(field: "compute_units", values: [52, 104])], seeds: [0, 1], metrics: ["instructions"])"#,
    );
    let out = dir.join("out");
    let (code, _, err) = hipscope(&["sweep", &p, "--out", &s(&out)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("6 of 6 point(s) failed; their `error` says why"), "{err}");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let points = doc["points"].as_array().unwrap();
    assert!(points.len() == 6 && points.iter().all(|p| p["error"].as_str().is_some_and(|e| e.contains("no entry \"gfx0\""))), "{doc:#}");
    // The merge alone says the same.
    let (code, _, err) = hipscope(&["sweep", "merge", &s(&out)]);
    assert_eq!(code, 1, "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_plans_and_options_are_one_line_errors_before_anything_runs() {
    let dir = tmp("bad");
    vadd_spec(&dir);
    let spec = r#"Spec(name: "vadd", path: "vadd.ron")"#;
    let out = dir.join("out");
    let o = s(&out);
    let bad = |name: &str, workloads: &str, axes: &str, want: &str| {
        let p = plan(
            &dir,
            name,
            &format!(r#"Sweep(gpu: "mi210", workloads: [{workloads}], axes: [{axes}], metrics: ["cycles", "observed", "scope:fence_rel:agent"])"#),
        );
        let t0 = Instant::now();
        fails(&["sweep", &p, "--out", &o], want);
        assert!(t0.elapsed() < Duration::from_secs(20), "{name}: {:?}", t0.elapsed());
        assert!(!out.exists(), "{name}: nothing is written for a bad plan");
    };
    let all = format!(r#"{spec}, Litmus(name: "mp", path: "mp.litmus"), Scopes(name: "s")"#);
    litmus(&dir, 0);
    bad("key.ron", &all, r#"Range(field: "compute_units", start: 8, end: 16, stp: 8)"#, "Unexpected field named `stp` in `Range`");
    bad(
        "twice.ron",
        &all,
        r#"Axis(field: "compute_units", values: [52]), Zip([Axis(field: "wave_size", values: [64]), Axis(field: "compute_units", values: [104])])"#,
        "axes[1][1]: compute_units is also set by axes[0]",
    );
    bad("tiny.ron", &all, r#"Range(field: "compute_units", start: 8, end: 104, step: 1e-300)"#, "axes[0] (compute_units): about 9.600e301 values");
    bad("zero.ron", &all, r#"Range(field: "compute_units", start: 8, end: 104, step: 0)"#, "step 0 must be positive");
    bad("nan.ron", &all, r#"Range(field: "compute_units", start: 8, end: 104, step: NaN)"#, "step NaN is not a finite number");
    // Three ranges of 1 000: a billion points, refused by arithmetic (it used to allocate 24 GB).
    let ranges = r#"Range(field: "compute_units", start: 1, end: 1000, step: 1), Range(field: "timing.l2.size_bytes", start: 1, end: 1000, step: 1), Range(field: "timing.clock_mhz", start: 1, end: 1000, step: 1)"#;
    bad(
        "billion.ron",
        &all,
        ranges,
        "the plan makes 3000000003 points (3 workload(s) x 1 seed(s) x (1 base + 1000 x 1000 x 1000 combinations of the axes)); at most 100000",
    );
    bad("ops.ron", r#"Scopes(name: "s", ops: ["fence_rell"])"#, "", "workloads[0] (s).ops[0]: no \"fence_rell\" in the scope suite");
    bad("runs.ron", r#"Litmus(name: "mp", path: "mp.litmus", runs: 18446744073709551615)"#, "", "workloads[0].runs: 18446744073709551615 (from 1 to 1000000)");

    // Options: --jobs, shards beyond the points.
    let p = plan(
        &dir,
        "ok.ron",
        &format!(
            r#"Sweep(gpu: "mi210", mode: Functional, workloads: [{spec}], axes: [Axis(field: "compute_units", values: [52, 104])], metrics: ["instructions"])"#
        ),
    );
    fails(&["sweep", &p, "--out", &o, "--jobs", "100000"], "--jobs 100000: from 1 to");
    fails(&["sweep", &p, "--out", &o, "--jobs", "0"], "--jobs 0: from 1 to");
    fails(&["sweep", &p, "--out", &o, "--slurm", "--jobs", "2000"], "--jobs 2000: from 1 to 1024");
    fails(&["sweep", &p, "--out", &o, "--shard", "3/4"], "--shard 3/4: 4 shards for 3 point(s)");
    fails(&["sweep", &p, "--out", &o, "--slurm", "--shards", "4"], "--shards 4: from 1 to the plan's 3 point(s)");
    assert!(!out.exists(), "nothing is written for bad options");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn unreadable_result_lines_are_errors_naming_file_and_line() {
    let (dir, p, out) = two_point_vadd("lines");
    let (code, _, err) = hipscope(&["sweep", &p, "--out", &s(&out), "--no-merge"]);
    assert_eq!(code, 0, "{err}");
    let file = out.join("shard-0-of-1.jsonl");
    let good = std::fs::read(&file).unwrap();
    let second = good.iter().position(|&b| b == b'\n').unwrap() + 1;
    for (damage, want) in [(&[0xffu8][..], ":2: not UTF-8 (byte 1 of the line)"), (b"{", ":2: not a result line")] {
        let bad = [&good[..second], damage, &good[second..]].concat();
        std::fs::write(&file, &bad).unwrap();
        // Resuming reports the line; it neither runs the points again nor appends to the file.
        fails(&["sweep", &p, "--out", &s(&out)], &format!("{}{want}", s(&file)));
        assert_eq!(std::fs::read(&file).unwrap(), bad, "the results file is untouched");
        fails(&["sweep", "merge", &s(&out)], &format!("{}{want}", s(&file)));
    }
    // A last line cut short is an interruption, not damage: dropped, and its point run again.
    std::fs::write(&file, &good[..good.len() - 5]).unwrap();
    let (code, _, err) = hipscope(&["sweep", &p, "--out", &s(&out)]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("1 run now, 2 from an earlier run"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn results_are_written_before_stdout_and_a_closed_stdout_loses_nothing() {
    let (dir, p, out) = two_point_vadd("pipe");
    // `sweep … | head -0`: the reader is gone before the sweep prints anything.
    let mut child =
        Command::new(env!("CARGO_BIN_EXE_hipscope")).args(["sweep", &p, "--out", &s(&out)]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&done.stderr);
    // Exit 0 (the summary's failed write ignored) or SIGPIPE's default action; never a panic.
    assert!(done.status.code() != Some(101) && !err.contains("panicked"), "{:?}\n{err}", done.status);
    for f in ["results.csv", "results.json", "plots/instructions.svg"] {
        assert!(out.join(f).is_file(), "{f} was written: {err}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_plan_at_the_point_cap_is_checked_and_one_point_more_is_refused() {
    let dir = tmp("cap");
    vadd_spec(&dir);
    let sizes: Vec<String> = (1..=100).map(|i| format!("\"{i} MiB\"")).collect();
    let body = |end: u32| {
        format!(
            r#"Sweep(gpu: "mi210", mode: Functional, workloads: [Spec(name: "vadd", path: "vadd.ron")],
                axes: [Range(field: "compute_units", start: 1, end: {end}, step: 1), Axis(field: "timing.l2.size_bytes", values: [{}])], metrics: ["instructions"])"#,
            sizes.join(", ")
        )
    };
    // 1 + 999 x 100 = 99 901 points, every config built and checked (no point runs: --slurm
    // only writes the scripts).
    let p = plan(&dir, "cap.ron", &body(999));
    let t0 = Instant::now();
    let (code, stdout, err) = hipscope(&["sweep", &p, "--out", &s(&dir.join("out")), "--slurm", "--shards", "8"]);
    let took = t0.elapsed();
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(err.contains("checking the configs of 99901 points") && stdout.contains("99901 point(s) in 8 shard(s)"), "{stdout}{err}");
    assert!(took < Duration::from_secs(60), "{took:?}");
    println!("99 901 points checked in {:.1} s", took.as_secs_f64());
    // 1 + 1000 x 100 = 100 001: one over.
    let p = plan(&dir, "over.ron", &body(1000));
    fails(
        &["sweep", &p, "--out", &s(&dir.join("out2"))],
        "the plan makes 100001 points (1 workload(s) x 1 seed(s) x (1 base + 1000 x 100 combinations of the axes)); at most 100000",
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_results_directory_of_another_plan_config_or_version_is_refused() {
    let dir = tmp("other");
    vadd_spec(&dir);
    let cfg = dir.join("gpu.ron");
    let mi210 = std::fs::read_to_string(cli::root().join("configs/mi210.ron")).unwrap();
    std::fs::write(&cfg, &mi210).unwrap();
    let body = |cus: &str| {
        format!(
            r#"Sweep(gpu: "gpu.ron", mode: Functional, workloads: [Spec(name: "vadd", path: "vadd.ron", params: {{"n": 1024}})], axes: [Axis(field: "compute_units", values: [{cus}])], metrics: ["instructions"])"#
        )
    };
    let p = plan(&dir, "p.ron", &body("52"));
    let out = s(&dir.join("out"));
    let (code, _, err) = hipscope(&["sweep", &p, "--out", &out]);
    assert_eq!(code, 0, "{err}");
    let q = plan(&dir, "q.ron", &body("104"));
    fails(&["sweep", &q, "--out", &out], "plan.json: holds the results of another plan");
    std::fs::write(&cfg, mi210.replacen("compute_units: 104,", "compute_units: 100,", 1)).unwrap();
    fails(&["sweep", &p, "--out", &out], "plan.json: the base GPU config (gpu.ron) changed since these results were made");
    // A results directory of a version whose hash did not cover the files: the plan.json that
    // hipscope wrote for reports/sweeps/vcopy-l2-mi210 before it did (kept in tests/sweeps).
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::copy(cli::root().join("tests/sweeps/vcopy-l2-mi210-plan-v1.json"), old.join("plan.json")).unwrap();
    fails(&["sweep", "workloads/sweeps/vcopy-l2-mi210.ron", "--out", &s(&old)], "results of this plan by an earlier hipscope");
    let _ = std::fs::remove_dir_all(dir);
}
