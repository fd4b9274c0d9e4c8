//! `/proc/self/mountinfo`: which mount holds a target, and its options. The kernel's format is
//! `ID PARENT MAJ:MIN ROOT MOUNT_POINT MOUNT_OPTS [OPTIONAL...] - FSTYPE SOURCE SUPER_OPTS`, with
//! space, tab, newline and backslash escaped as octal (`\040`).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

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

impl Mount {
    /// The value of `key=value` in the superblock options (then the per-mount options),
    /// unescaped.
    pub fn option(&self, key: &str) -> Option<String> {
        split_options(&self.super_options)
            .chain(split_options(&self.options))
            .find_map(|o| o.split_once('=').filter(|(k, _)| *k == key))
            .map(|(_, v)| unescape(v))
    }

    /// True when the bare flag `name` (no `=`) is among the options.
    pub fn has_flag(&self, name: &str) -> bool {
        split_options(&self.super_options)
            .chain(split_options(&self.options))
            .any(|o| o == name)
    }
}

/// Raw (still escaped) mount options split on commas: the kernel escapes commas inside values
/// as `\054`, so splitting before unescaping is safe.
pub fn split_options(opts: &str) -> impl Iterator<Item = &str> {
    opts.split(',').filter(|o| !o.is_empty())
}

/// Parses /proc/self/mountinfo text; malformed lines are skipped.
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
pub fn unescape(s: &str) -> String {
    fsbench_sys::remove::unescape_mountinfo(s)
}

/// All current mounts.
pub fn mounts() -> Vec<Mount> {
    std::fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default()
}

/// `major:minor` of the filesystem holding `path`.
pub fn dev_of(path: &Path) -> Option<String> {
    let m = std::fs::metadata(path).ok()?;
    Some(format!(
        "{}:{}",
        rustix::fs::major(m.dev()),
        rustix::fs::minor(m.dev())
    ))
}

/// The mount holding `path` (canonical): the longest mount point that prefixes it, preferring
/// mounts of the same device.
pub fn mount_of(path: &Path, all: &[Mount]) -> Option<Mount> {
    let dev = dev_of(path);
    all.iter()
        .filter(|m| path.starts_with(&m.mount_point))
        .max_by_key(|m| (Some(&m.dev) == dev.as_ref(), m.mount_point.len()))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n\
        40 22 0:35 / /mnt/my\\040disk rw,nosuid - tmpfs tmpfs rw,size=16384k\n\
        this line is garbage\n";

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
    fn options_are_looked_up_by_key_and_flag() {
        let m = &parse_mountinfo(SAMPLE)[1];
        assert_eq!(m.option("size").as_deref(), Some("16384k"));
        assert_eq!(m.option("siz"), None);
        assert!(m.has_flag("nosuid"));
        assert!(!m.has_flag("size"));
    }

    #[test]
    fn escaped_commas_stay_inside_their_value() {
        let m = Mount {
            super_options: "rw,lowerdir=/a\\054b:/c,upperdir=/u,".into(),
            ..Mount::default()
        };
        assert_eq!(split_options(&m.super_options).count(), 3);
        assert_eq!(m.option("lowerdir").as_deref(), Some("/a,b:/c"));
    }
}
