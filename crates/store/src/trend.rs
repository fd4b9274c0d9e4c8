//! What a trend reads: each cell's headline value per sample over every stored run, and no
//! more (no sample JSON, series or histograms), so a thousand runs read in a fraction of a
//! second; and a run's header (its environment) for the runs either side of a step.

use crate::{Store, StoreError};
use fsbench_model::CacheState;
use fsbench_model::trend::{CellHistory, RunValues};
use rusqlite::params;
use std::collections::{BTreeMap, HashMap};

/// Which cells a trend reads.
#[derive(Debug, Clone, Default)]
pub struct TrendFilter {
    /// Only this target label.
    pub target: Option<String>,
    /// Only this workload.
    pub workload: Option<String>,
    /// Only this cache state.
    pub cache: Option<CacheState>,
}

/// A cell's identity across runs: target, workload, parameters, sweep, cache state (as stored)
/// and headline metric.
type Key = (String, String, String, String, String, String);

const WHERE: &str = "(?1 IS NULL OR c.target = ?1) AND (?2 IS NULL OR c.workload = ?2)
                     AND (?3 IS NULL OR c.cache_state = ?3)";

impl Store {
    /// Every matching cell's headline values, run by run (oldest first); cells in the order
    /// they were first measured. Samples without a headline value are left out, and so are
    /// runs of a cell without any.
    pub fn cell_histories(&self, f: &TrendFilter) -> Result<Vec<CellHistory>, StoreError> {
        let cache = f.cache.map(CacheState::name);
        let args = params![f.target, f.workload, cache];
        let mut values: HashMap<i64, Vec<f64>> = HashMap::new();
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT s.cell_id, s.headline FROM samples s JOIN cells c ON c.id = s.cell_id
                 WHERE {WHERE} AND s.headline IS NOT NULL ORDER BY s.cell_id, s.seq"
            ))
            .map_err(|e| self.sql(e))?;
        let mut rows = stmt.query(args).map_err(|e| self.sql(e))?;
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let (cell, v): (i64, f64) = (
                r.get(0).map_err(|e| self.sql(e))?,
                r.get(1).map_err(|e| self.sql(e))?,
            );
            values.entry(cell).or_default().push(v);
        }
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT c.id, r.id, r.started_at, c.target, c.workload, c.params, c.sweep,
                        c.cache_state, c.headline
                 FROM cells c JOIN runs r ON r.id = c.run_id
                 WHERE {WHERE} ORDER BY r.started_at, r.rowid, c.position"
            ))
            .map_err(|e| self.sql(e))?;
        let mut rows = stmt.query(args).map_err(|e| self.sql(e))?;
        let mut index: HashMap<Key, usize> = HashMap::new();
        let mut out: Vec<CellHistory> = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let text = |i: usize| r.get::<_, String>(i).map_err(|e| self.sql(e));
            let Some(vals) = values.remove(&r.get(0).map_err(|e| self.sql(e))?) else {
                continue;
            };
            let run = RunValues {
                run_id: text(1)?,
                started_at: text(2)?,
                values: vals,
            };
            let key: Key = (text(3)?, text(4)?, text(5)?, text(6)?, text(7)?, text(8)?);
            let i = match index.get(&key) {
                Some(&i) => i,
                None => {
                    out.push(self.history_of(&key)?);
                    index.insert(key, out.len() - 1);
                    out.len() - 1
                }
            };
            match out[i].runs.last_mut() {
                // The same cell twice in one run: one run's samples.
                Some(last) if last.run_id == run.run_id => last.values.extend(run.values),
                _ => out[i].runs.push(run),
            }
        }
        Ok(out)
    }

    /// An empty history for the cell `key` names.
    fn history_of(&self, key: &Key) -> Result<CellHistory, StoreError> {
        let map = |text: &str, what: &str| -> Result<BTreeMap<String, String>, StoreError> {
            self.parse(text, what)
        };
        Ok(CellHistory {
            target: key.0.clone(),
            workload: key.1.clone(),
            params: map(&key.2, "a cell's parameters")?,
            sweep: map(&key.3, "a cell's sweep")?,
            cache: CacheState::parse(&key.4).ok_or_else(|| StoreError::Corrupt {
                path: self.path.clone(),
                what: format!("a cell's cache state '{}'", key.4),
            })?,
            metric: key.5.clone(),
            runs: Vec::new(),
        })
    }
}
