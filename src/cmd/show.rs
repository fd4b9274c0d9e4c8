//! `fsbench show RUN`: a stored run printed exactly as `fsbench run` printed it (a run that never
//! finished gets its summaries recomputed from the samples it kept), or exported.

use crate::cli::ShowArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;

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
        super::run::print_report(&record, args.plot)?;
        if record.run.status == fsbench_model::RunStatus::Incomplete {
            crate::errln!(
                "fsbench: note: run {} is incomplete (its process is gone); shown are the samples it finished",
                record.run.id
            );
        }
    }
    Ok(0)
}
