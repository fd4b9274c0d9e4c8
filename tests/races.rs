//! Races a stress run finds: signals at random moments of a run, two runs on one database at
//! once, and a scratch whose guard was stopped by a mount. Bounded here; `bench/races.sh` runs
//! them longer (`FSBENCH_STRESS_ROUNDS` multiplies every round count).

use crate::util::{command, entries, temp_dir};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The round counts below, times `FSBENCH_STRESS_ROUNDS` (1 when unset).
fn rounds(n: usize) -> usize {
    let k = std::env::var("FSBENCH_STRESS_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1);
    n * k.max(1)
}

/// A small deterministic generator (xorshift), so that a failing round can be replayed.
struct Moments(u64);

impl Moments {
    fn next_ms(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }
}

fn signal(child: &Child, sig: rustix::process::Signal) {
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

/// Waits for `child` (at most a minute); its exit code, or -signal when a signal ended it
/// (before fsbench had installed its handlers).
fn wait_code(child: &mut Child) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(st) = child.try_wait().expect("wait") {
            return st.code().unwrap_or_else(|| -st.signal().unwrap_or(0));
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("a run did not end within a minute of its signals");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// One run interrupted by `first` then `second` at moments drawn from `m`: its JSON must end
/// with a final status and its scratch must be gone. Returns a description of what went wrong.
fn interrupted_round(
    m: &mut Moments,
    first: rustix::process::Signal,
    second: rustix::process::Signal,
) -> Option<String> {
    let target = temp_dir();
    let out = temp_dir();
    let json = out.path().join("r.json");
    let mut child = command()
        .args([
            "run",
            "-w",
            "rand-read:size=4m",
            "-w",
            "walk",
            "--runs",
            "3",
        ])
        .args(["--no-store", "-q", "--target"])
        .arg(target.path())
        .arg("--json")
        .arg(&json)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn fsbench");
    // Anywhere from start-up through preparation, samples, cleanup and the final write.
    let (a, b) = (m.next_ms(1500), m.next_ms(60));
    std::thread::sleep(Duration::from_millis(a));
    signal(&child, first);
    std::thread::sleep(Duration::from_millis(b));
    signal(&child, second);
    let code = wait_code(&mut child);
    let mut err = String::new();
    let _ = std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err);
    let what = format!("{first:?} at {a} ms, {second:?} {b} ms later: exit {code} ({err:?})");
    if code < 0 {
        // Killed before fsbench's main installed its handlers (a loaded machine can take that
        // long to start a process): it began nothing, so it must have left nothing.
        let left = entries(target.path());
        return match json.exists() || !left.is_empty() {
            true => Some(format!("{what}: killed before start-up, yet left {left:?}")),
            false => None,
        };
    }
    let doc: serde_json::Value = match std::fs::read(&json) {
        Ok(bytes) => match serde_json::from_slice(&bytes) {
            Ok(v) => v,
            Err(e) => return Some(format!("{what}: the JSON is not valid: {e}")),
        },
        Err(e) => return Some(format!("{what}: no JSON: {e}")),
    };
    let status = doc["run"]["status"].as_str().unwrap_or("").to_string();
    let final_status = match code {
        130 => status == "interrupted",
        0 => status == "ok",
        _ => false,
    };
    if !final_status {
        return Some(format!("{what}: the JSON says status {status:?}"));
    }
    let left = entries(target.path());
    if !left.is_empty() {
        return Some(format!("{what}: left in the target: {left:?}"));
    }
    None
}

/// Runs `count` rounds over 2 threads; every failure, listed.
fn interrupted_rounds(
    count: usize,
    first: rustix::process::Signal,
    second: rustix::process::Signal,
    seed: u64,
) {
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2u64)
            .map(|w| {
                s.spawn(move || {
                    crate::util::share_the_machine();
                    let mut m = Moments(seed + w * 7919);
                    (0..count.div_ceil(2))
                        .filter_map(|_| interrupted_round(&mut m, first, second))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("round thread"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// Fifty rounds of two SIGINTs, as two tests of 25 with seeds of their own (they run in
// parallel under nextest, each inside the time budget).
#[test]
fn two_sigints_at_random_moments_always_leave_a_final_json_and_no_scratch() {
    use rustix::process::Signal;
    interrupted_rounds(rounds(25), Signal::INT, Signal::INT, 0x9e37_79b9);
}

#[test]
fn two_sigints_at_other_random_moments_always_leave_a_final_json_and_no_scratch() {
    use rustix::process::Signal;
    interrupted_rounds(rounds(25), Signal::INT, Signal::INT, 0x2545_f491);
}

#[test]
fn sigterm_then_sigint_leave_a_final_json_and_no_scratch() {
    use rustix::process::Signal;
    interrupted_rounds(rounds(20), Signal::TERM, Signal::INT, 0x85eb_ca6b);
}

#[test]
fn two_sighups_leave_a_final_json_and_no_scratch() {
    use rustix::process::Signal;
    interrupted_rounds(rounds(20), Signal::HUP, Signal::HUP, 0xc2b2_ae35);
}

/// Samples stored per run id in the database at `db`.
fn samples_per_run(db: &Path) -> std::collections::BTreeMap<String, i64> {
    let c = rusqlite::Connection::open(db).expect("open db");
    let mut q = c
        .prepare(
            "SELECT runs.id, count(samples.seq) FROM runs LEFT JOIN cells ON cells.run_id = runs.id
             LEFT JOIN samples ON samples.cell_id = cells.id GROUP BY runs.id",
        )
        .expect("query");
    q.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("rows")
}

/// The column names of `table`, in order.
fn columns(c: &rusqlite::Connection, table: &str) -> Vec<String> {
    c.prepare(&format!("PRAGMA table_info({table})"))
        .unwrap()
        .query_map([], |r| r.get(1))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// `table`'s columns as a SELECT list, `swap`'s columns replaced by their values.
fn select_list(c: &rusqlite::Connection, table: &str, swap: &[(&str, String)]) -> String {
    columns(c, table)
        .iter()
        .map(|col| match swap.iter().find(|(name, _)| name == col) {
            Some((_, value)) => value.clone(),
            None => col.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A database of 1,000 runs: `older` (a store fixture of an older schema, which opening then
/// migrates) or one real run at the current schema, copied until there are 1,000.
fn database_of_1000_runs(dir: &Path, older: Option<&str>) -> std::path::PathBuf {
    let db = dir.join(format!("big-{}.db", older.unwrap_or("current")));
    match older {
        Some(name) => {
            let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("crates/store/tests/fixtures")
                .join(name);
            std::fs::copy(fixture, &db).expect("copy the fixture");
        }
        None => {
            let target = temp_dir();
            let st = command()
                .args([
                    // A small tree: the rows are what count (the default tree's 25,000 files
                    // took 11 s to make here, for the same rows).
                    "run",
                    "-w",
                    "null",
                    "-w",
                    "walk:profile=small",
                    "--runs",
                    "3",
                    "-q",
                    "--target",
                ])
                .arg(target.path())
                .arg("--db")
                .arg(&db)
                .stdout(Stdio::null())
                .status()
                .expect("seed run");
            assert!(st.success());
        }
    }
    let mut c = rusqlite::Connection::open(&db).expect("open");
    let tx = c.transaction().expect("tx");
    let id: String = tx
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .expect("the seed run");
    let cells: Vec<i64> = tx
        .prepare("SELECT id FROM cells WHERE run_id = ?1")
        .unwrap()
        .query_map([&id], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let cell_columns: Vec<String> = columns(&tx, "cells")
        .into_iter()
        .filter(|c| c != "id")
        .collect();
    for k in 0..999 {
        let new = format!("'{id}-{k}'");
        let runs = select_list(&tx, "runs", &[("id", new.clone())]);
        let targets = select_list(&tx, "targets", &[("run_id", new.clone())]);
        tx.execute_batch(&format!(
            "INSERT INTO runs SELECT {runs} FROM runs WHERE id = '{id}';
             INSERT INTO targets SELECT {targets} FROM targets WHERE run_id = '{id}';"
        ))
        .expect("copy run");
        for cell in &cells {
            let list = cell_columns.join(", ");
            let values = list.replacen("run_id", &new, 1);
            tx.execute_batch(&format!(
                "INSERT INTO cells ({list}) SELECT {values} FROM cells WHERE id = {cell};"
            ))
            .expect("copy cell");
            let copy = tx.last_insert_rowid();
            let samples = select_list(&tx, "samples", &[("cell_id", copy.to_string())]);
            tx.execute_batch(&format!(
                "INSERT INTO samples SELECT {samples} FROM samples WHERE cell_id = {cell};"
            ))
            .expect("copy samples");
        }
    }
    tx.commit().expect("commit");
    db
}

/// `pairs` pairs of runs started together on a copy of `seed` (or a fresh database): both runs
/// of every pair end 0 with all their samples stored.
fn concurrent_pairs(pairs: usize, seed: Option<&Path>) {
    let dir = temp_dir();
    let mut failures = Vec::new();
    for round in 0..pairs {
        let db = dir.path().join(format!("pair{round}.db"));
        let before = match seed {
            Some(s) => {
                std::fs::copy(s, &db).expect("copy the seed database");
                1000
            }
            None => 0,
        };
        let targets = [temp_dir(), temp_dir()];
        let mut children: Vec<Child> = targets
            .iter()
            .enumerate()
            .map(|(i, t)| {
                if i == 1 {
                    // Sometimes at the same moment, sometimes while the first opens or migrates.
                    std::thread::sleep(Duration::from_millis((round as u64 * 37) % 250));
                }
                command()
                    .args([
                        "run", "-w", "null", "--runs", "40", "--cache", "warm", "-q", "--target",
                    ])
                    .arg(t.path())
                    .arg("--db")
                    .arg(&db)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        for c in &mut children {
            let code = wait_code(c);
            if code != 0 {
                let mut err = String::new();
                let _ = std::io::Read::read_to_string(c.stderr.as_mut().unwrap(), &mut err);
                failures.push(format!("pair {round}: exit {code}: {err}"));
            }
        }
        let counts = samples_per_run(&db);
        let new: Vec<i64> = counts
            .iter()
            .filter(|(id, _)| id.matches('-').count() == 1)
            .map(|(_, n)| *n)
            .collect();
        let fresh = counts.len() - before;
        if fresh != 2 || new.iter().filter(|&&n| n == 40).count() < 2 {
            failures.push(format!(
                "pair {round}: {fresh} new runs stored, samples {new:?}"
            ));
        }
        let _ = std::fs::remove_file(&db);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn two_runs_started_together_on_a_fresh_database_both_store_every_sample() {
    concurrent_pairs(rounds(20), None);
}

#[test]
fn two_runs_started_together_on_a_database_of_1000_runs_both_store_every_sample() {
    let dir = temp_dir();
    let current = database_of_1000_runs(dir.path(), None);
    concurrent_pairs(rounds(10), Some(&current));
}

#[test]
fn two_runs_started_together_on_an_older_database_of_1000_runs_both_store_every_sample() {
    // Opening it migrates it: the longest a run holds the database before its first sample.
    let dir = temp_dir();
    let older = database_of_1000_runs(dir.path(), Some("v4.db"));
    concurrent_pairs(rounds(10), Some(&older));
}

/// Unmounts `path` (lazily) when dropped.
struct Mounted(std::path::PathBuf);

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root (a bind mount)")]
fn clean_removes_or_names_a_scratch_whose_guard_a_mount_stopped() {
    let elsewhere = temp_dir();
    std::fs::write(elsewhere.path().join("keep"), b"precious").unwrap();
    for round in 0..rounds(20) {
        let target = temp_dir();
        let (mut child, workdir) = crate::safety::start_long_run_with(target.path(), &[]);
        let mnt = workdir.join("mnt");
        std::fs::create_dir(&mnt).unwrap();
        let st = std::process::Command::new("mount")
            .arg("--bind")
            .arg(elsewhere.path())
            .arg(&mnt)
            .status()
            .unwrap();
        assert!(st.success(), "mount --bind");
        let mount = Mounted(mnt.clone());
        child.kill().unwrap();
        child.wait().unwrap();
        // The guard tries, and stops at the mount: what it leaves must still be judged.
        let deadline = Instant::now() + Duration::from_secs(20);
        let scratch = workdir.parent().unwrap().to_path_buf();
        let guard = format!("__scratch-guard\0{}", child.id());
        while !crate::util::processes_mentioning(&guard).is_empty() {
            assert!(Instant::now() < deadline, "the guard did not end");
            std::thread::sleep(Duration::from_millis(20));
        }
        if round % 2 == 1 {
            // With the mount still there: named, with the reason, and a non-zero exit.
            let out = command().arg("clean").arg(target.path()).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(3), "round {round}: {err}");
            assert!(
                err.contains("left ") && err.contains("is a mount point"),
                "{err}"
            );
        }
        drop(mount);
        let out = command().arg("clean").arg(target.path()).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "round {round}: {text}{err}");
        assert!(text.contains("removed "), "round {round}: {text}");
        assert!(
            !scratch.exists(),
            "round {round}: {} left",
            scratch.display()
        );
        assert_eq!(
            std::fs::read(elsewhere.path().join("keep")).unwrap(),
            b"precious"
        );
    }
}
