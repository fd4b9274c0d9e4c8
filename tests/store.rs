//! The results database end to end (issue 12): two runs, then `history`, `show last`,
//! `compare last~1 last`, exports and the regression gate on the database they left; a run
//! killed with SIGKILL stays readable; a corrupt database is refused and left byte-identical.

use crate::util::{alone, fsbench, temp_dir};
use predicates::prelude::*;
use std::path::Path;

/// A `null` run on a fresh target, stored in `db`.
fn null_run(db: &Path, ops: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    let target = temp_dir();
    fsbench()
        .args(["run", "--cache", "warm", "--runs", "5", "-q", "-w"])
        .arg(format!("null:ops={ops}"))
        .arg("-t")
        .arg(format!("t={}", target.path().display()))
        .arg("--db")
        .arg(db)
        .args(extra)
        .assert()
}

#[test]
fn two_runs_then_history_show_compare_export_and_gate() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    null_run(&db, "1000", &["--note", "first"]).success();
    null_run(&db, "1000", &[]).success();
    fsbench()
        .args(["history", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("null").and(predicate::str::contains("ok")));
    let out = fsbench()
        .args(["history", "--export-json", "-", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert_eq!(list[0]["samples"], 5);
    fsbench()
        .args(["show", "last", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("t ").and(predicate::str::contains("null")));
    let csv = d.path().join("last.csv");
    fsbench()
        .args(["show", "last", "--export-csv"])
        .arg(&csv)
        .arg("--db")
        .arg(&db)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(text.starts_with("run,target,workload"), "{text}");
    fsbench()
        .args(["compare", "last~1", "last", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("A:t/null/warm"));
}

/// The same cell (same parameters) made slower between two runs: a command that sleeps for as
/// long as a file says.
#[test]
fn the_regression_gate_fails_only_on_a_proven_slowdown() {
    // Two runs compared by the gate, which calls a cell not comparable when others took a
    // quarter of the CPUs during one run and not the other: no other test's fsbench beside them.
    let _alone = alone();
    let d = temp_dir();
    let db = d.path().join("r.db");
    let delay = d.path().join("delay");
    let target = temp_dir();
    let run = |secs: &str, extra: &[&str]| {
        std::fs::write(&delay, secs).unwrap();
        fsbench()
            .args(["run", "--cache", "warm", "--runs", "5", "-q", "-w"])
            .arg(format!("command:run='sleep $(cat {})'", delay.display()))
            .arg("-t")
            .arg(format!("t={}", target.path().display()))
            .arg("--db")
            .arg(&db)
            .args(extra)
            .assert()
    };
    run("0.01", &[]).success();
    run("0.08", &["--baseline", "last", "--fail-if-slower", "5"])
        .code(1)
        .stderr(predicate::str::contains("the gate failed: 1 slower"))
        .stdout(predicate::str::contains("whole 95% interval"))
        .stdout(predicate::str::is_match("B:t/command/warm: .* — SLOWER").unwrap());
    // The other way round is faster: no failure.
    fsbench()
        .args(["compare", "last", "last~1", "--fail-if-slower", "5", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("proven"));
    fsbench()
        .args(["compare", "last~1", "last", "--fail-if-slower", "5", "--db"])
        .arg(&db)
        .assert()
        .code(1);
}

#[test]
fn sigkill_mid_run_leaves_a_readable_database() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let target = temp_dir();
    let mut child = crate::util::command()
        .args([
            "run", "--cache", "warm", "--runs", "1000", "--warmup", "0", "-q", "-w",
        ])
        .arg("null:ops=10,sleep=20ms")
        .arg("-t")
        .arg(target.path())
        .arg("--db")
        .arg(&db)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let out = fsbench()
            .args(["history", "--export-json", "-", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let n = serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .ok()
            .and_then(|v| v[0]["samples"].as_i64())
            .unwrap_or(0);
        if n >= 3 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "no samples stored");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let out = fsbench()
        .args(["history", "--export-json", "-", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["status"], "incomplete");
    fsbench()
        .args(["show", "last", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("null"))
        .stderr(predicate::str::contains("incomplete"));
}

#[test]
fn a_corrupt_database_is_refused_and_left_byte_identical() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&db, &bytes).unwrap();
    null_run(&db, "10", &[])
        .code(2)
        .stderr(predicate::str::contains("not an fsbench database"));
    for cmd in [&["history"][..], &["show", "last"][..]] {
        fsbench()
            .args(cmd)
            .arg("--db")
            .arg(&db)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("left untouched"));
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes);
}

/// A real fsbench database damaged past its header (a page in the middle overwritten) is refused
/// by `run` before anything writes to it — not its change counter, not its WAL switch — in WAL
/// mode and in rollback-journal mode, and `history`/`show` name it damaged, never a crash.
#[test]
fn a_database_damaged_past_its_header_is_refused_byte_identical() {
    for journal in ["wal", "delete"] {
        let d = temp_dir();
        let db = d.path().join("r.db");
        for _ in 0..3 {
            null_run(&db, "2000", &[]).success();
        }
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "journal_mode", journal).unwrap();
        drop(conn);
        let mut bytes = std::fs::read(&db).unwrap();
        let page = usize::from(u16::from_be_bytes([bytes[16], bytes[17]]));
        let pages = bytes.len() / page;
        assert!(
            pages >= 4,
            "{journal}: a database of {pages} pages is too small to damage"
        );
        // Damage the last page (a sample's data), leaving page 1 (the header and schema) sound.
        let last = (pages - 1) * page;
        bytes[last..last + page].fill(0xA5);
        std::fs::write(&db, &bytes).unwrap();
        null_run(&db, "10", &[]).code(2).stderr(
            predicate::str::contains("damaged").and(predicate::str::contains("left untouched")),
        );
        assert_eq!(
            std::fs::read(&db).unwrap(),
            bytes,
            "{journal}: run wrote to a refused database"
        );
        let shown = fsbench()
            .args(["show", "last", "--db"])
            .arg(&db)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&shown.stderr);
        assert!(!err.contains("panicked"), "{journal}: {err}");
        assert!(
            shown.status.success() || err.contains("damaged"),
            "{journal}: {err}"
        );
        assert_eq!(
            std::fs::read(&db).unwrap(),
            bytes,
            "{journal}: show wrote to a refused database"
        );
    }
}

#[test]
fn exported_json_imports_into_another_database() {
    let d = temp_dir();
    let (db1, db2, json) = (
        d.path().join("1.db"),
        d.path().join("2.db"),
        d.path().join("r.json"),
    );
    null_run(&db1, "10", &["--export-json", json.to_str().unwrap()]).success();
    fsbench()
        .arg("import")
        .arg(&json)
        .arg("--db")
        .arg(&db2)
        .assert()
        .success();
    let show = |db: &Path| {
        let out = fsbench()
            .args(["show", "last", "--export-json", "-", "--db"])
            .arg(db)
            .output()
            .unwrap();
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["run"]["status"] = "ok".into();
        v
    };
    assert_eq!(show(&db1), show(&db2));
    fsbench()
        .arg("import")
        .arg(&json)
        .arg("--db")
        .arg(&db2)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already stored"));
}

#[test]
fn no_store_writes_no_database_and_unknown_runs_are_named() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    null_run(&db, "10", &["--no-store"]).success();
    assert!(!db.exists());
    fsbench()
        .args(["show", "last", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no results database"));
    null_run(&db, "10", &[]).success();
    fsbench()
        .args(["show", "nosuchrun", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no run 'nosuchrun'"));
    fsbench()
        .args(["run", "-w", "null", "--fail-if-slower", "5", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--baseline"));
}

#[test]
fn two_runs_at_once_share_one_database() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let spawn = || {
        let target = temp_dir();
        let child = crate::util::command()
            .args([
                "run",
                "--cache",
                "warm",
                "--runs",
                "40",
                "--warmup",
                "0",
                "-q",
                "-w",
                "null:ops=100",
            ])
            .arg("-t")
            .arg(target.path())
            .arg("--db")
            .arg(&db)
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        (child, target)
    };
    let (mut a, _ta) = spawn();
    let (mut b, _tb) = spawn();
    assert!(a.wait().unwrap().success());
    assert!(b.wait().unwrap().success());
    let out = fsbench()
        .args(["history", "--export-json", "-", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let runs = v.as_array().unwrap();
    assert_eq!(runs.len(), 2);
    assert!(
        runs.iter()
            .all(|r| r["samples"] == 40 && r["status"] == "ok"),
        "{v}"
    );
}

/// The gate never passes what it could not judge: a cell measured unlike its baseline, a cell
/// in one run only, and a cell whose interval straddles the threshold each fail (exit 1, or 4
/// for inconclusive), with the rule and each cell's decision printed; `--allow-incomparable`
/// lets the unjudged ones through.
#[test]
fn the_gate_fails_on_what_it_cannot_judge() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let json = d.path().join("a.json");
    let target = temp_dir();
    fsbench()
        .args([
            "run",
            "-q",
            "--cache",
            "warm",
            "--runs",
            "3",
            "-w",
            "null",
            "-w",
            "null:ops=10",
        ])
        .arg("-t")
        .arg(format!("t={}", target.path().display()))
        .arg("--db")
        .arg(&db)
        .arg("--json")
        .arg(&json)
        .assert()
        .success();
    let base: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // Imports a copy of the run with `edit` applied, as run `id`.
    let import = |id: &str, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        v["run"]["id"] = id.into();
        v["run"]["started_at"] = format!("2099-01-0{}T00:00:00Z", id.len() % 9 + 1).into();
        edit(&mut v);
        let f = d.path().join(format!("{id}.json"));
        std::fs::write(&f, serde_json::to_vec(&v).unwrap()).unwrap();
        fsbench()
            .arg("import")
            .arg(&f)
            .arg("--db")
            .arg(&db)
            .assert()
            .success();
    };
    let headline_values = |v: &mut serde_json::Value, cell: usize, values: &[f64]| {
        let h = v["results"][cell]["headline"].as_str().unwrap().to_string();
        for (s, x) in v["results"][cell]["samples"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .zip(values)
        {
            s["metrics"][&h] = (*x).into();
        }
    };
    let gate = |a: &str, b: &str, extra: &[&str]| {
        fsbench()
            .args(["compare", a, b, "--fail-if-slower", "5"])
            .args(extra)
            .arg("--db")
            .arg(&db)
            .assert()
    };
    // Another fsbench version: not comparable.
    import("oldver", &|v| v["run"]["fsbench_version"] = "0.0.1".into());
    gate(base["run"]["id"].as_str().unwrap(), "oldver", &[])
        .code(1)
        .stdout(predicate::str::contains("NOT COMPARABLE"));
    gate(
        base["run"]["id"].as_str().unwrap(),
        "oldver",
        &["--allow-incomparable"],
    )
    .success();
    // A cell of the baseline that the new run lacks: missing.
    import("fewer", &|v| {
        v["results"].as_array_mut().unwrap().truncate(1);
    });
    gate(base["run"]["id"].as_str().unwrap(), "fewer", &[])
        .code(1)
        .stdout(predicate::str::contains(
            "MISSING (only in the baseline run)",
        ));
    // Intervals that straddle the threshold: inconclusive, exit 4.
    import("wide1", &|v| headline_values(v, 0, &[100.0, 101.0, 99.0]));
    import("wide2", &|v| headline_values(v, 0, &[80.0, 100.0, 90.0]));
    gate("wide1", "wide2", &["--allow-incomparable"])
        .code(4)
        .stdout(predicate::str::contains("INCONCLUSIVE"))
        .stderr(predicate::str::contains("could not decide"));
}

/// A named baseline stays put: runs stored after it do not move what `--baseline NAME` compares
/// with, whereas `--baseline last` would (and says so).
#[test]
fn a_named_baseline_pins_the_gate_to_one_run() {
    let d = temp_dir();
    let db = d.path().join("r.db");
    let target = temp_dir();
    let run = |extra: &[&str]| {
        fsbench()
            .args(["run", "-q", "--cache", "warm", "--runs", "3", "-w", "null"])
            .arg("-t")
            .arg(format!("t={}", target.path().display()))
            .arg("--db")
            .arg(&db)
            .args(extra)
            .output()
            .unwrap()
    };
    assert_eq!(run(&[]).status.code(), Some(0));
    fsbench()
        .args(["baseline", "set", "ci-main", "last", "--db"])
        .arg(&db)
        .assert()
        .success()
        .stdout(predicate::str::contains("baseline ci-main = run "));
    let pinned = String::from_utf8(
        fsbench()
            .args(["baseline", "list", "--db"])
            .arg(&db)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let pinned_id = pinned.split('\t').nth(1).unwrap().to_string();
    assert_eq!(run(&[]).status.code(), Some(0));
    let out = run(&[
        "--baseline",
        "ci-main",
        "--fail-if-slower",
        "50",
        "--allow-incomparable",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(&format!("A = run {pinned_id}")), "{text}");
    let out = run(&[
        "--baseline",
        "last",
        "--fail-if-slower",
        "50",
        "--allow-incomparable",
    ]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("moves with every stored run"));
    fsbench()
        .args(["baseline", "set", "last~1", "last", "--db"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("invalid baseline name"));
}

/// A healthy database on a read-only filesystem is never called damaged: the reading commands
/// work on it, `run` says exactly why it cannot store there, and the file stays byte-identical.
#[test]
#[cfg_attr(
    not(fsbench_root),
    ignore = "needs root (to remount a tmpfs read-only)"
)]
fn a_database_on_a_read_only_filesystem_is_read_and_never_called_damaged() {
    let t = temp_dir();
    let fs = t.path().join("fs");
    std::fs::create_dir(&fs).unwrap();
    let mount = |opts: &str| {
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(&fs)
            .status()
            .unwrap();
        assert!(ok.success());
    };
    mount("size=16m");
    let db = fs.join("r.db");
    let target = temp_dir();
    fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "2", "--db",
        ])
        .arg(&db)
        .arg("-t")
        .arg(target.path())
        .assert()
        .success();
    let before = std::fs::read(&db).unwrap();
    mount("remount,ro");
    let html = t.path().join("r.html");
    let reading: [&[&str]; 4] = [
        &["history"],
        &["show", "last"],
        &["compare", "last", "last"],
        &["report", "last", "-o"],
    ];
    let mut results = Vec::new();
    for args in reading {
        let mut cmd = fsbench();
        cmd.args(args);
        if args[0] == "report" {
            cmd.arg(&html);
        }
        results.push((args, cmd.arg("--db").arg(&db).output().unwrap()));
    }
    let run = fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "1", "--db",
        ])
        .arg(&db)
        .arg("-t")
        .arg(target.path())
        .output()
        .unwrap();
    let after = std::fs::read(&db).unwrap();
    let _ = std::process::Command::new("umount").arg(&fs).status();
    for (args, out) in results {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot be written") && !err.contains("damaged"),
        "{err}"
    );
    assert!(before == after, "the database changed");
}
