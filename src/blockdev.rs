//! The block device chain under a filesystem, read from sysfs: device-mapper layers (and whether
//! one is dm-crypt), partitions, and the bottom disk's model and rotational flag. This is what
//! tells an encrypted volume from a plain one in a result.

use std::path::{Path, PathBuf};

/// What sysfs says about the devices under one filesystem.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Chain {
    /// Device names, top first, with a note for dm targets (`dm-0 (crypt)`).
    pub names: Vec<String>,
    /// `dm-crypt` when a layer is a dm-crypt mapping.
    pub encryption: String,
    /// Rotational flag of the bottom disk.
    pub rotational: Option<bool>,
    /// Model of the bottom disk.
    pub model: String,
}

/// Encryption implied by a filesystem type alone (stacked and FUSE encryption).
pub fn fs_encryption(fs_type: &str) -> Option<&'static str> {
    match fs_type {
        "ecryptfs" => Some("ecryptfs"),
        "fuse.gocryptfs" => Some("gocryptfs"),
        "fuse.encfs" => Some("encfs"),
        "fuse.cryfs" => Some("cryfs"),
        "fuse.sshfs" | "fuse.rclone" => None,
        _ => None,
    }
}

/// The chain under the device `major:minor` (from mountinfo); empty for virtual filesystems.
pub fn chain(dev: &str) -> Chain {
    chain_in(Path::new("/sys"), dev)
}

fn chain_in(sys: &Path, dev: &str) -> Chain {
    let mut out = Chain::default();
    let Ok(start) = std::fs::canonicalize(sys.join("dev/block").join(dev)) else {
        return out;
    };
    let mut current = Some(start);
    let mut bottom = None;
    for _ in 0..16 {
        let Some(node) = current.take() else { break };
        let name = node
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let uuid = std::fs::read_to_string(node.join("dm/uuid")).unwrap_or_default();
        let kind = uuid.split('-').next().unwrap_or("").to_ascii_lowercase();
        if kind == "crypt" {
            out.encryption = "dm-crypt".into();
        }
        out.names.push(if kind.is_empty() {
            name
        } else {
            format!("{name} ({kind})")
        });
        current = next_below(&node);
        bottom = Some(node);
    }
    if let Some(b) = bottom {
        let rot = std::fs::read_to_string(b.join("queue/rotational")).ok();
        out.rotational = rot.map(|r| r.trim() == "1");
        out.model = std::fs::read_to_string(b.join("device/model"))
            .map(|m| m.trim().to_string())
            .unwrap_or_default();
    }
    out
}

/// The next device down: the first slave of a stacked device, or the disk of a partition.
fn next_below(node: &Path) -> Option<PathBuf> {
    if let Some(slave) = std::fs::read_dir(node.join("slaves"))
        .ok()
        .and_then(|mut rd| rd.next())
        .and_then(|e| e.ok())
    {
        return std::fs::canonicalize(slave.path()).ok();
    }
    if node.join("partition").exists() {
        return node.parent().map(Path::to_path_buf);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds a fake sysfs: dm-0 (crypt) over vda2, a partition of vda.
    #[test]
    fn crypt_over_partition_is_followed_to_the_disk() {
        let sys = tempfile::tempdir().unwrap();
        let s = sys.path();
        let vda = s.join("devices/virtio/block/vda");
        let vda2 = vda.join("vda2");
        let dm0 = s.join("devices/virtual/block/dm-0");
        for d in [
            &vda2,
            &dm0.join("dm"),
            &dm0.join("slaves"),
            &vda.join("queue"),
            &vda.join("device"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(vda2.join("partition"), "2").unwrap();
        std::fs::write(vda.join("queue/rotational"), "0\n").unwrap();
        std::fs::write(vda.join("device/model"), "FastDisk  \n").unwrap();
        std::fs::write(dm0.join("dm/uuid"), "CRYPT-LUKS2-abcd-root\n").unwrap();
        std::os::unix::fs::symlink(&vda2, dm0.join("slaves/vda2")).unwrap();
        std::fs::create_dir_all(s.join("dev/block")).unwrap();
        std::os::unix::fs::symlink(&dm0, s.join("dev/block/254:0")).unwrap();
        let c = chain_in(s, "254:0");
        assert_eq!(c.names, ["dm-0 (crypt)", "vda2", "vda"]);
        assert_eq!(c.encryption, "dm-crypt");
        assert_eq!(c.rotational, Some(false));
        assert_eq!(c.model, "FastDisk");
    }

    #[test]
    fn virtual_filesystems_have_no_chain() {
        assert_eq!(chain("0:999999"), Chain::default());
        assert_eq!(fs_encryption("fuse.gocryptfs"), Some("gocryptfs"));
        assert_eq!(fs_encryption("ext4"), None);
    }
}
