//! Why the store could not be used: each variant carries the file and reads as one line with a
//! fix.

use std::path::PathBuf;

/// A store failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file is not an SQLite database (or is damaged beyond its header).
    #[error(
        "{path} is not an fsbench database (it is not SQLite, or it is damaged); it was left untouched — give another --db, or move it away"
    )]
    NotSqlite {
        /// The database file.
        path: PathBuf,
    },
    /// An fsbench database whose pages are damaged past its header (SQLite's `quick_check`
    /// failed, or a read met a malformed page). Never written to.
    #[error(
        "{path} is an fsbench database but it is damaged ({detail}); it was left untouched — keep it for recovery (sqlite3 FILE .recover) and give another --db"
    )]
    Damaged {
        /// The database file.
        path: PathBuf,
        /// SQLite's first complaint.
        detail: String,
    },
    /// Not a regular file: a directory, a FIFO, a device (never opened as a database).
    #[error(
        "{path} is {kind}, not a database file; it was left untouched — give --db a regular file's path"
    )]
    NotAFile {
        /// The path given.
        path: PathBuf,
        /// What it is (`a FIFO`, `a character device`...).
        kind: &'static str,
    },
    /// An SQLite database of another program.
    #[error(
        "{path} is another program's SQLite database; it was left untouched — give another --db"
    )]
    Foreign {
        /// The database file.
        path: PathBuf,
    },
    /// Written by a newer fsbench.
    #[error(
        "{path} has store schema {found}, newer than this fsbench's {supported}; it was left untouched — use a newer fsbench or another --db"
    )]
    Newer {
        /// The database file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        supported: i64,
    },
    /// The database is fine but cannot be used as asked: its directory is read-only or not
    /// ours, or the filesystem is full. Never called damaged.
    #[error("database {path}: {why} — {fix}")]
    Unusable {
        /// The database file.
        path: PathBuf,
        /// What is wrong, in words (`its directory is on a read-only filesystem`).
        why: String,
        /// What to do.
        fix: &'static str,
    },
    /// Another program held a lock on the database for longer than the store waits
    /// (30 s).
    #[error(
        "database {path}: another program has held a lock on it for 30 s — wait for it to finish, or give another --db"
    )]
    Busy {
        /// The database file.
        path: PathBuf,
    },
    /// SQLite reported an error.
    #[error("database {path}: {source} — check the file and its filesystem")]
    Sql {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored value could not be read back (JSON).
    #[error("database {path}: a stored record is unreadable ({what}) — the file may be damaged")]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// What could not be read.
        what: String,
    },
    /// No run matches an id, prefix or `last~N`.
    #[error("no run '{id}' in {path} — 'fsbench history' lists them")]
    NoSuchRun {
        /// What was asked for.
        id: String,
        /// The database file.
        path: PathBuf,
    },
    /// A prefix matches several runs.
    #[error(
        "run id '{id}' is ambiguous in {path} ({count} runs start with it) — give more characters"
    )]
    Ambiguous {
        /// The prefix.
        id: String,
        /// How many runs match.
        count: usize,
        /// The database file.
        path: PathBuf,
    },
    /// The database file or its directory cannot be used.
    #[error(
        "cannot use database {path}: {source} — check the path and permissions, or pass --no-store"
    )]
    Io {
        /// The database file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
}

impl StoreError {
    /// True when the failure is the machine's, met while writing (a full filesystem, an I/O
    /// error), rather than a refusal of the file given: a run that meets it failed (exit 3), a
    /// refused `--db` is an input error (exit 2).
    pub fn is_io_failure(&self) -> bool {
        match self {
            Self::Unusable { why, .. } => why.contains("full"),
            Self::Io { source, .. } => !matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied
                    | std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::ReadOnlyFilesystem
            ),
            Self::Sql { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
            ),
            _ => false,
        }
    }
}
