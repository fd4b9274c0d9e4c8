//! ext4 on dm-crypt: the lab image attached to a loop device with direct I/O (as the `ext4`
//! kind's), formatted as LUKS2 with a generated key file, opened as `/dev/mapper/NAME`, and ext4
//! made and mounted on the mapping. Against lab ext4 only the dm-crypt layer differs, which is
//! the seeds' "encrypted vs unencrypted volume" question on Linux. The cipher is LUKS2's default
//! (`aes-xts-plain64`, a 512-bit key: AES-256-XTS, as the fscrypt kind's contents), with 4 KiB
//! sectors; the key slot uses PBKDF2 at its minimum, since the key is random and thrown away.
//! At teardown the mapping is closed after the unmount and before the loop device is detached;
//! `fsbench clean` finds a dead run's mappings by the lab images under their loop devices.

use super::teardown::Undo;
use super::{Building, loopfs, text};
use std::path::{Path, PathBuf};

/// `cryptsetup luksFormat`'s options: what `fsbench env` then reports of the mapping.
const FORMAT: &[&str] = &[
    "luksFormat",
    "--batch-mode",
    "--type",
    "luks2",
    "--cipher",
    "aes-xts-plain64",
    "--key-size",
    "512",
    "--sector-size",
    "4096",
    "--pbkdf",
    "pbkdf2",
    "--pbkdf-force-iterations",
    "1000",
];

/// The device-mapper's longest name (`DM_NAME_LEN` less its terminating zero).
const MAX_NAME: usize = 127;

/// Builds the LUKS2 volume on the image's loop device, opens it and returns ext4's mount point.
pub fn build(b: &mut Building) -> Result<PathBuf, String> {
    let device = loopfs::image_device(b)?;
    let key = b.dir.join("keyfile");
    super::secret::write(&key)?;
    let name = mapping_name(&b.dir)?;
    let mut format = FORMAT.to_vec();
    format.extend(["--key-file", text(&key), &device]);
    b.run("cryptsetup", &format)?;
    b.undo(Undo::CloseMapping {
        name: name.clone(),
        device: device.clone(),
    });
    b.run(
        "cryptsetup",
        &[
            "open",
            "--type",
            "luks2",
            "--key-file",
            text(&key),
            &device,
            &name,
        ],
    )?;
    b.info.options =
        "LUKS2 aes-xts-plain64, 512-bit key, 4096-byte sectors, no dm-crypt perf flags".into();
    loopfs::fs_on(b, "mkfs.ext4", loopfs::EXT4, &format!("/dev/mapper/{name}"))
}

/// The mapping's name: `fsbench-` and the lab scratch's id and the target's label
/// (`fsbench-lab-4242-1700000000-dm-crypt`), unique to this run and target.
fn mapping_name(target_dir: &Path) -> Result<String, String> {
    fn part(p: Option<&Path>) -> Option<&str> {
        p?.file_name()?.to_str()
    }
    let scratch = part(target_dir.parent()).unwrap_or("lab");
    let label = part(Some(target_dir)).unwrap_or("dm-crypt");
    let name = format!(
        "fsbench-{}-{label}",
        scratch.trim_start_matches(".fsbench-")
    );
    if name.len() > MAX_NAME {
        return Err(format!(
            "the dm-crypt mapping name {name} is longer than the device-mapper's {MAX_NAME} characters — give a shorter --lab label"
        ));
    }
    Ok(name)
}

/// One device-mapper device: its name and the block devices under it (`loop3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapping {
    /// Its name (`/dev/mapper/NAME`).
    pub name: String,
    /// The kernel names of the devices it maps (`slaves/`).
    pub under: Vec<String>,
}

/// The device-mapper devices in `sys_block` (`/sys/block`): each `dm-N` with its `dm/name` and
/// `slaves/`.
pub fn mappings(sys_block: &Path) -> Vec<Mapping> {
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
pub fn maps(sys_block: &Path, name: &str, device: &str) -> bool {
    let dev = device.trim_start_matches("/dev/");
    mappings(sys_block)
        .iter()
        .any(|m| m.name == name && m.under.iter().any(|u| u == dev))
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

    #[test]
    fn the_mapping_is_named_after_the_lab_and_the_label() {
        let name = mapping_name(Path::new("/x/.fsbench-lab-42-7/dm-crypt")).unwrap();
        assert_eq!(name, "fsbench-lab-42-7-dm-crypt");
        let aged = mapping_name(Path::new("/x/.fsbench-lab-42-7/dm-crypt-aged")).unwrap();
        assert_eq!(aged, "fsbench-lab-42-7-dm-crypt-aged");
        let long = format!("/x/.fsbench-lab-42-7/{}", "d".repeat(120));
        assert!(mapping_name(Path::new(&long)).is_err());
    }

    #[test]
    fn the_volume_is_luks2_aes_xts_with_4k_sectors() {
        let f = FORMAT.join(" ");
        assert!(f.contains("--type luks2 --cipher aes-xts-plain64 --key-size 512"));
        assert!(f.contains("--sector-size 4096"));
        assert!(f.contains("--batch-mode"), "never asks for confirmation");
    }
}
