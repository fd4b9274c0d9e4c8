//! overlayfs at `overlay/mnt` with `lower`, `upper` and `work` in the lab scratch (the lower
//! directory is empty: workloads create their files, so they land in the upper layer).

use super::error::Error;
use super::{Building, text};
use std::path::PathBuf;

/// Mounts the overlay and returns its mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let lower = b.mkdir("lower")?;
    let upper = b.mkdir("upper")?;
    let work = b.mkdir("work")?;
    let mnt = b.mkdir("mnt")?;
    let opts = format!(
        "lowerdir={},upperdir={},workdir={}",
        text(&lower),
        text(&upper),
        text(&work)
    );
    b.mount("overlay", opts, &mnt)?;
    Ok(mnt)
}
