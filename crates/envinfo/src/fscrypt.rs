//! fscrypt (ext4, f2fs, ubifs, ceph per-directory encryption): asks the kernel for the policy of
//! the target directory with `FS_IOC_GET_ENCRYPTION_POLICY_EX` (v1 `FS_IOC_GET_ENCRYPTION_POLICY`
//! on kernels before 5.4) and whether its key is present. Layouts follow
//! `include/uapi/linux/fscrypt.h`.

use fsbench_model::FscryptPolicy;
use std::os::fd::BorrowedFd;
use std::path::Path;

/// What the kernel says about encryption of one directory.
#[derive(Debug, Clone, PartialEq)]
pub enum Probe {
    /// The directory has this policy.
    Encrypted(FscryptPolicy),
    /// The filesystem supports fscrypt but this directory has no policy (ENODATA).
    NotEncrypted,
    /// The filesystem has no fscrypt, or it is not enabled (ENOTTY, EOPNOTSUPP).
    Unsupported,
    /// The question could not be asked or answered (the reason).
    Unknown(String),
}

impl Probe {
    /// The `stack.fscrypt_status` text.
    pub fn status(&self) -> String {
        match self {
            Self::Encrypted(_) => "encrypted".into(),
            Self::NotEncrypted => "not encrypted".into(),
            Self::Unsupported => "unsupported".into(),
            Self::Unknown(why) => format!("unknown: {why}"),
        }
    }
}

use fsbench_sys::fscrypt::{GET_KEY_STATUS, GET_POLICY_EX, GET_POLICY_V1};

/// Size of the policy union (`struct fscrypt_policy_v2`).
const POLICY_MAX: usize = 24;

/// Runs an fscrypt ioctl whose argument is `buf` (at least 8 + POLICY_MAX bytes, the most
/// any request of this module touches: GET_POLICY_EX writes 8 + policy_size).
fn ioctl_buf(fd: BorrowedFd<'_>, request: u64, buf: &mut [u8]) -> std::io::Result<()> {
    fsbench_sys::fscrypt::ioctl(fd, request, buf, 8 + POLICY_MAX)
}

/// The fscrypt policy of directory `dir`.
pub fn probe(dir: &Path) -> Probe {
    let file = match std::fs::File::open(dir) {
        Ok(f) => f,
        Err(e) => return Probe::Unknown(format!("cannot open {}: {e}", dir.display())),
    };
    use std::os::fd::AsFd;
    let fd = file.as_fd();
    let mut buf = [0u8; 8 + POLICY_MAX];
    buf[..8].copy_from_slice(&(POLICY_MAX as u64).to_ne_bytes());
    match ioctl_buf(fd, GET_POLICY_EX, &mut buf).map_err(|e| e.raw_os_error()) {
        Ok(()) => encrypted(fd, parse_policy(&buf[8..])),
        Err(Some(libc::ENOTTY)) => probe_v1(fd),
        Err(errno) => from_errno(errno),
    }
}

fn probe_v1(fd: BorrowedFd<'_>) -> Probe {
    let mut buf = [0u8; 8 + POLICY_MAX];
    match ioctl_buf(fd, GET_POLICY_V1, &mut buf).map_err(|e| e.raw_os_error()) {
        Ok(()) => encrypted(fd, parse_policy(&buf[..12])),
        Err(Some(libc::ENOENT)) => Probe::NotEncrypted,
        Err(Some(libc::EINVAL)) => {
            Probe::Unknown("policy is not v1 and the kernel is too old".into())
        }
        Err(errno) => from_errno(errno),
    }
}

fn from_errno(errno: Option<i32>) -> Probe {
    match errno {
        Some(libc::ENODATA) => Probe::NotEncrypted,
        Some(libc::ENOTTY | libc::EOPNOTSUPP | libc::ENOSYS) => Probe::Unsupported,
        Some(e) => Probe::Unknown(std::io::Error::from_raw_os_error(e).to_string()),
        None => Probe::Unknown("ioctl failed".into()),
    }
}

fn encrypted(fd: BorrowedFd<'_>, policy: Option<FscryptPolicy>) -> Probe {
    match policy {
        Some(mut p) => {
            p.key_present = key_present(fd, &p);
            Probe::Encrypted(p)
        }
        None => Probe::Unknown("unrecognised policy version".into()),
    }
}

/// Decodes `struct fscrypt_policy_v1` (12 bytes, version 0) or `fscrypt_policy_v2` (24 bytes).
pub fn parse_policy(b: &[u8]) -> Option<FscryptPolicy> {
    let (version, key) = match *b.first()? {
        0 => (1, b.get(4..12)?),
        2 => (2, b.get(8..24)?),
        _ => return None,
    };
    Some(FscryptPolicy {
        version,
        contents_mode: mode_name(*b.get(1)?),
        filenames_mode: mode_name(*b.get(2)?),
        flags: flag_names(*b.get(3)?),
        key: key.iter().map(|x| format!("{x:02x}")).collect(),
        key_present: None,
    })
}

/// Name of an `FSCRYPT_MODE_*` number.
pub fn mode_name(mode: u8) -> String {
    match mode {
        1 => "AES-256-XTS".into(),
        4 => "AES-256-CTS".into(),
        5 => "AES-128-CBC-ESSIV".into(),
        6 => "AES-128-CTS".into(),
        9 => "Adiantum".into(),
        10 => "AES-256-HCTR2".into(),
        n => format!("unknown mode {n}"),
    }
}

/// Names of `FSCRYPT_POLICY_FLAG*` bits (the padding is always named).
pub fn flag_names(flags: u8) -> Vec<String> {
    let mut out = vec![format!("PAD_{}", 4u32 << (flags & 0x03))];
    for (bit, name) in [
        (0x04, "DIRECT_KEY"),
        (0x08, "IV_INO_LBLK_64"),
        (0x10, "IV_INO_LBLK_32"),
    ] {
        if flags & bit != 0 {
            out.push(name.into());
        }
    }
    if flags & !0x1f != 0 {
        out.push(format!("unknown flags {:#x}", flags & !0x1f));
    }
    out
}

/// Whether a v2 policy's key is in the filesystem keyring; `None` for v1 (keys in process
/// keyrings are not visible) or when the kernel cannot say.
fn key_present(fd: BorrowedFd<'_>, p: &FscryptPolicy) -> Option<bool> {
    if p.version != 2 {
        return None;
    }
    let mut arg = [0u8; 128];
    arg[..4].copy_from_slice(&2u32.to_ne_bytes()); // FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER
    for (i, byte) in arg[8..24].iter_mut().enumerate() {
        *byte = u8::from_str_radix(p.key.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    ioctl_buf(fd, GET_KEY_STATUS, &mut arg).ok()?;
    let status = u32::from_ne_bytes(arg[64..68].try_into().ok()?);
    match status {
        2 => Some(true),      // PRESENT
        1 | 3 => Some(false), // ABSENT, INCOMPLETELY_REMOVED
        _ => None,
    }
}

/// Short text for tables: `fscrypt v2 AES-256-XTS/AES-256-CTS`.
pub fn summary(p: &FscryptPolicy) -> String {
    format!(
        "fscrypt v{} {}/{}",
        p.version, p.contents_mode, p.filenames_mode
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_policy_is_decoded() {
        let mut b = [0u8; 24];
        b[..4].copy_from_slice(&[2, 1, 4, 0x02 | 0x08]);
        b[8..24].copy_from_slice(&[0xab; 16]);
        let p = parse_policy(&b).unwrap();
        assert_eq!(p.version, 2);
        assert_eq!(p.contents_mode, "AES-256-XTS");
        assert_eq!(p.filenames_mode, "AES-256-CTS");
        assert_eq!(p.flags, ["PAD_16", "IV_INO_LBLK_64"]);
        assert_eq!(p.key, "ab".repeat(16));
        assert_eq!(summary(&p), "fscrypt v2 AES-256-XTS/AES-256-CTS");
    }

    #[test]
    fn v1_policy_is_decoded_with_its_descriptor() {
        let b = [0, 5, 6, 0x04, 1, 2, 3, 4, 5, 6, 7, 8];
        let p = parse_policy(&b).unwrap();
        assert_eq!(p.version, 1);
        assert_eq!(
            (p.contents_mode.as_str(), p.filenames_mode.as_str()),
            ("AES-128-CBC-ESSIV", "AES-128-CTS")
        );
        assert_eq!(p.flags, ["PAD_4", "DIRECT_KEY"]);
        assert_eq!(p.key, "0102030405060708");
    }

    #[test]
    fn odd_policies_are_named_not_guessed() {
        assert_eq!(parse_policy(&[1, 1, 4, 0]), None);
        assert_eq!(parse_policy(&[2, 1, 4, 0]), None, "too short");
        assert_eq!(mode_name(9), "Adiantum");
        assert_eq!(mode_name(10), "AES-256-HCTR2");
        assert_eq!(mode_name(7), "unknown mode 7");
        assert_eq!(flag_names(0x13), ["PAD_32", "IV_INO_LBLK_32"]);
        assert_eq!(flag_names(0x40), ["PAD_4", "unknown flags 0x40"]);
    }

    #[test]
    fn a_filesystem_without_fscrypt_or_a_missing_dir_is_not_called_encrypted() {
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            assert!(matches!(
                probe(shm),
                Probe::Unsupported | Probe::NotEncrypted
            ));
        }
        assert!(matches!(
            probe(Path::new("/nonexistent/x")),
            Probe::Unknown(_)
        ));
    }
}
