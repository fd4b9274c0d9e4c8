//! tmpfs of `--lab-size` at `tmpfs/mnt` (mode 0700). It lives in RAM: a cold cell there measures
//! memory, which the stack warnings say.

use super::Building;
use super::error::Error;
use std::path::PathBuf;

/// Mounts the tmpfs and returns its mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let mnt = b.mkdir("mnt")?;
    b.info.image_bytes = Some(b.size);
    b.mount("tmpfs", format!("size={},mode=0700", b.size), &mnt)?;
    Ok(mnt)
}
