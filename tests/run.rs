//! `fsbench run` end to end: the JSON contract, cache states, plans and input errors.

use crate::util::{fsbench, temp_dir};
use predicates::prelude::*;
use serde_json::Value;

fn run_json(args: &[&str]) -> Value {
    let dir = temp_dir();
    let json = dir.path().join("out.json");
    let target = dir.path().join("t");
    std::fs::create_dir(&target).unwrap();
    fsbench()
        .arg("run")
        .arg("--target")
        .arg(format!("a={}", target.display()))
        .args(args)
        .arg("--json")
        .arg(&json)
        .arg("--quiet")
        .assert()
        .success();
    assert_eq!(
        crate::util::entries(&target),
        Vec::<String>::new(),
        "scratch left behind"
    );
    serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap()
}

#[test]
fn json_follows_the_documented_contract() {
    let v = run_json(&[
        "--workload",
        "rand-read:bs=4k,size=256k,ops=64",
        "--cache",
        "warm",
        "--runs",
        "3",
    ]);
    assert_eq!(v["schema_version"], 4);
    assert!(
        v["run"].get("suite").is_none(),
        "a plan of workloads measures no suite"
    );
    assert!(v["run"]["id"].as_str().unwrap().len() > 10);
    assert!(v["run"]["argv"].as_array().unwrap().len() > 3);
    assert_eq!(v["run"]["status"], "ok");
    assert!(v["environment"]["kernel"].is_string());
    assert_eq!(v["environment"]["targets"][0]["label"], "a");
    let r = &v["results"][0];
    assert_eq!(r["target"], "a");
    assert_eq!(r["workload"], "rand-read");
    assert_eq!(r["params"]["bs"], "4k");
    assert_eq!(r["cache"]["state"], "warm");
    assert_eq!(r["cache"]["method"], "none");
    let samples = r["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 3);
    for s in samples {
        for k in ["wall_ns", "user_ns", "sys_ns", "ops", "bytes"] {
            assert!(s[k].is_u64(), "{k}");
        }
        assert_eq!(s["ops"], 64);
        assert_eq!(s["bytes"], 64 * 4096);
        assert!(s["metrics"]["iops"].as_f64().unwrap() > 0.0);
        assert_eq!(s["latency"]["count"], 64);
        assert!(
            s["latency"]["p99_ns"].as_u64().unwrap() >= s["latency"]["p50_ns"].as_u64().unwrap()
        );
    }
    let iops = &r["summary"]["iops"];
    for k in [
        "n", "min", "max", "median", "mean", "stddev", "ci95", "unit", "better",
    ] {
        assert!(!iops[k].is_null(), "summary field {k}");
    }
    assert_eq!(iops["better"], "higher");
    assert_eq!(r["headline"], "iops");
    // The difference of two noisy loops is clamped at 0; the recorder's own cost is always > 0.
    assert!(v["overhead"]["per_op_ns"].as_f64().unwrap() >= 0.0);
    assert!(v["overhead"]["recorder_only_ns"].as_f64().unwrap() > 0.0);
}

/// Runs `workloads` on two targets A and B, warm, two samples a cell, no warm-up, with `extra`
/// flags; returns each sample as its target and number ("A1"), in the order they were taken.
fn samples_taken(workloads: &[&str], extra: &[&str]) -> Vec<String> {
    let dir = temp_dir();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let out = fsbench()
        .arg("run")
        .args(workloads.iter().flat_map(|w| ["-w", w]))
        .args(["--cache", "warm", "--runs", "2", "--warmup", "0"])
        .args(extra)
        .arg("--target")
        .arg(format!("A={}", a.display()))
        .arg("--target")
        .arg(format!("B={}", b.display()))
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(" A ") && stdout.contains(" B "), "{stdout}");
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter_map(|l| {
            let (_, after) = l.split_once(": sample ")?;
            let target = if l.contains(" on A ") { "A" } else { "B" };
            Some(format!("{target}{}", after.split('/').next()?))
        })
        .collect()
}

/// [`samples_taken`] of one `null` workload: the targets in the order their samples were taken.
fn sample_order(extra: &[&str]) -> Vec<String> {
    samples_taken(&["null:ops=10"], extra)
        .into_iter()
        .map(|s| s[..1].to_string())
        .collect()
}

#[test]
fn two_targets_are_interleaved_and_both_reported() {
    assert_eq!(sample_order(&[]), ["A", "B", "A", "B"]);
}

#[test]
fn sequential_order_keeps_targets_together() {
    assert_eq!(
        sample_order(&["--order", "sequential"]),
        ["A", "A", "B", "B"]
    );
}

/// Two workloads, one cell each per target.
const TWO_NULLS: &[&str] = &["null:ops=10", "null:ops=20"];

#[test]
fn workloads_order_interleaves_the_workloads_as_well_as_the_targets() {
    // By default one workload's cells are sampled to the end before the next workload's.
    assert_eq!(
        samples_taken(TWO_NULLS, &[]),
        ["A1", "B1", "A2", "B2", "A1", "B1", "A2", "B2"]
    );
    // `--order workloads`: round by round, each workload's cells in turn (a program and its
    // replay see the same drift of the machine).
    assert_eq!(
        samples_taken(TWO_NULLS, &["--order", "workloads"]),
        ["A1", "B1", "A1", "B1", "A2", "B2", "A2", "B2"]
    );
}

#[test]
fn runs_auto_stops_within_bounds() {
    let v = run_json(&[
        "--workload",
        "null:ops=1000",
        "--cache",
        "warm",
        "--runs",
        "auto",
        "--min-runs",
        "3",
        "--max-runs",
        "6",
    ]);
    let n = v["results"][0]["samples"].as_array().unwrap().len();
    assert!((3..=6).contains(&n), "{n}");
    assert!(v["results"][0]["precision_reached"].is_boolean());
}

#[test]
fn every_data_path_workload_runs_on_a_tiny_file() {
    for w in [
        "seq-write:bs=4k,size=64k",
        "seq-read:bs=4k,size=64k",
        "rand-read:bs=4k,size=64k,ops=16",
        "rand-write:bs=4k,size=64k,ops=16",
        "latency:count=3,interval=1ms,size=64k,direct=false",
        "seek-rate:duration=20ms,size=64k,direct=false",
        "large-file:size=256k,bs=64k",
    ] {
        let v = run_json(&["--workload", w, "--cache", "warm", "--runs", "1"]);
        let r = &v["results"][0];
        assert!(r["error"].is_null(), "{w}: {}", r["error"]);
        assert_eq!(r["samples"].as_array().unwrap().len(), 1, "{w}");
        let head = r["headline"].as_str().unwrap();
        assert!(r["summary"][head]["mean"].as_f64().unwrap() > 0.0, "{w}");
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn cold_as_root_uses_drop_caches_and_is_not_resident() {
    let v = run_json(&[
        "--workload",
        "seq-read:bs=64k,size=4m",
        "--cache",
        "cold",
        "--runs",
        "2",
    ]);
    let r = &v["results"][0];
    assert_eq!(r["cache"]["state"], "cold");
    assert_eq!(r["cache"]["method"], "drop_caches");
    let fs = v["environment"]["targets"][0]["fs_type"]
        .as_str()
        .unwrap()
        .to_string();
    if fs != "tmpfs" {
        assert!(
            r["cache"]["resident_pct"].as_f64().unwrap() < 10.0,
            "{}",
            r["cache"]
        );
    }
}

#[test]
fn cold_cmd_is_recorded_as_the_method() {
    let v = run_json(&[
        "--workload",
        "null:ops=1",
        "--cache",
        "cold",
        "--runs",
        "1",
        "--cold-cmd",
        "true",
    ]);
    assert_eq!(v["results"][0]["cache"]["method"], "cold-cmd");
}

#[test]
fn failing_cold_cmd_fails_the_cell_instead_of_running_warm() {
    let dir = temp_dir();
    fsbench()
        .arg("run")
        .arg("--target")
        .arg(dir.path())
        .args([
            "--workload",
            "seq-read:size=64k",
            "--cache",
            "cold",
            "--runs",
            "1",
            "--cold-cmd",
            "exit 1",
            "-q",
        ])
        .assert()
        .code(3)
        .stderr(predicate::str::contains("cannot make the cache cold"));
    assert!(crate::util::entries(dir.path()).is_empty());
}

#[test]
fn bad_inputs_give_one_line_errors_and_exit_2() {
    let dir = temp_dir();
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    let t = dir.path().display().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "--workload".into(),
                "rand-reed".into(),
                "-t".into(),
                t.clone(),
            ],
            "did you mean 'rand-read'",
        ),
        (
            vec![
                "--workload".into(),
                "rand-read:bs=4q".into(),
                "-t".into(),
                t.clone(),
            ],
            "4k = 4096",
        ),
        (
            vec![
                "--workload".into(),
                "rand-read:bz=4k".into(),
                "-t".into(),
                t.clone(),
            ],
            "did you mean 'bs'",
        ),
        (
            vec![
                "--workload".into(),
                "rand-read:bs".into(),
                "-t".into(),
                t.clone(),
            ],
            "key=value",
        ),
        (vec!["-t".into(), format!("{t}/missing")], "does not exist"),
        (
            vec!["-t".into(), file.display().to_string()],
            "not a directory",
        ),
        (
            vec!["--runs".into(), "zero".into(), "-t".into(), t.clone()],
            "--runs",
        ),
        (
            vec![
                "--json".into(),
                format!("{t}/no/such/dir/out.json"),
                "-t".into(),
                t.clone(),
                "-w".into(),
                "null".into(),
            ],
            "--export-json",
        ),
    ];
    for (args, needle) in cases {
        let out = fsbench()
            .arg("run")
            .args(&args)
            .assert()
            .code(2)
            .get_output()
            .clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(err.starts_with("fsbench: error: "), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn two_targets_get_a_verdict_that_agrees_with_ministat() {
    let dir = temp_dir();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir(&a).unwrap();
    std::fs::create_dir(&b).unwrap();
    let json = dir.path().join("out.json");
    let out = fsbench()
        .args([
            "run",
            "-q",
            "--workload",
            "null:ops=20000",
            "--cache",
            "warm",
            "--runs",
            "5",
            "--plot",
            "--json",
        ])
        .arg(&json)
        .arg("--target")
        .arg(format!("A={}", a.display()))
        .arg("--target")
        .arg(format!("B={}", b.display()))
        .assert()
        .success()
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("proven at 95%"), "{stdout}");
    assert!(
        stdout.contains("    N           Min           Max        Median"),
        "--plot prints ministat's block: {stdout}"
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let c = &v["comparisons"][0];
    assert_eq!(c["baseline"], "A/null/warm");
    assert_eq!(c["other"], "B/null/warm");
    // The same samples through `fsbench ministat` (byte-identical to ministat) give the same verdict.
    let files: Vec<std::path::PathBuf> = (0..2)
        .map(|i| {
            let p = dir.path().join(format!("s{i}"));
            let vals: Vec<String> = v["results"][i]["samples"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["metrics"]["iops"].to_string())
                .collect();
            std::fs::write(&p, vals.join("\n") + "\n").unwrap();
            p
        })
        .collect();
    let m = fsbench().arg("ministat").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&m.stdout);
    assert_eq!(
        text.contains("Difference at 95.0%"),
        c["proven"].as_bool().unwrap(),
        "{text}"
    );
}

#[test]
fn cold_and_warm_of_one_target_are_compared() {
    let v = run_json(&[
        "--workload",
        "null:ops=10",
        "--cache",
        "both",
        "--cold-cmd",
        "true",
        "--runs",
        "3",
        "--confidence",
        "90",
    ]);
    let c = &v["comparisons"][0];
    assert_eq!(c["baseline"], "a/null/cold");
    assert_eq!(c["other"], "a/null/warm");
    assert_eq!(c["confidence"], 90.0);
}

#[test]
fn outliers_are_flagged_not_dropped() {
    let v = run_json(&[
        "--workload",
        "null:ops=10",
        "--cache",
        "warm",
        "--runs",
        "6",
    ]);
    let samples = v["results"][0]["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 6);
    assert!(samples.iter().all(|s| s["outlier"].is_boolean()));
}

/// A sweep's points are one workload prepared once per point: the run says it prepared once
/// per target, then one line per sample (issue 59: a card said "fx prepared on ext4" 114 times).
#[test]
fn a_sweep_says_its_workload_prepared_once_per_target() {
    let d = temp_dir();
    let out = fsbench()
        .args(["run", "--no-store", "--cache", "warm", "--runs", "1"])
        .args(["-w", "null:ops=1,2,3", "-t"])
        .arg(d.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("null prepared on").count(), 1, "{err}");
    assert_eq!(err.matches(": sample 1/1").count(), 3, "{err}");
}
