//! What kind of filesystem a path is on, as far as fsbench must know before writing there:
//! kernel interfaces (`/proc`, `/sys`, cgroup...) are not storage and measure nothing.

use std::path::Path;

/// Filesystem types that are kernel interfaces, not storage: a target there measures nothing.
const PSEUDO_FS: &[(i64, &str)] = &[
    (0x9fa0, "proc"),
    (0x6265_6572, "sysfs"),
    (0x1cd1, "devpts"),
    (0x0027_e0eb, "cgroup"),
    (0x6367_7270, "cgroup2"),
    (0x6462_6720, "debugfs"),
    (0x7472_6163, "tracefs"),
    (0x7365_6373, "securityfs"),
    (0x6265_6570, "configfs"),
    (0xcafe_4a11, "bpf"),
    (0x6165_676c, "pstore"),
    (0x1980_0202, "mqueue"),
    (0xf97c_ff8c, "selinuxfs"),
    (0x6e73_6673, "nsfs"),
    (0x4249_4e4d, "binfmt_misc"),
    (0xde5e_81e4, "efivarfs"),
];

/// The name of the kernel interface `path` is on (`proc`, `sysfs`...), by filesystem magic;
/// `None` for storage, or when `statfs` fails.
pub fn kernel_interface(path: &Path) -> Option<&'static str> {
    let st = rustix::fs::statfs(path).ok()?;
    // f_type is a different integer type on other architectures.
    #[allow(clippy::unnecessary_cast)]
    let ftype = st.f_type as i64;
    PSEUDO_FS
        .iter()
        .find(|(t, _)| *t == ftype)
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_is_a_kernel_interface_and_tmp_is_not() {
        assert_eq!(kernel_interface(Path::new("/proc")), Some("proc"));
        assert_eq!(kernel_interface(Path::new("/nonexistent-fsbench")), None);
        let t = tempfile::tempdir().unwrap();
        assert_eq!(kernel_interface(t.path()), None);
    }
}
