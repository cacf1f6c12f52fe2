//! Text and JSON output of `hipscope validate`.

use super::Outcome;
use hipscope_studies::validate::known::Verdict;
use hipscope_studies::validate::Row;
use serde_json::{json, Value};
use std::fmt::Write as _;

/// Counts print whole; fractional figures (cycles, ns) with one decimal.
pub fn value(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

pub fn error_percent(r: &Row) -> String {
    let e = r.error_percent();
    if e.is_finite() {
        format!("{e:+.1} %")
    } else {
        "—".into()
    }
}

/// `ok`, `MISS`, `MISS (known)`, `ok (listed as known miss)`, `—` for figures not judged.
pub fn status(r: &Row, v: Verdict) -> &'static str {
    match v {
        _ if matches!(r.tolerance, hipscope_studies::validate::Tolerance::NotJudged) => "—",
        Verdict::Ok => "ok",
        Verdict::KnownMiss(_) => "MISS (known)",
        Verdict::Miss => "MISS",
        Verdict::FixedKnownMiss(_) => "ok (listed as known miss)",
    }
}

pub fn text(o: &Outcome) -> String {
    let mut s = String::new();
    for g in &o.groups {
        let _ = writeln!(s, "== {}: {}", g.title, g.gpu);
        let cw = g.rows.iter().map(|(r, _)| r.case.chars().count()).max().unwrap_or(4).max(4);
        let mw = g.rows.iter().map(|(r, _)| r.metric.chars().count()).max().unwrap_or(6).max(6);
        let _ = writeln!(s, "{:<cw$}  {:<mw$}  {:>12}  {:>12}  {:>9}  {:<16}  result", "case", "metric", "measured", "simulated", "error", "tolerance");
        for (r, v) in &g.rows {
            let _ = writeln!(
                s,
                "{:<cw$}  {:<mw$}  {:>12}  {:>12}  {:>9}  {:<16}  {}",
                r.case,
                r.metric,
                value(r.measured),
                value(r.simulated),
                error_percent(r),
                r.tolerance.describe(r.measured),
                status(r, *v)
            );
        }
        for (r, v) in &g.rows {
            match v {
                Verdict::KnownMiss(k) => {
                    let _ = writeln!(s, "  known miss, {} {}: {}", r.case, r.metric, k.reason);
                }
                Verdict::FixedKnownMiss(_) => {
                    let _ = writeln!(s, "  {} {} now passes: remove it from the known misses (studies/src/validate/known.rs)", r.case, r.metric);
                }
                _ => {}
            }
        }
        let _ = writeln!(s);
    }
    if let Some(a) = &o.apps {
        s.push_str(&super::apps::text(a));
    }
    for e in &o.errors {
        let _ = writeln!(s, "error: {e}");
    }
    let _ = writeln!(s, "summary: {} rows: {} ok, {} known misses, {} unexpected misses", o.rows(), o.ok(), o.known_misses(), o.unexpected_misses());
    s
}

pub fn json(o: &Outcome) -> String {
    let groups: Vec<Value> = o
        .groups
        .iter()
        .map(|g| {
            let rows: Vec<Value> = g
                .rows
                .iter()
                .map(|(r, v)| {
                    let e = r.error_percent();
                    let known = match v {
                        Verdict::KnownMiss(k) | Verdict::FixedKnownMiss(k) => Some(k.reason),
                        _ => None,
                    };
                    json!({
                        "case": r.case,
                        "metric": r.metric,
                        "measured": r.measured,
                        "simulated": r.simulated,
                        "error_percent": if e.is_finite() { Some(e) } else { None },
                        "tolerance": r.tolerance.describe(r.measured),
                        "ok": r.ok(),
                        "known_miss": known,
                        "unexpected": *v == Verdict::Miss,
                    })
                })
                .collect();
            json!({"dataset": g.dataset, "title": g.title, "gpu": g.gpu, "rows": rows})
        })
        .collect();
    let v = json!({
        "groups": groups,
        "errors": o.errors,
        "apps": o.apps.as_ref().map(super::apps::json),
        "summary": {
            "rows": o.rows(),
            "ok": o.ok(),
            "known_misses": o.known_misses(),
            "unexpected_misses": o.unexpected_misses(),
            "stale_known_misses": o.stale_known_misses(),
        },
    });
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}
