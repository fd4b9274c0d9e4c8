//! Distributions: for one workload, every sample of every target a dot, the median a black tick
//! and the 95% confidence interval of the mean a bar in the target's colour (clipped at zero and
//! at the panel's edge). Cold and warm are separate panels with their own scales, so cold disk
//! results are not squashed against zero by warm ones a hundred times larger.

use super::axis::{self, Linear};
use super::palette::{GRID, INK, MUTED, Palette};
use super::svg::{Anchor, Svg, fit, text_width};
use fsbench_model::{Better, CacheState, ResultEntry};

/// One row of the chart: a target (and swept values), with its cell in each panel.
pub struct Row<'a> {
    /// `disk`, `disk workers=2`.
    pub label: String,
    /// The target label (for its colour).
    pub target: String,
    /// The row's cell per panel (same order as the panels), `None` when not measured.
    pub cells: Vec<Option<&'a ResultEntry>>,
}

/// A chart: a title, the metric, its panels (cache states) and rows.
pub struct Chart<'a> {
    /// `seq-read bs=1m`.
    pub title: String,
    /// The metric drawn.
    pub metric: String,
    /// The cache state of each panel.
    pub panels: Vec<CacheState>,
    /// The rows.
    pub rows: Vec<Row<'a>>,
}

const WIDTH: f64 = 880.0;
const ROW: f64 = 24.0;
const TOP: f64 = 58.0;
const GAP: f64 = 28.0;
/// Room around a row label: the swatch before it and a gap after it.
const LABEL_PAD: f64 = 36.0;

/// The finite values of `metric` over the samples of `e`.
pub(super) fn values(e: &ResultEntry, metric: &str) -> Vec<f64> {
    e.samples
        .iter()
        .filter_map(|s| s.metrics.get(metric).copied())
        .filter(|v| v.is_finite())
        .collect()
}

/// The CI of the mean of `e`'s metric, clipped at zero for metrics that cannot be negative.
fn ci(e: &ResultEntry, metric: &str) -> Option<(f64, f64)> {
    let s = e.summary.get(metric)?;
    let h = s.ci95.filter(|h| h.is_finite())?;
    let lo = if s.min >= 0.0 {
        (s.mean - h).max(0.0)
    } else {
        s.mean - h
    };
    Some((lo, s.mean + h))
}

/// The x axis of one panel, over its samples and CIs.
fn panel_axis(chart: &Chart<'_>, p: usize) -> Linear {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for row in &chart.rows {
        let Some(e) = row.cells[p] else { continue };
        let ci = ci(e, &chart.metric);
        for v in values(e, &chart.metric)
            .into_iter()
            .chain(ci.map(|c| c.0))
            .chain(ci.map(|c| c.1))
        {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    axis::linear(lo, hi, axis::kind_of(&chart.metric), false)
}

/// Where the panel's plot area lies: left edge and width.
fn panel_box(label_w: f64, panels: usize, p: usize) -> (f64, f64) {
    let n = panels.max(1) as f64;
    let w = (WIDTH - label_w - 16.0 - GAP * (n - 1.0)) / n;
    (label_w + p as f64 * (w + GAP), w)
}

fn panel_name(c: CacheState) -> &'static str {
    match c {
        CacheState::Cold => "cold (caches dropped before each sample)",
        CacheState::Warm => "warm (re-run with the page cache full)",
    }
}

/// The direction of a metric in words.
pub fn direction(metric: &str) -> &'static str {
    match fsbench_model::unit_of(metric).1 {
        Better::Higher => "higher is better",
        Better::Lower => "lower is better",
    }
}

/// Draws the chart as SVG.
pub fn draw(chart: &Chart<'_>, palette: &Palette) -> String {
    let label_w = chart
        .rows
        .iter()
        .map(|r| text_width(&r.label, 12.0) + LABEL_PAD)
        .fold(90.0, f64::max)
        .min(260.0);
    let height = TOP + ROW * chart.rows.len() as f64 + 48.0;
    let title = format!(
        "{} · {} — {}",
        chart.title,
        fsbench_model::label_of(&chart.metric),
        direction(&chart.metric)
    );
    let mut svg = Svg::new(WIDTH, height, &title);
    svg.bold(
        8.0,
        20.0,
        &fit(&title, 14.0, WIDTH - 16.0),
        Anchor::Start,
        14.0,
        INK,
    );
    for (i, row) in chart.rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        if i % 2 == 0 {
            svg.rect(8.0, y, WIDTH - 16.0, ROW, "#f6f7f9", "");
        }
        svg.rect(
            10.0,
            y + ROW / 2.0 - 5.0,
            10.0,
            10.0,
            palette.of(&row.target),
            "",
        );
        let text = fit(&row.label, 12.0, label_w - LABEL_PAD);
        svg.text(24.0, y + ROW / 2.0 + 4.0, &text, Anchor::Start, 12.0, INK);
    }
    for p in 0..chart.panels.len() {
        draw_panel(&mut svg, chart, p, label_w, palette);
    }
    svg.finish()
}

fn draw_panel(svg: &mut Svg, chart: &Chart<'_>, p: usize, label_w: f64, palette: &Palette) {
    let (x0, w) = panel_box(label_w, chart.panels.len(), p);
    let ax = panel_axis(chart, p);
    let x = |v: f64| x0 + (v - ax.lo) / (ax.hi - ax.lo) * w;
    let bottom = TOP + ROW * chart.rows.len() as f64;
    svg.bold(
        x0,
        TOP - 10.0,
        &fit(panel_name(chart.panels[p]), 12.0, w),
        Anchor::Start,
        12.0,
        INK,
    );
    for (v, label) in &ax.ticks {
        let tx = x(*v);
        svg.line(tx, TOP, tx, bottom, GRID, 1.0);
        svg.text(tx, bottom + 15.0, label, Anchor::Middle, 11.0, MUTED);
    }
    svg.line(x0, bottom, x0 + w, bottom, MUTED, 1.0);
    svg.text(
        x0 + w / 2.0,
        bottom + 32.0,
        &ax.unit,
        Anchor::Middle,
        12.0,
        MUTED,
    );
    for (i, row) in chart.rows.iter().enumerate() {
        let yc = TOP + ROW * i as f64 + ROW / 2.0;
        let Some(e) = row.cells[p] else {
            svg.text(
                x0 + 4.0,
                yc + 4.0,
                "not measured",
                Anchor::Start,
                11.0,
                MUTED,
            );
            continue;
        };
        let color = palette.of(&row.target);
        let s = e.summary.get(&chart.metric);
        svg.group_with_tip(&tip(e, &row.label, &chart.metric));
        if let Some((lo, hi)) = ci(e, &chart.metric) {
            let (a, b) = (x(lo.max(ax.lo)), x(hi.min(ax.hi)));
            svg.band(a, yc - 8.0, b - a, 16.0, color);
        }
        let v = values(e, &chart.metric);
        let n = v.len().max(1) as f64;
        for (k, val) in v.iter().enumerate() {
            let jitter = -7.0 + 14.0 * (k as f64 + 0.5) / n;
            svg.circle(x(*val), yc + jitter, 3.0, color, false);
        }
        if let Some(s) = s.filter(|s| s.median.is_finite()) {
            let mx = x(s.median);
            svg.line(mx, yc - 9.0, mx, yc + 9.0, INK, 2.0);
        }
        svg.end_group();
    }
}

/// The tooltip of a row: median, mean and CI in the metric's unit.
fn tip(e: &ResultEntry, label: &str, metric: &str) -> String {
    let v = |x: f64| crate::format::metric_value(metric, x);
    match e.summary.get(metric) {
        Some(s) => format!(
            "{label}, {}: median {}, mean {}{}, n = {}",
            e.cache.state,
            v(s.median),
            v(s.mean),
            s.ci95.map(|h| format!(" ± {}", v(h))).unwrap_or_default(),
            s.n
        ),
        None => format!("{label}, {}", e.cache.state),
    }
}
