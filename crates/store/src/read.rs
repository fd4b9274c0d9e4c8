//! Reading runs back: the history list with filters, run ids from a unique prefix or `last~N`,
//! and a whole stored run as the same `RunRecord` that `fsbench run` built.

use crate::sample_row::Columns;
use crate::{Store, StoreError};
use fsbench_model::{ResultEntry, RunInfo, RunRecord, RunStatus, Sample};
use rusqlite::params;
use rusqlite::types::Value;

/// One line of the history.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRow {
    /// Run id.
    pub id: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// End time, when the run finished.
    pub finished_at: Option<String>,
    /// Status as stored (`running` for a run still going or killed).
    pub status: RunStatus,
    /// Owner process, to tell a killed run from a live one.
    pub owner: Option<(u32, u64)>,
    /// fsbench version that measured it.
    pub fsbench_version: String,
    /// Target labels.
    pub targets: Vec<String>,
    /// Workload names, in plan order, without repeats.
    pub workloads: Vec<String>,
    /// Samples stored.
    pub samples: i64,
    /// The suite it measured, when it measured one.
    pub suite: Option<String>,
    /// A run or a character card.
    pub kind: fsbench_model::RunKind,
}

impl RunRow {
    /// The status to show: `incomplete` for a run still marked running whose owner process is
    /// gone (killed, crashed) before it finished.
    pub fn shown_status(&self) -> RunStatus {
        if self.status != RunStatus::Running {
            return self.status;
        }
        match self.owner {
            Some((pid, ticks)) if fsbench_sys::process::owner_alive(pid, Some(ticks)) => {
                RunStatus::Running
            }
            _ => RunStatus::Incomplete,
        }
    }

    /// Seconds from start to finish, when the run finished and both times read.
    pub fn seconds(&self) -> Option<f64> {
        let start = humantime::parse_rfc3339_weak(&self.started_at).ok()?;
        let end = humantime::parse_rfc3339_weak(self.finished_at.as_deref()?).ok()?;
        end.duration_since(start).ok().map(|d| d.as_secs_f64())
    }
}

/// Filters of `fsbench history`.
#[derive(Debug, Clone, Default)]
pub struct HistoryFilter {
    /// Only runs with a target of this label.
    pub target: Option<String>,
    /// Only runs with this workload.
    pub workload: Option<String>,
    /// Only runs started at or after this RFC 3339 time (or date prefix).
    pub since: Option<String>,
    /// At most this many runs.
    pub limit: Option<usize>,
}

impl HistoryFilter {
    /// Whether `since` is a date (`2026-11-01`) or an RFC 3339 time (`2026-11-01T10:00:00Z`):
    /// compared as text, anything else would silently select nothing.
    pub fn since_is_valid(since: &str) -> bool {
        let full = if since.len() == 10 {
            format!("{since}T00:00:00Z")
        } else {
            since.to_string()
        };
        humantime::parse_rfc3339_weak(&full).is_ok()
    }
}

impl Store {
    /// Runs newest first, filtered.
    pub fn history(&self, f: &HistoryFilter) -> Result<Vec<RunRow>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT r.id, r.started_at, r.finished_at, r.status, r.owner_pid,
                        r.owner_start_ticks, r.fsbench_version,
                        (SELECT group_concat(label, char(31)) FROM targets t WHERE t.run_id = r.id),
                        (SELECT group_concat(workload, char(31)) FROM
                            (SELECT workload FROM cells c WHERE c.run_id = r.id ORDER BY position)),
                        (SELECT count(*) FROM samples s JOIN cells c ON s.cell_id = c.id
                            WHERE c.run_id = r.id),
                        r.suite, r.report
                 FROM runs r
                 WHERE (?1 IS NULL OR EXISTS (SELECT 1 FROM targets t WHERE t.run_id = r.id AND t.label = ?1))
                   AND (?2 IS NULL OR EXISTS (SELECT 1 FROM cells c WHERE c.run_id = r.id AND c.workload = ?2))
                   AND (?3 IS NULL OR r.started_at >= ?3)
                 ORDER BY r.started_at DESC, r.rowid DESC
                 LIMIT ?4",
            )
            .map_err(|e| self.sql(e))?;
        let limit = f.limit.map_or(-1, |l| l as i64);
        let rows = stmt
            .query_map(params![f.target, f.workload, f.since, limit], |r| {
                let split = |s: Option<String>| -> Vec<String> {
                    let mut v: Vec<String> = Vec::new();
                    for x in s
                        .unwrap_or_default()
                        .split('\u{1f}')
                        .filter(|x| !x.is_empty())
                    {
                        if !v.iter().any(|y| y == x) {
                            v.push(x.to_string());
                        }
                    }
                    v
                };
                let pid: Option<i64> = r.get(4)?;
                let ticks: Option<i64> = r.get(5)?;
                Ok(RunRow {
                    id: r.get(0)?,
                    started_at: r.get(1)?,
                    finished_at: r.get(2)?,
                    status: RunStatus::parse(&r.get::<_, String>(3)?)
                        .unwrap_or(RunStatus::Incomplete),
                    owner: pid
                        .filter(|&p| p > 0)
                        .map(|p| (p as u32, ticks.unwrap_or(0) as u64)),
                    fsbench_version: r.get(6)?,
                    targets: split(r.get(7)?),
                    workloads: split(r.get(8)?),
                    samples: r.get(9)?,
                    suite: r.get(10)?,
                    kind: fsbench_model::RunKind::of(
                        r.get::<_, Option<String>>(11)?
                            .as_deref()
                            .and_then(fsbench_model::SeedLayout::parse),
                    ),
                })
            })
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    /// The full id of `spec`: `last`, `last~N` (N runs before the newest), a full id, or a
    /// unique prefix of one.
    /// A baseline's name (`fsbench baseline set`) resolves to its pinned run first.
    pub fn resolve(&self, spec: &str) -> Result<String, StoreError> {
        if let Some(id) = self.baseline(spec)? {
            return Ok(id);
        }
        let back = match spec {
            "last" => Some(0),
            // N runs back: 0 or more (`last~-1` is not the newest run, it is no run).
            s => s
                .strip_prefix("last~")
                .and_then(|n| n.parse::<u32>().ok())
                .map(i64::from),
        };
        let not_found = || StoreError::NoSuchRun {
            id: spec.to_string(),
            path: self.path.clone(),
        };
        if let Some(n) = back {
            return self
                .conn
                .query_row(
                    "SELECT id FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1 OFFSET ?1",
                    [n],
                    |r| r.get(0),
                )
                .map_err(|_| not_found());
        }
        let mut stmt = self
            .conn
            .prepare("SELECT id FROM runs WHERE substr(id, 1, length(?1)) = ?1 LIMIT 2")
            .map_err(|e| self.sql(e))?;
        let ids: Vec<String> = stmt
            .query_map([spec], |r| r.get(0))
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        match ids.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(not_found()),
            _ if ids.iter().any(|i| i == spec) => Ok(spec.to_string()),
            _ => Err(StoreError::Ambiguous {
                id: spec.to_string(),
                count: self.count_prefix(spec)?,
                path: self.path.clone(),
            }),
        }
    }

    fn count_prefix(&self, spec: &str) -> Result<usize, StoreError> {
        self.conn
            .query_row(
                "SELECT count(*) FROM runs WHERE substr(id, 1, length(?1)) = ?1",
                [spec],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as usize)
            .map_err(|e| self.sql(e))
    }

    /// The stored run `id` as a record (summaries as stored; empty for a run that never
    /// finished).
    pub fn load(&self, id: &str) -> Result<RunRecord, StoreError> {
        let mut record = self.load_header(id)?;
        record.results = self.load_cells(id)?;
        Ok(record)
    }

    /// The stored run `id` without its cells: its information and environment.
    pub fn load_header(&self, id: &str) -> Result<RunRecord, StoreError> {
        let (record, status) = self
            .conn
            .query_row(
                "SELECT id, started_at, fsbench_version, record_schema, argv, status, environment,
                        overhead, comparisons, scaling, suite, scale, report FROM runs WHERE id = ?1",
                [id],
                |r| {
                    let text = |i: usize| r.get::<_, String>(i);
                    Ok((
                        [text(4)?, text(6)?, text(7)?, text(8)?, text(9)?],
                        (text(0)?, text(1)?, text(2)?, r.get::<_, i64>(3)?, text(5)?),
                        (
                            r.get::<_, Option<String>>(10)?,
                            r.get::<_, Option<f64>>(11)?,
                            r.get::<_, Option<String>>(12)?,
                        ),
                    ))
                },
            )
            .map_err(|e| self.sql(e))
            .and_then(|(json, (id, started_at, version, schema, status), suite)| {
                let argv = self.parse(&json[0], "argv")?;
                let info = RunInfo {
                    id,
                    started_at,
                    fsbench_version: version,
                    argv,
                    // A word no version wrote reads as incomplete rather than failing the load.
                    status: RunStatus::parse(&status).unwrap_or(RunStatus::Incomplete),
                    suite: suite.0,
                    scale: suite.1,
                    report: suite.2.as_deref().and_then(fsbench_model::SeedLayout::parse),
                    kind: fsbench_model::RunKind::of(
                        suite.2.as_deref().and_then(fsbench_model::SeedLayout::parse),
                    ),
                };
                Ok((
                    RunRecord {
                        schema_version: schema as u32,
                        run: info,
                        environment: self.parse(&json[1], "environment")?,
                        overhead: self.parse(&json[2], "overhead")?,
                        results: Vec::new(),
                        comparisons: self.parse(&json[3], "comparisons")?,
                        scaling: self.parse(&json[4], "scaling")?,
                        cards: Vec::new(),
                    },
                    status,
                ))
            })?;
        let _ = status;
        Ok(record)
    }

    fn load_cells(&self, run_id: &str) -> Result<Vec<ResultEntry>, StoreError> {
        let mut stmt = self
            .conn
            .prepare(if self.version()? >= 6 {
                "SELECT id, entry, profile FROM cells WHERE run_id = ?1 ORDER BY position"
            } else {
                // Opened read-only before its migration to version 6: no profile column.
                "SELECT id, entry, NULL FROM cells WHERE run_id = ?1 ORDER BY position"
            })
            .map_err(|e| self.sql(e))?;
        type Row = (i64, String, Option<Vec<u8>>);
        let cells: Vec<Row> = stmt
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        let mut out = Vec::with_capacity(cells.len());
        for (cell_id, entry, profile) in cells {
            let mut e: ResultEntry = self.parse(&entry, "cell")?;
            e.profile = profile.as_deref().and_then(crate::profile_blob::decode);
            e.samples = self.load_samples(cell_id)?;
            out.push(e);
        }
        Ok(out)
    }

    fn load_samples(&self, cell_id: i64) -> Result<Vec<Sample>, StoreError> {
        let version = self.version()?;
        let mut stmt = self
            .conn
            .prepare_cached(match version {
                9.. => {
                    "SELECT sample, latency_hdr, series, wall_ns, user_ns, sys_ns, ops, bytes, calls
                     FROM samples WHERE cell_id = ?1 ORDER BY seq"
                }
                // Opened read-only before its migration to version 9: no calls column.
                4..=8 => {
                    "SELECT sample, latency_hdr, series, wall_ns, user_ns, sys_ns, ops, bytes, NULL
                     FROM samples WHERE cell_id = ?1 ORDER BY seq"
                }
                // Before version 4: no series column either.
                _ => {
                    "SELECT sample, latency_hdr, NULL, wall_ns, user_ns, sys_ns, ops, bytes, NULL
                     FROM samples WHERE cell_id = ?1 ORDER BY seq"
                }
            })
            .map_err(|e| self.sql(e))?;
        type Row = (
            Value,
            Option<String>,
            Option<Vec<u8>>,
            Columns,
            Option<Vec<u8>>,
        );
        let rows: Vec<Row> = stmt
            .query_map([cell_id], |r| {
                let columns = Columns {
                    wall_ns: r.get::<_, i64>(3)? as u64,
                    user_ns: r.get::<_, i64>(4)? as u64,
                    sys_ns: r.get::<_, i64>(5)? as u64,
                    ops: r.get::<_, i64>(6)? as u64,
                    bytes: r.get::<_, i64>(7)? as u64,
                };
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, columns, r.get(8)?))
            })
            .map_err(|e| self.sql(e))?
            .collect::<Result<_, _>>()
            .map_err(|e| self.sql(e))?;
        let compact = rows.iter().any(|(v, ..)| matches!(v, Value::Blob(_)));
        let names = match compact && version >= 8 {
            true => self.metric_names(cell_id)?,
            false => None,
        };
        rows.into_iter()
            .map(|(body, hdr, series, columns, calls)| {
                let mut s: Sample = self.sample_body(body, names.as_deref(), columns)?;
                s.latency_hdr = hdr;
                if let Some(blob) = calls {
                    s.calls = Some(crate::profile_blob::decode_calls(&blob).ok_or_else(|| {
                        StoreError::Corrupt {
                            path: self.path.clone(),
                            what: "a sample's calls: not a breakdown this build reads".into(),
                        }
                    })?);
                }
                if let Some(blob) = series {
                    let (points, interval) =
                        crate::series_blob::decode(&blob).ok_or_else(|| StoreError::Corrupt {
                            path: self.path.clone(),
                            what: "a sample's series: not a series this build reads".into(),
                        })?;
                    s.series = points;
                    s.series_interval_ns = interval;
                }
                Ok(s)
            })
            .collect()
    }

    /// A cell's metric names (those its compact sample rows leave out).
    fn metric_names(&self, cell_id: i64) -> Result<Option<Vec<String>>, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row(
                "SELECT metric_names FROM cells WHERE id = ?1",
                [cell_id],
                |r| r.get(0),
            )
            .map_err(|e| self.sql(e))?;
        text.map(|t| self.parse(&t, "a cell's metric names"))
            .transpose()
    }

    /// A sample from its row's `sample` column (JSON text, or a compact row) and its columns.
    fn sample_body(
        &self,
        body: Value,
        names: Option<&[String]>,
        columns: Columns,
    ) -> Result<Sample, StoreError> {
        match body {
            Value::Text(json) => self.parse(&json, "sample"),
            Value::Blob(row) => {
                crate::sample_row::decode(&row, names, columns).ok_or_else(|| StoreError::Corrupt {
                    path: self.path.clone(),
                    what: "a sample's row: not one this build reads".into(),
                })
            }
            other => Err(StoreError::Corrupt {
                path: self.path.clone(),
                what: format!("a sample stored as {:?}", other.data_type()),
            }),
        }
    }

    /// The notes of a run, oldest first: (time, text).
    pub fn notes(&self, run_id: &str) -> Result<Vec<(String, String)>, StoreError> {
        let mut stmt = self
            .conn
            .prepare("SELECT at, text FROM notes WHERE run_id = ?1 ORDER BY rowid")
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map([run_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.sql(e))?;
        rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))
    }

    /// The database's schema version.
    fn version(&self) -> Result<i64, StoreError> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.sql(e))
    }

    pub(crate) fn parse<T: serde::de::DeserializeOwned>(
        &self,
        text: &str,
        what: &str,
    ) -> Result<T, StoreError> {
        serde_json::from_str(text).map_err(|e| StoreError::Corrupt {
            path: self.path.clone(),
            what: format!("{what}: {e}"),
        })
    }
}
