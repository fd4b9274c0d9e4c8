//! Cache control: dropping the whole machine's caches, one file's page cache, and how much of a
//! file is resident. Used to make a sample cold and to verify that it was.

use std::path::Path;

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

/// Why a cache could not be dropped.
#[derive(Debug)]
#[non_exhaustive]
pub enum DropError {
    /// Writing `/proc/sys/vm/drop_caches` failed (not root, a read-only /proc).
    DropCaches(std::io::Error),
    /// A file could not be opened to drop its pages.
    Open(std::path::PathBuf, std::io::Error),
    /// posix_fadvise(DONTNEED) failed on a file.
    Fadvise(std::path::PathBuf, std::io::Error),
}

impl std::fmt::Display for DropError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::DropCaches(e) => write!(f, "cannot write {DROP_CACHES}: {e}"),
            Self::Open(p, e) => write!(f, "cannot open {} to drop its cache: {e}", p.display()),
            Self::Fadvise(p, e) => {
                write!(f, "posix_fadvise(DONTNEED) failed on {}: {e}", p.display())
            }
        }
    }
}

impl std::error::Error for DropError {}

/// True when /proc/sys/vm/drop_caches can be opened for writing.
pub fn drop_caches_writable() -> bool {
    std::fs::OpenOptions::new()
        .write(true)
        .open(DROP_CACHES)
        .is_ok()
}

/// Writes dirty data back (`sync`), then drops the page cache, dentries and inodes (root),
/// twice: one `3` drops the page cache before the dentries and inodes, so the metadata blocks
/// that the freed inodes held (a freshly written tree's inode tables and directories) stay
/// cached until a second pass. Measured on ext4: after one drop a walk of a new 5,500-entry tree
/// read 0 bytes from its device; after two, 3.4 MB, the same as every later cold walk.
pub fn drop_caches() -> Result<(), DropError> {
    rustix::fs::sync();
    for _ in 0..2 {
        std::fs::write(DROP_CACHES, "3\n").map_err(DropError::DropCaches)?;
    }
    Ok(())
}

/// Drops the page cache of one file (`fdatasync`, then `posix_fadvise(DONTNEED)`); a missing
/// file has nothing cached and is not an error.
pub fn fadvise_dontneed(path: &Path) -> Result<(), DropError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        // A file the workload has not created yet (seq-write's first sample) has no cache.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(DropError::Open(path.to_path_buf(), e)),
    };
    // Dirty pages cannot be dropped: write them back first.
    let _ = file.sync_data();
    rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)
        .map_err(|e| DropError::Fadvise(path.to_path_buf(), e.into()))
}

/// (resident pages, total pages) of one regular, non-empty file.
pub fn file_residency(path: &Path) -> Option<(u64, u64)> {
    let file = std::fs::File::open(path).ok()?;
    crate::residency::whole_file(&file)
}
