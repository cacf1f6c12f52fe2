//! A plan's points in their fixed order, and the GPU config of each.
//!
//! Order: first every workload × seed on the base config (the reference of speed-ups), then for
//! each workload every combination of the axes (the first axis varying slowest) × seeds. A
//! point's config is the base config with the combination's fields set, written through the
//! config's own serde form, so a field path that does not exist or a value of the wrong type
//! is caught and named; every config is checked as a config file would be before anything
//! runs.

use crate::plan::{Axis, Plan, PlanError, Value};
use hipscope_sim::gpus::GpuConfig;
use serde::Serialize;
use std::path::Path;

/// One simulation to run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub index: usize,
    /// Index in the plan's workloads.
    pub workload: usize,
    pub seed: u64,
    /// The base config (no field changed).
    pub base: bool,
    /// (field path, value) set on the base config, in axis order.
    pub params: Vec<(String, Value)>,
}

/// The fields an axis sets and their values, one row per position.
struct Columns {
    fields: Vec<String>,
    rows: Vec<Vec<Value>>,
}

/// Every point of `plan`, each config checked. `file` names the plan in errors.
pub fn expand(plan: &Plan, base: &GpuConfig, file: &Path) -> Result<Vec<Point>, PlanError> {
    let err = |m: String| PlanError::new(file, m);
    let columns: Vec<Columns> = plan.axes.iter().enumerate().map(|(i, a)| columns(a, &format!("axes[{i}]"))).collect::<Result<_, _>>().map_err(err)?;
    let mut combos: Vec<Vec<(String, Value)>> = vec![Vec::new()];
    for c in &columns {
        let mut next = Vec::with_capacity(combos.len() * c.rows.len());
        for combo in &combos {
            for row in &c.rows {
                let mut p = combo.clone();
                p.extend(c.fields.iter().cloned().zip(row.iter().cloned()));
                next.push(p);
            }
        }
        combos = next;
    }
    // Each value alone first, so an error names the axis and value that cause it.
    for (i, c) in columns.iter().enumerate() {
        for (f, field) in c.fields.iter().enumerate() {
            for (j, row) in c.rows.iter().enumerate() {
                let at = format!("axes[{i}] {field} = {}", row[f].label());
                configure(base, &[(field.clone(), row[f].clone())]).map_err(|e| err(format!("{at} (value {j}): {e}")))?;
            }
        }
    }
    for (k, combo) in combos.iter().enumerate() {
        configure(base, combo).map_err(|e| err(format!("point {} ({}): {e}", plan.workloads.len() * plan.seeds.len() + k, describe(combo))))?;
    }
    let mut points = Vec::new();
    for w in 0..plan.workloads.len() {
        for &seed in &plan.seeds {
            points.push(Point { index: points.len(), workload: w, seed, base: true, params: Vec::new() });
        }
    }
    for w in 0..plan.workloads.len() {
        for combo in &combos {
            for &seed in &plan.seeds {
                points.push(Point { index: points.len(), workload: w, seed, base: false, params: combo.clone() });
            }
        }
    }
    Ok(points)
}

/// `field=value, field=value`.
pub fn describe(params: &[(String, Value)]) -> String {
    if params.is_empty() {
        return "base config".into();
    }
    params.iter().map(|(f, v)| format!("{f}={}", v.label())).collect::<Vec<_>>().join(", ")
}

fn columns(axis: &Axis, at: &str) -> Result<Columns, String> {
    match axis {
        Axis::Axis { field, values } => {
            if values.is_empty() {
                return Err(format!("{at}.values: empty axis for {field}"));
            }
            Ok(Columns { fields: vec![field.clone()], rows: values.iter().map(|v| vec![v.clone()]).collect() })
        }
        Axis::Range { field, start, end, step } => {
            let values = range(start, end, step).map_err(|e| format!("{at} ({field}): {e}"))?;
            Ok(Columns { fields: vec![field.clone()], rows: values.into_iter().map(|v| vec![v]).collect() })
        }
        Axis::Zip(axes) => {
            if axes.is_empty() {
                return Err(format!("{at}: Zip of no axes"));
            }
            let parts: Vec<Columns> = axes.iter().enumerate().map(|(i, a)| columns(a, &format!("{at}[{i}]"))).collect::<Result<_, _>>()?;
            let n = parts[0].rows.len();
            if let Some((i, p)) = parts.iter().enumerate().find(|(_, p)| p.rows.len() != n) {
                return Err(format!("{at}[{i}]: {} values, but {at}[0] has {n}: zipped axes move together and need as many values each", p.rows.len()));
            }
            let fields = parts.iter().flat_map(|p| p.fields.iter().cloned()).collect();
            let rows = (0..n).map(|r| parts.iter().flat_map(|p| p.rows[r].iter().cloned()).collect()).collect();
            Ok(Columns { fields, rows })
        }
    }
}

/// Points of a range, at most this many (a typo in a step should not make a billion points).
const MAX_RANGE: usize = 100_000;

fn range(start: &Value, end: &Value, step: &Value) -> Result<Vec<Value>, String> {
    let num = |v: &Value, what: &str| v.number().ok_or_else(|| format!("{what} \"{}\" is not a number", v.label()));
    let (a, b, s) = (num(start, "start")?, num(end, "end")?, num(step, "step")?);
    if s <= 0.0 || !s.is_finite() {
        return Err(format!("step {s} must be positive"));
    }
    if b < a {
        return Err(format!("empty axis: end {b} is below start {a}"));
    }
    let count = ((b - a) / s).floor() as usize + 1;
    if count > MAX_RANGE {
        return Err(format!("{count} values; at most {MAX_RANGE}"));
    }
    let ints = [start, end, step].iter().all(|v| !matches!(v, Value::Float(_)));
    Ok((0..count)
        .map(|i| {
            let x = a + s * i as f64;
            if ints {
                Value::Int(x.round() as i64)
            } else {
                Value::Float(x)
            }
        })
        .collect())
}

/// The base config with `params` set (each a field path and value), checked as a config file
/// would be. The error names the field.
pub fn configure(base: &GpuConfig, params: &[(String, Value)]) -> Result<GpuConfig, String> {
    let mut tree = serde_json::to_value(base).map_err(|e| format!("the base config: {e}"))?;
    for (field, value) in params {
        set(&mut tree, field, value.to_json())?;
    }
    let mut cfg: GpuConfig = serde_path_to_error::deserialize(tree).map_err(|e| {
        let path = e.path().to_string();
        format!("{}: {}", if path == "." { "the config".to_string() } else { path }, e.inner())
    })?;
    cfg.origin = format!("{} with {}", base.origin, describe(params));
    cfg.check().map_err(|e| e.to_string())?;
    Ok(cfg)
}

/// Set `tree`'s field at `path` (`timing.l2.size_bytes`); the field must exist.
fn set(tree: &mut serde_json::Value, path: &str, value: serde_json::Value) -> Result<(), String> {
    let mut node = tree;
    let mut walked = Vec::new();
    for part in path.split('.') {
        let here = if walked.is_empty() { "the config".to_string() } else { walked.join(".") };
        let obj = node.as_object_mut().ok_or_else(|| format!("{path}: {here} has no fields"))?;
        if !obj.contains_key(part) {
            let mut names: Vec<&String> = obj.keys().collect();
            names.sort();
            let names: Vec<&str> = names.into_iter().map(String::as_str).collect();
            return Err(format!("{path}: no field \"{part}\" in {here} (it has {})", names.join(", ")));
        }
        walked.push(part);
        node = obj.get_mut(part).ok_or_else(|| format!("{path}: no field \"{part}\""))?;
    }
    if node.is_object() || node.is_array() {
        return Err(format!("{path}: a section, not a value; name one of its fields"));
    }
    *node = value;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;

    fn plan(axes: &str) -> Plan {
        let text = format!(
            r#"Sweep(gpu: "mi210", workloads: [Spec(name: "a", path: "a.ron"), Spec(name: "b", path: "b.ron")], axes: [{axes}], seeds: [0, 1], metrics: ["cycles"])"#
        );
        parse(&text, Path::new("p.ron")).unwrap()
    }

    fn base() -> GpuConfig {
        hipscope_sim::gpus::builtin("mi210").unwrap()
    }

    #[test]
    fn points_come_in_a_fixed_order_with_the_base_first() {
        let p = plan(r#"Axis(field: "timing.l2.size_bytes", values: ["2 MiB", "4 MiB"]), Range(field: "compute_units", start: 26, end: 104, step: 26)"#);
        let pts = expand(&p, &base(), Path::new("p.ron")).unwrap();
        // 2 workloads x 2 seeds of base, then 2 workloads x (2 x 4 combos) x 2 seeds.
        assert_eq!(pts.len(), 4 + 2 * 8 * 2);
        assert!(pts[..4].iter().all(|p| p.base && p.params.is_empty()));
        assert!(pts.iter().enumerate().all(|(i, p)| p.index == i));
        let first = &pts[4];
        assert_eq!((first.workload, first.seed), (0, 0));
        assert_eq!(describe(&first.params), "timing.l2.size_bytes=2 MiB, compute_units=26");
        assert_eq!(describe(&pts[5].params), describe(&first.params), "seeds vary fastest");
        assert_eq!(describe(&pts[6].params), "timing.l2.size_bytes=2 MiB, compute_units=52", "then the last axis");
        let cfg = configure(&base(), &first.params).unwrap();
        assert_eq!((cfg.timing.unwrap().l2.size_bytes, cfg.compute_units), (2 << 20, 26));
    }

    #[test]
    fn zipped_axes_move_together() {
        let p = plan(r#"Zip([Axis(field: "timing.topology.xcds", values: [1, 2]), Axis(field: "compute_units", values: [52, 104])])"#);
        let pts = expand(&p, &base(), Path::new("p.ron")).unwrap();
        assert_eq!(pts.len(), 4 + 2 * 2 * 2);
        assert_eq!(describe(&pts[4].params), "timing.topology.xcds=1, compute_units=52");
    }

    #[test]
    fn bad_axes_name_the_field() {
        let bad = |axes: &str, want: &str| {
            let e = expand(&plan(axes), &base(), Path::new("p.ron")).unwrap_err().to_string();
            assert!(e.starts_with("p.ron: ") && e.contains(want), "{e}\nwanted: {want}");
        };
        bad(r#"Axis(field: "timing.l2.size_byte", values: [1])"#, "no field \"size_byte\" in timing.l2");
        bad(r#"Axis(field: "timing.l2.size_bytes", values: ["big"])"#, "axes[0] timing.l2.size_bytes = big");
        bad(r#"Axis(field: "timing.l2.size_bytes", values: [])"#, "axes[0].values: empty axis");
        bad(r#"Axis(field: "timing.l2", values: [1])"#, "a section, not a value");
        bad(r#"Axis(field: "compute_units", values: [0])"#, "compute_units: 0");
        bad(r#"Range(field: "compute_units", start: 8, end: 4, step: 1)"#, "empty axis");
        bad(r#"Zip([Axis(field: "compute_units", values: [1, 2]), Axis(field: "wave_size", values: [64])])"#, "zipped axes");
        // Each value fits alone, the combination does not: named by its point.
        bad(r#"Axis(field: "timing.topology.xcds", values: [1, 4]), Axis(field: "compute_units", values: [104, 102])"#, "point ");
    }
}
