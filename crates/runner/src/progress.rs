//! What a run shows on stderr while it works, rendered from the runner's typed events: on a
//! terminal an `indicatif` bar (the cell, sample n of N or "auto", elapsed and ETA, the last
//! sample's headline) and a spinner while a workload prepares; otherwise (a pipe, `TERM=dumb`,
//! `NO_COLOR` or `--quiet` for the bar) one plain line per event, as before. Warnings are always
//! lines.

use crate::Event;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// The progress display of one run.
pub struct Progress {
    quiet: bool,
    bar: Option<ProgressBar>,
    /// The (workload, target) pairs already said prepared: a sweep's or a card's cells are one
    /// workload prepared once per point (a card's 57 points said "fx prepared" 57 times).
    announced: std::collections::HashSet<(String, String)>,
    /// Writes one line to stderr without a bar (the binary's, which says nothing on an MPI
    /// rank other than 0).
    say: fn(&str),
}

/// Whether stderr can show a live bar: a terminal that is not `dumb`.
fn live() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

impl Progress {
    /// A display for a run of `total` samples (`None`: adaptive); no bar when `quiet` or when
    /// stderr is not a live terminal. The bar shows the rate of the interval that just ended in
    /// the running sample, from `live`; lines without a bar go to `say`.
    pub fn new(
        quiet: bool,
        total: Option<u64>,
        rate: fsbench_measure::LiveRate,
        say: fn(&str),
    ) -> Self {
        let bar = (!quiet && live()).then(|| {
            let b = match total {
                Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
                None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            };
            let color = std::env::var_os("NO_COLOR").is_none();
            let template = if color {
                "{spinner:.cyan} [{elapsed_precise}] {bar:30.cyan/blue} {pos}/{len} (eta {eta}) {now}{msg}"
            } else {
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} (eta {eta}) {now}{msg}"
            };
            let style = match total {
                Some(_) => ProgressStyle::with_template(template),
                None => ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {pos} samples {now}{msg}",
                ),
            };
            if let Ok(s) = style {
                b.set_style(s.with_key(
                    "now",
                    move |_: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        if let Some(r) = rate.latest() {
                            let _ = write!(w, "now {} · ", now_rate(r));
                        }
                    },
                ));
            }
            b.enable_steady_tick(Duration::from_millis(200));
            b
        });
        Self {
            quiet,
            bar,
            announced: Default::default(),
            say,
        }
    }

    /// Shows one event.
    pub fn show(&mut self, e: &Event<'_>) {
        match e {
            Event::Leftover { scratch, target } => self.line(&format!(
                "warning: leftover scratch {} from a run that is gone — 'fsbench clean {}' removes it",
                scratch.display(),
                target.display()
            ), true),
            Event::Preparing { workload, target } => {
                if let Some(b) = &self.bar {
                    b.set_message(format!("preparing {workload} on {target}"));
                }
            }
            Event::Prepared { workload, target } => {
                if self
                    .announced
                    .insert((workload.to_string(), target.to_string()))
                {
                    self.line(&format!("{workload} prepared on {target}"), false)
                }
            }
            Event::Sample { entry, n, of } => self.sample(entry, *n, *of),
            Event::Results(_) => {}
        }
    }

    fn sample(&mut self, entry: &fsbench_model::ResultEntry, n: usize, of: Option<u32>) {
        let v = entry
            .samples
            .last()
            .and_then(|s| s.metrics.get(&entry.headline).copied())
            .unwrap_or(f64::NAN);
        let value = fsbench_report::format::metric_value(&entry.headline, v);
        let count = of.map_or(format!("sample {n}"), |of| format!("sample {n}/{of}"));
        let text = format!(
            "{} on {} ({}): {count} {value}",
            entry.workload, entry.target, entry.cache.state
        );
        match &self.bar {
            Some(b) => {
                b.inc(1);
                // On a terminal, the sample's course beside its figure.
                let spark = entry
                    .samples
                    .last()
                    .map(|s| sparkline(&s.series, SPARK_WIDTH))
                    .filter(|s| !s.is_empty())
                    .map_or(String::new(), |s| format!(" {s}"));
                b.set_message(format!(
                    "{}{spark}",
                    fsbench_model::text::escape_controls(&text)
                ));
            }
            None => self.line(&text, false),
        }
    }

    /// A line above the bar (or alone); warnings show even when quiet.
    fn line(&self, text: &str, warning: bool) {
        if self.quiet && !warning {
            return;
        }
        let text = fsbench_model::text::escape_controls(text);
        match &self.bar {
            Some(b) => b.println(text),
            None => (self.say)(&text),
        }
    }

    /// Removes the bar so the final report starts on a clean screen.
    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

/// The running sample's current rate, as the bar shows it: MiB/s when it moves bytes, else
/// operations per second.
fn now_rate(r: fsbench_measure::Rate) -> String {
    if r.bytes_per_s > 0.0 {
        format!("{:.1} MiB/s", r.bytes_per_s / 1_048_576.0)
    } else if r.ops_per_s >= 1000.0 {
        format!("{:.1}k ops/s", r.ops_per_s / 1000.0)
    } else {
        format!("{:.0} ops/s", r.ops_per_s)
    }
}

/// Characters of a sample's sparkline.
const SPARK_WIDTH: usize = 24;

/// The throughput (bytes, else operations) of `series` as block characters, `width` at most,
/// each the mean of its share of the intervals, scaled to the highest: how the sample went.
/// Empty for a series of fewer than 4 intervals.
fn sparkline(series: &[fsbench_model::SeriesPoint], width: usize) -> String {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    if series.len() < 4 || width == 0 {
        return String::new();
    }
    let of_bytes = series.iter().any(|p| p.bytes > 0);
    let amount = |p: &fsbench_model::SeriesPoint| if of_bytes { p.bytes } else { p.ops } as f64;
    let cols = width.min(series.len());
    let buckets: Vec<f64> = (0..cols)
        .map(|c| {
            let (a, b) = (c * series.len() / cols, (c + 1) * series.len() / cols);
            let last = &series[b - 1];
            let start = if a == 0 { 0 } else { series[a - 1].t_ns };
            let ns = last.t_ns.saturating_sub(start).max(1) as f64;
            series[a..b].iter().map(amount).sum::<f64>() / ns
        })
        .collect();
    let top = buckets.iter().copied().fold(0.0, f64::max);
    if top <= 0.0 {
        return String::new();
    }
    buckets
        .iter()
        .map(|v| BLOCKS[((v / top) * 7.0).round().clamp(0.0, 7.0) as usize])
        .collect()
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

impl crate::Sink for Progress {
    fn event(&mut self, e: crate::Event<'_>) {
        self.show(&e);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sparkline_shows_a_cliff_and_is_empty_without_a_series() {
        let series: Vec<fsbench_model::SeriesPoint> = (1..=48u64)
            .map(|k| fsbench_model::SeriesPoint {
                t_ns: k * 10,
                bytes: if k <= 12 { 800 } else { 100 },
                ..Default::default()
            })
            .collect();
        let s = sparkline(&series, 24);
        assert_eq!(s.chars().count(), 24);
        assert!(s.starts_with("██████▂"), "{s}");
        assert!(s.ends_with('▂'), "{s}");
        assert_eq!(sparkline(&series[..3], 24), "");
        assert_eq!(sparkline(&series, 0), "");
    }
}
