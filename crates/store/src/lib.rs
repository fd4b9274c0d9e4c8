//! The store: every run fsbench makes, kept in one SQLite file (rusqlite with the bundled SQLite)
//! at `$XDG_DATA_HOME/fsbench/results.db` by default. All SQL lives in this crate. The schema is
//! versioned (`user_version`) and marked as fsbench's (`application_id`); a file that is not an
//! fsbench database, or one of a newer schema, is refused and never modified. WAL mode lets two
//! `fsbench run` share a database; each sample is committed right after it is measured.
#![warn(missing_docs)]

mod baselines;
mod ceilings;
mod error;
mod open;
mod profile_blob;
mod read;
mod sample_row;
pub mod schema;
mod series_blob;
pub mod timing;
mod trend;
mod write;

pub use error::StoreError;
pub use read::{HistoryFilter, RunRow};
pub use trend::TrendFilter;
pub use write::RunCursor;

use rusqlite::Connection;
use std::path::{Path, PathBuf};

/// An open database.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Opens `path` for reading and writing, creating and migrating it as needed.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        Ok(Self {
            conn: open::open(path)?,
            path: path.to_path_buf(),
        })
    }

    /// [`open`](Self::open), calling `waiting` once if another program's lock has kept it
    /// waiting for a second (so the terminal can say why nothing happens).
    pub fn open_waiting(path: &Path, waiting: &mut dyn FnMut()) -> Result<Self, StoreError> {
        Ok(Self {
            conn: open::open_waiting(path, waiting)?,
            path: path.to_path_buf(),
        })
    }

    /// Opens an existing database for reading; `None` when the file does not exist yet.
    pub fn open_existing(path: &Path) -> Result<Option<Self>, StoreError> {
        Ok(open::open_read_only(path)?.map(|conn| Self {
            conn,
            path: path.to_path_buf(),
        }))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Closes the database: the last connection's close copies the write-ahead log into the
    /// database file and syncs it (a run's commits deferred that to here). Unlike a drop, says
    /// when that fails.
    pub fn close(self) -> Result<(), StoreError> {
        let path = self.path;
        self.conn.close().map_err(|(_, e)| sql_err(&path, e))
    }

    fn sql(&self, source: rusqlite::Error) -> StoreError {
        sql_err(&self.path, source)
    }
}

/// What an SQLite error met while reading or writing means: a malformed page, and also a value
/// that fsbench never writes (text that is not UTF-8, a number where text belongs), are a damaged
/// file — a page overwritten in the middle of a row's overflow chain reads back as such a value,
/// and `quick_check` does not look inside overflow payloads.
fn sql_err(path: &Path, source: rusqlite::Error) -> StoreError {
    use rusqlite::Error::{FromSqlConversionFailure, IntegralValueOutOfRange, InvalidColumnType};
    let unreadable_value = matches!(
        source,
        FromSqlConversionFailure(..)
            | IntegralValueOutOfRange(..)
            | InvalidColumnType(..)
            | rusqlite::Error::Utf8Error(..)
    );
    if unreadable_value {
        return StoreError::Damaged {
            path: path.to_path_buf(),
            detail: format!("a stored value is unreadable: {source}"),
        };
    }
    if source.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseCorrupt) {
        return StoreError::Damaged {
            path: path.to_path_buf(),
            detail: source.to_string(),
        };
    }
    if let Some(full) = full_filesystem(path, &source) {
        return full;
    }
    StoreError::Sql {
        path: path.to_path_buf(),
        source,
    }
}

/// A write that failed because the database's filesystem is full: SQLite reports a full disk
/// as `SQLITE_FULL` on some paths and as a plain I/O error on others (an `ENOSPC` from
/// `write`), so an I/O error is checked against the filesystem's free space.
pub(crate) fn full_filesystem(path: &Path, source: &rusqlite::Error) -> Option<StoreError> {
    use rusqlite::ErrorCode::{DiskFull, SystemIoFailure};
    let code = source.sqlite_error_code();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let no_room = || rustix::fs::statvfs(dir).is_ok_and(|v| v.f_bavail == 0);
    let full = code == Some(DiskFull) || (code == Some(SystemIoFailure) && no_room());
    full.then(|| StoreError::Unusable {
        path: path.to_path_buf(),
        why: "its filesystem is full".into(),
        fix: "free space there, or give --db on another filesystem",
    })
}

#[cfg(test)]
mod tests;
