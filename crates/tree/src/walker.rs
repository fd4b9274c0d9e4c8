//! The directory-walk syscall loop (opendir/readdir/lstat, as `find` and the readdir-lock study
//! do): getdents64 into one reused buffer, one fstatat or statx per entry relative to the open
//! directory fd, depth first. Written on raw syscalls because it is the measured work: no
//! allocation per entry, no path strings, no extra open per directory.

use fsbench_io::CancelToken;
use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, StatxFlags};
use std::ffi::CString;
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;

/// How each directory entry is examined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatMode {
    /// `fstatat(AT_SYMLINK_NOFOLLOW)`: what lstat-based walkers do.
    Lstat,
    /// `statx` asking only for type, size and mtime.
    Statx,
    /// No stat: the entry's d_type decides whether to descend.
    None,
}

/// What one or more walks saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkCounts {
    /// Entries returned by readdir (`.` and `..` excluded).
    pub entries: u64,
    /// Directories opened (the root included).
    pub dirs: u64,
    /// Entries that could not be examined or opened (vanished, permission denied).
    pub errors: u64,
}

impl WalkCounts {
    /// Component-wise sum.
    pub fn add(&mut self, o: WalkCounts) {
        self.entries += o.entries;
        self.dirs += o.dirs;
        self.errors += o.errors;
    }
}

/// Walks the tree under `root` once, never following symlinks.
/// Each directory's entries are added to `progress` once it is read.
pub fn walk(
    root: &Path,
    stat: StatMode,
    cancel: &CancelToken,
    progress: Option<&fsbench_measure::Counter>,
) -> std::io::Result<WalkCounts> {
    let fd = open_dir(rustix::fs::CWD, root)?;
    let mut counts = WalkCounts::default();
    let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
    walk_dir(fd, stat, &mut buf, &mut counts, cancel, progress)?;
    Ok(counts)
}

fn open_dir<Fd: AsFd, P: rustix::path::Arg>(parent: Fd, name: P) -> rustix::io::Result<OwnedFd> {
    rustix::fs::openat(
        parent,
        name,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

fn is_dir(
    dir: &OwnedFd,
    name: &std::ffi::CStr,
    d_type: FileType,
    stat: StatMode,
) -> rustix::io::Result<bool> {
    match stat {
        StatMode::Lstat => {
            let st = rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)?;
            Ok(FileType::from_raw_mode(st.st_mode) == FileType::Directory)
        }
        StatMode::Statx => {
            let mask = StatxFlags::TYPE | StatxFlags::SIZE | StatxFlags::MTIME;
            let st = rustix::fs::statx(dir, name, AtFlags::SYMLINK_NOFOLLOW, mask)?;
            Ok(FileType::from_raw_mode(st.stx_mode as _) == FileType::Directory)
        }
        StatMode::None => Ok(d_type == FileType::Directory),
    }
}

fn walk_dir(
    dir: OwnedFd,
    stat: StatMode,
    buf: &mut [MaybeUninit<u8>],
    counts: &mut WalkCounts,
    cancel: &CancelToken,
    progress: Option<&fsbench_measure::Counter>,
) -> std::io::Result<()> {
    if cancel.is_cancelled() {
        return Err(std::io::Error::from(std::io::ErrorKind::Interrupted));
    }
    counts.dirs += 1;
    let mut subdirs: Vec<CString> = Vec::new();
    let before = counts.entries;
    {
        let mut raw = RawDir::new(&dir, buf);
        while let Some(entry) = raw.next() {
            let entry = entry?;
            let name = entry.file_name();
            if name.to_bytes() == b"." || name.to_bytes() == b".." {
                continue;
            }
            counts.entries += 1;
            match is_dir(&dir, name, entry.file_type(), stat) {
                Ok(true) => subdirs.push(name.to_owned()),
                Ok(false) => {}
                Err(_) => counts.errors += 1,
            }
        }
    }
    if let Some(p) = progress {
        p.add(counts.entries - before, 0);
    }
    for name in subdirs {
        match open_dir(&dir, name.as_c_str()) {
            Ok(sub) => walk_dir(sub, stat, buf, counts, cancel, progress)?,
            Err(_) => counts.errors += 1,
        }
    }
    Ok(())
}

/// Runs `n` walks of `root` one after another; each directory's entries go to `progress`.
pub fn walk_n(
    root: &Path,
    n: u64,
    stat: StatMode,
    cancel: &CancelToken,
    progress: Option<&fsbench_measure::Counter>,
) -> std::io::Result<WalkCounts> {
    let mut total = WalkCounts::default();
    for _ in 0..n {
        total.add(walk(root, stat, cancel, progress)?);
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_entries_and_dirs_without_following_symlinks() {
        let t = tempfile::tempdir().unwrap();
        let r = t.path();
        std::fs::create_dir_all(r.join("a/b")).unwrap();
        std::fs::write(r.join("a/f1"), b"").unwrap();
        std::fs::write(r.join("a/b/f2"), b"").unwrap();
        std::os::unix::fs::symlink("/usr", r.join("a/link")).unwrap();
        for mode in [StatMode::Lstat, StatMode::Statx, StatMode::None] {
            let c = walk(r, mode, &CancelToken::new(), None).unwrap();
            // a, a/b, a/f1, a/link, a/b/f2
            assert_eq!(
                c,
                WalkCounts {
                    entries: 5,
                    dirs: 3,
                    errors: 0
                },
                "{mode:?}"
            );
        }
        let progress = fsbench_measure::Counter::default();
        walk(r, StatMode::None, &CancelToken::new(), Some(&progress)).unwrap();
        walk(r, StatMode::None, &CancelToken::new(), Some(&progress)).unwrap();
        assert_eq!(
            progress.read(),
            (10, 0),
            "every entry of both walks, as they were read"
        );
    }
}
