//! One SVG per curve: measured and simulated overlaid. plotters runs without its font feature,
//! so labels are SVG `<text>` elements the viewer renders with its own fonts (no system fonts
//! are needed to write the file).

use hipscope_studies::validate::Curve;
use hipscope_sweep::plot::{bytes_label, legend};
use plotters::prelude::*;
use std::path::Path;

fn range(points: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = points.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    (lo <= hi).then_some((lo, hi))
}

pub fn write_svg(path: &Path, c: &Curve) -> Result<(), String> {
    let all = || c.measured.iter().chain(&c.simulated);
    let (Some((x0, x1)), Some((_, y1))) = (range(all().map(|p| p.0)), range(all().map(|p| p.1))) else {
        return Err(format!("{}: no points to plot", c.title));
    };
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let y_top = y1 * 1.08;
    let bytes_axis = c.x_label.contains("bytes");
    let x_fmt = |v: &f64| if bytes_axis { bytes_label(*v) } else { format!("{v}") };
    let mut builder = ChartBuilder::on(&root);
    let chart = builder.caption(&c.title, ("sans-serif", 22)).margin(16).x_label_area_size(48).y_label_area_size(64);
    // Two builds because a log and a linear x axis are different coordinate types.
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart.configure_mesh().x_desc(c.x_label.as_str()).y_desc(c.y_label.as_str()).x_label_formatter(&x_fmt).draw().map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(c.measured.iter().copied(), BLUE.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label("measured")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));
            chart.draw_series(c.measured.iter().map(|&p| Circle::new(p, 2, BLUE.filled()))).map_err(|e| err(&e))?;
            chart
                .draw_series(LineSeries::new(c.simulated.iter().copied(), RED.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label("simulated")
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
            chart.draw_series(c.simulated.iter().map(|&p| Cross::new(p, 4, RED.stroke_width(2)))).map_err(|e| err(&e))?;
            legend(&mut chart, SeriesLabelPosition::UpperLeft).map_err(|e| err(&e))?;
        }};
    }
    if c.log_x {
        draw!(chart.build_cartesian_2d((x0..x1).log_scale(), 0.0..y_top).map_err(|e| err(&e))?);
    } else {
        draw!(chart.build_cartesian_2d(x0..x1, 0.0..y_top).map_err(|e| err(&e))?);
    }
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// A log-log scatter of (group, real, simulated) points, one colour per group, with the
/// y = x diagonal and the ±20 % band around it.
pub fn write_scatter(path: &Path, title: &str, points: &[(&str, f64, f64)]) -> Result<(), String> {
    let Some((lo, hi)) = range(points.iter().flat_map(|p| [p.1, p.2]).filter(|v| *v > 0.0)) else {
        return Err(format!("{title}: no points to plot"));
    };
    let (lo, hi) = (lo / 1.5, hi * 1.5);
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = SVGBackend::new(path, (900, 760)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d((lo..hi).log_scale(), (lo..hi).log_scale())
        .map_err(|e| err(&e))?;
    chart.configure_mesh().x_desc("real avg (ms)").y_desc("simulated avg (ms)").draw().map_err(|e| err(&e))?;
    let diagonal = |f: f64| LineSeries::new([(lo, lo * f), (hi, hi * f)], BLACK.mix(if f == 1.0 { 0.8 } else { 0.3 }));
    chart.draw_series(diagonal(1.0)).map_err(|e| err(&e))?.label("simulated = real").legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK));
    chart.draw_series(diagonal(1.2)).map_err(|e| err(&e))?;
    chart.draw_series(diagonal(0.8)).map_err(|e| err(&e))?;
    let mut groups: Vec<&str> = points.iter().map(|p| p.0).collect();
    groups.dedup();
    groups.sort_unstable();
    groups.dedup();
    for (i, g) in groups.iter().enumerate() {
        let colour = Palette99::pick(i).to_rgba();
        let series: Vec<(f64, f64)> = points.iter().filter(|p| p.0 == *g && p.1 > 0.0 && p.2 > 0.0).map(|p| (p.1, p.2)).collect();
        chart
            .draw_series(series.iter().map(|&p| Circle::new(p, 4, colour.filled())))
            .map_err(|e| err(&e))?
            .label(*g)
            .legend(move |(x, y)| Circle::new((x + 10, y), 4, colour.filled()));
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft).map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn svg_has_text_labels_and_both_series() {
        let c = Curve {
            gpu: "mi210".into(),
            title: "test curve".into(),
            x_label: "working set (bytes)".into(),
            y_label: "cycles per hop".into(),
            log_x: true,
            measured: vec![(4096.0, 120.0), (1048576.0, 240.0), (64e6, 600.0)],
            simulated: vec![(4096.0, 118.0), (64e6, 590.0)],
        };
        let p = std::env::temp_dir().join(format!("hipscope-plot-{}.svg", std::process::id()));
        write_svg(&p, &c).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(svg.contains("<text") && svg.contains("test curve") && svg.contains("simulated") && svg.contains("KiB"));
        assert_eq!(bytes_label(1536.0), "1.5 KiB");
        assert_eq!(bytes_label(256.0 * 1024.0 * 1024.0), "256 MiB");
    }

    #[test]
    fn scatter_has_every_group() {
        let p = std::env::temp_dir().join(format!("hipscope-scatter-{}.svg", std::process::id()));
        write_scatter(&p, "apps", &[("atax", 0.02, 0.03), ("nw", 1.5, 1.2), ("atax", 0.5, 0.45)]).unwrap();
        let svg = std::fs::read_to_string(&p).unwrap();
        assert!(svg.contains("atax") && svg.contains("nw") && svg.contains("real avg (ms)"));
        assert!(write_scatter(&p, "empty", &[]).is_err());
    }
}
