//! Writing a run as it happens: the run and its targets when it starts, each cell when it first
//! has a result, the samples measured since the last call in one short transaction (between
//! samples, never during one; the caller decides how often), and the final status, summaries,
//! comparisons and scaling at the end. A run killed with SIGKILL keeps every committed sample and
//! stays `running` (shown as incomplete once its process is gone).

use crate::{Store, StoreError, sql_err};
use fsbench_model::{ResultEntry, RunRecord, Sample};
use rusqlite::TransactionBehavior::Immediate;
use rusqlite::{OptionalExtension, params};

/// Where each result entry of a run lives: its cell row and how many samples are stored.
#[derive(Debug, Default)]
pub struct RunCursor {
    run_id: String,
    cells: Vec<CellCursor>,
}

/// A stored cell: its row, how many of its samples are stored, and its metric names (its first
/// sample's, once stored), which its samples' rows leave out.
#[derive(Debug)]
struct CellCursor {
    id: i64,
    stored: usize,
    names: Option<Vec<String>>,
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("invariant: model types serialise")
}

/// The cell's entry as stored: everything but its samples (stored one by one) and its profile
/// (stored compressed in its own column).
fn entry_json(e: &ResultEntry) -> String {
    let mut head = e.without_samples();
    head.profile = None;
    json(&head)
}

impl Store {
    /// Stops SQLite from checkpointing its write-ahead log into the database file on commits
    /// made through this connection: a run's commits then only append to the log, and the log is
    /// copied (with its fsyncs) once, when the connection closes after the run. Checkpoints mid-run
    /// blocked the measuring thread on the disk (an fsync, and reads of the log's pages being
    /// overwritten) between samples. Its commits do not wait for the disk either (see below).
    pub fn defer_checkpoints_and_flushes(&mut self) -> Result<(), StoreError> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", 0)
            .map_err(|e| self.sql(e))?;
        // A commit then writes to the log without waiting for the disk: a run killed (SIGKILL,
        // a crash) keeps every committed sample, as before; a power cut may lose the last
        // commits, never the database's consistency. The checkpoint at the end still syncs.
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.sql(e))
    }

    /// Records a new run (and its targets) with its owner process, so that a run whose process
    /// is gone can be told from one still running.
    pub fn begin_run(
        &mut self,
        r: &RunRecord,
        owner_pid: u32,
        owner_start_ticks: u64,
    ) -> Result<RunCursor, StoreError> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(Immediate)
            .map_err(|e| sql_err(&path, e))?;
        tx.execute(
            "INSERT INTO runs (id, started_at, status, fsbench_version, record_schema, argv,
                owner_pid, owner_start_ticks, environment, overhead, suite, scale, report)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            params![
                r.run.id,
                r.run.started_at,
                r.run.status.name(),
                r.run.fsbench_version,
                r.schema_version,
                json(&r.run.argv),
                owner_pid,
                owner_start_ticks as i64,
                json(&r.environment),
                json(&r.overhead),
                r.run.suite,
                r.run.scale,
                r.run.report.map(|l| l.name()),
            ],
        )
        .map_err(|e| sql_err(&path, e))?;
        for t in &r.environment.targets {
            tx.execute(
                "INSERT OR REPLACE INTO targets (run_id, label, path, fs_type) VALUES (?1, ?2, ?3, ?4)",
                params![r.run.id, t.label, t.path, t.fs_type],
            )
            .map_err(|e| sql_err(&path, e))?;
        }
        tx.commit().map_err(|e| sql_err(&path, e))?;
        Ok(RunCursor {
            run_id: r.run.id.clone(),
            cells: Vec::new(),
        })
    }

    /// Stores what is new in `results` since the last call: new cells, then new samples, in one
    /// transaction.
    pub fn sync(&mut self, cur: &mut RunCursor, results: &[ResultEntry]) -> Result<(), StoreError> {
        let nothing_new = results.len() == cur.cells.len()
            && results
                .iter()
                .zip(&cur.cells)
                .all(|(e, c)| e.samples.len() == c.stored);
        if nothing_new {
            return Ok(());
        }
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(Immediate)
            .map_err(|e| sql_err(&path, e))?;
        for (i, e) in results.iter().enumerate() {
            if i >= cur.cells.len() {
                let id = insert_cell(&tx, &cur.run_id, i, e).map_err(|e| sql_err(&path, e))?;
                cur.cells.push(CellCursor {
                    id,
                    stored: 0,
                    names: None,
                });
            }
            let cell = &mut cur.cells[i];
            for (seq, s) in e.samples.iter().enumerate().skip(cell.stored) {
                insert_sample(&tx, cell, seq, s, &e.headline).map_err(|e| sql_err(&path, e))?;
            }
            cell.stored = e.samples.len();
        }
        tx.commit().map_err(|e| sql_err(&path, e))
    }

    /// Stores the run's final state: status, end time, every cell's summary and warnings, the
    /// comparisons and scaling analyses.
    pub fn finish_run(
        &mut self,
        cur: &mut RunCursor,
        r: &RunRecord,
        finished_at: &str,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.sync(cur, &r.results)?;
        let tx = self
            .conn
            .transaction_with_behavior(Immediate)
            .map_err(|e| sql_err(&path, e))?;
        for (i, e) in r.results.iter().enumerate() {
            let cell = &cur.cells[i];
            let cell_id = cell.id;
            tx.execute(
                "UPDATE cells SET entry = ?1, profile = ?2 WHERE id = ?3",
                params![
                    entry_json(e),
                    crate::profile_blob::encode(e.profile.as_ref()),
                    cell_id
                ],
            )
            .map_err(|e| sql_err(&path, e))?;
            // Outlier flags are set once a cell is complete: rewrite the flagged samples.
            for (seq, s) in e.samples.iter().enumerate().filter(|(_, s)| s.outlier) {
                update_sample(&tx, cell, seq, s).map_err(|e| sql_err(&path, e))?;
            }
        }
        tx.execute(
            "UPDATE runs SET status = ?1, finished_at = ?2, comparisons = ?3, scaling = ?4,
                environment = ?5 WHERE id = ?6",
            params![
                r.run.status.name(),
                finished_at,
                json(&r.comparisons),
                json(&r.scaling),
                json(&r.environment),
                r.run.id
            ],
        )
        .map_err(|e| sql_err(&path, e))?;
        tx.commit().map_err(|e| sql_err(&path, e))
    }

    /// Adds a note to a run.
    pub fn add_note(&mut self, run_id: &str, at: &str, text: &str) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .execute(
                "INSERT INTO notes (run_id, at, text) VALUES (?1, ?2, ?3)",
                params![run_id, at, text],
            )
            .map(drop)
            .map_err(|e| sql_err(&path, e))
    }

    /// Stores a whole finished record at once (`fsbench import`); an existing run with the same
    /// id is an error.
    pub fn import(&mut self, r: &RunRecord) -> Result<(), StoreError> {
        let exists: Option<String> = self
            .conn
            .query_row("SELECT id FROM runs WHERE id = ?1", [&r.run.id], |row| {
                row.get(0)
            })
            .optional()
            .map_err(|e| self.sql(e))?;
        if exists.is_some() {
            return Err(StoreError::Corrupt {
                path: self.path.clone(),
                what: format!("run {} is already stored", r.run.id),
            });
        }
        let mut cur = self.begin_run(r, 0, 0)?;
        self.finish_run(&mut cur, r, &r.run.started_at)
    }
}

fn insert_cell(
    tx: &rusqlite::Transaction<'_>,
    run_id: &str,
    position: usize,
    e: &ResultEntry,
) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO cells (run_id, position, target, workload, params, sweep, cache_state,
            cache_method, headline, entry)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            run_id,
            position as i64,
            e.target,
            e.workload,
            json(&e.params),
            json(&e.sweep),
            e.cache.state.name(),
            e.cache.method,
            e.headline,
            entry_json(e),
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

fn update_sample(
    tx: &rusqlite::Transaction<'_>,
    cell: &CellCursor,
    seq: usize,
    s: &Sample,
) -> rusqlite::Result<()> {
    let (body, _) = stored(s, cell.names.as_deref().unwrap_or_default());
    tx.execute(
        "UPDATE samples SET sample = ?1 WHERE cell_id = ?2 AND seq = ?3",
        params![body, cell.id, seq as i64],
    )?;
    Ok(())
}

/// A sample as its row keeps it: the `sample` column (a compact row, [`crate::sample_row`], its
/// metric values alone when their names are `names`; or JSON text for a sample that format
/// leaves out) and the `series` column. A short series (a few intervals) stays in the sample; a
/// long one goes to its compact column ([`crate::series_blob`]). The histogram has its own
/// column and is never in the sample.
fn stored(s: &Sample, names: &[String]) -> (rusqlite::types::Value, Option<Vec<u8>>) {
    let short = s.series.len() <= SERIES_IN_SAMPLE;
    let series = match short {
        true => None,
        false => crate::series_blob::encode(&s.series, s.series_interval_ns),
    };
    if let Some(row) = crate::sample_row::encode(s, names, short) {
        return (rusqlite::types::Value::Blob(row), series);
    }
    let mut body = s.clone();
    body.latency_hdr = None;
    body.calls = None;
    if !short {
        body.series = Vec::new();
        body.series_interval_ns = None;
    }
    (rusqlite::types::Value::Text(json(&body)), series)
}

/// A series of at most this many intervals is stored in the sample, not its own column.
const SERIES_IN_SAMPLE: usize = 8;

/// Stores one sample; the cell's first stored sample gives the metric names of all of them (kept
/// in the cell's row, never rewritten).
fn insert_sample(
    tx: &rusqlite::Transaction<'_>,
    cell: &mut CellCursor,
    seq: usize,
    s: &Sample,
    headline: &str,
) -> rusqlite::Result<()> {
    let names = match &mut cell.names {
        Some(n) => n,
        names @ None => {
            let n: Vec<String> = s.metrics.keys().cloned().collect();
            tx.execute(
                "UPDATE cells SET metric_names = ?1 WHERE id = ?2",
                params![json(&n), cell.id],
            )?;
            names.insert(n)
        }
    };
    let (body, series) = stored(s, names);
    let mut stmt = tx.prepare_cached(
        "INSERT INTO samples (cell_id, seq, wall_ns, user_ns, sys_ns, ops, bytes, headline,
            latency_hdr, sample, series, calls)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    stmt.execute(params![
        cell.id,
        seq as i64,
        s.wall_ns as i64,
        s.user_ns as i64,
        s.sys_ns as i64,
        s.ops as i64,
        s.bytes as i64,
        s.metrics.get(headline),
        s.latency_hdr,
        body,
        series,
        crate::profile_blob::encode_calls(s.calls.as_ref()),
    ])?;
    Ok(())
}

impl Store {
    /// Sets a run's status (the signal watcher marks a run `interrupted` before a forced exit).
    pub fn set_status(
        &mut self,
        run_id: &str,
        status: fsbench_model::RunStatus,
        at: &str,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET status = ?1, finished_at = ?2 WHERE id = ?3",
                params![status.name(), at, run_id],
            )
            .map(drop)
            .map_err(|e| self.sql(e))
    }
}
