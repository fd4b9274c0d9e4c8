//! How long things took before, for the time estimate printed before a run: the samples of the
//! newest finished cell like a planned one (same workload, parameters and cache state, on a
//! target of the same label or path and the same filesystem), with its run's overhead (set-up,
//! cold drops, preparation) as the ratio of the run's duration to its samples' time; and the
//! durations of earlier runs of a suite.

use crate::{Store, StoreError};
use rusqlite::{OptionalExtension, params};
use std::collections::BTreeMap;

/// Timing of one stored cell like a planned one.
#[derive(Debug, Clone, PartialEq)]
pub struct CellTiming {
    /// The run it comes from.
    pub run_id: String,
    /// Mean wall time of its samples, ns.
    pub mean_wall_ns: f64,
    /// Its run's duration over the sum of its run's sample times (at least 1): what preparation,
    /// warm-up, cold drops and set-up between samples added.
    pub overhead_factor: f64,
}

/// What identifies a planned cell in the store.
#[derive(Debug, Clone)]
pub struct CellKey<'a> {
    /// Workload name.
    pub workload: &'a str,
    /// Canonical parameters, as stored with the results.
    pub params: &'a BTreeMap<String, String>,
    /// Sweep variant.
    pub sweep: &'a BTreeMap<String, String>,
    /// `cold` or `warm`.
    pub cache_state: fsbench_model::CacheState,
    /// Target label.
    pub label: &'a str,
    /// Target path.
    pub path: &'a str,
    /// Target filesystem type.
    pub fs_type: &'a str,
}

/// One earlier run of a suite.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRun {
    /// Run id.
    pub id: String,
    /// Its duration, seconds.
    pub seconds: f64,
    /// Its targets.
    pub targets: usize,
    /// Its `--scale` (1 when not scaled).
    pub scale: f64,
}

impl Store {
    /// The newest finished cell like `key`, with its run's overhead factor.
    pub fn cell_timing(&self, key: &CellKey<'_>) -> Result<Option<CellTiming>, StoreError> {
        let params = serde_json::to_string(key.params).unwrap_or_default();
        let sweep = serde_json::to_string(key.sweep).unwrap_or_default();
        self.conn
            .query_row(
                "SELECT r.id,
                        (SELECT avg(s.wall_ns) FROM samples s WHERE s.cell_id = c.id),
                        (julianday(r.finished_at) - julianday(r.started_at)) * 86400e9
                          / (SELECT sum(s.wall_ns) FROM samples s JOIN cells c2 ON s.cell_id = c2.id
                             WHERE c2.run_id = r.id)
                 FROM cells c JOIN runs r ON r.id = c.run_id
                      JOIN targets t ON t.run_id = r.id AND t.label = c.target
                 WHERE c.workload = ?1 AND c.params = ?2 AND c.sweep = ?3 AND c.cache_state = ?4
                   AND (t.label = ?5 OR t.path = ?6) AND t.fs_type = ?7
                   AND r.status = 'ok' AND r.finished_at IS NOT NULL
                   AND EXISTS (SELECT 1 FROM samples s WHERE s.cell_id = c.id)
                 ORDER BY r.started_at DESC, r.rowid DESC LIMIT 1",
                params![
                    key.workload,
                    params,
                    sweep,
                    key.cache_state.name(),
                    key.label,
                    key.path,
                    key.fs_type
                ],
                |r| {
                    Ok(CellTiming {
                        run_id: r.get(0)?,
                        mean_wall_ns: r.get::<_, Option<f64>>(1)?.unwrap_or(0.0),
                        overhead_factor: r.get::<_, Option<f64>>(2)?.unwrap_or(1.0).max(1.0),
                    })
                },
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    /// Finished runs of the suite `name` (as the record names it), newest first, at most `limit`.
    pub fn suite_runs(&self, name: &str, limit: usize) -> Result<Vec<SuiteRun>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, (julianday(r.finished_at) - julianday(r.started_at)) * 86400.0,
                        (SELECT count(*) FROM targets t WHERE t.run_id = r.id), r.scale
                 FROM runs r
                 WHERE r.status = 'ok' AND r.finished_at IS NOT NULL AND r.suite = ?1
                 ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?2",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![name, limit as i64], |r| {
                Ok(SuiteRun {
                    id: r.get(0)?,
                    seconds: r.get::<_, Option<f64>>(1)?.unwrap_or(0.0),
                    targets: r.get::<_, i64>(2)? as usize,
                    scale: r.get::<_, Option<f64>>(3)?.unwrap_or(1.0),
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}
