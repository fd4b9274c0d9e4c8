//! Safe tree removal, shared by workloads (deleting what they made) and the scratch
//! directory: never follows a symlink, never crosses into another filesystem and never enters a
//! mount point, bind mounts of the same filesystem included. Every step is relative to an already
//! opened directory fd, so a symlink swapped in mid-removal is unlinked, never followed.
//!
//! Mount points are recognised by the mount id that `statx` reports (`STATX_MNT_ID`, Linux 5.8)
//! and its `STATX_ATTR_MOUNT_ROOT` attribute: a bind mount has the same device number as the
//! filesystem it sits on, so comparing `st_dev` alone (what `rm -rf --one-file-system` does) would
//! delete a bind-mounted directory's contents. Kernels without mount ids fall back to the device
//! number plus the list in `/proc/self/mountinfo`.

use rustix::fs::{AtFlags, Mode, OFlags, StatxAttributes, StatxFlags};
use std::io::{Error, ErrorKind};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Removes `root` and everything under it; a missing `root` is not an error. A mount point at or
/// inside the tree stops the removal with an error naming it (its contents are left alone).
pub fn remove_all_io(root: &Path) -> std::io::Result<()> {
    remove_all_but_last(root, "")
}

/// [`remove_all_io`], calling `removed` after every entry removed below `root` (what a
/// measured removal counts as it goes).
pub fn remove_all_counted(root: &Path, removed: &mut dyn FnMut()) -> std::io::Result<()> {
    remove(root, "", removed)
}

/// [`remove_all_io`], keeping the entry `last` directly in `root` until everything else is gone
/// (a scratch's marker: a removal stopped by a mount leaves the directory still naming its
/// owner). An empty `last` keeps nothing back.
pub fn remove_all_but_last(root: &Path, last: &str) -> std::io::Result<()> {
    remove(root, last, &mut || {})
}

fn remove(root: &Path, last: &str, removed: &mut dyn FnMut()) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !meta.is_dir() {
        return std::fs::remove_file(root).map_err(|e| busy_is_mount(e, root));
    }
    let dir = open_dir_nofollow(rustix::fs::CWD, root).map_err(Error::from)?;
    let id = MountId::of(&dir).map_err(Error::from)?;
    if id.is_mount_root || is_listed_mount_point(root) {
        return Err(mount_error(root));
    }
    // Another thread of this process may still be writing in the tree (a signal's forced exit
    // removes a scratch while the main thread fills it): entries that vanish are skipped, and a
    // directory that gained entries meanwhile is emptied again, for as long as REFILL_FOR.
    let until = std::time::Instant::now() + REFILL_FOR;
    while std::time::Instant::now() < until {
        match empty_dir(&dir, &id, root, last.as_bytes(), removed) {
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => continue,
            other => other?,
        }
        if !last.is_empty() {
            unless_gone(rustix::fs::unlinkat(&dir, last, AtFlags::empty()))?;
        }
        match std::fs::remove_dir(root) {
            Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => continue,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
            other => return other.map_err(|e| busy_is_mount(e, root)),
        }
    }
    std::fs::remove_dir(root).map_err(|e| busy_is_mount(e, root))
}

/// How long a tree that keeps gaining entries during its removal is emptied again. A bound in
/// time, not in rounds: a round is a few microseconds or a scheduler's time slice, as the
/// machine goes, while a writer that stops (a workload seeing its cancel) takes its own time to
/// stop. One that never stops leaves the error (ENOTEMPTY) after it.
const REFILL_FOR: std::time::Duration = std::time::Duration::from_secs(1);

/// `Ok(None)` for an entry that vanished before it was reached (removed by another thread).
fn unless_gone<T>(r: rustix::io::Result<T>) -> rustix::io::Result<Option<T>> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(e) => Err(e),
    }
}

fn open_dir_nofollow<Fd: AsFd, P: rustix::path::Arg>(
    parent: Fd,
    name: P,
) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Which mount an open directory belongs to.
struct MountId {
    /// `stx_mnt_id` when the kernel reports it.
    mnt_id: Option<u64>,
    /// Device number (the fallback).
    dev: u64,
    /// The directory is the root of a mount (`STATX_ATTR_MOUNT_ROOT`).
    is_mount_root: bool,
}

impl MountId {
    fn of(dir: &OwnedFd) -> rustix::io::Result<Self> {
        let st = rustix::fs::statx(
            dir,
            "",
            AtFlags::EMPTY_PATH | AtFlags::SYMLINK_NOFOLLOW,
            StatxFlags::TYPE | StatxFlags::MNT_ID,
        )?;
        let has_mnt_id = st.stx_mask & StatxFlags::MNT_ID.bits() != 0;
        let mnt_id = has_mnt_id.then_some(st.stx_mnt_id);
        let root_known = st.stx_attributes_mask.contains(StatxAttributes::MOUNT_ROOT);
        Ok(Self {
            mnt_id,
            dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            is_mount_root: root_known && st.stx_attributes.contains(StatxAttributes::MOUNT_ROOT),
        })
    }

    /// True when `other` (a directory below) is on another mount than `self`.
    fn crossed_by(&self, other: &MountId) -> bool {
        other.is_mount_root
            || other.dev != self.dev
            || matches!((self.mnt_id, other.mnt_id), (Some(a), Some(b)) if a != b)
    }
}

/// Empties the directory `dir` (at `path`, on mount `mount`), depth first, but for the entry
/// named `keep` (none when empty). The entry type from getdents decides; only directories (and
/// file systems that do not report types) cost an extra call, as `rm -rf` does.
fn empty_dir(
    dir: &OwnedFd,
    mount: &MountId,
    path: &Path,
    keep: &[u8],
    removed: &mut dyn FnMut(),
) -> std::io::Result<()> {
    use rustix::fs::FileType;
    let mut entries = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let n = name.to_bytes();
        if n != b"." && n != b".." && (keep.is_empty() || n != keep) {
            entries.push((name.to_owned(), entry.file_type()));
        }
    }
    for (name, kind) in entries {
        // Built only when needed: removal is measured by tar-delete.
        let child = || path.join(std::ffi::OsStr::from_bytes(name.to_bytes()));
        let is_dir = match kind {
            FileType::Directory => true,
            FileType::Unknown => {
                let st = rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW);
                let Some(st) = unless_gone(st)? else { continue };
                FileType::from_raw_mode(st.st_mode) == FileType::Directory
            }
            _ => false,
        };
        if is_dir {
            let Some(sub) = unless_gone(open_dir_nofollow(dir, name.as_c_str()))? else {
                continue;
            };
            let sub_id = MountId::of(&sub)?;
            if mount.crossed_by(&sub_id)
                || (mount.mnt_id.is_none() && is_listed_mount_point(&child()))
            {
                return Err(mount_error(&child()));
            }
            empty_dir(&sub, mount, &child(), b"", removed)?;
            drop(sub);
            let gone = unless_gone(rustix::fs::unlinkat(
                dir,
                name.as_c_str(),
                AtFlags::REMOVEDIR,
            ))
            .map_err(|e| busy_is_mount(e.into(), &child()))?;
            if gone.is_some() {
                removed();
            }
        } else {
            let gone = unless_gone(rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty()))
                .map_err(|e| busy_is_mount(e.into(), &child()))?;
            if gone.is_some() {
                removed();
            }
        }
    }
    Ok(())
}

/// The error for a mount point met during removal.
fn mount_error(path: &Path) -> Error {
    Error::new(
        ErrorKind::ResourceBusy,
        format!(
            "{} is a mount point; its contents were left alone — unmount it (umount {}) and retry",
            path.display(),
            path.display()
        ),
    )
}

/// EBUSY from unlink/rmdir means a mount (of a file or directory) sits there.
fn busy_is_mount(e: Error, path: &Path) -> Error {
    if e.raw_os_error() == Some(libc::EBUSY) {
        mount_error(path)
    } else {
        e
    }
}

/// Fallback for kernels without `STATX_MNT_ID`: whether `path` is listed in mountinfo.
fn is_listed_mount_point(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string("/proc/self/mountinfo") else {
        return false;
    };
    let want: PathBuf = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    text.lines()
        .filter_map(|l| l.split(' ').nth(4))
        .any(|mp| Path::new(&unescape_mountinfo(mp)) == want)
}

/// Undoes the octal escapes of `/proc/self/mountinfo` (`\040` is a space); shared with the
/// storage-stack's mountinfo parser.
pub fn unescape_mountinfo(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let d = b.get(i + 1..i + 4);
        match d {
            Some(d) if b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            _ => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removes_a_tree_but_not_what_symlinks_point_to() {
        let t = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep"), b"x").unwrap();
        let root = t.path().join("r");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f"), b"x").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("a/link")).unwrap();
        remove_all_io(&root).unwrap();
        assert!(!root.exists());
        assert!(outside.path().join("keep").exists());
        remove_all_io(&root).unwrap();
    }

    #[test]
    fn a_counted_removal_counts_every_entry_below_the_root() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("r");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f"), b"x").unwrap();
        std::fs::write(root.join("g"), b"x").unwrap();
        let mut n = 0;
        remove_all_counted(&root, &mut || n += 1).unwrap();
        assert!(!root.exists());
        assert_eq!(n, 4, "a, a/b, a/b/f, g");
    }

    #[test]
    fn a_tree_still_being_written_by_another_thread_is_removed() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("r");
        std::fs::create_dir_all(root.join("d")).unwrap();
        for i in 0..2000 {
            std::fs::write(root.join("d").join(i.to_string()), b"x").unwrap();
        }
        let writer_root = root.clone();
        let writer = std::thread::spawn(move || {
            // Creates and removes a fixed number of files, as a workload would before it sees
            // its cancel, at a fast workload's pace. The remover keeps emptying the tree for a
            // second, far longer than these 1,000 files take on any machine, loaded or not.
            for i in 0..1000 {
                std::thread::sleep(std::time::Duration::from_micros(20));
                let f = writer_root.join("d").join(format!("w{i}"));
                if std::fs::write(&f, b"x").is_err() {
                    return;
                }
                let _ = std::fs::remove_file(writer_root.join("d").join((i % 2000).to_string()));
            }
        });
        remove_all_io(&root).unwrap();
        writer.join().unwrap();
        assert!(!root.exists());
    }

    #[test]
    fn mountinfo_escapes_are_undone() {
        assert_eq!(unescape_mountinfo("/mnt/my\\040disk"), "/mnt/my disk");
        assert_eq!(unescape_mountinfo("/a\\\\b"), "/a\\\\b");
    }
}
