//! Devices' measured ceilings (`fsbench env --probe`), per host: every later run flags a result
//! faster than its device.

use crate::{Store, StoreError, sql_err};
use fsbench_model::DeviceCeiling;
use rusqlite::params;

impl Store {
    /// Records (or replaces) the ceiling of `c.device` on `host`.
    pub fn set_ceiling(&mut self, host: &str, c: &DeviceCeiling) -> Result<(), StoreError> {
        let path = self.path.clone();
        self.conn
            .execute(
                "INSERT INTO device_ceilings (host, device, read_mib_s, write_mib_s, source)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(host, device) DO UPDATE SET read_mib_s = excluded.read_mib_s,
                   write_mib_s = excluded.write_mib_s, source = excluded.source",
                params![host, c.device, c.read_mib_s, c.write_mib_s, c.source],
            )
            .map(drop)
            .map_err(|e| sql_err(&path, e))
    }

    /// The ceilings measured on `host`, by device (none in a database read before its migration
    /// to schema 3).
    pub fn ceilings(&self, host: &str) -> Result<Vec<DeviceCeiling>, StoreError> {
        let exists: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'device_ceilings'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.sql(e))?;
        if exists == 0 {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT device, read_mib_s, write_mib_s, source FROM device_ceilings
                 WHERE host = ?1 ORDER BY device",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([host], |r| {
                Ok(DeviceCeiling {
                    device: r.get(0)?,
                    read_mib_s: r.get(1)?,
                    write_mib_s: r.get(2)?,
                    source: r.get(3)?,
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }
}
