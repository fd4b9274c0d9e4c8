//! What a trend reads: each cell's headline value per sample over every stored run, and no
//! more (no sample JSON, series or histograms), so a thousand runs read in a fraction of a
//! second; and a run's header (its environment) for the runs either side of a step. Since
//! schema version 7 both queries are answered from indexes alone (`schema::V7`); an older
//! database opened read-only gives the same answer, more slowly.

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

impl Store {
    /// Every matching cell's headline values, run by run (oldest first); cells in the order
    /// they were first measured. Samples without a headline value are left out, and so are
    /// runs of a cell without any.
    pub fn cell_histories(&self, f: &TrendFilter) -> Result<Vec<CellHistory>, StoreError> {
        let (mut out, at) = self.trend_cells(f)?;
        let mut stmt = self
            .conn
            .prepare("SELECT cell_id, headline FROM samples WHERE headline IS NOT NULL")
            .map_err(|e| self.sql(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.sql(e))?;
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let cell: i64 = r.get(0).map_err(|e| self.sql(e))?;
            if let Some(&(h, run)) = at.get(&cell) {
                out[h].runs[run]
                    .values
                    .push(r.get(1).map_err(|e| self.sql(e))?);
            }
        }
        for h in &mut out {
            h.runs.retain(|r| !r.values.is_empty());
        }
        out.retain(|h| !h.runs.is_empty());
        Ok(out)
    }

    /// The matching cells, grouped by identity with their runs (no values yet), and where each
    /// stored cell's samples go: cell id → (history, run).
    #[allow(clippy::type_complexity)]
    fn trend_cells(
        &self,
        f: &TrendFilter,
    ) -> Result<(Vec<CellHistory>, HashMap<i64, (usize, usize)>), StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT c.id, r.id, r.started_at, c.target, c.workload, c.params, c.sweep,
                        c.cache_state, c.headline
                 FROM runs r JOIN cells c ON c.run_id = r.id
                 WHERE (?1 IS NULL OR c.target = ?1) AND (?2 IS NULL OR c.workload = ?2)
                   AND (?3 IS NULL OR c.cache_state = ?3)
                 ORDER BY r.started_at, r.rowid, c.position",
            )
            .map_err(|e| self.sql(e))?;
        let cache = f.cache.map(CacheState::name);
        let mut rows = stmt
            .query(params![f.target, f.workload, cache])
            .map_err(|e| self.sql(e))?;
        let (mut index, mut at): (HashMap<Key, usize>, HashMap<i64, (usize, usize)>) =
            Default::default();
        let mut out: Vec<CellHistory> = Vec::new();
        while let Some(r) = rows.next().map_err(|e| self.sql(e))? {
            let text = |i: usize| r.get::<_, String>(i).map_err(|e| self.sql(e));
            let (run_id, started_at) = (text(1)?, text(2)?);
            let key: Key = (text(3)?, text(4)?, text(5)?, text(6)?, text(7)?, text(8)?);
            let h = match index.get(&key) {
                Some(&h) => h,
                None => {
                    out.push(self.history_of(&key)?);
                    index.insert(key, out.len() - 1);
                    out.len() - 1
                }
            };
            let runs = &mut out[h].runs;
            // The same cell twice in one run: one run's samples.
            if runs.last().is_none_or(|l| l.run_id != run_id) {
                runs.push(RunValues {
                    run_id,
                    started_at,
                    values: Vec::new(),
                });
            }
            at.insert(r.get(0).map_err(|e| self.sql(e))?, (h, runs.len() - 1));
        }
        Ok((out, at))
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
