//! Loop devices that detach themselves: `LO_FLAGS_AUTOCLEAR` makes the kernel detach a loop
//! device when its last opener closes it. A device just attached (`losetup`) is opened here and
//! the flag set at once; the open descriptor holds the device attached while `mkfs` opens and
//! closes it, and the mounted filesystem holds it after that. When fsbench ends, however it ends,
//! the descriptor closes, and once the filesystem is unmounted (by the teardown, or by the kernel
//! when fsbench's mount namespace goes) the device detaches itself.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;

/// `struct loop_info64` of `<linux/loop.h>`.
#[repr(C)]
struct LoopInfo64 {
    lo_device: u64,
    lo_inode: u64,
    lo_rdevice: u64,
    lo_offset: u64,
    lo_sizelimit: u64,
    lo_number: u32,
    lo_encrypt_type: u32,
    lo_encrypt_key_size: u32,
    lo_flags: u32,
    lo_file_name: [u8; 64],
    lo_crypt_name: [u8; 64],
    lo_encrypt_key: [u8; 32],
    lo_init: [u64; 2],
}

const LOOP_SET_STATUS64: libc::c_ulong = 0x4C04;
const LOOP_GET_STATUS64: libc::c_ulong = 0x4C05;
const LO_FLAGS_AUTOCLEAR: u32 = 4;

/// Opens loop device `device` (`/dev/loop3`) and sets its autoclear flag; keep the returned
/// descriptor open for as long as the device must stay attached without a mount.
pub fn hold_autoclear(device: &str) -> io::Result<File> {
    let file = std::fs::OpenOptions::new().read(true).open(device)?;
    // SAFETY: all zeroes is a valid `loop_info64` (integers and byte arrays).
    #[allow(unsafe_code)]
    let mut info: LoopInfo64 = unsafe { std::mem::zeroed() };
    // SAFETY: LOOP_GET_STATUS64 writes one `loop_info64` into `info`, which outlives the call.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), LOOP_GET_STATUS64, &mut info) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    info.lo_flags |= LO_FLAGS_AUTOCLEAR;
    // SAFETY: LOOP_SET_STATUS64 reads one `loop_info64` from `info`, which outlives the call.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), LOOP_SET_STATUS64, &info) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// Whether loop device `name` (`loop3`) has autoclear set (`/sys/block/NAME/loop/autoclear`).
pub fn autoclear(name: &str) -> Option<bool> {
    let v = std::fs::read_to_string(format!("/sys/block/{name}/loop/autoclear")).ok()?;
    Some(v.trim() == "1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernels_struct_has_its_size() {
        assert_eq!(std::mem::size_of::<LoopInfo64>(), 232);
    }

    #[test]
    fn a_device_that_is_not_a_loop_device_is_refused() {
        assert!(hold_autoclear("/dev/null").is_err());
        assert_eq!(autoclear("loop-none"), None);
    }
}
