//! Suites end to end: typos in a TOML file are found before any work with `FILE:LINE:COLUMN` and
//! a suggestion; `suite list`/`suite show`; `fsbench run` alone runs `quick`; a lab suite leaves
//! nothing behind.

use crate::util::{entries, fsbench, temp_dir};

/// Writes `text` as `bad.toml` in a fresh temp dir, runs it, and returns (exit code, stderr,
/// the dir's entries after the run).
fn run_file(text: &str) -> (Option<i32>, String, Vec<String>) {
    let dir = temp_dir();
    let file = dir.path().join("bad.toml");
    std::fs::write(&file, text).unwrap();
    let out = fsbench()
        .current_dir(dir.path())
        .args(["run", "--no-store", "--suite", file.to_str().unwrap()])
        .output()
        .unwrap();
    let left = entries(dir.path());
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        left,
    )
}

fn assert_input_error(text: &str, at: &str, wanted: &[&str]) {
    let (code, err, left) = run_file(text);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&format!("bad.toml:{at}: ")),
        "position {at}: {err}"
    );
    for w in wanted {
        assert!(err.contains(w), "{w:?} not in {err}");
    }
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert_eq!(left, vec!["bad.toml"], "no work was done");
}

#[test]
fn unknown_key_is_placed_and_suggested() {
    assert_input_error(
        "name = \"t\"\nrunz = 3\n[[workload]]\nname = \"null\"\n",
        "2:1",
        &["unknown key 'runz'", "did you mean 'runs'?"],
    );
}

#[test]
fn unknown_workload_is_placed_and_suggested() {
    assert_input_error(
        "name = \"t\"\n[[workload]]\nname = \"seq-reed\"\n",
        "3:8",
        &["unknown workload 'seq-reed'", "did you mean 'seq-read'?"],
    );
}

#[test]
fn unknown_parameter_is_placed_and_suggested() {
    assert_input_error(
        "name = \"t\"\n[[workload]]\nname = \"null\"\nopz = 3\n",
        "4:1",
        &["unknown parameter 'opz'", "did you mean 'ops'?"],
    );
}

#[test]
fn bad_parameter_value_is_placed_and_suggested() {
    let text = "name = \"t\"\n[[workload]]\nname = \"walk\"\nworkers = [1, 2]\nmode = \"proc\"\n";
    assert_input_error(text, "5:8", &["'mode'", "did you mean 'procs'?"]);
    let text = "name = \"t\"\n[[workload]]\nname = \"null\"\nops = [1, \"many\"]\n";
    assert_input_error(text, "4:11", &["'ops'", "invalid number 'many'"]);
}

#[test]
fn wrong_type_is_placed_with_an_example() {
    assert_input_error(
        "name = \"t\"\nruns = \"six\"\n[[workload]]\nname = \"null\"\n",
        "2:8",
        &["'runs' must be", "e.g. runs = 6"],
    );
    assert_input_error(
        "name = \"t\"\n[[workload]]\nname = \"null\"\nops = { a = 1 }\n",
        "4:7",
        &["found a table", "workers = [1, 2, 4]"],
    );
}

#[test]
fn suite_list_names_every_builtin_with_its_time() {
    let out = fsbench().args(["suite", "list"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for name in [
        "quick",
        "chromium-dev",
        "disk-speed",
        "afs-study",
        "readdir-locks",
        "fs-shootout",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing: {text}"));
        assert!(line.contains("about "), "{line}");
    }
}

#[test]
fn suite_show_prints_toml_that_runs_as_a_file() {
    let out = fsbench().args(["suite", "show", "quick"]).output().unwrap();
    assert!(out.status.success());
    let dir = temp_dir();
    let file = dir.path().join("copy.toml");
    std::fs::write(&file, &out.stdout).unwrap();
    let again = fsbench()
        .args(["suite", "show", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(again.stdout, out.stdout);
    let bad = fsbench().args(["suite", "show", "quik"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("did you mean 'quick'?"));
}

#[test]
fn a_suite_files_run_records_the_suite_in_its_json_and_history() {
    let dir = temp_dir();
    let file = dir.path().join("mine.toml");
    std::fs::write(
        &file,
        "name = \"mine\"\ndescription = \"One null cell.\"\ncache = \"warm\"\nruns = 2\nreport = \"times\"\n\n[[workload]]\nname = \"null\"\nops = 10\n",
    )
    .unwrap();
    let work = temp_dir();
    let db = dir.path().join("r.db");
    let json = dir.path().join("r.json");
    let out = fsbench()
        .current_dir(work.path())
        .args(["run", "-q", "--suite"])
        .arg(&file)
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["run"]["suite"], file.to_str().unwrap());
    assert_eq!(v["run"]["report"], "times");
    assert!(v["run"].get("scale").is_none(), "not scaled");
    let history = fsbench()
        .args(["history", "--export-json", "-", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let h: serde_json::Value = serde_json::from_slice(&history.stdout).unwrap();
    assert_eq!(h[0]["suite"], file.to_str().unwrap(), "{h}");
}

#[test]
fn run_without_arguments_runs_the_quick_suite() {
    let dir = temp_dir();
    let json = temp_dir();
    let out = fsbench()
        .current_dir(dir.path())
        .args([
            "run",
            "--no-store",
            "--scale",
            "0.01",
            "--runs",
            "1",
            "--cache",
            "warm",
            "-q",
            "--json",
        ])
        .arg(json.path().join("r.json"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Summary"), "{stdout}");
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(json.path().join("r.json")).unwrap()).unwrap();
    assert_eq!(
        v["run"]["suite"], "quick",
        "the default plan is the quick suite"
    );
    assert_eq!(v["run"]["scale"], 0.01);
    assert_eq!(v["run"]["report"], "summary");
    let workloads: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["workload"].as_str().unwrap())
        .collect();
    for w in [
        "seq-write",
        "seq-read",
        "rand-read",
        "rand-write",
        "latency",
        "walk",
        "postmark",
    ] {
        assert!(workloads.contains(&w), "{w} missing from {workloads:?}");
    }
    assert!(
        entries(dir.path()).is_empty(),
        "scratch left: {:?}",
        entries(dir.path())
    );
}

#[test]
fn scale_without_a_suite_is_refused() {
    let out = fsbench()
        .args(["run", "--no-store", "-w", "null", "--scale", "0.1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--scale applies to suites"));
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn lab_suite_runs_and_leaves_nothing() {
    let dir = temp_dir();
    let file = dir.path().join("lab.toml");
    let text = "name = \"lab-test\"\nlab = [\"tmpfs\", \"ext4\"]\nbaseline = \"ext4\"\ncache = \"warm\"\nruns = 2\ncompare = \"targets\"\nreport = \"overhead\"\n\n[[workload]]\nname = \"seq-read\"\nsize = \"1m\"\n";
    std::fs::write(&file, text).unwrap();
    let out = fsbench()
        .current_dir(dir.path())
        .args([
            "run",
            "--no-store",
            "-q",
            "--lab-size",
            "64m",
            "--suite",
            file.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("Overhead against ext4"), "{stdout}");
    assert_eq!(entries(dir.path()), vec!["lab.toml"], "lab scratch left");
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert!(
        !mounts.contains(dir.path().to_str().unwrap()),
        "a mount is left"
    );
    let loops = std::process::Command::new("losetup")
        .arg("-a")
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&loops.stdout).contains(dir.path().to_str().unwrap()),
        "a loop device is left"
    );
}
