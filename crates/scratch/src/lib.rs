//! The scratch directory: the only place fsbench writes. `TARGET/.fsbench-<run id>/` is created
//! fresh with a marker file naming the owner process; it is removed on success, error and signal,
//! without ever following a symlink or crossing a mount boundary. Leftovers of killed runs are
//! found by `find_stale` (`fsbench clean`).

#![warn(missing_docs)]

pub mod guard;
pub mod judge;

use fsbench_sys::cleanup::{Cleanup, Registration, Stage};
pub use fsbench_sys::process::{host_name, owner_alive, process_start_ticks};
use std::path::{Path, PathBuf};

/// Prefix of every scratch directory name.
pub const PREFIX: &str = ".fsbench-";
/// Name of the marker file inside a scratch directory.
pub const MARKER: &str = ".fsbench-scratch";

/// Why a scratch could not be made or removed.
#[derive(Debug)]
pub struct ScratchError {
    /// One line: what, where, how to fix.
    pub message: String,
    /// The raw OS error, if any (ENOSPC, EROFS...).
    pub errno: Option<i32>,
}

impl std::fmt::Display for ScratchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A scratch directory owned by this process; removed when dropped.
#[derive(Debug)]
pub struct Scratch {
    path: PathBuf,
    removed: bool,
    /// False for a scratch another MPI rank made (`attach`): never removed from here.
    owned: bool,
    /// Removes it if the process must stop before this is dropped (the cleanup registry).
    registration: Option<Registration>,
}

impl Scratch {
    /// Creates `target/.fsbench-<run_id>` (mode 0700) with its marker. Explains missing,
    /// non-directory, read-only and permission-denied targets.
    /// `cleanup` removes it if fsbench must stop before it is removed or dropped.
    pub fn create(target: &Path, run_id: &str, cleanup: &Cleanup) -> Result<Self, ScratchError> {
        check_target_dir(target)?;
        let path = target.join(format!("{PREFIX}{run_id}"));
        let undo_path = path.clone();
        // Made and registered as one step: a signal's release cannot fall between the two.
        let made = cleanup.make_registered(
            Stage::Scratches,
            || std::fs::DirBuilder::new().mode_0700().create(&path),
            move || {
                remove_tree(&undo_path)
                    .err()
                    .map(|e| e.message)
                    .into_iter()
                    .collect()
            },
        );
        let registration = match made {
            Ok(Some(((), registration))) => registration,
            Ok(None) => {
                return Err(ScratchError {
                    message: format!(
                        "interrupted before a scratch was made in {}",
                        target.display()
                    ),
                    errno: None,
                });
            }
            Err(e) => return Err(explain(&e, target, "cannot create the scratch directory")),
        };
        let scratch = Self {
            path,
            removed: false,
            owned: true,
            registration: Some(registration),
        };
        let marker = format!(
            "pid={}\nstart_ticks={}\nrun={run_id}\nhost={}\n",
            std::process::id(),
            process_start_ticks(std::process::id()).unwrap_or(0),
            host_name()
        );
        if let Err(e) = std::fs::write(scratch.path.join(MARKER), marker) {
            return Err(explain(&e, target, "cannot write the scratch marker"));
        }
        Ok(scratch)
    }

    /// [`Scratch::create`] with the scratch guard told first, before the directory exists: a
    /// SIGKILL at any moment after `mkdir` leaves nothing (with [`Scratch::guard`] after
    /// creating, one landing between the two left the directory). The guard removes a listed
    /// directory only when its marker names this process, or, before the marker is complete, when
    /// it holds nothing but an unfinished marker; a name that already existed is forgotten again
    /// at once.
    pub fn create_guarded(
        target: &Path,
        run_id: &str,
        cleanup: &Cleanup,
    ) -> Result<Self, ScratchError> {
        let path = target.join(format!("{PREFIX}{run_id}"));
        crate::guard::watch(&path);
        Self::create(target, run_id, cleanup).inspect_err(|_| crate::guard::forget(&path))
    }

    /// Uses the scratch `target/.fsbench-<run_id>` that MPI rank 0 created, without owning it
    /// (it is never removed from here). Fails when it is not there or is another run's: the
    /// target is not one filesystem seen by every rank.
    pub fn attach(target: &Path, run_id: &str) -> Result<Self, ScratchError> {
        let path = target.join(format!("{PREFIX}{run_id}"));
        let marker = std::fs::read_to_string(path.join(MARKER)).unwrap_or_default();
        if !marker.lines().any(|l| l == format!("run={run_id}")) {
            return Err(ScratchError {
                message: format!(
                    "--layout shared: rank 0's scratch {} is not visible here — the target must be one \
                     filesystem seen by every rank (a network or cluster filesystem); use --layout per-rank otherwise",
                    path.display()
                ),
                errno: None,
            });
        }
        Ok(Self {
            path,
            removed: true,
            owned: false,
            registration: None,
        })
    }

    /// Has the scratch guard remove this scratch if fsbench dies without removing it (SIGKILL):
    /// for run scratches, not for a lab's (whose mounts and loop devices `fsbench clean` undoes).
    pub fn guard(self) -> Self {
        if self.owned {
            crate::guard::watch(&self.path);
        }
        self
    }

    /// The scratch directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leaves the scratch in place for `fsbench clean` (something in it could not be undone, such
    /// as a loop device still attached to an image there): it is no longer removed on drop or by
    /// the signal watcher.
    pub fn keep(mut self) {
        self.removed = true;
        self.unregister();
    }

    /// Removes the scratch now and reports a failure (Drop only tries).
    pub fn remove(mut self) -> Result<(), ScratchError> {
        self.removed = true;
        if !self.owned {
            return Ok(());
        }
        // Removed, then forgotten: a forced exit (a second signal) between the two would
        // otherwise find nothing to remove and end the process halfway through this removal,
        // leaving the scratch behind. Two removals at once are safe (each takes what is left).
        let removed = remove_tree(&self.path);
        self.unregister();
        removed
    }

    /// Its removal is no longer anyone else's business: the registry and the guard forget it.
    fn unregister(&mut self) {
        self.registration = None;
        crate::guard::forget(&self.path);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.removed {
            // Removed before it is forgotten, as in `remove`.
            let _ = remove_tree(&self.path);
            self.unregister();
        }
    }
}

trait Mode0700 {
    fn mode_0700(&mut self) -> &mut Self;
}

impl Mode0700 for std::fs::DirBuilder {
    fn mode_0700(&mut self) -> &mut Self {
        use std::os::unix::fs::DirBuilderExt;
        self.mode(0o700)
    }
}

/// Checks that `target` exists and is a directory, with a one-line explanation otherwise.
pub fn check_target_dir(target: &Path) -> Result<(), ScratchError> {
    match std::fs::metadata(target) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(ScratchError {
            message: format!(
                "target is not a directory ({}) — give a directory on the filesystem to test",
                target.display()
            ),
            errno: None,
        }),
        Err(e) => Err(explain(&e, target, "cannot use target")),
    }
}

/// Turns an OS error on `target` into a one-line message with a fix.
pub fn explain(e: &std::io::Error, target: &Path, what: &str) -> ScratchError {
    let errno = e.raw_os_error();
    let hint = match errno {
        Some(libc::ENOENT) => "does not exist — create it or fix the path",
        Some(libc::EROFS) => {
            "is on a read-only filesystem — remount it read-write or pick another target"
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied — pick a directory you can write to, or run with the needed rights"
        }
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => {
            "has no space left — free some space or pick another target"
        }
        Some(libc::ENOTDIR) => "is not a directory — give a directory",
        _ => "failed — check the path and its filesystem",
    };
    ScratchError {
        message: format!("{what}: {e} ({}) — target {hint}", target.display()),
        errno,
    }
}

/// Removes the scratch at `root` without following symlinks and without crossing into another
/// filesystem (see `fsbench_sys::remove`). Its marker goes last: a removal stopped half-way (a
/// mount inside) leaves a scratch that still names its owner, so `fsbench clean` can judge it
/// once the mount is gone.
pub fn remove_tree(root: &Path) -> Result<(), ScratchError> {
    fsbench_sys::remove::remove_all_but_last(root, MARKER).map_err(|e| ScratchError {
        message: format!(
            "cannot remove scratch {}: {e} — remove it by hand",
            root.display()
        ),
        errno: e.raw_os_error(),
    })
}

/// A scratch directory found in a target, and whether its owner is gone.
#[derive(Debug, Clone)]
pub struct Found {
    /// The scratch directory.
    pub path: PathBuf,
    /// Owner pid from the marker, if readable.
    pub pid: Option<u32>,
    /// True when the owner process no longer exists (pid gone or reused).
    pub stale: bool,
    /// Whether it holds a readable fsbench marker (without one it may not be ours).
    pub marked: bool,
    /// The host its marker names, when that is not this host (its owner cannot be judged here).
    pub elsewhere: Option<String>,
    /// How long since it was last modified (a directory without a marker that has not changed
    /// for a while is no run's scratch in the making).
    pub age: std::time::Duration,
}

/// Lists the scratch directories directly inside `target` and whether each one's owner is gone.
/// A directory without a readable marker is never reported as stale (it may not be ours).
pub fn find_scratches(target: &Path) -> Result<Vec<Found>, ScratchError> {
    let rd = std::fs::read_dir(target).map_err(|e| explain(&e, target, "cannot list target"))?;
    let mut found = Vec::new();
    for entry in rd.flatten() {
        let name = entry.file_name();
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        if !is_dir || !name.to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let path = entry.path();
        let marker = std::fs::read_to_string(path.join(MARKER)).ok();
        let (pid, ticks) = marker.as_deref().map(parse_marker).unwrap_or((None, None));
        // A scratch made on another host (a shared filesystem) cannot be judged from here.
        let elsewhere = marker
            .as_deref()
            .and_then(|m| m.lines().find_map(|l| l.strip_prefix("host=")))
            .filter(|h| *h != host_name())
            .map(str::to_string);
        let stale = match (marker.is_some(), pid) {
            (true, Some(pid)) => elsewhere.is_none() && !owner_alive(pid, ticks),
            _ => false,
        };
        let age = std::fs::symlink_metadata(&path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .unwrap_or_default();
        found.push(Found {
            path,
            pid,
            stale,
            marked: marker.is_some(),
            elsewhere,
            age,
        });
    }
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(found)
}

fn parse_marker(text: &str) -> (Option<u32>, Option<u64>) {
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    (field("pid=").map(|p| p as u32), field("start_ticks="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_and_remove_leaves_nothing() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(t.path(), "unit1", &Cleanup::new()).unwrap();
        std::fs::create_dir_all(s.path().join("a/b")).unwrap();
        std::fs::write(s.path().join("a/b/f"), b"x").unwrap();
        s.remove().unwrap();
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
    }

    #[test]
    fn removal_does_not_follow_symlinks() {
        let t = tempfile::tempdir().unwrap();
        let canary = tempfile::tempdir().unwrap();
        std::fs::write(canary.path().join("keep"), b"x").unwrap();
        let s = Scratch::create(t.path(), "unit2", &Cleanup::new()).unwrap();
        std::os::unix::fs::symlink(canary.path(), s.path().join("link")).unwrap();
        std::os::unix::fs::symlink(canary.path().join("keep"), s.path().join("flink")).unwrap();
        drop(s);
        assert!(canary.path().join("keep").exists());
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
    }

    #[test]
    fn the_cleanup_registry_removes_a_scratch_left_live_and_forgets_a_removed_one() {
        let t = tempfile::tempdir().unwrap();
        let cleanup = Cleanup::new();
        let live = Scratch::create(t.path(), "left", &cleanup).unwrap();
        std::fs::write(live.path().join("f"), b"x").unwrap();
        let done = Scratch::create(t.path(), "done", &cleanup).unwrap();
        done.remove().unwrap();
        assert!(cleanup.release_all().is_empty());
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
        live.keep(); // already removed by the registry: nothing left to do
    }

    #[test]
    fn live_scratch_is_not_stale_and_dead_one_is() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(t.path(), "live", &Cleanup::new()).unwrap();
        let dead = t.path().join(format!("{PREFIX}dead"));
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dead.join(MARKER), "pid=4294967\nstart_ticks=1\n").unwrap();
        let found = find_scratches(t.path()).unwrap();
        assert_eq!(found.len(), 2);
        assert!(found.iter().any(|f| f.path == dead && f.stale));
        assert!(found.iter().any(|f| f.path == s.path() && !f.stale));
    }

    #[test]
    #[cfg_attr(not(fsbench_root), ignore = "needs root (to mount a tmpfs)")]
    fn removal_never_crosses_a_mount_point() {
        let t = tempfile::tempdir().unwrap();
        let s = Scratch::create(t.path(), "mnt", &Cleanup::new()).unwrap();
        let m = s.path().join("mnt");
        std::fs::create_dir(&m).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "tmpfs"])
            .arg(&m)
            .status()
            .unwrap();
        assert!(ok.success());
        std::fs::write(m.join("other-fs-file"), b"x").unwrap();
        let err = remove_tree(s.path()).unwrap_err();
        assert!(m.join("other-fs-file").exists(), "crossed into the mount");
        std::process::Command::new("umount")
            .arg(&m)
            .status()
            .unwrap();
        assert!(err.message.contains("cannot remove"), "{}", err.message);
        s.remove().unwrap();
        assert_eq!(std::fs::read_dir(t.path()).unwrap().count(), 0);
    }

    #[test]
    fn another_hosts_scratch_is_never_stale_and_attach_needs_the_marker() {
        let t = tempfile::tempdir().unwrap();
        let far = t.path().join(format!("{PREFIX}far"));
        std::fs::create_dir(&far).unwrap();
        std::fs::write(
            far.join(MARKER),
            "pid=4294967\nstart_ticks=1\nhost=elsewhere.example\n",
        )
        .unwrap();
        let found = find_scratches(t.path()).unwrap();
        assert!(!found[0].stale, "judged another host's scratch");
        assert!(Scratch::attach(t.path(), "nope").is_err());
        let s = Scratch::create(t.path(), "mine", &Cleanup::new()).unwrap();
        let a = Scratch::attach(t.path(), "mine").unwrap();
        drop(a);
        assert!(s.path().exists(), "an attached scratch was removed");
    }

    #[test]
    fn missing_and_file_targets_are_explained() {
        let t = tempfile::tempdir().unwrap();
        let e = Scratch::create(&t.path().join("nope"), "x", &Cleanup::new()).unwrap_err();
        assert!(e.message.contains("does not exist"), "{}", e.message);
        let f = t.path().join("file");
        std::fs::write(&f, b"").unwrap();
        let e = Scratch::create(&f, "x", &Cleanup::new()).unwrap_err();
        assert!(e.message.contains("not a directory"), "{}", e.message);
    }
}
