//! ext4 on dm-crypt: the lab image attached to a loop device with direct I/O (as the `ext4`
//! kind's), formatted as LUKS2 with a generated key file, opened as `/dev/mapper/NAME`, and ext4
//! made and mounted on the mapping. Against lab ext4 only the dm-crypt layer differs, which is
//! the seeds' "encrypted vs unencrypted volume" question on Linux. The cipher is LUKS2's default
//! (`aes-xts-plain64`, a 512-bit key: AES-256-XTS, as the fscrypt kind's contents), with 4 KiB
//! sectors; the key slot uses PBKDF2 at its minimum, since the key is random and thrown away.
//! At teardown the mapping is closed after the unmount and before the loop device is detached;
//! `fsbench clean` finds a dead run's mappings by the lab images under their loop devices.

use super::error::Error;
use super::undo::Undo;
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
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
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
fn mapping_name(target_dir: &Path) -> Result<String, Error> {
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
        return Err(Error::NameTooLong {
            name,
            max: MAX_NAME,
        });
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

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
