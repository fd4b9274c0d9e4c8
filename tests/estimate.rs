//! The time estimate printed before a run (issue 20, class 10): from a probe of the target the
//! first time, from the stored history of the same cells after; a suite estimated at several
//! times what it says it takes runs only with `--yes`; `--estimate` prints it and measures
//! nothing; `suite list` shows how long a suite took here.

use crate::util::{alone, entries, fsbench, hog_every_cpu, temp_dir};
use predicates::prelude::*;
use std::path::Path;

/// A suite that says it takes one second and plans about three minutes of 30-second samples.
fn slow_suite(dir: &Path) -> std::path::PathBuf {
    let f = dir.join("slow.toml");
    std::fs::write(
        &f,
        "name = \"slow\"\ndescription = \"Thirty-second samples.\"\ntime = \"about 1 s\"\ncache = \"warm\"\nruns = 3\n\n[[workload]]\nname = \"null\"\nops = 1\nsleep = \"30s\"\n",
    )
    .unwrap();
    f
}

#[test]
fn a_suite_estimated_far_above_its_stated_time_is_refused_without_yes() {
    let (work, target, db) = (temp_dir(), temp_dir(), temp_dir());
    let suite = slow_suite(work.path());
    let db = db.path().join("r.db");
    let out = fsbench()
        .args(["run", "--suite"])
        .arg(&suite)
        .arg("--target")
        .arg(target.path())
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    let refusal = err.lines().last().unwrap_or_default();
    assert!(
        refusal.contains("estimated 2 min") && refusal.contains("'about 1 s'"),
        "{err}"
    );
    assert!(refusal.contains("--yes"), "{err}");
    // Refused before any work: nothing written in the target, no run stored.
    assert!(entries(target.path()).is_empty());
    assert!(!db.exists(), "a refused run created the database");
}

#[test]
fn estimate_prints_the_estimate_and_measures_nothing() {
    let (work, target, db) = (temp_dir(), temp_dir(), temp_dir());
    let suite = slow_suite(work.path());
    let db = db.path().join("r.db");
    fsbench()
        .args(["run", "--estimate", "--suite"])
        .arg(&suite)
        .arg("--target")
        .arg(target.path())
        .arg("--db")
        .arg(&db)
        .assert()
        .success()
        .stdout(
            predicate::str::starts_with("estimated time: about 2 min")
                .and(predicate::str::contains("probe:")),
        );
    assert!(entries(target.path()).is_empty());
    assert!(!db.exists());
}

#[test]
fn the_second_run_is_estimated_from_the_first_and_suite_list_shows_it() {
    let (target, db) = (temp_dir(), temp_dir());
    let db = db.path().join("r.db");
    let run = || {
        fsbench()
            .args(["run", "--suite", "quick", "--scale", "0.01", "--target"])
            .arg(target.path())
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap()
    };
    let first = run();
    assert!(first.status.success());
    let err = String::from_utf8_lossy(&first.stderr);
    assert!(
        err.contains("estimated time:") && err.contains("probe:"),
        "{err}"
    );
    assert!(err.contains("took "), "{err}");
    let second = run();
    let err = String::from_utf8_lossy(&second.stderr);
    let line = err
        .lines()
        .find(|l| l.starts_with("estimated time:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("cells from earlier runs"), "{line}");
    assert!(
        !line.contains("probe:"),
        "history covers every cell: {line}"
    );
    let list = fsbench()
        .args(["suite", "list", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    let here = list
        .lines()
        .skip_while(|l| !l.starts_with("quick "))
        .nth(1)
        .unwrap_or_default();
    assert!(
        here.trim_start().starts_with("here: ") && here.contains("for 1 target at --scale 0.01"),
        "{list}"
    );
    assert_eq!(here.matches("target").count(), 2, "two runs: {here}");
}

/// The README's first command (`fsbench run`, no arguments: the `quick` plan in the current
/// directory) on a machine whose CPUs other work keeps busy: the estimate says its probe ran
/// under load, and the run is never refused for overrunning what the suite says. The run is
/// stopped with Ctrl-C (SIGINT) once its first sample is measured, past the estimate's gate:
/// the whole plan beside the hogs would add half a minute and nothing to the claim. The stop
/// leaves nothing in the directory.
#[test]
fn the_default_plan_runs_beside_cpu_hogs_and_its_estimate_says_the_probe_was_loaded() {
    let dir = temp_dir();
    // The machine first, then the hogs: they must not spin beside a test that holds it.
    let _alone = alone();
    let (err, code) = {
        let _hogs = hog_every_cpu();
        let mut run = crate::util::command();
        run.arg("run").current_dir(dir.path());
        until_the_first_sample(run)
    };
    let line = err
        .lines()
        .find(|l| l.starts_with("estimated time:"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(line.contains("probed while other processes took"), "{line}");
    assert!(!err.contains("--yes"), "{err}");
    assert!(
        !err.contains("what suite"),
        "the default plan is never held to a suite's time: {err}"
    );
    assert!(err.contains(": sample 1/"), "never measured: {err}");
    assert_eq!(code, Some(130), "stopped by Ctrl-C: {err}");
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// Runs `run` (an `fsbench run`) until it measures its first sample, then stops it with Ctrl-C
/// (SIGINT), or until it ends: its standard error and exit code.
fn until_the_first_sample(mut run: std::process::Command) -> (String, Option<i32>) {
    use std::io::BufRead;
    let mut child = run
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err: Vec<String> = Vec::new();
    let mut stopped = false;
    for line in std::io::BufReader::new(child.stderr.take().unwrap())
        .lines()
        .map_while(Result::ok)
    {
        if !stopped && line.contains(": sample 1/") {
            let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
            rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
            stopped = true;
        }
        err.push(line);
    }
    (err.join("\n"), child.wait().unwrap().code())
}

/// `fsbench run ARGS --no-store` in a new directory until its first sample; its standard error
/// (the directory left empty).
fn run_in_a_new_dir(args: &[&str]) -> String {
    let dir = temp_dir();
    let mut run = crate::util::command();
    run.arg("run")
        .args(args)
        .args(["--no-store", "--target"])
        .arg(dir.path());
    let (err, _) = until_the_first_sample(run);
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
    err
}

/// The default plan (`quick`, no `--suite`) is never held to the time its suite states, even
/// when asked for 200 samples a cell (an estimate of tens of minutes, still over three times the
/// suite's 85 s on a machine five times faster); the same plan named (`--suite quick`) is (refused, or run with a line saying why not when its probe ran on a busy
/// machine): so the estimate was far enough over for the guard to speak.
#[test]
fn the_default_plan_is_never_held_to_its_suites_time_and_the_named_suite_is() {
    let named = run_in_a_new_dir(&["--suite", "quick", "--runs", "200"]);
    assert!(named.contains("what suite 'quick' says"), "{named}");
    let default = run_in_a_new_dir(&["--runs", "200"]);
    assert!(
        default.lines().any(|l| l.starts_with("estimated time:")),
        "{default}"
    );
    assert!(!default.contains("what suite"), "{default}");
    assert!(!default.contains("--yes"), "{default}");
    assert!(default.contains(": sample 1/"), "never measured: {default}");
}
