//! Hardening (issue 10): each class of hostile or careless input, tried through the real binary.
//! Nothing outside the scratch is touched, nothing panics, bad input is refused before any work.

use crate::safety::wait_exit;
use crate::util::{entries, fsbench, temp_dir};
use predicates::prelude::*;
use std::path::Path;
use std::process::Command;

/// A bind mount that is undone when dropped, even when the test fails.
struct BindMount(std::path::PathBuf);

impl BindMount {
    fn new(src: &Path, dst: &Path) -> Self {
        let ok = Command::new("mount")
            .arg("--bind")
            .arg(src)
            .arg(dst)
            .status()
            .unwrap();
        assert!(ok.success(), "mount --bind failed");
        Self(dst.to_path_buf())
    }
}

impl Drop for BindMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A scratch directory of a run that is gone (dead pid in its marker).
fn stale_scratch(target: &Path) -> std::path::PathBuf {
    let dir = target.join(".fsbench-dead");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join(".fsbench-scratch"), "pid=4294967\nstart_ticks=1\n").unwrap();
    dir
}

// Class 1: removal never enters a mount point, bind mounts of the same filesystem included.

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn clean_never_deletes_through_a_bind_mount() {
    let target = temp_dir();
    let precious = tempfile::tempdir_in(target.path().parent().unwrap()).unwrap();
    std::fs::create_dir(precious.path().join("sub")).unwrap();
    std::fs::write(precious.path().join("sub/keep"), b"precious").unwrap();
    let scratch = stale_scratch(target.path());
    std::fs::create_dir_all(scratch.join("a/mnt")).unwrap();
    let m = BindMount::new(precious.path(), &scratch.join("a/mnt"));
    fsbench()
        .arg("clean")
        .arg(target.path())
        .assert()
        .code(3)
        .stderr(predicate::str::contains("a/mnt is a mount point"));
    drop(m);
    assert_eq!(
        std::fs::read(precious.path().join("sub/keep")).unwrap(),
        b"precious"
    );
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn a_run_never_deletes_through_a_bind_mount_in_its_scratch() {
    let target = temp_dir();
    let precious = tempfile::tempdir_in(target.path().parent().unwrap()).unwrap();
    std::fs::write(precious.path().join("keep"), b"precious").unwrap();
    let out = temp_dir();
    let json = out.path().join("r.json");
    let (mut child, workdir) =
        crate::safety::start_long_run_with(target.path(), &["--json".as_ref(), json.as_os_str()]);
    std::fs::create_dir(workdir.join("mnt")).unwrap();
    let m = BindMount::new(precious.path(), &workdir.join("mnt"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    // The scratch cannot be removed while a mount sits in it: a failure that names the mount.
    assert_eq!(wait_exit(&mut child), 3);
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("mnt is a mount point"), "{err}");
    // The record is finished anyway: the JSON says the run failed, not that it is running.
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["run"]["status"], "failed", "{v}");
    drop(m);
    assert_eq!(
        std::fs::read(precious.path().join("keep")).unwrap(),
        b"precious"
    );
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn a_scratch_that_is_itself_a_mount_point_is_not_emptied() {
    let target = temp_dir();
    let precious = tempfile::tempdir_in(target.path().parent().unwrap()).unwrap();
    std::fs::write(precious.path().join("keep"), b"precious").unwrap();
    std::fs::write(precious.path().join(".fsbench-scratch"), "pid=4294967\n").unwrap();
    let scratch = target.path().join(".fsbench-dead");
    std::fs::create_dir(&scratch).unwrap();
    let m = BindMount::new(precious.path(), &scratch);
    fsbench()
        .arg("clean")
        .arg(target.path())
        .assert()
        .code(3)
        .stderr(predicate::str::contains("is a mount point"));
    drop(m);
    assert!(precious.path().join("keep").exists());
    let _ = entries(target.path());
}

// Class 2: output files never replace what is there by renaming over it.

/// `fsbench run` of a tiny null workload writing `--json out`.
fn null_run_json(out: &Path) -> assert_cmd::assert::Assert {
    let target = temp_dir();
    fsbench()
        .args([
            "run",
            "-w",
            "null:ops=1",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-q",
        ])
        .arg("--target")
        .arg(target.path())
        .arg("--json")
        .arg(out)
        .assert()
}

#[test]
fn json_to_dev_null_writes_through_and_keeps_the_device() {
    null_run_json(Path::new("/dev/null")).success();
    use std::os::unix::fs::FileTypeExt;
    assert!(
        std::fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device()
    );
}

#[test]
fn json_symlink_is_refused_before_the_run_and_left_alone() {
    let d = temp_dir();
    let real = d.path().join("real.txt");
    std::fs::write(&real, b"keep").unwrap();
    let link = d.path().join("out.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    null_run_json(&link)
        .code(2)
        .stderr(predicate::str::contains("symlink"));
    assert_eq!(std::fs::read(&real).unwrap(), b"keep");
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn json_keeps_mode_and_leaves_no_temp_file() {
    use std::os::unix::fs::PermissionsExt;
    let d = temp_dir();
    let out = d.path().join("out.json");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o600)).unwrap();
    // A symlink planted at the old predictable temp name is never written through.
    let canary = d.path().join("canary");
    std::fs::write(&canary, b"canary").unwrap();
    std::os::unix::fs::symlink(&canary, d.path().join("out.json.tmp")).unwrap();
    null_run_json(&out).success();
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["run"]["status"], "ok");
    assert_eq!(std::fs::read(&canary).unwrap(), b"canary");
    assert_eq!(entries(d.path()), ["canary", "out.json", "out.json.tmp"]);
}

#[test]
fn json_in_a_missing_directory_is_a_usage_error_before_work() {
    let target = temp_dir();
    fsbench()
        .args(["run", "-w", "null:ops=1", "--runs", "1", "-q", "--json"])
        .arg("/nonexistent-fsbench-dir/out.json")
        .arg("--target")
        .arg(target.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not exist"));
    assert!(entries(target.path()).is_empty());
}

// Class 3: a symlink planted in place of a workload's file is never written through.

#[test]
fn symlink_planted_in_place_of_a_data_file_is_not_followed() {
    let target = temp_dir();
    let canary = temp_dir();
    let victim = canary.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let mut child = crate::util::command()
        .args([
            "run",
            "-w",
            "rand-write:bs=4k,size=256k,ops=64",
            "--cache",
            "warm",
            "--runs",
            "200",
            "--warmup",
            "0",
            "-q",
        ])
        .arg("--target")
        .arg(target.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Swap the data file for a symlink to the victim as soon as it exists.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let mut planted = false;
    while std::time::Instant::now() < deadline && !planted {
        for s in entries(target.path()) {
            let dir = target.path().join(&s);
            for w in entries(&dir) {
                let f = dir.join(&w).join("rand-io.dat");
                if f.exists() && std::fs::remove_file(&f).is_ok() {
                    std::os::unix::fs::symlink(&victim, &f).unwrap();
                    planted = true;
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(planted, "data file never appeared");
    let code = wait_exit(&mut child);
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(code, 3, "the cell must fail, not write through");
    assert!(entries(target.path()).is_empty());
}

// Class 4: a closed or full stdout, and panics.

#[test]
fn closed_stdout_exits_quietly() {
    let out = crate::util::command()
        .args(["workloads"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            drop(c.stdout.take()); // the reader goes away at once, like `| true`
            c.wait_with_output()
        })
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
#[cfg_attr(not(fsbench_dev_full), ignore = "needs /dev/full")]
fn full_stdout_is_one_error_line_and_exit_3() {
    for args in [&["workloads"][..], &["ministat", "-n"][..]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = crate::util::command()
            .args(args)
            .stdin(std::fs::File::open(crate::util::fixture("ministat/inputs/a")).unwrap())
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("No space left"), "{err}");
    }
}

#[test]
fn a_panic_is_one_internal_error_line_with_exit_101() {
    fsbench()
        .arg("__internal-panic")
        .assert()
        .code(101)
        .stderr(predicate::str::contains(
            "fsbench: internal error: deliberate panic",
        ))
        .stderr(predicate::str::contains("stack backtrace").not())
        .stderr(predicate::function(|s: &str| s.lines().count() == 1));
}

// Class 5: unbounded resources from input.

#[test]
fn absurd_worker_counts_are_refused_unless_forced() {
    let target = temp_dir();
    fsbench()
        .args([
            "run",
            "-w",
            "walk:workers=100000,profile=small,scale=0.01",
            "--runs",
            "1",
        ])
        .arg("--target")
        .arg(target.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert!(entries(target.path()).is_empty());
}

#[test]
fn endless_inputs_are_refused_with_a_bound() {
    fsbench()
        .args(["ministat", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("longer than 1 MiB"));
    // A configuration file must be a regular file (standard input is read when none is given).
    fsbench()
        .args(["postmark", "/dev/zero"])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("a character device"));
    // Standard input from /dev/zero itself (assert_cmd's pipe_stdin would read it into memory).
    let out = crate::util::command()
        .arg("postmark")
        .current_dir(temp_dir().path())
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("longer than 64 KiB"));
}

// Classes 6 and 7: values that measure nothing and missing inputs are input errors (exit 2), found
// before any work.

#[test]
fn values_that_measure_nothing_are_refused_before_work() {
    let target = temp_dir();
    let fifo = target.path().join("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_bits_truncate(0o600),
        0,
    )
    .unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["-w".into(), "seek-rate:duration=0s".into()],
            "duration",
        ),
        (
            vec!["-w".into(), "rand-read:duration=0s".into()],
            "duration",
        ),
        (vec!["-w".into(), "latency:count=0".into()], "count"),
        (vec!["-w".into(), "walk:workers=0".into()], "workers"),
        (vec!["-w".into(), "walk:walks=0".into()], "walks"),
        (vec!["-w".into(), "rand-read:ops=0".into()], "ops"),
        (
            vec!["-w".into(), "seq-read:bs=1m,size=64k".into()],
            "larger than size",
        ),
        (
            vec!["-w".into(), "seq-write:size=16m,size=32m".into()],
            "twice",
        ),
        // A value is typed when it is read, before what it applies to is checked.
        (
            vec!["--max-time".into(), "abc".into()],
            "invalid --max-time 'abc'",
        ),
        (vec!["--max-time".into(), "5s".into()], "--runs auto"),
        (
            vec![
                "--runs".into(),
                "auto".into(),
                "--max-time".into(),
                "0s".into(),
            ],
            "--max-time",
        ),
        (vec!["--cold-timeout".into(), "0s".into()], "--cold-timeout"),
        (
            vec!["-w".into(), "tar-extract:archive=/nonexistent.tar".into()],
            "archive",
        ),
        (
            vec!["-w".into(), "seq-read:file=/nonexistent".into()],
            "file",
        ),
        (
            vec!["-w".into(), format!("seq-read:file={}", fifo.display())],
            "not a regular file",
        ),
        (
            vec!["-w".into(), "command:run=true,cwd=/nonexistent".into()],
            "cwd",
        ),
        (vec!["-w".into(), "walk:tree=/nonexistent".into()], "tree"),
        (
            vec!["-w".into(), "command:run=echo a,b".into()],
            "quote the command",
        ),
        (
            vec!["-w".into(), "command:run='echo a".into()],
            "unterminated quote",
        ),
    ];
    for (args, needle) in cases {
        let runs: &[&str] = if args.contains(&"--runs".to_string()) {
            &[]
        } else {
            &["--runs", "1"]
        };
        let out = fsbench()
            .args(["run", "-q"])
            .args(runs)
            .args(&args)
            .arg("--target")
            .arg(target.path())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(entries(target.path()), ["fifo"], "{args:?} wrote something");
    }
}

#[test]
fn quoted_commands_with_commas_run_as_one_command() {
    let target = temp_dir();
    let out = temp_dir();
    let marker = out.path().join("m");
    fsbench()
        .args([
            "run", "--cache", "warm", "--runs", "1", "--warmup", "0", "-q", "-w",
        ])
        .arg(format!("command:run='echo a,b > {}'", marker.display()))
        .arg("--target")
        .arg(target.path())
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "a,b\n");
}

// Class 8: no process is left behind.

/// Pids of processes whose command line contains `needle`.
fn processes_with(needle: &str) -> Vec<i32> {
    entries(Path::new("/proc"))
        .into_iter()
        .filter_map(|e| e.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(needle))
                .unwrap_or(false)
        })
        .collect()
}

fn wait_until(what: &str, mut f: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !f() {
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[test]
fn hanging_cold_cmd_is_killed_on_ctrl_c_and_json_says_interrupted() {
    let target = temp_dir();
    let d = temp_dir();
    let json = d.path().join("out.json");
    let tag = format!("fsbench-hang-{}", std::process::id());
    let mut child = crate::util::command()
        .args([
            "run",
            "-w",
            "seq-read:size=64k",
            "--cache",
            "cold",
            "--runs",
            "1",
            "-q",
        ])
        .arg("--cold-cmd")
        .arg(format!("sleep 300 # {tag}"))
        .arg("--target")
        .arg(target.path())
        .arg("--json")
        .arg(&json)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // fsbench's own argv holds the tag too: wait for another process (the shell).
    let me = child.id() as i32;
    wait_until("the cold command", || {
        processes_with(&tag).iter().any(|&p| p != me)
    });
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    assert_eq!(wait_exit(&mut child), 130);
    wait_until("the cold command to die", || {
        processes_with(&tag).is_empty()
    });
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["run"]["status"], "interrupted");
    assert!(entries(target.path()).is_empty());
}

#[test]
fn hanging_cold_cmd_times_out_with_a_clear_error() {
    let target = temp_dir();
    fsbench()
        .args([
            "run",
            "-w",
            "seq-read:size=64k",
            "--cache",
            "cold",
            "--runs",
            "1",
            "-q",
        ])
        .args(["--cold-cmd", "sleep 300", "--cold-timeout", "300ms"])
        .arg("--target")
        .arg(target.path())
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(3)
        .stderr(predicate::str::contains("--cold-timeout"));
}

#[test]
fn sigkill_of_a_procs_walk_leaves_no_worker_behind() {
    let target = temp_dir();
    let tree = temp_dir();
    // A tree large enough that workers are still walking when the parent dies.
    for i in 0..200 {
        let d = tree.path().join(format!("d{i}"));
        std::fs::create_dir(&d).unwrap();
        for j in 0..50 {
            std::fs::write(d.join(format!("f{j}")), b"").unwrap();
        }
    }
    let tree_arg = tree.path().display().to_string();
    let mut child = crate::util::command()
        .args(["run", "--cache", "warm", "--runs", "50", "-q", "-w"])
        .arg(format!(
            "walk:tree={tree_arg},workers=2,walks=20000,mode=procs"
        ))
        .arg("--target")
        .arg(target.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_until("walk workers", || {
        processes_with("__walk-worker").iter().any(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.contains(&tree_arg))
        })
    });
    child.kill().unwrap();
    let _ = child.wait();
    wait_until("workers to die", || {
        !processes_with("__walk-worker").iter().any(|&p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.contains(&tree_arg))
        })
    });
}

// Class 9: smaller truths.

#[test]
fn proc_is_not_a_target() {
    fsbench()
        .args(["run", "-t", "/proc", "-w", "null", "--runs", "1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("kernel interface"));
}

#[test]
fn control_characters_in_labels_are_escaped() {
    let target = temp_dir();
    let out = fsbench()
        .args([
            "run",
            "-w",
            "null:ops=1",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-q",
            "-t",
        ])
        .arg(format!("a\x1b[31mred={}", target.path().display()))
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\x1b'), "{text}");
    assert!(text.contains("\\u{1b}[31mred"), "{text}");
}

#[test]
fn postmark_report_to_an_unwritable_file_is_not_success() {
    let d = temp_dir();
    let cfg = d.path().join("pm.cfg");
    std::fs::write(
        &cfg,
        format!(
            "set location {}\nset number 5\nset transactions 5\nrun {}\n",
            d.path().display(),
            d.path().display()
        ),
    )
    .unwrap();
    fsbench()
        .arg("postmark")
        .arg(&cfg)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Cannot direct output"));
}

/// Arguments are bytes: a path that is not UTF-8 works everywhere a path is taken (target,
/// `--db`, `--json`, `clean DIR`), and text that is not UTF-8 (a label, a workload, a note, a
/// command) is refused with one line naming it — never a panic.
#[test]
fn arguments_that_are_not_utf8_work_as_paths_and_are_refused_as_text() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let t = temp_dir();
    let dir = t.path().join(OsStr::from_bytes(b"target-\xff"));
    std::fs::create_dir(&dir).unwrap();
    let json = t.path().join(OsStr::from_bytes(b"out-\xfe.json"));
    let db = t.path().join(OsStr::from_bytes(b"results-\xfd.db"));
    let out = fsbench()
        .args(["run", "-q", "-w", "null", "--cache", "warm", "--runs", "1"])
        .arg("-t")
        .arg(&dir)
        .arg("--json")
        .arg(&json)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(json.is_file() && db.is_file());
    assert!(
        entries(&dir).is_empty(),
        "scratch left: {:?}",
        entries(&dir)
    );
    let clean = fsbench().arg("clean").arg(&dir).output().unwrap();
    assert_eq!(clean.status.code(), Some(0));

    let bad = |b: &[u8]| OsStr::from_bytes(b).to_os_string();
    let cases: Vec<Vec<std::ffi::OsString>> = vec![
        vec![
            "run".into(),
            "-t".into(),
            bad(b"lab\xfe=/tmp"),
            "-w".into(),
            "null".into(),
        ],
        vec!["run".into(), "-w".into(), bad(b"null:ops=\xff")],
        vec![
            "run".into(),
            "-w".into(),
            "null".into(),
            "--note".into(),
            bad(b"n\xff"),
        ],
        vec![
            "run".into(),
            "-w".into(),
            "null".into(),
            "--cold-cmd".into(),
            bad(b"x\xff"),
        ],
    ];
    for args in cases {
        let out = fsbench().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("not UTF-8"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// Commands whose one output is the database, an input or another output, by any spelling,
/// with what the refusal must say.
fn colliding_outputs(
    dir: &Path,
    db: &Path,
    input: &Path,
) -> Vec<(Vec<std::ffi::OsString>, &'static str)> {
    let db_other_spelling = dir.join("link").join(".").join("results.db");
    let spec = format!("rand-read:file={},size=8k,bs=4k,ops=1", input.display());
    let os = |v: &[&dyn AsRef<std::ffi::OsStr>]| -> Vec<std::ffi::OsString> {
        v.iter().map(|a| a.as_ref().to_os_string()).collect()
    };
    vec![
        (
            os(&[&"run", &"--html", &db_other_spelling]),
            "results database",
        ),
        (os(&[&"run", &"--export-csv", &db]), "results database"),
        (
            os(&[&"show", &"last", &"--export-json", &db]),
            "results database",
        ),
        (
            os(&[&"report", &"last", &"-o", &db_other_spelling]),
            "results database",
        ),
        (os(&[&"history", &"--export-json", &db]), "results database"),
        (
            os(&[&"compare", &"last", &"last", &"--export-markdown", &db]),
            "results database",
        ),
        (
            os(&[&"run", &"-w", &spec, &"--json", &input]),
            "input file=",
        ),
        (
            os(&[
                &"run",
                &"--json",
                &dir.join("a.out"),
                &"--export-csv",
                &dir.join("link/a.out"),
            ]),
            "both name",
        ),
    ]
}

/// An output never replaces the results database, a workload's input or another output — by
/// any spelling of the path — and nothing is touched when one is refused.
#[test]
fn outputs_never_replace_the_database_an_input_or_each_other() {
    let t = temp_dir();
    let dir = t.path();
    let db = dir.join("results.db");
    let ok = fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "1", "--db",
        ])
        .arg(&db)
        .arg("-t")
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(
        ok.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let before = std::fs::read(&db).unwrap();
    std::os::unix::fs::symlink(dir, dir.join("link")).unwrap();
    let input = dir.join("input.dat");
    std::fs::write(&input, vec![7u8; 8192]).unwrap();
    for (args, why) in colliding_outputs(dir, &db, &input) {
        let mut cmd = fsbench();
        cmd.args(&args).arg("--db").arg(&db);
        if args[0] == "run" {
            cmd.args(["-q", "--cache", "warm", "--runs", "1", "-t"])
                .arg(dir);
            if !args.iter().any(|a| a == "-w") {
                cmd.args(["-w", "null"]);
            }
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the database was touched"
    );
    assert_eq!(
        std::fs::read(&input).unwrap(),
        vec![7u8; 8192],
        "the input was touched"
    );
    assert!(!dir.join("a.out").exists());
}

/// With `--html -`, standard output carries the report alone: no tables after `</html>`.
#[test]
fn html_on_standard_output_is_alone_there() {
    let t = temp_dir();
    let out = fsbench()
        .args([
            "run",
            "-q",
            "-w",
            "null",
            "--cache",
            "warm",
            "--runs",
            "1",
            "--no-store",
        ])
        .args(["--html", "-", "-t"])
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.trim_end().ends_with("</html>"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
}

/// An output in a directory that cannot be written is refused before the run, not after it.
#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root (to mount a read-only tmpfs)")]
fn an_output_on_a_read_only_filesystem_is_refused_before_work() {
    let t = temp_dir();
    let ro = t.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"])
        .arg(&ro)
        .status()
        .unwrap();
    assert!(mounted.success());
    let out = fsbench()
        .args([
            "run",
            "-w",
            "null:sleep=2s",
            "--cache",
            "warm",
            "--runs",
            "1",
            "--no-store",
        ])
        .arg("-t")
        .arg(t.path())
        .arg("--html")
        .arg(ro.join("r.html"))
        .output()
        .unwrap();
    let _ = Command::new("umount").arg(&ro).status();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("read-only filesystem"), "{err}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("null"),
        "the run started"
    );
}

/// Every input file's kind is checked before it is read: a FIFO (which would block `open`
/// forever), a device (`/dev/zero` never ends) or a directory is refused at once with one line;
/// a file over its documented limit is refused from its size.
#[test]
fn inputs_that_would_hang_or_never_end_are_refused_at_once() {
    let t = temp_dir();
    let fifo = t.path().join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = t.path().join("big.toml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(2 << 20)
        .unwrap();
    let fifo = fifo.as_os_str();
    let cases: Vec<(Vec<&std::ffi::OsStr>, &str)> = vec![
        (vec!["history".as_ref(), "--db".as_ref(), fifo], "a FIFO"),
        (
            vec![
                "run".as_ref(),
                "-w".as_ref(),
                "null".as_ref(),
                "--db".as_ref(),
                fifo,
            ],
            "a FIFO",
        ),
        (vec!["import".as_ref(), fifo], "a FIFO"),
        (
            vec!["import".as_ref(), "/dev/zero".as_ref()],
            "a character device",
        ),
        (vec!["run".as_ref(), "--suite".as_ref(), fifo], "a FIFO"),
        (vec!["suite".as_ref(), "show".as_ref(), fifo], "a FIFO"),
        (
            vec!["run".as_ref(), "--suite".as_ref(), "/dev/zero".as_ref()],
            "a character device",
        ),
        (
            vec!["run".as_ref(), "--suite".as_ref(), big.as_os_str()],
            "larger than",
        ),
        (vec!["postmark".as_ref(), fifo], "a FIFO"),
    ];
    for (args, why) in cases {
        let mut child = crate::util::command()
            .args(&args)
            .current_dir(t.path())
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("{args:?} hangs");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(why), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Text from a result file (hostname, version, labels, workload, notes) never reaches a terminal
/// or the HTML raw: `show`, `history`, `compare` and `report` make every control character
/// visible, as labels of a live run already are.
#[test]
fn control_characters_in_an_imported_result_never_reach_the_terminal() {
    let t = temp_dir();
    let db = t.path().join("r.db");
    let json = t.path().join("r.json");
    let ok = fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "2", "--db",
        ])
        .arg(&db)
        .arg("--json")
        .arg(&json)
        .arg("-t")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let evil = "\u{1b}]0;owned\u{7}\u{1b}[2J";
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    v["run"]["id"] = format!("evil{evil}").into();
    v["run"]["fsbench_version"] = format!("9{evil}").into();
    v["environment"]["hostname"] = format!("host{evil}").into();
    v["results"][0]["target"] = format!("label{evil}").into();
    v["results"][0]["workload"] = format!("null{evil}").into();
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let import = fsbench()
        .arg("import")
        .arg(&json)
        .arg("--db")
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(
        import.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&import.stderr)
    );
    let html = t.path().join("r.html");
    let runs: [&[&str]; 4] = [
        &["show", "last"],
        &["history"],
        &["compare", "last~1", "last"],
        &["report", "last~1", "last", "-o"],
    ];
    for args in runs {
        let mut cmd = fsbench();
        cmd.args(args);
        if args[0] == "report" {
            cmd.arg(&html);
        }
        let out = cmd.arg("--db").arg(&db).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        for (name, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            assert!(
                !bytes.contains(&0x1b) && !bytes.contains(&0x07),
                "{args:?} {name} has raw controls"
            );
        }
    }
    let page = std::fs::read(&html).unwrap();
    assert!(
        !page.contains(&0x1b) && !page.contains(&0x07),
        "raw controls in the HTML"
    );
    assert!(String::from_utf8_lossy(&page).contains("host\\u{1b}"));
}

/// Smaller inputs that were silently accepted or reported without their place: a negative
/// `last~N`, a `--since` that is no date, a misspelt `name` in a suite's `[[workload]]`, and a
/// suite's worker count or `lab_size` over the limits — each refused with one line that says
/// where (FILE:LINE:COL for a suite).
#[test]
fn small_bad_inputs_are_refused_with_their_place() {
    let t = temp_dir();
    let db = t.path().join("r.db");
    let ok = fsbench()
        .args([
            "run", "-q", "-w", "null", "--cache", "warm", "--runs", "1", "--db",
        ])
        .arg(&db)
        .arg("-t")
        .arg(t.path())
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let suite = |name: &str, body: &str| {
        let p = t.path().join(name);
        std::fs::write(&p, body).unwrap();
        p
    };
    let typo = suite(
        "typo.toml",
        "name = \"t\"\n\n[[workload]]\nnmae = \"walk\"\n",
    );
    let workers = suite(
        "workers.toml",
        "name = \"t\"\n\n[[workload]]\nname = \"walk\"\nworkers = [1, 100000]\n",
    );
    let lab = suite(
        "lab.toml",
        "name = \"t\"\nlab = [\"xfs\"]\nlab_size = \"1m\"\n\n[[workload]]\nname = \"null\"\n",
    );
    let proc_cfg = suite("proc.cfg", "set location /proc\nrun\nquit\n");
    let cases: Vec<(Vec<std::ffi::OsString>, &str)> = vec![
        (
            vec![
                "show".into(),
                "last~-1".into(),
                "--db".into(),
                db.clone().into(),
            ],
            "no run 'last~-1'",
        ),
        (
            vec![
                "history".into(),
                "--since".into(),
                "garbage".into(),
                "--db".into(),
                db.clone().into(),
            ],
            "invalid --since",
        ),
        (
            vec!["run".into(), "--suite".into(), typo.clone().into()],
            "typo.toml:4:1: unknown key 'nmae' in [[workload]] — did you mean 'name'?",
        ),
        (
            vec!["run".into(), "--suite".into(), workers.clone().into()],
            "workers.toml:5:15: workers=100000",
        ),
        (
            vec!["run".into(), "--suite".into(), lab.clone().into()],
            "lab.toml:3:12: lab_size 1m is too small for xfs",
        ),
        (
            vec!["postmark".into(), proc_cfg.clone().into()],
            "location /proc is on proc, a kernel interface",
        ),
    ];
    for (args, want) in cases {
        let out = fsbench().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(!err.contains("--lab-size"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_tool_mount)),
    ignore = "needs root (drop_caches), mkfs.ext4 and mount (a loop ext4 that accepts direct I/O)"
)]
fn direct_io_on_a_file_just_written_and_synced_runs_cold_and_warm() {
    let disk = crate::util::LoopExt4::new(128 << 20);
    let file = disk.path().join("data.bin");
    // Written and synced: every page clean and cached, in large folios, as `dd conv=fsync` leaves it.
    let mut f = std::fs::File::create(&file).unwrap();
    let block = vec![0x5au8; 1 << 20];
    for _ in 0..16 {
        std::io::Write::write_all(&mut f, &block).unwrap();
    }
    f.sync_all().unwrap();
    drop(f);
    let out_dir = temp_dir();
    // Short samples: the claim is that direct I/O runs on such a file at all, not its speed.
    for (workload, size, cache) in [
        ("latency", "count=20", "cold"),
        ("latency", "count=20", "warm"),
        ("rand-read", "ops=200", "cold"),
        ("seek-rate", "duration=200ms", "warm"),
    ] {
        let json = out_dir.path().join(format!("{workload}-{cache}.json"));
        let spec = format!("{workload}:file={},direct=true,{size}", file.display());
        let out = fsbench()
            .args([
                "run",
                "-q",
                "--no-store",
                "--runs",
                "2",
                "--cache",
                cache,
                "-w",
            ])
            .arg(&spec)
            .arg("-t")
            .arg(disk.path())
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{spec} {cache}: {err}");
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let cell = &v["results"][0];
        assert_eq!(cell["params"]["direct"], "true", "{spec} {cache}: {cell}");
        assert_eq!(
            cell["samples"].as_array().unwrap().len(),
            2,
            "{spec} {cache}"
        );
    }
    // The file is the user's: never changed.
    let back = std::fs::read(&file).unwrap();
    assert!(back.len() == 16 << 20 && back.iter().all(|&b| b == 0x5a));
}
