//! Named baselines: a name pinned to a stored run (`fsbench baseline set ci-main RUN`), so that
//! a CI gate compares with the same run every time instead of whatever ran last.

use crate::{Store, StoreError, sql_err};
use rusqlite::{OptionalExtension, params};

impl Store {
    /// Pins `name` to run `run_id` (an existing run's full id), replacing an earlier pin.
    pub fn set_baseline(&mut self, name: &str, run_id: &str, at: &str) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .execute(
                "INSERT INTO baselines (name, run_id, set_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT(name) DO UPDATE SET run_id = excluded.run_id, set_at = excluded.set_at",
                params![name, run_id, at],
            )
            .map(drop)
            .map_err(|e| sql_err(&path, e))
    }

    /// The run `name` is pinned to, if it is a baseline's name (none in a database opened
    /// read-only before its migration to schema 2, which has no baselines table).
    pub fn baseline(&self, name: &str) -> Result<Option<String>, StoreError> {
        if !self.has_baselines()? {
            return Ok(None);
        }
        self.conn
            .query_row(
                "SELECT run_id FROM baselines WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.sql(e))
    }

    fn has_baselines(&self) -> Result<bool, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'baselines'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.sql(e))
    }

    /// Every baseline: (name, run id, when it was set), by name.
    pub fn baselines(&self) -> Result<Vec<(String, String, String)>, StoreError> {
        if !self.has_baselines()? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare("SELECT name, run_id, set_at FROM baselines ORDER BY name")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}
