//! A run's export files as one of its sinks: the JSON rewritten after every sample, everything
//! at the end, and what a forced exit writes instead (the JSON marked interrupted, the store's
//! mark), registered with the process's cleanup registry. From its first moment to its last,
//! every way a run ends leaves a JSON with a final status.

use crate::exports::Exports;
use fsbench_model::{ResultEntry, RunRecord, RunStatus};
use fsbench_sys::cleanup::{Cleanup, Registration, Stage};
use std::path::{Path, PathBuf};

/// How an export that goes to standard output is written (the binary's stdout, which turns a
/// closed pipe into a quiet exit).
pub type Stdout = fn(&str) -> Result<(), String>;

/// How a forced exit marks the run interrupted in the database at a path (the runner's store
/// sink does it).
pub type MarkInterrupted = fn(&Path, &str);

/// The exports of a run being measured.
pub struct RunSink {
    /// The run's record as it stands.
    pub record: RunRecord,
    /// The export files.
    pub exports: Exports,
    /// The results database, marked interrupted by a forced exit.
    pub db: Option<PathBuf>,
    cleanup: &'static Cleanup,
    stdout: Stdout,
    mark: MarkInterrupted,
    last_words: Option<Registration>,
}

impl RunSink {
    /// The sink of `record`'s `exports`; forced exits are registered with `cleanup`, exports to
    /// standard output written with `stdout`, the database marked with `mark`.
    pub fn new(
        record: RunRecord,
        exports: Exports,
        cleanup: &'static Cleanup,
        stdout: Stdout,
        mark: MarkInterrupted,
    ) -> Self {
        Self {
            record,
            exports,
            db: None,
            cleanup,
            stdout,
            mark,
            last_words: None,
        }
    }

    /// The run's results after a sample: the exports rewritten during a run are written.
    pub fn results(&mut self, results: &[ResultEntry]) {
        // Copying every result after every sample costs O(samples) each time: only for exports
        // that are rewritten during the run.
        if self.exports.rewritten_during_run() {
            self.record.results = results.to_vec();
            self.save(false);
        }
    }

    /// Ends the JSON of a run that stopped before it finished: `interrupted` when a signal
    /// stopped it, else `failed`, with the samples it has.
    pub fn fail(&mut self, interrupted: bool) {
        self.record.run.status = ended(interrupted);
        self.save(false);
    }

    /// Writes the exports due now (everything when `last`) and, until the last, refreshes what
    /// a forced exit would write.
    pub fn save(&mut self, last: bool) {
        let seed = self.record.run.report;
        let stdout = self.stdout;
        self.exports
            .write(&self.record, last, seed, &mut |t| stdout(t));
        if last {
            return;
        }
        let files = self.exports.last_words(&self.record);
        let db = self.db.clone();
        let id = self.record.run.id.clone();
        let mark = self.mark;
        // The new words replace the old: the previous registration is dropped (forgotten).
        self.last_words = Some(self.cleanup.register(Stage::Outputs, move || {
            if let Some(f) = files {
                f();
            }
            if let Some(path) = db {
                mark(&path, &id);
            }
            Vec::new()
        }));
    }
}

/// What a forced exit writes before the run's own sink exists: `record` (provisional) as an
/// interrupted JSON. Dropping the registration forgets it.
pub fn early_words(
    exports: &Exports,
    record: &RunRecord,
    cleanup: &'static Cleanup,
) -> Option<Registration> {
    let words = exports.last_words(record)?;
    Some(cleanup.register(Stage::Outputs, move || {
        words();
        Vec::new()
    }))
}

/// The JSON of a run that ended before it began measuring (its lab could not be built, or a
/// signal came first): `record` (provisional), `interrupted` or `failed`.
pub fn end_before_start(exports: &mut Exports, mut record: RunRecord, interrupted: bool) {
    record.run.status = ended(interrupted);
    // Not `last`: only the JSON files, which are rewritten during a run; nothing on stdout.
    exports.write(&record, false, None, &mut |_| Ok(()));
}

/// The final status of a run that stopped before it finished: `interrupted` when a signal
/// stopped it, else `failed`.
fn ended(interrupted: bool) -> RunStatus {
    match interrupted {
        true => RunStatus::Interrupted,
        false => RunStatus::Failed,
    }
}
