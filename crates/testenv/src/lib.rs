//! What the machine that builds and runs the tests has, said to the compiler as cfg flags by
//! a build script, so that a test needing root, a tool, a device or io_uring is marked
//! `#[cfg_attr(not(...), ignore = "needs ...")]` and shows as *ignored* in the test runner's own
//! summary where it cannot run — never as a silent pass. As root with every tool installed
//! (CI), nothing is ignored.
//!
//! The flags (each declared with `rustc-check-cfg`):
//! - `fsbench_root`: the build runs as root (`cargo test` builds and runs as the same user);
//! - `fsbench_tool_NAME`: `NAME` is on `PATH` (`.` and `-` in NAME become `_`: `mkfs_ext4`);
//! - `fsbench_dev_fuse`, `fsbench_dev_full`, `fsbench_dev_shm`, `fsbench_dev_tun`: those exist;
//! - `fsbench_io_uring`: the kernel lets this user set up an io_uring;
//! - `fsbench_ext4_encryption`: ext4 was built with fscrypt (`/sys/fs/ext4/features/encryption`);
//! - `fsbench_device_mapper`: the kernel has the device-mapper (`device-mapper` in `/proc/misc`;
//!   not `/dev/mapper/control`, which installing `dmsetup` creates on any kernel);
//! - `fsbench_nfs_server`: an NFS server runs here (`/proc/fs/nfsd/threads` above 0);
//! - `fsbench_netem`: the kernel delays packets with `tc netem` (tried on the loopback of a
//!   throwaway network namespace: `unshare --net tc qdisc add dev lo root netem delay 1ms`).
//!
//! A kernel feature is no package: a test that needs one the kernel lacks says `kernel lacks …`
//! in its reason, and CI (root, every package installed) lets only such tests be ignored.
//!
//! A build script re-runs when `PATH` changes or a tool directory changes (a package was
//! installed), so a tool installed after a build is seen by the next `cargo test`.
#![warn(missing_docs)]

use std::path::Path;

/// Every tool a test may need, by its command name.
pub const TOOLS: &[&str] = &[
    "bindfs",
    "btrfs",
    "chromium",
    "cryptsetup",
    "dmsetup",
    "e2freefrag",
    "exportfs",
    "filefrag",
    "fio",
    "fusermount3",
    "gluster",
    "glusterd",
    "glusterfs",
    "git",
    "gocryptfs",
    "ioping",
    "ip",
    "losetup",
    "ministat",
    "mkfs.btrfs",
    "mkfs.ext4",
    "mkfs.xfs",
    "mount",
    "mount.nfs",
    "mpicc",
    "mpirun",
    "nsenter",
    "postmark",
    "setsid",
    "ssh-keygen",
    "sshd",
    "sshfs",
    "tc",
    "tmux",
    "unshare",
    "xfs_spaceman",
];

/// The cfg name of tool `name`.
pub fn tool_cfg(name: &str) -> String {
    format!("fsbench_tool_{}", name.replace(['.', '-'], "_"))
}

/// True when `tool` is an executable file in a `PATH` directory.
pub fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(tool).is_file()))
        .unwrap_or(false)
}

/// True when this process runs as root.
pub fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    #[allow(unsafe_code)]
    let uid = unsafe { libc::geteuid() };
    uid == 0
}

/// True when the kernel lets this process set up an io_uring (a 1-entry ring, closed at once).
pub fn io_uring_available() -> bool {
    // struct io_uring_params is 120 bytes; zeroed means no flags.
    let mut params = [0u8; 120];
    // SAFETY: io_uring_setup reads and writes the 120-byte params buffer we own for the call.
    #[allow(unsafe_code)]
    let fd = unsafe { libc::syscall(libc::SYS_io_uring_setup, 1u32, params.as_mut_ptr()) };
    if fd < 0 {
        return false;
    }
    // SAFETY: `fd` is the ring descriptor the call just returned, closed once.
    #[allow(unsafe_code)]
    unsafe {
        libc::close(fd as i32);
    }
    true
}

/// True when the kernel has the device-mapper: `/proc/misc` lists it.
pub fn device_mapper_runs() -> bool {
    std::fs::read_to_string("/proc/misc").is_ok_and(|t| {
        t.lines()
            .any(|l| l.split_whitespace().nth(1) == Some("device-mapper"))
    })
}

/// True when this machine's NFS server runs (`/proc/fs/nfsd/threads` above 0).
pub fn nfs_server_runs() -> bool {
    std::fs::read_to_string("/proc/fs/nfsd/threads")
        .ok()
        .and_then(|t| t.trim().parse::<u32>().ok())
        .is_some_and(|n| n > 0)
}

/// True when the kernel delays packets with `tc netem`: tried on the loopback of a network
/// namespace that lives only as long as the command (root, `unshare` and `tc` needed).
pub fn netem_works() -> bool {
    std::process::Command::new("unshare")
        .args([
            "--net", "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Prints the cargo instructions of every flag (for a build script's `main`).
pub fn emit() {
    let mut cfgs = vec![
        ("fsbench_root".to_string(), is_root()),
        (
            "fsbench_dev_fuse".to_string(),
            Path::new("/dev/fuse").exists(),
        ),
        (
            "fsbench_dev_full".to_string(),
            Path::new("/dev/full").exists(),
        ),
        (
            "fsbench_dev_shm".to_string(),
            Path::new("/dev/shm").is_dir(),
        ),
        (
            "fsbench_dev_tun".to_string(),
            Path::new("/dev/net/tun").exists(),
        ),
        ("fsbench_io_uring".to_string(), io_uring_available()),
        (
            "fsbench_ext4_encryption".to_string(),
            Path::new("/sys/fs/ext4/features/encryption").exists(),
        ),
        ("fsbench_device_mapper".to_string(), device_mapper_runs()),
        ("fsbench_nfs_server".to_string(), nfs_server_runs()),
        ("fsbench_netem".to_string(), is_root() && netem_works()),
    ];
    cfgs.extend(TOOLS.iter().map(|t| (tool_cfg(t), on_path(t))));
    for (name, present) in cfgs {
        println!("cargo::rustc-check-cfg=cfg({name})");
        if present {
            println!("cargo::rustc-cfg={name}");
        }
    }
    println!("cargo::rerun-if-env-changed=PATH");
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path).filter(|d| watched(d)) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
}

/// True for a `PATH` directory whose changes are watched (a tool installed there sets its cfg on
/// the next build). A version manager's shim directory (pyenv's, rbenv's, asdf's, mise's:
/// `.../shims`) is not: its manager rewrites it whenever one of its programs runs, so every
/// `python3` a test or a CI script ran made the next cargo command build ten crates again (40 s
/// of each CI run here). Its programs are found by name like any other.
fn watched(dir: &Path) -> bool {
    dir.is_dir() && dir.file_name().is_none_or(|n| n != "shims")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_version_managers_shims_are_not_watched_and_other_path_directories_are() {
        let dir = fresh_dir();
        let shims = dir.join("shims");
        std::fs::create_dir_all(&shims).unwrap();
        assert!(!super::watched(&shims));
        assert!(super::watched(&dir));
        assert!(!super::watched(&dir.join("missing")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh directory under the system's temporary directory (this crate has no dependencies).
    fn fresh_dir() -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("fsbench-testenv-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn tool_names_become_cfg_identifiers() {
        assert_eq!(super::tool_cfg("mkfs.ext4"), "fsbench_tool_mkfs_ext4");
        assert_eq!(super::tool_cfg("fusermount3"), "fsbench_tool_fusermount3");
    }
}
