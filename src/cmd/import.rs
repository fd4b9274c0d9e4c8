//! `fsbench import FILE.json`: a JSON result (`--export-json` of this or an earlier schema
//! version) stored as if it had just been run.

use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use std::path::Path;

/// Largest JSON file read (a run of a million samples is far below this).
const MAX_JSON: u64 = 1 << 30;

/// Imports `file` into the database.
pub fn run(file: &Path, db: Option<&Path>) -> CliResult<i32> {
    let text = fsbench_sys::infile::read_regular(file, MAX_JSON).map_err(|e| match e {
        fsbench_sys::infile::InputError::TooLarge(_) => CliError::usage(format!(
            "{} is larger than 1 GiB — is it an fsbench result?",
            file.display()
        )),
        e => CliError::usage(format!(
            "cannot read {}: {e} — give a JSON file written by --export-json",
            file.display()
        )),
    })?;
    let mut record: RunRecord = serde_json::from_slice(&text).map_err(|e| {
        CliError::usage(format!(
            "{} is not an fsbench JSON result: {e} — give a file written by --export-json",
            file.display()
        ))
    })?;
    if record.schema_version > fsbench_model::SCHEMA_VERSION {
        return Err(CliError::usage(format!(
            "{} has JSON schema {}, newer than this fsbench's {} — use a newer fsbench",
            file.display(),
            record.schema_version,
            fsbench_model::SCHEMA_VERSION
        )));
    }
    // A record older than schema 3 names its suite only in its command line.
    fsbench_model::legacy::upgrade(&mut record);
    let path = crate::storage::db_path(db)?;
    let mut store = fsbench_store::Store::open(&path).map_err(CliError::from)?;
    store.import(&record).map_err(CliError::from)?;
    crate::outln!(
        "imported run {} into {}",
        crate::escape_controls(&record.run.id),
        path.display()
    )?;
    Ok(0)
}
