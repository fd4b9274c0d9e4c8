//! Loopback NFS: a directory of the target's own ext4 loop image (built as the `ext4` kind's, at
//! `nfs/mnt`) exported by this machine's NFS server to 127.0.0.1 and mounted from there over
//! TCP at `nfs/nfs`. Against lab ext4 only the NFS client, the server and the loopback round
//! trips differ — the closest a single machine comes to the seeds' AFS-vs-NFS-vs-local study.
//! The export is `sync` (the server's default and what makes a commit durable), the mount NFS
//! v4.2 `hard` (the Linux default). fsbench does not start an NFS server: it must be running
//! (`systemctl start nfs-server`). At teardown the client unmounts, the export is removed
//! (`exportfs -u`), then the image goes as the ext4 kind's; `fsbench clean` finds a dead run's
//! exports in `/var/lib/nfs/etab` by the lab path.

use super::teardown::Undo;
use super::{Building, loopfs, subdir, text};
use std::path::{Path, PathBuf};

/// The only client the export admits.
pub const CLIENT: &str = "127.0.0.1";
/// Export options: read-write, synchronous commits (the server's default), root as root (the
/// workloads run as root and own their files), any client port.
const EXPORT_OPTIONS: &str = "rw,sync,no_subtree_check,no_root_squash,insecure";
/// Mount options: NFS v4.2 over TCP, hard (Linux's defaults spelt out, so the record says them).
const MOUNT_OPTIONS: &str = "vers=4.2,proto=tcp,hard";
/// Where the NFS server keeps its export table.
pub const ETAB: &str = "/var/lib/nfs/etab";

/// Builds the ext4 image, exports its `export` directory to 127.0.0.1, mounts it over NFS and
/// returns the NFS mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, String> {
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

/// The exports of `/var/lib/nfs/etab` text (`PATH<TAB>CLIENT(OPTIONS)` per line, the path with
/// `\ooo` octal escapes) whose path `ours` accepts: (client, path).
pub fn exports_in(etab: &str, ours: impl Fn(&Path) -> bool) -> Vec<(String, PathBuf)> {
    etab.lines()
        .filter_map(|l| {
            let (path, rest) = l.split_once('\t')?;
            let client = rest.split_once('(').map_or(rest, |(c, _)| c).trim();
            let path = PathBuf::from(unescape(path));
            ours(&path).then(|| (client.to_string(), path))
        })
        .collect()
}

/// True when `client:path` is in the server's export table now.
pub fn is_exported(client: &str, path: &Path) -> bool {
    let etab = std::fs::read_to_string(ETAB).unwrap_or_default();
    exports_in(&etab, |p| p == path)
        .iter()
        .any(|(c, _)| c == client)
}

/// Undoes `\ooo` octal escapes (how nfs-utils writes a space or a tab in a path).
fn unescape(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match (b[i], octal) {
            (b'\\', Some(d)) => {
                let v = d.iter().fold(0u32, |v, c| v * 8 + u32::from(c - b'0'));
                out.push(u8::try_from(v).unwrap_or(b'?'));
                i += 4;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/var/lib/nfs/etab` as nfs-utils 2.6 writes it, with a lab export among the machine's own.
    const ETAB_TEXT: &str = "/srv/home\t192.168.1.0/24(rw,sync,wdelay,hide,nocrossmnt,secure,root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,anonuid=65534,anongid=65534,sec=sys,rw,secure,root_squash,no_all_squash)\n\
/var/tmp/.fsbench-lab-42-7/nfs/mnt/export\t127.0.0.1(rw,sync,wdelay,hide,nocrossmnt,insecure,no_root_squash,no_all_squash,no_subtree_check,secure_locks,acl,no_pnfs,anonuid=65534,anongid=65534,sec=sys,rw,insecure,no_root_squash,no_all_squash)\n\
/var/tmp/my\\040disk/.fsbench-lab-43-8/nfs/mnt/export\t127.0.0.1(rw,sync)\n";

    #[test]
    fn the_labs_exports_are_found_in_etab_and_no_others() {
        let lab = Path::new("/var/tmp/.fsbench-lab-42-7");
        let found = exports_in(ETAB_TEXT, |p| p.starts_with(lab));
        assert_eq!(
            found,
            [("127.0.0.1".to_string(), lab.join("nfs/mnt/export"))]
        );
        let spaced = Path::new("/var/tmp/my disk/.fsbench-lab-43-8");
        let found = exports_in(ETAB_TEXT, |p| p.starts_with(spaced));
        assert_eq!(found.len(), 1, "octal escapes are undone");
        assert_eq!(exports_in(ETAB_TEXT, |_| true).len(), 3);
        assert!(exports_in("", |_| true).is_empty());
    }

    #[test]
    fn the_export_is_sync_and_the_mount_v4_2_hard() {
        assert!(EXPORT_OPTIONS.split(',').any(|o| o == "sync"));
        assert!(MOUNT_OPTIONS.contains("vers=4.2") && MOUNT_OPTIONS.contains("hard"));
        assert_eq!(unescape("a\\040b\\011c\\"), "a b\tc\\");
    }
}
