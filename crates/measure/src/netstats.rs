//! Bytes on the wire under a network filesystem, read around each sample like the block
//! devices' counters: for NFS the client's own per-mount counters (`/proc/self/mountstats`,
//! the `bytes:` line: what the server sent and received for this mount alone), for other
//! network filesystems (CIFS, AFS, sshfs, Ceph) the machine's interfaces (`/proc/net/dev`, every
//! interface but loopback: other traffic counts too, which the evidence says).

use std::path::Path;

/// Where a target's wire bytes are read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WireSource {
    /// NFS: the `mountstats` entry of this mount point.
    NfsMount(String),
    /// Every non-loopback interface.
    Interfaces,
}

/// (received, sent) bytes so far.
pub type WireBytes = (u64, u64);

/// The NFS `bytes:` counters of the mount at `mount_point` in a `mountstats` text: received is
/// what the server sent (`serverreadbytes`), sent is what it received (`serverwritebytes`).
pub fn parse_mountstats(text: &str, mount_point: &str) -> Option<WireBytes> {
    let mut inside = false;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("device ") {
            inside = rest
                .split_once(" mounted on ")
                .and_then(|(_, r)| r.split_once(" with fstype "))
                .is_some_and(|(m, fs)| m == mount_point && fsbench_model::fstype::is_nfs(fs));
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(v) = line.trim_start().strip_prefix("bytes:") {
            let f: Vec<u64> = v
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            // normalread normalwrite directread directwrite serverread serverwrite readpages writepages
            return (f.len() >= 6).then(|| (f[4], f[5]));
        }
    }
    None
}

/// Received and sent bytes summed over the interfaces of a `/proc/net/dev` text, loopback left
/// out.
pub fn parse_net_dev(text: &str) -> Option<WireBytes> {
    let mut total = (0u64, 0u64);
    let mut any = false;
    for line in text.lines().skip(2) {
        let Some((name, rest)) = line.split_once(':') else {
            continue;
        };
        if name.trim() == "lo" {
            continue;
        }
        let f: Vec<u64> = rest
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        if f.len() >= 9 {
            total.0 += f[0];
            total.1 += f[8];
            any = true;
        }
    }
    any.then_some(total)
}

impl WireSource {
    /// Reads the counters now; `None` when they cannot be read.
    pub fn read(&self) -> Option<WireBytes> {
        match self {
            WireSource::NfsMount(m) => {
                parse_mountstats(&std::fs::read_to_string("/proc/self/mountstats").ok()?, m)
            }
            WireSource::Interfaces => {
                parse_net_dev(&std::fs::read_to_string(Path::new("/proc/net/dev")).ok()?)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded from an NFSv4.2 client (Linux 6.1): two mounts, the second one ours.
    const MOUNTSTATS: &str = "\
device sysfs mounted on /sys with fstype sysfs
device srv:/export/a mounted on /mnt/a with fstype nfs4 statvers=1.1
\topts:\trw,vers=4.2,rsize=1048576,wsize=1048576
\tage:\t120
\tbytes:\t10 20 0 0 1111 2222 3 4
device srv:/export/b mounted on /mnt/b with fstype nfs statvers=1.1
\topts:\trw,vers=3,rsize=65536,wsize=65536
\tevents:\t1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27
\tbytes:\t4194304 0 0 0 4198400 512 1024 0
\tRPC iostats version: 1.1  p/v: 100003/3 (nfs)
";

    #[test]
    fn the_mounts_own_server_bytes_are_read() {
        assert_eq!(
            parse_mountstats(MOUNTSTATS, "/mnt/b"),
            Some((4_198_400, 512))
        );
        assert_eq!(parse_mountstats(MOUNTSTATS, "/mnt/a"), Some((1111, 2222)));
        assert_eq!(parse_mountstats(MOUNTSTATS, "/sys"), None);
        assert_eq!(parse_mountstats(MOUNTSTATS, "/mnt/c"), None);
    }

    #[test]
    fn interfaces_are_summed_without_loopback() {
        let dev = "Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  703036    5440    0    0    0     0          0         0   703036    5440    0    0    0     0       0          0
  eth0: 1000 10 0 0 0 0 0 0 500 5 0 0 0 0 0 0
  eth1: 24 1 0 0 0 0 0 0 6 1 0 0 0 0 0 0
";
        assert_eq!(parse_net_dev(dev), Some((1024, 506)));
        assert_eq!(parse_net_dev("header\nheader\n"), None);
    }
}
