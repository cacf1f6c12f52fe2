//! One SVG per GPU: per mode, the cost of each operation at each scope as grouped bars (one
//! work-group, no dirty data), the release costs against the dirty footprint, and the
//! contended atomicAdd's span against the lanes per word.

use hipscope_studies::scopes::contended::ADDRESSES;
use hipscope_studies::scopes::{Contention, Row, Scope, FOOTPRINTS, OPS, SCOPES};
use plotters::prelude::*;
use std::path::Path;

const COLOURS: [RGBColor; 4] = [RGBColor(120, 120, 120), RGBColor(31, 119, 180), RGBColor(255, 127, 14), RGBColor(214, 39, 40)];

fn median(rows: &[Row], gpu: &str, mode: &str, op: &str, scope: Scope, footprint: u64) -> Option<f64> {
    rows.iter()
        .find(|r| {
            r.gpu == gpu
                && r.mode == mode
                && r.op == op
                && r.scope == scope
                && r.footprint_bytes == footprint
                && r.contention == Contention::OneWorkgroup.name()
        })
        .and_then(|r| r.cycles_median)
        .map(|c| c as f64)
}

pub fn write_svg(path: &Path, gpu: &str, rows: &[Row]) -> Result<(), String> {
    let modes = super::output::distinct(rows.iter().filter(|r| r.gpu == gpu).map(|r| r.mode.as_str()));
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (1640, 420 * modes.len().max(1) as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    for (area, mode) in root.split_evenly((modes.len().max(1), 1)).iter().zip(&modes) {
        let (left, rest) = area.split_horizontally(760);
        let (middle, right) = rest.split_horizontally(440);
        bars(&left, rows, gpu, mode).map_err(|e| err(&e))?;
        footprint(&middle, rows, gpu, mode).map_err(|e| err(&e))?;
        contended(&right, rows, gpu, mode).map_err(|e| err(&e))?;
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Grouped bars: x = operation, one bar per scope; y = median cycles (log, +1 so free is 1).
fn bars(area: &Area, rows: &[Row], gpu: &str, mode: &str) -> DrawResult {
    let top = OPS.iter().flat_map(|o| SCOPES.iter().filter_map(move |&s| median(rows, gpu, mode, o.name, s, 0))).fold(10.0, f64::max) * 6.0;
    let n = OPS.len() as f64;
    // Groups centred on whole numbers, so the mesh's whole-number ticks name them.
    let mut chart = ChartBuilder::on(area)
        .caption(format!("{gpu} ({mode} mode): cycles per wave by scope"), ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5..n - 0.5, (1.0..top).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(OPS.len() + 1)
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 0.01 {
                OPS.get(x.round() as usize).map_or(String::new(), |o| o.name.to_string())
            } else {
                String::new()
            }
        })
        .x_label_style(("sans-serif", 11))
        .y_desc("cycles + 1")
        .draw()?;
    for (si, &scope) in SCOPES.iter().enumerate() {
        let colour = COLOURS[si];
        let bars = OPS.iter().enumerate().filter_map(move |(i, o)| {
            let v = median(rows, gpu, mode, o.name, scope, 0)? + 1.0;
            let x0 = i as f64 - 0.4 + 0.2 * si as f64;
            Some(Rectangle::new([(x0, 1.0), (x0 + 0.18, v)], colour.filled()))
        });
        chart.draw_series(bars)?.label(scope.name()).legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], colour.filled()));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    Ok(())
}

/// Lines: release-type operations at agent and system scope against the dirty footprint.
fn footprint(area: &Area, rows: &[Row], gpu: &str, mode: &str) -> DrawResult {
    let series: Vec<(String, Vec<(f64, f64)>)> =
        [("fence_acq_rel", Scope::Agent), ("fence_acq_rel", Scope::System), ("store_rel", Scope::Agent), ("store_rel", Scope::System)]
            .iter()
            .map(|&(op, s)| {
                (
                    format!("{op} {}", s.name()),
                    FOOTPRINTS.iter().filter_map(|&f| Some(((f.max(256)) as f64, median(rows, gpu, mode, op, s, f)? + 1.0))).collect(),
                )
            })
            .collect();
    let top = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)).fold(10.0, f64::max) * 6.0;
    let mut chart = ChartBuilder::on(area)
        .caption("release cost vs dirty footprint", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d((256.0..2.0 * (1u64 << 20) as f64).log_scale(), (1.0..top).log_scale())?;
    // Ticks fall on powers of ten: decimal units read best there.
    let kib = |v: &f64| if *v >= 1e6 { format!("{} MB", (*v / 1e6).round()) } else { format!("{} kB", (*v / 1e3).round()) };
    chart.configure_mesh().x_desc("dirty bytes (0 plotted at 256 B)").x_label_formatter(&kib).y_desc("cycles + 1").draw()?;
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(points.iter().copied(), colour.stroke_width(2)))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2)));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    Ok(())
}

/// Points: agent-scope contended atomicAdd (with return), span cycles against the lanes per
/// word, one series per word count; the serialised rate makes them rise along a line.
fn contended(area: &Area, rows: &[Row], gpu: &str, mode: &str) -> DrawResult {
    let series: Vec<(String, Vec<(f64, f64)>)> = ADDRESSES
        .iter()
        .map(|&words| {
            let points = rows
                .iter()
                .filter(|r| r.gpu == gpu && r.mode == mode && r.op == "contended_add_ret" && r.scope == Scope::Agent)
                .filter_map(|r| r.contended.as_ref())
                .filter(|x| x.addresses == words)
                .map(|x| (x.lanes_per_address as f64, x.span_cycles as f64 + 1.0))
                .collect();
            (format!("{words} words"), points)
        })
        .collect();
    let top = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)).fold(10.0, f64::max) * 6.0;
    let right = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0)).fold(10.0, f64::max) * 4.0;
    let mut chart = ChartBuilder::on(area)
        .caption("contended atomicAdd (agent)", ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d((0.5..right).log_scale(), (1.0..top).log_scale())?;
    chart.configure_mesh().x_desc("lanes per word").y_desc("span cycles + 1").draw()?;
    for (i, (name, points)) in series.iter().enumerate() {
        let colour = COLOURS[(i + 1) % COLOURS.len()];
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, colour.filled())))?
            .label(name.as_str())
            .legend(move |(x, y)| Circle::new((x + 6, y), 4, colour.filled()));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    Ok(())
}
