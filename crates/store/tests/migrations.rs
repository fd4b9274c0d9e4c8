//! Every database version ever written is opened by this build: each fixture under
//! `tests/fixtures/` (`vN.db`, written by the fsbench of schema N) is copied, opened, migrated
//! and read back. A new schema version adds its migration step and the fixture of the version
//! before it.

use fsbench_store::{HistoryFilter, Store, schema};
use std::path::Path;

fn fixtures() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "db"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_checked_in_version_opens_migrates_and_reads() {
    let all = fixtures();
    assert!(
        all.len() as i64 >= schema::VERSION,
        "one fixture per schema version up to {}: {all:?}",
        schema::VERSION
    );
    for f in all {
        let d = tempfile::tempdir().unwrap();
        let copy = d.path().join("copy.db");
        std::fs::copy(&f, &copy).unwrap();
        let store = Store::open_existing(&copy)
            .unwrap()
            .expect("fixture exists");
        let runs = store.history(&HistoryFilter::default()).unwrap();
        assert!(!runs.is_empty(), "{}", f.display());
        for r in runs {
            let rec = store.load(&r.id).unwrap();
            assert!(!rec.results.is_empty(), "{}: {}", f.display(), r.id);
            assert!(rec.results.iter().all(|e| !e.samples.is_empty()));
            assert!(!store.notes(&r.id).unwrap().is_empty());
        }
        drop(store);
        // Writable open migrates to the current version and accepts a new run.
        let s = Store::open(&copy).unwrap();
        drop(s);
        let v: i64 = rusqlite_version(&copy);
        assert_eq!(v, schema::VERSION, "{}", f.display());
    }
}

fn rusqlite_version(path: &Path) -> i64 {
    let c = rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    c.query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap()
}

/// Version 5 gives each run its suite and scale; the runs stored before it get theirs from their
/// command line, once, during the migration.
#[test]
fn the_migration_to_version_5_fills_each_runs_suite_from_its_command_line() {
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("v4.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v4.db");
    std::fs::copy(fixture, &copy).unwrap();
    {
        let c = rusqlite::Connection::open(&copy).unwrap();
        let argv = r#"["fsbench","run","--suite","disk-speed","--scale","0.5","-t","/tmp/fx"]"#;
        c.execute("UPDATE runs SET argv = ?1", [argv]).unwrap();
    }
    let store = Store::open(&copy).unwrap();
    let runs = store.history(&HistoryFilter::default()).unwrap();
    assert_eq!(runs[0].suite.as_deref(), Some("disk-speed"));
    let rec = store.load(&runs[0].id).unwrap();
    assert_eq!(rec.run.suite.as_deref(), Some("disk-speed"));
    assert_eq!(rec.run.scale, Some(0.5));
    let finished = store.suite_runs("disk-speed", 3).unwrap();
    assert_eq!(finished.len(), 1, "the fixture's run finished ok");
    assert_eq!(finished[0].scale, 0.5);
    // A run of workloads measured no suite.
    let v3 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v3.db");
    let copy3 = d.path().join("v3.db");
    std::fs::copy(v3, &copy3).unwrap();
    let store = Store::open(&copy3).unwrap();
    let runs = store.history(&HistoryFilter::default()).unwrap();
    assert_eq!(runs[0].suite, None);
}

/// Version 6 keeps each cell's profile in its own compressed column: a version 5 database
/// migrates with no profiles, and the fixture of version 6 reads its profile back.
#[test]
fn the_migration_to_version_6_adds_profiles_and_a_stored_profile_reads_back() {
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("v5.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v5.db");
    std::fs::copy(fixture, &copy).unwrap();
    let store = Store::open(&copy).unwrap();
    let runs = store.history(&HistoryFilter::default()).unwrap();
    let rec = store.load(&runs[0].id).unwrap();
    assert!(rec.results.iter().all(|e| e.profile.is_none()));
    drop(store);
    assert_eq!(rusqlite_version(&copy), schema::VERSION);
    let v6 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v6.db");
    let copy6 = d.path().join("v6.db");
    std::fs::copy(v6, &copy6).unwrap();
    let store = Store::open_existing(&copy6)
        .unwrap()
        .expect("fixture exists");
    let runs = store.history(&HistoryFilter::default()).unwrap();
    let rec = store.load(&runs[0].id).unwrap();
    let profile = rec.results[0].profile.as_ref().expect("a profiled cell");
    assert_eq!(profile.samples, 2);
    assert!(profile.frequency_hz > 0);
}

/// Version 7 adds the indexes a trend reads from: a version 6 database migrates when opened,
/// reads the same histories through either kind of open, and its samples come from the index.
#[test]
fn the_migration_to_version_7_indexes_what_a_trend_reads_and_changes_no_answer() {
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("v6.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v6.db");
    std::fs::copy(fixture, &copy).unwrap();
    let filter = fsbench_store::TrendFilter::default();
    let before = Store::open_existing(&copy)
        .unwrap()
        .unwrap()
        .cell_histories(&filter)
        .unwrap();
    assert!(!before.is_empty() && before.iter().all(|h| !h.runs.is_empty()));
    assert_eq!(rusqlite_version(&copy), schema::VERSION, "opening migrates");
    let after = Store::open(&copy).unwrap().cell_histories(&filter).unwrap();
    assert_eq!(before, after);
    let c = rusqlite::Connection::open(&copy).unwrap();
    let plan: String = c
        .query_row(
            "EXPLAIN QUERY PLAN SELECT cell_id, headline FROM samples WHERE headline IS NOT NULL",
            [],
            |r| r.get(3),
        )
        .unwrap();
    assert!(plan.contains("COVERING INDEX samples_headline"), "{plan}");
}

/// Version 9 keeps a replay sample's time by call kind in its own column: a version 8 database
/// migrates with none, and the fixture of version 9 (a `git status` replay beside `null`) reads
/// each replay sample's kinds back, and none for the other workload.
#[test]
fn the_migration_to_version_9_adds_call_times_and_a_stored_breakdown_reads_back() {
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("v8.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v8.db");
    std::fs::copy(fixture, &copy).unwrap();
    let store = Store::open(&copy).unwrap();
    let runs = store.history(&HistoryFilter::default()).unwrap();
    let rec = store.load(&runs[0].id).unwrap();
    assert!(
        rec.results
            .iter()
            .flat_map(|e| &e.samples)
            .all(|s| s.calls.is_none())
    );
    drop(store);
    assert_eq!(rusqlite_version(&copy), schema::VERSION);
    let v9 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v9.db");
    let copy9 = d.path().join("v9.db");
    std::fs::copy(v9, &copy9).unwrap();
    let store = Store::open_existing(&copy9)
        .unwrap()
        .expect("fixture exists");
    let runs = store.history(&HistoryFilter::default()).unwrap();
    let rec = store.load(&runs[0].id).unwrap();
    let replay = rec
        .results
        .iter()
        .find(|e| e.workload == "replay")
        .expect("a replay cell");
    for s in &replay.samples {
        let calls = s.calls.as_ref().expect("a breakdown");
        assert!(
            calls.kind("lstat").is_some_and(|k| k.count > 1000),
            "{calls:?}"
        );
        assert_eq!(calls.slowest.len(), fsbench_model::calls::SLOWEST);
    }
    let null = rec.results.iter().find(|e| e.workload == "null").unwrap();
    assert!(null.samples.iter().all(|s| s.calls.is_none()));
}

/// Version 10 gives the profiles stored before roles theirs, once, in the database: the
/// fixture of version 6 holds a profile whose shares have no role; migrated, its `fsbench`
/// share is the cell's as stored (reading no longer fills roles in), and the file says so
/// to any reader.
#[test]
fn the_migration_to_version_10_stores_the_roles_of_profiles_kept_before_roles() {
    use fsbench_model::profile::Role;
    let d = tempfile::tempdir().unwrap();
    let copy = d.path().join("v6.db");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v6.db");
    std::fs::copy(fixture, &copy).unwrap();
    let raw_roles = |path: &Path| -> Vec<Option<String>> {
        let c =
            rusqlite::Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .unwrap();
        let blob: Vec<u8> = c
            .query_row(
                "SELECT profile FROM cells WHERE profile IS NOT NULL",
                [],
                |r| r.get(0),
            )
            .unwrap();
        let mut json = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::DeflateDecoder::new(&blob[1..]),
            &mut json,
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        v["who"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["role"].as_str().map(str::to_string))
            .collect()
    };
    assert!(
        raw_roles(&copy)
            .iter()
            .all(|r| r.is_none() || r.as_deref() == Some("unattributed")),
        "the fixture holds a profile from before roles"
    );
    let store = Store::open(&copy).unwrap();
    let runs = store.history(&HistoryFilter::default()).unwrap();
    let rec = store.load(&runs[0].id).unwrap();
    let p = rec.results[0].profile.as_ref().expect("a profiled cell");
    let fsbench = p
        .who
        .iter()
        .find(|w| w.who == "fsbench")
        .expect("fsbench's share");
    assert_eq!(fsbench.role, Role::Cell);
    drop(store);
    assert_eq!(rusqlite_version(&copy), schema::VERSION);
    assert!(raw_roles(&copy).contains(&Some("cell".to_string())));
}
