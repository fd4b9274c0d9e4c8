//! ext4 with fscrypt: an ext4 loop image made with `-O encrypt`, a generated 64-byte key added to
//! its filesystem with `FS_IOC_ADD_ENCRYPTION_KEY`, and the target directory `mnt/enc` given a v2
//! policy (AES-256-XTS contents, AES-256-CTS names, 32-byte name padding). At teardown the key is
//! removed with `FS_IOC_REMOVE_ENCRYPTION_KEY` before the unmount ([`super::undo`]). Layouts follow
//! `include/uapi/linux/fscrypt.h`.

use super::error::Error;
use super::undo::{KEY_SPEC_IDENTIFIER, Undo};
use super::{Building, loopfs, text};
use std::io::Read;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use fsbench_sys::fscrypt::{ADD_KEY, SET_POLICY};

/// Raw key length, bytes.
const KEY_BYTES: usize = 64;
/// The policy set: what `fsbench env` will report.
const POLICY: &str = "v2 AES-256-XTS/AES-256-CTS PAD_32";

/// Builds the ext4 image with encryption, adds the key, and returns the encrypted directory.
pub fn build(b: &mut Building) -> Result<PathBuf, Error> {
    let mut opts = loopfs::EXT4.to_vec();
    opts.extend(["-O", "encrypt"]);
    let mnt = loopfs::image_fs(b, "mkfs.ext4", &opts)?;
    let identifier =
        add_key(&mnt).map_err(|e| Error::io("add an fscrypt key to", mnt.clone(), e))?;
    b.info.commands.push(format!(
        "ioctl FS_IOC_ADD_ENCRYPTION_KEY {} ({KEY_BYTES} random bytes)",
        text(&mnt)
    ));
    b.undo(Undo::RemoveKey {
        root: mnt.clone(),
        identifier,
    });
    let enc = mnt.join("enc");
    std::fs::create_dir(&enc).map_err(|e| Error::io("create", enc.clone(), e))?;
    set_policy(&enc, &identifier)
        .map_err(|e| Error::io("set an fscrypt policy on", enc.clone(), e))?;
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
    arg[..4].copy_from_slice(&KEY_SPEC_IDENTIFIER.to_ne_bytes());
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
