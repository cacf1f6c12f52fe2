//! Kernel-level sampled timing (`--sample`) on a real program with many launches
//! (floydwarshall of `../shared/apps/mgpusim-gpu-perf`: one kernel launched once per node per
//! iteration). The independent reference is the full simulation of the same program: the
//! sampled time must come within the sampler's tolerance of it, the program's own output
//! (its result check included) must not change, and sampled runs are deterministic whatever
//! the host thread count. Prints `SKIPPED` without ../shared/apps.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::cli;
use cli::{code, hipscope, root, stderr};

fn program(name: &str) -> Option<PathBuf> {
    let p = root().join("../shared/apps/mgpusim-gpu-perf/bin").join(name);
    if p.is_file() {
        Some(p)
    } else {
        println!("SKIPPED: {} not found (the benchmark programs live outside the repository)", p.display());
        None
    }
}

/// `hipscope exec` of floydwarshall on 64 nodes in timing mode with `sample` flags and
/// RAYON_NUM_THREADS=`threads`.
fn floyd(bin: &std::path::Path, sample: &[&str], threads: &str) -> Output {
    let mut args = vec!["exec", "--gpu", "mi300a", "--mode", "timing"];
    args.extend_from_slice(sample);
    let bin = bin.to_string_lossy().into_owned();
    args.extend_from_slice(&["--", &bin, "--nodes", "64", "--iterations", "1"]);
    Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(root()).env("RAYON_NUM_THREADS", threads).args(&args).output().expect("run hipscope")
}

/// The program's printed avg_ms.
fn avg_ms(o: &Output) -> f64 {
    let out = String::from_utf8_lossy(&o.stdout);
    let row = out.lines().find(|l| l.starts_with("floydwarshall,")).unwrap_or_else(|| panic!("no result row in {out}"));
    row.split(',').nth(3).and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("no avg_ms in {row}"))
}

/// stdout without the timing row: what the program computed and checked.
fn results(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.starts_with("floydwarshall,")).collect::<Vec<_>>().join("\n")
}

#[test]
fn sampled_time_is_within_tolerance_of_full_and_results_do_not_change() {
    let Some(bin) = program("floydwarshall") else { return };
    let full = floyd(&bin, &[], "1");
    assert_eq!(code(&full), 0, "{}", stderr(&full));
    let sampled = floyd(&bin, &["--sample", "on"], "1");
    assert_eq!(code(&sampled), 0, "{}", stderr(&sampled));
    let err = stderr(&sampled);
    let line = err.lines().find(|l| l.starts_with("hipscope: sampled: ")).unwrap_or_else(|| panic!("no sampling line: {err}"));
    let summary = hipscope_sim::sample::SampleSummary::parse_line(line.trim_start_matches("hipscope: ")).expect("the line parses");
    assert!(summary.predicted > 0, "{line}");
    let (f, s) = (avg_ms(&full), avg_ms(&sampled));
    let diff = 100.0 * (s - f).abs() / f;
    // The sampler holds each predicted cluster within 2 % (sample::TOLERANCE) of its detailed
    // launches; the run's time may differ from the full one by no more.
    assert!(diff <= 100.0 * hipscope_sim::sample::TOLERANCE, "sampled {s} ms against full {f} ms: {diff:.2} % ({line})");
    // Memory stays exact: the program's own output, its result check included, is the same.
    assert_eq!(results(&full), results(&sampled));
    // Unsampled is the default: no sampling line, same bytes as `--sample off`.
    let off = floyd(&bin, &["--sample", "off"], "1");
    assert_eq!(off.stdout, full.stdout);
    assert_eq!(off.stderr, full.stderr);
    assert!(!stderr(&full).contains("sampled:"));
}

#[test]
fn sampled_runs_are_deterministic_across_thread_counts() {
    let Some(bin) = program("floydwarshall") else { return };
    let one = floyd(&bin, &["--sample", "on"], "1");
    let two = floyd(&bin, &["--sample", "on"], "2");
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert_eq!(one.stdout, two.stdout);
    assert_eq!(one.stderr, two.stderr);
}

#[test]
fn sampling_a_functional_run_is_refused() {
    let o = hipscope(&["exec", "--mode", "functional", "--sample", "on", "--", "true"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("--sample"), "{}", stderr(&o));
}

/// The cycles of each launch in a `--report` file (`None`: an untimed warm-up), and its
/// `sampled` summary if any.
fn report_cycles(path: &std::path::Path) -> (Vec<Option<f64>>, Option<serde_json::Value>) {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).expect("the report")).expect("JSON");
    let cycles = doc["launches"].as_array().into_iter().flatten().map(|l| l["cycles"].as_f64()).collect();
    (cycles, doc.get("sampled").cloned())
}

/// The total cycles of the launches `timed` timed, in `full` and in `timed`: a sampled run's
/// warm-up launches are untimed, and the estimate speaks of the rest.
fn timed_totals(full: &[Option<f64>], timed: &[Option<f64>]) -> (f64, f64) {
    assert_eq!(full.len(), timed.len(), "the same launches");
    let pairs = full.iter().zip(timed).filter_map(|(f, t)| Some((f.expect("full detail times every launch"), (*t)?)));
    pairs.fold((0.0, 0.0), |(a, b), (f, t)| (a + f, b + t))
}

/// The estimated error against the measured one on several programs at small sizes: the
/// sampled run's total cycles must differ from the full simulation's (the independent
/// reference) by no more than the printed estimate, and the estimate must not be vacuous
/// (under 10 %, where the largest deviation ever seen printed ±7 to ±23 % on these programs).
#[test]
fn the_estimated_error_covers_the_measured_difference_on_several_programs() {
    // floydwarshall 256: 512 launches of one cluster, long enough that its re-checks grow
    // rare (up to sample::RECHECK_MAX apart), where drift between them goes unseen longest.
    let cases: [(&str, &[&str]); 4] = [
        ("floydwarshall", &["--nodes", "64"]),
        ("bitonicsort", &["--size", "8192"]),
        ("fastwalshtransform", &["--size", "65536"]),
        ("floydwarshall", &["--nodes", "256"]),
    ];
    let dir = std::env::temp_dir().join(format!("hipscope-sample-estimate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    for (name, args) in cases {
        let Some(bin) = program(name) else { continue };
        let run = |sample: &str| {
            let report = dir.join(format!("{name}-{}-{sample}.json", args.join("")));
            let bin = bin.to_string_lossy().into_owned();
            let mut a = vec!["exec", "--gpu", "mi300a", "--mode", "timing", "--sample", sample, "--report"];
            let r = report.to_string_lossy().into_owned();
            a.push(&r);
            a.extend_from_slice(&["--", &bin]);
            a.extend_from_slice(args);
            a.extend_from_slice(&["--iterations", "1"]);
            let o = Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(root()).args(&a).output().expect("run hipscope");
            assert_eq!(code(&o), 0, "{name} --sample {sample}: {}", stderr(&o));
            report_cycles(&report)
        };
        let (full, _) = run("off");
        let (sampled, summary) = run("kernels");
        let (full, sampled) = timed_totals(&full, &sampled);
        let summary = summary.unwrap_or_else(|| panic!("{name}: no sampled summary in the report"));
        let error = summary["estimated_error_percent"].as_f64().expect("an estimate");
        let measured = 100.0 * (sampled - full).abs() / full;
        println!("{name} {args:?}: sampled {sampled} against full {full} cycles: {measured:.3} %, estimated ±{error:.3} % ({})", summary["summary"]);
        if summary["predicted"].as_u64().unwrap_or(0) == 0 {
            // Nothing predicted: the run is the full one.
            assert_eq!(sampled, full, "{name}");
            continue;
        }
        assert!(measured <= error, "{name}: measured {measured:.3} % outside the estimate ±{error:.3} %");
        assert!(error < 10.0, "{name}: an estimate of ±{error:.3} % says little");
    }
    let _ = std::fs::remove_dir_all(dir);
}

/// A benchmark's warm-up pass (its launches after it created its events and before it recorded
/// one) runs functionally and untimed with sampling on: the summary counts as many warm-up
/// launches as the timed pass makes (runBenchmark runs the work once untimed, then once per
/// iteration), the program prints the time of the full simulation (the independent
/// reference: nothing it measures is predicted here, so within the sampler's tolerance), and
/// its output is the same.
/// On a GPU without a MALL (mi210) there are no warm-ups: the functional engine would leave
/// the last-level cache cold.
#[test]
fn a_warm_up_pass_runs_functionally_and_the_timed_pass_keeps_its_time() {
    let cases = [
        ("mi300a", "nw", ["--size", "512"]),
        ("mi300a", "stencil2d", ["--size", "1024"]),
        ("mi300a", "atax", ["--size", "1024"]),
        ("mi210", "nw", ["--size", "512"]),
    ];
    for (gpu, name, args) in cases {
        let Some(bin) = program(name) else { return };
        let run = |sample: &str| {
            let bin = bin.to_string_lossy().into_owned();
            let mut a = vec!["exec", "--gpu", gpu, "--mode", "timing", "--sample", sample, "--", &bin];
            a.extend_from_slice(&args);
            a.extend_from_slice(&["--iterations", "1"]);
            let o = Command::new(env!("CARGO_BIN_EXE_hipscope")).current_dir(root()).args(&a).output().expect("run hipscope");
            assert_eq!(code(&o), 0, "{name} --sample {sample}: {}", stderr(&o));
            o
        };
        let (full, sampled) = (run("off"), run("on"));
        let err = stderr(&sampled);
        let line = err.lines().find_map(|l| l.strip_prefix("hipscope: sampled: ")).unwrap_or_else(|| panic!("{name}: no sampling line: {err}"));
        let summary = hipscope_sim::sample::SampleSummary::parse_line(&format!("sampled: {line}")).expect("the line parses");
        let has_mall = gpu != "mi210";
        assert_eq!(summary.warm_ups, if has_mall { summary.launches } else { 0 }, "{gpu} {name}: {line}");
        let ms = |o: &Output| {
            let out = String::from_utf8_lossy(&o.stdout);
            let row = out.lines().find(|l| l.starts_with(&format!("{name},"))).map(str::to_string);
            row.and_then(|r| r.split(',').nth(3)?.parse::<f64>().ok()).unwrap_or_else(|| panic!("{name}: no avg_ms in {out}"))
        };
        let (f, s) = (ms(&full), ms(&sampled));
        let diff = 100.0 * (s - f).abs() / f;
        println!("{gpu} {name} {args:?}: full {f} ms, sampled {s} ms ({diff:.2} %): {line}");
        assert!(diff <= 100.0 * hipscope_sim::sample::TOLERANCE, "{gpu} {name}: {s} ms against {f} ms in full detail");
        let rest = |o: &Output| String::from_utf8_lossy(&o.stdout).lines().filter(|l| !l.starts_with(&format!("{name},"))).collect::<Vec<_>>().join("\n");
        assert_eq!(rest(&full), rest(&sampled), "{name}: the program's output");
    }
}
