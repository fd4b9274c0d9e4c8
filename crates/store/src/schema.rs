//! The store's schema, versioned with SQLite's `user_version`, marked as fsbench's with
//! `application_id`, and the migrations from every earlier version (each tested against a
//! database file of that version checked in under `crates/store/tests/fixtures/`).

/// `application_id` of an fsbench database: "FSB1".
pub const APPLICATION_ID: i32 = 0x4653_4231;

/// The schema version this build writes.
pub const VERSION: i64 = 10;

/// Schema version 1: runs, their targets, cells (target x workload x cache state), samples
/// (every metric, the latency histogram), and notes.
pub const V1: &str = "
CREATE TABLE runs (
    id                TEXT PRIMARY KEY,
    started_at        TEXT NOT NULL,
    finished_at       TEXT,
    status            TEXT NOT NULL,
    fsbench_version   TEXT NOT NULL,
    record_schema     INTEGER NOT NULL,
    argv              TEXT NOT NULL,
    owner_pid         INTEGER,
    owner_start_ticks INTEGER,
    environment       TEXT NOT NULL,
    overhead          TEXT NOT NULL,
    comparisons       TEXT NOT NULL DEFAULT '[]',
    scaling           TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX runs_started ON runs(started_at);
CREATE TABLE targets (
    run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    label   TEXT NOT NULL,
    path    TEXT NOT NULL,
    fs_type TEXT NOT NULL,
    PRIMARY KEY (run_id, label)
);
CREATE TABLE cells (
    id           INTEGER PRIMARY KEY,
    run_id       TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    target       TEXT NOT NULL,
    workload     TEXT NOT NULL,
    params       TEXT NOT NULL,
    sweep        TEXT NOT NULL,
    cache_state  TEXT NOT NULL,
    cache_method TEXT NOT NULL,
    headline     TEXT NOT NULL,
    entry        TEXT NOT NULL,
    UNIQUE (run_id, position)
);
CREATE INDEX cells_workload ON cells(workload);
CREATE TABLE samples (
    cell_id     INTEGER NOT NULL REFERENCES cells(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    wall_ns     INTEGER NOT NULL,
    user_ns     INTEGER NOT NULL,
    sys_ns      INTEGER NOT NULL,
    ops         INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    headline    REAL,
    latency_hdr TEXT,
    sample      TEXT NOT NULL,
    PRIMARY KEY (cell_id, seq)
);
CREATE TABLE notes (
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    at     TEXT NOT NULL,
    text   TEXT NOT NULL
);
";

/// Migrations: `MIGRATIONS[k]` takes a database from version `k + 1` to `k + 2`; each new version
/// adds its step here and a fixture database of the version before it.
pub const MIGRATIONS: &[&str] = &[V2, V3, V4, V5, V6, V7, V8, V9, V10];

/// Schema version 2: named baselines (`fsbench baseline set NAME RUN`), so a CI gate compares
/// with a pinned run instead of whatever ran last.
pub const V2: &str = "
CREATE TABLE baselines (
    name   TEXT PRIMARY KEY,
    run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    set_at TEXT NOT NULL
);
";

/// Schema version 3: each device's measured ceiling (`fsbench env --probe`), per host, so that a
/// result faster than its device is flagged in every later run.
pub const V3: &str = "
CREATE TABLE device_ceilings (
    host        TEXT NOT NULL,
    device      TEXT NOT NULL,
    read_mib_s  REAL NOT NULL,
    write_mib_s REAL NOT NULL,
    source      TEXT NOT NULL,
    PRIMARY KEY (host, device)
);
";

/// Schema version 4: each sample's time series, compact (`series_blob`), beside its JSON.
pub const V4: &str = "
ALTER TABLE samples ADD COLUMN series BLOB;
";

/// Schema version 5: the suite a run measured, its scale and its seed layout, as the record
/// carries them (record schema 3); older rows are filled from their command line once, by
/// [`crate::open`]'s migration, so nothing reads the command line again.
pub const V5: &str = "
ALTER TABLE runs ADD COLUMN suite TEXT;
ALTER TABLE runs ADD COLUMN scale REAL;
ALTER TABLE runs ADD COLUMN report TEXT;
";

/// Schema version 6: each cell's profile (`--profile`, record schema 4), compact
/// (`profile_blob`: deflated JSON), beside its entry.
pub const V6: &str = "
ALTER TABLE cells ADD COLUMN profile BLOB;
";

/// Schema version 7: indexes that hold what `fsbench trend` reads — each sample's headline by
/// cell, and each cell's identity by run — so that a long history is read from them alone,
/// never from the rows with their JSON.
pub const V7: &str = "
CREATE INDEX samples_headline ON samples(cell_id, seq, headline);
CREATE INDEX cells_identity ON cells(run_id, position, target, workload, cache_state, headline, params, sweep);
";

/// Schema version 8: each cell's metric names (those of its first sample, a JSON array), so that
/// its samples' rows hold their values alone (`sample_row`); a row of an older version stays JSON
/// text, and a build of version 7 refuses the database instead of misreading a compact row.
pub const V8: &str = "
ALTER TABLE cells ADD COLUMN metric_names TEXT;
";

/// Schema version 9: a replay sample's time by call kind and its slowest calls (issue 58),
/// compact (`profile_blob::encode_calls`: deflated JSON), beside its row; NULL for every other
/// sample and for those stored before.
pub const V9: &str = "
ALTER TABLE samples ADD COLUMN calls BLOB;
";

/// Schema version 10: every stored profile carries the role of each share (the cell's, a
/// helper's, a neighbour's, unattributed). No column changes: the migration gives the profiles
/// stored before roles theirs, once (`open::fill_roles`), so reading never guesses them.
pub const V10: &str = "";
