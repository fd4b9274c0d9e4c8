//! Developer-tree workloads end to end: tree-create, walk (threads and processes, generated and
//! existing trees, read only), sweeps over workers and their scaling verdict.

use crate::util::{entries, fsbench, temp_dir};
use serde_json::Value;

fn run(target: &std::path::Path, args: &[&str]) -> Value {
    let json = temp_dir();
    let out = json.path().join("out.json");
    fsbench()
        .arg("run")
        .arg("--target")
        .arg(target)
        .args(args)
        .args(["-q", "--json"])
        .arg(&out)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap()
}

#[test]
fn tree_create_records_its_manifest_and_leaves_nothing() {
    let t = temp_dir();
    let v = run(
        t.path(),
        &[
            "-w",
            "tree-create:profile=small,scale=0.05",
            "--cache",
            "warm",
            "--runs",
            "2",
        ],
    );
    let r = &v["results"][0];
    assert!(
        r["params"]["manifest"]
            .as_str()
            .unwrap()
            .starts_with("files=100 dirs=10 ")
    );
    assert_eq!(r["samples"][0]["metrics"]["files"], 100.0);
    assert!(r["summary"]["files_per_s"]["mean"].as_f64().unwrap() > 0.0);
    assert!(entries(t.path()).is_empty());
}

#[test]
fn walk_in_processes_counts_like_threads() {
    let t = temp_dir();
    let mut counts = Vec::new();
    for mode in ["threads", "procs"] {
        let w = format!("walk:profile=small,scale=0.05,workers=2,walks=4,mode={mode}");
        let v = run(t.path(), &["-w", &w, "--cache", "warm", "--runs", "1"]);
        let s = &v["results"][0]["samples"][0];
        counts.push(s["metrics"]["entries"].as_f64().unwrap());
        assert!(s["metrics"]["sys_ns_per_entry"].as_f64().is_some());
    }
    assert_eq!(counts[0], counts[1]);
    assert_eq!(counts[0], 4.0 * 109.0);
}

#[test]
fn walk_of_an_existing_tree_writes_nothing_there() {
    let t = temp_dir();
    let tree = temp_dir();
    std::fs::create_dir_all(tree.path().join("a/b")).unwrap();
    std::fs::write(tree.path().join("a/b/f"), b"x").unwrap();
    let before = std::fs::metadata(tree.path()).unwrap().modified().unwrap();
    let w = format!("walk:tree={},workers=1", tree.path().display());
    let v = run(t.path(), &["-w", &w, "--cache", "warm", "--runs", "2"]);
    assert_eq!(v["results"][0]["samples"][0]["metrics"]["entries"], 3.0);
    assert_eq!(entries(tree.path()), ["a"]);
    assert_eq!(
        std::fs::metadata(tree.path()).unwrap().modified().unwrap(),
        before
    );
}

#[test]
fn a_workers_sweep_gets_a_scaling_verdict() {
    let t = temp_dir();
    let v = run(
        t.path(),
        &[
            "-w",
            "walk:profile=small,scale=0.1,workers=1,2",
            "--cache",
            "warm",
            "--runs",
            "2",
        ],
    );
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert_eq!(v["results"][1]["sweep"]["workers"], "2");
    let s = &v["scaling"][0];
    assert_eq!(s["rows"].as_array().unwrap().len(), 2);
    // Any verdict but daemon-bound (no FUSE daemon here); a noisy machine can make two tiny
    // samples look far above linear (latency-bound).
    let verdict = s["verdict"].as_str().unwrap();
    assert!(
        ["scales", "saturates", "lock-contention", "latency-bound"].contains(&verdict),
        "{verdict}"
    );
    assert!(s["explanation"].as_str().unwrap().contains("J="));
}

#[test]
fn profile_with_an_existing_tree_is_an_error() {
    fsbench()
        .args(["run", "-w", "walk:tree=/usr,profile=small", "-q"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("applies only to tree=generated"));
}

#[test]
fn status_scan_and_null_build_find_nothing_to_do_on_a_fresh_tree() {
    let t = temp_dir();
    let v = run(
        t.path(),
        &[
            "-w",
            "status-scan:profile=small,scale=0.05,untracked-cache=on",
            "-w",
            "null-build:profile=small,scale=0.05",
            "--cache",
            "warm",
            "--runs",
            "2",
        ],
    );
    let scan = &v["results"][0]["samples"][0]["metrics"];
    assert_eq!(scan["files_checked"], 100.0);
    assert_eq!(scan["modified"], 0.0);
    assert_eq!(scan["untracked"], 0.0);
    let build = &v["results"][1]["samples"][0]["metrics"];
    assert_eq!(build["dirty"], 0.0);
    assert!(build["nodes"].as_f64().unwrap() > 10.0);
    assert_eq!(v["results"][0]["headline"], "wall_ns");
    assert!(entries(t.path()).is_empty());
}

#[test]
fn command_reports_child_cpu_and_fails_on_a_bad_exit() {
    let t = temp_dir();
    let v = run(
        t.path(),
        &[
            "-w",
            "command:run='i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done'",
            "--cache",
            "warm",
            "--runs",
            "2",
        ],
    );
    let s = &v["results"][0]["samples"][0];
    assert!(
        s["user_ns"].as_u64().unwrap() > 0,
        "child user time is counted: {s}"
    );
    assert!(s["metrics"]["command_ns"].as_f64().unwrap() > 0.0);
    fsbench()
        .args([
            "run",
            "-q",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-w",
            "command:run='exit 7'",
        ])
        .arg("--target")
        .arg(t.path())
        .assert()
        .code(3)
        .stderr(predicates::str::contains("exited with"));
    assert!(entries(t.path()).is_empty());
}
