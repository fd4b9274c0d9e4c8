//! `fsbench baseline set NAME RUN` and `fsbench baseline list`: runs pinned under a name, so a
//! CI gate (`--baseline NAME --fail-if-slower PCT`) compares with the same run every time.

use crate::cli::BaselineCommand;
use crate::error::{CliError, CliResult};

/// Runs a `baseline` subcommand.
pub fn run(command: BaselineCommand) -> CliResult<i32> {
    match command {
        BaselineCommand::Set { name, run, db } => set(&name, &run, db.db.as_deref()),
        BaselineCommand::List { db } => list(db.db.as_deref()),
    }
}

fn set(name: &str, run: &str, db: Option<&std::path::Path>) -> CliResult<i32> {
    let valid = !name.is_empty()
        && name != "last"
        && !name.starts_with("last~")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !valid {
        return Err(CliError::usage(format!(
            "invalid baseline name '{}' — use letters, digits, '-', '_' and '.' (not 'last')",
            crate::escape_controls(name)
        )));
    }
    let path = crate::storage::db_path(db)?;
    let store = crate::storage::open_existing(db)?;
    let id = store.resolve(run).map_err(CliError::from)?;
    drop(store);
    let mut store = fsbench_store::Store::open(&path).map_err(|e| CliError::run(e.to_string()))?;
    store
        .set_baseline(name, &id, &fsbench_runner::record::now_rfc3339())
        .map_err(|e| CliError::run(e.to_string()))?;
    crate::outln!("baseline {name} = run {id}")?;
    Ok(0)
}

fn list(db: Option<&std::path::Path>) -> CliResult<i32> {
    let store = crate::storage::open_existing(db)?;
    let rows = store
        .baselines()
        .map_err(|e| CliError::run(e.to_string()))?;
    if rows.is_empty() {
        crate::outln!("no baselines — pin one with 'fsbench baseline set NAME RUN'")?;
    }
    for (name, run, at) in rows {
        crate::outln!("{name}\t{run}\t(set {at})")?;
    }
    Ok(0)
}
