//! Every sample as a time series (issue 22): kept in the JSON, the database and the series CSV,
//! consistent with the sample's own totals.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

/// Runs `workload` warm twice on a temp dir with `extra` flags; the JSON and the database.
fn run(workload: &str, extra: &[&str]) -> (tempfile::TempDir, Value) {
    let d = temp_dir();
    let json = d.path().join("r.json");
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    fsbench()
        .args([
            "run", "-q", "--cache", "warm", "--runs", "2", "-w", workload, "-t",
        ])
        .arg(&target)
        .arg("--db")
        .arg(d.path().join("r.db"))
        .arg("--json")
        .arg(&json)
        .args(extra)
        .assert()
        .success();
    let v = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    (d, v)
}

fn series_of(sample: &Value) -> &Vec<Value> {
    sample["series"]
        .as_array()
        .expect("the sample has a series")
}

#[test]
fn a_sample_carries_its_series_and_it_adds_up_to_the_sample() {
    let (_d, v) = run("rand-read:size=16m,ops=20000", &["--interval", "2ms"]);
    let r = &v["results"][0];
    for s in r["samples"].as_array().unwrap() {
        let series = series_of(s);
        assert!(!series.is_empty());
        let ops: u64 = series.iter().map(|p| p["ops"].as_u64().unwrap()).sum();
        let bytes: u64 = series.iter().map(|p| p["bytes"].as_u64().unwrap()).sum();
        assert_eq!(ops, s["ops"].as_u64().unwrap(), "{s}");
        assert_eq!(bytes, s["bytes"].as_u64().unwrap());
        let iv = s["series_interval_ns"].as_u64().unwrap();
        assert!(iv >= 2_000_000, "{iv}");
        let t: Vec<u64> = series.iter().map(|p| p["t_ns"].as_u64().unwrap()).collect();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
        assert_eq!(*t.last().unwrap(), s["wall_ns"].as_u64().unwrap());
        // Whole intervals end on the grid.
        assert!(t[..t.len() - 1].iter().all(|x| x % iv == 0), "{t:?}");
        for p in series.iter().filter(|p| p["ops"].as_u64() > Some(0)) {
            let (p50, p99, max) = (
                p["lat_p50_ns"].as_u64().unwrap(),
                p["lat_p99_ns"].as_u64().unwrap(),
                p["lat_max_ns"].as_u64().unwrap(),
            );
            assert!(0 < p50 && p50 <= p99 && p99 <= max, "{p}");
        }
    }
}

#[test]
fn the_series_survives_the_database_and_goes_to_csv() {
    let (d, v) = run("seq-write:size=32m,bs=64k", &[]);
    let id = v["run"]["id"].as_str().unwrap();
    let shown = d.path().join("shown.json");
    let csv = d.path().join("series.csv");
    fsbench()
        .args(["show", id, "--db"])
        .arg(d.path().join("r.db"))
        .arg("--export-json")
        .arg(&shown)
        .arg("--export-csv-series")
        .arg(&csv)
        .assert()
        .success();
    let back: Value = serde_json::from_slice(&std::fs::read(&shown).unwrap()).unwrap();
    let (a, b) = (&v["results"][0]["samples"], &back["results"][0]["samples"]);
    for k in 0..2 {
        assert_eq!(a[k]["series"], b[k]["series"], "sample {k} as stored");
        assert_eq!(a[k]["series_interval_ns"], b[k]["series_interval_ns"]);
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows = text.lines().count() - 1;
    let points: usize = (0..2).map(|k| series_of(&a[k]).len()).sum();
    assert_eq!(rows, points, "{text}");
    assert!(text.starts_with("run,target,workload,params,sweep,cache,sample,t_ns,interval_ns,ops,bytes,mib_s,iops,lat_p50_ns,lat_p99_ns,lat_max_ns\n"));
}

#[test]
fn a_walk_is_ticked_per_directory_and_a_lump_keeps_no_series() {
    // 400 walks of a 220-entry tree over 2 threads: entries counted as each directory is read.
    let (_d, v) = run(
        "walk:profile=small,walks=400,workers=2",
        &["--interval", "2ms"],
    );
    let s = &v["results"][0]["samples"][0];
    let series = series_of(s);
    assert!(series.len() > 1, "{s}");
    let ops: f64 = series.iter().map(|p| p["ops"].as_f64().unwrap()).sum();
    assert_eq!(ops, s["metrics"]["entries"].as_f64().unwrap());
    assert!(
        series.iter().all(|p| p["lat_p50_ns"].is_null()),
        "no latencies from a counter"
    );
    // In processes the counter is shared with the workers (tests/series_all.rs).
    // One small walk ends within an interval (a minute: a busy machine's slow walk too): one
    // lump, no series.
    let (_d, v) = run("walk:profile=small", &["--interval", "60s"]);
    let s = &v["results"][0]["samples"][0];
    assert!(s.get("series").is_none(), "{s}");
}

#[test]
fn by_default_the_interval_fits_the_sample_a_third_of_a_second_keeps_a_hundred_points() {
    // Sized by time, not by count: 400 ms on any machine, however fast it reads (300,000 cached
    // 4 KiB reads took 155 ms on a quiet day here, 178 ms on another machine of its kind).
    let (_d, v) = run("rand-read:size=16m,duration=400ms", &[]);
    let samples = v["results"][0]["samples"].as_array().unwrap();
    let long: Vec<&Value> = samples
        .iter()
        .filter(|s| s["wall_ns"].as_u64().unwrap() >= 300_000_000)
        .collect();
    assert_eq!(
        long.len(),
        samples.len(),
        "every sample lasts 300 ms: {samples:?}"
    );
    for s in long {
        let points = series_of(s).len();
        let iv = s["series_interval_ns"].as_u64().unwrap();
        assert!(
            points >= 100,
            "{points} points of {iv} ns in {} ns",
            s["wall_ns"]
        );
        assert!(
            points <= 1024 && (1_000_000..=1_000_000_000).contains(&iv),
            "{iv}"
        );
    }
}

#[test]
fn an_interval_below_a_millisecond_is_refused_with_the_flag_named() {
    let d = temp_dir();
    fsbench()
        .args(["run", "-q", "-w", "null", "--interval", "100us", "-t"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("invalid --interval '100us'"));
}
