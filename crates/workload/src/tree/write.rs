//! Writing a tree spec to disk and removing it again (never following symlinks).

use super::TreeSpec;
use crate::io::{DataPattern, Rng};
use crate::{CancelToken, WorkloadError};
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
    for d in spec.dirs.iter().skip(1) {
        let p = root.join(&d.path);
        std::fs::create_dir(&p).map_err(|e| WorkloadError::io("mkdir", &p, e))?;
    }
    let mut block = vec![0u8; 64 * 1024];
    DataPattern::Random.fill(&mut block, seed);
    let mut rng = Rng::new(seed);
    for (i, f) in spec.files.iter().enumerate() {
        if i % 256 == 0 {
            cancel.check()?;
        }
        let p = root.join(&f.path);
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
    }
    Ok(spec.files.len() as u64)
}

/// Removes the tree under `root` (and `root`) without following symlinks or leaving the device.
pub fn remove_tree(root: &Path) -> Result<(), WorkloadError> {
    crate::fsops::remove_all(root)
}
