//! Every registered workload runs with its default parameters: only sizes are made small (and the
//! one required parameter, `command`'s `run`, is given). A default that fails, like the lost
//! `csail` profile that once broke `tar-extract`, fails here.

use crate::util::{entries, fsbench, temp_dir};

/// Size-like parameters lowered so each workload takes well under a second.
const SMALL: &[(&str, &str)] = &[
    ("size", "256k"),
    ("scale", "0.002"),
    ("duration", "50ms"),
    ("count", "3"),
    ("interval", "1ms"),
    ("ops", "64"),
    ("number", "20"),
    ("transactions", "20"),
];

/// Names and parameter keys of every workload, read from `fsbench workloads`.
fn registry() -> Vec<(String, Vec<String>)> {
    let out = fsbench().arg("workloads").output().unwrap();
    assert!(out.status.success());
    let mut all: Vec<(String, Vec<String>)> = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(key) = line.strip_prefix("    ") {
            let key = key
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            all.last_mut()
                .expect("a parameter follows a workload")
                .1
                .push(key);
        } else if let Some((name, _)) = line.split_once(':') {
            all.push((name.to_string(), Vec::new()));
        }
    }
    all
}

/// Names listed by `fsbench metrics`.
fn catalogued_metrics() -> Vec<String> {
    let out = fsbench().arg("metrics").output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// A trace of one call: `mkdir d` under its root.
fn one_mkdir() -> fsbench_trace::Trace {
    use fsbench_trace::model::{Call, Op, Thread};
    fsbench_trace::Trace {
        threads: vec![Thread {
            tid: 1,
            pid: 1,
            begun_ns: 0,
        }],
        paths: vec![b"d".to_vec()],
        calls: vec![Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 1000,
            op: Op::Mkdir {
                path: 0,
                mode: 0o755,
            },
            result: 0,
            outside: false,
            before: None,
            during: None,
            hidden: 0,
        }],
        ..Default::default()
    }
}

#[test]
fn every_workload_runs_with_its_defaults() {
    let all = registry();
    assert!(all.len() >= 16, "registry shrank: {all:?}");
    let catalogue = catalogued_metrics();
    for (name, keys) in all {
        let mut params: Vec<String> = SMALL
            .iter()
            .filter(|(k, _)| keys.iter().any(|have| have == k))
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if name == "command" {
            params.push("run=true".into());
        }
        // A replay needs a trace: one mkdir under its root.
        let trace_dir = temp_dir();
        if name == "replay" {
            let trace = trace_dir.path().join("t.fsbtrace");
            std::fs::write(&trace, fsbench_trace::encode(&one_mkdir())).unwrap();
            params.push(format!("trace={}", trace.display()));
        }
        if name == "seek-rate" || name == "rand-read" || name == "rand-write" {
            // `duration` and `ops` are alternatives for these: keep the default stop rule.
            params.retain(|p| !p.starts_with("duration=") || name == "seek-rate");
        }
        let spec = if params.is_empty() {
            name.clone()
        } else {
            format!("{name}:{}", params.join(","))
        };
        let target = temp_dir();
        let json = temp_dir();
        let out = fsbench()
            .args([
                "run", "--cache", "warm", "--runs", "1", "--warmup", "0", "-q", "-w",
            ])
            .arg(&spec)
            .arg("--target")
            .arg(target.path())
            .arg("--json")
            .arg(json.path().join("r.json"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{spec}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(entries(target.path()).is_empty(), "{spec} left files");
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(json.path().join("r.json")).unwrap()).unwrap();
        let metrics = v["results"][0]["samples"][0]["metrics"]
            .as_object()
            .unwrap();
        for m in metrics.keys() {
            assert!(
                catalogue.contains(m),
                "{spec}: metric {m} is not in the catalogue"
            );
        }
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn too_few_free_inodes_is_reported_before_writing_and_names_scale() {
    let m = crate::safety::TmpfsMount::new("size=64m,nr_inodes=200");
    let out = fsbench()
        .args(["run", "--cache", "warm", "--runs", "1", "-q", "-w"])
        .arg("tree-create:profile=small,scale=0.5")
        .arg("--target")
        .arg(m.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("free inodes") && err.contains("scale="),
        "{err}"
    );
    assert!(entries(m.path()).is_empty());
}
