//! The report's SVG charts, drawn with plotters' SVG backend into strings: a strip plot of each
//! cell's samples with its median and 95% confidence interval (cold beside warm), latency
//! percentile curves from the stored histograms, and scaling curves (speedup and efficiency
//! against workers). Every chart has a fixed viewBox and scales to the page width.

use plotters::prelude::*;

/// One row of a strip plot: a label, the samples, and their median and CI95 half-width.
pub struct StripRow {
    /// Row label (`ext4 cold`).
    pub label: String,
    /// The samples.
    pub values: Vec<f64>,
    /// Median of the samples.
    pub median: f64,
    /// Half-width of the 95% confidence interval of the mean, when known.
    pub ci95: Option<f64>,
    /// Mean of the samples.
    pub mean: f64,
    /// Cold rows are drawn in one colour, warm in another.
    pub cold: bool,
}

/// One curve of a line chart.
pub struct Curve {
    /// Legend label.
    pub label: String,
    /// Points (x, y).
    pub points: Vec<(f64, f64)>,
}

const COLD: RGBColor = RGBColor(0x1f, 0x5f, 0xbf);
const WARM: RGBColor = RGBColor(0xd9, 0x6c, 0x1a);
const PALETTE: [RGBColor; 6] = [
    RGBColor(0x1f, 0x5f, 0xbf),
    RGBColor(0xd9, 0x6c, 0x1a),
    RGBColor(0x2c, 0x9a, 0x45),
    RGBColor(0xb2, 0x2c, 0x7a),
    RGBColor(0x6a, 0x55, 0xb8),
    RGBColor(0x5a, 0x5a, 0x5a),
];

/// The x range covering every value (and CI), padded by 5%; a flat range is widened.
fn value_range(rows: &[StripRow]) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for r in rows {
        for v in r.values.iter().copied().chain([
            r.mean - r.ci95.unwrap_or(0.0),
            r.mean + r.ci95.unwrap_or(0.0),
        ]) {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) * 0.05).max(hi.abs() * 0.01).max(1e-9);
    (lo - pad, hi + pad)
}

/// A strip plot: one row per cell, every sample a dot, the median a bar, the mean's 95% CI a
/// line. `unit` labels the x axis.
pub fn strip(title: &str, unit: &str, rows: &[StripRow], fmt: &dyn Fn(f64) -> String) -> String {
    let mut svg = String::new();
    let height = 70 + 28 * rows.len() as u32;
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let (lo, hi) = value_range(rows);
        let n = rows.len().max(1) as f64;
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(30)
            .y_label_area_size(190)
            .build_cartesian_2d(lo..hi, -0.5..(n - 0.5));
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let labels: Vec<String> = rows.iter().map(|r| r.label.clone()).collect();
        let _ = chart
            .configure_mesh()
            .y_labels(rows.len().max(1))
            .y_label_formatter(&|y| {
                let i = y.round();
                if (y - i).abs() < 1e-6 && i >= 0.0 {
                    labels.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .x_label_formatter(&|x| fmt(*x))
            .x_desc(unit)
            .disable_y_mesh()
            .draw();
        for (i, r) in rows.iter().enumerate() {
            draw_row(&mut chart, i as f64, r);
        }
        let _ = root.present();
    }
    svg
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn draw_row(chart: &mut Chart<'_, '_>, y: f64, r: &StripRow) {
    let color = if r.cold { COLD } else { WARM };
    let n = r.values.len().max(1) as f64;
    let pts = r
        .values
        .iter()
        .enumerate()
        .filter(|(_, v)| v.is_finite())
        .map(|(k, &v)| {
            // Jitter within the row so equal samples stay visible.
            (v, y - 0.25 + 0.5 * (k as f64 + 0.5) / n)
        });
    let _ = chart.draw_series(pts.map(|p| Circle::new(p, 3, color.mix(0.7).filled())));
    if let Some(h) = r.ci95.filter(|h| h.is_finite()) {
        let _ = chart.draw_series(LineSeries::new(
            [(r.mean - h, y), (r.mean + h, y)],
            color.stroke_width(2),
        ));
    }
    if r.median.is_finite() {
        let _ = chart.draw_series(LineSeries::new(
            [(r.median, y - 0.35), (r.median, y + 0.35)],
            BLACK.stroke_width(2),
        ));
    }
}

/// A line chart of `curves`; `log_x` draws the x axis as -log10(1 - p) for percentile curves.
pub fn lines(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    curves: &[Curve],
    x_fmt: &dyn Fn(f64) -> String,
    y_fmt: &dyn Fn(f64) -> String,
) -> String {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 340)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let all = curves
            .iter()
            .flat_map(|c| c.points.iter())
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        let (mut x0, mut x1, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
        for &(x, y) in all {
            x0 = x0.min(x);
            x1 = x1.max(x);
            y1 = y1.max(y);
        }
        if !x0.is_finite() || x1 <= x0 {
            x1 = x0.max(0.0) + 1.0;
            x0 = x0.min(0.0);
        }
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 15))
            .margin(8)
            .x_label_area_size(32)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, 0.0..(y1 * 1.08).max(1e-9));
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let _ = chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .x_label_formatter(&|x| x_fmt(*x))
            .y_label_formatter(&|y| y_fmt(*y))
            .draw();
        for (i, c) in curves.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            if let Ok(s) = chart.draw_series(LineSeries::new(
                c.points.iter().copied(),
                color.stroke_width(2),
            )) {
                s.label(c.label.clone()).legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2))
                });
            }
        }
        if !curves.is_empty() {
            let _ = chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.3))
                .position(SeriesLabelPosition::UpperLeft)
                .draw();
        }
        let _ = root.present();
    }
    svg
}
