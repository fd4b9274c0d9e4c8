//! Hardening (issue 10): each class of hostile or careless input, tried through the real binary.
//! Nothing outside the scratch is touched, nothing panics, bad input is refused before any work.

use crate::safety::{start_long_run, wait_exit};
use crate::util::{entries, fsbench, root_or_skip, temp_dir};
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
fn clean_never_deletes_through_a_bind_mount() {
    if !root_or_skip("clean_never_deletes_through_a_bind_mount") {
        return;
    }
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
fn a_run_never_deletes_through_a_bind_mount_in_its_scratch() {
    if !root_or_skip("a_run_never_deletes_through_a_bind_mount_in_its_scratch") {
        return;
    }
    let target = temp_dir();
    let precious = tempfile::tempdir_in(target.path().parent().unwrap()).unwrap();
    std::fs::write(precious.path().join("keep"), b"precious").unwrap();
    let (mut child, workdir) = start_long_run(target.path());
    std::fs::create_dir(workdir.join("mnt")).unwrap();
    let m = BindMount::new(precious.path(), &workdir.join("mnt"));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    // The scratch cannot be removed while a mount sits in it: a failure that names the mount.
    assert_eq!(wait_exit(&mut child), 3);
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert!(err.contains("mnt is a mount point"), "{err}");
    drop(m);
    assert_eq!(
        std::fs::read(precious.path().join("keep")).unwrap(),
        b"precious"
    );
}

#[test]
fn a_scratch_that_is_itself_a_mount_point_is_not_emptied() {
    if !root_or_skip("a_scratch_that_is_itself_a_mount_point_is_not_emptied") {
        return;
    }
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
