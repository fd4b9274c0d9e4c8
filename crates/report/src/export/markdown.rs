//! Markdown: every table the terminal prints (results, times and CPU, bound by, ranks, scaling,
//! comparisons, the suite's seed layout), for pasting into an issue or a pull request.

use crate::Renderer;
use crate::names::CellNames;
use crate::table::markdown::{cell, render as table};
use fsbench_model::RunRecord;
use std::fmt::Write;

/// Every table as GitHub-flavoured Markdown.
#[derive(Debug, Clone, Copy, Default)]
pub struct Markdown {
    /// The seed layout the run's suite asks for.
    pub seed: Option<fsbench_model::SeedLayout>,
}

impl Renderer for Markdown {
    fn format(&self) -> crate::Format {
        crate::Format::Markdown
    }

    fn render(&self, r: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        // Pasted into an issue, printed with `-`: never a raw control character from a label.
        let text = crate::format::terminal_safe(&markdown(r, self.seed));
        out.write_all(text.as_bytes())
    }
}

/// The Markdown text of `r`.
fn markdown(r: &RunRecord, seed: Option<fsbench_model::SeedLayout>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## fsbench run {}\n", cell(&r.run.id));
    let _ = writeln!(
        out,
        "fsbench {} · {} {} · {} CPUs · status {}\n",
        cell(&r.run.fsbench_version),
        cell(&r.environment.os),
        cell(&r.environment.kernel),
        r.environment.cpus,
        r.run.status
    );
    let names = CellNames::new(&r.results);
    if r.run.kind == fsbench_model::RunKind::Card {
        // A card's cells are its points: the card stands in for their tables.
        for t in crate::seed::card::tables(r) {
            out.push_str(&table(&t));
        }
        return out;
    }
    for t in crate::tables::standard(r, &names) {
        out.push_str(&table(&t));
    }
    if let Some(t) = crate::tables::comparisons::table(r, "Comparisons", false, true) {
        out.push_str(&table(&t));
        for line in crate::tables::sequential::lines(r) {
            let _ = writeln!(out, "{line}\n");
        }
    }
    match seed {
        Some(fsbench_model::SeedLayout::Summary) => {
            let _ = writeln!(out, "```\n{}\n```", crate::seed::summary::render(r).trim());
        }
        kind => {
            for t in crate::seed::tables(kind, r, &names) {
                out.push_str(&table(&t));
            }
        }
    }
    out
}
