//! Where results are kept and how a run reaches the store: the database path
//! (`--db`, else `$XDG_DATA_HOME/fsbench/results.db`, else `~/.local/share/fsbench/results.db`),
//! and the run's store sink, which commits the samples that arrived at most every
//! [`COMMIT_EVERY`] (between samples, never during one), and all of them at the end. A store that fails mid-run
//! does not stop the measurement: the error is reported at the end (exit 3), and `--export-json`
//! still has every sample.

use crate::error::{CliError, CliResult};
use fsbench_model::{ResultEntry, RunRecord};
use fsbench_store::{RunCursor, Store};
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
pub fn protected_db(arg: Option<&Path>) -> Vec<crate::outputs::Protected> {
    db_path(arg)
        .map(|path| crate::outputs::Protected {
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
        Err(e) => Err(CliError::usage(e.to_string())),
    }
}

/// Opens (or creates) the database for a write that is not a run (a device ceiling).
pub fn open_for_writing(arg: Option<&Path>) -> CliResult<Store> {
    let path = db_path(arg)?;
    Store::open(&path).map_err(|e| CliError::usage(e.to_string()))
}

/// How often the samples that arrived are committed during a run. A commit costs 40–60 µs
/// (measured by `bench/store.sh`): for samples of about 100 µs, one commit per sample made the
/// store a third of the run. A run killed with SIGKILL loses at most this much of its samples;
/// every other way out (the end, an error, Ctrl-C) commits them all.
pub const COMMIT_EVERY: std::time::Duration = std::time::Duration::from_millis(20);

/// A run being stored.
pub struct RunStore {
    store: Store,
    cursor: RunCursor,
    /// When the samples were last committed.
    committed: std::time::Instant,
    /// The first failure, reported at the end of the run.
    pub error: Option<String>,
}

impl RunStore {
    /// Opens the database and records the run's start; a database that cannot be used is an
    /// input error before any work.
    pub fn begin(arg: Option<&Path>, record: &RunRecord, note: Option<&str>) -> CliResult<Self> {
        let path = db_path(arg)?;
        let mut store = Store::open(&path).map_err(|e| CliError::usage(e.to_string()))?;
        let pid = std::process::id();
        let ticks = crate::scratch::process_start_ticks(pid).unwrap_or(0);
        let cursor = store
            .begin_run(record, pid, ticks)
            .map_err(|e| CliError::usage(e.to_string()))?;
        if let Some(text) = note {
            store
                .add_note(&record.run.id, &record.run.started_at, text)
                .map_err(|e| CliError::usage(e.to_string()))?;
        }
        Ok(Self {
            store,
            cursor,
            committed: std::time::Instant::now(),
            error: None,
        })
    }

    /// The devices' ceilings measured on `host` (none when they cannot be read: a run never
    /// fails for want of them).
    pub fn ceilings(&self, host: &str) -> Vec<fsbench_model::DeviceCeiling> {
        self.store.ceilings(host).unwrap_or_default()
    }

    /// Commits the samples that are new since the last commit, once [`COMMIT_EVERY`] has passed.
    pub fn sync(&mut self, results: &[ResultEntry]) {
        if self.error.is_none() && self.committed.elapsed() >= COMMIT_EVERY {
            if let Err(e) = self.store.sync(&mut self.cursor, results) {
                self.error = Some(e.to_string());
            }
            self.committed = std::time::Instant::now();
        }
    }

    /// Stores the final record.
    pub fn finish(&mut self, record: &RunRecord) {
        if self.error.is_none() {
            let now = now_rfc3339();
            if let Err(e) = self.store.finish_run(&mut self.cursor, record, &now) {
                self.error = Some(e.to_string());
            }
        }
    }

    /// The database file.
    pub fn path(&self) -> PathBuf {
        self.store.path().to_path_buf()
    }
}

/// Marks `run_id` interrupted in the database at `path` (for the signal watcher's forced exit).
pub fn mark_interrupted(path: &Path, run_id: &str) {
    if let Ok(mut s) = Store::open(path) {
        let _ = s.set_status(run_id, "interrupted", &now_rfc3339());
    }
}

/// The current time, RFC 3339 UTC to the second.
pub fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
