//! A mapping of a file outside the root made as the program's loader made it, for a replay and
//! for the calls made again at record time (`rerun`): mapped read-only and private, one byte
//! touched per read-around window up to the file's end, kept until the caller is done. Both
//! make it the same way, so that what it costs a replay is what the recording takes out of the
//! program's own time. Written by hand because it is the measurement (one mapping, its touches).

use std::os::fd::BorrowedFd;

/// Bytes a cold page fault in a file mapping reads around the faulting page (the kernel's
/// default read-around window, 128 KiB): one touch per window of a mapping.
pub const READ_AROUND: u64 = 128 << 10;

/// Mappings made (address, length), unmapped when dropped: kept until the sample (or the
/// round) is over, as the program kept its own until it exited. An unmap in a process of many
/// threads makes every CPU that runs one of them flush its TLB, a cost the program, one thread
/// per process, never paid.
#[derive(Debug, Default)]
pub struct Mappings(Vec<(usize, usize)>);

impl Mappings {
    /// Takes `other`'s mappings into these.
    pub fn take(&mut self, other: &mut Mappings) {
        self.0.append(&mut other.0);
    }
}

impl Drop for Mappings {
    fn drop(&mut self) {
        for (at, len) in self.0.drain(..) {
            // SAFETY: a mapping made by `map` with mmap, of `len` bytes, read by no one any
            // more (its thread is done).
            #[allow(unsafe_code)]
            let _ = unsafe { rustix::mm::munmap(at as *mut std::ffi::c_void, len) };
        }
    }
}

/// Maps `len` bytes of `fd` at `offset` read-only and private, touches one byte per
/// [`READ_AROUND`] window up to the end of the file, and keeps the mapping in `maps`; the bytes
/// it spans below the file's end. Cold, each touch reads its window from storage as the
/// program's faults do; warm, each maps cached pages, as the program's do. The program touches
/// only the pages it runs: an approximation that reads at most the whole range cold (a read of
/// the whole range would copy every library's every byte, warm, 80 times for a build of 80
/// processes).
pub fn map(
    fd: BorrowedFd<'_>,
    offset: u64,
    len: u64,
    maps: &mut Mappings,
) -> Result<u64, rustix::io::Errno> {
    let size = rustix::fs::fstat(fd)?.st_size.max(0) as u64;
    // Past the file's end a mapping's pages fault with SIGBUS: touched only up to it.
    let end = size.min(offset.saturating_add(len));
    if len == 0 || end <= offset {
        return Ok(0);
    }
    // SAFETY: a new private read-only mapping of `len` bytes at a place the kernel chooses; it
    // aliases no Rust object, and is only read (below the file's end) and then unmapped.
    #[allow(unsafe_code)]
    let at = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            len as usize,
            rustix::mm::ProtFlags::READ,
            rustix::mm::MapFlags::PRIVATE,
            fd,
            offset,
        )
    }?
    .cast::<u8>();
    let mut sum = 0u8;
    let mut off = 0u64;
    while offset + off < end {
        // SAFETY: `off` is inside the mapping and below the file's end.
        #[allow(unsafe_code)]
        let byte = unsafe { std::ptr::read_volatile(at.add(off as usize)) };
        sum = sum.wrapping_add(byte);
        off += READ_AROUND;
    }
    std::hint::black_box(sum);
    maps.0.push((at as usize, len as usize));
    Ok(end - offset)
}
