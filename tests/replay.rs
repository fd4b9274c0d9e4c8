//! `-w replay:trace=FILE`: a recorded program's calls made again on any target, its start state
//! rebuilt in the scratch; divergence counted; bad traces refused before any work.

use crate::util::{fsbench, temp_dir};
use fsbench_trace::model::{Call, Entry, FileKind, Op, Target, Thread, Trace};
use serde_json::Value;
use std::path::Path;

fn call(thread: u32, start_ns: u64, op: Op, result: i64) -> Call {
    Call {
        thread,
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

/// Runs `replay:trace=TRACE,EXTRA` on a fresh directory, warm, `runs` samples; the JSON's one
/// result.
pub(crate) fn replay(trace: &Path, extra: &str, runs: &str) -> Value {
    let d = temp_dir();
    let json = d.path().join("r.json");
    let w = format!("replay:trace={}{extra}", trace.display());
    let out = fsbench()
        .args([
            "run",
            "--no-store",
            "-q",
            "--cache",
            "warm",
            "--runs",
            runs,
            "-w",
            &w,
            "-t",
        ])
        .arg(d.path())
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
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        1,
        "only the JSON is left: the scratch is gone"
    );
    v["results"][0].clone()
}

fn write(d: &Path, name: &str, t: &Trace) -> std::path::PathBuf {
    let p = d.join(name);
    std::fs::write(&p, fsbench_trace::encode(t)).unwrap();
    p
}

fn open(path: u32, flags: i32) -> Op {
    let (flags, mode) = (flags as u32, 0o644);
    Op::Open { path, flags, mode }
}

fn read(file: u32, offset: Option<u64>, size: u64) -> Op {
    Op::Read { file, offset, size }
}

fn close(file: u32) -> Op {
    Op::Close { file, last: true }
}

fn entry(path: u32, kind: FileKind, size: u64) -> Entry {
    let (mode, target) = (0o755, None);
    Entry {
        path,
        kind,
        size,
        mode,
        target,
    }
}

/// Two threads: thread 1 creates `d/f` and writes 5 bytes; thread 0 then reads them back, stats
/// the start state's `a` (4 KiB) and reads it whole.
fn two_threads() -> Trace {
    let write = Op::Write {
        file: 0,
        offset: None,
        size: 5,
    };
    let stat = Op::Stat {
        target: Target::Path(2),
        nofollow: true,
    };
    Trace {
        root: "/r".into(),
        threads: vec![
            Thread {
                tid: 1,
                pid: 1,
                begun_ns: 0,
            },
            Thread {
                tid: 2,
                pid: 1,
                begun_ns: 0,
            },
        ],
        paths: vec![b"d".to_vec(), b"d/f".to_vec(), b"a".to_vec()],
        start: vec![entry(0, FileKind::Dir, 0), entry(2, FileKind::File, 4096)],
        calls: vec![
            call(1, 0, open(1, libc::O_CREAT | libc::O_WRONLY), 0),
            call(1, 2000, write, 5),
            call(1, 4000, close(0), 0),
            call(0, 6000, open(1, 0), 0),
            call(0, 8000, read(3, Some(0), 100), 5),
            call(0, 9000, stat, 0),
            call(0, 9500, open(2, 0), 0),
            call(0, 9800, read(6, None, 65536), 4096),
            call(0, 9900, close(3), 0),
        ],
        ..Trace::default()
    }
}

#[test]
fn a_replay_rebuilds_the_start_state_and_keeps_one_files_calls_in_order_across_threads() {
    let d = temp_dir();
    let trace = write(d.path(), "t.fsbtrace", &two_threads());
    // The read of d/f (thread 0) waits for its creation and write (thread 1); a missing file or
    // a short read would be a divergence. Many samples: threads start in any order.
    for pace in ["", ",pace=trace,speed=4"] {
        let r = replay(&trace, pace, "8");
        for s in r["samples"].as_array().unwrap() {
            assert_eq!(s["metrics"]["replay_calls"], 9.0, "{s}");
            assert_eq!(s["metrics"]["replay_threads"], 2.0, "{s}");
            assert_eq!(s["metrics"]["replay_diverged"], 0.0, "{s}");
            assert_eq!(s["ops"], 9, "{s}");
            // 5 bytes written, 5 + 4096 read: a's exact size came back.
            assert_eq!(s["bytes"], 5 + 5 + 4096, "{s}");
        }
        let warnings = r["warnings"].to_string();
        assert!(!warnings.contains("diverged"), "{warnings}");
    }
}

#[test]
fn a_file_missing_on_the_target_is_a_divergence_the_cell_names() {
    let d = temp_dir();
    let mut t = two_threads();
    // The recording found `a`; this start state does not have it.
    t.start.pop();
    let trace = write(d.path(), "t.fsbtrace", &t);
    let r = replay(&trace, ",order=strict", "2");
    let s = &r["samples"][0];
    // The stat and the open of `a` fail with ENOENT; the read and close of it find no file.
    assert_eq!(s["metrics"]["replay_diverged"], 3.0, "{s}");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains(
            "the replay diverged from the recording (up to 33.3% of a sample's calls: open "
        ),
        "{warnings}"
    );
    assert!(warnings.contains("ENOENT where it succeeded"), "{warnings}");
}

/// Every file under `dir` (recursively, symlinks not followed): its path, size, mtime, ctime
/// and content; what a replay must leave as it was.
fn snapshot(dir: &Path) -> Vec<(std::path::PathBuf, u64, i64, i64, Vec<u8>)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = std::fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                todo.push(p.clone());
            }
            let content = if m.is_file() {
                std::fs::read(&p).unwrap()
            } else {
                Vec::new()
            };
            let mtime = m.mtime() * 1_000_000_000 + m.mtime_nsec();
            let ctime = m.ctime() * 1_000_000_000 + m.ctime_nsec();
            out.push((p, m.len(), mtime, ctime, content));
        }
    }
    out.sort();
    out
}

#[test]
fn the_programs_reads_outside_its_root_are_replayed_read_only_while_the_files_are_as_recorded() {
    // `cat` loads its libraries and reads a file outside its root: the replay makes those
    // read-only calls again (a cold replay pays the program's start-up), writes nothing outside
    // its scratch, and once the outside file has changed leaves its calls out and names it.
    let d = temp_dir();
    let root = d.path().join("root");
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(root.join("d/a"), b"inside").unwrap();
    let conf = d.path().join("conf");
    std::fs::write(&conf, b"0123456789").unwrap();
    let (trace, _) = crate::record::record(&root, "0", &["cat", conf.to_str().unwrap(), "d/a"]);
    let t = fsbench_trace::decode(&std::fs::read(&trace).unwrap()).unwrap();
    let inside = t.calls.iter().filter(|c| !c.outside).count() as f64;
    let on_conf = t
        .calls
        .iter()
        .filter(|c| {
            fsbench_trace::outside::path_of(&t, c)
                .is_some_and(|p| t.paths[p as usize] == conf.as_os_str().as_encoded_bytes())
        })
        .count() as f64;
    assert!(on_conf >= 3.0, "open, read(s), close of conf: {on_conf}");
    let before = snapshot(d.path());
    let r = replay(&trace, "", "2");
    assert_eq!(snapshot(d.path()), before, "nothing the trace read changed");
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("outside its root the program made")
            && warnings.contains("so a cold replay loads them as the program did"),
        "{warnings}"
    );
    assert!(!warnings.contains("differ on this machine"), "{warnings}");
    let calls = |r: &Value| r["samples"][0]["metrics"]["replay_calls"].as_f64().unwrap();
    let all = calls(&r);
    assert!(
        all >= inside + on_conf,
        "the outside reads are made: {all} calls, {inside} inside"
    );
    for s in r["samples"].as_array().unwrap() {
        assert_eq!(s["metrics"]["replay_diverged"], 0.0, "{s}");
    }
    std::fs::write(&conf, b"01234").unwrap();
    let before = snapshot(d.path());
    let r = replay(&trace, "", "1");
    assert_eq!(snapshot(d.path()), before);
    let warnings = r["warnings"].to_string();
    let named = format!("{} (10 bytes then, 5 now)", conf.display());
    assert!(
        warnings.contains("1 of those paths differ on this machine")
            && warnings.contains("are not read")
            && warnings.contains(&named),
        "{warnings}"
    );
    assert_eq!(
        calls(&r),
        all - on_conf,
        "the changed file's calls are left out"
    );
    assert_eq!(std::fs::read(&conf).unwrap(), b"01234", "never written");
}

#[test]
fn bad_traces_are_refused_before_any_work_with_exit_2() {
    let d = temp_dir();
    let random = d.path().join("random");
    std::fs::write(&random, [7u8; 100]).unwrap();
    let mut escaping = two_threads();
    escaping.paths[2] = b"../a".to_vec();
    let escaping = write(d.path(), "escaping", &escaping);
    for (trace, says) in [
        (random.as_path(), "is not an fsbench trace"),
        (escaping.as_path(), "climbs out of the root"),
        (d.path().join("none").as_path(), "cannot use"),
    ] {
        let target = d.path().join("target");
        std::fs::create_dir_all(&target).unwrap();
        let out = fsbench()
            .args(["run", "--no-store", "-w"])
            .arg(format!("replay:trace={}", trace.display()))
            .arg("-t")
            .arg(&target)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err}");
        assert_eq!(
            std::fs::read_dir(&target).unwrap().count(),
            0,
            "no work began"
        );
    }
}

#[test]
fn a_suite_names_its_trace_beside_the_suite_file() {
    let d = temp_dir();
    let study = d.path().join("study");
    std::fs::create_dir(&study).unwrap();
    write(&study, "two.fsbtrace", &two_threads());
    let suite = study.join("suite.toml");
    std::fs::write(
        &suite,
        "name = \"mine\"\ncache = \"warm\"\nruns = 1\n[[workload]]\nname = \"replay\"\ntrace = \"two.fsbtrace\"\n",
    )
    .unwrap();
    let target = d.path().join("target");
    std::fs::create_dir(&target).unwrap();
    // Run from elsewhere: the trace is found beside the suite, not in the current directory.
    let out = fsbench()
        .current_dir(d.path())
        .args([
            "run",
            "--no-store",
            "-q",
            "--suite",
            "study/suite.toml",
            "-t",
        ])
        .arg(&target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A trace that is not there: one line naming the suite file's line, exit 2.
    std::fs::write(
        &suite,
        "name = \"mine\"\n[[workload]]\nname = \"replay\"\ntrace = \"gone.fsbtrace\"\n",
    )
    .unwrap();
    let out = fsbench()
        .current_dir(d.path())
        .args(["run", "--no-store", "--suite", "study/suite.toml", "-t"])
        .arg(&target)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("suite.toml:4"), "{err}");
    assert!(err.contains("gone.fsbtrace"), "{err}");
}

/// A small git repository: 200 files in 20 directories, committed.
fn repo(dir: &Path) {
    for i in 0..20 {
        let sub = dir.join(format!("d{i}"));
        std::fs::create_dir_all(&sub).unwrap();
        for j in 0..10 {
            std::fs::write(sub.join(format!("f{j}.c")), format!("int x{i}_{j};\n")).unwrap();
        }
    }
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "tree"]);
    git(&["status"]);
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_ext4,
        fsbench_tool_bindfs,
        fsbench_tool_git
    )),
    ignore = "needs root, mkfs.ext4, bindfs and git"
)]
fn a_git_status_trace_replays_on_lab_ext4_and_bindfs() {
    let d = temp_dir();
    let root = d.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    repo(&root);
    let trace = d.path().join("status.fsbtrace");
    let out = fsbench()
        .current_dir(&root)
        .args(["record", "--untraced", "0", "-o"])
        .arg(&trace)
        .args(["--", "git", "status"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = crate::lab::lab_run(
        "ext4,bindfs",
        &[
            "-w",
            &format!("replay:trace={}", trace.display()),
            "--cache",
            "cold",
        ],
    );
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "{v}");
    for r in results {
        let s = &r["samples"][0];
        // git status lstat's every tracked file and reads the index: hundreds of calls.
        assert!(
            s["metrics"]["replay_calls"].as_f64().unwrap() > 200.0,
            "{s}"
        );
        assert!(
            s["metrics"]["replay_diverged_pct"].as_f64().unwrap() <= 1.0,
            "{}",
            r["warnings"]
        );
        assert_eq!(r["cache"]["state"], "cold");
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn a_cold_replay_reads_its_trees_metadata_from_the_device_as_the_program_does() {
    // `ls -lR` over 100 directories of 5 files, recorded once, then run on lab ext4 cold beside
    // its replay (its calls under the root only): cold, each directory's block is read from the
    // device, by the program and by the replay alike (fsbench once opened every file of the
    // replay's tree to measure its residency after dropping the caches, which brought the
    // inodes and directories back: 11 blocks read where the program read 563).
    let d = temp_dir();
    let tree = d.path().join("tree");
    let dirs = 100;
    for i in 0..dirs {
        let dir = tree.join(format!("d{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..5 {
            std::fs::write(dir.join(format!("f{f}")), b"x").unwrap();
        }
    }
    let (trace, _) = crate::record::record(&tree, "0", &["ls", "-lR", "."]);
    let lab = crate::lab::LabDir::new();
    let prepare = format!("[ -d tree ] || cp -a {} tree", tree.display());
    let v = crate::lab::lab_run_at(
        &lab,
        "ext4",
        &[
            "--cache",
            "cold",
            "-w",
            &format!("command:run='ls -lR tree',shell=none,prepare='{prepare}'"),
            "-w",
            &format!("replay:trace={},outside=skip", trace.display()),
        ],
    );
    let ios = |workload: &str| -> f64 {
        let r = v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["workload"] == workload)
            .unwrap_or_else(|| panic!("{workload} in {v}"));
        assert_eq!(r["cache"]["state"], "cold", "{r}");
        r["samples"][0]["metrics"]["device_ios"]
            .as_f64()
            .unwrap_or(0.0)
    };
    let (program, replay) = (ios("command"), ios("replay"));
    // About one read a directory (113 here; the program's count also holds its binary's and
    // libraries' reads from the disk under the lab's image); with the tree brought back into
    // the cache, none.
    let half = f64::from(dirs) / 2.0;
    assert!(program >= half, "the program read {program} I/Os cold");
    assert!(
        replay >= half,
        "the replay read {replay} I/Os cold for {dirs} directories (the program: {program})"
    );
}
