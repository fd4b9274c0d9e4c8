//! Helpers for integration tests: temp dirs, running the binary, running it as a non-root
//! user. What a test needs (root, a tool, a device) is said on the test itself with
//! `#[cfg_attr(not(...), ignore = "needs ...")]` on flags from `fsbench-testenv` (the build
//! script), so a test that cannot run here shows as ignored in the summary.
//!
//! A test that changes what the whole machine does (the kernel's dirty-page limits, which count
//! every process's dirty pages) holds [`alone`] while it does: the other tests of this binary
//! run fsbench only through [`fsbench`] or [`command`] (or call [`share_the_machine`] before
//! other heavy work), which wait until it is done, and it waits until the tests that ran
//! fsbench before it are done.

#![allow(dead_code)]

use assert_cmd::Command;
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// A results database directory shared by the tests of this process (never the user's own).
pub fn data_home() -> &'static Path {
    static DIR: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        // Under cargo's temp dir for integration tests (inside target/): a static is never
        // dropped, so a directory in /tmp would be left behind by every test run.
        tempfile::Builder::new()
            .prefix("fsbench-test-data")
            .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
            .expect("create data dir")
    })
    .path()
}

/// Held (shared) by every test thread that ran fsbench, until the test ends; held alone by a
/// test that changes the whole machine ([`alone`]).
static MACHINE: RwLock<()> = RwLock::new(());

thread_local! {
    /// This test's shared hold of [`MACHINE`], dropped when its thread (the test) ends.
    static SHARED: RefCell<Option<RwLockReadGuard<'static, ()>>> = const { RefCell::new(None) };
    /// True while this test holds [`MACHINE`] alone.
    static ALONE: Cell<bool> = const { Cell::new(false) };
}

/// Waits while a test that changes the whole machine runs, then holds it off until this test
/// ends: [`fsbench`] and [`command`] call it; so does a test that starts other heavy work (a
/// cargo build). The hold belongs to the calling thread: a test that ran fsbench must not then
/// wait for a thread of its own that calls this (an [`alone`] waiting in between blocks it).
pub fn share_the_machine() {
    if ALONE.get() {
        return;
    }
    SHARED.with_borrow_mut(|held| {
        if held.is_none() {
            *held = Some(MACHINE.read().unwrap_or_else(PoisonError::into_inner));
        }
    });
}

/// The machine to this test alone while the returned guard lives: no other test of this binary
/// runs fsbench meanwhile (each one running when it is called ends first).
pub struct Alone {
    _machine: RwLockWriteGuard<'static, ()>,
}

/// Takes the machine for this test alone (see [`Alone`]).
pub fn alone() -> Alone {
    // This test's own shared hold first, or it would wait for itself.
    SHARED.with_borrow_mut(|held| held.take());
    let guard = MACHINE.write().unwrap_or_else(PoisonError::into_inner);
    ALONE.set(true);
    Alone { _machine: guard }
}

impl Drop for Alone {
    fn drop(&mut self) {
        ALONE.set(false);
    }
}

/// A `fsbench` command with colour off and a clean environment for the things it reads.
pub fn fsbench() -> Command {
    share_the_machine();
    let mut cmd = Command::cargo_bin("fsbench").expect("fsbench binary is built");
    cmd.env("NO_COLOR", "1").env("XDG_DATA_HOME", data_home());
    cmd
}

/// The same as a plain `std::process::Command`, for tests that signal or kill the process.
pub fn command() -> std::process::Command {
    share_the_machine();
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin("fsbench"));
    cmd.env("NO_COLOR", "1").env("XDG_DATA_HOME", data_home());
    cmd
}

/// CPU hogs that are killed when dropped: the other work of a busy machine.
pub struct Hogs(Vec<std::process::Child>);

impl Hogs {
    /// `n` busy loops (`sh -c 'while :; do :; done'`), other processes to fsbench.
    pub fn start(n: usize) -> Self {
        Self(
            (0..n)
                .map(|_| {
                    std::process::Command::new("sh")
                        .args(["-c", "while :; do :; done"])
                        .spawn()
                        .expect("sh")
                })
                .collect(),
        )
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// One CPU hog per CPU ([`Hogs::start`]): the machine kept busy by other work.
pub fn hog_every_cpu() -> Hogs {
    Hogs::start(std::thread::available_parallelism().map_or(2, |n| n.get()))
}

/// A fresh temporary directory, removed when dropped.
pub fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fsbench-test")
        .tempdir()
        .expect("create temp dir")
}

/// The entries of `dir` (names only), sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Path of a committed fixture under `tests/fixtures`.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// A `fsbench` command that runs as user nobody (uid/gid 65534) from a copy of the binary in a
/// fresh world-readable directory, so it works wherever the checkout lives (a clone under a
/// mode-700 home cannot be reached by nobody). Keep the returned directory alive while running.
pub fn command_as_nobody() -> (tempfile::TempDir, std::process::Command) {
    share_the_machine();
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let dir = tempfile::Builder::new()
        .prefix("fsbench-nobody")
        .tempdir_in("/tmp")
        .expect("create a directory for the binary");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("make it traversable");
    let exe = dir.path().join("fsbench");
    std::fs::copy(assert_cmd::cargo::cargo_bin("fsbench"), &exe).expect("copy the binary");
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut cmd = std::process::Command::new(&exe);
    cmd.env("NO_COLOR", "1")
        .env("XDG_DATA_HOME", dir.path())
        .current_dir("/")
        .uid(65534)
        .gid(65534);
    (dir, cmd)
}

/// A `fsbench` command that runs without root: as nobody ([`command_as_nobody`]) when the tests
/// run as root, else as the current user. Keep the returned directory alive while running.
pub fn command_without_root() -> (Option<tempfile::TempDir>, std::process::Command) {
    if rustix::process::geteuid().is_root() {
        let (dir, cmd) = command_as_nobody();
        (Some(dir), cmd)
    } else {
        let mut cmd = command();
        cmd.current_dir("/");
        (None, cmd)
    }
}

/// Pids of live processes whose command line mentions `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let zombie = stat
            .rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'));
        if !zombie && String::from_utf8_lossy(&cmdline).contains(needle) {
            pids.push(pid);
        }
    }
    pids
}

/// The executable `name` in a directory of `PATH`, if any.
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// An ext4 filesystem on a loop device (`mount -o loop` of a sparse image in a temp dir), with an
/// empty directory in it: a directory on a block device that accepts direct I/O wherever the
/// checkout, its target directory and /tmp live (tmpfs included). Unmounted when dropped (the
/// loop device goes with it); needs root, mkfs.ext4 and mount.
pub struct LoopExt4 {
    dir: tempfile::TempDir,
}

impl LoopExt4 {
    /// A fresh filesystem of `size` bytes.
    pub fn new(size: u64) -> Self {
        let dir = temp_dir();
        let image = dir.path().join("disk.img");
        std::fs::File::create(&image)
            .and_then(|f| f.set_len(size))
            .expect("sparse image");
        let mnt = dir.path().join("mnt");
        std::fs::create_dir(&mnt).expect("mkdir mnt");
        let run = |prog: &str, args: &[&std::ffi::OsStr]| {
            let out = std::process::Command::new(prog)
                .args(args)
                .output()
                .unwrap_or_else(|e| panic!("{prog}: {e}"));
            assert!(
                out.status.success(),
                "{prog} {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        run(
            "mkfs.ext4",
            &["-q".as_ref(), "-F".as_ref(), image.as_os_str()],
        );
        let disk = Self { dir };
        run(
            "mount",
            &[
                "-o".as_ref(),
                "loop".as_ref(),
                image.as_os_str(),
                mnt.as_os_str(),
            ],
        );
        std::fs::create_dir(disk.path()).expect("mkdir in the mount");
        disk
    }

    /// The empty directory in the filesystem.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join("mnt/dir")
    }
}

impl Drop for LoopExt4 {
    fn drop(&mut self) {
        let mnt = self.dir.path().join("mnt");
        let umount = |lazy: bool| {
            let mut c = std::process::Command::new("umount");
            if lazy {
                c.arg("-l");
            }
            c.arg(&mnt).output().is_ok_and(|o| o.status.success())
        };
        if !umount(false) {
            umount(true);
        }
    }
}
