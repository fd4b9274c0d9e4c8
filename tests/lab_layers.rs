//! The lab kinds over a kernel layer: `dm-crypt` (ext4 on a LUKS2 mapping of a loop image) and
//! `nfs` (a loopback NFS export of a loop image's directory). Where the kernel has the layer they
//! are built, named by `fsbench env` (cipher, key and sector size; NFS version and server),
//! measured and torn down — after SIGKILL too, by `fsbench clean`. Where it lacks it (this
//! project's CI kernel has neither device-mapper nor NFS) they are refused with the kernel part
//! named before anything is built, and the builds are ignored with a `kernel lacks …` reason.

use crate::lab::{
    LabDir, assert_torn_down, clean_lab, lab_run, leftovers, start_long_lab_run, target,
};
use crate::util::{entries, fsbench, temp_dir};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every device-mapper device: its name and the kernel names of the devices under it.
fn dm_devices() -> Vec<(String, Vec<String>)> {
    let names = |dir: String| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|rd| {
                rd.filter_map(|e| e.ok()?.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default()
    };
    names("/sys/block".into())
        .into_iter()
        .filter(|n| n.starts_with("dm-"))
        .filter_map(|n| {
            let name = std::fs::read_to_string(format!("/sys/block/{n}/dm/name")).ok()?;
            Some((
                name.trim_end().to_string(),
                names(format!("/sys/block/{n}/slaves")),
            ))
        })
        .collect()
}

/// The names of the device-mapper devices over any of `loops` (`/dev/loopN`, image).
pub(crate) fn mappings_over(loops: &[(String, PathBuf)]) -> Vec<String> {
    dm_devices()
        .into_iter()
        .filter(|(_, under)| {
            under
                .iter()
                .any(|u| loops.iter().any(|(d, _)| d.ends_with(&format!("/{u}"))))
        })
        .map(|(name, _)| name)
        .collect()
}

/// True when a device-mapper device named `name` exists.
fn mapping_exists(name: &str) -> bool {
    dm_devices().iter().any(|(n, _)| n == name)
}

/// The kernel has the device-mapper (what the build saw: the flag that gates the tests below).
const DEVICE_MAPPER: bool = cfg!(fsbench_device_mapper);
/// An NFS server runs here (likewise).
const NFS_SERVER: bool = cfg!(fsbench_nfs_server);

/// The line of `kind` in `fsbench lab list` run with `path` as `PATH` (the test's own if `None`).
fn list_line(kind: &str, path: Option<&Path>) -> String {
    let mut cmd = fsbench();
    cmd.args(["lab", "list"]);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd.output().expect("lab list");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find(|l| l.starts_with(&format!("{kind} ")))
        .unwrap_or_else(|| panic!("no {kind} line"))
        .to_string()
}

#[test]
fn lab_list_says_what_dm_crypt_and_nfs_need_here() {
    let dm = list_line("dm-crypt", None);
    if !DEVICE_MAPPER {
        assert!(
            dm.contains(" no ") && dm.contains("no device-mapper in /proc/misc"),
            "{dm}"
        );
    }
    let nfs = list_line("nfs", None);
    if !NFS_SERVER {
        assert!(
            nfs.contains(" no ")
                && (nfs.contains("no NFS server") || nfs.contains("NFS server is not running")),
            "{nfs}"
        );
    }
    let empty = temp_dir();
    let dm = list_line("dm-crypt", Some(empty.path()));
    assert!(
        dm.contains("apt-get install cryptsetup-bin") && dm.contains("apt-get install dmsetup"),
        "{dm}"
    );
    let nfs = list_line("nfs", Some(empty.path()));
    assert!(
        nfs.contains("apt-get install nfs-kernel-server")
            && nfs.contains("apt-get install nfs-common"),
        "{nfs}"
    );
    let out = fsbench().args(["lab", "list"]).output().expect("lab list");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("(ext4, xfs, btrfs, ext4-fscrypt, dm-crypt;"),
        "dm-crypt can be aged, nfs not: {text}"
    );
}

/// A directory for `PATH` with the real `mkfs.ext4`, `losetup`, `mount` and `umount` and fake
/// `cryptsetup`, `dmsetup`, `exportfs` and `mount.nfs` that fail.
fn path_with_failing_layer_tools() -> tempfile::TempDir {
    let d = temp_dir();
    for real in ["mkfs.ext4", "losetup", "mount", "umount"] {
        let found = std::env::var_os("PATH")
            .and_then(|p| {
                std::env::split_paths(&p)
                    .map(|dir| dir.join(real))
                    .find(|f| f.is_file())
            })
            .unwrap_or_else(|| panic!("{real} is not on PATH"));
        std::os::unix::fs::symlink(found, d.path().join(real)).expect("symlink");
    }
    for fake in ["cryptsetup", "dmsetup", "exportfs", "mount.nfs"] {
        let f = d.path().join(fake);
        std::fs::write(
            &f,
            "#!/bin/sh\necho \"$0: refused by the test\" >&2\nexit 1\n",
        )
        .expect("fake tool");
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    d
}

/// With every tool present, a kernel without the layer is named before anything is built; a
/// kernel with it gets as far as the failing tool, and everything built is torn down.
#[test]
#[cfg_attr(
    not(all(fsbench_root, fsbench_tool_mkfs_ext4, fsbench_tool_losetup)),
    ignore = "needs root, mkfs.ext4 and losetup"
)]
fn a_missing_kernel_layer_builds_nothing_and_a_failing_layer_tool_tears_down() {
    let tools = path_with_failing_layer_tools();
    for (kind, kernel_has) in [("dm-crypt", DEVICE_MAPPER), ("nfs", NFS_SERVER)] {
        let lab = LabDir::new();
        let out = fsbench()
            .args(["run", "--lab", kind, "-w", "null", "-q", "--lab-dir"])
            .arg(lab.path())
            .env("PATH", tools.path())
            .output()
            .expect("run fsbench");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{kind}: {err}");
        let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
        assert_eq!(errors.len(), 1, "{kind}: {err}");
        if kernel_has {
            assert!(
                err.contains(&format!("cannot build lab target {kind}"))
                    && err.contains("refused by the test"),
                "{kind}: {err}"
            );
            assert_torn_down(&lab.path());
        } else {
            assert_eq!(out.status.code(), Some(2), "{kind}: {err}");
            assert!(
                err.contains("this kernel has no") && err.contains("use a kernel that has it"),
                "{kind}: {err}"
            );
            assert!(entries(&lab.path()).is_empty(), "{kind} built: {err}");
        }
    }
}

#[test]
#[cfg_attr(
    not(fsbench_device_mapper),
    ignore = "kernel lacks device-mapper (not in /proc/misc), which dm-crypt needs"
)]
#[cfg_attr(
    all(
        fsbench_device_mapper,
        not(all(
            fsbench_root,
            fsbench_tool_cryptsetup,
            fsbench_tool_dmsetup,
            fsbench_tool_mkfs_ext4
        ))
    ),
    ignore = "needs root, cryptsetup, dmsetup and mkfs.ext4"
)]
fn dm_crypt_is_ext4_on_a_luks2_mapping_named_by_env_and_closed_after() {
    let v = lab_run(
        "ext4,dm-crypt",
        &["-w", "seq-read:size=1m", "--cache", "warm"],
    );
    let t = target(&v, "dm-crypt");
    assert_eq!(t["fs_type"], "ext4");
    let layers = t["stack"]["encryption"].as_array().expect("layers");
    let dm = layers
        .iter()
        .find_map(|l| l.get("dm_crypt").filter(|d| !d.is_null()))
        .unwrap_or_else(|| panic!("no dm-crypt layer: {t}"));
    assert_eq!(dm["format"], "LUKS2", "{dm}");
    assert_eq!(dm["cipher"], "aes-xts-plain64", "{dm}");
    assert_eq!(dm["key_bits"], 512, "{dm}");
    assert_eq!(dm["sector_size"], 4096, "{dm}");
    let name = dm["name"].as_str().expect("mapping name");
    assert!(name.starts_with("fsbench-lab-"), "{name}");
    assert!(!mapping_exists(name), "{name} is still open");
    let lab = &t["lab"];
    assert_eq!(lab["direct_io"], true, "{lab}");
    let commands = lab["commands"].to_string();
    assert!(
        commands.contains("luksFormat") && commands.contains("--key-file"),
        "{commands}"
    );
    assert_eq!(v["run"]["status"], "ok");
}

#[test]
#[cfg_attr(
    not(fsbench_device_mapper),
    ignore = "kernel lacks device-mapper (not in /proc/misc), which dm-crypt needs"
)]
#[cfg_attr(
    all(
        fsbench_device_mapper,
        not(all(fsbench_root, fsbench_tool_cryptsetup, fsbench_tool_mkfs_ext4))
    ),
    ignore = "needs root, cryptsetup and mkfs.ext4"
)]
fn sigkill_on_dm_crypt_then_clean_closes_the_mapping() {
    let lab = LabDir::new();
    let mut child = start_long_lab_run(&lab.path(), "dm-crypt", "dm-crypt/mnt");
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    let (_, loops) = leftovers(&lab.path());
    let names = mappings_over(&loops);
    assert_eq!(names.len(), 1, "the dead run left its mapping: {loops:?}");
    let text = clean_lab(&lab.path());
    assert!(text.contains("closed dm-crypt mapping"), "{text}");
    assert!(!mapping_exists(&names[0]));
    assert_torn_down(&lab.path());
}

/// The lab's exports still in the server's table.
fn exports_of(lab: &Path) -> Vec<String> {
    std::fs::read_to_string("/var/lib/nfs/etab")
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(lab.to_str().expect("utf-8")))
        .map(str::to_string)
        .collect()
}

#[test]
#[cfg_attr(
    not(fsbench_nfs_server),
    ignore = "kernel lacks an NFS server here, or it is not running (/proc/fs/nfsd/threads)"
)]
#[cfg_attr(
    all(
        fsbench_nfs_server,
        not(all(
            fsbench_root,
            fsbench_tool_exportfs,
            fsbench_tool_mount_nfs,
            fsbench_tool_mkfs_ext4
        ))
    ),
    ignore = "needs root, exportfs, mount.nfs and mkfs.ext4"
)]
fn nfs_is_a_loopback_export_named_as_nfs_and_removed_after() {
    let v = lab_run(
        "ext4,nfs",
        &["-w", "tree-create:profile=small", "--cache", "warm"],
    );
    let t = target(&v, "nfs");
    assert!(
        t["fs_type"].as_str().unwrap_or("").starts_with("nfs"),
        "{t}"
    );
    let nfs = &t["stack"]["nfs"];
    assert!(
        nfs["server"]
            .as_str()
            .unwrap_or("")
            .starts_with("127.0.0.1"),
        "{nfs}"
    );
    assert_eq!(nfs["version"], "4.2", "{nfs}");
    let scratch = t["lab"]["scratch"].as_str().expect("scratch");
    assert!(exports_of(Path::new(scratch)).is_empty(), "still exported");
    let commands = t["lab"]["commands"].to_string();
    assert!(commands.contains("exportfs -o rw,sync"), "{commands}");
    assert_eq!(v["run"]["status"], "ok");
}

#[test]
#[cfg_attr(
    not(fsbench_nfs_server),
    ignore = "kernel lacks an NFS server here, or it is not running (/proc/fs/nfsd/threads)"
)]
#[cfg_attr(
    all(
        fsbench_nfs_server,
        not(all(
            fsbench_root,
            fsbench_tool_exportfs,
            fsbench_tool_mount_nfs,
            fsbench_tool_mkfs_ext4
        ))
    ),
    ignore = "needs root, exportfs, mount.nfs and mkfs.ext4"
)]
fn sigkill_on_nfs_then_clean_unmounts_and_unexports() {
    let lab = LabDir::new();
    let mut child = start_long_lab_run(&lab.path(), "nfs", "nfs/nfs");
    child.kill().expect("SIGKILL");
    let _ = child.wait();
    assert_eq!(exports_of(&lab.path()).len(), 1, "the dead run's export");
    let text = clean_lab(&lab.path());
    assert!(text.contains("unexported 127.0.0.1:"), "{text}");
    assert!(exports_of(&lab.path()).is_empty());
    assert_torn_down(&lab.path());
}
