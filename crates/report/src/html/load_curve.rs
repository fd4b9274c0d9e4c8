//! Latency against load (`rate=curve`): for each cell, its steps' achieved rate on the x axis
//! and their latency from scheduled start on a log y axis, p99 solid and p50 dashed in the
//! target's colour, the knee ringed. One chart per workload, every target's curve on it.

use super::axis::{self, Kind};
use super::palette::{GRID, INK, MUTED, Palette};
use super::svg::{Anchor, Svg, fit, text_width};
use crate::names::CellNames;
use fsbench_model::{ResultEntry, RunRecord};
use std::fmt::Write;

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 320.0;
const LEFT: f64 = 64.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 46.0;

/// One cell's curve: (IOPS, p50 ns, p99 ns, load %) per step, and the knee's load.
struct Steps {
    label: String,
    target: String,
    points: Vec<(f64, f64, f64, u32)>,
    knee: Option<u32>,
}

fn steps(e: &ResultEntry, label: String) -> Option<Steps> {
    let all = crate::tables::load::curve_steps(e);
    let points: Vec<(f64, f64, f64, u32)> = all
        .iter()
        .filter_map(|s| Some((s.iops, s.p50_ns?, s.p99_ns?, s.load_pct)))
        .collect();
    (points.len() >= 2).then(|| Steps {
        label,
        target: e.target.clone(),
        points,
        knee: all.iter().find(|s| s.knee).map(|s| s.load_pct),
    })
}

/// The charts of every workload with `rate=curve` cells, into `out`.
pub fn section(r: &RunRecord, names: &CellNames, palette: &Palette, out: &mut String) {
    let mut groups: Vec<(String, Vec<Steps>)> = Vec::new();
    for (i, e) in r.results.iter().enumerate() {
        let label = format!("{} ({}){}", e.target, e.cache.state, names.sweep(i));
        let Some(s) = steps(e, label) else { continue };
        let base = names.base(i).to_string();
        match groups.iter_mut().find(|(b, _)| *b == base) {
            Some((_, v)) => v.push(s),
            None => groups.push((base, vec![s])),
        }
    }
    for (base, curves) in groups {
        let _ = writeln!(
            out,
            "<figure class=\"chart load\">{}</figure>",
            draw(&base, &curves, palette)
        );
    }
}

fn draw(title: &str, curves: &[Steps], palette: &Palette) -> String {
    let legend_w = curves
        .iter()
        .map(|c| text_width(&c.label, 12.0) + 40.0)
        .fold(150.0, f64::max)
        .min(240.0);
    let full = format!(
        "{title} — latency against load (rate=curve): p99 solid, p50 dashed, ○ the knee; log scale, lower is better"
    );
    let mut svg = Svg::new(WIDTH, HEIGHT, &full);
    svg.title(&full, WIDTH);
    let all = curves.iter().flat_map(|c| &c.points);
    let xmax = all.clone().map(|p| p.0).fold(0.0, f64::max);
    let (ylo, yhi) = all
        .flat_map(|p| [p.1, p.2])
        .filter(|v| *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    let (ylo, yhi) = if ylo.is_finite() {
        (ylo / 1.3, (yhi * 1.3).max(ylo * 4.0))
    } else {
        (1.0, 10.0)
    };
    let xa = axis::linear(0.0, xmax, Kind::Plain("IOPS"), true);
    let (x0, w, bottom) = (LEFT, WIDTH - legend_w - LEFT - 24.0, HEIGHT - BOTTOM);
    let x = |v: f64| x0 + (v - xa.lo) / (xa.hi - xa.lo).max(1e-9) * w;
    let y = |v: f64| bottom - (v.max(ylo).ln() - ylo.ln()) / (yhi.ln() - ylo.ln()) * (bottom - TOP);
    for t in axis::log_ticks(ylo, yhi) {
        svg.line(x0, y(t), x0 + w, y(t), GRID, 1.0);
        let label = axis::duration_tick(t);
        svg.text(x0 - 6.0, y(t) + 4.0, &label, Anchor::End, 11.0, MUTED);
    }
    for (v, label) in &xa.ticks {
        svg.line(x(*v), TOP, x(*v), bottom, GRID, 1.0);
        svg.text(x(*v), bottom + 15.0, label, Anchor::Middle, 11.0, MUTED);
    }
    svg.line(x0, bottom, x0 + w, bottom, MUTED, 1.0);
    svg.line(x0, TOP, x0, bottom, MUTED, 1.0);
    let xtitle = format!("achieved rate ({})", xa.unit).replace(" ()", "");
    svg.text(
        x0 + w / 2.0,
        bottom + 32.0,
        &xtitle,
        Anchor::Middle,
        12.0,
        MUTED,
    );
    for c in curves {
        let color = palette.of(&c.target);
        let p99: Vec<(f64, f64)> = c.points.iter().map(|p| (x(p.0), y(p.2))).collect();
        let p50: Vec<(f64, f64)> = c.points.iter().map(|p| (x(p.0), y(p.1))).collect();
        svg.group_with_tip(&tip(c));
        svg.polyline(&p99, color, 2.0, false);
        svg.polyline(&p50, color, 1.5, true);
        if let Some(k) = c.points.iter().find(|p| Some(p.3) == c.knee) {
            svg.circle(x(k.0), y(k.2), 6.0, color, true);
        }
        svg.end_group();
    }
    let lx = WIDTH - legend_w;
    for (k, c) in curves.iter().enumerate() {
        let ly = TOP + 22.0 * k as f64;
        svg.line(lx, ly, lx + 24.0, ly, palette.of(&c.target), 2.5);
        let label = fit(&c.label, 12.0, legend_w - 34.0);
        svg.text(lx + 30.0, ly + 4.0, &label, Anchor::Start, 12.0, INK);
    }
    svg.finish()
}

/// The tooltip: every step's load, rate and p99, the knee marked.
fn tip(c: &Steps) -> String {
    let steps: Vec<String> = c
        .points
        .iter()
        .map(|p| {
            let mark = if Some(p.3) == c.knee { " (knee)" } else { "" };
            format!(
                "{}%{mark}: {} IOPS, p99 {}",
                p.3,
                crate::format::count(p.0),
                crate::format::duration_ns(p.2)
            )
        })
        .collect();
    format!("{}: {}", c.label, steps.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{Better, MetricSummary};

    fn put(e: &mut ResultEntry, name: &str, v: f64) {
        e.summary.insert(
            name.into(),
            MetricSummary {
                n: 1,
                min: v,
                max: v,
                median: v,
                mean: v,
                stddev: 0.0,
                ci95: None,
                unit: String::new(),
                better: Better::Higher,
            },
        );
    }

    #[test]
    fn a_curve_cell_gets_its_chart_with_the_knee_ringed() {
        let mut r = crate::export::tests::record();
        let e = &mut r.results[0];
        for (k, &p) in fsbench_model::metric::CURVE_STEPS.iter().enumerate() {
            let name = |what| fsbench_model::metric::curve_step(p, what);
            put(e, &name("iops"), 1000.0 * f64::from(p));
            put(e, &name("p50_ns"), 2_000.0);
            put(e, &name("p99_ns"), 10_000.0 * (1.0 + (k as f64).powi(3)));
        }
        put(e, "knee_load_pct", 80.0);
        let names = CellNames::new(&r.results);
        let mut palette = Palette::default();
        palette.add(&r.results[0].target);
        let mut out = String::new();
        section(&r, &names, &palette, &mut out);
        assert_eq!(
            out.matches("<figure class=\"chart load\">").count(),
            1,
            "{out}"
        );
        assert!(out.contains("latency against load"), "{out}");
        assert!(out.contains("80% (knee)"), "{out}");
        assert_eq!(out.matches("<circle").count(), 1, "{out}");
        let mut none = String::new();
        section(&crate::export::tests::record(), &names, &palette, &mut none);
        assert!(none.is_empty());
    }
}
