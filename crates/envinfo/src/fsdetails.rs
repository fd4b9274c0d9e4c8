//! Per-filesystem details read from a mount's options: overlay layers, NFS version and caching,
//! CIFS dialect and cache mode, AFS cell, tmpfs size. The kernel shows only options that differ
//! from the default for NFS and tmpfs, so an absent option is recorded as `None`, not guessed.

use super::mountinfo::Mount;
use fsbench_model::{AfsInfo, CifsInfo, NfsInfo, OverlayInfo, Stack, TmpfsInfo};

/// Fills the filesystem-specific parts of `stack` from `m`.
pub fn fill(stack: &mut Stack, m: &Mount) {
    match m.fs_type.as_str() {
        "overlay" => stack.overlay = Some(overlay(m)),
        "nfs" | "nfs4" => stack.nfs = Some(nfs(m)),
        "cifs" | "smb3" => stack.cifs = Some(cifs(m)),
        "afs" => stack.afs = Some(afs(m)),
        "tmpfs" => stack.tmpfs = Some(tmpfs(m)),
        _ => {}
    }
}

pub use fsbench_model::fstype::is_network;

/// overlayfs: `lowerdir=a:b` (top first; `\:` is a literal colon, `::` marks data-only layers),
/// plus `lowerdir+=` entries on newer kernels.
fn overlay(m: &Mount) -> OverlayInfo {
    let mut lowerdirs = Vec::new();
    for raw in super::mountinfo::split_options(&m.super_options) {
        let Some((key, value)) = raw.split_once('=') else {
            continue;
        };
        let value = super::mountinfo::unescape(value);
        match key {
            "lowerdir" => lowerdirs.extend(split_lower(&value)),
            "lowerdir+" | "datadir+" => lowerdirs.push(value),
            _ => {}
        }
    }
    OverlayInfo {
        lowerdirs,
        upperdir: m.option("upperdir"),
        workdir: m.option("workdir"),
    }
}

/// Splits an overlay lowerdir list on unescaped colons.
fn split_lower(value: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.last_mut().into_iter().for_each(|s| {
                s.extend(chars.next());
            }),
            ':' => out.push(String::new()),
            _ => out.last_mut().into_iter().for_each(|s| s.push(c)),
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn nfs(m: &Mount) -> NfsInfo {
    let num = |k: &str| m.option(k).and_then(|v| v.parse().ok());
    NfsInfo {
        server: server(m),
        version: m.option("vers"),
        proto: m.option("proto"),
        rsize: num("rsize").map(u64::from),
        wsize: num("wsize").map(u64::from),
        attr_cache: !m.has_flag("noac"),
        actimeo: num("actimeo"),
        acregmin: num("acregmin"),
        acregmax: num("acregmax"),
        acdirmin: num("acdirmin"),
        acdirmax: num("acdirmax"),
    }
}

fn cifs(m: &Mount) -> CifsInfo {
    CifsInfo {
        server: server(m),
        version: m.option("vers"),
        cache: m.option("cache"),
    }
}

/// The server of a network mount: `addr=` when shown, else the host of `host:/path` or
/// `//host/share`.
fn server(m: &Mount) -> String {
    if let Some(addr) = m.option("addr") {
        return addr;
    }
    let s = m.source.trim_start_matches("//");
    let host = s
        .split_once(":/")
        .map(|(h, _)| h)
        .or_else(|| s.split_once('/').map(|(h, _)| h))
        .unwrap_or("");
    if host.is_empty() {
        "unknown".into()
    } else {
        host.to_string()
    }
}

/// kAFS sources are `%cell:volume` or `#cell:volume`; OpenAFS shows only `AFS`.
fn afs(m: &Mount) -> AfsInfo {
    let parsed = m
        .source
        .strip_prefix(['%', '#'])
        .and_then(|s| s.split_once(':'))
        .filter(|(cell, _)| !cell.is_empty());
    match parsed {
        Some((cell, volume)) => AfsInfo {
            cell: cell.to_string(),
            volume: Some(volume.trim_end_matches('.').to_string()).filter(|v| !v.is_empty()),
        },
        None => AfsInfo {
            cell: "unknown".into(),
            volume: None,
        },
    }
}

fn tmpfs(m: &Mount) -> TmpfsInfo {
    TmpfsInfo {
        size_bytes: m.option("size").and_then(|v| parse_size(&v)),
        nr_inodes: m.option("nr_inodes").and_then(|v| parse_size(&v)),
    }
}

/// `16384k`, `2g`, `1048576` → bytes (powers of 1024, as tmpfs shows them).
fn parse_size(v: &str) -> Option<u64> {
    let (digits, mult) = match v.chars().last()? {
        'k' | 'K' => (&v[..v.len() - 1], 1u64 << 10),
        'm' | 'M' => (&v[..v.len() - 1], 1 << 20),
        'g' | 'G' => (&v[..v.len() - 1], 1 << 30),
        't' | 'T' => (&v[..v.len() - 1], 1 << 40),
        _ => (v, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(mult)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mountinfo::parse_mountinfo;

    fn stack_of(line: &str) -> Stack {
        let m = parse_mountinfo(line).pop().expect("fixture line parses");
        let mut s = Stack::default();
        fill(&mut s, &m);
        s
    }

    #[test]
    fn nfs4_version_transport_and_sizes() {
        let s = stack_of(
            "36 25 0:32 / /mnt/nfs rw,relatime shared:17 - nfs4 server.example:/export \
             rw,vers=4.2,rsize=1048576,wsize=524288,namlen=255,hard,proto=tcp,timeo=600,\
             retrans=2,sec=sys,clientaddr=10.0.0.2,local_lock=none,addr=10.0.0.1",
        );
        let n = s.nfs.unwrap();
        assert_eq!(n.version.as_deref(), Some("4.2"));
        assert_eq!(n.proto.as_deref(), Some("tcp"));
        assert_eq!((n.rsize, n.wsize), (Some(1048576), Some(524288)));
        assert_eq!(n.server, "10.0.0.1");
        assert!(n.attr_cache);
        assert_eq!(n.acregmin, None);
    }

    #[test]
    fn nfs3_noac_and_attribute_timeouts() {
        let s = stack_of(
            "37 25 0:33 / /mnt/n3 rw,relatime - nfs filer:/vol rw,vers=3,rsize=65536,\
             wsize=65536,namlen=255,acregmin=1,acregmax=2,acdirmin=3,acdirmax=4,hard,noac,\
             proto=udp,timeo=11,retrans=3,sec=sys,local_lock=none",
        );
        let n = s.nfs.unwrap();
        assert!(!n.attr_cache);
        assert_eq!(
            (n.acregmin, n.acregmax, n.acdirmin, n.acdirmax),
            (Some(1), Some(2), Some(3), Some(4))
        );
        assert_eq!(n.server, "filer");
        assert_eq!(n.proto.as_deref(), Some("udp"));
    }

    #[test]
    fn cifs_dialect_and_cache_mode() {
        let s = stack_of(
            "50 25 0:50 / /mnt/smb rw,relatime - cifs //nas/share rw,vers=3.1.1,\
             cache=strict,username=bob,uid=0,noforceuid,gid=0,noforcegid,addr=10.0.0.5,\
             file_mode=0755,dir_mode=0755,soft,nounix,serverino,rsize=4194304,actimeo=1",
        );
        let c = s.cifs.unwrap();
        assert_eq!(c.version.as_deref(), Some("3.1.1"));
        assert_eq!(c.cache.as_deref(), Some("strict"));
        assert_eq!(c.server, "10.0.0.5");
        let no_addr = stack_of("51 25 0:51 / /m rw - smb3 //nas2/x rw,vers=3.0");
        assert_eq!(no_addr.cifs.unwrap().server, "nas2");
    }

    #[test]
    fn afs_cell_from_kafs_source_and_unknown_for_openafs() {
        let s = stack_of("60 25 0:60 / /afs/x rw - afs %grand.central.org:root.cell. rw");
        let a = s.afs.unwrap();
        assert_eq!(a.cell, "grand.central.org");
        assert_eq!(a.volume.as_deref(), Some("root.cell"));
        let o = stack_of("61 25 0:61 / /afs rw - afs AFS rw").afs.unwrap();
        assert_eq!((o.cell.as_str(), o.volume), ("unknown", None));
    }

    #[test]
    fn overlay_layers_with_escapes() {
        let s = stack_of(
            "70 25 0:70 / /merged rw - overlay overlay rw,lowerdir=/l1:/l\\134:2:/l\\0543,\
             upperdir=/up,workdir=/work,index=off",
        );
        let o = s.overlay.unwrap();
        assert_eq!(o.lowerdirs, ["/l1", "/l:2", "/l,3"]);
        assert_eq!(o.upperdir.as_deref(), Some("/up"));
        assert_eq!(o.workdir.as_deref(), Some("/work"));
        let ro = stack_of("71 25 0:71 / /ro ro - overlay overlay ro,lowerdir+=/a,lowerdir+=/b");
        let o = ro.overlay.unwrap();
        assert_eq!((o.lowerdirs.len(), o.upperdir), (2, None));
    }

    #[test]
    fn tmpfs_size_limit_or_default() {
        let s = stack_of("40 22 0:35 / /t rw - tmpfs tmpfs rw,size=16384k,nr_inodes=4k");
        let t = s.tmpfs.unwrap();
        assert_eq!(t.size_bytes, Some(16 << 20));
        assert_eq!(t.nr_inodes, Some(4096));
        let d = stack_of("41 22 0:36 / /d rw - tmpfs tmpfs rw,mode=755")
            .tmpfs
            .unwrap();
        assert_eq!(d.size_bytes, None);
    }

    #[test]
    fn network_filesystems_are_recognised() {
        assert!(is_network("nfs4") && is_network("fuse.sshfs") && is_network("cifs"));
        assert!(!is_network("ext4") && !is_network("fuse.bindfs") && !is_network("tmpfs"));
        assert_eq!(
            stack_of("1 2 8:1 / / rw - ext4 /dev/sda1 rw"),
            Stack::default()
        );
    }
}
