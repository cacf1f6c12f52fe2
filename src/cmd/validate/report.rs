//! `--report DIR`: DIR/calibration.md (per dataset and GPU the measured/simulated table, every
//! miss with its reason, the method) and DIR/calibration/*.svg (one plot per curve). The text
//! holds no dates or machine paths, so a rerun on the same model writes the same files.

use super::output::{error_percent, status, value};
use super::{apps, plot, Outcome};
use hipscope_studies::validate::known::{self, Verdict};
use hipscope_studies::validate::registry;
use hipscope_studies::validate::Row;
use std::fmt::Write as _;
use std::path::Path;

const COMMAND: &str = "cargo run --release -- validate --report reports";
/// The apps comparison's page of every row, beside calibration.md.
const APPS_PAGE: &str = "calibration-apps.md";

/// Markdown table cells must not contain `|`.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

/// One GPU's rows: measured, simulated, error, tolerance and verdict per metric.
fn rows_table(s: &mut String, rows: &[(Row, Verdict)]) {
    let _ = writeln!(s, "| case | metric | measured | simulated | error | tolerance | result |\n|---|---|---:|---:|---:|---|---|");
    for (r, v) in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cell(&r.case),
            cell(&r.metric),
            value(r.measured),
            value(r.simulated),
            error_percent(r),
            cell(&r.tolerance.describe(r.measured)),
            status(r, *v)
        );
    }
}

fn plot_name(dataset: &str, gpu: &str, i: usize, of: usize) -> String {
    if of == 1 {
        format!("{dataset}-{gpu}.svg")
    } else {
        format!("{dataset}-{gpu}-{}.svg", i + 1)
    }
}

pub fn write(dir: &Path, o: &Outcome) -> Result<(), String> {
    let plots = dir.join("calibration");
    std::fs::create_dir_all(&plots).map_err(|e| format!("{}: cannot create: {e}", plots.display()))?;
    for (dataset, gpu, curves) in &o.curves {
        for (i, c) in curves.iter().enumerate() {
            plot::write_svg(&plots.join(plot_name(dataset, gpu, i, curves.len())), c)?;
        }
    }
    if let Some(a) = &o.apps {
        let svg = format!("apps-{}.svg", apps::GPU);
        plot::write_scatter(&plots.join(&svg), &format!("{}: real against simulated avg (ms)", apps::GPU), &apps::points(a))?;
        let page = dir.join(APPS_PAGE);
        std::fs::write(&page, apps::markdown(a, COMMAND, &format!("calibration/{svg}"))).map_err(|e| format!("{}: cannot write: {e}", page.display()))?;
    }
    let path = dir.join("calibration.md");
    std::fs::write(&path, markdown(o)).map_err(|e| format!("{}: cannot write: {e}", path.display()))
}

fn markdown(o: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Calibration against real devices\n");
    let _ = writeln!(s, "Written by `{COMMAND}` (do not edit by hand). Measurements: `../shared/device-data` (provenance in its `SOURCES.md`). Simulations run in timing mode with seed 0, so a rerun on the same model writes the same file.\n");
    let _ = writeln!(s, "A row is **ok** when the simulated figure is within the row's tolerance, **MISS** otherwise. Known misses are listed with their reason in `studies/src/validate/known.rs`; the tests and `hipscope validate` fail on any other miss (exit 1).\n");
    let _ = writeln!(s, "| dataset | GPU | rows | ok | known misses | unexpected misses |\n|---|---|---:|---:|---:|---:|");
    for g in &o.groups {
        let n = |f: &dyn Fn(Verdict) -> bool| g.rows.iter().filter(|(_, v)| f(*v)).count();
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} |",
            g.dataset,
            g.gpu,
            g.rows.len(),
            n(&|v| matches!(v, Verdict::Ok | Verdict::FixedKnownMiss(_))),
            n(&|v| matches!(v, Verdict::KnownMiss(_))),
            n(&|v| v == Verdict::Miss)
        );
    }
    let _ = writeln!(s, "| **all** | | {} | {} | {} | {} |\n", o.rows(), o.ok(), o.known_misses(), o.unexpected_misses());
    for d in registry::DATASETS {
        let groups: Vec<_> = o.groups.iter().filter(|g| g.dataset == d.name).collect();
        if groups.is_empty() {
            continue;
        }
        let _ = writeln!(s, "## {}\n\n{}\n", d.title, d.method);
        for g in groups {
            let _ = writeln!(s, "### {}\n", g.gpu);
            rows_table(&mut s, &g.rows);
            let misses: Vec<_> = g.rows.iter().filter(|(_, v)| matches!(v, Verdict::KnownMiss(_) | Verdict::Miss)).collect();
            if !misses.is_empty() {
                let _ = writeln!(s, "\nMisses:\n");
                for (r, v) in misses {
                    let why = match v {
                        Verdict::KnownMiss(k) => k.reason,
                        _ => "not a known miss: a regression to investigate",
                    };
                    let _ = writeln!(
                        s,
                        "- {} {}: measured {}, simulated {} ({}): {why}",
                        r.case,
                        r.metric,
                        value(r.measured),
                        value(r.simulated),
                        error_percent(r)
                    );
                }
            }
            if let Some((_, _, curves)) = o.curves.iter().find(|(ds, gpu, _)| *ds == g.dataset && *gpu == g.gpu) {
                let _ = writeln!(s);
                for (i, c) in curves.iter().enumerate() {
                    let _ = writeln!(s, "![{}](calibration/{})", c.title, plot_name(g.dataset, &g.gpu, i, curves.len()));
                }
            }
            let _ = writeln!(s);
        }
    }
    if let (Some(a), Some(g)) = (&o.apps, o.groups.iter().find(|g| g.dataset == "apps")) {
        let _ = writeln!(s, "## {}\n\n{}\n", apps::TITLE, apps::method(a));
        let _ = writeln!(s, "Every row, with its arguments, and the plot: [{APPS_PAGE}]({APPS_PAGE}).\n");
        let _ = writeln!(s, "### {}\n", g.gpu);
        rows_table(&mut s, &g.rows);
        let _ = writeln!(s);
    }
    let _ = writeln!(s, "## Bars not covered by a dataset\n");
    for u in known::UNCOVERED {
        let _ = writeln!(s, "- **{}**: {}", u.0, u.1);
    }
    let _ = writeln!(s);
    if !o.errors.is_empty() {
        let _ = writeln!(s, "## Comparisons that did not run\n");
        for e in &o.errors {
            let _ = writeln!(s, "- {e}");
        }
    }
    s
}
