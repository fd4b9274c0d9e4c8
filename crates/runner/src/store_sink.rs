//! The store as one of the run's sinks: the run is recorded when it begins, the samples that
//! arrived are committed at most every [`COMMIT_EVERY`] (between samples, never during one), and
//! all of them at the end. A store that fails mid-run does not stop the measurement: the error
//! is kept for the end of the run (exit 3), and `--export-json` still has every sample.

use crate::{Event, Sink};
use fsbench_model::{DeviceCeiling, ResultEntry, RunRecord, RunStatus};
use fsbench_store::{RunCursor, Store, StoreError};
use std::path::{Path, PathBuf};

/// How often the samples that arrived are committed during a run. A commit costs 40–60 µs
/// (measured by `bench/store.sh`): for samples of about 100 µs, one commit per sample made the
/// store a third of the run. A run killed with SIGKILL loses at most this much of its samples;
/// every other way out (the end, an error, Ctrl-C) commits them all.
pub const COMMIT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// A run being stored.
pub struct StoreSink {
    /// The open database, until the run is stored whole.
    store: Option<Store>,
    path: PathBuf,
    /// The database closing once the run is stored (see [`StoreSink::finish`]).
    closing: Option<std::thread::JoinHandle<Result<(), StoreError>>>,
    cursor: RunCursor,
    /// When the samples were last committed.
    committed: std::time::Instant,
    /// The first failure, reported at the end of the run.
    pub error: Option<String>,
}

impl StoreSink {
    /// Opens the database at `path` and records the run's start (and the user's `note`) with
    /// this process as its owner; a database that cannot be used is an error before any work.
    /// Another program's lock on it is waited for, `waiting` told when the wait lasts.
    pub fn begin(
        path: &Path,
        record: &RunRecord,
        note: Option<&str>,
        waiting: &mut dyn FnMut(),
    ) -> Result<Self, StoreError> {
        let mut store = Store::open_waiting(path, waiting)?;
        store.defer_checkpoints_and_flushes()?;
        let pid = std::process::id();
        let ticks = fsbench_scratch::process_start_ticks(pid).unwrap_or(0);
        let cursor = store.begin_run(record, pid, ticks)?;
        if let Some(text) = note {
            store.add_note(&record.run.id, &record.run.started_at, text)?;
        }
        Ok(Self {
            path: store.path().to_path_buf(),
            store: Some(store),
            closing: None,
            cursor,
            committed: std::time::Instant::now(),
            error: None,
        })
    }

    /// The devices' ceilings measured on `host` (none when they cannot be read: a run never
    /// fails for want of them).
    pub fn ceilings(&self, host: &str) -> Vec<DeviceCeiling> {
        self.store
            .as_ref()
            .and_then(|s| s.ceilings(host).ok())
            .unwrap_or_default()
    }

    /// Commits the samples that are new since the last commit, once [`COMMIT_EVERY`] has passed.
    pub fn sync(&mut self, results: &[ResultEntry]) {
        if self.error.is_none() && self.committed.elapsed() >= COMMIT_EVERY {
            let Some(store) = self.store.as_mut() else {
                return;
            };
            if let Err(e) = store.sync(&mut self.cursor, results) {
                self.error = Some(e.to_string());
            }
            self.committed = std::time::Instant::now();
        }
    }

    /// Stores the final record, then closes the database on a thread of its own: the close
    /// copies the run's write-ahead log into the database and syncs it (30 ms for 10,000 short
    /// samples), which overlaps with the report that follows instead of delaying it. Nothing is
    /// measured any more; [`StoreSink::closed`] waits for it.
    pub fn finish(&mut self, record: &RunRecord) {
        let Some(mut store) = self.store.take() else {
            return;
        };
        if self.error.is_none() {
            let now = crate::record::now_rfc3339();
            if let Err(e) = store.finish_run(&mut self.cursor, record, &now) {
                self.error = Some(e.to_string());
            }
        }
        // Without a thread to be had, the store (moved into the closure) is closed here, as
        // the closure is dropped.
        self.closing = std::thread::Builder::new()
            .name("fsbench-store-close".into())
            .spawn(move || store.close())
            .ok();
    }

    /// Waits until the database is closed; a failure to close it becomes the run's store error.
    pub fn closed(&mut self) {
        if let Some(handle) = self.closing.take() {
            let result = handle.join().unwrap_or_else(|_| {
                Err(StoreError::Corrupt {
                    path: self.path.clone(),
                    what: "closing it panicked".into(),
                })
            });
            if let Err(e) = result {
                self.error.get_or_insert(e.to_string());
            }
        }
    }

    /// The database file.
    pub fn path(&self) -> PathBuf {
        self.path.clone()
    }
}

impl Sink for StoreSink {
    fn event(&mut self, e: Event<'_>) {
        if let Event::Results(results) = e {
            self.sync(results);
        }
    }
}

impl Drop for StoreSink {
    fn drop(&mut self) {
        self.closed();
    }
}

/// Marks `run_id` interrupted in the database at `path` (a forced exit's last words; nothing to
/// report if it cannot).
pub fn mark_interrupted(path: &Path, run_id: &str) {
    if let Ok(mut s) = Store::open(path) {
        let now = crate::record::now_rfc3339();
        let _ = s.set_status(run_id, RunStatus::Interrupted, &now);
    }
}
