//! Store tests on real database files in temp directories.

use crate::{HistoryFilter, Store, StoreError};
use fsbench_model::*;
use std::collections::BTreeMap;
use std::path::Path;

fn sample(v: f64) -> Sample {
    let mut s = Sample::new(1000, 10, 20, 5, 4096).with_metrics([(fsbench_model::metric::IOPS, v)]);
    s.latency_hdr = Some("HISTO".into());
    s.resident_pct = Some(0.0);
    s
}

fn entry(target: &str, samples: Vec<Sample>) -> ResultEntry {
    ResultEntry {
        target: target.into(),
        workload: "rand-read".into(),
        params: BTreeMap::from([("bs".to_string(), "4k".to_string())]),
        sweep: BTreeMap::new(),
        cache: CacheInfo {
            state: fsbench_model::CacheState::Warm,
            method: "none".into(),
            resident_pct: None,
        },
        headline: fsbench_model::metric::IOPS.into(),
        also_shown: Vec::new(),
        samples,
        summary: BTreeMap::new(),
        precision_reached: None,
        steady: None,
        warnings: vec![Warning::new(WarningKind::Stack, "a warning")],
        error: None,
        bound: None,
        profile: None,
    }
}

fn record(id: &str, started: &str) -> RunRecord {
    RunRecord {
        schema_version: SCHEMA_VERSION,
        run: RunInfo {
            id: id.into(),
            started_at: started.into(),
            fsbench_version: "0.1.0".into(),
            argv: vec!["fsbench".into(), "run".into()],
            status: fsbench_model::RunStatus::Running,
            ..Default::default()
        },
        environment: Environment {
            targets: vec![TargetInfo {
                label: "ext4".into(),
                ..TargetInfo::default()
            }],
            ..Environment::default()
        },
        overhead: OverheadInfo::default(),
        results: Vec::new(),
        comparisons: Vec::new(),
        scaling: Vec::new(),
        cards: Vec::new(),
    }
}

fn db() -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("sub/results.db");
    (d, p)
}

#[test]
fn a_run_round_trips_sample_by_sample() {
    let (_d, path) = db();
    let mut s = Store::open(&path).unwrap();
    let mut r = record("20260101T000000Z-1", "2026-01-01T00:00:00Z");
    let mut cur = s.begin_run(&r, 42, 7).unwrap();
    r.results.push(entry("ext4", vec![sample(1.0)]));
    s.sync(&mut cur, &r.results).unwrap();
    // A sample with its time series, later rewritten as an outlier: the series stays.
    let mut with_series = sample(2.0);
    with_series.series = (1..=300u64)
        .map(|k| fsbench_model::SeriesPoint {
            t_ns: k * 10_000_000,
            ops: 100 + k,
            bytes: (100 + k) << 12,
            lat_p50_ns: Some(4000 + k),
            lat_p99_ns: Some(90_000),
            lat_max_ns: (k % 2 == 0).then_some(1_000_000),
        })
        .collect();
    with_series.series_interval_ns = Some(10_000_000);
    r.results[0].samples.push(with_series);
    // A short series (kept in the sample's JSON), also rewritten as an outlier.
    let mut short = sample(3.0);
    short.series = r.results[0].samples[1].series[..3].to_vec();
    short.series_interval_ns = Some(10_000_000);
    short.latency_hdr = Some("HISTFAAAA".into());
    // A replay's time by call kind, in its own column (schema 9), kept through the rewrite.
    short.calls = Some(CallTimes {
        kinds: vec![fsbench_model::calls::KindTime {
            kind: "getdents".into(),
            count: 620,
            total_ns: 23_560_000,
            p50_ns: 30_000,
            p99_ns: 120_000,
            errors: 0,
            wall_ns: 20_000_000,
        }],
        slowest: vec![fsbench_model::calls::SlowCall {
            kind: "getdents".into(),
            path: "src".into(),
            thread: 1,
            call: 12,
            ns: 400_000,
        }],
    });
    r.results.push(entry("xfs", vec![short]));
    s.sync(&mut cur, &r.results).unwrap();
    r.run.status = fsbench_model::RunStatus::Ok;
    r.results[0].samples[1].outlier = true; // flagged when the cell finished, after storing
    r.results[1].samples[0].outlier = true;
    s.finish_run(&mut cur, &r, "2026-01-01T00:01:00Z").unwrap();
    let back = Store::open_existing(&path)
        .unwrap()
        .unwrap()
        .load(&r.run.id)
        .unwrap();
    assert_eq!(back, r);
}

/// Samples are stored as compact rows, their metric names once in their cell (issue 32: JSON and
/// the bytes it wrote were most of the store's cost); they read back exactly, and names that do
/// not fit the rows are a damaged database, not a panic or a wrong sample.
#[test]
fn samples_are_stored_compact_with_their_cells_metric_names_and_read_back_exactly() {
    let (_d, path) = db();
    let mut s = Store::open(&path).unwrap();
    let mut r = record("20260101T000000Z-9", "2026-01-01T00:00:00Z");
    let mut cur = s.begin_run(&r, 42, 7).unwrap();
    let samples: Vec<Sample> = (0..50)
        .map(|k| {
            let mut x = sample(1000.0 + k as f64 * 3.7);
            x.wall_ns = 34_000 + k * 17;
            x.metrics.insert("cpu_pct".into(), 99.0 + k as f64 / 7.0);
            x.metrics.insert("lat_p99_ns".into(), 50.0);
            x.latency = Some(LatencySummary {
                count: 1000,
                min_ns: 20,
                mean_ns: 33.4 + k as f64,
                stddev_ns: 11.39,
                p50_ns: 30,
                p90_ns: 40,
                p99_ns: 50,
                p999_ns: 150,
                max_ns: 310 + k,
            });
            x
        })
        .collect();
    r.results.push(entry("ext4", samples));
    s.sync(&mut cur, &r.results).unwrap();
    r.run.status = fsbench_model::RunStatus::Ok;
    s.finish_run(&mut cur, &r, "2026-01-01T00:01:00Z").unwrap();
    drop(s);
    let c = rusqlite::Connection::open(&path).unwrap();
    let (blobs, stored, json): (i64, i64, i64) = c
        .query_row(
            "SELECT sum(typeof(sample) = 'blob'), sum(length(sample)), 0 FROM samples",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap();
    let json = json
        + r.results[0]
            .samples
            .iter()
            .map(|x| serde_json::to_string(x).unwrap().len() as i64)
            .sum::<i64>();
    assert_eq!(blobs, 50, "every sample compact");
    assert!(
        stored * 3 < json,
        "{stored} bytes stored for {json} of JSON"
    );
    let back = Store::open_existing(&path).unwrap().unwrap();
    assert_eq!(back.load(&r.run.id).unwrap(), r);
    drop(back);
    c.execute("UPDATE cells SET metric_names = '[\"iops\"]'", [])
        .unwrap();
    let back = Store::open_existing(&path).unwrap().unwrap();
    let err = back.load(&r.run.id).unwrap_err().to_string();
    assert!(
        err.contains("a sample's row: not one this build reads"),
        "{err}"
    );
}

#[test]
fn a_killed_run_keeps_its_finished_samples() {
    let (_d, path) = db();
    let mut r = record("20260101T000000Z-2", "2026-01-01T00:00:00Z");
    {
        let mut s = Store::open(&path).unwrap();
        let mut cur = s.begin_run(&r, 42, 7).unwrap();
        r.results
            .push(entry("ext4", vec![sample(1.0), sample(2.0)]));
        s.sync(&mut cur, &r.results).unwrap();
    } // dropped without finish_run, as SIGKILL would
    let s = Store::open_existing(&path).unwrap().unwrap();
    let back = s.load(&r.run.id).unwrap();
    assert_eq!(back.run.status, fsbench_model::RunStatus::Running);
    assert_eq!(back.results[0].samples.len(), 2);
    let h = s.history(&HistoryFilter::default()).unwrap();
    assert_eq!(h[0].owner, Some((42, 7)));
    assert_eq!(h[0].samples, 2);
}

#[test]
fn ids_resolve_by_last_and_unique_prefix() {
    let (_d, path) = db();
    let mut s = Store::open(&path).unwrap();
    for (id, at) in [
        ("20260101T000000Z-10", "2026-01-01T00:00:00Z"),
        ("20260102T000000Z-11", "2026-01-02T00:00:00Z"),
        ("20260102T000000Z-12", "2026-01-02T00:00:01Z"),
    ] {
        let r = record(id, at);
        let mut c = s.begin_run(&r, 1, 1).unwrap();
        s.finish_run(&mut c, &r, at).unwrap();
    }
    assert_eq!(s.resolve("last").unwrap(), "20260102T000000Z-12");
    assert_eq!(s.resolve("last~2").unwrap(), "20260101T000000Z-10");
    assert!(matches!(
        s.resolve("last~-1"),
        Err(StoreError::NoSuchRun { .. })
    ));
    assert_eq!(s.resolve("20260101").unwrap(), "20260101T000000Z-10");
    assert!(matches!(
        s.resolve("20260102"),
        Err(StoreError::Ambiguous { count: 2, .. })
    ));
    assert!(matches!(
        s.resolve("last~9"),
        Err(StoreError::NoSuchRun { .. })
    ));
    assert!(matches!(
        s.resolve("1999"),
        Err(StoreError::NoSuchRun { .. })
    ));
    let f = HistoryFilter {
        since: Some("2026-01-02".into()),
        limit: Some(1),
        ..HistoryFilter::default()
    };
    let h = s.history(&f).unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h[0].id, "20260102T000000Z-12");
    assert_eq!(h[0].targets, ["ext4"]);
}

#[test]
fn foreign_corrupt_and_newer_files_are_refused_and_left_untouched() {
    let d = tempfile::tempdir().unwrap();
    let garbage = d.path().join("garbage.db");
    std::fs::write(
        &garbage,
        b"this is not a database at all, just text\n".repeat(10),
    )
    .unwrap();
    let foreign = d.path().join("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE mail (id INTEGER); INSERT INTO mail VALUES (1);")
        .unwrap();
    let newer = d.path().join("newer.db");
    drop(Store::open(&newer).unwrap());
    rusqlite::Connection::open(&newer)
        .unwrap()
        .pragma_update(None, "user_version", 99)
        .unwrap();
    assert!(matches!(
        Store::open(Path::new("/dev/null")),
        Err(StoreError::NotAFile {
            kind: "a character device",
            ..
        })
    ));
    for (p, want) in [
        (&garbage, "not an fsbench"),
        (&foreign, "another program"),
        (&newer, "newer"),
    ] {
        let before = std::fs::read(p).unwrap();
        let e = Store::open(p).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        let e = Store::open_existing(p).unwrap_err().to_string();
        assert!(e.contains(want), "{e}");
        assert_eq!(
            std::fs::read(p).unwrap(),
            before,
            "{} was modified",
            p.display()
        );
    }
}

/// A row whose bytes were overwritten in place (an overflow page of its JSON, say) passes
/// SQLite's page checks but reads back as text that is not UTF-8: `show` calls that damaged.
#[test]
fn a_value_that_is_not_utf8_reads_as_damaged() {
    let (_d, path) = db();
    let mut s = Store::open(&path).unwrap();
    let r = record("20260101T000000Z-1", "2026-01-01T00:00:00Z");
    let mut cur = s.begin_run(&r, 42, 7).unwrap();
    s.finish_run(&mut cur, &r, "2026-01-01T00:01:00Z").unwrap();
    drop(s);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("UPDATE runs SET environment = CAST(x'7BA5A5A5' AS TEXT);")
        .unwrap();
    let e = Store::open_existing(&path)
        .unwrap()
        .unwrap()
        .load(&r.run.id)
        .unwrap_err();
    assert!(
        matches!(&e, StoreError::Damaged { detail, .. } if detail.contains("unreadable")),
        "{e}"
    );
    assert!(e.to_string().contains("left untouched"), "{e}");
}

#[test]
fn two_writers_share_one_database() {
    let (_d, path) = db();
    drop(Store::open(&path).unwrap());
    let threads: Vec<_> = (0..2)
        .map(|k| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut s = Store::open(&path).unwrap();
                let mut r = record(&format!("run-{k}"), "2026-01-01T00:00:00Z");
                let mut c = s.begin_run(&r, 1, 1).unwrap();
                for i in 0..50 {
                    if r.results.is_empty() {
                        r.results.push(entry("ext4", Vec::new()));
                    }
                    r.results[0].samples.push(sample(i as f64));
                    s.sync(&mut c, &r.results).unwrap();
                }
                s.finish_run(&mut c, &r, "2026-01-01T00:00:01Z").unwrap();
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let s = Store::open_existing(&path).unwrap().unwrap();
    for k in 0..2 {
        assert_eq!(
            s.load(&format!("run-{k}")).unwrap().results[0]
                .samples
                .len(),
            50
        );
    }
}

#[test]
fn a_named_baseline_resolves_to_its_pinned_run_until_moved() {
    let d = tempfile::tempdir().unwrap();
    let mut s = Store::open(&d.path().join("b.db")).unwrap();
    for i in 0..3 {
        let r = record(&format!("run{i}"), &format!("2026-01-0{}T00:00:00Z", i + 1));
        s.import(&r).unwrap();
    }
    let first = s.resolve("last~2").unwrap();
    s.set_baseline("ci", &first, "now").unwrap();
    assert_eq!(s.resolve("ci").unwrap(), first);
    let newest = s.resolve("last").unwrap();
    s.set_baseline("ci", &newest, "later").unwrap();
    assert_eq!(s.resolve("ci").unwrap(), newest);
    assert_eq!(s.baselines().unwrap().len(), 1);
}

#[test]
fn a_devices_ceiling_is_kept_per_host_and_replaced() {
    let d = tempfile::tempdir().unwrap();
    let mut s = Store::open(&d.path().join("c.db")).unwrap();
    assert!(s.ceilings("h").unwrap().is_empty());
    let mut c = fsbench_model::DeviceCeiling {
        device: "vda".into(),
        read_mib_s: 870.0,
        write_mib_s: 600.0,
        source: "probed".into(),
    };
    s.set_ceiling("h", &c).unwrap();
    c.write_mib_s = 650.0;
    s.set_ceiling("h", &c).unwrap();
    assert_eq!(s.ceilings("h").unwrap(), vec![c]);
    assert!(s.ceilings("other").unwrap().is_empty());
}

#[test]
fn a_trend_reads_each_cells_headline_run_by_run_oldest_first() {
    let (_d, path) = db();
    let mut s = Store::open(&path).unwrap();
    // Imported out of order: the trend orders runs by start time.
    for (id, at, v) in [
        ("b", "2026-01-02T00:00:00Z", 20.0),
        ("a", "2026-01-01T00:00:00Z", 10.0),
        ("c", "2026-01-03T00:00:00Z", 30.0),
    ] {
        let mut r = record(id, at);
        r.results
            .push(entry("ext4", vec![sample(v), sample(v + 1.0)]));
        let mut other = entry("xfs", vec![sample(v * 2.0)]);
        other.cache.state = CacheState::Cold;
        r.results.push(other);
        s.import(&r).unwrap();
    }
    let all = s.cell_histories(&crate::TrendFilter::default()).unwrap();
    assert_eq!(all.len(), 2);
    let ext4 = &all[0];
    assert_eq!(
        (ext4.target.as_str(), ext4.cache),
        ("ext4", CacheState::Warm)
    );
    assert_eq!(ext4.params.get("bs").map(String::as_str), Some("4k"));
    let ids: Vec<&str> = ext4.runs.iter().map(|r| r.run_id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(ext4.runs[1].values, [20.0, 21.0]);
    let cold = crate::TrendFilter {
        cache: Some(CacheState::Cold),
        ..Default::default()
    };
    let xfs = s.cell_histories(&cold).unwrap();
    assert_eq!(xfs.len(), 1);
    assert_eq!(xfs[0].runs[2].values, [60.0]);
    let header = s.load_header("b").unwrap();
    assert!(header.results.is_empty() && header.environment.targets[0].label == "ext4");
}
