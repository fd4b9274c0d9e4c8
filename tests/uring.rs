//! io_uring at depth and parallel jobs end to end: the engine chosen is recorded, latency
//! percentiles come from per-request submission-to-completion times, and jobs add up.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

/// Runs one warm sample of `spec` on a fresh target; returns the JSON result.
fn run_one(spec: &str) -> Value {
    let target = temp_dir();
    let out = temp_dir();
    let json = out.path().join("r.json");
    let res = fsbench()
        .args([
            "run", "-q", "--cache", "warm", "--runs", "1", "--warmup", "0", "-w",
        ])
        .arg(spec)
        .arg("--target")
        .arg(target.path())
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{spec}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

#[test]
#[cfg_attr(not(fsbench_io_uring), ignore = "needs io_uring")]
fn rand_read_at_depth_32_records_percentiles_and_the_engine() {
    let v = run_one("rand-read:iodepth=32,engine=io_uring,direct=auto,size=4m");
    let r = &v["results"][0];
    assert_eq!(r["params"]["iodepth"], "32");
    assert_eq!(r["params"]["engine"], "io_uring");
    let s = &r["samples"][0];
    assert_eq!(s["metrics"]["engine_io_uring"], 1.0);
    assert_eq!(s["ops"], 1024);
    assert_eq!(s["latency"]["count"], 1024);
    let (p50, p99) = (&s["latency"]["p50_ns"], &s["latency"]["p99_ns"]);
    assert!(p99.as_u64().unwrap() >= p50.as_u64().unwrap());
    assert!(s["metrics"]["lat_p99_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn auto_is_resolved_in_the_parameters() {
    let v = run_one("rand-read:engine=auto,size=256k,ops=16");
    let r = &v["results"][0];
    let uring = fsbench_io::uring::available().is_ok();
    assert_eq!(
        r["params"]["engine"],
        if uring { "io_uring" } else { "psync" }
    );
    let flag = r["samples"][0]["metrics"]["engine_io_uring"]
        .as_f64()
        .unwrap();
    assert_eq!(flag, if uring { 1.0 } else { 0.0 });
}

#[test]
fn jobs_sum_their_bytes_and_report_the_spread() {
    let v = run_one("seq-read:bs=64k,size=1m,jobs=4");
    let s = &v["results"][0]["samples"][0];
    assert_eq!(s["bytes"], 4 << 20);
    assert_eq!(s["latency"]["count"], 64);
    let m = &s["metrics"];
    let (lo, hi) = (
        m["job_mib_s_min"].as_f64().unwrap(),
        m["job_mib_s_max"].as_f64().unwrap(),
    );
    assert!(0.0 < lo && lo <= hi, "{lo} {hi}");
}

#[test]
fn psync_at_depth_is_an_input_error_with_a_hint() {
    let target = temp_dir();
    fsbench()
        .args([
            "run",
            "-q",
            "--runs",
            "1",
            "-w",
            "rand-read:iodepth=32,engine=psync",
        ])
        .arg("--target")
        .arg(target.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("engine=io_uring"));
}
