//! `fsbench trend` on a terminal: one row per cell (runs, the newest median, a sparkline of the
//! medians oldest to newest, the steps), then one line per step, newest first, with the
//! environment changes beside it ("stepped down 67% (proven at 95%) at run X (date):
//! same filesystem: tmpfs → ext4").

use crate::format::metric_value;
use crate::table::terminal::Style;
use crate::table::{Cell, Column, Table, Tone};
use fsbench_model::trend::{Trend, TrendCell, TrendStep};

/// Bars of a sparkline, lowest first.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// Most characters of a sparkline: longer histories are averaged into this many.
pub const SPARK_WIDTH: usize = 24;

/// `values` as a sparkline of at most `width` bars, the lowest value `▁` and the highest `█`
/// unless they are within a tenth of each other (then a ripple around the middle); a history
/// longer than `width` is averaged bar by bar.
pub fn sparkline(values: &[f64], width: usize) -> String {
    let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if values.is_empty() || width == 0 {
        return String::new();
    }
    let bars = values.len().min(width);
    let buckets: Vec<f64> = (0..bars)
        .map(|b| {
            let (from, to) = (b * values.len() / bars, (b + 1) * values.len() / bars);
            values[from..to].iter().sum::<f64>() / (to - from) as f64
        })
        .collect();
    let (min, max) = buckets
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    // A span of at least a tenth of the values: a few percent of noise is a ripple, not the
    // whole height.
    let span = (max - min).max(0.1 * min.abs().max(max.abs()));
    let (lo, hi) = ((min + max - span) / 2.0, (min + max + span) / 2.0);
    buckets
        .iter()
        .map(|&v| {
            let k = if hi > lo {
                ((v - lo) / (hi - lo) * 7.0).round() as usize
            } else {
                3
            };
            BARS[k.min(7)]
        })
        .collect()
}

/// The table of cells.
pub fn table(t: &Trend) -> Table {
    let mut table = Table::new(
        "Trends across runs (headline medians, oldest → newest)",
        vec![
            Column::text("cell"),
            Column::number("runs"),
            Column::number("newest median"),
            Column::number("newest 95% CI").optional(1),
            Column::text("trend"),
            Column::number("steps"),
        ],
    );
    for c in &t.cells {
        let newest = c.runs.last();
        let ci = newest.and_then(|r| Some((r.ci95_low?, r.ci95_high?)));
        let steps = Cell {
            text: c.steps.len().to_string(),
            tone: c.newest_on_worse_side.then_some(Tone::Worse),
        };
        let medians: Vec<f64> = c.runs.iter().map(|r| r.median).collect();
        table.push(vec![
            c.name.clone().into(),
            c.runs.len().to_string().into(),
            newest
                .map_or_else(|| "-".into(), |r| metric_value(&c.metric, r.median))
                .into(),
            ci.map_or_else(
                || "-".into(),
                |(lo, hi)| {
                    format!(
                        "{} – {}",
                        metric_value(&c.metric, lo),
                        metric_value(&c.metric, hi)
                    )
                },
            )
            .into(),
            sparkline(&medians, SPARK_WIDTH).into(),
            steps,
        ]);
    }
    table
}

/// One step in words: `CELL: stepped down 67% (worse, proven at 95%) at run ID (DATE): CHANGES`.
pub fn step_line(c: &TrendCell, s: &TrendStep, confidence: f64) -> String {
    let way = if s.after < s.before { "down" } else { "up" };
    let judged = if s.worse { "worse" } else { "better" };
    let env = if s.environment.is_empty() {
        "no environment difference recorded".to_string()
    } else {
        s.environment.join("; ")
    };
    format!(
        "{}: stepped {way} {:.0}% ({judged}, {} → {}, proven at {}%) at run {} ({}): {env}",
        c.name,
        s.change_pct.abs(),
        metric_value(&c.metric, s.before),
        metric_value(&c.metric, s.after),
        crate::format::count(confidence),
        s.run_id,
        s.started_at
    )
}

/// The whole terminal text: the table, each step newest first, and each newest run that alone
/// differs.
pub fn text(t: &Trend, style: Style) -> String {
    let mut out = crate::table::terminal::render(&table(t), style);
    let mut steps: Vec<(&TrendCell, &TrendStep)> = t
        .cells
        .iter()
        .flat_map(|c| c.steps.iter().map(move |s| (c, s)))
        .collect();
    // Newest first across cells (each cell's steps already are).
    steps.sort_by(|a, b| b.1.started_at.cmp(&a.1.started_at));
    if steps.is_empty() {
        out.push_str("no lasting step in any cell\n");
    }
    for (c, s) in steps {
        out.push_str(&step_line(c, s, t.confidence));
        out.push('\n');
    }
    for line in t.cells.iter().filter_map(newest_line) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// When the newest run alone differs from the runs since the last step: that, in words.
pub fn newest_line(c: &TrendCell) -> Option<String> {
    let (level, newest) = (c.newest_differs_from?, c.runs.last()?);
    Some(format!(
        "{}: the newest run {} differs ({} against {} since the last step) — one run, not yet a lasting step",
        c.name,
        newest.run_id,
        metric_value(&c.metric, newest.median),
        metric_value(&c.metric, level)
    ))
}

/// The trends as the JSON of `--export-json` (`docs/formats.md`).
pub fn json(t: &Trend) -> String {
    serde_json::to_string_pretty(t).expect("invariant: a trend serialises") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparkline_spans_the_bars_and_averages_long_histories() {
        assert_eq!(
            sparkline(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], 24),
            "▁▂▃▄▅▆▇█"
        );
        assert_eq!(sparkline(&[5.0, 5.0], 24), "▅▅");
        assert_eq!(sparkline(&[100.0, 102.0, 98.0], 24), "▅▆▃");
        let long: Vec<f64> = (0..1000).map(|i| if i < 500 { 1.0 } else { 2.0 }).collect();
        let s = sparkline(&long, 10);
        assert_eq!(s, "▁▁▁▁▁█████");
        assert_eq!(sparkline(&[], 10), "");
    }
}
