//! The offline HTML report: one self-contained file (inline CSS and SVG, no scripts, fonts or
//! links that fetch anything). It opens with what answers the question — an overview of every
//! result against its baseline with the geometric mean per target, then each workload's
//! distributions (cold and warm in their own panels), latency percentiles on a log axis against
//! the nines, and scaling — before the tables (the same ones `fsbench show` prints), the
//! environment and the warnings. Several runs are first compared with one another, with an
//! A-against-B chart per shared cell. Readable at 1280 px and on a phone, and printable.

mod ab;
pub(crate) mod axis;
mod calls;
mod card;
mod charts;
mod cross;
mod flame;
mod flame_section;
mod latency;
mod load_curve;
mod overview;
pub(crate) mod palette;
mod scaling;
mod series;
mod strip;
pub(crate) mod svg;
#[cfg(test)]
mod tests;
pub mod trend;

pub use fsbench_model::report_input::{CrossRun, LatencyCurve};

use crate::format::bytes;
use crate::names::CellNames;
use fsbench_model::RunRecord;
use palette::Palette;
use std::collections::BTreeMap;
use std::fmt::Write;
use svg::esc;

/// Everything the report shows.
pub(crate) struct HtmlInput<'a> {
    /// The runs, oldest first (the first is the baseline of cross-run comparisons).
    pub runs: Vec<&'a RunRecord>,
    /// Cross-run comparisons.
    pub cross: &'a [CrossRun],
    /// Latency percentile curves by run index and cell index.
    pub latency: &'a BTreeMap<(usize, usize), LatencyCurve>,
    /// The seed layout of the last run's suite.
    pub seed: Option<fsbench_model::SeedLayout>,
}

/// The (run index, cell index) of cell `i` of a cross-run comparison's merged record.
fn cell_of(c: &CrossRun, i: usize) -> (usize, usize) {
    if i < c.a_cells {
        (c.runs.0, i)
    } else {
        (c.runs.1, i - c.a_cells)
    }
}

const CSS: &str = "
.flame-roles>figure{display:none}.flame-roles>label{margin-right:1em;font-size:.9em}.flame-roles>input{margin-right:.3em}
.flame-roles>input[value=all]:checked~figure[data-role=all],.flame-roles>input[value=cell]:checked~figure[data-role=cell],.flame-roles>input[value=helper]:checked~figure[data-role=helper],.flame-roles>input[value=neighbour]:checked~figure[data-role=neighbour],.flame-roles>input[value=unattributed]:checked~figure[data-role=unattributed]{display:block}
.cards{display:flex;flex-wrap:wrap;gap:1em}.card-grid td,.card-grid th{vertical-align:top;padding:4px;border:1px solid #ddd}.card-op{margin-bottom:6px;font-size:12px}.card-op .lock{color:#444;font-size:11px}
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px 40px;color:#1d1d1f}
h1{font-size:1.6em;margin:.8em 0 .3em}h2{font-size:1.3em;margin-top:1.8em;border-bottom:1px solid #ddd}h3{font-size:1.05em;margin:1.4em 0 .4em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.9em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:left;vertical-align:top}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f4f4f6}figure{margin:.6em 0 1.4em;break-inside:avoid}figure svg{width:100%;height:auto;max-width:880px;display:block}svg.chart{width:100%;height:auto;max-width:700px;display:block}
figcaption{font-size:.9em;color:#444}figcaption ul{margin:.3em 0;padding-left:1.2em}
pre{background:#f7f7f9;padding:8px;overflow-x:auto;font-size:.82em;line-height:1.25}
details{margin:.6em 0}summary{cursor:pointer;color:#444}
.better{color:#137a37;font-weight:600}.worse{color:#b3261e;font-weight:600}.same{color:#5f6670}.nc{color:#8a5a00}
td.better{background:#e8f6ec}td.worse{background:#fcebea}td.nc{background:#fff6e0}
.warn{color:#8a5300}.meta{color:#555;font-size:.9em}.lead{font-size:1.05em}
.alert{background:#fff6e0;border-left:4px solid #c98a00;padding:8px 12px}
@media (max-width:700px){body{font-size:14px;padding:0 8px}th,td{padding:2px 4px}}
@media print{body{max-width:none}h2{break-before:page}figure,table{break-inside:avoid}details{display:none}}
";

/// The HTML report of a record, after the earlier runs it is compared with.
#[derive(Default)]
pub struct Html {
    /// Runs before the rendered one, oldest first (the first is the baseline of cross-run
    /// comparisons); empty for the report of one run.
    pub earlier: Vec<RunRecord>,
    /// Cross-run comparisons.
    pub cross: Vec<CrossRun>,
    /// Latency percentile curves by run index (the rendered run last) and cell index.
    pub latency: BTreeMap<(usize, usize), LatencyCurve>,
    /// The seed layout the rendered run's suite asks for.
    pub seed: Option<fsbench_model::SeedLayout>,
}

impl crate::Renderer for Html {
    fn format(&self) -> crate::Format {
        crate::Format::Html
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut runs: Vec<&RunRecord> = self.earlier.iter().collect();
        runs.push(record);
        let text = render(&HtmlInput {
            runs,
            cross: &self.cross,
            latency: &self.latency,
            seed: self.seed,
        });
        // Control characters are invalid in HTML and SVG text: every text is escaped where it
        // is written; this pass makes sure nothing slipped through.
        out.write_all(svg::esc_controls(&text).as_bytes())
    }
}

/// The document's title.
fn title(input: &HtmlInput<'_>) -> String {
    match input.runs.as_slice() {
        [one] => format!("fsbench run {}", one.run.id),
        [a, b] if input.cross.iter().all(|c| c.merged.comparisons.is_empty()) => {
            format!("fsbench: runs {} and {} share no cell", a.run.id, b.run.id)
        }
        many => format!(
            "fsbench: {} runs compared ({})",
            many.len(),
            many.iter()
                .map(|r| r.run.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The whole report.
fn render(input: &HtmlInput<'_>) -> String {
    let mut out = String::with_capacity(256 * 1024);
    let title = title(input);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body>\n<h1>{}</h1>\n",
        esc(&title),
        esc(&title)
    );
    let mut palette = Palette::default();
    for r in &input.runs {
        for e in &r.results {
            palette.add(&e.target);
        }
    }
    for cross in input.cross {
        cross::section(cross, input, &palette, &mut out);
    }
    if let [a, b] = input.runs.as_slice() {
        if let (Some(ca), Some(cb)) = (a.cards.first(), b.cards.first()) {
            // Two stored cards: the second's over the first.
            out.push_str("<section class=\"run\"><h2>Two cards</h2>\n");
            out.push_str(&card::differential(ca, cb));
            out.push_str("</section>\n");
        } else {
            flame_section::across(a, b, &mut out);
        }
    }
    let last = input.runs.len().saturating_sub(1);
    for (ri, r) in input.runs.iter().enumerate() {
        let seed = if ri == last { input.seed } else { None };
        run_section(ri, r, input, (&palette, seed), &mut out);
    }
    out.push_str("<p class=\"meta\">Made by fsbench, offline. In the charts each target keeps one colour; dots are samples, black ticks medians, bars the 95% confidence interval of the mean. Verdict colours: green better, red worse, grey no difference proven, amber not comparable.</p>\n</body></html>\n");
    out
}

fn run_section(
    ri: usize,
    r: &RunRecord,
    input: &HtmlInput<'_>,
    (palette, seed): (&Palette, Option<fsbench_model::SeedLayout>),
    out: &mut String,
) {
    let _ = writeln!(
        out,
        "<section class=\"run\"><h2>Run {}</h2>\n<p class=\"meta\">{} · status {} · fsbench {} · {}</p>",
        esc(&r.run.id),
        esc(&r.run.started_at),
        esc(r.run.status.name()),
        esc(&r.run.fsbench_version),
        esc(&r.run.argv.join(" "))
    );
    let names = CellNames::new(&r.results);
    if r.run.kind == fsbench_model::RunKind::Card {
        // A card's cells are its points: the card stands in for their charts and tables.
        card::section(&r.cards, out);
        for t in crate::seed::card::tables(r) {
            crate::table::html::render(&t, out);
        }
        environment(r, out);
        warnings(r, &names, out);
        out.push_str("</section>\n");
        return;
    }
    if let Some(svg) = overview::draw(&overview::groups(r, &names), palette) {
        let _ = writeln!(out, "<figure class=\"chart overview\">{svg}</figure>");
    }
    if r.results.iter().any(|e| !e.samples.is_empty()) {
        out.push_str("<h3>Distributions</h3>\n");
    }
    charts::distributions(r, &names, palette, out);
    let curve = |i: usize| input.latency.get(&(ri, i));
    charts::latencies(r, &names, palette, &curve, out);
    load_curve::section(r, &names, palette, out);
    series::section(r, esc, palette, out);
    charts::scaling(r, palette, out);
    flame_section::section(r, &names, out);
    calls::section(r, &names, out);
    tables(r, &names, seed, out);
    environment(r, out);
    warnings(r, &names, out);
    ministat(r, out);
    out.push_str("</section>\n");
}

/// Every table `fsbench show` prints, the comparisons and the suite's seed layout.
fn tables(
    r: &RunRecord,
    names: &CellNames,
    seed: Option<fsbench_model::SeedLayout>,
    out: &mut String,
) {
    for t in crate::tables::standard(r, names) {
        crate::table::html::render(&t, out);
    }
    if let Some(t) = crate::tables::comparisons::table(r, "Comparisons", false, true) {
        crate::table::html::render(&t, out);
        for line in crate::tables::sequential::lines(r) {
            let _ = writeln!(out, "<p class=\"meta\">{}</p>", esc(&line));
        }
    }
    match seed {
        Some(fsbench_model::SeedLayout::Summary) => {
            let text = crate::seed::summary::render(r);
            let _ = writeln!(out, "<h3>Summary</h3><pre>{}</pre>", esc(text.trim()));
        }
        kind => {
            for t in crate::seed::tables(kind, r, names) {
                crate::table::html::render(&t, out);
            }
        }
    }
}

/// ministat's text of every comparison, folded away.
fn ministat(r: &RunRecord, out: &mut String) {
    let blocks = crate::terminal::ministat_blocks(r, 74);
    if blocks.is_empty() {
        return;
    }
    out.push_str("<details><summary>ministat's text of the comparisons</summary>\n");
    for (title, text) in blocks {
        let _ = writeln!(
            out,
            "<figure class=\"ministat\"><figcaption>{}</figcaption><pre>{}</pre></figure>",
            esc(&title),
            esc(&text)
        );
    }
    out.push_str("</details>\n");
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

fn warnings(r: &RunRecord, names: &CellNames, out: &mut String) {
    let mut all: Vec<(String, String)> = Vec::new();
    for (i, e) in r.results.iter().enumerate() {
        let cell = names.label(&r.results, i);
        all.extend(e.warnings.iter().map(|w| (cell.clone(), w.message.clone())));
        all.extend(e.error.iter().map(|x| (cell.clone(), x.clone())));
    }
    if all.is_empty() {
        return;
    }
    out.push_str("<h3>Warnings</h3><ul class=\"warn\">\n");
    for (cell, w) in all {
        let _ = writeln!(out, "<li><b>{}</b>: {}</li>", esc(&cell), esc(&w));
    }
    out.push_str("</ul>\n");
}
