//! Safe tree removal, shared by workloads (deleting what they made) and the binary's scratch
//! directory: never follows a symlink and never crosses into another filesystem. Every step is
//! relative to an already opened directory fd, so a symlink swapped in mid-removal is unlinked,
//! never followed.

use crate::WorkloadError;
use rustix::fs::{AtFlags, Mode, OFlags};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Removes `root` and everything under it; a missing `root` is not an error. A mount point
/// inside the tree stops the removal with EXDEV (its contents are left alone).
pub fn remove_all_io(root: &Path) -> std::io::Result<()> {
    let meta = match std::fs::symlink_metadata(root) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    if !meta.is_dir() {
        return std::fs::remove_file(root);
    }
    let dir = open_dir_nofollow(rustix::fs::CWD, root)?;
    empty_dir(&dir, meta.dev())?;
    drop(dir);
    std::fs::remove_dir(root)
}

/// [`remove_all_io`] with the workload error type.
pub fn remove_all(root: &Path) -> Result<(), WorkloadError> {
    remove_all_io(root).map_err(|e| WorkloadError::io("remove", root, e))
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

/// Empties the directory `dir` (which lives on device `dev`), depth first. The entry type from
/// getdents decides; only directories (and file systems that do not report types) cost a stat,
/// as `rm -rf` does.
fn empty_dir(dir: &OwnedFd, dev: u64) -> rustix::io::Result<()> {
    use rustix::fs::FileType;
    let mut entries = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        if name.to_bytes() != b"." && name.to_bytes() != b".." {
            entries.push((name.to_owned(), entry.file_type()));
        }
    }
    for (name, kind) in entries {
        let is_dir = match kind {
            FileType::Directory | FileType::Unknown => {
                let st = rustix::fs::statat(dir, name.as_c_str(), AtFlags::SYMLINK_NOFOLLOW)?;
                if FileType::from_raw_mode(st.st_mode) == FileType::Directory {
                    if st.st_dev != dev {
                        return Err(rustix::io::Errno::XDEV);
                    }
                    true
                } else {
                    false
                }
            }
            _ => false,
        };
        if is_dir {
            let sub = open_dir_nofollow(dir, name.as_c_str())?;
            empty_dir(&sub, dev)?;
            drop(sub);
            rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::REMOVEDIR)?;
        } else {
            rustix::fs::unlinkat(dir, name.as_c_str(), AtFlags::empty())?;
        }
    }
    Ok(())
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
        remove_all(&root).unwrap();
        assert!(!root.exists());
        assert!(outside.path().join("keep").exists());
        remove_all(&root).unwrap();
    }
}
