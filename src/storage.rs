//! Where results are kept: the database path (`--db`, else `$XDG_DATA_HOME/fsbench/results.db`,
//! else `~/.local/share/fsbench/results.db`), opened for the commands that read or write it
//! outside a run (a run stores through `fsbench_runner::store_sink`).

use crate::error::{CliError, CliResult};
use fsbench_store::Store;
use std::path::{Path, PathBuf};

/// The database file: `--db`, else the XDG data directory.
pub fn db_path(arg: Option<&Path>) -> CliResult<PathBuf> {
    if let Some(p) = arg {
        return Ok(p.to_path_buf());
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")));
    data.map(|d| d.join("fsbench/results.db")).ok_or_else(|| {
        CliError::usage("cannot find a place for the results database: neither XDG_DATA_HOME nor HOME is set — pass --db FILE or --no-store")
    })
}

/// The results database as a file no output may replace (`--db`, or the default one).
pub fn protected_db(arg: Option<&Path>) -> Vec<fsbench_output::protect::Protected> {
    db_path(arg)
        .map(|path| fsbench_output::protect::Protected {
            what: "the results database".into(),
            path,
        })
        .into_iter()
        .collect()
}

/// Opens the database for reading, as `history`, `show` and `compare` do; an error when there
/// is none yet.
pub fn open_existing(arg: Option<&Path>) -> CliResult<Store> {
    let path = db_path(arg)?;
    match Store::open_existing(&path) {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(CliError::usage(format!(
            "no results database at {} yet — 'fsbench run' creates it (or pass --db FILE)",
            path.display()
        ))),
        Err(e) => Err(e.into()),
    }
}

/// Opens (or creates) the database for a write that is not a run (a device ceiling).
pub fn open_for_writing(arg: Option<&Path>) -> CliResult<Store> {
    let path = db_path(arg)?;
    Store::open(&path).map_err(CliError::from)
}
