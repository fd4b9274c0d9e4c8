//! Generated tarballs kept on local disk, outside every target (`archive_on=local`, the default
//! of `tar-extract` and `tar-delete`), as the CSAIL study kept its tarball: "extracting a large tar
//! file from local disk". The archive is then the same file, on the same disk, whichever target
//! is measured, so targets are compared on what they do (create and remove the tree), not on where
//! their archive was read from — a FUSE or network target would otherwise also be timed reading
//! its own tarball through its daemon.
//!
//! Each archive is made once per process, in a scratch directory of its own under the temporary
//! directory (`$TMPDIR`, else `/tmp`), and shared by every target and both tar workloads with the
//! same tree and seed. It is removed by [`release`] at the end of a run, by the cleanup registry
//! on a signal and by the scratch guard after a SIGKILL.

use fsbench_io::WorkloadError;
use fsbench_scratch::Scratch;
use fsbench_sys::cleanup::Cleanup;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// One archive made in this process: its identity, its scratch (removed on drop) and its path.
struct Kept {
    key: String,
    _scratch: Scratch,
    path: PathBuf,
}

static KEPT: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// The directory local archives go under: `$TMPDIR`, else `/tmp`.
pub fn base_dir() -> PathBuf {
    std::env::temp_dir()
}

/// The archive identified by `key` (tree hash and seed), made by `make` into a new scratch under
/// [`base_dir`] the first time it is asked for; `bytes` is its size, checked against the free
/// space there before anything is written.
pub fn get_or_make(
    key: &str,
    bytes: u64,
    cleanup: &Cleanup,
    make: impl FnOnce(&Path) -> Result<PathBuf, WorkloadError>,
) -> Result<PathBuf, WorkloadError> {
    let mut kept = KEPT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(k) = kept.iter().find(|k| k.key == key) {
        return Ok(k.path.clone());
    }
    let base = base_dir();
    check_room(&base, bytes)?;
    let name = format!("archive-{}-{}", std::process::id(), kept.len());
    let scratch = Scratch::create_guarded(&base, &name, cleanup)
        .map_err(|e| {
            WorkloadError::Unsupported(format!(
                "{} (the local copy of the archive) — set TMPDIR to a writable local directory, or use archive_on=target",
                e.message
            ))
        })?;
    let path = make(scratch.path())?;
    kept.push(Kept {
        key: key.to_string(),
        _scratch: scratch,
        path: path.clone(),
    });
    Ok(path)
}

/// Removes every local archive this process made (the end of a run).
pub fn release() {
    KEPT.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// How many local archives this process holds (for tests).
pub fn count() -> usize {
    KEPT.lock().unwrap_or_else(|p| p.into_inner()).len()
}

fn check_room(base: &Path, bytes: u64) -> Result<(), WorkloadError> {
    let Ok(st) = rustix::fs::statvfs(base) else {
        return Ok(());
    };
    let free = st.f_bavail * st.f_frsize;
    if bytes > free {
        return Err(WorkloadError::Unsupported(format!(
            "the archive needs {} MiB on local disk but {} has only {} MiB free — set TMPDIR to a local directory with room, use a smaller scale=, or archive_on=target",
            bytes.div_ceil(1 << 20),
            base.display(),
            free >> 20
        )));
    }
    Ok(())
}
