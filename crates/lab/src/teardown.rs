//! Tearing a lab down: the steps its kinds recorded, undone newest first ([`super::undo`]),
//! then a sweep of the lab scratch for anything the steps did not know about (a mount made just
//! before a signal), then the scratch removed. The sweep alone is what `fsbench clean` runs on a
//! dead run's lab scratch: a lab mounts only at `LABEL/fuse`, `LABEL/nfs` and `LABEL/mnt`,
//! exports only `LABEL/mnt/export`, and keeps images only at `LABEL/disk.img`, so those mounts,
//! those exports, the device-mapper devices over the loop devices of those images and the loop
//! devices themselves are the lab's (anything else there, say a bind mount someone made, is
//! left, and the removal then refuses to cross it).

use super::LiveLab;
use super::error::Error;
use super::simhost;
use super::undo::{self, SYS_BLOCK};
use fsbench_envinfo::mounts;
use fsbench_model::LabKind;
use fsbench_model::fstype::is_fuse;
use std::path::{Path, PathBuf};

/// What a sweep undid and what it could not.
#[derive(Debug, Default)]
pub struct Sweep {
    /// One line per mount unmounted or loop device detached.
    pub done: Vec<String>,
    /// One line per failure.
    pub problems: Vec<String>,
}

/// Tears down one lab; returns what it noted and its problems. The scratch is kept when
/// something could not be undone (removing it would orphan a mount or a loop device that `fsbench clean` could still
/// find through it).
pub(super) fn lab(l: LiveLab) -> Sweep {
    let mut problems = Vec::new();
    let mut notes = Vec::new();
    for t in l.targets.into_iter().rev() {
        for step in t.undo.iter().rev() {
            match undo::apply(step) {
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

/// True when `path` is `dir/LABEL/NAME` for a lab target (a kind, or an aged kind's label: see
/// [`is_target_dir`]): the only places a lab mounts (`mnt`) or
/// keeps an image (`disk.img`). Anything else in a lab scratch (a bind mount someone made) is
/// not the lab's to undo, and the scratch removal then refuses to cross it.
fn is_lab_path(dir: &Path, path: &Path, name: &str) -> bool {
    path.parent()
        .and_then(|k| Some((k.parent()?, k.file_name()?.to_str()?)))
        .is_some_and(|(d, label)| d == dir && is_target_dir(label))
        && path.file_name().is_some_and(|n| n == name)
}

/// Unmounts the layers over the lab images (`dir/KIND/fuse`, `dir/KIND/nfs`), removes the
/// exports of `dir/KIND/mnt/export`, unmounts the images' filesystems (`dir/KIND/mnt`), closes the
/// device-mapper devices over the lab images' loop devices and detaches those loop devices
/// (`dir/KIND/disk.img`), of the lab scratch `dir` (canonical).
pub fn sweep(dir: &Path) -> Sweep {
    let mut s = Sweep::default();
    let mut record = |r: Result<Option<String>, Error>, done: String| match r {
        Ok(note) => s.done.push(note.unwrap_or(done)),
        Err(e) => s.problems.push(e.to_string()),
    };
    // The layers first, then the exports (the NFS server holds an exported filesystem busy),
    // then the images' own filesystems.
    for (p, fuse) in lab_mounts(dir, &["fuse", "nfs"]) {
        record(
            undo::unmount(&p, fuse),
            format!("unmounted {}", p.display()),
        );
    }
    // The simulated hosts of the served kinds (their daemons, links and brick mounts).
    for (_, host_dir, name) in simhost::inits_in(dir) {
        if !host_dir
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(is_target_dir)
        {
            continue;
        }
        let done = format!("ended simulated host {name} of {}", host_dir.display());
        record(simhost::end(&host_dir, &name), done);
    }
    let etab = std::fs::read_to_string(undo::ETAB).unwrap_or_default();
    let exports = undo::exports_in(&etab, |p| {
        p.file_name().is_some_and(|n| n == "export")
            && p.parent().is_some_and(|m| is_lab_path(dir, m, "mnt"))
    });
    for (client, path) in exports {
        let done = format!("unexported {client}:{}", path.display());
        record(undo::unexport(&client, &path), done);
    }
    for (p, fuse) in lab_mounts(dir, &["mnt"]) {
        record(
            undo::unmount(&p, fuse),
            format!("unmounted {}", p.display()),
        );
    }
    let loops = loops_backed_in(dir);
    for m in undo::mappings(Path::new(SYS_BLOCK)) {
        let Some((device, _)) = loops
            .iter()
            .find(|(d, _)| m.under.iter().any(|u| d.trim_start_matches("/dev/") == u))
        else {
            continue;
        };
        let done = format!("closed dm-crypt mapping {} ({device})", m.name);
        record(undo::close_mapping(&m.name, device), done);
    }
    for (device, image) in loops {
        let done = format!("detached {device} ({})", image.display());
        record(undo::detach(&device, &image), done);
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

/// Loop devices (`/dev/loopN`, image) whose image is a lab image of `dir`.
fn loops_backed_in(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(rd) = std::fs::read_dir(SYS_BLOCK) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = rd
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with("loop"))
        .filter_map(|n| undo::backing_file(&n).map(|b| (format!("/dev/{n}"), b)))
        .filter(|(_, b)| is_lab_path(dir, b, "disk.img") || is_server_image(dir, b))
        .collect();
    out.sort();
    out
}

/// True when `path` is a served kind's server image (`dir/LABEL/serverN.img`).
fn is_server_image(dir: &Path, path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let numbered = name
        .strip_prefix("server")
        .and_then(|n| n.strip_suffix(".img"))
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()));
    numbered && is_lab_path(dir, path, name)
}

/// True when `name` is the directory of a lab target in a lab scratch: a kind's name, or the
/// label of an aged one (`ext4-aged`, `ext4-aged-fill80-churn3`).
fn is_target_dir(name: &str) -> bool {
    if LabKind::parse(name).is_some() {
        return true;
    }
    // A served kind with options: `glusterfs-replica2-rtt2ms`.
    let served = LabKind::ALL.iter().filter(|k| k.served()).any(|k| {
        name.strip_prefix(k.name())
            .and_then(|r| r.strip_prefix('-'))
            .is_some_and(|r| {
                !r.is_empty()
                    && r.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                    && !r.contains("..")
            })
    });
    if served {
        return true;
    }
    name.split_once("-aged").is_some_and(|(kind, rest)| {
        LabKind::parse(kind).is_some()
            && (rest.is_empty() || rest.starts_with('-'))
            && rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    })
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

    #[test]
    fn only_the_labs_target_directories_are_recognised() {
        for ok in [
            "ext4",
            "ext4-aged",
            "ext4-fscrypt-aged",
            "xfs-aged-fill80-churn3",
            "glusterfs-replica2-rtt0.5ms",
        ] {
            assert!(is_target_dir(ok), "{ok}");
        }
        for no in [
            "ext",
            "zfs-aged",
            "ext4-agedx",
            "ext4-aged-a/b",
            "ext4-aged-..",
            "sshfs-",
            "sshfs-a/b",
        ] {
            assert!(!is_target_dir(no), "{no}");
        }
    }
}
