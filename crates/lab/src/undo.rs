//! What a lab can undo: the steps a kind records while it builds ([`Undo`]) and how each is
//! undone — remove the fscrypt key, unmount (FUSE with `fusermount3 -u`), remove an NFS export,
//! close a dm-crypt mapping, detach the loop device —, with the readers of the kernel's state
//! each needs to tell whether its step is still there (the mounts, `/sys/block`'s loop devices
//! and device-mapper devices, the NFS server's export table). The kinds record steps here; the
//! teardown undoes them and sweeps a lab scratch with the same functions. Each undo
//! does nothing when its step is already gone, and never touches what is not the lab's (a loop
//! device reused by someone else, a mapping over another device). `umount -l` is the last
//! resort, taken only after plain unmounts kept failing, and said out loud.

use super::error::Error;
use super::tool;
use fsbench_envinfo::{fuse_daemon_pids, mounts};
use fsbench_sys::cleanup::Cleanup;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long one unmount or detach command may run.
const TIMEOUT: Duration = Duration::from_secs(60);
/// Where the kernel lists block devices.
pub(crate) const SYS_BLOCK: &str = "/sys/block";
/// Where the NFS server keeps its export table.
pub(crate) const ETAB: &str = "/var/lib/nfs/etab";
/// `FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER` (v2 policies).
pub(crate) const KEY_SPEC_IDENTIFIER: u32 = 2;
/// `FSCRYPT_KEY_REMOVAL_STATUS_FLAG_FILES_BUSY`.
const FILES_BUSY: u32 = 1;

/// One step to undo.
#[derive(Debug, Clone)]
pub enum Undo {
    /// Unmount this mount point (FUSE: `fusermount3 -u`, then wait for the daemon to exit).
    Unmount {
        /// The mount point.
        point: PathBuf,
        /// It is a FUSE mount.
        fuse: bool,
    },
    /// Detach this loop device, if it is still backed by `image`.
    Detach {
        /// `/dev/loopN`.
        device: String,
        /// The image it was attached to.
        image: PathBuf,
    },
    /// Close dm-crypt mapping `name`, if it still maps loop device `device`.
    CloseMapping {
        /// Its name (`/dev/mapper/NAME`).
        name: String,
        /// The loop device under it (`/dev/loop3`).
        device: String,
    },
    /// Remove the NFS export of `path` to `client` (`exportfs -u CLIENT:PATH`), if it is there.
    Unexport {
        /// The client it was exported to (`127.0.0.1`).
        client: String,
        /// The exported directory.
        path: PathBuf,
    },
    /// End simulated host `name` of lab directory `dir` (every process, link and mount of it).
    EndHost {
        /// The target's directory in the lab scratch.
        dir: PathBuf,
        /// The host's name (`client`, `server1`).
        name: String,
    },
    /// Remove the fscrypt key `identifier` from the filesystem mounted at `root`.
    RemoveKey {
        /// Mount root of the filesystem.
        root: PathBuf,
        /// Key identifier the kernel computed when the key was added.
        identifier: [u8; 16],
    },
}

/// Undoes one step; `Ok(Some(note))` when it needed a last resort worth saying.
pub(crate) fn apply(step: &Undo) -> Result<Option<String>, Error> {
    match step {
        Undo::Unmount { point, fuse } => unmount(point, *fuse),
        Undo::Detach { device, image } => detach(device, image),
        Undo::CloseMapping { name, device } => close_mapping(name, device),
        Undo::Unexport { client, path } => unexport(client, path),
        Undo::EndHost { dir, name } => super::simhost::end(dir, name),
        Undo::RemoveKey { root, identifier } => {
            if !is_mounted(root) {
                return Ok(None); // the key went with the filesystem
            }
            remove_key(root, identifier)
        }
    }
}

/// Runs an undo command. Not registered in the process's cleanup registry: undoing runs while
/// that registry is being released (or after the run), and each command is waited for with a
/// timeout and dies with fsbench anyway (`PR_SET_PDEATHSIG`).
fn run_tool(program: &str, args: &[&str]) -> Result<String, Error> {
    tool::run(program, args, TIMEOUT, &Cleanup::new())
}

/// Waits a little longer after each failed attempt (100 ms, 200 ms, ...).
fn back_off(attempt: u32) {
    std::thread::sleep(Duration::from_millis(100) * (attempt + 1));
}

fn is_mounted(point: &Path) -> bool {
    mounts().iter().any(|m| Path::new(&m.mount_point) == point)
}

/// Unmounts `point` (every mount stacked there); lazily only after plain unmounts failed for a
/// few seconds.
pub(crate) fn unmount(point: &Path, fuse: bool) -> Result<Option<String>, Error> {
    let Some(p) = point.to_str() else {
        return Err(Error::NotUndone {
            what: format!("unmount {}", point.display()),
            cause: Box::new(Error::NotUtf8(point.to_path_buf())),
            fix: "unmount it by hand".into(),
        });
    };
    let mut last: Option<Error> = None;
    for attempt in 0..6u32 {
        if !is_mounted(point) {
            return Ok(None);
        }
        let daemons = if fuse {
            fuse_daemon_pids(point)
        } else {
            Vec::new()
        };
        let r = if fuse {
            run_tool("fusermount3", &["-u", p]).or_else(|_| run_tool("umount", &[p]))
        } else {
            run_tool("umount", &[p])
        };
        match r {
            Ok(_) => wait_gone(&daemons),
            Err(e) => {
                last = Some(e);
                back_off(attempt);
            }
        }
    }
    if !is_mounted(point) {
        return Ok(None);
    }
    let busy = last.map_or_else(|| "still mounted".to_string(), |e| e.to_string());
    run_tool("umount", &["-l", p]).map_err(|e| Error::StillMounted {
        point: p.to_string(),
        busy: busy.clone(),
        lazy: Box::new(e),
    })?;
    Ok(Some(format!(
        "unmounted {p} lazily (it stayed busy: {busy}); it is released when its last user closes it"
    )))
}

/// Waits (at most 5 s) until the FUSE daemons `pids` have exited.
fn wait_gone(pids: &[i32]) {
    let deadline = Instant::now() + Duration::from_secs(5);
    let alive = |pid: &i32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(") ")
                .is_some_and(|(_, r)| !r.starts_with('Z'))
        })
    };
    while pids.iter().any(alive) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The image behind loop device `name` (`loop3`), without the kernel's ` (deleted)` suffix.
pub(crate) fn backing_file(name: &str) -> Option<PathBuf> {
    let path = Path::new(SYS_BLOCK).join(name).join("loop/backing_file");
    let text = std::fs::read_to_string(path).ok()?;
    let text = text.trim_end_matches('\n');
    Some(PathBuf::from(
        text.strip_suffix(" (deleted)").unwrap_or(text),
    ))
}

/// Detaches `device` if it is still backed by `image`; waits (2 s) for the kernel to let go.
pub(crate) fn detach(device: &str, image: &Path) -> Result<Option<String>, Error> {
    let name = device.trim_start_matches("/dev/");
    if super::loopfs::release(device) {
        // Autoclear: the last close detaches it (udev may hold it a moment after the unmount).
        let deadline = Instant::now() + Duration::from_secs(1);
        while backing_file(name).as_deref() == Some(image) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    if backing_file(name).as_deref() != Some(image) {
        return Ok(None); // already detached (and perhaps reused by someone else)
    }
    run_tool("losetup", &["-d", device]).map_err(|e| Error::NotUndone {
        what: format!("detach {device}"),
        cause: Box::new(e),
        fix: format!("run 'losetup -d {device}'"),
    })?;
    let deadline = Instant::now() + Duration::from_secs(2);
    while backing_file(name).as_deref() == Some(image) {
        if Instant::now() > deadline {
            return Ok(Some(format!(
                "{device} is still busy; the kernel detaches it when its last user closes it"
            )));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(None)
}

/// One device-mapper device: its name and the block devices under it (`loop3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mapping {
    /// Its name (`/dev/mapper/NAME`).
    pub name: String,
    /// The kernel names of the devices it maps (`slaves/`).
    pub under: Vec<String>,
}

/// The device-mapper devices in `sys_block` (`/sys/block`): each `dm-N` with its `dm/name` and
/// `slaves/`.
pub(crate) fn mappings(sys_block: &Path) -> Vec<Mapping> {
    let Ok(rd) = std::fs::read_dir(sys_block) else {
        return Vec::new();
    };
    let mut out: Vec<Mapping> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("dm-"))
        .filter_map(|n| {
            let dir = sys_block.join(&n);
            let name = std::fs::read_to_string(dir.join("dm/name")).ok()?;
            let mut under: Vec<String> = std::fs::read_dir(dir.join("slaves"))
                .map(|rd| {
                    rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                        .collect()
                })
                .unwrap_or_default();
            under.sort();
            Some(Mapping {
                name: name.trim_end().to_string(),
                under,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// True when mapping `name` exists and maps loop device `device` (`/dev/loop3`): the lab's own
/// (closing it when it maps something else would break another program's volume).
fn maps(sys_block: &Path, name: &str, device: &str) -> bool {
    let dev = device.trim_start_matches("/dev/");
    mappings(sys_block)
        .iter()
        .any(|m| m.name == name && m.under.iter().any(|u| u == dev))
}

/// Closes dm-crypt mapping `name` if it still maps `device`; retried for a few seconds, since
/// udev may still hold a mapping just after its filesystem was unmounted.
pub(crate) fn close_mapping(name: &str, device: &str) -> Result<Option<String>, Error> {
    let mut attempt = 0;
    loop {
        if !maps(Path::new(SYS_BLOCK), name, device) {
            return Ok(None);
        }
        match run_tool("cryptsetup", &["close", name]) {
            Ok(_) => return Ok(None),
            Err(e) if attempt == 5 => {
                return Err(Error::NotUndone {
                    what: format!("close dm-crypt mapping {name}"),
                    cause: Box::new(e),
                    fix: format!("run 'cryptsetup close {name}'"),
                });
            }
            Err(_) => back_off(attempt),
        }
        attempt += 1;
    }
}

/// The exports of `/var/lib/nfs/etab` text (`PATH<TAB>CLIENT(OPTIONS)` per line, the path with
/// `\ooo` octal escapes) whose path `ours` accepts: (client, path).
pub(crate) fn exports_in(etab: &str, ours: impl Fn(&Path) -> bool) -> Vec<(String, PathBuf)> {
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
fn is_exported(client: &str, path: &Path) -> bool {
    let etab = std::fs::read_to_string(ETAB).unwrap_or_default();
    exports_in(&etab, |p| p == path)
        .iter()
        .any(|(c, _)| c == client)
}

/// Undoes `\ooo` octal escapes (how nfs-utils writes a space or a tab in a path).
pub(crate) fn unescape(text: &str) -> String {
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

/// Removes the export of `path` to `client` if the server still has it.
pub(crate) fn unexport(client: &str, path: &Path) -> Result<Option<String>, Error> {
    if !is_exported(client, path) {
        return Ok(None);
    }
    let spec = format!("{client}:{}", path.display());
    run_tool("exportfs", &["-u", &spec])
        .map(|_| None)
        .map_err(|e| Error::NotUndone {
            what: format!("remove the NFS export {spec}"),
            cause: Box::new(e),
            fix: format!("run 'exportfs -u {spec}'"),
        })
}

/// Removes fscrypt key `identifier` from the filesystem mounted at `root`
/// (`FS_IOC_REMOVE_ENCRYPTION_KEY`); a note when files still used it (the kernel then removes
/// it once they are closed).
fn remove_key(root: &Path, identifier: &[u8; 16]) -> Result<Option<String>, Error> {
    let mut arg = [0u8; 64];
    arg[..4].copy_from_slice(&KEY_SPEC_IDENTIFIER.to_ne_bytes());
    arg[8..24].copy_from_slice(identifier);
    std::fs::File::open(root)
        .and_then(|f| {
            let touched = arg.len();
            fsbench_sys::fscrypt::ioctl(
                f.as_fd(),
                fsbench_sys::fscrypt::REMOVE_KEY,
                &mut arg,
                touched,
            )
        })
        .map_err(|e| Error::io("remove the fscrypt key from", root, e))?;
    let status = u32::from_ne_bytes([arg[40], arg[41], arg[42], arg[43]]);
    Ok((status & FILES_BUSY != 0).then(|| {
        "the fscrypt key was removed while files still used it; it goes with the unmount".into()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded `/sys/block` layout: dm-0 a LUKS volume over loop3, dm-1 an LVM volume over
    /// two disks.
    fn sys_block() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        for (dm, name, under) in [
            ("dm-0", "fsbench-lab-42-7-dm-crypt\n", &["loop3"][..]),
            ("dm-1", "vg0-home\n", &["sda2", "sdb1"][..]),
        ] {
            std::fs::create_dir_all(d.path().join(dm).join("dm")).unwrap();
            std::fs::write(d.path().join(dm).join("dm/name"), name).unwrap();
            std::fs::create_dir_all(d.path().join(dm).join("slaves")).unwrap();
            for u in under {
                std::fs::create_dir(d.path().join(dm).join("slaves").join(u)).unwrap();
            }
        }
        std::fs::create_dir(d.path().join("loop3")).unwrap();
        d
    }

    #[test]
    fn mappings_are_read_with_the_devices_under_them() {
        let d = sys_block();
        let all = mappings(d.path());
        assert_eq!(
            all,
            [
                Mapping {
                    name: "fsbench-lab-42-7-dm-crypt".into(),
                    under: vec!["loop3".into()]
                },
                Mapping {
                    name: "vg0-home".into(),
                    under: vec!["sda2".into(), "sdb1".into()]
                }
            ]
        );
        assert!(maps(d.path(), "fsbench-lab-42-7-dm-crypt", "/dev/loop3"));
        assert!(!maps(d.path(), "fsbench-lab-42-7-dm-crypt", "/dev/loop4"));
        assert!(!maps(d.path(), "vg0-home", "/dev/loop3"));
        assert!(mappings(&d.path().join("absent")).is_empty());
    }

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
        assert_eq!(unescape("a\\040b\\011c\\"), "a b\tc\\");
    }

    #[test]
    fn steps_already_gone_are_left_alone() {
        let gone = Path::new("/nonexistent/fsbench-lab-test/mnt");
        assert!(matches!(
            apply(&Undo::Unmount {
                point: gone.into(),
                fuse: false
            }),
            Ok(None)
        ));
        let detach = Undo::Detach {
            device: "/dev/loop-fsbench-none".into(),
            image: gone.join("disk.img"),
        };
        assert!(matches!(apply(&detach), Ok(None)));
        let key = Undo::RemoveKey {
            root: gone.into(),
            identifier: [0; 16],
        };
        assert!(matches!(apply(&key), Ok(None)));
    }
}
