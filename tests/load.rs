//! Load as real systems make it, through the binary: open-loop rates held and reported with
//! latency from the schedule beside the service time, the latency-against-load curve with its
//! knee, a background workload beside every sample (on lab ext4 and ext4-fscrypt as root),
//! and the refusals of what cannot be measured honestly.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

/// Runs `fsbench run -t DIR ARGS --json` on a fresh directory; the record and the terminal text.
fn run(args: &[&str]) -> (Value, String) {
    let dir = temp_dir();
    let out_dir = temp_dir();
    let json = out_dir.path().join("out.json");
    let out = fsbench()
        .args(["run", "--cache", "warm", "--runs", "1", "-t"])
        .arg(dir.path())
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run fsbench");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{args:?}: {}{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    (v, text)
}

fn mean(v: &Value, cell: usize, metric: &str) -> f64 {
    v["results"][cell]["summary"][metric]["mean"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {metric} in cell {cell}"))
}

#[test]
fn a_rate_is_held_and_latency_counts_from_the_schedule() {
    // Alone: the other test thread's work (a lab's mkfs, software encryption) takes the CPU its
    // wake-ups need on a two-CPU machine; a load from outside the suite is what it must bear.
    let _alone = crate::util::alone();
    // Five seconds, so that one late wake-up at the end on a busy machine (the only delay the
    // open loop cannot catch up) stays well inside the 2%.
    let (v, text) = run(&["-w", "rand-read:size=4m,rate=2000,ops=10000"]);
    let iops = mean(&v, 0, "iops");
    assert!((iops / 2000.0 - 1.0).abs() < 0.02, "{iops} IOPS");
    assert!((mean(&v, 0, "rate_achieved_pct") - 100.0).abs() < 2.0);
    assert!(mean(&v, 0, "service_p99_ns") > 0.0);
    assert!(text.contains("Under load"), "{text}");
    assert_eq!(
        v["results"][0]["bound"]["by"], "rate",
        "{}",
        v["results"][0]["bound"]
    );
}

#[test]
fn a_rate_the_target_cannot_reach_is_said() {
    let (v, _) = run(&["-w", "rand-read:size=4m,rate=100000000,duration=300ms"]);
    let warnings = v["results"][0]["warnings"].to_string();
    assert!(warnings.contains("rate-short"), "{warnings}");
    assert!(warnings.contains("fell short"), "{warnings}");
}

#[test]
fn a_curve_reports_each_step_and_its_knee() {
    let (v, text) = run(&["-w", "rand-read:size=4m,rate=curve,duration=60ms"]);
    let knee = mean(&v, 0, "knee_load_pct");
    assert!((10.0..=90.0).contains(&knee), "{knee}");
    assert!(mean(&v, 0, "curve_max_iops") > mean(&v, 0, "curve_10_iops"));
    assert!(text.contains("Latency against load"), "{text}");
    assert_eq!(text.matches("% *").count(), 1, "one knee marked:\n{text}");
}

#[test]
fn a_background_runs_beside_each_sample_and_is_recorded() {
    let (v, text) = run(&[
        "-w",
        "latency:count=50",
        "--background",
        "seq-write:bs=1m,size=16m",
    ]);
    let cell = &v["results"][0];
    assert_eq!(cell["params"]["background"], "seq-write:bs=1m,size=16m");
    assert!(mean(&v, 0, "background_mib_s") > 0.0);
    assert!(mean(&v, 0, "background_ops") > 0.0);
    assert!(text.contains("seq-write:bs=1m,size=16m at"), "{text}");
}

#[test]
fn what_cannot_be_paced_verified_or_run_behind_is_refused_in_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["-w", "rand-read:rate=fast"], "not a rate"),
        (
            &["-w", "rand-read:rate=10,engine=io_uring,iodepth=4"],
            "jobs=N",
        ),
        (&["-w", "seq-read:rate=curve"], "rand-read"),
        (&["-w", "rand-read:think=1ms,rate=10"], "drop one"),
        (&["-w", "rand-read:dist=pareto:2"], "0 < H < 1"),
        (&["-w", "rand-write:data=compress:150"], "percentage"),
        (&["-w", "rand-write:verify=true,bs=32"], "header"),
        (&["-w", "latency:engine=mmap"], "no mmap engine"),
        (
            &["-w", "null", "--background", "seq-write:bs=1m,4k"],
            "one value",
        ),
        (
            &["-w", "null", "--background", "nosuch"],
            "unknown workload",
        ),
    ];
    for (args, want) in cases {
        let dir = temp_dir();
        let out = fsbench()
            .args(["run", "-t"])
            .arg(dir.path())
            .args(*args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn skew_compression_dedupe_and_mmap_run_and_say_what_they_did() {
    let (v, text) = run(&[
        "-w",
        "rand-read:size=8m,ops=2000,dist=zipf:1.2,engine=mmap",
        "-w",
        "rand-write:size=8m,ops=1000,data=compress:50,dedupe=25,verify=true",
    ]);
    assert!(mean(&v, 0, "mmap_minor_faults") + mean(&v, 0, "mmap_major_faults") > 0.0);
    assert!(mean(&v, 1, "verified_bytes") > 0.0);
    assert!(text.contains("a cache of the hottest share"), "{text}");
}

/// `-w latency --background seq-write` on lab ext4 and ext4-fscrypt: what a request costs while
/// the disk writes, on both, torn down after.
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_ext4_encryption)),
    ignore = "needs root, mkfs.ext4 and ext4 with fscrypt"
)]
fn latency_under_a_background_write_on_ext4_and_ext4_fscrypt() {
    let v = crate::lab::lab_run(
        "ext4,ext4-fscrypt",
        &[
            "-w",
            "latency:count=50",
            "--background",
            "seq-write:bs=1m,size=32m",
            "--cache",
            "cold",
        ],
    );
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(r["params"]["background"], "seq-write:bs=1m,size=32m");
        let bg = r["summary"]["background_mib_s"]["mean"]
            .as_f64()
            .unwrap_or(0.0);
        assert!(bg > 0.0, "{}: background {bg}", r["target"]);
        assert!(r["samples"][0]["latency"].is_object(), "{r}");
    }
}
