//! Safety invariants of DESIGN.md, each exercised through the real binary: writes stay in the
//! scratch, removal never follows symlinks, signals and errors clean up, `clean` removes only
//! dead runs' scratches, full disks, read-only mounts and raw devices are handled.

use crate::util::{entries, fsbench, temp_dir};
use predicates::prelude::*;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts a long `null` run on `target` and waits until its workload directory exists.
#[allow(clippy::zombie_processes)] // the caller waits for the child (wait_exit)
pub(crate) fn start_long_run(target: &Path) -> (Child, PathBuf) {
    start_long_run_with(target, &[])
}

/// [`start_long_run`] with `extra` arguments.
// The child is returned to the caller, which waits for it (the lint cannot follow that).
#[allow(clippy::zombie_processes)]
pub(crate) fn start_long_run_with(target: &Path, extra: &[&std::ffi::OsStr]) -> (Child, PathBuf) {
    let mut child = crate::util::command()
        .args([
            "run",
            "--workload",
            "null:ops=1,sleep=30s",
            "--cache",
            "warm",
            "--runs",
            "1",
            "--warmup",
            "0",
            "-q",
        ])
        .arg("--target")
        .arg(target)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let scratch = entries(target)
            .into_iter()
            .find(|e| e.starts_with(".fsbench-"));
        if let Some(s) = scratch {
            let dir = target.join(s);
            if let Some(w) = entries(&dir).into_iter().find(|e| e.contains("null")) {
                return (child, dir.join(w));
            }
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("scratch never appeared");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn plant_symlinks(workdir: &Path, canary: &Path) {
    std::os::unix::fs::symlink(canary, workdir.join("to-canary-dir")).unwrap();
    std::os::unix::fs::symlink(canary.join("keep"), workdir.join("to-canary-file")).unwrap();
    std::os::unix::fs::symlink(canary, workdir.parent().unwrap().join("top-link")).unwrap();
}

pub(crate) fn wait_exit(child: &mut Child) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code().unwrap_or(-1);
        }
        assert!(Instant::now() < deadline, "fsbench did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Starts a long run with symlinks to a canary planted in its scratch, ends it with `stop`,
/// waits up to 30 s for the target to be empty, and checks the canary was not touched.
fn ends_without_a_trace(stop: impl FnOnce(&mut Child)) {
    let target = temp_dir();
    let canary = temp_dir();
    std::fs::write(canary.path().join("keep"), b"precious").unwrap();
    let (mut child, workdir) = start_long_run(target.path());
    plant_symlinks(&workdir, canary.path());
    stop(&mut child);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !entries(target.path()).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        entries(target.path()).is_empty(),
        "scratch left: {:?}",
        entries(target.path())
    );
    assert_eq!(
        std::fs::read(canary.path().join("keep")).unwrap(),
        b"precious"
    );
}

fn signal_cleans_up(sig: rustix::process::Signal) {
    ends_without_a_trace(|child| {
        let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        rustix::process::kill_process(pid, sig).unwrap();
        assert_eq!(wait_exit(child), 130);
    });
}

#[test]
fn sigint_removes_the_scratch_and_exits_130() {
    signal_cleans_up(rustix::process::Signal::INT);
}

#[test]
fn sigterm_removes_the_scratch_and_exits_130() {
    signal_cleans_up(rustix::process::Signal::TERM);
}

#[test]
fn sigkill_leaves_no_scratch_the_guard_removes_it() {
    // fsbench itself can do nothing: its guard process removes the scratch once it is gone.
    ends_without_a_trace(|child| {
        child.kill().unwrap();
        let _ = child.wait();
    });
}

#[test]
fn symlinks_to_outside_survive_a_normal_finish() {
    let target = temp_dir();
    let canary = temp_dir();
    std::fs::write(canary.path().join("keep"), b"precious").unwrap();
    let mut child = crate::util::command()
        .args([
            "run",
            "--workload",
            "null:ops=1,sleep=1s",
            "--cache",
            "warm",
            "--runs",
            "1",
            "--warmup",
            "0",
            "-q",
        ])
        .arg("--target")
        .arg(target.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let workdir = loop {
        let s = entries(target.path())
            .into_iter()
            .find(|e| e.starts_with(".fsbench-"));
        if let Some(w) = s.and_then(|s| {
            let d = target.path().join(s);
            entries(&d)
                .into_iter()
                .find(|e| e.contains("null"))
                .map(|w| d.join(w))
        }) {
            break w;
        }
        assert!(Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(10));
    };
    plant_symlinks(&workdir, canary.path());
    assert_eq!(wait_exit(&mut child), 0);
    assert!(entries(target.path()).is_empty());
    assert_eq!(entries(canary.path()), ["keep"]);
}

#[test]
fn clean_removes_only_scratches_of_dead_runs() {
    let target = temp_dir();
    let t = target.path();
    let dead = t.join(".fsbench-dead");
    std::fs::create_dir_all(dead.join("sub")).unwrap();
    std::fs::write(
        dead.join(".fsbench-scratch"),
        "pid=999999999\nstart_ticks=5\n",
    )
    .unwrap();
    std::fs::write(dead.join("sub/data"), b"x").unwrap();
    let canary = temp_dir();
    std::fs::write(canary.path().join("keep"), b"x").unwrap();
    std::os::unix::fs::symlink(canary.path(), dead.join("sub/link")).unwrap();
    let live = t.join(".fsbench-live");
    std::fs::create_dir(&live).unwrap();
    std::fs::write(
        live.join(".fsbench-scratch"),
        format!("pid={}\nstart_ticks=0\n", std::process::id()),
    )
    .unwrap();
    let foreign = t.join(".fsbench-not-ours");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(t.join("user-file"), b"mine").unwrap();
    fsbench()
        .arg("clean")
        .arg(t)
        .assert()
        .success()
        .stdout(predicate::str::contains("removed").and(predicate::str::contains(".fsbench-dead")))
        .stdout(predicate::str::contains(
            "1 stale scratch directory removed",
        ));
    assert_eq!(
        entries(t),
        [".fsbench-live", ".fsbench-not-ours", "user-file"]
    );
    assert_eq!(entries(canary.path()), ["keep"]);
}

#[test]
fn clean_of_a_missing_dir_is_a_usage_error() {
    fsbench()
        .args(["clean", "/nonexistent/fsbench"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("does not exist"));
}

/// A small tmpfs mounted for one test, unmounted when dropped.
pub(crate) struct TmpfsMount {
    dir: tempfile::TempDir,
}

impl TmpfsMount {
    pub(crate) fn new(opts: &str) -> Self {
        let dir = temp_dir();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
            .arg(dir.path())
            .status()
            .unwrap();
        assert!(ok.success(), "mount tmpfs failed");
        Self { dir }
    }
    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn full_disk_mid_run_fails_that_cell_with_exit_3_and_cleans_up() {
    let m = TmpfsMount::new("size=16m");
    for d in ["a", "b"] {
        std::fs::create_dir(m.path().join(d)).unwrap();
    }
    // Two targets on one 16 MiB tmpfs: each passes the free-space check alone, together they fill it.
    let out = fsbench()
        .args([
            "run",
            "--workload",
            "seq-write:bs=1m,size=10m",
            "--cache",
            "warm",
            "--runs",
            "1",
            "--warmup",
            "0",
            "-q",
        ])
        .arg("--target")
        .arg(format!("A={}", m.path().join("a").display()))
        .arg("--target")
        .arg(format!("B={}", m.path().join("b").display()))
        .assert()
        .code(3)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no space left") && err.contains("target B"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(entries(&m.path().join("a")).is_empty());
    assert!(entries(&m.path().join("b")).is_empty());
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn too_little_free_space_is_reported_before_writing() {
    let m = TmpfsMount::new("size=16m");
    fsbench()
        .args([
            "run",
            "--workload",
            "seq-write:size=64m",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-q",
        ])
        .arg("--target")
        .arg(m.path())
        .assert()
        .code(3)
        .stderr(predicate::str::contains("free"));
    assert!(entries(m.path()).is_empty());
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn read_only_target_is_refused_with_exit_2() {
    let m = TmpfsMount::new("size=1m,ro");
    fsbench()
        .args([
            "run",
            "--workload",
            "seq-read:size=64k",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-q",
        ])
        .arg("--target")
        .arg(m.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("read-only"));
}

#[test]
fn unwritable_target_is_refused_for_non_root() {
    let t = temp_dir();
    std::fs::set_permissions(
        t.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o555),
    )
    .unwrap();
    let args = [
        "run",
        "--workload",
        "null",
        "--cache",
        "warm",
        "-q",
        "--no-store",
    ];
    // Root may write anywhere: as root the refusal is shown as nobody.
    let (_bin, mut cmd) = crate::util::command_without_root();
    let out = cmd
        .args(args)
        .arg("--target")
        .arg(t.path())
        .output()
        .expect("run fsbench as nobody");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("permission denied"), "{err}");
}

/// A 8 MiB loop device over a file, detached when dropped.
struct Loop {
    dev: String,
    _file: tempfile::TempDir,
}

impl Loop {
    fn new() -> Option<Self> {
        let dir = temp_dir();
        let img = dir.path().join("img");
        std::fs::write(&img, vec![0x5au8; 8 << 20]).unwrap();
        let out = Command::new("losetup")
            .args(["--find", "--show"])
            .arg(&img)
            .output()
            .ok()?;
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        (out.status.success() && !dev.is_empty()).then_some(Self { dev, _file: dir })
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn raw_device_is_read_only_unless_named_by_allow_destroy() {
    // As root with loop devices, losetup must work: a failure here is a failure, not a skip.
    let lo = Loop::new().expect("attach an 8 MiB loop device (losetup) as root");
    let run = |w: &str, extra: &[&str]| {
        let mut c = fsbench();
        c.args([
            "run",
            "--cache",
            "warm",
            "--runs",
            "1",
            "-q",
            "--workload",
            w,
            "--target",
            &lo.dev,
        ])
        .args(extra);
        c
    };
    run("seq-read:bs=64k,size=4m", &[])
        .assert()
        .success()
        .stdout(predicate::str::contains("seq-read"));
    run("seq-write:bs=64k,size=1m", &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--allow-destroy"));
    run(
        "seq-write:bs=64k,size=1m",
        &["--allow-destroy=/dev/loop-other"],
    )
    .assert()
    .code(2);
    let before = std::fs::read(&lo.dev).map(|b| b[..16].to_vec()).unwrap();
    assert_eq!(before, vec![0x5au8; 16]);
    run(
        "seq-write:bs=64k,size=1m",
        &[&format!("--allow-destroy={}", lo.dev)],
    )
    .assert()
    .success();
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn precondition_writes_a_raw_device_only_when_named_by_allow_destroy() {
    let lo = Loop::new().expect("attach an 8 MiB loop device (losetup) as root");
    let run = |extra: &[&str]| {
        let mut c = fsbench();
        c.args([
            "run",
            "--cache",
            "warm",
            "-q",
            "--no-store",
            "--precondition",
        ])
        .args(["--workload", "seq-read:bs=64k,size=4m", "--target", &lo.dev])
        .args(extra);
        c
    };
    run(&[]).assert().code(2).stderr(predicate::str::contains(
        "--precondition writes the whole of",
    ));
    let first = || std::fs::read(&lo.dev).map(|b| b[..16].to_vec()).unwrap();
    assert_eq!(first(), vec![0x5au8; 16], "refused before any write");
    run(&[&format!("--allow-destroy={}", lo.dev)])
        .assert()
        .success()
        .stdout(predicate::str::contains("precondition=fill"));
    assert_ne!(first(), vec![0x5au8; 16], "the fill wrote the device");
}

/// PR_SET_PDEATHSIG reaches only fsbench's direct child: a command's own children (the `sleep`
/// under `sh -c`) must be killed by the guard, which is told every child's process group.
#[test]
fn sigkill_during_a_command_leaves_no_grandchild_and_no_scratch() {
    let target = temp_dir();
    // A duration no other process uses, to find exactly this grandchild.
    let secs = 40_000 + std::process::id() % 10_000;
    let needle = format!("sleep{}{secs}", '\0');
    let mut child = crate::util::command()
        .args(["run", "-q", "--no-store", "--cache", "warm", "--runs", "1"])
        .args(["--warmup", "0", "-w"])
        .arg(format!("command:run='sleep {secs}; true'"))
        .arg("--target")
        .arg(target.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while crate::util::processes_mentioning(&needle).is_empty() {
        assert!(Instant::now() < deadline, "the command never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    let _ = child.wait();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !crate::util::processes_mentioning(&needle).is_empty()
        || !entries(target.path()).is_empty()
    {
        assert!(
            Instant::now() < deadline,
            "left behind: processes {:?}, scratch {:?}",
            crate::util::processes_mentioning(&needle),
            entries(target.path())
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
