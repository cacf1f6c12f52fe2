//! `hipscope sweep --sample`: bad combinations are one-line errors (exit 2); a sampled sweep's
//! results say of every point that it was sampled and carry its estimated error (results.csv,
//! results.json, the merge's summary, the plots' titles); a sampled sweep gives the same bytes
//! with one job or two; and each sampled point's time lies within its stated error of the same
//! point simulated in full (the independent reference). The sampled workload is a real program
//! with many like launches (floydwarshall of `../shared/apps`); without it those parts print
//! `SKIPPED`.

use std::path::{Path, PathBuf};

use crate::cli;
use cli::{code, root, stderr};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hipscope-sweep-sample-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `hipscope ARGS`: exit status, stdout, stderr.
fn hipscope(args: &[&str]) -> (i32, String, String) {
    let o = cli::hipscope(args);
    (code(&o), String::from_utf8_lossy(&o.stdout).into_owned(), stderr(&o))
}

/// A plan file in `dir` with `body` inside `Sweep(...)`.
fn plan(dir: &Path, name: &str, body: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, format!("Sweep(\n{body}\n)\n")).unwrap();
    p.display().to_string()
}

fn refused(args: &[&str], want: &str) {
    let (status, out, err) = hipscope(args);
    assert_eq!(status, 2, "{args:?}: exit {status}\n{out}{err}");
    assert!(err.contains(want), "{args:?}: wanted {want:?} in: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
}

#[test]
fn bad_sampling_combinations_exit_2_with_one_line() {
    let dir = tmp("bad");
    let vadd = root().join("workloads/vadd.ron").display().to_string();
    let spec = format!(r#"workloads: [Spec(name: "vadd", path: "{vadd}", params: {{"n": 1024}})], metrics: ["cycles"],"#);
    let functional = plan(&dir, "functional.ron", &format!(r#"gpu: "mi210", mode: Functional, {spec}"#));
    let out = dir.join("out").display().to_string();
    refused(&["sweep", &functional, "--out", &out, "--sample", "kernels"], "the plan's mode is Functional");
    // The same asked for in the plan itself.
    let in_plan = plan(&dir, "in-plan.ron", &format!(r#"gpu: "mi210", mode: Functional, sample: Some("on"), {spec}"#));
    refused(&["sweep", &in_plan, "--out", &out], "sample \"on\"");
    let scopes = plan(&dir, "scopes.ron", r#"gpu: "mi210", workloads: [Scopes(name: "s")], metrics: ["scope:fence_rel:agent"],"#);
    refused(&["sweep", &scopes, "--out", &out, "--sample", "on"], "workloads[0] (s) has no kernel launches to sample");
    let unknown = plan(&dir, "unknown.ron", &format!(r#"gpu: "mi210", sample: Some("often"), {spec}"#));
    refused(&["sweep", &unknown, "--out", &out], "sample \"often\": one of off, on, kernels, work-groups");
    let (status, _, err) = hipscope(&["sweep", &unknown, "--out", &out, "--sample", "sometimes"]);
    assert_eq!(status, 2, "{err}");
    let (status, _, err) = hipscope(&["sweep", "merge", &out, "--sample", "kernels"]);
    assert_eq!(status, 2, "merge samples nothing: {err}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The floydwarshall program, or `None` (SKIPPED printed).
fn floyd() -> Option<PathBuf> {
    let p = root().join("../shared/apps/mgpusim-gpu-perf/bin/floydwarshall");
    if p.is_file() {
        Some(p)
    } else {
        println!("SKIPPED: {} not found (the benchmark programs live outside the repository)", p.display());
        None
    }
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{}: {e}", dir.join(file).display()))
}

/// Run the floydwarshall plan into `out` with `extra` flags; stdout of the run.
fn sweep(plan: &str, out: &Path, extra: &[&str]) -> String {
    let o = out.display().to_string();
    let (status, stdout, err) = hipscope(&[&["sweep", plan, "--out", &o][..], extra].concat());
    assert_eq!(status, 0, "sweep {extra:?}: exit {status}\n{stdout}{err}");
    stdout
}

fn points(dir: &Path) -> Vec<serde_json::Value> {
    let doc: serde_json::Value = serde_json::from_str(&read(dir, "results.json")).unwrap();
    doc["points"].as_array().cloned().unwrap_or_default()
}

#[test]
fn sampled_points_say_so_carry_their_error_and_are_deterministic() {
    let Some(bin) = floyd() else { return };
    let dir = tmp("run");
    // Two points (the base config and one with another L2), 64 nodes: 128 like launches.
    let body = format!(
        r#"gpu: "mi300a", workloads: [Exec(name: "floyd", program: "{}", args: ["--nodes", "64", "--iterations", "1"])],
        axes: [Axis(field: "timing.l2.size_bytes", values: ["2 MiB"])], metrics: ["cycles"],"#,
        bin.display()
    );
    let p = plan(&dir, "floyd.ron", &body);
    let (one, two, full) = (dir.join("one"), dir.join("two"), dir.join("full"));
    let said = sweep(&p, &one, &["--sample", "kernels", "--jobs", "1"]);
    sweep(&p, &two, &["--sample", "kernels", "--jobs", "2"]);
    sweep(&p, &full, &["--jobs", "2"]);
    // Deterministic: the same bytes whatever the number of jobs.
    assert_eq!(read(&one, "results.csv"), read(&two, "results.csv"));
    assert_eq!(read(&one, "results.json"), read(&two, "results.json"));
    // Labelled everywhere: the merge's summary, the CSV's columns, the JSON, the plots.
    let sampled = points(&one);
    assert!(said.contains(&format!("sampled: {n} of {n} point(s)", n = sampled.len())), "{said}");
    let csv = read(&one, "results.csv");
    let head: Vec<&str> = csv.lines().next().unwrap_or_default().split(',').collect();
    assert!(head.ends_with(&["sampled", "sample_error_percent"]), "{csv}");
    assert!(csv.lines().skip(1).all(|l| l.contains("sampled (kernels): ")), "{csv}");
    assert!(read(&one, "plots/cycles.svg").contains("sampled: 2 of 2 points"), "the plot's title says sampled");
    // The unsampled sweep has none of it.
    assert!(!read(&full, "results.csv").contains("sampled"));
    assert!(points(&full).iter().all(|p| p.get("sampled").is_none()));
    for (s, f) in sampled.iter().zip(points(&full)) {
        assert_eq!(s["params"], f["params"]);
        let info = &s["sampled"];
        assert_eq!(info["policy"], "kernels");
        assert!(info["predicted"].as_u64().unwrap_or(0) > 0, "{info}");
        let error = info["estimated_error_percent"].as_f64().expect("an estimated error");
        let (cs, cf) = (s["metrics"]["cycles"].as_f64().unwrap(), f["metrics"]["cycles"].as_f64().unwrap());
        let measured = 100.0 * (cs - cf).abs() / cf;
        // The stated error must cover the difference from the full simulation.
        assert!(measured <= error, "point {}: sampled {cs} cycles against full {cf}: {measured:.3} % outside ±{error:.3} %", s["point"]);
        println!("point {}: sampled {cs} against full {cf} cycles: {measured:.3} % within ±{error:.3} %", s["point"]);
    }
    let _ = std::fs::remove_dir_all(dir);
}
