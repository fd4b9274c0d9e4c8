//! A series for every workload (issue 33): metadata and archive workloads count their work as
//! it goes, a command's process tree is read from `/proc` per interval, and process-mode walks
//! report through a shared counter, so their samples carry a series that adds up to the sample.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

/// Runs `workload` warm once on a temp dir with `--interval 5ms`; the samples of the first cell.
fn samples(workload: &str) -> Vec<Value> {
    let d = temp_dir();
    let json = d.path().join("r.json");
    fsbench()
        .args(["run", "-q", "--no-store", "--cache", "warm", "--runs", "1"])
        .args(["--interval", "5ms", "-w", workload, "-t"])
        .arg(d.path())
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    v["results"][0]["samples"].as_array().unwrap().clone()
}

/// The sample's series (it must have one), checked against the sample: every interval in time
/// order, the last ending with the sample, operations and bytes adding up to the sample's.
fn checked_series(s: &Value) -> &Vec<Value> {
    let series = s["series"].as_array().expect("the sample has a series");
    let sum = |k: &str| -> u64 { series.iter().map(|p| p[k].as_u64().unwrap()).sum() };
    assert_eq!(sum("ops"), s["ops"].as_u64().unwrap(), "{s}");
    assert_eq!(sum("bytes"), s["bytes"].as_u64().unwrap(), "{s}");
    let t: Vec<u64> = series.iter().map(|p| p["t_ns"].as_u64().unwrap()).collect();
    assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
    assert_eq!(*t.last().unwrap(), s["wall_ns"].as_u64().unwrap());
    series
}

/// One interval per `series_interval_ns` of the sample (5 ms as asked, doubled each time the
/// series reached 1,024 intervals: a slow or busy machine's long sample), whatever its length;
/// give or take the last one: the ticker's grid starts beside the sample's clock, not on it, and
/// its last interval ends when the sample does.
fn assert_covers(series: &[Value], s: &Value) {
    let interval = s["series_interval_ns"].as_u64().unwrap();
    assert!(interval >= 5_000_000, "{interval}");
    let want = s["wall_ns"].as_u64().unwrap().div_ceil(interval);
    let got = series.len() as u64;
    assert!(
        got.abs_diff(want) <= 1,
        "{got} intervals of {interval} ns in {} ns: {s}",
        s["wall_ns"]
    );
}

#[test]
fn a_tree_creation_counts_its_files_as_it_goes() {
    // ~4,400 files and their directories created, then removed: about 200 ms here, 40 ms on a
    // machine 5x faster (8 intervals of 5 ms; an earlier 440 files took 30 ms on a quiet machine).
    // How many intervals a sample has depends on the machine's speed; that they cover the
    // sample, and that its work spreads over them, does not.
    for s in samples("tree-create:profile=small,scale=2") {
        let series = checked_series(&s);
        assert_covers(series, &s);
        assert!(series.len() >= 4, "{} intervals: {s}", series.len());
        let working = series
            .iter()
            .filter(|p| p["ops"].as_u64() > Some(0))
            .count();
        assert!(working >= 3, "the work is spread over the sample: {s}");
        // Each file's creation is timed: the intervals that created files have latencies.
        assert!(
            series.iter().any(|p| p["lat_p50_ns"].as_u64().is_some()),
            "{s}"
        );
    }
}

#[test]
fn an_extraction_counts_its_entries_as_it_goes() {
    // How many 5 ms intervals an extraction lasts depends on the machine's speed (a quiet one
    // extracted the earlier 0.3-scale archive in under 50 ms; ~4,400 entries at scale 2 take
    // about 40 ms on a machine 5x faster than this one); that the intervals cover the sample
    // and that it counts its entries in them does not.
    for s in samples("tar-extract:profile=small,scale=2,archive_on=target") {
        let series = checked_series(&s);
        assert_covers(series, &s);
        assert!(series.len() >= 4, "{} intervals: {s}", series.len());
        assert_eq!(
            s["ops"].as_f64().unwrap(),
            s["metrics"]["files"].as_f64().unwrap() + s["metrics"]["dirs"].as_f64().unwrap(),
            "every entry extracted is one operation"
        );
    }
}

#[test]
fn a_command_is_its_process_trees_io_over_time() {
    let s = &samples("command:run='dd if=/dev/zero of=f bs=1M count=64 conv=fsync; sleep 0.1'")[0];
    let series = checked_series(s);
    assert!(series.len() >= 3, "{s}");
    // 64 MiB written to storage by dd (a child of the shell), and its system calls.
    assert!(s["bytes"].as_u64().unwrap() >= 64 << 20, "{s}");
    assert!(s["ops"].as_u64().unwrap() >= 128, "{s}");
    assert!(
        series.iter().all(|p| p["lat_p50_ns"].is_null()),
        "nothing timed per call"
    );
}

#[test]
fn a_walk_in_processes_reports_through_a_shared_counter() {
    let s = &samples("walk:profile=small,walks=200,workers=2,mode=procs")[0];
    let series = checked_series(s);
    assert!(!series.is_empty());
    assert_eq!(
        s["ops"].as_f64().unwrap(),
        s["metrics"]["entries"].as_f64().unwrap()
    );
}
