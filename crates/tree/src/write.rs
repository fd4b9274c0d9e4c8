//! Writing a tree spec to disk and removing it again (never following symlinks).

use crate::TreeSpec;
use fsbench_io::file::{DataPattern, Rng};
use fsbench_io::{CancelToken, WorkloadError};
use std::io::Write;
use std::path::Path;

/// Creates every directory and file of `spec` under `root` (which must exist and be empty).
/// File contents are seeded pseudo-random bytes. Returns the number of files written.
pub fn write_tree(
    spec: &TreeSpec,
    root: &Path,
    seed: u64,
    cancel: &CancelToken,
) -> Result<u64, WorkloadError> {
    write_tree_as(spec, root, seed, cancel, None, None)
}

/// As [`write_tree`]; with `shared` (MPI ranks writing one tree, mdtest's shared-directory
/// mode) directories that another rank already made are used as they are, and every file name
/// gets the suffix (`.r3`), so that the ranks' files meet in the same directories. With `rec`,
/// the work is counted there as it goes (the sample's series): every directory made as one
/// operation (`add_ops`), every file's creation (open, writes, close) as one timed operation
/// with its bytes (`op_done`: one clock read per file, a few per cent of the cheapest file's
/// creation on tmpfs; a paced recorder keeps the schedule).
pub fn write_tree_as(
    spec: &TreeSpec,
    root: &Path,
    seed: u64,
    cancel: &CancelToken,
    shared: Option<&str>,
    mut rec: Option<&mut dyn fsbench_io::Recorder>,
) -> Result<u64, WorkloadError> {
    for d in spec.dirs.iter().skip(1) {
        let p = root.join(&d.path);
        match std::fs::create_dir(&p) {
            Err(e) if shared.is_some() && e.kind() == std::io::ErrorKind::AlreadyExists => {}
            r => r.map_err(|e| WorkloadError::io("mkdir", &p, e))?,
        }
        if let Some(r) = rec.as_mut() {
            r.add_ops(1, 0);
        }
    }
    let mut block = vec![0u8; 64 * 1024];
    DataPattern::Random.fill(&mut block, seed);
    let mut rng = Rng::new(seed);
    let mut t = rec.as_mut().map_or(0, |r| r.now_ns());
    for (i, f) in spec.files.iter().enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let p = match shared {
            Some(suffix) => suffixed(root, &f.path, suffix),
            None => root.join(&f.path),
        };
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&p)
            .map_err(|e| WorkloadError::io("create", &p, e))?;
        let mut left = f.size as usize;
        while left > 0 {
            let start = rng.below(1024) as usize;
            let n = left.min(block.len() - start);
            file.write_all(&block[start..start + n])
                .map_err(|e| WorkloadError::io("write", &p, e))?;
            left -= n;
        }
        if let Some(r) = rec.as_mut() {
            drop(file);
            t = r.op_done(t, f.size);
        }
    }
    Ok(spec.files.len() as u64)
}

/// Removes the tree under `root` (and `root`) without following symlinks or leaving the device;
/// with `rec`, every entry removed below `root` counts there as one operation as it goes.
pub fn remove_tree(
    root: &Path,
    rec: Option<&mut dyn fsbench_io::Recorder>,
) -> Result<(), WorkloadError> {
    match rec {
        Some(r) => fsbench_io::fsops::remove_all_counted(root, r),
        None => fsbench_io::fsops::remove_all(root),
    }
}

/// Removes this rank's files of a shared tree (named with `suffix`; empty for a tree of one's
/// own) by their known names, then every directory of the tree that is empty by now, deepest
/// first, and `root`: the last rank to finish removes what is left. A directory another rank
/// still has files in is left to that rank. Every file unlinked and every directory below
/// `root` removed counts in `rec` as one operation.
pub fn remove_shared_tree(
    spec: &TreeSpec,
    root: &Path,
    suffix: &str,
    cancel: &CancelToken,
    rec: &mut dyn fsbench_io::Recorder,
) -> Result<(), WorkloadError> {
    for (i, f) in spec.files.iter().enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let p = suffixed(root, &f.path, suffix);
        std::fs::remove_file(&p).map_err(|e| WorkloadError::io("unlink", &p, e))?;
        rec.add_ops(1, 0);
    }
    for d in spec.dirs.iter().skip(1).rev() {
        if remove_dir_if_empty(&root.join(&d.path))? {
            rec.add_ops(1, 0);
        }
    }
    remove_dir_if_empty(root).map(|_| ())
}

/// Removes the directory `p` unless another rank still has files in it (or removed it first);
/// true when it was removed here.
fn remove_dir_if_empty(p: &Path) -> Result<bool, WorkloadError> {
    match std::fs::remove_dir(p) {
        Err(e) if e.raw_os_error() == Some(libc::ENOTEMPTY) => Ok(false),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
        r => r
            .map(|()| true)
            .map_err(|e| WorkloadError::io("rmdir", p, e)),
    }
}

/// lstat of every file of `spec` under `root` (named with `suffix`), by its name, as mdtest's
/// stat phase; a file that is missing is an error. Each lstat counts in `rec` as one operation.
pub fn stat_files(
    spec: &TreeSpec,
    root: &Path,
    suffix: &str,
    cancel: &CancelToken,
    rec: &mut dyn fsbench_io::Recorder,
) -> Result<u64, WorkloadError> {
    for (i, f) in spec.files.iter().enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let p = suffixed(root, &f.path, suffix);
        std::fs::symlink_metadata(&p).map_err(|e| WorkloadError::io("lstat", &p, e))?;
        rec.add_ops(1, 0);
    }
    Ok(spec.files.len() as u64)
}

fn suffixed(root: &Path, rel: &str, suffix: &str) -> std::path::PathBuf {
    root.join(format!("{rel}{suffix}"))
}

#[cfg(test)]
mod shared_tests {
    use super::*;
    use crate::Profile;

    #[test]
    fn ranks_share_directories_and_the_last_one_out_removes_them() {
        let spec = TreeSpec::generate(&Profile::find("small").unwrap(), 0.05, 42);
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("tree");
        std::fs::create_dir(&root).unwrap();
        let c = CancelToken::new();
        let a = write_tree_as(&spec, &root, 1, &c, Some(".r0"), None).unwrap();
        let b = write_tree_as(&spec, &root, 1, &c, Some(".r1"), None).unwrap();
        assert_eq!(a, b);
        let f = &spec.files[0].path;
        assert!(suffixed(&root, f, ".r0").is_file() && suffixed(&root, f, ".r1").is_file());
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        remove_shared_tree(&spec, &root, ".r0", &c, &mut rec).unwrap();
        assert!(root.exists(), "rank 1's files are still there");
        assert!(!suffixed(&root, f, ".r0").exists() && suffixed(&root, f, ".r1").is_file());
        remove_shared_tree(&spec, &root, ".r1", &c, &mut rec).unwrap();
        assert!(!root.exists());
        // Every file of both ranks, and every directory below the root once.
        let dirs = spec.dirs.len() as u64 - 1;
        assert_eq!(rec.finish().ops, 2 * spec.files.len() as u64 + dirs);
    }
}
