//! `fsbench show RUN`: a stored run printed exactly as `fsbench run` printed it (a run that never
//! finished gets its summaries recomputed from the samples it kept), its suite's seed layout
//! included, or exported. Also how every command draws tables on standard output.

use crate::cli::ShowArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_model::SeedLayout;
use fsbench_output::exports::Exports;
use fsbench_report::Renderer;
use fsbench_report::terminal::{Terminal, TerminalOptions};
use std::io::IsTerminal;

/// Loads `spec` from the database, filling in what an unfinished run lacks.
pub fn load(db: Option<&std::path::Path>, spec: &str) -> CliResult<RunRecord> {
    let store = crate::storage::open_existing(db)?;
    let id = store.resolve(spec).map_err(CliError::from)?;
    let mut r = store.load(&id).map_err(|e| CliError::run(e.to_string()))?;
    let owner = store
        .history(&fsbench_store::HistoryFilter::default())
        .ok()
        .and_then(|rows| rows.into_iter().find(|row| row.id == id));
    if let Some(row) = owner {
        r.run.status = row.shown_status();
    }
    for e in &mut r.results {
        if e.summary.is_empty() && !e.samples.is_empty() {
            e.summary = fsbench_runner::metrics::summarize(&e.samples);
        }
    }
    fsbench_analysis::card::attach(&mut r);
    Ok(r)
}

/// The seed layout a stored run's suite asks for: recorded with the run since schema 3; for an
/// older run, its suite (recovered once when it was stored or imported) loaded again.
pub fn seed_kind(record: &RunRecord) -> Option<SeedLayout> {
    if record.run.report.is_some() || record.schema_version >= 3 {
        return record.run.report;
    }
    let loaded = fsbench_spec::suite::load(record.run.suite.as_deref()?).ok()?;
    loaded.report
}

/// Width of standard output in columns: the terminal's, else `COLUMNS` when set, else no limit.
fn width() -> Option<u16> {
    let out = std::io::stdout();
    if out.is_terminal() {
        if let Some(w) = rustix::termios::tcgetwinsize(&out)
            .ok()
            .map(|w| w.ws_col)
            .filter(|&c| c > 0)
        {
            return Some(w);
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<u16>().ok())
        .filter(|&c| c >= 20)
}

/// Whether tables get Unicode borders: on a terminal, unless `FSBENCH_BORDERS=ascii`; off a
/// terminal only with `FSBENCH_BORDERS=unicode`.
fn unicode() -> bool {
    match std::env::var("FSBENCH_BORDERS").ok().as_deref() {
        Some("unicode") => true,
        Some("ascii") => false,
        _ => std::io::stdout().is_terminal(),
    }
}

/// How tables are drawn on standard output, with ministat's plots when `plot`.
pub fn terminal_options(plot: bool, seed: Option<SeedLayout>) -> TerminalOptions {
    TerminalOptions {
        width: width(),
        plot,
        unicode: unicode(),
        seed,
    }
}

/// Prints the tables of `record` as `fsbench run` does, then the `seed` layout.
pub fn print(record: &RunRecord, plot: bool, seed: Option<SeedLayout>) -> CliResult<()> {
    crate::out::stdout(&Terminal(terminal_options(plot, seed)).text(record))
}

/// Prints or exports a stored run.
pub fn run(args: ShowArgs) -> CliResult<i32> {
    let protected = crate::storage::protected_db(args.db.db.as_deref());
    let mut exports = Exports::check(&args.export.paths(), &protected, &[])?;
    let record = load(args.db.db.as_deref(), &args.run)?;
    let seed = seed_kind(&record);
    exports.write(&record, true, seed, &mut crate::out::stdout_text);
    if let Some(e) = exports.error {
        return Err(CliError::run(e));
    }
    if !exports.uses_stdout() {
        print(&record, args.plot, seed_kind(&record))?;
        if record.run.status == fsbench_model::RunStatus::Incomplete {
            crate::errln!(
                "fsbench: note: run {} is incomplete (its process is gone); shown are the samples it finished",
                record.run.id
            );
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_quick_suite_ends_with_its_summary() {
        let quick = fsbench_spec::suite::load("quick").unwrap();
        assert_eq!(quick.report, Some(fsbench_model::SeedLayout::Summary));
    }
}
