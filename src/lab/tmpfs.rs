//! tmpfs of `--lab-size` at `tmpfs/mnt` (mode 0700). It lives in RAM: a cold cell there measures
//! memory, which the stack warnings say.

use super::teardown::Undo;
use super::{Building, text};
use std::path::PathBuf;

/// Mounts the tmpfs and returns its mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, String> {
    let mnt = b.mkdir("mnt")?;
    let opts = format!("size={},mode=0700", b.size);
    b.info.image_bytes = Some(b.size);
    b.info.options = opts.clone();
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: false,
    });
    b.run(
        "mount",
        &["-t", "tmpfs", "-o", &opts, "fsbench-lab", text(&mnt)],
    )?;
    Ok(mnt)
}
