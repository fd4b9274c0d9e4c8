//! Two runs compared: what differs in their environments, then, when they share cells, the
//! overview of B against A, a table of only what changed, latency curves of both (A dashed), and
//! one A-against-B chart per shared cell; when they share none, a plain statement of that and of
//! what each run measured. ministat's text is kept, folded away.

use super::palette::Palette;
use super::svg::esc;
use super::{CrossRun, HtmlInput, overview};
use crate::names::CellNames;
use crate::table::html::render as table;
use std::fmt::Write;

/// The section of one comparison of two runs.
pub fn section(c: &CrossRun, input: &HtmlInput<'_>, palette: &Palette, out: &mut String) {
    let _ = writeln!(out, "<section class=\"cross\"><h2>{}</h2>", esc(&c.heading));
    if c.environment.is_empty() {
        out.push_str("<p>Environment: no differences recorded.</p>\n");
    } else {
        out.push_str("<p>Environment differences:</p><ul>\n");
        for d in &c.environment {
            let _ = writeln!(out, "<li>{}</li>", esc(d));
        }
        out.push_str("</ul>\n");
    }
    if c.merged.comparisons.is_empty() {
        nothing_shared(c, out);
        out.push_str("</section>\n");
        return;
    }
    let names = CellNames::new(&c.merged.results);
    let [better, worse, same, nc] = crate::tables::comparisons::counts(&c.merged);
    let _ = writeln!(
        out,
        "<p class=\"lead\">{} cells in common: <span class=\"better\">{better} better</span>, <span class=\"worse\">{worse} worse</span>, {same} with no difference proven{}.</p>",
        c.merged.comparisons.len(),
        if nc > 0 {
            format!(", <span class=\"nc\">{nc} not comparable</span>")
        } else {
            String::new()
        }
    );
    if let Some(svg) = overview::draw(&overview::groups(&c.merged, &names), palette) {
        let _ = writeln!(out, "<figure class=\"chart overview\">{svg}</figure>");
    }
    match crate::tables::comparisons::table(&c.merged, "What changed", true, true) {
        Some(t) => table(&t, out),
        None => out.push_str(
            "<h3>What changed</h3><p>Nothing: no difference was proven in any shared cell.</p>\n",
        ),
    }
    let curve = |i: usize| input.latency.get(&super::cell_of(c, i));
    super::charts::latencies(&c.merged, &names, palette, &curve, out);
    cell_charts(c, &names, palette, out);
    super::ministat(&c.merged, out);
    out.push_str("</section>\n");
}

/// One A-against-B chart per shared cell.
fn cell_charts(c: &CrossRun, names: &CellNames, palette: &Palette, out: &mut String) {
    out.push_str("<h3>Each shared cell, A against B</h3>\n");
    let m = &c.merged;
    for comp in &m.comparisons {
        let (Some(a), Some(b)) = (
            names.find(&m.results, &comp.baseline),
            names.find(&m.results, &comp.other),
        ) else {
            continue;
        };
        let title = format!(
            "{} · {} · {}",
            super::palette::bare_target(&m.results[b].target),
            names.workload(b),
            m.results[b].cache.state
        );
        let svg = super::ab::draw(&title, comp, (&m.results[a], &m.results[b]), palette);
        let _ = writeln!(out, "<figure class=\"chart ab\">{svg}</figure>");
    }
}

/// What to say when two runs share no cell.
fn nothing_shared(c: &CrossRun, out: &mut String) {
    out.push_str("<p class=\"alert\">These runs share no cell: no cell has the same target label, workload, parameters and cache state in both, so nothing could be compared. Run the same plan on the same target labels to compare them.</p>\n<ul>\n");
    for side in ["A", "B"] {
        let cells: Vec<String> = c
            .merged
            .results
            .iter()
            .filter(|e| e.target.starts_with(&format!("{side}:")))
            .map(|e| {
                format!(
                    "{} {} ({})",
                    super::palette::bare_target(&e.target),
                    e.workload,
                    e.cache.state
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<li>{side} measured: {}</li>",
            esc(&if cells.is_empty() {
                "nothing".to_string()
            } else {
                cells.join(", ")
            })
        );
    }
    out.push_str("</ul>\n");
}
