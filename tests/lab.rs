//! `fsbench run --lab`: throwaway targets are built, named correctly by the environment (loop
//! backing file with direct I/O, fscrypt policy, FUSE subtype and daemon), and torn down on every
//! exit path — success, an error after building, SIGINT, and SIGKILL followed by
//! `fsbench clean`. Every test checks that no mount, no loop device and no scratch of its lab
//! directory is left. Root only; each test skips with a reason when not root or a tool is missing,
//! and a guard unmounts and detaches whatever a failing test leaves.

use crate::safety::wait_exit;
use crate::util::{entries, fsbench, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A temporary lab directory; whatever a failed test left mounted or attached inside it is
/// undone when dropped (lazily: the test has already failed).
pub(crate) struct LabDir(tempfile::TempDir);

impl LabDir {
    pub(crate) fn new() -> Self {
        Self(temp_dir())
    }

    pub(crate) fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.0.path()).expect("canonical temp dir")
    }
}

impl Drop for LabDir {
    fn drop(&mut self) {
        let dir = self.path();
        let (mounts, loops) = leftovers(&dir);
        for m in mounts.iter().rev() {
            let _ = Command::new("umount").arg("-l").arg(m).status();
        }
        for name in crate::lab_layers::mappings_over(&loops) {
            let _ = Command::new("dmsetup").arg("remove").arg(name).status();
        }
        for (dev, _) in loops {
            let _ = Command::new("losetup").arg("-d").arg(dev).status();
        }
    }
}

/// Mount points inside `dir` (shallowest first) and loop devices whose image is inside it.
pub(crate) fn leftovers(dir: &Path) -> (Vec<PathBuf>, Vec<(String, PathBuf)>) {
    let info = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let mut mounts: Vec<PathBuf> = info
        .lines()
        .filter_map(|l| l.split(' ').nth(4))
        .map(|p| PathBuf::from(p.replace("\\040", " ")))
        .filter(|p| p.starts_with(dir))
        .collect();
    mounts.sort_by_key(|p| p.components().count());
    let loops = std::fs::read_dir("/sys/block")
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("loop"))
                .filter_map(|n| {
                    let f = std::fs::read_to_string(format!("/sys/block/{n}/loop/backing_file"));
                    let f = f.ok()?;
                    let f = f.trim().trim_end_matches(" (deleted)");
                    Some((format!("/dev/{n}"), PathBuf::from(f)))
                })
                .filter(|(_, f)| f.starts_with(dir))
                .collect()
        })
        .unwrap_or_default();
    (mounts, loops)
}

/// Nothing of the lab is left in `dir`: no mount, no loop device (`losetup -a`), no scratch.
pub(crate) fn assert_torn_down(dir: &Path) {
    let (mounts, loops) = leftovers(dir);
    assert!(mounts.is_empty(), "mounts left: {mounts:?}");
    assert!(loops.is_empty(), "loop devices left: {loops:?}");
    let listed = Command::new("losetup")
        .arg("-a")
        .output()
        .expect("losetup -a");
    let listed = String::from_utf8_lossy(&listed.stdout);
    let ours = dir.to_string_lossy();
    assert!(
        !listed.contains(ours.as_ref()),
        "losetup -a lists ours: {listed}"
    );
    assert!(
        entries(dir).is_empty(),
        "left in the lab dir: {:?}",
        entries(dir)
    );
}

/// Runs `fsbench clean DIR` (a dead run's lab), checks that it succeeded, and returns what it
/// printed.
pub(crate) fn clean_lab(dir: &Path) -> String {
    let out = fsbench().arg("clean").arg(dir).output().expect("clean");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs `fsbench run --lab KINDS` with `args` in a new lab directory and returns the JSON
/// record, after checking that everything was torn down.
pub(crate) fn lab_run(kinds: &str, args: &[&str]) -> Value {
    lab_run_at(&LabDir::new(), kinds, args)
}

/// [`lab_run`] in the lab directory `lab`.
pub(crate) fn lab_run_at(lab: &LabDir, kinds: &str, args: &[&str]) -> Value {
    let json = temp_dir();
    let json = json.path().join("out.json");
    // One sample a cell unless the test asks for more.
    let runs: &[&str] = match args.contains(&"--runs") {
        true => &[],
        false => &["--runs", "1"],
    };
    let out = fsbench()
        .args(["run", "--lab", kinds, "-q"])
        .args(runs)
        .args(args)
        .arg("--lab-dir")
        .arg(lab.path())
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run fsbench");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "--lab {kinds}: {err}");
    assert_torn_down(&lab.path());
    let v: Value = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    let scratch = v["environment"]["targets"][0]["lab"]["scratch"]
        .as_str()
        .unwrap_or("");
    assert!(
        scratch.starts_with(lab.path().to_str().expect("utf-8")),
        "{scratch}"
    );
    v
}

/// The environment of target `label`.
pub(crate) fn target<'a>(v: &'a Value, label: &str) -> &'a Value {
    v["environment"]["targets"]
        .as_array()
        .expect("targets")
        .iter()
        .find(|t| t["label"] == label)
        .unwrap_or_else(|| panic!("no target {label}: {v}"))
}

/// A loop kind: the environment names the loop device, its image in the lab scratch and direct
/// I/O on, and `lab` records the commands.
fn assert_loop_target(t: &Value, fs: &str) {
    assert_eq!(t["fs_type"], fs);
    let lab = &t["lab"];
    let dev = lab["loop_device"].as_str().expect("loop device");
    let top = &t["stack"]["devices"][0];
    assert_eq!(
        format!("/dev/{}", top["name"].as_str().unwrap_or("")),
        dev,
        "{t}"
    );
    let lo = &top["loop_device"];
    assert_eq!(lo["direct_io"], true, "{t}");
    assert_eq!(lab["direct_io"], true);
    let scratch = lab["scratch"].as_str().expect("scratch");
    let backing = lo["backing_file"].as_str().expect("backing file");
    assert!(
        backing.starts_with(scratch) && backing.ends_with("disk.img"),
        "{backing}"
    );
    assert_eq!(lab["image_bytes"], 512 << 20);
    let commands: Vec<&str> = lab["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        commands.iter().any(|c| c.contains("--direct-io=on")),
        "{commands:?}"
    );
    assert!(
        commands.iter().any(|c| c.contains(&format!("mkfs.{fs}"))),
        "{commands:?}"
    );
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn tmpfs_and_ext4_are_built_measured_and_leave_nothing() {
    let v = lab_run("tmpfs,ext4", &["-w", "seq-read:size=1m"]);
    let tmpfs = target(&v, "tmpfs");
    assert_eq!(tmpfs["fs_type"], "tmpfs");
    assert_eq!(tmpfs["lab"]["kind"], "tmpfs");
    assert_loop_target(target(&v, "ext4"), "ext4");
    let results = v["results"].as_array().expect("results");
    assert_eq!(results.len(), 4, "two targets × cold and warm");
    assert_eq!(v["run"]["status"], "ok");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_xfs)),
    ignore = "needs root and mkfs.xfs"
)]
fn xfs_is_built_on_a_direct_io_loop_device() {
    let v = lab_run("xfs", &["-w", "seq-read:size=1m", "--cache", "warm"]);
    assert_loop_target(target(&v, "xfs"), "xfs");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_btrfs)),
    ignore = "needs root and mkfs.btrfs"
)]
fn btrfs_is_built_on_a_direct_io_loop_device() {
    let v = lab_run("btrfs", &["-w", "seq-read:size=1m", "--cache", "warm"]);
    assert_loop_target(target(&v, "btrfs"), "btrfs");
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_ext4_encryption)),
    ignore = "needs root, mkfs.ext4 and ext4 with fscrypt"
)]
fn ext4_fscrypt_is_named_as_fscrypt_and_its_key_is_removed() {
    let v = lab_run(
        "ext4-fscrypt",
        &["-w", "seq-read:size=1m", "--cache", "warm"],
    );
    let t = target(&v, "ext4-fscrypt");
    let summary = t["encryption"].as_str().expect("encryption");
    assert!(
        summary.starts_with("fscrypt v2 AES-256-XTS/AES-256-CTS"),
        "{summary}"
    );
    assert_eq!(t["stack"]["fscrypt_status"], "encrypted");
    assert_eq!(t["stack"]["encryption"][0]["fscrypt"]["key_present"], true);
    assert!(
        t["path"].as_str().unwrap_or("").ends_with("/mnt/enc"),
        "{t}"
    );
    let commands = t["lab"]["commands"].to_string();
    assert!(commands.contains("-O encrypt"), "{commands}");
    assert!(commands.contains("FS_IOC_ADD_ENCRYPTION_KEY"), "{commands}");
}

/// A FUSE kind: the environment names the subtype and the daemon, which is gone afterwards.
fn assert_fuse_target(v: &Value, kind: &str) {
    let t = target(v, kind);
    let fuse = &t["stack"]["fuse"];
    assert_eq!(fuse["subtype"], kind, "{t}");
    assert_eq!(fuse["daemon_command"], kind, "{t}");
    let pids = fuse["daemon_pids"].as_array().expect("daemon pids");
    assert!(!pids.is_empty(), "{t}");
    for pid in pids.iter().filter_map(Value::as_i64) {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let comm_is_daemon = stat.contains(&format!("({kind})"));
        let zombie = stat
            .rsplit_once(") ")
            .is_some_and(|(_, r)| r.starts_with('Z'));
        assert!(
            !comm_is_daemon || zombie,
            "daemon {pid} outlived the run: {stat}"
        );
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_bindfs,
        fsbench_tool_fusermount3,
        fsbench_dev_fuse
    )),
    ignore = "needs root, bindfs, fusermount3 and /dev/fuse"
)]
fn bindfs_names_its_fuse_daemon_and_stops_it() {
    let v = lab_run("bindfs", &["-w", "seq-read:size=1m", "--cache", "warm"]);
    assert_fuse_target(&v, "bindfs");
    assert_eq!(target(&v, "bindfs")["lab"]["options"], "-s,no-allow-other");
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_gocryptfs,
        fsbench_tool_fusermount3,
        fsbench_dev_fuse
    )),
    ignore = "needs root, gocryptfs, fusermount3 and /dev/fuse"
)]
fn gocryptfs_and_overlay_are_named() {
    let v = lab_run(
        "gocryptfs,overlay",
        &["-w", "seq-read:size=1m", "--cache", "warm"],
    );
    assert_fuse_target(&v, "gocryptfs");
    assert_eq!(target(&v, "gocryptfs")["encryption"], "gocryptfs");
    let overlay = target(&v, "overlay");
    assert_eq!(overlay["fs_type"], "overlay");
    assert!(overlay["stack"]["overlay"].is_object(), "{overlay}");
}

#[test]
#[cfg_attr(not(fsbench_root), ignore = "needs root")]
fn a_failed_cell_after_building_still_tears_down() {
    let lab = LabDir::new();
    let out = fsbench()
        .args([
            "run",
            "--lab",
            "tmpfs",
            "--lab-size",
            "4m",
            "--runs",
            "1",
            "-q",
        ])
        .args(["-w", "seq-write:size=16m", "--cache", "warm", "--lab-dir"])
        .arg(lab.path())
        .output()
        .expect("run fsbench");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs 16.0 MiB free"), "{err}");
    assert_torn_down(&lab.path());
}

/// `path` as process `pid` sees it, in its mount namespace (`/proc/PID/root/PATH`): a lab run's
/// targets are mounted in a namespace of the run's own.
pub(crate) fn as_seen_by(pid: u32, path: &Path) -> PathBuf {
    Path::new(&format!("/proc/{pid}/root")).join(path.strip_prefix("/").unwrap_or(path))
}

/// Starts a long `null` run on lab `kinds` and waits until its workload directory exists in the
/// lab target mounted at `inside` (`KIND/mnt`, or `KIND/fuse` for a FUSE kind).
#[allow(clippy::zombie_processes)] // the caller waits for the child (wait_exit)
pub(crate) fn start_long_lab_run(lab: &Path, kinds: &str, inside: &str) -> Child {
    let mut child = crate::util::command()
        .args([
            "run",
            "--lab",
            kinds,
            "-w",
            "null:ops=1,sleep=30s",
            "--cache",
            "warm",
        ])
        .args(["--runs", "1", "--warmup", "0", "-q", "--lab-dir"])
        .arg(lab)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start fsbench");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let scratch = entries(lab)
            .into_iter()
            .find(|e| e.starts_with(".fsbench-lab-"));
        // Inside the run's own mount namespace, where its lab targets are mounted.
        let seen = Path::new(&format!("/proc/{}/root", child.id()))
            .join(lab.strip_prefix("/").unwrap_or(lab));
        let mnt = scratch.map(|s| seen.join(s).join(inside));
        let run = mnt.as_ref().and_then(|m| {
            let s = entries(m)
                .into_iter()
                .find(|e| e.starts_with(".fsbench-"))?;
            entries(&m.join(s)).into_iter().find(|w| w.contains("null"))
        });
        if run.is_some() {
            return child;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("fsbench ended before the workload started: {status}");
        }
        assert!(
            Instant::now() < deadline,
            "the lab run never started its workload"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4)),
    ignore = "needs root and mkfs.ext4"
)]
fn sigint_mid_run_tears_the_lab_down_and_exits_130() {
    let lab = LabDir::new();
    let mut child = start_long_lab_run(&lab.path(), "tmpfs,ext4", "ext4/mnt");
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    assert_eq!(wait_exit(&mut child), 130);
    assert_torn_down(&lab.path());
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_ext4,
        fsbench_tool_bindfs,
        fsbench_dev_fuse
    )),
    ignore = "needs root, mkfs.ext4, bindfs and /dev/fuse"
)]
fn sigkill_mid_run_leaves_no_mount_loop_device_or_daemon_and_clean_removes_the_images() {
    let lab = LabDir::new();
    let mut child = start_long_lab_run(&lab.path(), "ext4,bindfs", "bindfs/fuse");
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    // The run's mount namespace went with its last process: its mounts with it, and the loop
    // devices (autoclear) once the kernel let go of their filesystems.
    assert_nothing_left_running(&lab.path());
    // What the kernel cannot remove (the images on disk) the next run there names, with how.
    let next = fsbench()
        .args([
            "run",
            "--lab",
            "tmpfs",
            "-w",
            "null",
            "--runs",
            "1",
            "--no-store",
        ])
        .arg("--lab-dir")
        .arg(lab.path())
        .output()
        .expect("run fsbench");
    let err = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("leftover scratch"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    let clean = format!("'fsbench clean {}' removes it", lab.path().display());
    assert!(
        said[0].contains("from a run that is gone") && said[0].contains(&clean),
        "{err}"
    );
    let text = clean_lab(&lab.path());
    assert!(
        !text.contains("unmounted") && !text.contains("detached"),
        "{text}"
    );
    assert!(text.contains("1 stale scratch directory removed"), "{text}");
    assert_torn_down(&lab.path());
}

/// After a lab run in `dir` died: no mount and no loop device of it, and no process naming it
/// (a FUSE daemon, a host), waiting (up to a minute) for the kernel to end the namespaces'
/// processes and detach the loop devices after their filesystems went.
pub(crate) fn assert_nothing_left_running(dir: &Path) {
    let ours = dir.to_string_lossy().into_owned();
    let left = || {
        let (mounts, loops) = leftovers(dir);
        let procs: Vec<String> = crate::util::processes_mentioning(&ours)
            .into_iter()
            .map(|p| {
                let cmd = std::fs::read(format!("/proc/{p}/cmdline")).unwrap_or_default();
                format!("{p}: {}", String::from_utf8_lossy(&cmd).replace('\0', " "))
            })
            .collect();
        (mounts, loops, procs)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (mounts, loops, procs) = left();
        if mounts.is_empty() && loops.is_empty() && procs.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the dead run left mounts {mounts:?}, loop devices {loops:?}, processes {procs:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn lab_list_names_every_kind_and_why_not() {
    let out = fsbench().args(["lab", "list"]).output().expect("lab list");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for kind in [
        "tmpfs",
        "ext4",
        "xfs",
        "btrfs",
        "ext4-fscrypt",
        "gocryptfs",
        "bindfs",
        "overlay",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{kind} "))),
            "{kind}: {text}"
        );
    }
    assert!(
        text.contains("aged: KIND:aged[:fill=PCT,churn=N,seed=S]"),
        "{text}"
    );
    let empty = temp_dir();
    let out = fsbench()
        .args(["lab", "list"])
        .env("PATH", empty.path())
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let xfs = text
        .lines()
        .find(|l| l.starts_with("xfs "))
        .expect("xfs line");
    assert!(
        xfs.contains(" no ") && xfs.contains("apt-get install xfsprogs"),
        "{xfs}"
    );
    let bindfs = text
        .lines()
        .find(|l| l.starts_with("bindfs "))
        .expect("bindfs line");
    assert!(bindfs.contains("apt-get install fuse3"), "{bindfs}");
}

#[test]
fn a_missing_tool_is_one_line_naming_the_package_before_anything_is_built() {
    let lab = LabDir::new();
    let empty = temp_dir();
    for (kind, package) in [
        ("xfs", "xfsprogs"),
        ("btrfs", "btrfs-progs"),
        ("gocryptfs", "fuse3"),
    ] {
        let out = fsbench()
            .args(["run", "--lab", kind, "-w", "null", "--lab-dir"])
            .arg(lab.path())
            .env("PATH", empty.path())
            .output()
            .expect("run fsbench");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(&format!("apt-get install {package}")), "{err}");
        assert!(entries(&lab.path()).is_empty(), "built something: {err}");
    }
}

#[test]
fn unknown_kinds_and_lab_options_without_lab_are_refused() {
    let out = fsbench()
        .args(["run", "--lab", "zfs", "-w", "null"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown lab kind 'zfs'") && err.contains("lab list"),
        "{err}"
    );
    let out = fsbench()
        .args(["run", "--lab-size", "1g", "-w", "null"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn non_root_is_refused_with_one_line() {
    let dir = temp_dir();
    // Traversable by nobody, so the refusal is about root, not the directory.
    std::fs::set_permissions(
        dir.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let (_bin, mut cmd) = crate::util::command_without_root();
    let out = cmd
        .args(["run", "--lab", "tmpfs", "-w", "null", "--lab-dir"])
        .arg(dir.path())
        .output()
        .expect("run fsbench as nobody");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--lab needs root") && err.contains("tmpfs too"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_bindfs,
        fsbench_tool_fusermount3,
        fsbench_dev_fuse
    )),
    ignore = "needs root, bindfs, fusermount3 and /dev/fuse"
)]
fn tar_on_a_fuse_lab_target_is_comparable_with_ext4_cold_and_warm() {
    // The seed kept its tarball on local disk: with the archive outside the targets, ext4 and a
    // FUSE target are compared on creating and removing the tree, cold (drop_caches) and warm.
    let lab = LabDir::new();
    let tmp = temp_dir();
    let out = temp_dir();
    let json = out.path().join("o.json");
    let run = fsbench()
        .env("TMPDIR", tmp.path())
        .args(["run", "--lab", "ext4,bindfs", "--runs", "3", "-q"])
        // 500 entries: the comparison needs every cell's three samples, not a big tree (1,000
        // entries took 23 s of this test, 500 take 13 s).
        .args(["-w", "tar-extract:profile=small,scale=0.25"])
        .args(["-w", "tar-delete:profile=small,scale=0.25"])
        .arg("--lab-dir")
        .arg(lab.path())
        .arg("--json")
        .arg(&json)
        .output()
        .expect("run fsbench");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_torn_down(&lab.path());
    assert!(entries(tmp.path()).is_empty(), "local archive left");
    let v: Value = serde_json::from_slice(&std::fs::read(&json).expect("json")).expect("JSON");
    let comparisons = v["comparisons"].as_array().expect("comparisons");
    assert_eq!(comparisons.len(), 4, "{v}");
    for c in comparisons {
        assert_eq!(c["comparable"], true, "{c}");
    }
    for r in v["results"].as_array().expect("results") {
        let resident = r["cache"]["resident_pct"].as_f64();
        match (r["workload"].as_str(), r["cache"]["state"].as_str()) {
            // The archive's residency: the same local file for both targets.
            (Some("tar-extract"), Some("cold")) => assert!(resident < Some(10.0), "{r}"),
            (Some("tar-extract"), _) => assert!(resident > Some(90.0), "{r}"),
            // The tree's: measured on ext4, not on FUSE, where opening a file drops its pages.
            (Some("tar-delete"), state) if r["target"] == "bindfs" => {
                assert_eq!(resident, None, "{state:?} {r}");
            }
            (Some("tar-delete"), Some("cold")) => assert!(resident < Some(10.0), "{r}"),
            _ => assert!(resident > Some(90.0), "{r}"),
        }
    }
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_bindfs,
        fsbench_tool_fusermount3,
        fsbench_dev_fuse
    )),
    ignore = "needs root, bindfs, fusermount3 and /dev/fuse"
)]
fn a_warm_fuse_cell_among_other_targets_runs_once_untimed_before_every_sample() {
    // Each run of the command appends the directory it ran in: a warm cell's warm-up and every
    // re-warm show as runs beyond its samples.
    let log_dir = temp_dir();
    let log = log_dir.path().join("runs");
    let work = format!("command:run='pwd >> {}'", log.display());
    let runs = |order: &str| -> (Value, Vec<usize>) {
        let _ = std::fs::remove_file(&log);
        let v = lab_run(
            "ext4,bindfs",
            &[
                "--cache", "warm", "--runs", "3", "--order", order, "-w", &work,
            ],
        );
        let lines = std::fs::read_to_string(&log).expect("the command's log");
        let mut by_dir: Vec<(String, usize)> = Vec::new();
        for l in lines.lines() {
            match by_dir.iter_mut().find(|(d, _)| d == l) {
                Some((_, n)) => *n += 1,
                None => by_dir.push((l.to_string(), 1)),
            }
        }
        // ext4 first (the targets' order), then bindfs.
        (v, by_dir.into_iter().map(|(_, n)| n).collect())
    };
    // Interleaved: ext4's warm-up and 3 samples; bindfs's warm-up and 3 samples, each of the
    // two later ones after a re-warm.
    let (v, counts) = runs("interleaved");
    assert_eq!(counts, [4, 6], "runs per target");
    let notes = |label: &str| -> String {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["target"] == label)
            .map(|r| r["warnings"].to_string())
            .unwrap_or_default()
    };
    assert!(
        notes("bindfs").contains("untimed run of its own"),
        "{}",
        notes("bindfs")
    );
    assert!(
        !notes("ext4").contains("untimed run of its own"),
        "{}",
        notes("ext4")
    );
    // One target's samples after another's: nothing ran between two of bindfs's.
    let (_, counts) = runs("sequential");
    assert_eq!(counts, [4, 4], "runs per target");
}
