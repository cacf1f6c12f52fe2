//! `validate --only apps`: the comparison of whole HIP programs with real MI300A times
//! (`hipscope_studies::validate::apps`) as text, JSON and the report's page.

pub use hipscope_studies::validate::apps::{compare, AppsOutcome, Options, Progress, GPU, TITLE};
use hipscope_studies::validate::apps::{AppRow, Status, ITERATIONS, WMAPE_BAR_PERCENT};

/// The progress bar counts the program runs.
pub struct Bar<'a>(pub &'a indicatif::ProgressBar);

impl Progress for Bar<'_> {
    fn planned(&self, runs: u64) {
        self.0.set_length(self.0.length().unwrap_or(0) + runs);
        self.0.set_message("apps mi300a");
    }

    fn ran(&self) {
        self.0.inc(1);
    }
}

fn status_text(r: &AppRow) -> String {
    match &r.status {
        Status::Simulated(_) => match r.sampled.filter(|s| s.predicted > 0 || s.skipped_any()) {
            Some(s) => {
                let skipped =
                    if s.skipped_any() { format!("; not executed: {} launches, {} work-groups", s.skipped_launches, s.skipped_groups) } else { String::new() };
                format!("simulated, sampled: {} of {} launches predicted, estimated error ±{:.2} %{skipped}", s.predicted, s.launches, s.error_percent)
            }
            None => "simulated".into(),
        },
        Status::Skipped(w) => format!("skipped: {w}"),
        Status::Failed(w) => format!("failed: {w}"),
    }
}

fn pct(v: Option<f64>) -> String {
    v.filter(|e| e.is_finite()).map_or("—".into(), |e| format!("{e:+.1} %"))
}

fn ms(v: Option<f64>) -> String {
    v.map_or("—".into(), |v| format!("{v:.4}"))
}

/// The rule and the definition, for text and the report.
pub fn method(o: &AppsOutcome) -> String {
    format!(
        "Each row of `mi300a-real.csv` (real MI300A, ROCm, hipEvent timing, the mean of 51 timed iterations after one warm-up) is matched to the program's arguments in upstream `run_all.sh` (the printed problem_size; bfs rows of one node count in the script's degree order), then the unmodified program runs under hipscope's HIP runtime on the simulated mi300a in timing mode with `--iterations {ITERATIONS}` (the simulator is deterministic, so one timed iteration after the warm-up is their mean) and its printed avg_ms is compared with the real one. Sampling: a row whose program launches kernels is simulated only if its real time is at most {} ms (simulation cost grows with GPU work); copy-only rows (memcopy) always run; a run is stopped after {} s. Sampled timing (`--sample {}`): launches of one kernel, grid, block and buffer sizes are simulated in detail until five agree within 2 %, later ones are charged their mean (re-checked in detail 16 launches on, then up to 256 apart as the drift seen allows); a row with predicted launches says how many and its estimated error (the spread of its clusters' detailed samples and the drift between them, weighted by predicted time). With `skip` (the default here: these programs never check their results, they print hipEvent times only) predicted launches are not executed at all, and within a detailed launch whose rate has settled the rest of the work-groups is extrapolated without running; such a row's memory is not what the program computes, and its status says how many launches and work-groups were not executed. Skipped and failed rows are listed with the reason and left out of the scores. MAPE = mean over a program's simulated rows of |sim − real| / real. WMAPE = Σ |sim − real| / Σ real over all simulated rows (each row weighted by its real time); bar {WMAPE_BAR_PERCENT:.0} %.",
        if o.max_real_ms.is_finite() { o.max_real_ms.to_string() } else { "∞".into() },
        o.timeout_s,
        o.sample.name()
    )
}

/// What the run cost: "Run: N program runs, J at a time, W s wall, C s CPU, load A → B."
pub fn cost_text(o: &AppsOutcome) -> String {
    let c = &o.cost;
    let cpu = c.cpu_s.map_or(String::new(), |s| format!(", {s:.0} s of CPU (the program runs)"));
    let load = c.load.map_or(String::new(), |(a, b)| format!("; 1-minute load average {a:.1} at the start, {b:.1} at the end"));
    let simulated = o.rows.iter().filter(|r| r.simulated().is_some()).count();
    format!("Run: {simulated} of {} rows simulated, {} program runs at a time, {:.0} s wall{cpu}{load}.", o.rows.len(), c.jobs, c.wall_s)
}

/// Text: the score table, then every row.
pub fn text(o: &AppsOutcome) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(s, "== {TITLE}: {GPU} (every row)");
    let _ = writeln!(
        s,
        "{:<4}  {:<14}  {:<34}  {:>10}  {:>10}  {:>9}  {:>8}  status",
        "line", "kernel_name", "problem_size", "real ms", "sim ms", "error", "CPU s"
    );
    for r in &o.rows {
        let _ = writeln!(
            s,
            "{:<4}  {:<14}  {:<34}  {:>10}  {:>10}  {:>9}  {:>8}  {}",
            r.real.line,
            r.real.kernel_name,
            r.real.problem_size,
            ms(Some(r.real.avg_ms)),
            ms(r.simulated()),
            pct(r.error_percent()),
            cpu(r.cpu_s),
            status_text(r)
        );
    }
    let _ = writeln!(s, "{}", cost_text(o));
    let _ = writeln!(s, "{:<14}  {:>9}  {:>8}  {:>8}", "program", "simulated", "MAPE", "WMAPE");
    for sc in o.scores() {
        let _ = writeln!(s, "{:<14}  {:>5} / {:<3}  {:>8}  {:>8}", sc.name, sc.simulated, sc.total, pct_abs(sc.mape), pct_abs(sc.wmape));
    }
    let _ = writeln!(s);
    s
}

/// A run's CPU seconds (rows of one run repeat it), or a dash.
fn cpu(v: Option<f64>) -> String {
    v.map_or("—".into(), |c| format!("{c:.1}"))
}

fn pct_abs(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.1} %")
    } else {
        "—".into()
    }
}

/// JSON: every row and the scores.
pub fn json(o: &AppsOutcome) -> serde_json::Value {
    use serde_json::json;
    let rows: Vec<_> = o
        .rows
        .iter()
        .map(|r| {
            let (status, why) = match &r.status {
                Status::Simulated(_) => ("simulated", None),
                Status::Skipped(w) => ("skipped", Some(w.as_str())),
                Status::Failed(w) => ("failed", Some(w.as_str())),
            };
            json!({"line": r.real.line, "program": r.program, "kernel_name": r.real.kernel_name, "problem_size": r.real.problem_size, "args": r.args,
                   "real_ms": r.real.avg_ms, "real_min_ms": r.real.min_ms, "real_max_ms": r.real.max_ms, "real_iterations": r.real.iterations, "simulated_ms": r.simulated(), "error_percent": r.error_percent(), "status": status, "reason": why,
                   "sampled": r.sampled.map(|s| s.to_json()), "cpu_s": r.cpu_s})
        })
        .collect();
    let scores: Vec<_> = o
        .scores()
        .iter()
        .map(|s| json!({"program": s.name, "simulated": s.simulated, "rows": s.total, "mape_percent": s.mape.is_finite().then_some(s.mape), "wmape_percent": s.wmape.is_finite().then_some(s.wmape)}))
        .collect();
    json!({"gpu": GPU, "max_real_ms": o.max_real_ms.is_finite().then_some(o.max_real_ms), "sample": o.sample.name(), "timeout_s": o.timeout_s, "iterations": ITERATIONS, "rows": rows, "scores": scores,
           "cost": {"wall_s": o.cost.wall_s, "cpu_s": o.cost.cpu_s, "load_start": o.cost.load.map(|l| l.0), "load_end": o.cost.load.map(|l| l.1), "jobs": o.cost.jobs}})
}

/// The report page (`calibration-apps.md`), linking `plot` (relative to it).
pub fn markdown(o: &AppsOutcome, command: &str, plot: &str) -> String {
    use std::fmt::Write as _;
    let cell = |t: &str| t.replace('|', "\\|");
    let mut s = String::new();
    let _ = writeln!(s, "# Whole programs against real MI300A times\n");
    let _ = writeln!(s, "Written by `{command}` (with `calibration.md`; do not edit by hand). Programs and real times: `../shared/apps/mgpusim-gpu-perf` (provenance in its `SOURCES.md`).\n");
    let _ = writeln!(s, "{}\n", method(o));
    let _ = writeln!(s, "{}\n", cost_text(o));
    let _ = writeln!(s, "| program | simulated rows | MAPE | WMAPE |\n|---|---:|---:|---:|");
    for sc in o.scores() {
        let name = if sc.name == "all" { "**all**".to_string() } else { sc.name.clone() };
        let _ = writeln!(s, "| {name} | {} of {} | {} | {} |", sc.simulated, sc.total, pct_abs(sc.mape), pct_abs(sc.wmape));
    }
    let _ = writeln!(s, "\n![real against simulated, log-log]({plot})\n");
    let _ = writeln!(s, "## Every row\n\n| line | kernel_name | problem_size | arguments | real ms | real min–max ms | simulated ms | error | CPU s | status |\n|---:|---|---|---|---:|---:|---:|---:|---:|---|");
    for r in &o.rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {}–{} | {} | {} | {} | {} |",
            r.real.line,
            cell(&r.real.kernel_name),
            cell(&r.real.problem_size),
            cell(&r.args),
            ms(Some(r.real.avg_ms)),
            ms(Some(r.real.min_ms)),
            ms(Some(r.real.max_ms)),
            ms(r.simulated()),
            pct(r.error_percent()),
            cpu(r.cpu_s),
            cell(&status_text(r))
        );
    }
    s
}

/// (program, real ms, simulated ms) of every simulated row, for the scatter plot.
pub fn points(o: &AppsOutcome) -> Vec<(&'static str, f64, f64)> {
    o.rows.iter().filter_map(|r| r.simulated().map(|s| (r.program, r.real.avg_ms, s))).collect()
}
