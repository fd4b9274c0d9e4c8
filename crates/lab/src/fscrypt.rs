//! ext4 with fscrypt: an ext4 loop image made with `-O encrypt`, a generated 64-byte key added to
//! its filesystem with `FS_IOC_ADD_ENCRYPTION_KEY`, and the target directory `mnt/enc` given a v2
//! policy (AES-256-XTS contents, AES-256-CTS names, 32-byte name padding). At teardown the key is
//! removed with `FS_IOC_REMOVE_ENCRYPTION_KEY` before the unmount. Layouts follow
//! `include/uapi/linux/fscrypt.h`.

use super::teardown::Undo;
use super::{Building, loopfs, text};
use std::io::Read;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

/// `_IOC(dir, 'f', nr, size)` of asm-generic/ioctl.h (x86, arm, riscv; not mips/ppc/sparc).
const fn ioc(dir: u64, nr: u64, size: u64) -> u64 {
    (dir << 30) | (size << 16) | ((b'f' as u64) << 8) | nr
}
/// `_IOR('f', 19, struct fscrypt_policy_v1)`; the v2 policy is passed through the same number.
const SET_POLICY: u64 = ioc(2, 19, 12);
/// `_IOWR('f', 23, struct fscrypt_add_key_arg)`, 80 bytes, followed by the raw key.
const ADD_KEY: u64 = ioc(3, 23, 80);
/// `_IOWR('f', 24, struct fscrypt_remove_key_arg)`, 64 bytes.
const REMOVE_KEY: u64 = ioc(3, 24, 64);
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

/// Runs an fscrypt ioctl on `path` with `buf` as its argument.
fn ioctl(path: &Path, request: u64, buf: &mut [u8]) -> std::io::Result<()> {
    let encoded = ((request >> 16) & 0x3fff) as usize;
    if buf.len() < encoded {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    let f = std::fs::File::open(path)?;
    // SAFETY: `f` is open for the call's duration; `buf` is a live, exclusively borrowed buffer
    // of at least the size encoded in `request`. ADD_KEY also reads `raw_size` bytes after its
    // 80-byte header: its caller sizes `buf` as header + raw_size.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(f.as_raw_fd(), request as _, buf.as_mut_ptr()) };
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
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
