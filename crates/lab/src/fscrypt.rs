//! ext4 with fscrypt: an ext4 loop image made with `-O encrypt`, a generated 64-byte key added to
//! its filesystem with `FS_IOC_ADD_ENCRYPTION_KEY`, and the target directory `mnt/enc` given a v2
//! policy (AES-256-XTS contents, AES-256-CTS names, 32-byte name padding). At teardown the key is
//! removed with `FS_IOC_REMOVE_ENCRYPTION_KEY` before the unmount. Layouts follow
//! `include/uapi/linux/fscrypt.h`.

use super::teardown::Undo;
use super::{Building, loopfs, text};
use std::io::Read;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use fsbench_sys::fscrypt::{ADD_KEY, REMOVE_KEY, SET_POLICY};

/// `FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER` (v2 policies).
const SPEC_IDENTIFIER: u32 = 2;
/// Raw key length, bytes.
const KEY_BYTES: usize = 64;
/// `FSCRYPT_KEY_REMOVAL_STATUS_FLAG_FILES_BUSY`.
const FILES_BUSY: u32 = 1;
/// The policy set: what `fsbench env` will report.
const POLICY: &str = "v2 AES-256-XTS/AES-256-CTS PAD_32";

/// Builds the ext4 image with encryption, adds the key, and returns the encrypted directory.
pub fn build(b: &mut Building) -> Result<PathBuf, String> {
    let mut opts = loopfs::EXT4.to_vec();
    opts.extend(["-O", "encrypt"]);
    let mnt = loopfs::image_fs(b, "mkfs.ext4", &opts)?;
    let identifier = add_key(&mnt).map_err(|e| format!("cannot add an fscrypt key: {e}"))?;
    b.info.commands.push(format!(
        "ioctl FS_IOC_ADD_ENCRYPTION_KEY {} ({KEY_BYTES} random bytes)",
        text(&mnt)
    ));
    b.undo(Undo::RemoveKey {
        root: mnt.clone(),
        identifier,
    });
    let enc = mnt.join("enc");
    std::fs::create_dir(&enc).map_err(|e| format!("cannot create {}: {e}", enc.display()))?;
    set_policy(&enc, &identifier)
        .map_err(|e| format!("cannot set an fscrypt policy on {}: {e}", enc.display()))?;
    b.info.commands.push(format!(
        "ioctl FS_IOC_SET_ENCRYPTION_POLICY {POLICY} {}",
        text(&enc)
    ));
    b.info.options = format!("policy {POLICY}");
    Ok(enc)
}

/// Runs an fscrypt ioctl on `path` with `buf` as its argument; the kernel touches at most
/// `buf` (ADD_KEY reads `raw_size` bytes after its 80-byte header: its caller sizes `buf` as
/// header + raw_size).
fn ioctl(path: &Path, request: u64, buf: &mut [u8]) -> std::io::Result<()> {
    let f = std::fs::File::open(path)?;
    let touched = buf.len();
    fsbench_sys::fscrypt::ioctl(f.as_fd(), request, buf, touched)
}

/// Adds a random v2 key to the filesystem mounted at `root`; returns its identifier.
fn add_key(root: &Path) -> std::io::Result<[u8; 16]> {
    let mut arg = vec![0u8; 80 + KEY_BYTES];
    arg[..4].copy_from_slice(&SPEC_IDENTIFIER.to_ne_bytes());
    arg[40..44].copy_from_slice(&(KEY_BYTES as u32).to_ne_bytes());
    std::fs::File::open("/dev/urandom")?.read_exact(&mut arg[80..])?;
    let r = ioctl(root, ADD_KEY, &mut arg);
    arg[80..].fill(0);
    r?;
    let mut id = [0u8; 16];
    id.copy_from_slice(&arg[8..24]);
    Ok(id)
}

/// Sets the v2 policy of key `identifier` on the empty directory `dir`.
fn set_policy(dir: &Path, identifier: &[u8; 16]) -> std::io::Result<()> {
    let mut policy = [0u8; 24];
    policy[..4].copy_from_slice(&[2, 1, 4, 0x03]); // v2, AES-256-XTS, AES-256-CTS, PAD_32
    policy[8..24].copy_from_slice(identifier);
    ioctl(dir, SET_POLICY, &mut policy)
}

/// Removes key `identifier` from the filesystem mounted at `root`; a note when files still used
/// it (the kernel then removes it once they are closed).
pub fn remove_key(root: &Path, identifier: &[u8; 16]) -> Result<Option<String>, String> {
    let mut arg = [0u8; 64];
    arg[..4].copy_from_slice(&SPEC_IDENTIFIER.to_ne_bytes());
    arg[8..24].copy_from_slice(identifier);
    ioctl(root, REMOVE_KEY, &mut arg)
        .map_err(|e| format!("cannot remove the fscrypt key from {}: {e}", root.display()))?;
    let status = u32::from_ne_bytes([arg[40], arg[41], arg[42], arg[43]]);
    Ok((status & FILES_BUSY != 0).then(|| {
        "the fscrypt key was removed while files still used it; it goes with the unmount".into()
    }))
}
