//! The offline HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or
//! links that fetch anything) with, per run, the environment of every target, the headline table,
//! a strip plot of each workload's samples (median and 95% CI, cold beside warm), latency
//! percentile curves from the stored histograms, scaling curves, the comparisons with ministat's
//! plot, and every warning; several runs are also compared with one another. Readable at 1280 px
//! and on a phone, and printable.

mod charts;
mod series;

use crate::format::{bytes, metric_number};
use crate::terminal::{label_of, metric_label, ministat_block};
use charts::{Curve, StripRow};
use fsbench_model::{CacheState, Comparison, ResultEntry, RunRecord};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Everything the report shows.
pub(crate) struct HtmlInput<'a> {
    /// The runs, oldest first (the first is the baseline of cross-run comparisons).
    pub runs: Vec<&'a RunRecord>,
    /// Cross-run comparisons: a heading, the environment differences, and a record holding both
    /// runs' cells (targets prefixed `A:`/`B:`) with the comparisons.
    pub cross: &'a [CrossRun],
    /// Latency percentile curves (percentile, ns) by run index and cell index.
    pub latency: &'a BTreeMap<(usize, usize), Vec<(f64, f64)>>,
}

/// One comparison of two runs.
pub struct CrossRun {
    /// `A = …, B = …`.
    pub heading: String,
    /// The environments' differences, in words.
    pub environment: Vec<String>,
    /// Both runs' cells and the comparisons.
    pub merged: RunRecord,
}

const CSS: &str = "
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1280px;padding:0 16px;color:#1d1d1f}
h1{font-size:1.6em;margin:.8em 0 .3em}h2{font-size:1.3em;margin-top:1.6em;border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:1.2em 0 .4em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.92em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums}
th{background:#f4f4f6}figure{margin:.6em 0 1.4em;break-inside:avoid}figure svg{width:100%;height:auto;max-width:760px}
pre{background:#f7f7f9;padding:8px;overflow-x:auto;font-size:.82em;line-height:1.25}
.proven{color:#a11;font-weight:600}.same{color:#2a6}.nc{color:#b60}.warn{color:#8a5300}.meta{color:#555;font-size:.9em}
@media (max-width:700px){body{font-size:14px;padding:0 8px}th,td{padding:2px 4px}}
@media print{body{max-width:none}h2{break-before:page}figure,table{break-inside:avoid}}
";

/// Escapes text for HTML.
fn esc(s: &str) -> String {
    // Control characters (other than newline and tab) are not valid in HTML text: shown as
    // visible escapes, as on terminals.
    let visible: String = s
        .chars()
        .flat_map(|c| match c {
            '\n' | '\t' => vec![c],
            c if c.is_control() => c.escape_unicode().collect(),
            c => vec![c],
        })
        .collect();
    visible
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The HTML report of a record, after the earlier runs it is compared with.
#[derive(Default)]
pub struct Html {
    /// Runs before the rendered one, oldest first (the first is the baseline of cross-run
    /// comparisons); empty for the report of one run.
    pub earlier: Vec<RunRecord>,
    /// Cross-run comparisons (see [`HtmlInput::cross`]).
    pub cross: Vec<CrossRun>,
    /// Latency percentile curves by run index (the rendered run last) and cell index.
    pub latency: BTreeMap<(usize, usize), Vec<(f64, f64)>>,
}

impl crate::export::Renderer for Html {
    fn format(&self) -> &'static str {
        "html"
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut runs: Vec<&RunRecord> = self.earlier.iter().collect();
        runs.push(record);
        let text = render(&HtmlInput {
            runs,
            cross: &self.cross,
            latency: &self.latency,
        });
        // Control characters are invalid in HTML and SVG text, wherever a label went (tables,
        // chart captions drawn by plotters): the whole document shows them as visible escapes.
        let visible: String = text
            .chars()
            .flat_map(|c| match c {
                '\n' | '\t' => vec![c],
                c if c.is_control() => c.escape_unicode().collect(),
                c => vec![c],
            })
            .collect();
        out.write_all(visible.as_bytes())
    }
}

/// The whole report.
fn render(input: &HtmlInput<'_>) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let title = match input.runs.as_slice() {
        [one] => format!("fsbench run {}", one.run.id),
        many => format!("fsbench: {} runs compared", many.len()),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    for cross in input.cross {
        cross_section(cross, &mut out);
    }
    for (ri, r) in input.runs.iter().enumerate() {
        run_section(ri, r, input, &mut out);
    }
    out.push_str("<p class=\"meta\">Made by fsbench. Dots are samples, black bars medians, coloured lines the 95% confidence interval of the mean (blue cold, orange warm).</p>\n</body></html>\n");
    out
}

fn cross_section(c: &CrossRun, out: &mut String) {
    let _ = writeln!(out, "<h2>{}</h2>", esc(&c.heading));
    if c.environment.is_empty() {
        out.push_str("<p>Environment: no differences recorded.</p>\n");
    } else {
        out.push_str("<p>Environment differences:</p><ul>\n");
        for d in &c.environment {
            let _ = writeln!(out, "<li>{}</li>", esc(d));
        }
        out.push_str("</ul>\n");
    }
    comparisons(&c.merged, out);
}

fn run_section(ri: usize, r: &RunRecord, input: &HtmlInput<'_>, out: &mut String) {
    let _ = writeln!(
        out,
        "<h2>Run {}</h2>\n<p class=\"meta\">{} · status {} · fsbench {} · {}</p>",
        esc(&r.run.id),
        esc(&r.run.started_at),
        esc(r.run.status.name()),
        esc(&r.run.fsbench_version),
        esc(&r.run.argv.join(" "))
    );
    environment(r, out);
    headline_table(r, out);
    why_table(r, out);
    crate::ranks::ranks_html(&r.results, esc, out);
    strip_charts(r, out);
    latency_charts(ri, r, input, out);
    series::section(r, esc, out);
    scaling_charts(r, out);
    comparisons(r, out);
    warnings(r, out);
}

fn environment(r: &RunRecord, out: &mut String) {
    let e = &r.environment;
    let _ = writeln!(
        out,
        "<h3>Environment</h3><p>{} · {} {} · {} · {} CPUs · {} RAM{}</p>",
        esc(&e.hostname),
        esc(&e.os),
        esc(&e.kernel),
        esc(&e.cpu_model),
        e.cpus,
        bytes(e.memory_bytes),
        if e.root { " · root" } else { "" }
    );
    out.push_str("<table><tr><th>target</th><th>path</th><th>filesystem</th><th>mount options</th><th>encryption</th><th>devices</th><th>free</th></tr>\n");
    for t in &e.targets {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td></tr>",
            esc(&t.label),
            esc(&t.path),
            esc(&t.fs_type),
            esc(&t.mount_options),
            esc(&t.encryption),
            esc(&t.device_chain.join(" › ")),
            bytes(t.free_bytes)
        );
    }
    out.push_str("</table>\n");
    for t in &e.targets {
        let lines = crate::terminal::stack_lines(t);
        if !lines.is_empty() {
            let _ = write!(out, "<p class=\"meta\">{}:</p><ul>", esc(&t.label));
            for l in lines {
                let _ = write!(out, "<li>{}</li>", esc(&l));
            }
            out.push_str("</ul>\n");
        }
    }
}

/// What bounded each cell, with the evidence, the FUSE daemon's CPU and the device's counters.
fn why_table(r: &RunRecord, out: &mut String) {
    if r.results.iter().all(|e| e.bound.is_none()) {
        return;
    }
    out.push_str("<h3>What bounded each result</h3><table><tr><th>cell</th><th>bound by</th><th>evidence</th><th>daemon CPU</th><th>device busy</th><th>device read</th><th>device written</th></tr>\n");
    let mean = |e: &ResultEntry, k: &str| e.summary.get(k).map(|s| s.mean);
    let pct = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |p| format!("{p:.0}%"));
    let b = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |x| bytes(x as u64));
    for e in &r.results {
        let Some(bound) = &e.bound else { continue };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            esc(&label_of(e)),
            esc(bound.by.as_str()),
            esc(&bound.evidence),
            pct(mean(e, fsbench_model::metric::DAEMON_CPU_PCT)),
            pct(mean(e, fsbench_model::metric::DEVICE_BUSY_PCT)),
            b(mean(e, fsbench_model::metric::DEVICE_READ_BYTES)),
            b(mean(e, fsbench_model::metric::DEVICE_WRITE_BYTES)),
        );
    }
    out.push_str("</table>\n");
}

fn headline_table(r: &RunRecord, out: &mut String) {
    out.push_str("<h3>Results</h3><table><tr><th>cell</th><th>metric</th><th>median</th><th>mean ± sd</th><th>min – max</th><th>n</th><th>cached before</th></tr>\n");
    for e in &r.results {
        for name in std::iter::once(&e.headline).chain(&e.also_shown) {
            let Some(s) = e.summary.get(name) else {
                continue;
            };
            let n = |v: f64| metric_number(name, v);
            let cached = e
                .cache
                .resident_pct
                .map(|p| format!("{p:.0}%"))
                .unwrap_or_else(|| "-".into());
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{} ± {}</td><td class=\"n\">{} – {}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&label_of(e)),
                esc(&metric_label(name)),
                n(s.median),
                n(s.mean),
                n(s.stddev),
                n(s.min),
                n(s.max),
                s.n,
                cached
            );
        }
    }
    out.push_str("</table>\n");
}

/// Cells grouped by workload (sweep included) and headline, in plan order.
fn groups(r: &RunRecord) -> Vec<(String, Vec<&ResultEntry>)> {
    let mut g: Vec<(String, Vec<&ResultEntry>)> = Vec::new();
    for e in &r.results {
        let key = format!("{} · {}", e.workload, metric_label(&e.headline));
        match g.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(e),
            None => g.push((key, vec![e])),
        }
    }
    g
}

fn strip_charts(r: &RunRecord, out: &mut String) {
    for (title, cells) in groups(r) {
        let metric = &cells[0].headline;
        let rows: Vec<StripRow> = cells
            .iter()
            .filter_map(|e| {
                let s = e.summary.get(metric)?;
                let sweep: String = e.sweep.iter().map(|(k, v)| format!(" {k}={v}")).collect();
                Some(StripRow {
                    label: format!("{}{sweep} {}", e.target, e.cache.state),
                    values: e
                        .samples
                        .iter()
                        .filter_map(|x| x.metrics.get(metric).copied())
                        .collect(),
                    median: s.median,
                    mean: s.mean,
                    ci95: s.ci95,
                    cold: e.cache.state == CacheState::Cold,
                })
            })
            .collect();
        if rows.is_empty() {
            continue;
        }
        let unit = fsbench_model::unit_of(metric).0;
        let fmt = |v: f64| metric_number(metric, v);
        let svg = charts::strip(&title, unit, &rows, &fmt);
        let _ = writeln!(out, "<figure class=\"chart strip\">{svg}</figure>");
    }
}

fn latency_charts(ri: usize, r: &RunRecord, input: &HtmlInput<'_>, out: &mut String) {
    let mut by_workload: Vec<(String, Vec<Curve>)> = Vec::new();
    for (ci, e) in r.results.iter().enumerate() {
        let Some(points) = input.latency.get(&(ri, ci)) else {
            continue;
        };
        let curve = Curve {
            label: label_of(e),
            points: points
                .iter()
                .map(|&(p, ns)| (-(1.0 - p / 100.0).max(1e-6).log10(), ns))
                .collect(),
        };
        match by_workload.iter_mut().find(|(w, _)| *w == e.workload) {
            Some((_, v)) => v.push(curve),
            None => by_workload.push((e.workload.clone(), vec![curve])),
        }
    }
    for (w, curves) in by_workload {
        let x_fmt = |x: f64| format!("p{}", trim(100.0 - 100.0 * 10f64.powf(-x)));
        let y_fmt = |y: f64| crate::format::duration_ns(y);
        let svg = charts::lines(
            &format!("{w} · latency by percentile"),
            "percentile",
            "latency",
            &curves,
            &x_fmt,
            &y_fmt,
        );
        let _ = writeln!(out, "<figure class=\"chart latency\">{svg}</figure>");
    }
}

fn trim(p: f64) -> String {
    let s = format!("{p:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn scaling_charts(r: &RunRecord, out: &mut String) {
    for s in &r.scaling {
        let speed = Curve {
            label: "speedup".into(),
            points: s
                .rows
                .iter()
                .map(|x| (f64::from(x.workers), x.speedup))
                .collect(),
        };
        let ideal = Curve {
            label: "ideal (min(J, CPUs))".into(),
            points: s
                .rows
                .iter()
                .map(|x| {
                    (
                        f64::from(x.workers),
                        f64::from(x.workers).min(f64::from(r.environment.cpus.max(1))),
                    )
                })
                .collect(),
        };
        let eff = Curve {
            label: "efficiency ×10".into(),
            points: s
                .rows
                .iter()
                .map(|x| (f64::from(x.workers), x.efficiency * 10.0))
                .collect(),
        };
        let title = format!(
            "{} on {} ({}) · {}",
            s.workload, s.target, s.cache, s.verdict
        );
        let svg = charts::lines(
            &title,
            "workers (J)",
            "speedup",
            &[speed, ideal, eff],
            &|x| format!("{x:.0}"),
            &|y| format!("{y:.1}"),
        );
        let _ = writeln!(
            out,
            "<figure class=\"chart scaling\">{svg}<figcaption>{}</figcaption></figure>",
            esc(&s.explanation)
        );
    }
}

fn verdict(c: &Comparison) -> (String, &'static str) {
    let class = match (c.comparable, c.proven) {
        (false, _) => "nc",
        (true, true) => "proven",
        (true, false) => "same",
    };
    let text = match &c.how_to_compare {
        Some(how) => format!("{} — to compare: {how}", crate::terminal::verdict(c)),
        None => crate::terminal::verdict(c),
    };
    (text, class)
}

fn comparisons(r: &RunRecord, out: &mut String) {
    if r.comparisons.is_empty() {
        return;
    }
    out.push_str("<h3>Comparisons</h3><table><tr><th>metric</th><th>baseline</th><th>vs</th><th>difference</th><th>%</th><th>verdict</th></tr>\n");
    for c in &r.comparisons {
        let n = |v: f64| metric_number(&c.metric, v);
        let (v, class) = verdict(c);
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{} ± {}</td><td class=\"n\">{:+.2}% ± {:.2}%</td><td class=\"{class}\">{}</td></tr>",
            esc(&metric_label(&c.metric)),
            esc(&c.baseline),
            esc(&c.other),
            n(c.difference),
            n(c.ci_half),
            c.difference_pct,
            c.ci_half_pct,
            esc(&v)
        );
    }
    out.push_str("</table>\n");
    for c in &r.comparisons {
        if let Some(text) = ministat_block(r, c, 74) {
            let _ = writeln!(
                out,
                "<figure class=\"ministat\"><figcaption>{} vs {}</figcaption><pre>{}</pre></figure>",
                esc(&c.baseline),
                esc(&c.other),
                esc(&text)
            );
        }
    }
}

fn warnings(r: &RunRecord, out: &mut String) {
    let all: Vec<(String, String)> = r
        .results
        .iter()
        .flat_map(|e| {
            e.warnings
                .iter()
                .map(move |w| (label_of(e), w.message.clone()))
        })
        .chain(
            r.results
                .iter()
                .filter_map(|e| e.error.clone().map(|x| (label_of(e), x))),
        )
        .collect();
    if all.is_empty() {
        return;
    }
    out.push_str("<h3>Warnings</h3><ul class=\"warn\">\n");
    for (cell, w) in all {
        let _ = writeln!(out, "<li><b>{}</b>: {}</li>", esc(&cell), esc(&w));
    }
    out.push_str("</ul>\n");
}
