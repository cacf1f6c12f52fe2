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
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One simulation to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

/// Most points a plan may have. Each point is a whole simulation (milliseconds to minutes),
/// kept as a result line of about half a kilobyte and checked before anything runs:
/// 100 000 points are days of simulation on a node and 50 MB of results; a study larger than
/// that is several plans.
pub const MAX_POINTS: u64 = 100_000;

/// How many positions `axis` has (checked: an empty list, a bad range, zipped axes of
/// different lengths are errors; `at` names the axis). Nothing is expanded.
pub fn axis_len(axis: &Axis, at: &str) -> Result<u64, String> {
    match axis {
        Axis::Axis { field, values } if values.is_empty() => Err(format!("{at}.values: empty axis for {field}")),
        Axis::Axis { values, .. } => Ok(values.len() as u64),
        Axis::Range { field, start, end, step } => crate::range::count(start, end, step, MAX_POINTS).map_err(|e| format!("{at} ({field}): {e}")),
        Axis::Zip(axes) => {
            let Some(first) = axes.first() else { return Err(format!("{at}: Zip of no axes")) };
            let n = axis_len(first, &format!("{at}[0]"))?;
            for (i, a) in axes.iter().enumerate().skip(1) {
                let m = axis_len(a, &format!("{at}[{i}]"))?;
                if m != n {
                    return Err(format!("{at}[{i}]: {m} values, but {at}[0] has {n}: zipped axes move together and need as many values each"));
                }
            }
            Ok(n)
        }
    }
}

/// How many points `plan` has, computed without making them: workloads × seeds × (1 + the
/// product of the axes' lengths), or workloads × seeds without axes. More than [`MAX_POINTS`] is an error stating the count.
pub fn count(plan: &Plan) -> Result<u64, String> {
    let mut lens = Vec::with_capacity(plan.axes.len());
    for (i, a) in plan.axes.iter().enumerate() {
        lens.push(axis_len(a, &format!("axes[{i}]"))?);
    }
    let (w, s) = (plan.workloads.len() as u128, plan.seeds.len() as u128);
    // Checked all the way: past u128 the message says "more than". No axes: no combinations.
    let combos = if lens.is_empty() { Some(0) } else { lens.iter().try_fold(1u128, |acc, &n| acc.checked_mul(u128::from(n))) };
    let total = combos.and_then(|c| c.checked_add(1)).and_then(|c| c.checked_mul(w)).and_then(|c| c.checked_mul(s));
    match total {
        Some(t) if t <= u128::from(MAX_POINTS) => Ok(t as u64),
        _ => {
            let shown = total.map_or_else(|| format!("more than {}", u128::MAX), |t| t.to_string());
            let product = if lens.is_empty() { "0".to_string() } else { lens.iter().map(u64::to_string).collect::<Vec<_>>().join(" x ") };
            Err(format!(
                "the plan makes {shown} points ({} workload(s) x {} seed(s) x (1 base + {product} combinations of the axes)); at most {MAX_POINTS} (MAX_POINTS): shorten the axes or split the study into several plans",
                plan.workloads.len(),
                plan.seeds.len()
            ))
        }
    }
}

/// Every point of `plan`, each config checked. `file` names the plan in errors.
pub fn expand(plan: &Plan, base: &GpuConfig, file: &Path) -> Result<Vec<Point>, PlanError> {
    expand_with(plan, base, file, &mut |_| {})
}

/// [`expand`], showing `seen` the base config and each combination's config once.
pub fn expand_with(plan: &Plan, base: &GpuConfig, file: &Path, seen: &mut dyn FnMut(&GpuConfig)) -> Result<Vec<Point>, PlanError> {
    let err = |m: String| PlanError::new(file, m);
    // Before anything is made: a plan of a billion points is refused here, not by the allocator.
    count(plan).map_err(err)?;
    let columns: Vec<Columns> = plan.axes.iter().enumerate().map(|(i, a)| columns(a, &format!("axes[{i}]"))).collect::<Result<_, _>>().map_err(err)?;
    // No axes: the base config only (not the base config twice, once as a "combination").
    let mut combos: Vec<Vec<(String, Value)>> = if columns.is_empty() { Vec::new() } else { vec![Vec::new()] };
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
    let tree = BaseTree::new(base).map_err(err)?;
    // Each value alone first, so an error names the axis and value that cause it.
    for (i, c) in columns.iter().enumerate() {
        for (f, field) in c.fields.iter().enumerate() {
            for (j, row) in c.rows.iter().enumerate() {
                let at = format!("axes[{i}] {field} = {}", row[f].label());
                tree.configure(&[(field.clone(), row[f].clone())]).map_err(|e| err(format!("{at} (value {j}): {e}")))?;
            }
        }
    }
    seen(base);
    for (k, combo) in combos.iter().enumerate() {
        let cfg = tree.configure(combo).map_err(|e| err(format!("point {} ({}): {e}", plan.workloads.len() * plan.seeds.len() + k, describe(combo))))?;
        seen(&cfg);
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
            distinct(values, &format!("{at}.values"))?;
            Ok(Columns { fields: vec![field.clone()], rows: values.iter().map(|v| vec![v.clone()]).collect() })
        }
        Axis::Range { field, start, end, step } => {
            let values = crate::range::values(start, end, step, MAX_POINTS).map_err(|e| format!("{at} ({field}): {e}"))?;
            distinct(&values, &format!("{at} ({field}) value"))?;
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

/// No value twice on an axis (`"4 MiB"` and `4194304` are the same value; so are the values
/// of a float range whose step is too small to change them): two points would be the same
/// simulation under two labels.
fn distinct(values: &[Value], at: &str) -> Result<(), String> {
    let mut seen = std::collections::HashMap::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        if let Some(j) = seen.insert(v.to_json().to_string(), i) {
            return Err(format!("{at}[{i}]: {} is the value of [{j}] again", v.label()));
        }
    }
    Ok(())
}

/// The base config in its serde form, made once for the many [`BaseTree::configure`] calls
/// of a plan's points.
pub struct BaseTree {
    tree: serde_json::Value,
    origin: String,
}

impl BaseTree {
    pub fn new(base: &GpuConfig) -> Result<BaseTree, String> {
        Ok(BaseTree { tree: serde_json::to_value(base).map_err(|e| format!("the base config: {e}"))?, origin: base.origin.clone() })
    }

    /// The base config with `params` set (each a field path and value), checked as a config
    /// file would be. The error names the field.
    pub fn configure(&self, params: &[(String, Value)]) -> Result<GpuConfig, String> {
        let mut tree = self.tree.clone();
        for (field, value) in params {
            set(&mut tree, field, value.to_json())?;
        }
        let mut cfg: GpuConfig = serde_path_to_error::deserialize(tree).map_err(|e| {
            let path = e.path().to_string();
            format!("{}: {}", if path == "." { "the config".to_string() } else { path }, e.inner())
        })?;
        cfg.origin = format!("{} with {}", self.origin, describe(params));
        cfg.check().map_err(|e| e.to_string())?;
        Ok(cfg)
    }
}

/// The base config with `params` set (see [`BaseTree::configure`]).
pub fn configure(base: &GpuConfig, params: &[(String, Value)]) -> Result<GpuConfig, String> {
    BaseTree::new(base)?.configure(params)
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
        // Found when the plan is read (its structure) or when its points are made (configs).
        let bad = |axes: &str, want: &str| {
            let text = format!(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "a", path: "a.ron")], axes: [{axes}], metrics: ["cycles"])"#);
            let e = match parse(&text, Path::new("p.ron")) {
                Ok(p) => expand(&p, &base(), Path::new("p.ron")).unwrap_err().to_string(),
                Err(e) => e.to_string(),
            };
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
        // Keys an axis does not have, a field on two axes, a value twice.
        bad(r#"Axis(field: "compute_units", values: [1], step: 2)"#, "Unexpected field named `step` in `Axis`, expected either `field` or `values`");
        bad(r#"Range(field: "compute_units", start: 8, end: 16, stp: 8)"#, "Unexpected field named `stp` in `Range`");
        bad(
            r#"Axis(field: "compute_units", values: [52]), Range(field: "compute_units", start: 8, end: 16, step: 8)"#,
            "axes[1]: compute_units is also set by axes[0]",
        );
        bad(
            r#"Zip([Axis(field: "wave_size", values: [32, 64]), Axis(field: "wave_size", values: [64, 32])])"#,
            "axes[0][1]: wave_size is also set by axes[0][0]",
        );
        bad(r#"Axis(field: "timing.l2.size_bytes", values: ["4 MiB", 4194304])"#, "axes[0].values[1]: 4194304 is the value of [0] again");
        bad(r#"Axis(field: "timing l2", values: [1])"#, "name a config field by its path");
        // A float step too small to move the value makes the same value again.
        bad(r#"Range(field: "timing.dram.bandwidth_gb_per_s", start: 1e20, end: 1.0000000000000002e20, step: 1.0)"#, "again");
    }

    #[test]
    fn without_axes_there_is_the_base_config_only() {
        let text = r#"Sweep(gpu: "mi210", workloads: [Spec(name: "a", path: "a.ron")], seeds: [0, 1], metrics: ["cycles"])"#;
        let p = parse(text, Path::new("p.ron")).unwrap();
        let pts = expand(&p, &base(), Path::new("p.ron")).unwrap();
        assert_eq!(pts.len(), 2, "one point per seed: {pts:?}");
        assert!(pts.iter().all(|p| p.base));
        assert_eq!(count(&p).unwrap(), 2);
    }

    #[test]
    fn points_are_counted_before_any_is_made() {
        let p = plan(r#"Axis(field: "timing.l2.size_bytes", values: ["2 MiB", "4 MiB"]), Range(field: "compute_units", start: 26, end: 104, step: 26)"#);
        // Checked against the expansion, which is an independent loop.
        assert_eq!(count(&p).unwrap(), expand(&p, &base(), Path::new("p.ron")).unwrap().len() as u64);
        let ranges = r#"Range(field: "compute_units", start: 1, end: 1000, step: 1), Range(field: "timing.l2.size_bytes", start: 1, end: 1000, step: 1), Range(field: "timing.clock_mhz", start: 1, end: 1000, step: 1)"#;
        let text = format!(r#"Sweep(gpu: "mi210", workloads: [Spec(name: "a", path: "a.ron")], axes: [{ranges}], metrics: ["cycles"])"#);
        let e = parse(&text, Path::new("p.ron")).unwrap_err().to_string();
        assert!(e.contains("the plan makes 1000000001 points") && e.contains("1000 x 1000 x 1000") && e.contains("at most 100000"), "{e}");
    }
}
