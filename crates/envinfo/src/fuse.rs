//! FUSE mounts: the subtype and the daemon process serving the mount. A daemon holds an open
//! `/dev/fuse`; since Linux 6.x its fdinfo names the connection (`fuse_connection: N`, the
//! mount's device number), which identifies the mount exactly. On older kernels the mount point
//! is looked for among the daemon's command-line arguments. The pids let the runner read the
//! daemon's CPU time around each sample.

use super::mountinfo::{Mount, mounts};
use fsbench_model::FuseInfo;
use std::path::{Path, PathBuf};

pub use fsbench_model::fstype::is_fuse;

/// Pids of the processes serving the FUSE mount at `mount_point` (canonical); empty when it is
/// not a FUSE mount or no daemon is visible (another pid namespace, no permission).
pub fn fuse_daemon_pids(mount_point: &Path) -> Vec<i32> {
    let all = mounts();
    let Some(m) = all
        .iter()
        .rev()
        .find(|m| Path::new(&m.mount_point) == mount_point && is_fuse(&m.fs_type))
    else {
        return Vec::new();
    };
    daemon_pids_in(Path::new("/proc"), m)
}

/// The FUSE layer of mount `m`.
pub fn describe(m: &Mount) -> FuseInfo {
    describe_in(Path::new("/proc"), m)
}

fn describe_in(proc: &Path, m: &Mount) -> FuseInfo {
    let pids = daemon_pids_in(proc, m);
    let command = pids
        .first()
        .and_then(|p| std::fs::read_to_string(proc.join(p.to_string()).join("comm")).ok())
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    let subtype = m
        .fs_type
        .strip_prefix("fuse.")
        .map(str::to_string)
        .or_else(|| command.clone())
        .unwrap_or_else(|| "unknown".into());
    let backing_dir = pids.first().and_then(|p| {
        let pdir = proc.join(p.to_string());
        let raw = std::fs::read(pdir.join("cmdline")).ok()?;
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        let cwd = std::fs::read_link(pdir.join("cwd")).ok();
        backing_dir_in_args(&args, Path::new(&m.mount_point), cwd.as_deref())
    });
    FuseInfo {
        subtype,
        daemon_pids: pids,
        daemon_command: command.unwrap_or_else(|| "unknown".into()),
        backing_dir: backing_dir.map(|d| d.display().to_string()),
        backing: None,
    }
}

/// The directory a FUSE daemon serves from, read from its command line: the first positional
/// argument (options and `-o VALUE` skipped) that is an existing directory other than the mount
/// point — bindfs' source, gocryptfs' cipher directory, encfs' root. `None` for daemons whose
/// source is not a local directory (sshfs' `host:path`).
pub fn backing_dir_in_args(
    args: &[String],
    mount_point: &Path,
    cwd: Option<&Path>,
) -> Option<PathBuf> {
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "-o" {
            it.next();
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        let p = Path::new(a);
        let abs = match (p.is_absolute(), cwd) {
            (true, _) => p.to_path_buf(),
            (false, Some(c)) => c.join(p),
            (false, None) => continue,
        };
        let Ok(canon) = std::fs::canonicalize(&abs) else {
            continue;
        };
        if canon != mount_point && canon.is_dir() {
            return Some(canon);
        }
    }
    None
}

/// The kernel-internal device number of `major:minor` (`MKDEV`), as fdinfo prints it.
fn kernel_dev(majmin: &str) -> Option<u64> {
    let (ma, mi) = majmin.split_once(':')?;
    Some((ma.parse::<u64>().ok()? << 20) | mi.parse::<u64>().ok()?)
}

fn daemon_pids_in(proc: &Path, m: &Mount) -> Vec<i32> {
    let conn = kernel_dev(&m.dev);
    let Ok(rd) = std::fs::read_dir(proc) else {
        return Vec::new();
    };
    let mut pids: Vec<i32> = rd
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| serves(&proc.join(pid.to_string()), m, conn))
        .collect();
    pids.sort_unstable();
    pids
}

/// Whether the process at `pdir` holds `/dev/fuse` for mount `m`.
fn serves(pdir: &Path, m: &Mount, conn: Option<u64>) -> bool {
    let Ok(fds) = std::fs::read_dir(pdir.join("fd")) else {
        return false;
    };
    for fd in fds.filter_map(|e| e.ok()) {
        if std::fs::read_link(fd.path()).ok().as_deref() != Some(Path::new("/dev/fuse")) {
            continue;
        }
        let info = std::fs::read_to_string(pdir.join("fdinfo").join(fd.file_name()));
        if let Some(c) = info.ok().as_deref().and_then(fdinfo_connection) {
            if Some(c) == conn {
                return true;
            }
            continue;
        }
        return cmdline_names(pdir, &m.mount_point);
    }
    false
}

/// The `fuse_connection:` of a `/dev/fuse` fdinfo.
pub fn fdinfo_connection(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix("fuse_connection:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Whether one of the process's arguments names `mount_point`, as written or resolved against
/// the process's working directory.
fn cmdline_names(pdir: &Path, mount_point: &str) -> bool {
    let Ok(raw) = std::fs::read(pdir.join("cmdline")) else {
        return false;
    };
    let cwd = std::fs::read_link(pdir.join("cwd")).ok();
    let want = Path::new(mount_point);
    raw.split(|&b| b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| PathBuf::from(String::from_utf8_lossy(a).into_owned()))
        .any(|arg| {
            arg.as_path() == want
                || cwd.as_ref().is_some_and(|c| c.join(&arg) == want)
                || (arg.is_absolute() && std::fs::canonicalize(&arg).ok().as_deref() == Some(want))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake /proc with one process holding `/dev/fuse`.
    fn fake_proc(pid: i32, comm: &str, args: &[&str], fdinfo: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join(pid.to_string());
        std::fs::create_dir_all(p.join("fd")).expect("mkdir");
        std::fs::create_dir_all(p.join("fdinfo")).expect("mkdir");
        std::os::unix::fs::symlink("/dev/null", p.join("fd/0")).expect("link");
        std::os::unix::fs::symlink("/dev/fuse", p.join("fd/4")).expect("link");
        std::fs::write(p.join("fdinfo/4"), fdinfo).expect("write");
        std::fs::write(p.join("comm"), format!("{comm}\n")).expect("write");
        std::fs::write(p.join("cmdline"), args.join("\0") + "\0").expect("write");
        std::os::unix::fs::symlink("/", p.join("cwd")).expect("link");
        std::fs::create_dir_all(dir.path().join("self")).expect("mkdir");
        dir
    }

    fn fuse_mount(fs_type: &str, dev: &str, at: &str) -> Mount {
        Mount {
            dev: dev.into(),
            mount_point: at.into(),
            fs_type: fs_type.into(),
            ..Mount::default()
        }
    }

    const INFO_39: &str = "pos:\t0\nflags:\t0100002\nmnt_id:\t24\nino:\t90\nfuse_connection:\t39\n";

    #[test]
    fn connection_in_fdinfo_identifies_the_daemon() {
        let proc = fake_proc(7732, "bindfs", &["bindfs", "src", "mnt"], INFO_39);
        let m = fuse_mount("fuse", "0:39", "/tmp/mnt");
        let f = describe_in(proc.path(), &m);
        assert_eq!(f.daemon_pids, [7732]);
        assert_eq!(f.daemon_command, "bindfs");
        assert_eq!(f.subtype, "bindfs", "plain `fuse` takes the daemon's name");
        let other = fuse_mount("fuse.sshfs", "0:40", "/tmp/mnt");
        let f = describe_in(proc.path(), &other);
        assert!(f.daemon_pids.is_empty(), "another connection");
        assert_eq!(
            (f.subtype.as_str(), f.daemon_command.as_str()),
            ("sshfs", "unknown")
        );
    }

    #[test]
    fn without_fdinfo_connection_the_cmdline_names_the_mount() {
        let old = "pos:\t0\nflags:\t0100002\nmnt_id:\t24\n";
        let proc = fake_proc(900, "sshfs", &["sshfs", "u@h:/x", "/mnt/remote"], old);
        let m = fuse_mount("fuse.sshfs", "0:41", "/mnt/remote");
        assert_eq!(describe_in(proc.path(), &m).daemon_pids, [900]);
        let rel = fake_proc(901, "gocryptfs", &["gocryptfs", "c", "mnt/plain"], old);
        let m = fuse_mount("fuse.gocryptfs", "0:42", "/mnt/plain");
        assert_eq!(
            describe_in(rel.path(), &m).daemon_pids,
            [901],
            "relative to cwd /"
        );
        let m = fuse_mount("fuse.gocryptfs", "0:42", "/elsewhere");
        let f = describe_in(rel.path(), &m);
        assert!(f.daemon_pids.is_empty());
        assert_eq!(f.daemon_command, "unknown");
    }

    #[test]
    fn fuse_types_and_device_numbers() {
        assert!(is_fuse("fuse") && is_fuse("fuseblk") && is_fuse("fuse.bindfs"));
        assert!(!is_fuse("fusectl") && !is_fuse("ext4"));
        assert_eq!(kernel_dev("0:39"), Some(39));
        assert_eq!(kernel_dev("8:1"), Some((8 << 20) | 1));
        assert_eq!(fdinfo_connection(INFO_39), Some(39));
        assert!(fuse_daemon_pids(Path::new("/nonexistent/mount")).is_empty());
    }
}
