//! The fscrypt ioctls (`linux/fscrypt.h`), written once: the request numbers and the one call
//! that passes a buffer to them. Reading a policy (`fsbench env`) and setting one up (the
//! `ext4-fscrypt` lab) build their arguments on top of this.

use std::os::fd::{AsRawFd, BorrowedFd};

/// `_IOC(dir, 'f', nr, size)` of asm-generic/ioctl.h (x86, arm, riscv; not mips/ppc/sparc).
const fn ioc(dir: u64, nr: u64, size: u64) -> u64 {
    (dir << 30) | (size << 16) | ((b'f' as u64) << 8) | nr
}
const IOC_WRITE: u64 = 1;
const IOC_READ: u64 = 2;
const IOC_RW: u64 = 3;

/// `_IOR('f', 19, struct fscrypt_policy_v1)`; a v2 policy is passed through the same number.
pub const SET_POLICY: u64 = ioc(IOC_READ, 19, 12);
/// `_IOW('f', 21, struct fscrypt_policy_v1)`.
pub const GET_POLICY_V1: u64 = ioc(IOC_WRITE, 21, 12);
/// `_IOWR('f', 22, __u8[9])`; the kernel writes `8 + policy_size` bytes.
pub const GET_POLICY_EX: u64 = ioc(IOC_RW, 22, 9);
/// `_IOWR('f', 23, struct fscrypt_add_key_arg)`, 80 bytes, followed by the raw key.
pub const ADD_KEY: u64 = ioc(IOC_RW, 23, 80);
/// `_IOWR('f', 24, struct fscrypt_remove_key_arg)`, 64 bytes.
pub const REMOVE_KEY: u64 = ioc(IOC_RW, 24, 64);
/// `_IOWR('f', 26, struct fscrypt_get_key_status_arg)`.
pub const GET_KEY_STATUS: u64 = ioc(IOC_RW, 26, 128);

/// Runs fscrypt ioctl `request` on `fd` with `buf` as its argument. `touched` is the most bytes
/// the kernel may read or write through the argument for this call (at least the size encoded
/// in `request`; more for GET_POLICY_EX's policy and ADD_KEY's raw key); a shorter `buf` is
/// refused with EINVAL before the call.
pub fn ioctl(
    fd: BorrowedFd<'_>,
    request: u64,
    buf: &mut [u8],
    touched: usize,
) -> std::io::Result<()> {
    let encoded = ((request >> 16) & 0x3fff) as usize;
    if buf.len() < encoded.max(touched) {
        return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
    }
    // SAFETY: `fd` is a valid open descriptor for the call's duration, and `buf` is a live,
    // exclusively borrowed buffer at least as long as the size encoded in `request` and as
    // `touched`, the most the kernel reads or writes through it for this request.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), request as _, buf.as_mut_ptr()) };
    if rc < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_numbers_match_the_uapi_header() {
        // Values from <linux/fscrypt.h> on x86_64.
        assert_eq!(SET_POLICY, 0x800c_6613);
        assert_eq!(GET_POLICY_V1, 0x400c_6615);
        assert_eq!(GET_POLICY_EX, 0xc009_6616);
        assert_eq!(ADD_KEY, 0xc050_6617);
        assert_eq!(REMOVE_KEY, 0xc040_6618);
        assert_eq!(GET_KEY_STATUS, 0xc080_661a);
    }

    #[test]
    fn a_short_buffer_is_refused_before_the_call() {
        let f = std::fs::File::open("/").unwrap();
        use std::os::fd::AsFd;
        let mut buf = [0u8; 4];
        let e = ioctl(f.as_fd(), GET_POLICY_EX, &mut buf, 32).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    }
}
