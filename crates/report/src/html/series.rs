//! The report's "over time" charts: for each workload whose samples carry a time series,
//! throughput and p99 latency against time into the sample, one line per target and cache state
//! (its median sample, so a curve is a real sample, not an average of unlike ones). Drawn as
//! plain SVG polylines: a few hundred points per line, no library needed, and the numbers on
//! the axes are in readable units ([`super::axis`]: `400k entries/s`, `2 ms`), the rate named
//! after the workload's headline. Each target has the report's colour for it; warm lines are
//! dashed; a long sample's intervals are merged to at most [`MAX_POINTS`] a line.

use super::axis::{self, Kind};
use fsbench_model::{CacheState, ResultEntry, RunRecord, Sample};
use std::fmt::Write;

const W: f64 = 640.0;
const H: f64 = 220.0;
const LEFT: f64 = 64.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 14.0;
const BOTTOM: f64 = 34.0;

/// One line: its legend, colour and points (ns into the sample, value in the chart's unit).
struct Line {
    label: String,
    colour: &'static str,
    points: Vec<(f64, f64)>,
    dashed: bool,
}

/// Most points one line draws: a long sample's intervals are merged (spiky walks of thousands
/// of 10 ms intervals read as noise at one pixel each).
const MAX_POINTS: usize = 200;

/// The sample of `e` whose headline is the median of the cell's (the middle one by value).
fn median_sample(e: &ResultEntry) -> Option<&Sample> {
    let mut with: Vec<&Sample> = e.samples.iter().filter(|s| !s.series.is_empty()).collect();
    with.sort_by(|a, b| {
        let v = |s: &Sample| s.metrics.get(&e.headline).copied().unwrap_or(0.0);
        v(a).total_cmp(&v(b))
    });
    with.get(with.len() / 2).copied()
}

/// One drawn point: the end of its span (ns), the rate over it (MiB/s or per second), and the
/// worst p99 of its intervals (ns).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Point {
    t_ns: f64,
    rate: f64,
    p99_ns: Option<f64>,
}

/// The whole intervals of `s` (the last one only when at least half an interval), merged into
/// at most [`MAX_POINTS`] spans: a merged span's rate is its work over its time, and its p99
/// the worst of its intervals' (percentiles of intervals cannot be merged exactly; the worst
/// keeps a latency spike visible).
fn points(s: &Sample, of_bytes: bool) -> Vec<Point> {
    let half = s.series_interval_ns.unwrap_or(0) / 2;
    let spans: Vec<(f64, f64, f64, Option<f64>)> = fsbench_model::series::spans(&s.series)
        .filter(|sp| sp.len_ns > 0 && sp.len_ns >= half)
        .map(|sp| {
            let len_s = sp.len_ns as f64 / 1e9;
            let p99 = sp.point.lat_p99_ns.map(|v| v as f64);
            (sp.point.t_ns as f64, len_s, sp.rate(of_bytes) * len_s, p99)
        })
        .collect();
    let per = spans.len().div_ceil(MAX_POINTS).max(1);
    spans
        .chunks(per)
        .map(|c| {
            let (secs, work) = c.iter().fold((0.0, 0.0), |(s, w), x| (s + x.1, w + x.2));
            let p99_ns = c.iter().filter_map(|x| x.3).reduce(f64::max);
            Point {
                t_ns: c.last().map_or(0.0, |x| x.0),
                rate: if secs > 0.0 { work / secs } else { 0.0 },
                p99_ns,
            }
        })
        .collect()
}

/// The rate's unit on the chart: MiB/s for a series of bytes, else the unit of the workload's
/// headline when it is a rate (`entries/s` for a walk, `files/s` for tree-create), else
/// operations per second.
fn rate_unit(cells: &[&ResultEntry], of_bytes: bool) -> &'static str {
    if of_bytes {
        return "MiB/s";
    }
    cells
        .first()
        .map(|e| fsbench_model::catalogue::unit_kind(&e.headline))
        .and_then(|u| match u {
            fsbench_model::catalogue::Unit::PerS(what) if what != "/s" => Some(what),
            _ => None,
        })
        .unwrap_or("operations/s")
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
        "<h3>Over time</h3>\n<p class=\"meta\">Each line is one target and cache state's median sample, in intervals of its time series (at most {MAX_POINTS} points a line: longer samples' intervals are merged), coloured by target, dashed when warm: a fall is a cliff (the dirty-page limit, a write cache filling), a sawtooth is writeback.</p>"
    );
    for w in workloads {
        let cells: Vec<&ResultEntry> = r.results.iter().filter(|e| e.workload == w).collect();
        workload_charts(w, &cells, esc, palette, out);
    }
}

/// The throughput and p99 charts of one workload's cells.
fn workload_charts(
    w: &str,
    cells: &[&ResultEntry],
    esc: fn(&str) -> String,
    palette: &super::palette::Palette,
    out: &mut String,
) {
    let of_bytes = cells
        .iter()
        .flat_map(|e| &e.samples)
        .any(|s| fsbench_model::series::of_bytes(&s.series));
    let mut rates = Vec::new();
    let mut p99 = Vec::new();
    for e in cells {
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
            points: pts.iter().map(|p| (p.t_ns, p.rate)).collect(),
            dashed,
        });
        let lat: Vec<(f64, f64)> = pts
            .iter()
            .filter_map(|p| p.p99_ns.map(|l| (p.t_ns, l)))
            .collect();
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
        return;
    }
    let unit = rate_unit(cells, of_bytes);
    let _ = writeln!(out, "<h4>{}</h4>\n<div class=\"charts\">", esc(w));
    // Both charts of a workload share the time axis.
    let xmax = rates
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(0.0, f64::max);
    out.push_str(&chart(&rates, xmax, ("throughput", Kind::Plain(unit)), esc));
    if !p99.is_empty() {
        out.push_str(&chart(&p99, xmax, ("p99 latency", Kind::Duration), esc));
    }
    out.push_str("</div>\n");
}

/// The target, with the swept parameters that tell two cells of one workload apart.
fn cell_name(e: &ResultEntry) -> String {
    let sweep: Vec<String> = e.sweep.iter().map(|(k, v)| format!("{k}={v}")).collect();
    match sweep.is_empty() {
        true => e.target.clone(),
        false => format!("{} {}", e.target, sweep.join(" ")),
    }
}

/// An axis title: the quantity and the unit its labels are in (`throughput, k entries/s`).
fn title(what: &str, unit: &str) -> String {
    match unit {
        "" => what.to_string(),
        u => format!("{what}, {u}"),
    }
}

/// One SVG line chart: x is time into the sample (ns, labelled in s, ms or µs), y starts at
/// zero and is labelled in readable units (`400k`, `2 ms`). A line of one point is a dot.
fn chart(lines: &[Line], xmax: f64, (what, kind): (&str, Kind), esc: fn(&str) -> String) -> String {
    let ymax = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.1))
        .fold(0.0, f64::max);
    let xa = axis::linear(0.0, xmax.max(1.0), Kind::Duration, true);
    let ya = axis::linear(0.0, ymax, kind, true);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |v: f64| LEFT + (v - xa.lo) / (xa.hi - xa.lo) * pw;
    let y = |v: f64| TOP + ph - (v - ya.lo) / (ya.hi - ya.lo) * ph;
    let y_title = title(what, &ya.unit);
    let legend_h = 16.0 * lines.len() as f64 + 6.0;
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg class=\"chart\" viewBox=\"0 0 {W} {}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        H + legend_h,
        esc(&y_title)
    );
    for (v, label) in &ya.ticks {
        let _ = write!(
            s,
            "<line x1=\"{LEFT}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            W - RIGHT,
            LEFT - 4.0,
            y(*v) + 4.0,
            label,
            y = y(*v)
        );
    }
    for (v, label) in &xa.ticks {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            x(*v),
            TOP + ph + 14.0,
            label
        );
    }
    let _ = write!(
        s,
        "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text><text x=\"12\" y=\"{}\" font-size=\"11\" transform=\"rotate(-90 12 {})\" text-anchor=\"middle\">{}</text>",
        LEFT + pw / 2.0,
        H - 4.0,
        esc(&title("time into the sample", &xa.unit)),
        TOP + ph / 2.0,
        TOP + ph / 2.0,
        esc(&y_title)
    );
    for (i, l) in lines.iter().enumerate() {
        draw_line(&mut s, l, i, (&x, &y), esc);
    }
    s.push_str("</svg>\n");
    s
}

/// One line (a dot when it has one point) and its legend entry.
fn draw_line(
    s: &mut String,
    l: &Line,
    i: usize,
    (x, y): (&dyn Fn(f64) -> f64, &dyn Fn(f64) -> f64),
    esc: fn(&str) -> String,
) {
    let colour = l.colour;
    let dash = if l.dashed {
        " stroke-dasharray=\"5 3\""
    } else {
        ""
    };
    match l.points.as_slice() {
        [(a, b)] => {
            let _ = write!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"{colour}\"/>",
                x(*a),
                y(*b)
            );
        }
        pts => {
            let pts: Vec<String> = pts
                .iter()
                .map(|&(a, b)| format!("{:.1},{:.1}", x(a), y(b)))
                .collect();
            let _ = write!(
                s,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\"{dash} points=\"{}\"/>",
                pts.join(" ")
            );
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_of(n: u64, interval_ns: u64) -> Sample {
        let mut s = Sample::new(n * interval_ns, 0, 0, n * 10, 0);
        s.series = (1..=n)
            .map(|k| fsbench_model::SeriesPoint {
                t_ns: k * interval_ns,
                ops: if k % 2 == 0 { 30 } else { 10 },
                lat_p99_ns: Some(1000 * k),
                ..Default::default()
            })
            .collect();
        s.series_interval_ns = Some(interval_ns);
        s
    }

    #[test]
    fn a_long_series_is_merged_to_at_most_200_points_keeping_its_rate_and_worst_p99() {
        let s = sample_of(4000, 10_000_000);
        let p = points(&s, false);
        assert!(
            p.len() <= MAX_POINTS && p.len() >= MAX_POINTS / 2,
            "{}",
            p.len()
        );
        // Alternating 10 and 30 ops per 10 ms, merged 20 at a time: 2000 ops/s.
        assert!((p[0].rate - 2000.0).abs() < 1e-6, "{:?}", p[0]);
        assert_eq!(p[0].p99_ns, Some(20_000.0));
        assert_eq!(p.last().unwrap().t_ns, 4000.0 * 10_000_000.0);
        let short = sample_of(50, 10_000_000);
        assert_eq!(
            points(&short, false).len(),
            50,
            "a short series is drawn as it is"
        );
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
        assert!(out.contains("time into the sample, ms"), "{out}");
        let empty = crate::export::tests::record();
        let mut none = String::new();
        section(&empty, super::super::esc, &palette, &mut none);
        assert!(none.is_empty());
    }
}
