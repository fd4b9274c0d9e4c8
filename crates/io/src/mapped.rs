//! `engine=mmap`: the file is mapped (`MAP_SHARED`) and each request is a copy to or from the
//! mapping, as fio's `ioengine=mmap` does; the I/O then happens in page faults (counted per
//! sample) and, for writes, in the kernel's writeback and the final `msync`.
//!
//! This module is the one place in the workloads that needs `unsafe`: a mapping is raw memory
//! whose validity the type system cannot see. Safety rests on three facts kept here: the
//! mapping covers exactly `len` bytes and every copy is bounds-checked against it; it is only
//! unmapped in `Drop`; and the file is fsbench's own, sized before mapping and never truncated
//! while mapped (a truncation would turn accesses past the end into SIGBUS).
#![allow(unsafe_code)]

use crate::WorkloadError;
use rustix::mm::{MapFlags, MsyncFlags, ProtFlags};
use std::ffi::c_void;
use std::path::Path;

/// A shared mapping of a whole file.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; moving it to another thread
// (a parallel job) moves the only handle to it.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `f` (open read-write when `write`).
    pub fn new(
        f: &std::fs::File,
        len: u64,
        write: bool,
        path: &Path,
    ) -> Result<Self, WorkloadError> {
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l > 0)
            .ok_or_else(|| {
                WorkloadError::Invalid(format!("cannot map {len} bytes of {}", path.display()))
            })?;
        let prot = if write {
            ProtFlags::READ | ProtFlags::WRITE
        } else {
            ProtFlags::READ
        };
        // SAFETY: a new mapping at an address the kernel picks (null hint), of a file we hold
        // open; nothing else refers to that memory yet.
        let ptr =
            unsafe { rustix::mm::mmap(std::ptr::null_mut(), len, prot, MapFlags::SHARED, f, 0) }
                .map_err(|e| WorkloadError::io("mmap", path, e.into()))?;
        Ok(Self {
            ptr: ptr.cast(),
            len,
        })
    }

    /// Copies `buf.len()` bytes at `off` out of the mapping (faulting pages in); the bytes
    /// copied (fewer at the end of the mapping).
    #[inline]
    pub fn read(&self, off: u64, buf: &mut [u8]) -> usize {
        let n = self.span(off, buf.len());
        // SAFETY: `span` keeps `off..off + n` inside the mapping, which lives as long as `self`;
        // `buf` is a distinct, writable buffer of at least `n` bytes.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.add(off as usize), buf.as_mut_ptr(), n) };
        n
    }

    /// Copies `data` into the mapping at `off`; the bytes copied.
    #[inline]
    pub fn write(&mut self, off: u64, data: &[u8]) -> usize {
        let n = self.span(off, data.len());
        // SAFETY: as in `read`; the mapping is writable (mapped with `write`), and `&mut self`
        // makes this the only access through it.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), self.ptr.add(off as usize), n) };
        n
    }

    /// Writes the mapping's dirty pages back and waits (`msync(MS_SYNC)`).
    pub fn sync(&self, path: &Path) -> Result<(), WorkloadError> {
        // SAFETY: the range is exactly the live mapping.
        unsafe { rustix::mm::msync(self.ptr.cast::<c_void>(), self.len, MsyncFlags::SYNC) }
            .map_err(|e| WorkloadError::io("msync", path, e.into()))
    }

    /// How many of `want` bytes at `off` lie inside the mapping.
    #[inline]
    fn span(&self, off: u64, want: usize) -> usize {
        let off = usize::try_from(off).unwrap_or(usize::MAX).min(self.len);
        want.min(self.len - off)
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly the mapping made in `new`, once; no reference into it
        // outlives `self`.
        let _ = unsafe { rustix::mm::munmap(self.ptr.cast::<c_void>(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_go_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m");
        std::fs::write(&path, vec![1u8; 8192]).unwrap();
        let f = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let mut m = Mapping::new(&f, 8192, true, &path).unwrap();
        assert_eq!(m.write(4096, &[9u8; 4096]), 4096);
        let mut b = [0u8; 4096];
        assert_eq!(m.read(8000, &mut b), 192, "clipped at the end");
        m.sync(&path).unwrap();
        drop(m);
        let data = std::fs::read(&path).unwrap();
        assert_eq!((data[4095], data[4096], data[8191]), (1, 9, 9));
    }
}
