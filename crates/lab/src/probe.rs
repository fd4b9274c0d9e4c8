//! Whether each lab kind can be built on this machine, and why not — found without building
//! anything: the tools on `$PATH` (with the Debian package that ships each), root, the
//! filesystem in `/proc/filesystems` (or as a module the kernel can load), `/dev/fuse`, ext4's
//! encryption feature, the device-mapper (`/proc/misc`) for dm-crypt, and an NFS client and a
//! running NFS server (`/proc/fs/nfsd/threads`) for loopback NFS. Used by `fsbench lab list` and
//! before a `--lab` run builds.

use super::Recipe;
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
    /// The kernel has no device-mapper (dm-crypt needs it).
    NoDeviceMapper,
    /// The kernel has no NFS client.
    NoNfsClient,
    /// The kernel has no NFS server.
    NoNfsServer,
    /// The kernel has an NFS server, but it is not running.
    NfsServerStopped,
    /// The kernel has neither a `netem` queueing discipline nor TAP devices (`rtt=` needs one).
    NoNetem,
}

/// What a lab kind needs of the kernel beyond its filesystem type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// ext4 built with fscrypt (`/sys/fs/ext4/features/encryption`).
    Fscrypt,
    /// The device-mapper with its `crypt` target (`/proc/misc` lists `device-mapper`).
    DeviceMapper,
    /// An NFS v4 client and a running NFS server on this machine (loopback NFS).
    NfsLoopback,
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
            Self::NoDeviceMapper => f.write_str(
                "this kernel has no device-mapper (no device-mapper in /proc/misc, no dm-mod module), which dm-crypt needs",
            ),
            Self::NoNfsClient => f.write_str(
                "this kernel has no NFS client (no nfs4 in /proc/filesystems, no nfsv4 module)",
            ),
            Self::NoNfsServer => f.write_str(
                "this kernel has no NFS server (no nfsd in /proc/filesystems, no nfsd module)",
            ),
            Self::NoNetem => f.write_str(
                "this kernel lacks sch_netem (CONFIG_NET_SCH_NETEM: no module, not in its config) and TAP devices (/dev/net/tun), one of which rtt= needs to delay the simulated link",
            ),
            Self::NfsServerStopped => f.write_str(
                "the NFS server is not running (no threads in /proc/fs/nfsd/threads) — start it (systemctl start nfs-server; apt-get install nfs-kernel-server)",
            ),
        }
    }
}

/// Every reason `kind` cannot be built here (empty: it can).
pub fn problems(kind: &Recipe) -> Vec<Problem> {
    let mut all = tool_problems(kind);
    if !is_root() {
        all.push(Problem::NotRoot);
    }
    all.extend(kernel_problems(kind));
    all
}

/// The tools of `kind` that are not on `$PATH`.
pub fn tool_problems(kind: &Recipe) -> Vec<Problem> {
    kind.tools
        .iter()
        .filter(|t| tool::find(t).is_none())
        .map(|t| Problem::MissingTool(t))
        .collect()
}

/// What the kernel lacks for `kind`: the filesystem, `/dev/fuse`, ext4 encryption.
pub fn kernel_problems(kind: &Recipe) -> Vec<Problem> {
    let mut out = Vec::new();
    if !kernel_has(kind.fs) {
        out.push(Problem::NoFilesystem(kind.fs));
    }
    let is_char = |p: &str| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_char_device());
    if kind.fs == "fuse" && !is_char("/dev/fuse") {
        out.push(Problem::NoFuseDevice);
    }
    for need in kind.needs {
        match need {
            Need::Fscrypt => {
                // Without /sys/fs/ext4 (ext4 not loaded yet) the feature cannot be checked: try it.
                let ext4_loaded = Path::new("/sys/fs/ext4/features").is_dir();
                if ext4_loaded && !Path::new("/sys/fs/ext4/features/encryption").exists() {
                    out.push(Problem::NoFscrypt);
                }
            }
            Need::DeviceMapper => out.extend(device_mapper_problem(
                &std::fs::read_to_string("/proc/misc").unwrap_or_default(),
                module_exists("dm-mod"),
            )),
            Need::NfsLoopback => out.extend(nfs_problems(
                &std::fs::read_to_string("/proc/filesystems").unwrap_or_default(),
                module_exists,
                std::fs::read_to_string("/proc/fs/nfsd/threads")
                    .ok()
                    .as_deref(),
            )),
        }
    }
    out
}

/// The device-mapper's absence, from `/proc/misc` text and whether a `dm-mod` module exists
/// (loaded on first use). Whether the `crypt` target loads is left to `cryptsetup`, which says so.
fn device_mapper_problem(misc: &str, dm_module: bool) -> Option<Problem> {
    let listed = misc
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some("device-mapper"));
    (!listed && !dm_module).then_some(Problem::NoDeviceMapper)
}

/// What loopback NFS lacks, from `/proc/filesystems` text, a module lookup, and
/// `/proc/fs/nfsd/threads` (present only while the server's control filesystem is mounted; the
/// number of server threads, 0 when stopped).
fn nfs_problems(
    filesystems: &str,
    module: impl Fn(&str) -> bool,
    threads: Option<&str>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    if !in_proc_filesystems(filesystems, "nfs4") && !module("nfsv4") {
        out.push(Problem::NoNfsClient);
    }
    if !in_proc_filesystems(filesystems, "nfsd") && !module("nfsd") {
        out.push(Problem::NoNfsServer);
    } else if threads
        .and_then(|t| t.trim().parse::<u32>().ok())
        .is_none_or(|n| n == 0)
    {
        out.push(Problem::NfsServerStopped);
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

/// True when TAP devices can be made (`/dev/net/tun`): fsbench's own wire can then delay a
/// simulated link where `tc netem` cannot.
pub fn has_tap() -> bool {
    std::fs::metadata("/dev/net/tun").is_ok_and(|m| {
        use std::os::unix::fs::FileTypeExt;
        m.file_type().is_char_device()
    })
}

/// True when the kernel can delay packets with `tc netem`: `sch_netem` is a module or built
/// in, or the kernel's configuration (`/boot/config-RELEASE`, `/proc/config.gz`) says so.
pub fn has_netem() -> bool {
    if module_exists("sch_netem") {
        return true;
    }
    let release = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    let config = std::fs::read_to_string(format!("/boot/config-{release}"))
        .ok()
        .or_else(|| {
            use std::io::Read;
            let f = std::fs::File::open("/proc/config.gz").ok()?;
            let mut text = String::new();
            flate2::read::GzDecoder::new(f)
                .read_to_string(&mut text)
                .ok()?;
            Some(text)
        })
        .unwrap_or_default();
    config_has(&config, "CONFIG_NET_SCH_NETEM")
}

/// True when a kernel configuration text sets `option` to `y` or `m`.
fn config_has(config: &str, option: &str) -> bool {
    config.lines().any(|l| {
        l.strip_prefix(option)
            .and_then(|r| r.strip_prefix('='))
            .is_some_and(|v| v == "y" || v == "m")
    })
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
    fn a_kernel_config_option_is_read_as_set_or_not() {
        let config = "CONFIG_NET_SCH_TBF=y\n# CONFIG_NET_SCH_NETEM is not set\nCONFIG_VETH=m\n";
        assert!(!config_has(config, "CONFIG_NET_SCH_NETEM"));
        assert!(config_has(config, "CONFIG_VETH"));
        assert!(config_has("CONFIG_NET_SCH_NETEM=m", "CONFIG_NET_SCH_NETEM"));
        assert!(!config_has(
            "CONFIG_NET_SCH_NETEMX=y",
            "CONFIG_NET_SCH_NETEM"
        ));
    }

    #[test]
    fn proc_filesystems_is_matched_by_whole_name() {
        let text = "nodev\ttmpfs\n\text4\nnodev\tfuse\nnodev\tfusectl\n";
        assert!(in_proc_filesystems(text, "ext4"));
        assert!(in_proc_filesystems(text, "fuse"));
        assert!(!in_proc_filesystems(text, "ext"));
        assert!(!in_proc_filesystems(text, "xfs"));
    }

    /// `/proc/misc` and `/proc/filesystems` as recorded on this machine (a kernel without
    /// device-mapper or NFS) and on a Debian 12 server running nfs-kernel-server.
    const MISC_HERE: &str = "234 btrfs-control\n259 cpu_dma_latency\n237 loop-control\n229 fuse\n";
    const MISC_DEBIAN: &str = "236 device-mapper\n237 loop-control\n229 fuse\n";
    const FS_HERE: &str = "nodev\ttmpfs\n\text4\nnodev\tfuse\n\txfs\n";
    const FS_NFS_SERVER: &str = "nodev\ttmpfs\n\text4\nnodev\tnfs\nnodev\tnfs4\nnodev\tnfsd\n";

    #[test]
    fn device_mapper_is_found_in_proc_misc_or_as_a_module() {
        assert_eq!(
            device_mapper_problem(MISC_HERE, false),
            Some(Problem::NoDeviceMapper)
        );
        assert_eq!(device_mapper_problem(MISC_DEBIAN, false), None);
        assert_eq!(device_mapper_problem(MISC_HERE, true), None);
        assert!(
            Problem::NoDeviceMapper
                .to_string()
                .contains("no device-mapper in /proc/misc")
        );
    }

    #[test]
    fn loopback_nfs_needs_a_client_a_server_and_server_threads() {
        let none = |_: &str| false;
        assert_eq!(
            nfs_problems(FS_HERE, none, None),
            [Problem::NoNfsClient, Problem::NoNfsServer]
        );
        assert!(nfs_problems(FS_NFS_SERVER, none, Some("8\n")).is_empty());
        assert_eq!(
            nfs_problems(FS_NFS_SERVER, none, Some("0\n")),
            [Problem::NfsServerStopped]
        );
        assert_eq!(
            nfs_problems(FS_NFS_SERVER, none, None),
            [Problem::NfsServerStopped]
        );
        // Modules not loaded yet: the kernel loads them on first use, the server still must run.
        let modules = |m: &str| m == "nfsv4" || m == "nfsd";
        assert_eq!(
            nfs_problems(FS_HERE, modules, None),
            [Problem::NfsServerStopped]
        );
        assert!(
            Problem::NfsServerStopped
                .to_string()
                .contains("systemctl start nfs-server")
        );
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
