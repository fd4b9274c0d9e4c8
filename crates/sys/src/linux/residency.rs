//! Which pages of a file sit in the page cache (`mmap` + `mincore`, in 1 GiB windows). Used to
//! tell a cold sample that stayed warm, and direct I/O that silently went through the cache.

use std::fs::File;

/// (resident pages, total pages) of `len` bytes of `file` from `off`; `None` when the file
/// cannot be mapped (some FUSE and special files) or `len` is 0.
pub fn pages(file: &File, off: u64, len: u64) -> Option<(u64, u64)> {
    if len == 0 {
        return None;
    }
    let page = rustix::param::page_size() as u64;
    let start = off / page * page;
    let end = off + len;
    const WINDOW: u64 = 1 << 30;
    let (mut resident, mut total) = (0u64, 0u64);
    let mut at = start;
    while at < end {
        let n = (end - at).min(WINDOW);
        let count = n.div_ceil(page);
        let mut vec = vec![0u8; count as usize];
        mincore_window(file, at, n as usize, &mut vec)?;
        resident += vec.iter().filter(|&&b| b & 1 == 1).count() as u64;
        total += count;
        at += n;
    }
    Some((resident, total))
}

/// (resident, total) pages of a whole regular, non-empty file.
pub fn whole_file(file: &File) -> Option<(u64, u64)> {
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    pages(file, 0, meta.len())
}

/// Maps `len` bytes of `file` at `off` without touching them and asks the kernel which pages
/// are resident. rustix has no mincore; libc is the exact binding.
fn mincore_window(file: &File, off: u64, len: usize, vec: &mut [u8]) -> Option<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: a fresh read-only shared mapping of a file we hold open; it is never dereferenced,
    // only passed to mincore (which writes one byte per page into `vec`, sized to len/page
    // rounded up) and unmapped before returning.
    #[allow(unsafe_code)]
    unsafe {
        let addr = libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            off as libc::off_t,
        );
        if addr == libc::MAP_FAILED {
            return None;
        }
        let rc = libc::mincore(addr, len, vec.as_mut_ptr());
        libc::munmap(addr, len);
        (rc == 0).then_some(())
    }
}
