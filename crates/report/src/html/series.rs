//! The report's "over time" charts: for each workload whose samples carry a time series,
//! throughput and p99 latency against time into the sample, one line per target and cache state
//! (its median sample, so a curve is a real sample, not an average of unlike ones). Drawn as
//! plain SVG polylines: a few hundred points per line, no library needed, and the numbers on
//! the axes are the natural units (MiB/s or operations/s, µs or ms, s). Each target has the
//! report's colour for it; warm lines are dashed.

use fsbench_model::{CacheState, ResultEntry, RunRecord, Sample};
use std::fmt::Write;

const W: f64 = 640.0;
const H: f64 = 220.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 34.0;

/// One line: its legend, colour and points (seconds, value).
struct Line {
    label: String,
    colour: &'static str,
    points: Vec<(f64, f64)>,
    dashed: bool,
}

/// The sample of `e` whose headline is the median of the cell's (the middle one by value).
fn median_sample(e: &ResultEntry) -> Option<&Sample> {
    let mut with: Vec<&Sample> = e.samples.iter().filter(|s| !s.series.is_empty()).collect();
    with.sort_by(|a, b| {
        let v = |s: &Sample| s.metrics.get(&e.headline).copied().unwrap_or(0.0);
        v(a).total_cmp(&v(b))
    });
    with.get(with.len() / 2).copied()
}

/// (seconds at the interval's end, MiB/s or ops/s, p99 µs) of each whole interval.
fn points(s: &Sample, of_bytes: bool) -> Vec<(f64, f64, Option<f64>)> {
    let half = s.series_interval_ns.unwrap_or(0) / 2;
    fsbench_model::series::spans(&s.series)
        .filter(|sp| sp.len_ns > 0 && sp.len_ns >= half)
        .map(|sp| {
            (
                sp.point.t_ns as f64 / 1e9,
                sp.rate(of_bytes),
                sp.point.lat_p99_ns.map(|v| v as f64 / 1e3),
            )
        })
        .collect()
}

/// Writes the section for every workload with a series (nothing when none has one).
pub fn section(
    r: &RunRecord,
    esc: fn(&str) -> String,
    palette: &super::palette::Palette,
    out: &mut String,
) {
    let mut workloads: Vec<&str> = Vec::new();
    for e in &r.results {
        if e.samples.iter().any(|s| !s.series.is_empty()) && !workloads.contains(&&*e.workload) {
            workloads.push(&e.workload);
        }
    }
    if workloads.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h3>Over time</h3>\n<p class=\"meta\">Each line is one target and cache state's median sample, in intervals of its time series: a fall is a cliff (the dirty-page limit, a write cache filling), a sawtooth is writeback.</p>"
    );
    for w in workloads {
        let cells: Vec<&ResultEntry> = r.results.iter().filter(|e| e.workload == w).collect();
        let of_bytes = cells
            .iter()
            .flat_map(|e| &e.samples)
            .any(|s| fsbench_model::series::of_bytes(&s.series));
        let mut rates = Vec::new();
        let mut p99 = Vec::new();
        for e in &cells {
            let Some(s) = median_sample(e) else { continue };
            let pts = points(s, of_bytes);
            if pts.is_empty() {
                // A sample shorter than one interval: nothing to draw, nothing in the legend.
                continue;
            }
            let label = format!("{} {}", cell_name(e), e.cache.state.name());
            let dashed = e.cache.state == CacheState::Warm;
            let colour = palette.of(&e.target);
            rates.push(Line {
                label: label.clone(),
                colour,
                points: pts.iter().map(|p| (p.0, p.1)).collect(),
                dashed,
            });
            let lat: Vec<(f64, f64)> = pts.iter().filter_map(|p| p.2.map(|l| (p.0, l))).collect();
            if !lat.is_empty() {
                p99.push(Line {
                    label,
                    colour,
                    points: lat,
                    dashed,
                });
            }
        }
        if rates.is_empty() {
            continue;
        }
        let unit = if of_bytes { "MiB/s" } else { "operations/s" };
        let _ = writeln!(out, "<h4>{}</h4>\n<div class=\"charts\">", esc(w));
        // Both charts of a workload share the time axis.
        let xmax = rates
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0))
            .fold(0.0, f64::max);
        out.push_str(&chart(&rates, xmax, &format!("throughput, {unit}"), esc));
        if !p99.is_empty() {
            let slow = p99.iter().flat_map(|l| &l.points).any(|p| p.1 >= 10_000.0);
            let title = if slow {
                // Past 10 ms, in ms: ticks of 20000 µs read badly.
                p99.iter_mut()
                    .flat_map(|l| &mut l.points)
                    .for_each(|p| p.1 /= 1000.0);
                "p99 latency, ms"
            } else {
                "p99 latency, µs"
            };
            out.push_str(&chart(&p99, xmax, title, esc));
        }
        out.push_str("</div>\n");
    }
}

/// The target, with the swept parameters that tell two cells of one workload apart.
fn cell_name(e: &ResultEntry) -> String {
    let sweep: Vec<String> = e.sweep.iter().map(|(k, v)| format!("{k}={v}")).collect();
    match sweep.is_empty() {
        true => e.target.clone(),
        false => format!("{} {}", e.target, sweep.join(" ")),
    }
}

/// A "nice" step (1, 2 or 5 × 10^k) giving about `n` ticks over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag)
}

/// A tick label without needless decimals (`0.5`, `20`, `1500`).
fn tick(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One SVG line chart: x is seconds into the sample, y starts at zero.
fn chart(lines: &[Line], xmax: f64, y_title: &str, esc: fn(&str) -> String) -> String {
    let xmax = xmax.max(1e-3);
    let ymax = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0, f64::max)
        .max(1e-9);
    let (xs, ys) = (nice_step(xmax, 6.0), nice_step(ymax, 4.0));
    let ytop = (ymax / ys).ceil() * ys;
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |v: f64| LEFT + v / xmax * pw;
    let y = |v: f64| TOP + ph - v / ytop * ph;
    let legend_h = 16.0 * lines.len() as f64 + 6.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        H + legend_h,
        esc(y_title)
    );
    let mut t = 0.0;
    while t <= ytop + ys / 2.0 {
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 4.0,
            y(t) + 4.0,
            tick(t),
            y = y(t)
        );
        t += ys;
    }
    let mut t = 0.0;
    while t <= xmax + 1e-12 {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            x(t),
            TOP + ph + 14.0,
            tick(t)
        );
        t += xs;
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">seconds into the sample</text><text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        LEFT + pw / 2.0,
        H - 4.0,
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        esc(y_title)
    );
    for (i, l) in lines.iter().enumerate() {
        let colour = l.colour;
        let pts: Vec<String> = l
            .points
            .iter()
            .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
            .collect();
        let dash = if l.dashed {
            " stroke-dasharray=\"5 3\""
        } else {
            ""
        };
        let _ = write!(
            s,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash} points=\"{}\"/>",
            pts.join(" ")
        );
        let ly = H + 12.0 + 16.0 * i as f64;
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{ly}\" y2=\"{ly}\" stroke=\"{colour}\" stroke-width=\"2\"{dash}/><text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>",
            LEFT + 24.0,
            LEFT + 30.0,
            ly + 4.0,
            esc(&l.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round_numbers_in_natural_units() {
        assert_eq!(nice_step(4000.0, 4.0), 1000.0);
        assert_eq!(nice_step(0.9, 6.0), 0.2);
        assert_eq!(nice_step(37.0, 4.0), 10.0);
        assert_eq!(tick(0.2 + 0.4), "0.6");
        assert_eq!(tick(1500.0), "1500");
    }

    #[test]
    fn a_series_becomes_one_line_per_cell_with_its_legend_escaped() {
        let mut rec = crate::export::tests::record();
        rec.results[0].target = "<b>".into();
        let s = &mut rec.results[0].samples[0];
        s.series = (1..=50u64)
            .map(|k| fsbench_model::SeriesPoint {
                t_ns: k * 10_000_000,
                ops: 10,
                bytes: if k < 20 { 40 << 20 } else { 3 << 20 },
                lat_p99_ns: Some(100_000 + k * 1000),
                ..Default::default()
            })
            .collect();
        s.series_interval_ns = Some(10_000_000);
        let mut out = String::new();
        let mut palette = crate::html::palette::Palette::default();
        palette.add("<b>");
        section(&rec, super::super::esc, &palette, &mut out);
        assert_eq!(out.matches("<polyline").count(), 2, "throughput and p99");
        assert!(out.contains("throughput, MiB/s") && out.contains("p99 latency, µs"));
        assert!(out.contains("&lt;b&gt;") && !out.contains("<b>"), "{out}");
        assert!(out.contains(">4000<"), "MiB/s ticks: {out}");
        let empty = crate::export::tests::record();
        let mut none = String::new();
        section(&empty, super::super::esc, &palette, &mut none);
        assert!(none.is_empty());
    }
}
