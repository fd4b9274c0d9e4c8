//! Aged lab targets (`--lab KIND:aged[:fill=PCT,churn=N,seed=S]`): built, filled and churned,
//! measured beside a fresh twin, their aging and fragmentation recorded in the JSON, and torn
//! down on success, on a plan that no longer fits, on SIGINT and (with `fsbench clean`) on
//! SIGKILL during the aging. Root and the tools each test names; the helpers are the lab tests'.

use crate::lab::{LabDir, assert_torn_down, clean_lab, lab_run, target};
use crate::safety::wait_exit;
use crate::util::{entries, fsbench, temp_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

/// The fragmentation of an aged target: the aging record, free-space extents from `tool` (or
/// none), and extents per file over every kept aging file.
fn assert_aged(t: &Value, fill: u64, churn: u64, tool: Option<&str>) {
    let a = &t["lab"]["aging"];
    assert_eq!(a["fill_pct"], fill, "{t}");
    assert_eq!(a["churn_rounds"], churn);
    assert_eq!(a["seed"], 1);
    let reached = a["fill_reached_pct"].as_f64().expect("fill reached");
    assert!(
        reached > fill as f64 - 3.0 && reached < fill as f64 + 5.0,
        "{a}"
    );
    let created = a["files_created"].as_u64().expect("created");
    let deleted = a["files_deleted"].as_u64().expect("deleted");
    let kept = a["files_kept"].as_u64().expect("kept");
    assert!(kept > 0 && created == deleted + kept, "{a}");
    assert_eq!(churn == 0, deleted == 0, "{a}");
    assert!(
        a["dir"].as_str().unwrap_or("").ends_with("/fsbench-aged"),
        "{a}"
    );
    let f = &t["lab"]["fragmentation"];
    match tool {
        Some(tool) => {
            let s = &f["free_space"];
            assert_eq!(s["tool"], tool, "{f}");
            assert!(s["extents"].as_u64() > Some(0), "{f}");
            let in_buckets: u64 = s["histogram"]
                .as_array()
                .expect("histogram")
                .iter()
                .filter_map(|b| b["extents"].as_u64())
                .sum();
            assert_eq!(Some(in_buckets), s["extents"].as_u64(), "{f}");
        }
        None => {
            assert!(f["free_space"].is_null(), "{f}");
            assert!(!f["free_space_note"].as_str().unwrap_or("").is_empty());
        }
    }
    let files = &f["files"];
    assert_eq!(files["files"].as_u64(), Some(kept), "{f}");
    assert!(files["mean"].as_f64() >= Some(1.0), "{f}");
    assert!(files["max"].as_u64() >= Some(1), "{f}");
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_ext4,
        fsbench_tool_e2freefrag,
        fsbench_tool_filefrag
    )),
    ignore = "needs root, mkfs.ext4, e2freefrag and filefrag"
)]
fn fresh_and_aged_ext4_side_by_side_record_their_fragmentation() {
    let v = lab_run(
        "ext4,ext4:aged",
        &["-w", "seq-read:size=4m", "--cache", "warm"],
    );
    let fresh = target(&v, "ext4");
    assert!(fresh["lab"]["aging"].is_null(), "{fresh}");
    let free = &fresh["lab"]["fragmentation"]["free_space"];
    assert_eq!(free["tool"], "e2freefrag", "{fresh}");
    assert!(fresh["lab"]["fragmentation"]["files"].is_null());
    let aged = target(&v, "ext4-aged");
    assert_eq!(aged["lab"]["kind"], "ext4");
    assert_aged(aged, 70, 10, Some("e2freefrag"));
    // Aging leaves the free space in many more, smaller pieces than a fresh ext4 has.
    let extents = |t: &Value| t["lab"]["fragmentation"]["free_space"]["extents"].as_u64();
    assert!(extents(aged) > extents(fresh).map(|n| n * 10), "{v}");
    assert!(
        aged["lab"]["scratch"] == fresh["lab"]["scratch"]
            && aged["path"]
                .as_str()
                .unwrap_or("")
                .ends_with("/ext4-aged/mnt"),
        "{aged}"
    );
    let labels: Vec<&str> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["target"].as_str())
        .collect();
    assert_eq!(labels, ["ext4", "ext4-aged"]);
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_xfs,
        fsbench_tool_mkfs_btrfs,
        fsbench_tool_mkfs_ext4,
        fsbench_tool_xfs_spaceman,
        fsbench_tool_filefrag,
        fsbench_tool_e2freefrag,
        fsbench_ext4_encryption
    )),
    ignore = "needs root, mkfs.xfs, mkfs.btrfs, mkfs.ext4, xfs_spaceman, filefrag, e2freefrag and ext4 with fscrypt"
)]
fn xfs_btrfs_and_ext4_fscrypt_can_be_aged() {
    let v = lab_run(
        // Light aging: encrypting ext4-fscrypt's aging files costs CPU that other tests share.
        "xfs:aged:fill=50,churn=1,btrfs:aged:churn=0,ext4-fscrypt:aged:fill=30,churn=1",
        &["-w", "seq-read:size=1m", "--cache", "warm"],
    );
    assert_aged(
        target(&v, "xfs-aged-fill50-churn1"),
        50,
        1,
        Some("xfs_spaceman freesp"),
    );
    assert_aged(target(&v, "btrfs-aged-churn0"), 70, 0, None);
    let enc = target(&v, "ext4-fscrypt-aged-fill30-churn1");
    assert_aged(enc, 30, 1, Some("e2freefrag"));
    assert!(
        enc["lab"]["aging"]["dir"]
            .as_str()
            .unwrap_or("")
            .ends_with("/mnt/enc/fsbench-aged"),
        "the aging files are encrypted like the workload's: {enc}"
    );
}

#[test]
#[cfg_attr(
    not(all(
        fsbench_root,
        fsbench_tool_mkfs_ext4,
        fsbench_tool_e2freefrag,
        fsbench_tool_filefrag
    )),
    ignore = "needs root, mkfs.ext4, e2freefrag and filefrag"
)]
fn a_fill_that_leaves_no_room_for_the_plan_is_refused_and_torn_down() {
    let lab = LabDir::new();
    let out = fsbench()
        .args(["run", "--lab", "ext4:aged:fill=95,churn=0", "-q"])
        .args(["-w", "seq-read:size=64m", "--runs", "1", "--lab-dir"])
        .arg(lab.path())
        .output()
        .expect("run fsbench");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("lab target ext4-aged-fill95-churn0 has")
            && err.contains("workload seq-read needs 64.0 MiB")
            && err.contains("lower fill")
            && err.contains("bigger --lab-size"),
        "{err}"
    );
    assert_torn_down(&lab.path());
}

#[test]
fn malformed_aging_modifiers_are_one_line_before_anything_is_built() {
    let lab = LabDir::new();
    for (arg, says) in [
        ("tmpfs:aged", "lab kind tmpfs cannot be aged"),
        ("ext4:aged:fill=200", "invalid fill=200"),
        ("ext4:aged:churn=x", "invalid churn=x"),
        ("ext4:aged:depth=3", "unknown aging key 'depth'"),
        ("ext4:old", "unknown lab modifier 'old'"),
        ("ext4:aged,ext4:aged", "'ext4-aged' is given twice"),
    ] {
        let out = fsbench()
            .args(["run", "--lab", arg, "-w", "null", "--lab-dir"])
            .arg(lab.path())
            .output()
            .expect("run fsbench");
        assert_eq!(out.status.code(), Some(2), "{arg}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(err.contains(says) && err.contains(" — "), "{arg}: {err}");
        assert!(entries(&lab.path()).is_empty(), "built something: {err}");
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_tool_mkfs_ext4, fsbench_tool_losetup, fsbench_tool_mount)),
    ignore = "needs mkfs.ext4, losetup and mount"
)]
fn aging_without_filefrag_is_refused_naming_its_package() {
    // A PATH with everything plain ext4 needs, but not the tools that measure fragmentation.
    let bin = temp_dir();
    for tool in ["mkfs.ext4", "losetup", "mount", "umount"] {
        let path = crate::util::which(tool).expect(tool);
        std::os::unix::fs::symlink(path, bin.path().join(tool)).unwrap();
    }
    let lab = LabDir::new();
    let out = fsbench()
        .args([
            "run",
            "--lab",
            "ext4,ext4:aged:churn=2",
            "-w",
            "null",
            "--lab-dir",
        ])
        .arg(lab.path())
        .env("PATH", bin.path())
        .output()
        .expect("run fsbench");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot build --lab ext4:aged:churn=2:")
            && err.contains("filefrag is not installed (apt-get install e2fsprogs)")
            && err.contains("drop ext4:aged:churn=2 from --lab"),
        "{err}"
    );
    assert!(entries(&lab.path()).is_empty(), "built something: {err}");
}

#[test]
fn a_suite_lists_fresh_and_aged_targets() {
    let dir = temp_dir();
    let suite = dir.path().join("aged.toml");
    let text = |lab: &str| {
        format!(
            "name = \"aged\"\ndescription = \"fresh and aged\"\nlab = [{lab}]\nbaseline = \"ext4-aged-fill60\"\n[[workload]]\nname = \"null\"\n"
        )
    };
    std::fs::write(&suite, text("\"ext4\", \"ext4:aged:fill=60\"")).unwrap();
    let out = fsbench()
        .args(["suite", "show"])
        .arg(&suite)
        .output()
        .expect("suite show");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::write(&suite, text("\"ext4\", \"ext4:aged:fill=600\"")).unwrap();
    let out = fsbench()
        .args(["suite", "show"])
        .arg(&suite)
        .output()
        .expect("suite show");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("aged.toml:3:7: in lab: invalid fill=600"),
        "{err}"
    );
}

/// Starts `fsbench run --lab ext4:aged:churn=100` and returns once aging files exist in the
/// aged target (long before the 100 rounds are done).
#[allow(clippy::zombie_processes)] // the caller waits for the child
fn start_aging(lab: &Path) -> Child {
    let mut child = crate::util::command()
        .args(["run", "--lab", "ext4:aged:churn=100", "-w", "null"])
        .args(["--runs", "1", "--cache", "warm", "-q", "--lab-dir"])
        .arg(lab)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start fsbench");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let aging: Option<PathBuf> = entries(lab)
            .into_iter()
            .find(|e| e.starts_with(".fsbench-lab-"))
            .map(|s| lab.join(s).join("ext4-aged-churn100/mnt/fsbench-aged/d00"))
            .map(|d| crate::lab::as_seen_by(child.id(), &d));
        if aging.is_some_and(|d| entries(&d).iter().any(|s| !entries(&d.join(s)).is_empty())) {
            return child;
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("fsbench ended before aging: {status}");
        }
        assert!(Instant::now() < deadline, "aging never started");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_tool_filefrag)),
    ignore = "needs root, mkfs.ext4 and filefrag"
)]
fn sigint_during_aging_tears_down_and_exits_130() {
    let lab = LabDir::new();
    let mut child = start_aging(&lab.path());
    let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    assert_eq!(wait_exit(&mut child), 130);
    assert_torn_down(&lab.path());
}

#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_tool_filefrag)),
    ignore = "needs root, mkfs.ext4 and filefrag"
)]
fn sigkill_during_aging_leaves_no_mount_and_clean_removes_the_images() {
    let lab = LabDir::new();
    let mut child = start_aging(&lab.path());
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    crate::lab::assert_nothing_left_running(&lab.path());
    let text = clean_lab(&lab.path());
    assert!(!text.contains("unmounted"), "{text}");
    assert!(text.contains("1 stale scratch directory removed"), "{text}");
    assert_torn_down(&lab.path());
}
