//! Counters shared with child processes: a few 64-bit words in an anonymous memory file
//! (`memfd_create`) mapped `MAP_SHARED`, so that workers started as separate processes (a
//! `walk:mode=procs` worker, fsbench re-executed) add to the same atomic counters as the parent
//! reads, and the scratch guard reads the process groups fsbench lists in them. Handed over as
//! an inherited descriptor (a child's standard input or output), which the child maps again: an
//! anonymous `MAP_SHARED` mapping would not survive `exec`. One atomic operation per update, as
//! in threads; no pipe, no system call.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU64;

/// `len` 64-bit atomic words shared by every process that maps the same memory file.
pub struct SharedWords {
    fd: OwnedFd,
    ptr: NonNull<AtomicU64>,
    len: usize,
}

impl std::fmt::Debug for SharedWords {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWords")
            .field("len", &self.len)
            .finish()
    }
}

// SAFETY: the mapping is only ever accessed through `&[AtomicU64]`, which is Send and Sync; the
// pointer stays valid until `drop` unmaps it, and the fd is owned.
#[allow(unsafe_code)]
unsafe impl Send for SharedWords {}
// SAFETY: as above: shared access is through atomics only.
#[allow(unsafe_code)]
unsafe impl Sync for SharedWords {}

impl SharedWords {
    /// `len` new words, all zero, in a new memory file (close-on-exec: hand it to a child
    /// explicitly, e.g. as its standard input).
    pub fn new(len: usize) -> std::io::Result<Self> {
        let fd = rustix::fs::memfd_create("fsbench-counters", rustix::fs::MemfdFlags::CLOEXEC)?;
        rustix::fs::ftruncate(&fd, bytes(len)? as u64)?;
        Self::map(fd, len)
    }

    /// Maps the first `len` words of the memory file `fd` made by [`SharedWords::new`] in
    /// another process. Fails when `fd` is not a file that long (nothing is mapped then).
    pub fn open(fd: OwnedFd, len: usize) -> std::io::Result<Self> {
        let st = rustix::fs::fstat(&fd)?;
        let is_file = rustix::fs::FileType::from_raw_mode(st.st_mode).is_file();
        if !is_file || (st.st_size as u64) < bytes(len)? as u64 {
            return Err(std::io::Error::from(std::io::ErrorKind::InvalidInput));
        }
        Self::map(fd, len)
    }

    fn map(fd: OwnedFd, len: usize) -> std::io::Result<Self> {
        use rustix::mm::{MapFlags, ProtFlags};
        let size = bytes(len)?;
        // SAFETY: a fresh mapping chosen by the kernel (null hint), `size` bytes of a file at
        // least that long; nothing else refers to the address range until it is unmapped.
        #[allow(unsafe_code)]
        let ptr = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                size,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }?;
        let ptr = NonNull::new(ptr.cast::<AtomicU64>())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
        Ok(Self { fd, ptr, len })
    }

    /// The words, for atomic reads and adds.
    pub fn words(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` maps `len` page-aligned (so 8-byte aligned) words, zero-initialised by
        // the kernel, valid until `drop`; AtomicU64 has the layout of u64 and every bit pattern
        // is a valid value; all access is atomic, so sharing with other processes is sound.
        #[allow(unsafe_code)]
        unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr(), self.len)
        }
    }

    /// The memory file, to hand to a child process.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        if let Ok(size) = bytes(self.len) {
            // SAFETY: unmaps exactly the range `map` mapped; no reference into it outlives
            // `self` (`words` borrows `self`).
            #[allow(unsafe_code)]
            let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), size) };
        }
    }
}

/// Bytes of `len` words (at least one, so the mapping is never empty).
fn bytes(len: usize) -> std::io::Result<usize> {
    len.max(1)
        .checked_mul(8)
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::InvalidInput))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn a_second_mapping_of_the_same_file_sees_the_same_words() {
        let a = SharedWords::new(2).unwrap();
        let b = SharedWords::open(a.fd().try_clone_to_owned().unwrap(), 2).unwrap();
        a.words()[0].fetch_add(7, Ordering::Relaxed);
        b.words()[1].fetch_add(3, Ordering::Relaxed);
        assert_eq!(b.words()[0].load(Ordering::Relaxed), 7);
        assert_eq!(a.words()[1].load(Ordering::Relaxed), 3);
        // Too short, or not a file at all: refused.
        assert!(SharedWords::open(a.fd().try_clone_to_owned().unwrap(), 4).is_err());
        let dir = std::fs::File::open("/").unwrap();
        assert!(SharedWords::open(dir.into(), 1).is_err());
    }
}
