//! A merged sweep's plots (SVG): each metric against the first axis, one line per workload
//! (and per value of the second axis, if there is one); a heat map per workload over the first
//! two axes; and for times, the speed-up against the base config. Values of several seeds are
//! averaged; so are the values over axes beyond the ones a plot shows (its title says so).
//!
//! plotters runs without its font feature, so labels are SVG `<text>` elements the viewer
//! renders with its own fonts.

use crate::merge::Merged;
use crate::metrics::Metric;
use crate::plan::{Axis, Value};
use crate::record::Record;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Bytes as `4 KiB`, `16 MiB`, `1 GiB`.
pub fn bytes_label(v: f64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = v;
    let mut i = 0;
    while x >= 1024.0 && i + 1 < units.len() {
        x /= 1024.0;
        i += 1;
    }
    if x >= 10.0 || x.fract() == 0.0 {
        format!("{x:.0} {}", units[i])
    } else {
        format!("{x:.1} {}", units[i])
    }
}

/// The legend box every chart draws: at `pos`, on a translucent white with a black border.
pub fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(chart: &mut ChartContext<'a, DB, CT>, pos: SeriesLabelPosition) -> Result<(), String> {
    chart.configure_series_labels().position(pos).background_style(WHITE.mix(0.85)).border_style(BLACK).draw().map_err(|e| e.to_string())
}

type Frame<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>>;

/// A white chart on `root` with `caption` over `x` × `y`, room for the axis labels.
fn frame<'a, 'b>(
    root: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    caption: &str,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
) -> Result<Frame<'a, 'b>, String> {
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x, y)
        .map_err(|e| e.to_string())
}

/// One axis of the plan as plots show it: the field its position is read from (a zip's first)
/// and a label naming every field it moves, with units.
#[derive(Debug, Clone)]
struct PlotAxis {
    field: String,
    label: String,
    /// Its values in plan order (distinct).
    values: Vec<Value>,
    /// Placed by value (else evenly, in plan order).
    numeric: bool,
    /// Text values (`CU`, `WGP`): drawn as bars.
    categorical: bool,
    bytes: bool,
}

fn plot_axes(m: &Merged) -> Vec<PlotAxis> {
    fn fields(a: &Axis) -> Vec<String> {
        match a {
            Axis::Axis { field, .. } | Axis::Range { field, .. } => vec![field.clone()],
            Axis::Zip(v) => v.iter().flat_map(fields).collect(),
        }
    }
    m.plan
        .axes
        .iter()
        .map(|a| {
            let fs = fields(a);
            let field = fs.first().cloned().unwrap_or_default();
            let mut values: Vec<Value> = Vec::new();
            for r in m.records.iter().filter(|r| !r.base) {
                if let Some((_, v)) = r.params.iter().find(|(f, _)| *f == field) {
                    if !values.contains(v) {
                        values.push(v.clone());
                    }
                }
            }
            let bytes = field.ends_with("_bytes");
            let unit = |f: &str| if f.ends_with("_bytes") { format!("{f} (bytes)") } else { f.to_string() };
            let label = if fs.len() > 1 { format!("{} (with {})", unit(&field), fs[1..].join(", ")) } else { unit(&field) };
            // A numeric axis spanning a factor of 8 or more (L2 sizes 2..64 MiB, XCDs 1..16)
            // reads best with its values evenly spaced, as on a log scale.
            let nums: Vec<f64> = values.iter().filter_map(Value::number).collect();
            let (lo, hi) = nums.iter().fold((f64::INFINITY, 0.0f64), |(l, h), &v| (l.min(v), h.max(v)));
            let geometric = nums.len() == values.len() && lo > 0.0 && hi / lo >= 8.0;
            let numeric = nums.len() == values.len() && !geometric;
            let categorical = nums.len() != values.len();
            PlotAxis { field, label, values, numeric, categorical, bytes }
        })
        .collect()
}

impl PlotAxis {
    /// A value's position on the plot's x axis.
    fn x(&self, v: &Value) -> f64 {
        match (self.numeric, v.number()) {
            (true, Some(n)) => n,
            _ => self.values.iter().position(|x| x == v).unwrap_or(0) as f64,
        }
    }

    /// The label of the value placed at `x` when values are evenly spaced (blank between).
    fn at_position(&self, x: f64) -> String {
        slot(x).and_then(|i| self.values.get(i)).map_or_else(String::new, |v| self.value_text(v))
    }

    fn tick(&self, x: f64) -> String {
        if !self.numeric {
            return self.at_position(x);
        }
        if self.bytes {
            bytes_label(x)
        } else if x.fract() == 0.0 {
            format!("{x:.0}")
        } else {
            format!("{x}")
        }
    }

    /// A value as its tick shows it.
    fn value_text(&self, v: &Value) -> String {
        if self.bytes {
            v.number().map_or_else(|| v.label(), bytes_label)
        } else {
            v.label()
        }
    }

    fn value_of<'r>(&self, r: &'r Record) -> Option<&'r Value> {
        r.params.iter().find(|(f, _)| *f == self.field).map(|(_, v)| v)
    }
}

/// The index of the evenly spaced value (or bar group) at `x`, if `x` is on one: tick labels
/// go only there.
fn slot(x: f64) -> Option<usize> {
    ((x - x.round()).abs() <= 0.01 && x > -0.5).then(|| x.round() as usize)
}

/// A metric's value in a record, if it has one.
fn value_in(r: &Record, name: &str) -> Option<f64> {
    r.metrics.get(name).and_then(serde_json::Value::as_f64).filter(|v| v.is_finite())
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// A line of a chart.
struct Series {
    name: String,
    points: Vec<(f64, f64)>,
}

/// Write every plot of `m` into `dir`; returns the files.
pub fn all(m: &Merged, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let axes = plot_axes(m);
    let mut out = Vec::new();
    if axes.is_empty() {
        return Ok(out);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let workloads: Vec<String> = m.plan.workloads.iter().map(|w| w.name().to_string()).collect();
    let mut title = m.plan.title.clone().unwrap_or_else(|| format!("sweep on {}", m.gpu));
    // Sampled times are estimates: every plot's title says so, with the largest error.
    if let Some((n, error)) = m.sampled() {
        title.push_str(&format!(" [sampled: {n} of {} points, estimated error up to ±{error:.2} %]", m.records.len()));
    }
    let rest =
        if axes.len() > 2 { format!(" (mean over {})", axes[2..].iter().map(|a| a.field.as_str()).collect::<Vec<_>>().join(", ")) } else { String::new() };
    if axes.len() == 1 {
        out.extend(overviews(m, &axes[0], &workloads, &title, dir)?);
    }
    for text in &m.plan.metrics {
        let Ok(metric) = Metric::parse(text) else { continue };
        let name = metric.to_string();
        if !m.records.iter().any(|r| value_in(r, &name).is_some()) {
            continue;
        }
        let slug = slug(&name);
        let series = lines(m, &axes, &workloads, &name, false);
        let file = dir.join(format!("{slug}.svg"));
        let caption = format!("{title}: {}{rest}", metric.label());
        chart(&file, &caption, &axes[0], &metric.label(), &series)?;
        out.push(file);
        if metric.is_time() {
            let speedup = lines(m, &axes, &workloads, &name, true);
            if !speedup.is_empty() {
                let file = dir.join(format!("{slug}-speedup.svg"));
                chart(
                    &file,
                    &format!("{title}: speed-up over the base {} config{rest}", m.gpu),
                    &axes[0],
                    &format!("speed-up (base / {})", metric.label()),
                    &speedup,
                )?;
                out.push(file);
            }
        }
        if axes.len() >= 2 {
            for w in &workloads {
                if let Some(file) = heat_map(m, &axes, w, &name, &metric, dir, &title, &rest)? {
                    out.push(file);
                }
            }
        }
    }
    Ok(out)
}

/// A file name from a metric name.
fn slug(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '-' }).collect()
}

/// The metric (or with `speedup`, base / metric) against the first axis: a line per workload,
/// or per workload and value of the second axis.
fn lines(m: &Merged, axes: &[PlotAxis], workloads: &[String], name: &str, speedup: bool) -> Vec<Series> {
    let first = &axes[0];
    let second = axes.get(1);
    let groups: Vec<Option<&Value>> = match second {
        None => vec![None],
        Some(s) => s.values.iter().map(Some).collect(),
    };
    let mut out = Vec::new();
    for w in workloads {
        let base: Vec<f64> = m.records.iter().filter(|r| r.base && r.workload == *w).filter_map(|r| value_in(r, name)).collect();
        let base = mean(&base);
        if speedup && base.is_none() {
            continue;
        }
        for g in &groups {
            let mut points = Vec::new();
            for v in &first.values {
                let vals: Vec<f64> = m
                    .records
                    .iter()
                    .filter(|r| !r.base && r.workload == *w && first.value_of(r) == Some(v))
                    .filter(|r| match (g, second) {
                        (Some(gv), Some(s)) => s.value_of(r) == Some(*gv),
                        _ => true,
                    })
                    .filter_map(|r| value_in(r, name))
                    .collect();
                let Some(y) = mean(&vals) else { continue };
                let y = match (speedup, base) {
                    (true, Some(b)) if y > 0.0 => b / y,
                    (true, _) => continue,
                    (false, _) => y,
                };
                points.push((first.x(v), y));
            }
            if points.is_empty() {
                continue;
            }
            let name = match (g, second) {
                (Some(gv), Some(s)) => format!("{w}, {}={}", s.field, s.value_text(gv)),
                _ => w.clone(),
            };
            out.push(Series { name, points });
        }
    }
    out
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// A y value as a tick label: whole numbers from 100 up.
fn y_tick(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Per workload, every metric of one unit in one chart when the plan has one axis: bars per
/// metric, one per axis value (up to six values), else a line per metric.
fn overviews(m: &Merged, axis: &PlotAxis, workloads: &[String], title: &str, dir: &Path) -> Result<Vec<PathBuf>, String> {
    let metrics: Vec<Metric> = m.plan.metrics.iter().filter_map(|t| Metric::parse(t).ok()).collect();
    let mut units: Vec<&str> = metrics.iter().map(Metric::unit).collect();
    units.dedup();
    let mut out = Vec::new();
    for w in workloads {
        for unit in &units {
            // A metric's mean over seeds at one value of the axis.
            let at = |v: &Value, name: &str| {
                let vals: Vec<f64> =
                    m.records.iter().filter(|r| !r.base && r.workload == *w && axis.value_of(r) == Some(v)).filter_map(|r| value_in(r, name)).collect();
                mean(&vals)
            };
            let mine: Vec<&Metric> = metrics.iter().filter(|x| x.unit() == *unit && axis.values.iter().any(|v| at(v, &x.to_string()).is_some())).collect();
            if mine.len() < 2 {
                continue;
            }
            let path = dir.join(format!("overview-{}-{}.svg", slug(w), slug(unit)));
            // Words every label would repeat (one contention for all) go to the caption.
            let contentions: Vec<&str> =
                mine.iter().filter_map(|x| if let Metric::Scope { contention, .. } = x { Some(contention.as_str()) } else { None }).collect();
            let common = (contentions.len() == mine.len() && contentions.windows(2).all(|p| p[0] == p[1])).then(|| contentions[0]).filter(|c| *c != "one_wave");
            let caption = format!("{title}: {w}, every metric in {unit}{}", common.map_or_else(String::new, |c| format!(" ({c})")));
            let short = |x: &Metric| {
                let s = x.short();
                common.map_or_else(|| s.clone(), |c| s.trim_end_matches(c).trim_end().to_string())
            };
            if axis.values.len() <= 6 {
                let categories: Vec<String> = mine.iter().map(|x| short(x)).collect();
                let groups: Vec<(String, Vec<Option<f64>>)> = axis
                    .values
                    .iter()
                    .map(|v| (format!("{} = {}", axis.field, axis.value_text(v)), mine.iter().map(|x| at(v, &x.to_string())).collect()))
                    .collect();
                bars(&path, &caption, &categories, &groups, unit)?;
            } else {
                let series: Vec<Series> = mine
                    .iter()
                    .map(|x| Series { name: short(x), points: axis.values.iter().filter_map(|v| at(v, &x.to_string()).map(|y| (axis.x(v), y))).collect() })
                    .collect();
                chart(&path, &caption, axis, unit, &series)?;
            }
            out.push(path);
        }
    }
    Ok(out)
}

/// Grouped bars: a group per category, a bar per (name, values) in each.
fn bars(path: &Path, caption: &str, categories: &[String], groups: &[(String, Vec<Option<f64>>)], y_label: &str) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let y1 = groups.iter().flat_map(|g| g.1.iter().flatten()).fold(0.0f64, |a, &b| a.max(b));
    let n = categories.len();
    let root = SVGBackend::new(path, (960.max(170 * n as u32), 600)).into_drawing_area();
    let mut chart = frame(&root, caption, -0.5..n as f64 - 0.5, 0.0..(y1 * 1.15).max(1e-9)).map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * n + 1)
        .x_label_formatter(&|x| slot(*x).and_then(|i| categories.get(i)).cloned().unwrap_or_default())
        .y_label_formatter(&|y| y_tick(*y))
        .y_desc(y_label)
        .draw()
        .map_err(|e| err(&e))?;
    let bar = 0.8 / groups.len().max(1) as f64;
    for (g, (name, values)) in groups.iter().enumerate() {
        let colour = COLOURS[g % COLOURS.len()];
        let left = move |i: usize| i as f64 - 0.4 + bar * g as f64;
        chart
            .draw_series(values.iter().enumerate().filter_map(|(i, v)| v.map(|v| Rectangle::new([(left(i), 0.0), (left(i) + bar * 0.92, v)], colour.filled()))))
            .map_err(|e| err(&e))?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
        chart
            .draw_series(values.iter().enumerate().filter_map(|(i, v)| v.map(|v| Text::new(y_tick(v), (left(i), v + y1 * 0.02), ("sans-serif", 11)))))
            .map_err(|e| err(&e))?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

fn chart(path: &Path, caption: &str, x: &PlotAxis, y_label: &str, series: &[Series]) -> Result<(), String> {
    if x.categorical {
        // Text values (modes): bars, one per series at each value.
        let categories: Vec<String> = x.values.iter().map(Value::label).collect();
        let groups: Vec<(String, Vec<Option<f64>>)> =
            series.iter().map(|s| (s.name.clone(), x.values.iter().map(|v| s.points.iter().find(|p| p.0 == x.x(v)).map(|p| p.1)).collect())).collect();
        return bars(path, caption, &categories, &groups, y_label);
    }
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let y1 = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0f64, f64::max);
    if !(x0.is_finite() && x1.is_finite()) {
        return Err(format!("{}: no points to plot", path.display()));
    }
    let pad = if !x.numeric {
        0.5
    } else if x1 > x0 {
        (x1 - x0) * 0.04
    } else {
        0.5
    };
    let root = SVGBackend::new(path, (960, 560)).into_drawing_area();
    let mut chart = frame(&root, caption, x0 - pad..x1 + pad, 0.0..(y1 * 1.1).max(1e-9)).map_err(|e| err(&e))?;
    let ticks = if x.numeric { 10 } else { 2 * x.values.len() + 1 };
    chart
        .configure_mesh()
        .x_desc(x.label.as_str())
        .y_desc(y_label)
        .x_labels(ticks)
        .x_label_formatter(&|v| x.tick(*v))
        .y_label_formatter(&|y| y_tick(*y))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), colour.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(s.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled()))).map_err(|e| err(&e))?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}

/// A heat map of one workload's metric over the first two axes (a cell per pair of values,
/// its value written in it).
#[allow(clippy::too_many_arguments)]
fn heat_map(
    m: &Merged,
    axes: &[PlotAxis],
    workload: &str,
    name: &str,
    metric: &Metric,
    dir: &Path,
    title: &str,
    rest: &str,
) -> Result<Option<PathBuf>, String> {
    let (a, b) = (&axes[0], &axes[1]);
    let mut cells = Vec::new();
    for (i, va) in a.values.iter().enumerate() {
        for (j, vb) in b.values.iter().enumerate() {
            let vals: Vec<f64> = m
                .records
                .iter()
                .filter(|r| !r.base && r.workload == workload && a.value_of(r) == Some(va) && b.value_of(r) == Some(vb))
                .filter_map(|r| value_in(r, name))
                .collect();
            if let Some(v) = mean(&vals) {
                cells.push((i, j, v));
            }
        }
    }
    if cells.is_empty() {
        return Ok(None);
    }
    let path = dir.join(format!("{}-heat-{}.svg", slug(name), slug(workload)));
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let (lo, hi) = cells.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), c| (l.min(c.2), h.max(c.2)));
    let root = SVGBackend::new(&path, (960, 620)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let caption = format!("{title}: {workload}, {}{rest}", metric.label());
    let (na, nb) = (a.values.len(), b.values.len());
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(96)
        .build_cartesian_2d(-0.5..na as f64 - 0.5, -0.5..nb as f64 - 0.5)
        .map_err(|e| err(&e))?;
    let (na_ticks, nb_ticks) = (2 * na + 1, 2 * nb + 1);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(a.label.as_str())
        .y_desc(b.label.as_str())
        .x_labels(na_ticks)
        .y_labels(nb_ticks)
        .x_label_formatter(&|x| a.at_position(*x))
        .y_label_formatter(&|y| b.at_position(*y))
        .draw()
        .map_err(|e| err(&e))?;
    let colour = |v: f64| {
        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
        // From pale yellow (low) to dark blue (high).
        let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
        RGBColor(mix(255.0, 8.0), mix(247.0, 48.0), mix(188.0, 107.0))
    };
    chart
        .draw_series(cells.iter().map(|&(i, j, v)| Rectangle::new([(i as f64 - 0.5, j as f64 - 0.5), (i as f64 + 0.5, j as f64 + 0.5)], colour(v).filled())))
        .map_err(|e| err(&e))?;
    chart
        .draw_series(cells.iter().map(|&(i, j, v)| {
            let dark = hi > lo && (v - lo) / (hi - lo) > 0.55;
            Text::new(short(v), (i as f64 - 0.25, j as f64), ("sans-serif", 14).into_font().color(if dark { &WHITE } else { &BLACK }))
        }))
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    drop(chart);
    drop(root);
    Ok(Some(path))
}

/// A value in a few characters.
fn short(v: f64) -> String {
    if v.abs() >= 1e6 {
        format!("{:.2e}", v)
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}
