//! Latency by percentile, the standard HdrHistogram plot: the x axis counts nines (p50, p90,
//! p99, p99.9, p99.99, ticks only there, each the same distance apart), the y axis is log
//! latency in natural units, one curve per cell in its target's colour (a run A dashed against a
//! run B solid), cold and warm in separate panels, the legend beside the plot, never on it.

use super::axis;
use super::palette::{GRID, INK, MUTED, Palette};
use super::svg::{Anchor, Svg, fit, text_width};
use fsbench_model::CacheState;

pub use fsbench_model::report_input::LatencyCurve;

/// One curve of a panel.
pub struct Curve<'a> {
    /// Legend label.
    pub label: String,
    /// The target (its colour).
    pub target: String,
    /// Drawn dashed (run A of a comparison).
    pub dashed: bool,
    /// The data.
    pub curve: &'a LatencyCurve,
}

/// The percentiles the x axis is ticked at, and their labels.
const NINES: [(f64, &str); 5] = [
    (50.0, "p50"),
    (90.0, "p90"),
    (99.0, "p99"),
    (99.9, "p99.9"),
    (99.99, "p99.99"),
];

/// Position of percentile `p` on the nines axis: −log10(1 − p/100).
pub fn nines(p: f64) -> f64 {
    -(1.0 - p / 100.0).max(1e-7).log10()
}

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 300.0;
const LEFT: f64 = 64.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 44.0;

/// How many nines the data can show: the whole part of log10 of the largest count, 2 to 4.
fn max_nines(panels: &[(CacheState, Vec<Curve<'_>>)]) -> f64 {
    let n = panels
        .iter()
        .flat_map(|p| &p.1)
        .map(|c| c.curve.count)
        .max()
        .unwrap_or(0) as f64;
    n.max(1.0).log10().floor().clamp(2.0, 4.0)
}

/// The chart: `title`, one panel per cache state.
pub fn draw(title: &str, panels: &[(CacheState, Vec<Curve<'_>>)], palette: &Palette) -> String {
    let legend: Vec<(&str, &str, bool)> = {
        let mut v: Vec<(&str, &str, bool)> = Vec::new();
        for c in panels.iter().flat_map(|p| &p.1) {
            if !v.iter().any(|x| x.0 == c.label) {
                v.push((&c.label, &c.target, c.dashed));
            }
        }
        v
    };
    let legend_w = legend
        .iter()
        .map(|l| text_width(l.0, 12.0) + 40.0)
        .fold(110.0, f64::max)
        .min(220.0);
    let height = HEIGHT.max(TOP + 22.0 * legend.len() as f64 + 20.0);
    let full = format!("{title} — latency by percentile, log scale, lower is better");
    let mut svg = Svg::new(WIDTH, height, &full);
    svg.title(&full, WIDTH);
    let xmax = max_nines(panels);
    let n = panels.len().max(1) as f64;
    let pw = (WIDTH - legend_w - 16.0 - (LEFT + 12.0) * n) / n;
    for (i, (cache, curves)) in panels.iter().enumerate() {
        let x0 = LEFT + i as f64 * (pw + LEFT + 12.0);
        panel(&mut svg, (x0, pw, height), *cache, curves, xmax, palette);
    }
    let lx = WIDTH - legend_w;
    for (k, (label, target, dashed)) in legend.iter().enumerate() {
        let y = TOP + 22.0 * k as f64;
        let c = palette.of(target);
        if *dashed {
            svg.dashed(lx, y, lx + 24.0, y, c, 2.5);
        } else {
            svg.line(lx, y, lx + 24.0, y, c, 2.5);
        }
        svg.text(
            lx + 30.0,
            y + 4.0,
            &fit(label, 12.0, legend_w - 34.0),
            Anchor::Start,
            12.0,
            INK,
        );
    }
    svg.finish()
}

fn y_range(curves: &[Curve<'_>]) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0f64);
    for &(_, v) in curves.iter().flat_map(|c| &c.curve.points) {
        if v.is_finite() && v > 0.0 {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if !lo.is_finite() {
        return (1.0, 10.0);
    }
    let (lo, hi) = (lo / 1.25, hi * 1.25);
    if hi / lo < 4.0 {
        let mid = (lo * hi).sqrt();
        (mid / 2.0, mid * 2.0)
    } else {
        (lo, hi)
    }
}

fn panel(
    svg: &mut Svg,
    (x0, w, height): (f64, f64, f64),
    cache: CacheState,
    curves: &[Curve<'_>],
    xmax: f64,
    palette: &Palette,
) {
    let bottom = height - BOTTOM;
    let (ylo, yhi) = y_range(curves);
    let x = |p: f64| x0 + nines(p).min(xmax) / xmax * w;
    let y = |v: f64| bottom - (v.max(ylo).ln() - ylo.ln()) / (yhi.ln() - ylo.ln()) * (bottom - TOP);
    svg.bold(x0, TOP - 12.0, &cache.to_string(), Anchor::Start, 12.0, INK);
    for t in axis::log_ticks(ylo, yhi) {
        svg.line(x0, y(t), x0 + w, y(t), GRID, 1.0);
        svg.text(
            x0 - 6.0,
            y(t) + 4.0,
            &axis::duration_tick(t),
            Anchor::End,
            11.0,
            MUTED,
        );
    }
    for (p, label) in NINES.iter().filter(|(p, _)| nines(*p) <= xmax + 1e-9) {
        svg.line(x(*p), TOP, x(*p), bottom, GRID, 1.0);
        svg.text(x(*p), bottom + 15.0, label, Anchor::Middle, 11.0, MUTED);
    }
    svg.line(x0, bottom, x0 + w, bottom, MUTED, 1.0);
    svg.line(x0, TOP, x0, bottom, MUTED, 1.0);
    svg.text(
        x0 + w / 2.0,
        bottom + 32.0,
        "percentile",
        Anchor::Middle,
        12.0,
        MUTED,
    );
    for c in curves {
        let pts: Vec<(f64, f64)> = c
            .curve
            .points
            .iter()
            .filter(|(p, v)| nines(*p) <= xmax + 1e-9 && v.is_finite())
            .map(|&(p, v)| (x(p), y(v)))
            .collect();
        svg.group_with_tip(&tip(&c.label, c.curve));
        svg.polyline(&pts, palette.of(&c.target), 2.0, c.dashed);
        svg.end_group();
    }
}

/// The tooltip of a curve: its p50, p99 and p99.9.
fn tip(label: &str, c: &LatencyCurve) -> String {
    let at = |want: f64| {
        c.points
            .iter()
            .find(|(p, _)| (*p - want).abs() < 1e-9)
            .map_or("-".to_string(), |(_, v)| crate::format::duration_ns(*v))
    };
    format!(
        "{label}: p50 {}, p99 {}, p99.9 {} ({} operations)",
        at(50.0),
        at(99.0),
        at(99.9),
        c.count
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_only_at_the_nines_and_a_log_latency_axis() {
        let c = LatencyCurve {
            count: 20_000,
            points: vec![
                (0.0, 900.0),
                (50.0, 1_000.0),
                (99.0, 40_000.0),
                (99.99, 2e6),
            ],
        };
        let curves = vec![Curve {
            label: "ext4".into(),
            target: "ext4".into(),
            dashed: false,
            curve: &c,
        }];
        let mut p = Palette::default();
        p.add("ext4");
        let svg = draw("rand-read", &[(CacheState::Warm, curves)], &p);
        for t in ["p50", "p90", "p99", "p99.9", "p99.99", "1 µs", "1 ms"] {
            assert!(svg.contains(&format!(">{t}</text>")), "{t} missing: {svg}");
        }
        assert!(!svg.contains("p68") && !svg.contains("p96"));
        assert!((nines(99.9) - 3.0).abs() < 1e-9);
    }
}
