//! `fsbench report RUN... -o report.html` and `fsbench run --html FILE`: stored runs as one
//! self-contained HTML file. The binary prepares what the pure renderer cannot compute itself:
//! latency percentile curves from the samples' HdrHistograms (merged exactly per cell), and the
//! comparison of every later run with the first.

use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_report::html::{CrossRun, HtmlInput};
use std::collections::BTreeMap;
use std::path::Path;

/// Percentiles of the latency curves.
const PERCENTILES: &[f64] = &[
    0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

/// The latency curve of one cell: its samples' histograms merged, read at [`PERCENTILES`].
fn latency_curve(e: &fsbench_model::ResultEntry) -> Option<Vec<(f64, f64)>> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for s in &e.samples {
        let Some(h) = s
            .latency_hdr
            .as_deref()
            .and_then(fsbench_measure::histo::decode)
        else {
            continue;
        };
        match &mut merged {
            Some(m) => m.add(&h).ok()?,
            None => merged = Some(h),
        }
    }
    let h = merged.filter(|h| !h.is_empty())?;
    Some(
        PERCENTILES
            .iter()
            .map(|&p| (p, h.value_at_quantile(p / 100.0) as f64))
            .collect(),
    )
}

/// The report of `runs` (oldest first) as HTML.
pub fn html(runs: &[RunRecord]) -> String {
    let mut latency = BTreeMap::new();
    for (ri, r) in runs.iter().enumerate() {
        for (ci, e) in r.results.iter().enumerate() {
            if let Some(c) = latency_curve(e) {
                latency.insert((ri, ci), c);
            }
        }
    }
    let cross = runs
        .iter()
        .skip(1)
        .map(|b| {
            let a = &runs[0];
            let comps = fsbench_analysis::runs::compare_records(a, b, 95.0);
            CrossRun {
                heading: format!("A = run {} vs B = run {}", a.run.id, b.run.id),
                environment: fsbench_analysis::runs::environment_differences(a, b),
                merged: fsbench_analysis::runs::merged(a, b, comps),
            }
        })
        .collect();
    fsbench_report::html::render(&HtmlInput {
        runs,
        cross,
        latency,
    })
}

/// Writes the report to `output` (`-`: standard output) through the careful output writer.
pub fn write(output: &Path, text: &str) -> CliResult<()> {
    if output.as_os_str() == "-" {
        return crate::out::stdout(text);
    }
    crate::outfile::write(output, text.as_bytes()).map_err(|e| {
        CliError::run(format!(
            "cannot write the report {}: {e} — check the path",
            output.display()
        ))
    })
}

/// `fsbench report`.
pub fn run(specs: &[String], output: &Path, db: Option<&Path>) -> CliResult<i32> {
    if output.as_os_str() != "-" {
        crate::outfile::check(output, "-o").map_err(CliError::usage)?;
    }
    let specs: Vec<String> = if specs.is_empty() {
        vec!["last".into()]
    } else {
        specs.to_vec()
    };
    let mut runs = Vec::new();
    for s in &specs {
        runs.push(super::show::load(db, s)?);
    }
    runs.sort_by(|a, b| a.run.started_at.cmp(&b.run.started_at));
    write(output, &html(&runs))?;
    if output.as_os_str() != "-" {
        crate::errln!("fsbench: report written to {}", output.display());
    }
    Ok(0)
}
