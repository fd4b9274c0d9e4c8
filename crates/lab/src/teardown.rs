//! Undoing a lab: the recorded steps newest first (remove the fscrypt key, unmount — FUSE with
//! `fusermount3 -u` —, remove an NFS export, close a dm-crypt mapping, detach the loop device),
//! then a sweep of the lab scratch for anything the steps did not know about (a mount made just
//! before a signal), then the scratch removed. The sweep alone is what `fsbench clean` runs on a
//! dead run's lab scratch: a lab mounts only at `KIND/fuse`, `KIND/nfs` and `KIND/mnt`, exports
//! only `KIND/mnt/export`, and keeps images only at `KIND/disk.img`, so those mounts, those
//! exports, the device-mapper devices over the loop devices of those images and the loop devices
//! themselves are the lab's (anything else there, say a bind mount someone made, is left, and
//! the removal then refuses to cross it). `umount -l` is the last resort, taken only
//! after plain unmounts kept failing, and said out loud.

use super::{LiveLab, tool};
use fsbench_envinfo::{fuse_daemon_pids, mounts};
use fsbench_sys::cleanup::Cleanup;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long one unmount or detach command may run.
const TIMEOUT: Duration = Duration::from_secs(60);

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
    /// Remove the fscrypt key `identifier` from the filesystem mounted at `root`.
    RemoveKey {
        /// Mount root of the filesystem.
        root: PathBuf,
        /// Key identifier the kernel computed when the key was added.
        identifier: [u8; 16],
    },
}

/// What a sweep undid and what it could not.
#[derive(Debug, Default)]
pub struct Sweep {
    /// One line per mount unmounted or loop device detached.
    pub done: Vec<String>,
    /// One line per failure.
    pub problems: Vec<String>,
}

/// Runs a teardown command. Not registered in the process's cleanup registry: teardown runs
/// while that registry is being released (or after the run), and each command is waited for
/// with a timeout and dies with fsbench anyway (`PR_SET_PDEATHSIG`).
fn run_tool(program: &str, args: &[&str]) -> Result<String, String> {
    tool::run(program, args, TIMEOUT, &Cleanup::new())
}

/// Tears down one lab; returns what it noted and its problems. The scratch is kept when
/// something could not be undone (removing it would orphan a mount or a loop device that `fsbench clean` could still
/// find through it).
pub(super) fn lab(l: LiveLab) -> Sweep {
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    for t in l.targets.into_iter().rev() {
        for step in t.undo.iter().rev() {
            match apply(step) {
                Ok(Some(note)) => notes.push(format!("lab: {}: {note}", t.label)),
                Ok(None) => {}
                Err(e) => problems.push(format!("{}: {e}", t.label)),
            }
        }
    }
    let Some(scratch) = l.scratch else {
        return Sweep {
            done: notes,
            problems,
        };
    };
    let sweep = sweep(scratch.path());
    problems.extend(sweep.problems);
    if problems.is_empty() {
        if let Err(e) = scratch.remove() {
            problems.push(e.message);
        }
    } else {
        problems.push(format!(
            "kept {} — 'fsbench clean {}' retries once the problem is fixed",
            scratch.path().display(),
            scratch
                .path()
                .parent()
                .map_or(Path::new("."), |p| p)
                .display()
        ));
        scratch.keep();
    }
    Sweep {
        done: notes,
        problems,
    }
}

/// Undoes one step; `Ok(Some(note))` when it needed a last resort worth saying.
fn apply(step: &Undo) -> Result<Option<String>, String> {
    match step {
        Undo::Unmount { point, fuse } => unmount(point, *fuse),
        Undo::Detach { device, image } => detach(device, image),
        Undo::CloseMapping { name, device } => close_mapping(name, device),
        Undo::Unexport { client, path } => unexport(client, path),
        Undo::RemoveKey { root, identifier } => {
            if !is_mounted(root) {
                return Ok(None); // the key went with the filesystem
            }
            super::fscrypt::remove_key(root, identifier)
        }
    }
}

/// True when `path` is `dir/LABEL/NAME` for a lab target (a kind, or an aged kind's label: see
/// [`super::aged::is_target_dir`]): the only places a lab mounts (`mnt`) or
/// keeps an image (`disk.img`). Anything else in a lab scratch (a bind mount someone made) is
/// not the lab's to undo, and the scratch removal then refuses to cross it.
fn is_lab_path(dir: &Path, path: &Path, name: &str) -> bool {
    path.parent()
        .and_then(|k| Some((k.parent()?, k.file_name()?.to_str()?)))
        .is_some_and(|(d, label)| d == dir && super::aged::is_target_dir(label))
        && path.file_name().is_some_and(|n| n == name)
}

/// Unmounts the layers over the lab images (`dir/KIND/fuse`, `dir/KIND/nfs`), removes the
/// exports of `dir/KIND/mnt/export`, unmounts the images' filesystems (`dir/KIND/mnt`), closes the
/// device-mapper devices over the lab images' loop devices and detaches those loop devices
/// (`dir/KIND/disk.img`), of the lab scratch `dir` (canonical).
pub fn sweep(dir: &Path) -> Sweep {
    let mut s = Sweep::default();
    let mut record = |r: Result<Option<String>, String>, done: String| match r {
        Ok(note) => s.done.push(note.unwrap_or(done)),
        Err(e) => s.problems.push(e),
    };
    // The layers first, then the exports (the NFS server holds an exported filesystem busy),
    // then the images' own filesystems.
    for (p, fuse) in lab_mounts(dir, &["fuse", "nfs"]) {
        record(unmount(&p, fuse), format!("unmounted {}", p.display()));
    }
    let etab = std::fs::read_to_string(super::nfs::ETAB).unwrap_or_default();
    let exports = super::nfs::exports_in(&etab, |p| {
        p.file_name().is_some_and(|n| n == "export")
            && p.parent().is_some_and(|m| is_lab_path(dir, m, "mnt"))
    });
    for (client, path) in exports {
        let done = format!("unexported {client}:{}", path.display());
        record(unexport(&client, &path), done);
    }
    for (p, fuse) in lab_mounts(dir, &["mnt"]) {
        record(unmount(&p, fuse), format!("unmounted {}", p.display()));
    }
    let loops = loops_backed_in(dir);
    for m in super::dmcrypt::mappings(Path::new(SYS_BLOCK)) {
        let Some((device, _)) = loops
            .iter()
            .find(|(d, _)| m.under.iter().any(|u| d.trim_start_matches("/dev/") == u))
        else {
            continue;
        };
        let done = format!("closed dm-crypt mapping {} ({device})", m.name);
        record(close_mapping(&m.name, device), done);
    }
    for (device, image) in loops {
        let done = format!("detached {device} ({})", image.display());
        record(detach(&device, &image), done);
    }
    s
}

/// The mount points of lab scratch `dir` named one of `names` (`dir/LABEL/NAME`), in that order,
/// each with whether it is FUSE.
fn lab_mounts(dir: &Path, names: &[&str]) -> Vec<(PathBuf, bool)> {
    let all: Vec<(PathBuf, bool)> = mounts()
        .into_iter()
        .map(|m| (PathBuf::from(&m.mount_point), is_fuse(&m.fs_type)))
        .collect();
    let mut points: Vec<(PathBuf, bool)> = names
        .iter()
        .flat_map(|name| all.iter().filter(move |(p, _)| is_lab_path(dir, p, name)))
        .cloned()
        .collect();
    points.dedup_by(|a, b| a.0 == b.0);
    points
}

/// Where the kernel lists block devices.
const SYS_BLOCK: &str = "/sys/block";

/// Closes dm-crypt mapping `name` if it still maps `device`; retried for a few seconds, since
/// udev may still hold a mapping just after its filesystem was unmounted.
fn close_mapping(name: &str, device: &str) -> Result<Option<String>, String> {
    let mut last = String::new();
    for attempt in 0..6u32 {
        if !super::dmcrypt::maps(Path::new(SYS_BLOCK), name, device) {
            return Ok(None);
        }
        match run_tool("cryptsetup", &["close", name]) {
            Ok(_) => return Ok(None),
            Err(e) => last = e,
        }
        std::thread::sleep(Duration::from_millis(100) * (attempt + 1));
    }
    Err(format!(
        "cannot close dm-crypt mapping {name}: {last} — run 'cryptsetup close {name}'"
    ))
}

/// Removes the export of `path` to `client` if the server still has it.
fn unexport(client: &str, path: &Path) -> Result<Option<String>, String> {
    if !super::nfs::is_exported(client, path) {
        return Ok(None);
    }
    let spec = format!("{client}:{}", path.display());
    run_tool("exportfs", &["-u", &spec])
        .map(|_| None)
        .map_err(|e| format!("cannot remove the NFS export {spec}: {e} — run 'exportfs -u {spec}'"))
}

/// FUSE mounts are `fuse`, `fuseblk` or `fuse.SUBTYPE`.
fn is_fuse(fs_type: &str) -> bool {
    fs_type == "fuse" || fs_type == "fuseblk" || fs_type.starts_with("fuse.")
}

fn is_mounted(point: &Path) -> bool {
    mounts().iter().any(|m| Path::new(&m.mount_point) == point)
}

/// Unmounts `point` (every mount stacked there); lazily only after plain unmounts failed for a
/// few seconds.
fn unmount(point: &Path, fuse: bool) -> Result<Option<String>, String> {
    let Some(p) = point.to_str() else {
        return Err(format!(
            "cannot unmount {} (not UTF-8) — unmount it by hand",
            point.display()
        ));
    };
    let mut last = String::new();
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
                last = e;
                std::thread::sleep(Duration::from_millis(100) * (attempt + 1));
            }
        }
    }
    if !is_mounted(point) {
        return Ok(None);
    }
    run_tool("umount", &["-l", p]).map_err(|e| {
        format!("cannot unmount {p}: {last}; 'umount -l' failed too: {e} — unmount it by hand")
    })?;
    Ok(Some(format!(
        "unmounted {p} lazily (it stayed busy: {last}); it is released when its last user closes it"
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
fn backing_file(name: &str) -> Option<PathBuf> {
    let text = std::fs::read_to_string(format!("/sys/block/{name}/loop/backing_file")).ok()?;
    let text = text.trim_end_matches('\n');
    Some(PathBuf::from(
        text.strip_suffix(" (deleted)").unwrap_or(text),
    ))
}

/// Loop devices (`/dev/loopN`, image) whose image is a lab image of `dir`.
fn loops_backed_in(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(SYS_BLOCK) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("loop"))
        .filter_map(|n| backing_file(&n).map(|b| (format!("/dev/{n}"), b)))
        .filter(|(_, b)| is_lab_path(dir, b, "disk.img"))
        .collect();
    out.sort();
    out
}

/// Detaches `device` if it is still backed by `image`; waits (2 s) for the kernel to let go.
fn detach(device: &str, image: &Path) -> Result<Option<String>, String> {
    let name = device.trim_start_matches("/dev/");
    if backing_file(name).as_deref() != Some(image) {
        return Ok(None); // already detached (and perhaps reused by someone else)
    }
    run_tool("losetup", &["-d", device])
        .map_err(|e| format!("cannot detach {device}: {e} — run 'losetup -d {device}'"))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_labs_own_mount_points_and_images_are_swept() {
        let d = Path::new("/x/.fsbench-lab-1");
        assert!(is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/ext4/mnt"),
            "mnt"
        ));
        assert!(is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/xfs/disk.img"),
            "disk.img"
        ));
        assert!(!is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/ext4/mnt/sub"),
            "mnt"
        ));
        assert!(!is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/zfs/mnt"),
            "mnt"
        ));
        assert!(!is_lab_path(d, Path::new("/x/.fsbench-lab-1/a/mnt"), "mnt"));
        assert!(is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/ext4-aged-fill80/disk.img"),
            "disk.img"
        ));
        assert!(!is_lab_path(d, Path::new("/x/other/ext4/mnt"), "mnt"));
        assert!(!is_lab_path(
            d,
            Path::new("/x/.fsbench-lab-1/ext4/disk.img"),
            "mnt"
        ));
    }
}
