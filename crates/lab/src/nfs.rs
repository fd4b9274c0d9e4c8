//! Loopback NFS: a directory of the target's own ext4 loop image (built as the `ext4` kind's, at
//! `nfs/mnt`) exported by this machine's NFS server to 127.0.0.1 and mounted from there over
//! TCP at `nfs/nfs`. Against lab ext4 only the NFS client, the server and the loopback round
//! trips differ — the closest a single machine comes to the seeds' AFS-vs-NFS-vs-local study.
//! The export is `sync` (the server's default and what makes a commit durable), the mount NFS
//! v4.2 `hard` (the Linux default). fsbench does not start an NFS server: it must be running
//! (`systemctl start nfs-server`). At teardown the client unmounts, the export is removed
//! (`exportfs -u`), then the image goes as the ext4 kind's; `fsbench clean` finds a dead run's
//! exports in `/var/lib/nfs/etab` by the lab path ([`super::undo`]).

use super::error::Error;
use super::undo::Undo;
use super::{Building, loopfs, subdir, text};
use std::path::PathBuf;

/// The only client the export admits.
pub const CLIENT: &str = "127.0.0.1";
/// Export options: read-write, synchronous commits (the server's default), root as root (the
/// workloads run as root and own their files), any client port.
const EXPORT_OPTIONS: &str = "rw,sync,no_subtree_check,no_root_squash,insecure";
/// Mount options: NFS v4.2 over TCP, hard (Linux's defaults spelt out, so the record says them).
const MOUNT_OPTIONS: &str = "vers=4.2,proto=tcp,hard";

/// Builds the ext4 image, exports its `export` directory to 127.0.0.1, mounts it over NFS and
/// returns the NFS mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let base = loopfs::image_fs(b, "mkfs.ext4", loopfs::EXT4)?;
    let export = subdir(&base, "export")?;
    let spec = format!("{CLIENT}:{}", text(&export));
    b.undo(Undo::Unexport {
        client: CLIENT.to_string(),
        path: export.clone(),
    });
    b.run("exportfs", &["-o", EXPORT_OPTIONS, &spec])?;
    let mnt = b.mkdir("nfs")?;
    b.undo(Undo::Unmount {
        point: mnt.clone(),
        fuse: false,
    });
    b.run(
        "mount",
        &["-t", "nfs", "-o", MOUNT_OPTIONS, &spec, text(&mnt)],
    )?;
    b.info.options = format!("export {EXPORT_OPTIONS}; mount {MOUNT_OPTIONS}");
    Ok(mnt)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_is_sync_and_the_mount_v4_2_hard() {
        assert!(EXPORT_OPTIONS.split(',').any(|o| o == "sync"));
        assert!(MOUNT_OPTIONS.contains("vers=4.2") && MOUNT_OPTIONS.contains("hard"));
    }
}
