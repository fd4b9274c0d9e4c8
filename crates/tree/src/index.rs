//! A git-index-like snapshot of a tree: every regular file with its mtime, size and inode, and
//! every directory with its mtime, taken unmeasured in `prepare` (status-scan and null-build
//! compare the tree against it).

use fsbench_io::WorkloadError;
use std::collections::HashSet;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// One tracked file.
#[derive(Debug, Clone)]
pub struct Tracked {
    /// Absolute path, ready for lstat.
    pub path: CString,
    /// Modification time, ns since the epoch.
    pub mtime_ns: i128,
    /// Size in bytes.
    pub size: u64,
    /// Inode number.
    pub ino: u64,
}

/// A snapshot of a tree.
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Regular files, in walk order.
    pub files: Vec<Tracked>,
    /// Directories (root first) with their mtime.
    pub dirs: Vec<(CString, i128)>,
    /// Absolute paths of tracked files, for untracked-file lookups.
    pub known: HashSet<Vec<u8>>,
}

/// mtime of `m` in ns since the epoch.
pub fn mtime_ns(m: &std::fs::Metadata) -> i128 {
    m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128
}

/// mtime of a raw `stat` result, ns since the epoch (same scale as [`mtime_ns`]).
pub fn stat_mtime_ns(st: &rustix::fs::Stat) -> i128 {
    st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128
}

/// `p` as a C string for raw syscalls.
pub fn cpath(p: &Path) -> Result<CString, WorkloadError> {
    CString::new(p.as_os_str().as_bytes())
        .map_err(|_| WorkloadError::Invalid(format!("path with NUL: {}", p.display())))
}

impl Index {
    /// Snapshots the tree under `root` (never following symlinks; symlinks are tracked as files;
    /// `.git` directories are skipped).
    pub fn build(root: &Path) -> Result<Self, WorkloadError> {
        let mut index = Index::default();
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let meta =
                std::fs::symlink_metadata(&dir).map_err(|e| WorkloadError::io("lstat", &dir, e))?;
            index.dirs.push((cpath(&dir)?, mtime_ns(&meta)));
            let rd = std::fs::read_dir(&dir).map_err(|e| WorkloadError::io("readdir", &dir, e))?;
            for entry in rd {
                let entry = entry.map_err(|e| WorkloadError::io("readdir", &dir, e))?;
                let path = entry.path();
                let m = std::fs::symlink_metadata(&path)
                    .map_err(|e| WorkloadError::io("lstat", &path, e))?;
                if m.is_dir() {
                    // A repository's own metadata is not part of its tree (git never tracks it).
                    if entry.file_name() != ".git" {
                        stack.push(path);
                    }
                } else {
                    let c = cpath(&path)?;
                    index.known.insert(c.as_bytes().to_vec());
                    index.files.push(Tracked {
                        path: c,
                        mtime_ns: mtime_ns(&m),
                        size: m.len(),
                        ino: m.ino(),
                    });
                }
            }
        }
        Ok(index)
    }
}
