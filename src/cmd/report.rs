//! `fsbench report RUN... -o report.html` and `fsbench run --html FILE`: stored runs as one
//! self-contained HTML file (prepared by `fsbench_analysis::html`, rendered by the report
//! crate's `Html`).

use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_report::Renderer;
use std::path::Path;

/// The report of `last` after the `earlier` runs (oldest first) as HTML, with the seed layout
/// of `last`'s suite.
pub fn html(earlier: Vec<RunRecord>, last: &RunRecord) -> String {
    let seed = super::show::seed_kind(last);
    let input = fsbench_analysis::html::report_input(&earlier, last);
    fsbench_report::html::Html {
        earlier,
        cross: input.cross,
        latency: input.latency,
        seed,
    }
    .text(last)
}

/// Writes the report to `output` (`-`: standard output) through the careful output writer.
pub fn write(output: &Path, text: &str) -> CliResult<()> {
    if output.as_os_str() == "-" {
        return crate::out::stdout(text);
    }
    fsbench_output::file::write(output, text.as_bytes()).map_err(|e| {
        CliError::run(format!(
            "cannot write the report {}: {e} — check the path",
            output.display()
        ))
    })
}

/// `fsbench report`.
pub fn run(specs: &[String], output: &Path, db: Option<&Path>) -> CliResult<i32> {
    fsbench_output::protect::check_files(&[("-o", output)], &crate::storage::protected_db(db))?;
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
    let last = runs.pop().expect("invariant: at least one run was loaded");
    write(output, &html(runs, &last))?;
    if output.as_os_str() != "-" {
        crate::errln!("fsbench: report written to {}", output.display());
    }
    Ok(0)
}
