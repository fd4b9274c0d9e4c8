//! What a filesystem type name (as `/proc/self/mountinfo` gives it: `ext4`, `fuse.sshfs`,
//! `nfs4`) says about where its data lives. One definition each, used by the stack's
//! description, the bound verdicts, the network counters, the lab's teardown and the runner.

/// A FUSE filesystem (`fuse`, `fuseblk`, `fuse.NAME`): a daemon serves every request.
pub fn is_fuse(fs_type: &str) -> bool {
    fs_type == "fuse" || fs_type == "fuseblk" || fs_type.starts_with("fuse.")
}

/// The kernel's NFS client (`nfs`, `nfs4`).
pub fn is_nfs(fs_type: &str) -> bool {
    fs_type.starts_with("nfs")
}

/// A filesystem whose files live in RAM (`tmpfs`, `ramfs`): no device under it.
pub fn is_memory(fs_type: &str) -> bool {
    matches!(fs_type, "tmpfs" | "ramfs")
}

/// A filesystem whose data lives on another host: kernel clients (NFS, SMB, AFS, Ceph, 9p,
/// Lustre, GPFS, BeeGFS, GlusterFS) and the FUSE clients of network filesystems.
pub fn is_network(fs_type: &str) -> bool {
    is_nfs(fs_type)
        || matches!(
            fs_type,
            "cifs" | "smb3" | "afs" | "ceph" | "9p" | "lustre" | "gpfs" | "beegfs" | "glusterfs"
        )
        || matches!(
            fs_type.strip_prefix("fuse."),
            Some("sshfs" | "glusterfs" | "s3fs" | "rclone" | "cephfs")
        )
}

/// A filesystem whose kernel side keeps names and attributes only for a timeout (a FUSE
/// daemon's, a network client's): a warm run's cost depends on how long ago its tree was last
/// touched.
pub fn names_expire(fs_type: &str) -> bool {
    is_fuse(fs_type) || is_network(fs_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_is_named_once() {
        assert!(is_fuse("fuse.gocryptfs") && is_fuse("fuseblk") && !is_fuse("ext4"));
        assert!(names_expire("fuse.bindfs") && names_expire("nfs4") && !names_expire("xfs"));
        assert!(is_nfs("nfs4") && !is_nfs("ext4"));
        assert!(is_memory("tmpfs") && !is_memory("ext4"));
        for t in [
            "nfs",
            "nfs4",
            "cifs",
            "fuse.sshfs",
            "fuse.glusterfs",
            "ceph",
        ] {
            assert!(is_network(t), "{t}");
        }
        for t in ["ext4", "tmpfs", "fuse.gocryptfs", "fuse.bindfs", "overlay"] {
            assert!(!is_network(t), "{t}");
        }
    }
}
