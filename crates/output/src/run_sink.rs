//! A run's export files as one of its sinks: the JSON rewritten during the run (after its first
//! sample, then as often as [`Rewrites`] allows), everything at the end, and what a forced exit
//! writes instead (the JSON marked interrupted with every sample so far, the store's mark),
//! registered with the process's cleanup registry. From its first moment to its last, every
//! way a run ends leaves a JSON with a final status and every sample taken; only SIGKILL (which
//! runs nothing) loses the samples since the last rewrite.

use crate::exports::Exports;
use fsbench_model::{ResultEntry, RunRecord, RunStatus};
use fsbench_sys::cleanup::{Cleanup, Registration, Stage};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How an export that goes to standard output is written (the binary's stdout, which turns a
/// closed pipe into a quiet exit).
// A String error, by design: the binary's writer gives its one-line message (the binary's error
// type, with its exit kind, cannot be named here), and the exports keep it to report.
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
    /// The results so far, during the run (`record.results` is filled when it ends): shared
    /// with the forced exit's last words, which write them as they are at that moment.
    live: Arc<Mutex<Vec<ResultEntry>>>,
    rewrites: Rewrites,
}

/// When the JSON is rewritten during a run. Rewriting the whole document after every sample
/// made a long run quadratic (10,000 `null` samples with `--json`: over 10 minutes instead of 3
/// seconds); it is rewritten after the first sample, then once at least [`Rewrites::EVERY`] has
/// passed and at least [`Rewrites::COST_SHARE`] times as long as the last rewrite took, so that
/// rewriting stays under 5% of the run however large the document grows.
#[derive(Debug, Default)]
struct Rewrites {
    /// When the last rewrite ended, and how long it took.
    last: Option<(Instant, Duration)>,
}

impl Rewrites {
    /// The shortest time between rewrites.
    const EVERY: Duration = Duration::from_secs(1);
    /// How many times its own duration must pass before the next rewrite.
    const COST_SHARE: u32 = 20;

    /// Whether a rewrite is due at `now`.
    fn due(&self, now: Instant) -> bool {
        self.last.is_none_or(|(at, took)| {
            now.saturating_duration_since(at)
                >= Self::EVERY.max(took.saturating_mul(Self::COST_SHARE))
        })
    }
}

/// The live results, usable even if a thread panicked while holding them.
fn lock(live: &Mutex<Vec<ResultEntry>>) -> MutexGuard<'_, Vec<ResultEntry>> {
    live.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Brings `mine` up to `theirs`, copying only what is new: new cells whole, and for a cell
/// already copied its new samples and its other fields (a cell's samples are only appended
/// during a run; one that has fewer than copied is copied again whole). A cell's other fields
/// change with its samples, or at the end of its workload, an update that brings no sample: an
/// update that brings samples leaves the cells without new ones alone, so that each sample
/// copies its own cell, not every cell of the run.
fn refresh(mine: &mut Vec<ResultEntry>, theirs: &[ResultEntry]) {
    mine.truncate(theirs.len());
    let brings_samples = mine
        .iter()
        .zip(theirs)
        .any(|(m, e)| m.samples.len() != e.samples.len());
    for (i, e) in theirs.iter().enumerate() {
        match mine.get_mut(i) {
            Some(m) if brings_samples && m.samples.len() == e.samples.len() => {}
            Some(m) if m.samples.len() <= e.samples.len() => {
                let mut samples = std::mem::take(&mut m.samples);
                samples.extend_from_slice(&e.samples[samples.len()..]);
                *m = e.without_samples();
                m.samples = samples;
            }
            Some(m) => *m = e.clone(),
            None => mine.push(e.clone()),
        }
    }
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
            live: Arc::default(),
            rewrites: Rewrites::default(),
        }
    }

    /// The run's results after a sample: kept for the exports rewritten during a run, which are
    /// written when a rewrite is due.
    pub fn results(&mut self, results: &[ResultEntry]) {
        if !self.exports.rewritten_during_run() {
            return;
        }
        refresh(&mut lock(&self.live), results);
        if self.rewrites.due(Instant::now()) {
            let started = Instant::now();
            self.save(false);
            self.rewrites.last = Some((Instant::now(), started.elapsed()));
        }
    }

    /// Ends the JSON of a run that stopped before it finished: `interrupted` when a signal
    /// stopped it, else `failed`, with the samples it has.
    pub fn fail(&mut self, interrupted: bool) {
        self.record.run.status = ended(interrupted);
        self.save(false);
    }

    /// Writes the exports due now (everything when `last`) and, until the last, refreshes what
    /// a forced exit would write. Until the run's record has its results (at its end), the
    /// document carries the results so far.
    pub fn save(&mut self, last: bool) {
        let seed = self.record.run.report;
        let stdout = self.stdout;
        {
            // During the run the results so far are lent to the record for the write (not
            // copied: they are every sample taken), and taken back.
            let mut live = lock(&self.live);
            let lent = self.record.results.is_empty();
            if lent {
                std::mem::swap(&mut self.record.results, &mut *live);
            }
            self.exports
                .write(&self.record, last, seed, &mut |t| stdout(t));
            if lent {
                std::mem::swap(&mut self.record.results, &mut *live);
            }
        }
        if last {
            return;
        }
        let mut head = self.record.clone();
        let live = Arc::clone(&self.live);
        let files = self.exports.last_words(move || {
            if head.results.is_empty() {
                head.results = lock(&live).clone();
            }
            head
        });
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
    let record = record.clone();
    let words = exports.last_words(move || record)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::Sample;

    fn entry(target: &str, samples: u64) -> ResultEntry {
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": target, "workload": "null", "params": {}, "sweep": {},
            "cache": {"state": "warm", "method": "none"}, "headline": "iops",
            "samples": [], "summary": {}
        }))
        .unwrap();
        e.samples = (0..samples)
            .map(|k| {
                serde_json::from_value::<Sample>(serde_json::json!({
                    "wall_ns": 1000 + k, "user_ns": 0, "sys_ns": 0, "ops": k, "bytes": 0,
                    "metrics": {}
                }))
                .unwrap()
            })
            .collect();
        e
    }

    #[test]
    fn refresh_copies_new_cells_new_samples_and_changed_fields() {
        let mut mine = Vec::new();
        let mut theirs = vec![entry("a", 2)];
        refresh(&mut mine, &theirs);
        assert_eq!(mine, theirs);
        theirs[0].samples.push(entry("a", 3).samples.pop().unwrap());
        theirs[0].warnings.push(fsbench_model::Warning::new(
            fsbench_model::WarningKind::Stack,
            "new",
        ));
        theirs.push(entry("b", 1));
        refresh(&mut mine, &theirs);
        assert_eq!(mine, theirs, "appended sample, changed field, new cell");
        // The end of a workload: fields change, no sample comes.
        theirs[1].warnings.push(fsbench_model::Warning::new(
            fsbench_model::WarningKind::Stack,
            "at the end",
        ));
        refresh(&mut mine, &theirs);
        assert_eq!(mine, theirs, "fields changed without a sample");
        // A cell whose samples were replaced by fewer is copied again whole.
        theirs[0].samples.truncate(1);
        refresh(&mut mine, &theirs);
        assert_eq!(mine, theirs);
    }

    #[test]
    fn rewrites_are_due_first_then_after_a_second_and_twenty_times_their_cost() {
        let mut r = Rewrites::default();
        let t0 = Instant::now();
        let later = |ms| t0 + Duration::from_millis(ms);
        assert!(r.due(t0), "the first sample is written at once");
        r.last = Some((t0, Duration::from_millis(1)));
        assert!(!r.due(later(900)), "not again within a second");
        r.last = Some((t0, Duration::from_millis(10)));
        assert!(r.due(later(1500)), "a cheap rewrite: every second");
        r.last = Some((t0, Duration::from_millis(100)));
        assert!(!r.due(later(1500)), "a 100 ms rewrite waits 2 s");
        assert!(r.due(later(2000)));
    }
}
