//! Facts about the host and each target: kernel, CPU, memory, and the mount (filesystem type,
//! source, options, free space) under a directory, or the size of a block device. Stored with
//! every run so results can be interpreted later.

use fsbench_model::{Environment, TargetInfo};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::Path;

/// Host facts (targets are filled in by the caller).
pub fn host() -> Environment {
    let uname = rustix::system::uname();
    let info = rustix::system::sysinfo();
    Environment {
        hostname: uname.nodename().to_string_lossy().into_owned(),
        kernel: uname.release().to_string_lossy().into_owned(),
        os: uname.sysname().to_string_lossy().into_owned(),
        cpu_model: cpu_model().unwrap_or_default(),
        cpus: std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1),
        memory_bytes: info.totalram as u64 * info.mem_unit.max(1) as u64,
        root: rustix::process::geteuid().is_root(),
        targets: Vec::new(),
    }
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

/// One line of /proc/self/mountinfo.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mount {
    /// `major:minor` of the mounted filesystem.
    pub dev: String,
    /// Mount point.
    pub mount_point: String,
    /// Per-mount options.
    pub options: String,
    /// Filesystem type.
    pub fs_type: String,
    /// Source (device, server:path, tmpfs).
    pub source: String,
    /// Superblock options.
    pub super_options: String,
}

/// Parses /proc/self/mountinfo text.
pub fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            Some(Mount {
                dev: l.get(2)?.to_string(),
                mount_point: unescape(l.get(4)?),
                options: l.get(5)?.to_string(),
                fs_type: r.first()?.to_string(),
                source: unescape(r.get(1).unwrap_or(&"")),
                super_options: r.get(2).unwrap_or(&"").to_string(),
            })
        })
        .collect()
}

/// Undoes the octal escapes of mountinfo (`\040` is a space).
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| b[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') * 64 + (d[1] - b'0') * 8 + (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(b[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// All current mounts.
pub fn mounts() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default()
}

/// The mount holding `path` (canonical): the longest mount point that prefixes it, preferring
/// mounts of the same device.
pub fn mount_of(path: &Path, all: &[Mount]) -> Option<Mount> {
    let dev = std::fs::metadata(path).ok().map(|m| {
        format!(
            "{}:{}",
            rustix::fs::major(m.dev()),
            rustix::fs::minor(m.dev())
        )
    });
    all.iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| (Some(&m.dev) == dev.as_ref(), m.mount_point.len()))
        .cloned()
}

/// Describes a target directory or block device.
pub fn target(label: &str, path: &Path) -> TargetInfo {
    let meta = std::fs::metadata(path).ok();
    if meta
        .as_ref()
        .is_some_and(|m| m.file_type().is_block_device())
    {
        return TargetInfo {
            label: label.to_string(),
            path: path.display().to_string(),
            kind: "device".into(),
            total_bytes: device_size(path).unwrap_or(0),
            ..TargetInfo::default()
        };
    }
    let m = mount_of(path, &mounts()).unwrap_or_default();
    let (free, total) = space(path).unwrap_or((0, 0));
    let chain = crate::blockdev::chain(&m.dev);
    let encryption = crate::blockdev::fs_encryption(&m.fs_type)
        .map(str::to_string)
        .unwrap_or(chain.encryption);
    TargetInfo {
        device_chain: chain.names,
        encryption,
        rotational: chain.rotational,
        device_model: chain.model,
        label: label.to_string(),
        path: path.display().to_string(),
        kind: "dir".into(),
        fs_type: m.fs_type,
        source: m.source,
        mount_point: m.mount_point,
        mount_options: format!("{},{}", m.options, m.super_options)
            .trim_matches(',')
            .to_string(),
        free_bytes: free,
        total_bytes: total,
    }
}

/// (available, total) bytes of the filesystem holding `path`.
pub fn space(path: &Path) -> Option<(u64, u64)> {
    let s = rustix::fs::statvfs(path).ok()?;
    Some((s.f_bavail * s.f_frsize, s.f_blocks * s.f_frsize))
}

/// Size of a block device in bytes (seek to its end; no ioctl needed).
pub fn device_size(path: &Path) -> Option<u64> {
    use std::io::Seek;
    let mut f = std::fs::File::open(path).ok()?;
    f.seek(std::io::SeekFrom::End(0)).ok()
}

/// True when `dev` (a block device) or one of its partitions is mounted, or it has holders
/// (device-mapper, md, LVM).
pub fn device_in_use(dev: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(dev) else {
        return false;
    };
    let id = format!(
        "{}:{}",
        rustix::fs::major(meta.rdev()),
        rustix::fs::minor(meta.rdev())
    );
    let dev_str = dev.display().to_string();
    let mounted = mounts()
        .iter()
        .any(|m| m.dev == id || m.source == dev_str || m.source.starts_with(&dev_str));
    let name = dev
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let holders = std::fs::read_dir(format!("/sys/class/block/{name}/holders"))
        .map(|rd| rd.count() > 0)
        .unwrap_or(false);
    mounted || holders
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n\
        40 22 0:35 / /mnt/my\\040disk rw,nosuid - tmpfs tmpfs rw,size=16384k\n";

    #[test]
    fn mountinfo_is_parsed_and_unescaped() {
        let m = parse_mountinfo(SAMPLE);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].fs_type, "ext4");
        assert_eq!(m[0].source, "/dev/vda");
        assert_eq!(m[1].mount_point, "/mnt/my disk");
        assert_eq!(m[1].super_options, "rw,size=16384k");
    }

    #[test]
    fn longest_mount_point_wins() {
        let m = parse_mountinfo(SAMPLE);
        let found = mount_of(Path::new("/mnt/my disk/sub"), &m).unwrap();
        assert_eq!(found.fs_type, "tmpfs");
        assert_eq!(mount_of(Path::new("/home"), &m).unwrap().fs_type, "ext4");
    }

    #[test]
    fn host_facts_are_filled() {
        let h = host();
        assert!(h.cpus >= 1);
        assert!(h.memory_bytes > 0);
        assert!(!h.kernel.is_empty());
    }
}
