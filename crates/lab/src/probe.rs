//! Whether each lab kind can be built on this machine, and why not — found without building
//! anything: the tools on `$PATH` (with the Debian package that ships each), root, the
//! filesystem in `/proc/filesystems` (or as a module the kernel can load), `/dev/fuse`, and
//! ext4's encryption feature. Used by `fsbench lab list` and before a `--lab` run builds.

use super::LabKind;
use super::tool;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// Why a lab kind cannot be built here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// A command it runs is not on `$PATH`.
    MissingTool(&'static str),
    /// Mounting and loop devices need root.
    NotRoot,
    /// The kernel does not know the filesystem.
    NoFilesystem(&'static str),
    /// `/dev/fuse` is missing.
    NoFuseDevice,
    /// ext4 of this kernel was built without fscrypt.
    NoFscrypt,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::MissingTool(t) => write!(
                f,
                "{t} is not installed (apt-get install {})",
                tool::package_of(t)
            ),
            Self::NotRoot => f.write_str("needs root (it mounts a filesystem)"),
            Self::NoFilesystem(fs) => write!(
                f,
                "this kernel has no {fs} filesystem (not in /proc/filesystems, no {fs} module)"
            ),
            Self::NoFuseDevice => f.write_str("/dev/fuse is missing (load the fuse module)"),
            Self::NoFscrypt => f.write_str(
                "this kernel's ext4 has no encryption (no /sys/fs/ext4/features/encryption)",
            ),
        }
    }
}

/// Every reason `kind` cannot be built here (empty: it can).
pub fn problems(kind: &LabKind) -> Vec<Problem> {
    let mut all = tool_problems(kind);
    if !is_root() {
        all.push(Problem::NotRoot);
    }
    all.extend(kernel_problems(kind));
    all
}

/// The tools of `kind` that are not on `$PATH`.
pub fn tool_problems(kind: &LabKind) -> Vec<Problem> {
    kind.tools
        .iter()
        .filter(|t| tool::find(t).is_none())
        .map(|t| Problem::MissingTool(t))
        .collect()
}

/// What the kernel lacks for `kind`: the filesystem, `/dev/fuse`, ext4 encryption.
pub fn kernel_problems(kind: &LabKind) -> Vec<Problem> {
    let mut out = Vec::new();
    if !kernel_has(kind.fs) {
        out.push(Problem::NoFilesystem(kind.fs));
    }
    let is_char = |p: &str| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device());
    if kind.fs == "fuse" && !is_char("/dev/fuse") {
        out.push(Problem::NoFuseDevice);
    }
    // Without /sys/fs/ext4 (ext4 not loaded yet) the feature cannot be checked: try it.
    let ext4_loaded = Path::new("/sys/fs/ext4/features").is_dir();
    if kind.fscrypt && ext4_loaded && !Path::new("/sys/fs/ext4/features/encryption").exists() {
        out.push(Problem::NoFscrypt);
    }
    out
}

/// True when fsbench runs as root.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// True when the kernel has filesystem `fs` registered, or as a module it can load on mount.
pub fn kernel_has(fs: &str) -> bool {
    let registered =
        std::fs::read_to_string("/proc/filesystems").is_ok_and(|t| in_proc_filesystems(&t, fs));
    registered || module_exists(fs)
}

/// True when `/proc/filesystems` text lists `fs`.
fn in_proc_filesystems(text: &str, fs: &str) -> bool {
    text.lines()
        .any(|l| l.split_whitespace().last() == Some(fs))
}

/// True when `/lib/modules/RELEASE` has `fs` as a module or built in.
fn module_exists(fs: &str) -> bool {
    let release = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    let dir = Path::new("/lib/modules").join(release);
    let needle = format!("/{fs}.ko");
    ["modules.dep", "modules.builtin"]
        .iter()
        .any(|f| std::fs::read_to_string(dir.join(f)).is_ok_and(|t| t.contains(&needle)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_filesystems_is_matched_by_whole_name() {
        let text = "nodev\ttmpfs\n\text4\nnodev\tfuse\nnodev\tfusectl\n";
        assert!(in_proc_filesystems(text, "ext4"));
        assert!(in_proc_filesystems(text, "fuse"));
        assert!(!in_proc_filesystems(text, "ext"));
        assert!(!in_proc_filesystems(text, "xfs"));
    }

    #[test]
    fn problems_read_as_one_clause_with_the_package() {
        let p = Problem::MissingTool("mkfs.xfs").to_string();
        assert_eq!(p, "mkfs.xfs is not installed (apt-get install xfsprogs)");
        assert!(
            Problem::NoFilesystem("xfs")
                .to_string()
                .contains("no xfs filesystem")
        );
    }
}
