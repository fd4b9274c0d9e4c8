//! Steady state (issue 22): `until=steady` samples until the SNIA criteria hold over the last 5
//! samples, headlines the window, and says so when they never hold.

use crate::util::{fsbench, temp_dir};
use serde_json::Value;

fn run(dir: &std::path::Path, workload: &str, extra: &[&str]) -> Value {
    let json = dir.join("r.json");
    let target = dir.join("t");
    std::fs::create_dir_all(&target).unwrap();
    let out = fsbench()
        .args(["run", "-q", "--cache", "warm", "-w", workload, "-t"])
        .arg(&target)
        .arg("--db")
        .arg(dir.join("r.db"))
        .arg("--json")
        .arg(&json)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap()
}

#[test]
fn a_page_cache_read_gets_steady_within_a_few_rounds_and_headlines_the_window() {
    // Alone: another test's cold samples drop the whole machine's page cache (drop_caches), and
    // its file read from the device is no longer a page-cache read.
    let _alone = crate::util::alone();
    let d = temp_dir();
    // A paced read (an open loop at 2,000 reads/s, 200 reads a sample): each sample's rate is
    // the schedule's on any machine that can read a cached 4 KiB block faster than that, beside
    // CPU hogs too (a late wake-up is caught up; one at the end lengthens a 100 ms sample by a
    // time slice, a few %). An unpaced read's rate follows the reader's share of a CPU sample
    // by sample: beside two hogs five 15 ms samples within 20% once took more than 60 samples.
    let v = run(
        d.path(),
        "rand-read:size=8m,rate=2000,ops=200,until=steady",
        &["--max-runs", "60"],
    );
    let r = &v["results"][0];
    let s = &r["steady"];
    assert_eq!(s["steady"], true, "{r}");
    assert_eq!(s["window_len"], 5);
    let n = r["samples"].as_array().unwrap().len();
    assert!((5..=60).contains(&n), "{n} samples");
    assert_eq!(
        s["window_first"].as_u64().unwrap() as usize,
        n - 4,
        "the last five"
    );
    assert!(s["range_pct"].as_f64().unwrap() <= 20.0);
    assert!(s["slope_excursion_pct"].as_f64().unwrap() <= 10.0);
    let headline = r["headline"].as_str().unwrap();
    assert_eq!(r["summary"][headline]["n"], 5, "the window only");
    assert!(
        r["params"].get("until").is_none(),
        "a policy, not a workload parameter"
    );
}

#[test]
fn a_drifting_workload_never_gets_steady_and_says_so() {
    let d = temp_dir();
    let f = d.path().join("n");
    // Each sample sleeps 1.5 times longer than the one before: it never settles.
    let script = format!(
        "n=$(cat {0} 2>/dev/null || echo 10); echo $((n*3/2)) > {0}; sleep $(awk \"BEGIN{{print $n/1000}}\")",
        f.display()
    );
    let v = run(
        d.path(),
        &format!("command:run='{script}'"),
        &["--until-steady", "--max-runs", "7"],
    );
    let r = &v["results"][0];
    assert_eq!(r["steady"]["steady"], false, "{r}");
    assert_eq!(r["samples"].as_array().unwrap().len(), 7);
    let warned = r["warnings"].as_array().unwrap().iter().any(|w| {
        w["kind"] == "not-steady"
            && w["message"]
                .as_str()
                .unwrap()
                .contains("never reached steady state in 7 samples")
    });
    assert!(warned, "{r}");
    let headline = r["headline"].as_str().unwrap();
    assert_eq!(
        r["summary"][headline]["n"], 7,
        "all samples when never steady"
    );
}

#[test]
fn until_takes_only_steady_and_the_window_must_fit_max_runs() {
    let d = temp_dir();
    fsbench()
        .args(["run", "-q", "-w", "null:until=forever", "-t"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("until= takes 'steady'"));
    fsbench()
        .args([
            "run",
            "-q",
            "-w",
            "null",
            "--until-steady",
            "--max-runs",
            "3",
            "-t",
        ])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("the window alone is 5 samples"));
}

#[test]
fn until_steady_on_a_workload_takes_max_time_and_max_runs_like_the_flag() {
    let d = temp_dir();
    // Steady after the window of 5, or stopped by --max-runs 6; --max-time is accepted.
    let v = run(
        d.path(),
        "null:until=steady",
        &["--max-time", "30s", "--max-runs", "6"],
    );
    let r = &v["results"][0];
    let n = r["samples"].as_array().unwrap().len();
    assert!((5..=6).contains(&n), "{n} samples");
    // A plain cell beside it keeps its fixed count; --max-time alone still needs a reason.
    fsbench()
        .args(["run", "-q", "-w", "null", "--max-time", "5s", "-t"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("until=steady on a workload"));
}

#[test]
fn precondition_refuses_a_directory_that_is_not_fsbenchs_to_fill() {
    let d = temp_dir();
    fsbench()
        .args(["run", "-q", "-w", "rand-read:size=1m", "--precondition", "-t"])
        .arg(d.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "--precondition fills its target, so it runs only on raw devices (--allow-destroy) and --lab targets",
        ));
    assert!(crate::util::entries(d.path()).is_empty(), "nothing written");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4 (a lab target)"
)]
fn precondition_fills_a_lab_target_twice_then_samples_until_steady() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let json = d.path().join("r.json");
    let out = fsbench()
        .args([
            "run",
            "-q",
            "--lab",
            "ext4",
            "--lab-size",
            "96m",
            "--lab-dir",
        ])
        .arg(d.path())
        .args([
            "-w",
            "rand-read:size=4m,ops=2000",
            "--cache",
            "warm",
            "--precondition",
        ])
        .arg("--db")
        .arg(d.path().join("r.db"))
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let fill = &v["results"][0];
    assert_eq!(fill["workload"], "seq-write", "{fill}");
    assert_eq!(fill["sweep"]["precondition"], "fill");
    let passes = fill["samples"].as_array().unwrap();
    assert_eq!(passes.len(), 2, "two passes");
    for p in passes {
        let mib = p["bytes"].as_u64().unwrap() >> 20;
        assert!(
            (40..=96).contains(&mib),
            "most of the free space: {mib} MiB"
        );
        assert!(
            p["series"].as_array().is_some_and(|s| !s.is_empty()),
            "its series kept"
        );
    }
    let measured = &v["results"][1];
    assert_eq!(measured["workload"], "rand-read");
    assert!(
        measured["steady"].is_object(),
        "sampled until steady: {measured}"
    );
}
