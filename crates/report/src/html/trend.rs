//! `fsbench trend --html FILE`: one chart per cell of its headline across runs — runs on x,
//! oldest left, the median line inside the band of each run's 95% confidence interval, and each
//! step a dashed vertical line before its first run (red worse, green better) labelled with its
//! change, its environment differences in the hover title — then the steps in words.

use super::axis;
use super::palette::{BETTER, GRID, INK, MUTED, WORSE};
use super::svg::{Anchor, Svg, esc, fit};
use fsbench_model::trend::{Trend, TrendCell};
use std::fmt::Write;

const W: f64 = 760.0;
const H: f64 = 290.0;
const LEFT: f64 = 72.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 52.0;
const BOTTOM: f64 = 40.0;
/// Runs drawn as dots too (beyond this, the line alone).
const DOTS_UP_TO: usize = 80;

/// The whole page.
pub fn page(t: &Trend) -> String {
    let runs = t.cells.iter().map(|c| c.runs.len()).max().unwrap_or(0);
    let title = format!("fsbench: trends over {runs} runs");
    let mut out = String::with_capacity(64 * 1024);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{}</style></head><body>\n<h1>{}</h1>\n<p class=\"meta\">Each cell's headline in every stored run, oldest left: the line is each run's median, the band the 95% confidence interval of its mean. A dashed line marks a step, a lasting change proven at {}% (red worse, green better); hover it for what changed in the environment.</p>\n",
        esc(&title),
        super::CSS,
        esc(&title),
        crate::format::count(t.confidence)
    );
    if t.cells.is_empty() {
        out.push_str("<p>No cell matched.</p>\n");
    }
    for c in &t.cells {
        let _ = writeln!(out, "<figure class=\"chart trend\">{}", chart(c));
        out.push_str("<figcaption><ul>");
        for s in &c.steps {
            let _ = write!(
                out,
                "<li class=\"{}\">{}</li>",
                if s.worse { "worse" } else { "better" },
                esc(&crate::trend::step_line(c, s, t.confidence))
            );
        }
        if let Some(line) = crate::trend::newest_line(c) {
            let _ = write!(out, "<li class=\"nc\">{}</li>", esc(&line));
        }
        if c.steps.is_empty() {
            out.push_str("<li class=\"same\">no lasting step</li>");
        }
        out.push_str("</ul></figcaption></figure>\n");
    }
    out.push_str("<p class=\"meta\">Made by fsbench, offline.</p>\n</body></html>\n");
    super::svg::esc_controls(&out)
}

/// One cell's chart.
fn chart(c: &TrendCell) -> String {
    let n = c.runs.len().max(1);
    let lo = c
        .runs
        .iter()
        .map(|r| r.ci95_low.unwrap_or(r.median).min(r.median))
        .fold(f64::INFINITY, f64::min);
    let hi = c
        .runs
        .iter()
        .map(|r| r.ci95_high.unwrap_or(r.median).max(r.median))
        .fold(f64::NEG_INFINITY, f64::max);
    // A wide interval of few samples may reach below zero; a metric that never does is drawn
    // from zero at most.
    let lo = match c.runs.iter().all(|r| r.median >= 0.0) {
        true => lo.max(0.0),
        false => lo,
    };
    let ax = axis::linear(lo, hi, axis::kind_of(&c.metric), false);
    let (pw, ph) = (W - LEFT - RIGHT, H - TOP - BOTTOM);
    let x = |i: f64| LEFT + (i + 0.5) * pw / n as f64;
    let y = |v: f64| {
        let v = v.clamp(ax.lo, ax.hi);
        TOP + ph - (v - ax.lo) / (ax.hi - ax.lo).max(f64::MIN_POSITIVE) * ph
    };
    let mut s = Svg::new(W, H, &c.name);
    s.title(&c.name, W);
    for (v, label) in &ax.ticks {
        s.line(LEFT, y(*v), W - RIGHT, y(*v), GRID, 1.0);
        s.text(LEFT - 5.0, y(*v) + 4.0, label, Anchor::End, 11.0, MUTED);
    }
    let unit = if ax.unit.is_empty() {
        c.unit.clone()
    } else {
        ax.unit.clone()
    };
    let (_, better) = fsbench_model::unit_of(&c.metric);
    let way = match better {
        fsbench_model::Better::Higher => "higher is better",
        fsbench_model::Better::Lower => "lower is better",
    };
    s.text(
        LEFT,
        TOP - 8.0,
        &format!("{unit}, {way}"),
        Anchor::Start,
        11.0,
        MUTED,
    );
    let band = |f: fn(&fsbench_model::trend::TrendRun) -> Option<f64>| -> Vec<(f64, f64)> {
        c.runs
            .iter()
            .enumerate()
            .map(|(i, r)| (x(i as f64), y(f(r).unwrap_or(r.median))))
            .collect()
    };
    s.area(&band(|r| r.ci95_high), &band(|r| r.ci95_low), "#2f6bd0");
    let line: Vec<(f64, f64)> = c
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| (x(i as f64), y(r.median)))
        .collect();
    s.polyline(&line, "#2f6bd0", 1.8, false);
    if c.runs.len() <= DOTS_UP_TO {
        for (i, r) in c.runs.iter().enumerate() {
            s.group_with_tip(&format!(
                "run {} ({}): median {}",
                r.run_id,
                r.started_at,
                crate::format::metric_value(&c.metric, r.median)
            ));
            s.circle(line[i].0, line[i].1, 3.0, "#2f6bd0", false);
            s.end_group();
        }
    } else if let Some(&(px, py)) = line.last() {
        s.circle(px, py, 3.0, "#2f6bd0", false);
    }
    step_markers(&mut s, c, &|i| x(i), ph);
    let date = |i: usize| {
        c.runs
            .get(i)
            .map_or("", |r| r.started_at.get(..10).unwrap_or(&r.started_at))
    };
    s.text(LEFT, H - 22.0, date(0), Anchor::Start, 11.0, MUTED);
    s.text(W - RIGHT, H - 22.0, date(n - 1), Anchor::End, 11.0, MUTED);
    s.text(
        LEFT + pw / 2.0,
        H - 8.0,
        &format!("{} runs, oldest → newest", c.runs.len()),
        Anchor::Middle,
        11.0,
        INK,
    );
    s.finish()
}

/// Each step: a dashed vertical line before its first run (`x` of a run index), in red or
/// green, labelled with its change; its environment differences in the hover title.
fn step_markers(s: &mut Svg, c: &TrendCell, x: &dyn Fn(f64) -> f64, ph: f64) {
    for (k, st) in c.steps.iter().enumerate() {
        let sx = x(st.index as f64 - 0.5);
        let colour = if st.worse { WORSE } else { BETTER };
        let what = if st.environment.is_empty() {
            "no environment difference recorded".to_string()
        } else {
            st.environment.join("; ")
        };
        s.marked_group(
            "step",
            &format!(
                "{:+.0}% at run {} ({}): {what}",
                st.change_pct, st.run_id, st.started_at
            ),
        );
        s.dashed(sx, TOP, sx, TOP + ph, colour, 1.6);
        let label = fit(
            &format!("{:+.0}%: {what}", st.change_pct),
            11.0,
            W - sx - RIGHT,
        );
        let ly = TOP + 14.0 + 14.0 * (k % 4) as f64;
        s.text(sx + 4.0, ly, &label, Anchor::Start, 11.0, colour);
        s.end_group();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::trend::{TrendRun, TrendStep};

    fn cell() -> TrendCell {
        let runs = (0..8)
            .map(|i| TrendRun {
                run_id: format!("r{i}"),
                started_at: format!("2026-01-0{}T00:00:00Z", i + 1),
                n: 3,
                median: if i < 4 { 900.0 } else { 300.0 },
                mean: if i < 4 { 900.0 } else { 300.0 },
                ci95_low: Some(if i < 4 { 880.0 } else { 290.0 }),
                ci95_high: Some(if i < 4 { 920.0 } else { 310.0 }),
            })
            .collect();
        TrendCell {
            name: "same/<seq-write>/warm".into(),
            target: "same".into(),
            workload: "seq-write".into(),
            params: Default::default(),
            sweep: Default::default(),
            cache: fsbench_model::CacheState::Warm,
            metric: fsbench_model::metric::THROUGHPUT_MIB_S.into(),
            unit: "MiB/s".into(),
            better: fsbench_model::Better::Higher,
            runs,
            steps: vec![TrendStep {
                index: 4,
                run_id: "r4".into(),
                started_at: "2026-01-05T00:00:00Z".into(),
                previous_run_id: "r3".into(),
                before: 900.0,
                after: 300.0,
                change_pct: -66.7,
                worse: true,
                environment: vec!["same filesystem: tmpfs → ext4".into()],
            }],
            newest_differs_from: None,
            newest_on_worse_side: true,
        }
    }

    #[test]
    fn a_step_is_drawn_with_its_environment_change_and_text_is_escaped() {
        let page = page(&Trend {
            confidence: 95.0,
            cells: vec![cell()],
        });
        assert_eq!(page.matches("<svg").count(), 1);
        assert_eq!(page.matches("<g class=\"step\">").count(), 1);
        assert!(
            page.contains("tmpfs → ext4") && page.contains("-67%"),
            "{page}"
        );
        assert!(page.contains("<polygon") && page.contains("<polyline"));
        assert!(page.contains("&lt;seq-write&gt;") && !page.contains("<seq-write>"));
        assert!(page.contains("stepped down 67% (worse"), "{page}");
    }
}
