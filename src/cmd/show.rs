//! `fsbench show RUN`: a stored run printed exactly as `fsbench run` printed it (a run that never
//! finished gets its summaries recomputed from the samples it kept), its suite's seed layout
//! included, or exported. Also how every command draws tables on standard output.

use crate::cli::ShowArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_report::export::Renderer;
use fsbench_report::seed::Kind;
use fsbench_report::terminal::{Terminal, TerminalOptions};
use std::io::IsTerminal;

/// Loads `spec` from the database, filling in what an unfinished run lacks.
pub fn load(db: Option<&std::path::Path>, spec: &str) -> CliResult<RunRecord> {
    let store = crate::storage::open_existing(db)?;
    let id = store
        .resolve(spec)
        .map_err(|e| CliError::usage(e.to_string()))?;
    let mut r = store.load(&id).map_err(|e| CliError::run(e.to_string()))?;
    let owner = store
        .history(&fsbench_store::HistoryFilter::default())
        .ok()
        .and_then(|rows| rows.into_iter().find(|row| row.id == id));
    if let Some(row) = owner {
        r.run.status = super::history::shown_status(&row);
    }
    for e in &mut r.results {
        if e.summary.is_empty() && !e.samples.is_empty() {
            e.summary = fsbench_runner::metrics::summarize(&e.samples);
        }
    }
    Ok(r)
}

/// The suite a command line ran: `--suite NAME`, or the default suite of a `run` without
/// workloads.
fn suite_in(argv: &[String]) -> Option<String> {
    fsbench_store::timing::suite_of(argv).or_else(|| {
        let workloads = argv.iter().skip(2).any(|a| {
            a == "--workload"
                || a.starts_with("--workload=")
                || (a.starts_with("-w") && !a.starts_with("--"))
        });
        (argv.get(1).map(String::as_str) == Some("run") && !workloads)
            .then(|| fsbench_spec::suite::DEFAULT_SUITE.to_string())
    })
}

/// The seed layout a stored run's suite asks for: its suite ([`suite_in`]) loaded again (a
/// built-in, or a file still readable); `None` without one.
pub fn seed_kind(record: &RunRecord) -> Option<Kind> {
    let loaded = fsbench_spec::suite::load(&suite_in(&record.run.argv)?).ok()?;
    loaded.report.as_deref().and_then(Kind::parse)
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
pub fn terminal_options(plot: bool, seed: Option<Kind>) -> TerminalOptions {
    TerminalOptions {
        width: width(),
        plot,
        unicode: unicode(),
        seed,
    }
}

/// Prints the tables of `record` as `fsbench run` does, then the `seed` layout.
pub fn print(record: &RunRecord, plot: bool, seed: Option<Kind>) -> CliResult<()> {
    crate::out::stdout(&Terminal(terminal_options(plot, seed)).text(record))
}

/// Prints or exports a stored run.
pub fn run(args: ShowArgs) -> CliResult<i32> {
    let protected = crate::storage::protected_db(args.db.db.as_deref());
    let mut exports = crate::exports::Exports::check(&args.export, &protected, &[])?;
    let record = load(args.db.db.as_deref(), &args.run)?;
    exports.write(&record, true);
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
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn the_suite_of_a_command_line_includes_the_default_one() {
        assert_eq!(
            suite_in(&argv("fsbench run --suite disk-speed")).as_deref(),
            Some("disk-speed")
        );
        assert_eq!(
            suite_in(&argv("fsbench run -t /x")).as_deref(),
            Some("quick")
        );
        assert_eq!(suite_in(&argv("fsbench run -w null")), None);
        assert_eq!(suite_in(&argv("fsbench run --workload=null")), None);
        assert_eq!(suite_in(&argv("fsbench import x.json")), None);
        assert_eq!(
            seed_kind_of("quick"),
            Some(Kind::Summary),
            "the quick suite ends with its summary"
        );
    }

    fn seed_kind_of(suite: &str) -> Option<Kind> {
        fsbench_spec::suite::load(suite)
            .ok()?
            .report
            .as_deref()
            .and_then(Kind::parse)
    }
}
