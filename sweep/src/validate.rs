//! What a plan must be beyond what its types say, checked before anything runs: names that
//! can label rows and name plot files, seeds and metrics each once, metrics some workload
//! gives, scope-suite names the suite has, litmus run counts within [`MAX_LITMUS_RUNS`], every
//! config field on one axis only, and a point count within [`crate::points::MAX_POINTS`]
//! (counted arithmetically, nothing expanded). Each error is one line naming the field.

use crate::metrics::{Metric, Source};
use crate::plan::{Axis, Plan, Value, Workload};
use std::collections::{BTreeMap, BTreeSet};

/// Longest workload name: it labels rows and plot lines and is part of plot file names.
pub const MAX_NAME_CHARS: usize = 64;
/// Longest plot title.
pub const MAX_TITLE_CHARS: usize = 200;
/// Most runs of a litmus test per point. The hardware layer takes about 0.3 ms per run of a
/// small test (`hipscope grade --runs 1000` on MI210: 0.3 s), so this is minutes per point.
pub const MAX_LITMUS_RUNS: u64 = 1_000_000;

/// Check `plan` (see the module documentation).
pub fn check(plan: &Plan) -> Result<(), String> {
    if let Some(t) = &plan.title {
        if t.chars().count() > MAX_TITLE_CHARS || t.chars().any(char::is_control) {
            return Err(format!("title: at most {MAX_TITLE_CHARS} characters on one line"));
        }
    }
    plain("gpu", &plan.gpu)?;
    workloads(plan)?;
    if plan.seeds.is_empty() {
        return Err("seeds: empty (give at least one seed)".into());
    }
    let mut seen = BTreeSet::new();
    if let Some((i, s)) = plan.seeds.iter().enumerate().find(|(_, s)| !seen.insert(**s)) {
        return Err(format!("seeds[{i}]: {s} again (each seed once: a point is deterministic by its seed)"));
    }
    metrics(plan)?;
    sample(plan)?;
    axes(plan)?;
    crate::points::count(plan)?;
    Ok(())
}

/// `sample`: a policy's name, and sampling only where there is simulated time of kernel
/// launches to predict (timing mode; launch specs and programs, not the scope suite's or a
/// litmus test's counts).
pub fn sample(plan: &Plan) -> Result<(), String> {
    let Some(name) = &plan.sample else { return Ok(()) };
    let policy = hipscope_sim::sample::SamplePolicy::parse(name)
        .ok_or_else(|| format!("sample \"{}\": one of off, on, kernels, work-groups, skip", name.escape_debug()))?;
    if !policy.any() {
        return Ok(());
    }
    if !plan.mode.is_timing() {
        return Err(format!("sample \"{name}\": sampling predicts simulated time; the plan's mode is Functional"));
    }
    if let Some((i, w)) = plan.workloads.iter().enumerate().find(|(_, w)| w.gives() != Source::Kernels) {
        return Err(format!("sample \"{name}\": workloads[{i}] ({}) has no kernel launches to sample (only Spec and Exec workloads do)", w.name()));
    }
    Ok(())
}

/// Text that is quoted in messages and labels must be one line of printable characters.
fn plain(field: &str, text: &str) -> Result<(), String> {
    if text.chars().any(char::is_control) {
        return Err(format!("{field} \"{}\": control characters (such as a line break) in it", text.escape_debug()));
    }
    Ok(())
}

/// Names, files and the per-kind fields of the workloads.
fn workloads(plan: &Plan) -> Result<(), String> {
    if plan.workloads.is_empty() {
        return Err("workloads: empty (name at least one workload)".into());
    }
    let mut names = BTreeMap::new();
    for (i, w) in plan.workloads.iter().enumerate() {
        let name = w.name();
        let fits = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if name.is_empty() || name.chars().count() > MAX_NAME_CHARS || !name.chars().all(fits) {
            return Err(format!(
                "workloads[{i}].name \"{}\": use 1 to {MAX_NAME_CHARS} letters, digits, '_' and '-' (it labels rows and names plot files)",
                name.escape_debug()
            ));
        }
        if let Some(first) = names.insert(name, i) {
            return Err(format!("workloads[{i}]: the name \"{name}\" again (also workloads[{first}])"));
        }
        match w {
            Workload::Spec { path: f, .. } | Workload::Litmus { path: f, .. } | Workload::Exec { program: f, .. } if f.is_empty() => {
                return Err(format!("workloads[{i}] ({name}): an empty file name"));
            }
            Workload::Spec { path: f, .. } | Workload::Litmus { path: f, .. } | Workload::Exec { program: f, .. } if f.chars().any(char::is_control) => {
                plain(&format!("workloads[{i}] ({name}) file name"), f)?;
            }
            Workload::Spec { code_object: Some(c), .. } if c.chars().any(char::is_control) => {
                plain(&format!("workloads[{i}] ({name}).code_object"), c)?;
            }
            Workload::Litmus { runs, .. } if !(1..=MAX_LITMUS_RUNS).contains(runs) => {
                return Err(format!("workloads[{i}].runs: {runs} (from 1 to {MAX_LITMUS_RUNS})"));
            }
            Workload::Scopes { ops, scopes, footprints, contentions, .. } => {
                scope_lists(ops, scopes, footprints, contentions).map_err(|e| format!("workloads[{i}] ({name}).{e}"))?;
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `Scopes` workload's lists name what the suite has (an unknown name would select nothing
/// and leave its metrics empty).
fn scope_lists(ops: &[String], scopes: &[String], footprints: &[u64], contentions: &[String]) -> Result<(), String> {
    use hipscope_studies::scopes::{Contention, FOOTPRINTS, OPS, SCOPES};
    let op_names: Vec<&str> = OPS.iter().map(|o| o.name).chain(["ping_pong"]).collect();
    let scope_names: Vec<&str> = SCOPES.iter().map(|s| s.name()).collect();
    let contention_names: Vec<&str> = Contention::ALL.iter().map(|c| c.name()).chain(crate::metrics::PING_PONG_PLACEMENTS).collect();
    let known = |field: &str, list: &[String], names: &[&str]| -> Result<(), String> {
        match list.iter().enumerate().find(|(_, x)| !names.contains(&x.as_str())) {
            Some((j, x)) => Err(format!("{field}[{j}]: no \"{}\" in the scope suite ({})", x.escape_debug(), names.join(", "))),
            None => Ok(()),
        }
    };
    known("ops", ops, &op_names)?;
    known("scopes", scopes, &scope_names)?;
    known("contentions", contentions, &contention_names)?;
    if let Some((j, f)) = footprints.iter().enumerate().find(|(_, f)| !FOOTPRINTS.contains(f)) {
        let all: Vec<String> = FOOTPRINTS.iter().map(u64::to_string).collect();
        return Err(format!("footprints[{j}]: the suite has no footprint of {f} bytes ({})", all.join(", ")));
    }
    Ok(())
}

/// Each metric parses, appears once, and some workload gives it.
fn metrics(plan: &Plan) -> Result<(), String> {
    if plan.metrics.is_empty() {
        return Err("metrics: empty (name at least one metric)".into());
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (i, text) in plan.metrics.iter().enumerate() {
        plain(&format!("metrics[{i}]"), text)?;
        let m = Metric::parse(text).map_err(|e| format!("metrics[{i}]: {e}"))?;
        if let Some(first) = seen.insert(m.to_string(), i) {
            return Err(format!("metrics[{i}]: {m} again (also metrics[{first}])"));
        }
        if !plan.workloads.iter().any(|w| gives(w, &m)) {
            let why = if m.source() == Source::Scopes { " (no Scopes workload's ops, scopes, footprints and contentions include it)" } else { "" };
            return Err(format!("metrics[{i}]: no workload gives {m}{why}"));
        }
    }
    Ok(())
}

/// Whether `w` measures `m`.
fn gives(w: &Workload, m: &Metric) -> bool {
    if w.gives() != m.source() {
        return false;
    }
    let (Workload::Scopes { ops, scopes, footprints, contentions, .. }, Metric::Scope { op, scope, footprint, contention }) = (w, m) else {
        return true;
    };
    let any = |list: &[String], x: &str| list.is_empty() || list.iter().any(|l| l == x);
    // Ping-pong rows have no footprint (the suite records 0) and are kept whatever the list.
    let footprint_kept = footprints.is_empty() || footprints.contains(footprint) || op == "ping_pong";
    any(ops, op) && any(scopes, scope) && any(contentions, contention) && footprint_kept
}

/// Every config field on one axis only, each axis well formed.
fn axes(plan: &Plan) -> Result<(), String> {
    let mut fields: BTreeMap<&str, String> = BTreeMap::new();
    for (i, a) in plan.axes.iter().enumerate() {
        let mut leaves = Vec::new();
        collect_leaves(a, &format!("axes[{i}]"), &mut leaves);
        for (at, field, values) in leaves {
            let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
            if field.is_empty() || !field.split('.').all(|part| !part.is_empty() && part.chars().all(word)) {
                return Err(format!("{at}.field \"{}\": name a config field by its path, such as timing.l2.size_bytes", field.escape_debug()));
            }
            for v in values {
                if let Value::Text(t) = v {
                    plain(&format!("{at} ({field}) value"), t)?;
                }
            }
            if let Some(first) = fields.insert(field, at.clone()) {
                return Err(format!("{at}: {field} is also set by {first} (a field can be on one axis only)"));
            }
        }
        crate::points::axis_len(a, &format!("axes[{i}]"))?;
    }
    Ok(())
}

/// The (position, field, values as written) of every axis inside `a` (itself, or its zipped
/// axes).
fn collect_leaves<'a>(a: &'a Axis, at: &str, out: &mut Vec<(String, &'a str, Vec<&'a Value>)>) {
    match a {
        Axis::Axis { field, values } => out.push((at.to_string(), field, values.iter().collect())),
        Axis::Range { field, start, end, step } => out.push((at.to_string(), field, vec![start, end, step])),
        Axis::Zip(parts) => {
            for (j, p) in parts.iter().enumerate() {
                collect_leaves(p, &format!("{at}[{j}]"), out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::parse;
    use std::path::Path;

    /// The plan with `workloads`, `extra` fields and `metrics` must be refused with `want`.
    fn bad(workloads: &str, extra: &str, metrics: &str, want: &str) {
        let text = format!(r#"Sweep(gpu: "mi210", workloads: [{workloads}], {extra} metrics: [{metrics}])"#);
        let e = parse(&text, Path::new("p.ron")).expect_err(&text).to_string();
        assert!(e.starts_with("p.ron: ") && e.contains(want) && !e.contains('\n'), "{e}\nwanted: {want}");
    }

    const SPEC: &str = r#"Spec(name: "v", path: "v.ron")"#;

    #[test]
    fn names_seeds_and_metrics_are_each_once_and_printable() {
        bad(r#"Spec(name: "a b", path: "v.ron")"#, "", r#""cycles""#, "workloads[0].name \"a b\": use 1 to 64 letters");
        bad(r#"Spec(name: "", path: "v.ron")"#, "", r#""cycles""#, "workloads[0].name \"\"");
        bad(&format!(r#"Spec(name: "{}", path: "v.ron")"#, "x".repeat(65)), "", r#""cycles""#, "use 1 to 64");
        bad(
            r#"Spec(name: "a", path: "v.ron"), Litmus(name: "a", path: "t.litmus")"#,
            "",
            r#""cycles""#,
            "workloads[1]: the name \"a\" again (also workloads[0])",
        );
        bad(r#"Spec(name: "a", path: "")"#, "", r#""cycles""#, "an empty file name");
        bad(r#"Spec(name: "a", path: "v\n.ron")"#, "", r#""cycles""#, "control characters");
        bad(SPEC, "seeds: [1, 2, 1],", r#""cycles""#, "seeds[2]: 1 again");
        bad(SPEC, "", r#""cycles", "duration_us", "cycles""#, "metrics[2]: cycles again (also metrics[0])");
        bad(SPEC, "", r#""cycles\n""#, "metrics[0] \"cycles\\n\": control characters");
        bad(SPEC, r#"title: Some("two\nlines"),"#, r#""cycles""#, "title: at most 200 characters on one line");
        bad(SPEC, "", r#""observed""#, "metrics[0]: no workload gives observed");
    }

    #[test]
    fn litmus_runs_and_scope_names_are_checked() {
        let m = r#""observed""#;
        bad(r#"Litmus(name: "t", path: "t.litmus", runs: 0)"#, "", m, "workloads[0].runs: 0 (from 1 to 1000000)");
        bad(r#"Litmus(name: "t", path: "t.litmus", runs: 18446744073709551615)"#, "", m, "runs: 18446744073709551615");
        let s = r#""scope:fence_rel:agent""#;
        bad(r#"Scopes(name: "s", ops: ["fence_rell"])"#, "", s, "workloads[0] (s).ops[0]: no \"fence_rell\" in the scope suite (fence_acq, ");
        bad(r#"Scopes(name: "s", scopes: ["galaxy"])"#, "", s, "scopes[0]: no \"galaxy\"");
        bad(r#"Scopes(name: "s", contentions: ["many"])"#, "", s, "contentions[0]: no \"many\"");
        bad(r#"Scopes(name: "s", footprints: [4096])"#, "", s, "footprints[0]: the suite has no footprint of 4096 bytes (0, 1024, 65536, 1048576)");
        // A metric the workloads' lists leave out would be an empty column.
        bad(r#"Scopes(name: "s", ops: ["fence_acq"])"#, "", s, "metrics[0]: no workload gives scope:fence_rel:agent:0:one_wave (no Scopes workload's");
        bad(r#"Scopes(name: "s", footprints: [1024])"#, "", s, "no workload gives");
        // Kept: an empty list is the whole suite.
        assert!(parse(&format!(r#"Sweep(gpu: "mi210", workloads: [Scopes(name: "s")], metrics: [{s}])"#), Path::new("p.ron")).is_ok());
    }

    #[test]
    fn gpu_and_axis_text_are_one_line() {
        let text = r#"Sweep(gpu: "mi\n210", workloads: [Spec(name: "v", path: "v.ron")], metrics: ["cycles"])"#;
        assert!(parse(text, Path::new("p.ron")).unwrap_err().to_string().contains("gpu \"mi\\n210\": control characters"));
        bad(SPEC, r#"axes: [Axis(field: "mode", values: ["CU\n"])],"#, r#""cycles""#, "axes[0] (mode) value \"CU\\n\": control characters");
    }
}
