//! A replay's time by call kind (issue 58): each sample's kinds and slowest calls in the JSON,
//! the store and the tables, and between two cells of one trace the kinds that make the
//! difference.

use crate::util::{fsbench, temp_dir};
use fsbench_trace::model::{Call, Entry, FileKind, Op, Target, Thread, Trace};
use serde_json::Value;
use std::path::Path;

const STATS: u64 = 1_000;
const READS: u64 = 10;
const MIB: u64 = 1 << 20;

fn call(start_ns: u64, op: Op, result: i64) -> Call {
    Call {
        thread: 0,
        start_ns,
        dur_ns: 1000,
        op,
        result,
        outside: false,
        before: None,
        during: None,
        hidden: 0,
    }
}

/// A program whose calls are known: 1,000 lstat of `small`, one open of `big` (10 MiB), 10
/// reads of 1 MiB from it, its close.
pub(crate) fn known_trace() -> Trace {
    let entry = |path, kind, size| Entry {
        path,
        kind,
        size,
        mode: 0o644,
        target: None,
    };
    let mut calls: Vec<Call> = (0..STATS)
        .map(|i| {
            let stat = Op::Stat {
                target: Target::Path(0),
                nofollow: true,
            };
            call(i * 1000, stat, 0)
        })
        .collect();
    let open = calls.len() as u32;
    let flags = 0;
    calls.push(call(
        2_000_000,
        Op::Open {
            path: 1,
            flags,
            mode: 0,
        },
        0,
    ));
    for i in 0..READS {
        let read = Op::Read {
            file: open,
            offset: None,
            size: MIB,
        };
        calls.push(call(2_100_000 + i * 100_000, read, MIB as i64));
    }
    calls.push(call(
        4_000_000,
        Op::Close {
            file: open,
            last: true,
        },
        0,
    ));
    Trace {
        root: "/r".into(),
        threads: vec![Thread {
            tid: 1,
            pid: 1,
            begun_ns: 0,
        }],
        paths: vec![b"small".to_vec(), b"big".to_vec()],
        start: vec![
            entry(0, FileKind::File, 100),
            entry(1, FileKind::File, READS * MIB),
        ],
        calls,
        ..Trace::default()
    }
}

fn write_trace(d: &Path) -> std::path::PathBuf {
    let p = d.join("known.fsbtrace");
    std::fs::write(&p, fsbench_trace::encode(&known_trace())).unwrap();
    p
}

/// The kinds of one sample's breakdown, by name.
fn kind<'a>(sample: &'a Value, name: &str) -> &'a Value {
    sample["calls"]["kinds"]
        .as_array()
        .unwrap_or_else(|| panic!("no breakdown in {sample}"))
        .iter()
        .find(|k| k["kind"] == name)
        .unwrap_or_else(|| panic!("no {name} in {sample}"))
}

#[test]
fn a_known_program_gives_its_counts_and_a_breakdown_that_sums_to_its_call_time() {
    let d = temp_dir();
    let trace = write_trace(d.path());
    let target = d.path().join("t");
    std::fs::create_dir(&target).unwrap();
    let db = d.path().join("r.db");
    let md = d.path().join("r.md");
    let csv = d.path().join("r.csv");
    let out = fsbench()
        .args(["run", "-q", "--cache", "warm", "--runs", "2", "--db"])
        .arg(&db)
        .arg("-w")
        .arg(format!("replay:trace={}", trace.display()))
        .arg("-t")
        .arg(&target)
        .arg("--json")
        .arg(d.path().join("r.json"))
        .arg("--export-markdown")
        .arg(&md)
        .arg("--export-csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("r.json")).unwrap()).unwrap();
    let r = &v["results"][0];
    for s in r["samples"].as_array().unwrap() {
        assert_eq!(kind(s, "lstat")["count"], STATS);
        assert_eq!(kind(s, "read")["count"], READS);
        assert_eq!(kind(s, "open")["count"], 1);
        assert_eq!(kind(s, "close")["count"], 1);
        assert_eq!(kind(s, "lstat")["errors"], 0);
        // The kinds sum to the calls' own time: the latencies' count times their mean.
        let kinds = s["calls"]["kinds"].as_array().unwrap();
        let sum: f64 = kinds.iter().map(|k| k["total_ns"].as_f64().unwrap()).sum();
        let lat = &s["latency"];
        assert_eq!(lat["count"], STATS + READS + 2);
        let timed = lat["count"].as_f64().unwrap() * lat["mean_ns"].as_f64().unwrap();
        assert!(
            (sum / timed - 1.0).abs() <= 0.02,
            "kinds sum to {sum} ns, the latencies to {timed} ns"
        );
        // The slowest calls: ten, slowest first, each with its path.
        let slow = s["calls"]["slowest"].as_array().unwrap();
        assert_eq!(slow.len(), 10, "{s}");
        let ns: Vec<u64> = slow.iter().map(|c| c["ns"].as_u64().unwrap()).collect();
        assert!(ns.windows(2).all(|w| w[0] >= w[1]), "{ns:?}");
        for c in slow {
            let path = c["path"].as_str().unwrap();
            assert!(path == "small" || path == "big", "{c}");
        }
    }
    // The store keeps each sample's breakdown: `show` prints the same table from it.
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(md.contains("Time by call"), "{md}");
    assert!(md.contains("| lstat | 1000 |"), "{md}");
    let id = v["run"]["id"].as_str().unwrap();
    let shown = fsbench()
        .args(["show", "--db"])
        .arg(&db)
        .arg(id)
        .output()
        .unwrap();
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains("Time by call"), "{shown}");
    let stored_json = d.path().join("stored.json");
    let exported = fsbench()
        .args(["show", "--db"])
        .arg(&db)
        .arg(id)
        .arg("--export-json")
        .arg(&stored_json)
        .output()
        .unwrap();
    assert!(exported.status.success());
    let stored: Value = serde_json::from_slice(&std::fs::read(&stored_json).unwrap()).unwrap();
    assert_eq!(stored["results"][0]["samples"], r["samples"]);
    // The CSV: three columns a kind.
    let csv = std::fs::read_to_string(&csv).unwrap();
    let head = csv.lines().next().unwrap();
    for col in ["call_lstat_count", "call_lstat_ns", "call_read_errors"] {
        assert!(head.split(',').any(|c| c == col), "{head}");
    }
}

#[test]
fn calls_off_times_no_call_and_keeps_the_count() {
    let d = temp_dir();
    let trace = write_trace(d.path());
    let r = crate::replay::replay(&trace, ",calls=off", "1");
    let s = &r["samples"][0];
    assert!(s.get("calls").is_none(), "{s}");
    assert_eq!(s["ops"], STATS + READS + 2);
    assert_eq!(s["bytes"], READS * MIB);
}

/// A program of a thousand lstats and 30 fsync'd 64 KiB writes: on tmpfs an fsync does
/// nothing, on ext4 it waits for the journal's commit, while an lstat of a cached inode costs
/// about the same on both.
fn fsync_trace() -> Trace {
    let mut t = known_trace();
    t.calls.truncate(STATS as usize);
    let open = t.calls.len() as u32;
    let flags = libc::O_WRONLY as u32;
    t.calls.push(call(
        2_000_000,
        Op::Open {
            path: 1,
            flags,
            mode: 0,
        },
        0,
    ));
    for i in 0..FSYNCS {
        let write = Op::Write {
            file: open,
            offset: None,
            size: 64 << 10,
        };
        t.calls.push(call(2_100_000 + i * 100_000, write, 64 << 10));
        let sync = Op::Sync {
            file: open,
            data_only: false,
        };
        t.calls.push(call(2_150_000 + i * 100_000, sync, 0));
    }
    t.calls.push(call(
        9_000_000,
        Op::Close {
            file: open,
            last: true,
        },
        0,
    ));
    t
}

const FSYNCS: u64 = 30;

/// Two targets where one is slower for one kind of call only (tmpfs and lab ext4, warm): the
/// difference is put on `fsync`, and the profile gives its reason (the journal, the device).
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn a_target_slower_for_one_kind_of_call_has_the_difference_put_on_that_kind() {
    let d = temp_dir();
    let trace = d.path().join("fsync.fsbtrace");
    std::fs::write(&trace, fsbench_trace::encode(&fsync_trace())).unwrap();
    let md = d.path().join("r.md");
    let v = crate::lab::lab_run(
        "tmpfs,ext4",
        &[
            "--cache",
            "warm",
            "--runs",
            "3",
            "-w",
            &format!("replay:trace={},outside=skip", trace.display()),
            "--export-markdown",
            md.to_str().unwrap(),
            "--profile",
        ],
    );
    let per_fsync = |target: &str| -> f64 {
        let r = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["target"] == target)
            .unwrap_or_else(|| panic!("no {target} cell in {v}"));
        let s = &r["samples"][0];
        kind(s, "fsync")["total_ns"].as_f64().unwrap() / FSYNCS as f64
    };
    assert!(
        per_fsync("ext4") > 10.0 * per_fsync("tmpfs"),
        "an fsync took {} ns on ext4, {} ns on tmpfs",
        per_fsync("ext4"),
        per_fsync("tmpfs")
    );
    let md = std::fs::read_to_string(&md).unwrap();
    let table = md
        .split("### Why ext4/replay/warm differs from tmpfs/replay/warm, by call")
        .nth(1)
        .unwrap_or_else(|| panic!("no attribution in {md}"));
    // The first row (the largest part) is fsync's, most of the difference.
    let first = table
        .lines()
        .find(|l| l.starts_with("| ") && !l.starts_with("| call"))
        .unwrap_or_else(|| panic!("no rows in {table}"));
    assert!(first.starts_with("| fsync |"), "{table}");
    let cells: Vec<&str> = first.split('|').map(str::trim).collect();
    let share: f64 = cells[8].trim_end_matches('%').parse().unwrap();
    assert!(share > 50.0, "{table}");
    // The kernel's reason (--profile): ext4's fsyncs waited off the CPU, for the journal's
    // commit or the device.
    assert!(
        first.contains("journal") || first.contains("device I/O"),
        "{first}"
    );
}

/// Two stored runs of one trace: `compare` attributes their difference by call; two runs of
/// different traces under one file name are said not comparable, with no attribution.
#[test]
fn compare_attributes_two_runs_of_one_trace_and_refuses_two_traces_under_one_name() {
    let d = temp_dir();
    let trace = write_trace(d.path());
    let db = d.path().join("r.db");
    let run = |d: &Path| -> String {
        let target = d.join("t");
        std::fs::create_dir_all(&target).unwrap();
        let json = d.join("r.json");
        let out = fsbench()
            .args(["run", "-q", "--cache", "warm", "--runs", "2", "--db"])
            .arg(&db)
            .arg("-w")
            .arg(format!("replay:trace={}", trace.display()))
            .arg("-t")
            .arg(format!("t={}", target.display()))
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
        v["run"]["id"].as_str().unwrap().to_string()
    };
    let compare = |a: &str, b: &str| -> String {
        let out = fsbench()
            .args(["compare", "--db"])
            .arg(&db)
            .args([a, b])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let first = run(d.path());
    let second = run(d.path());
    let same = compare(&first, &second);
    assert!(same.contains("by call"), "{same}");
    assert!(same.contains("| lstat"), "{same}");
    // The same file name, another program: one more stat.
    let mut other = known_trace();
    let stat = other.calls[0].clone();
    other.calls.push(stat);
    std::fs::write(&trace, fsbench_trace::encode(&other)).unwrap();
    let third = run(d.path());
    let differ = compare(&first, &third);
    assert!(differ.contains("replays of different traces"), "{differ}");
    assert!(!differ.contains("by call"), "{differ}");
}
