//! Markdown: the headline table and the comparisons, for pasting into an issue or a pull request.

use super::Renderer;
use crate::format::metric_number;
use crate::terminal::{label_of, metric_label};
use fsbench_model::RunRecord;
use std::fmt::Write;

/// Headline table and comparisons as GitHub-flavoured Markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Markdown;

/// Escapes the characters that would break a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

impl Renderer for Markdown {
    fn format(&self) -> &'static str {
        "markdown"
    }

    fn render(&self, r: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        out.write_all(markdown(r).as_bytes())
    }
}

/// The Markdown text of `r`.
fn markdown(r: &RunRecord) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## fsbench run {}\n", cell(&r.run.id));
    let _ = writeln!(
        out,
        "fsbench {} · {} {} · {} CPUs · status {}\n",
        r.run.fsbench_version,
        r.environment.os,
        r.environment.kernel,
        r.environment.cpus,
        r.run.status
    );
    let _ = writeln!(out, "| cell | metric | median | mean ± sd | n |");
    let _ = writeln!(out, "|---|---|---:|---:|---:|");
    for e in &r.results {
        for name in std::iter::once(&e.headline).chain(&e.also_shown) {
            let Some(s) = e.summary.get(name) else {
                continue;
            };
            let n = |v: f64| metric_number(name, v);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} ± {} | {} |",
                cell(&label_of(e)),
                cell(&metric_label(name)),
                n(s.median),
                n(s.mean),
                n(s.stddev),
                s.n
            );
        }
    }
    if r.results.iter().any(|e| e.bound.is_some()) {
        let _ = writeln!(out, "\n| cell | bound by | evidence |");
        let _ = writeln!(out, "|---|---|---|");
        for e in &r.results {
            if let Some(b) = &e.bound {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} |",
                    cell(&label_of(e)),
                    b.by,
                    cell(&b.evidence)
                );
            }
        }
    }
    if !r.comparisons.is_empty() {
        let _ = writeln!(out, "\n| metric | baseline | vs | difference | verdict |");
        let _ = writeln!(out, "|---|---|---|---:|---|");
        for c in &r.comparisons {
            let verdict = crate::terminal::verdict(c);
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:+.2}% ± {:.2}% | {} |",
                cell(&metric_label(&c.metric)),
                cell(&c.baseline),
                cell(&c.other),
                c.difference_pct,
                c.ci_half_pct,
                cell(&verdict)
            );
        }
    }
    out
}
