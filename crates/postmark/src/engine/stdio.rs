//! The system calls postmark makes for its file I/O, replayed without libc's `FILE`: with
//! `buffering=true` postmark goes through glibc stdio (`fopen`/`fwrite`/`fread`/`fclose`), whose
//! buffer is `st_blksize` bytes (capped at BUFSIZ = 8192) allocated after an `fstat` at the first
//! transfer; requests at least one buffer long bypass the buffer in whole multiples of it. That
//! is what reaches the kernel (checked with `strace -f` on Debian's postmark: 4 KiB writes and
//! reads on ext4 and tmpfs, an `lseek` after opening for append), so this module reproduces
//! glibc's `_IO_file_xsputn` / `_IO_file_xsgetn` decisions exactly. With `buffering=false` it is
//! one plain `read`/`write` per block plus one for the remainder (even when that is 0 bytes).

use rustix::fd::{BorrowedFd, OwnedFd};
use rustix::fs::{Mode, OFlags, SeekFrom};
use std::ffi::CStr;
use std::io;

/// glibc's BUFSIZ: the largest stdio buffer `fopen` allocates for a regular file.
const BUFSIZ: usize = 8192;

/// How a file is opened, mirroring postmark's `fopen` modes and `open` flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenFor {
    /// New file: `fopen(name, "w")` or `open(O_RDWR|O_CREAT, 0644)`.
    Create,
    /// Append: `fopen(name, "a")` (then `lseek` to the end) or `open(O_RDWR|O_APPEND)`.
    Append,
    /// Read: `fopen(name, "r")` or `open(O_RDONLY)`.
    Read,
}

/// Opens `name` relative to `dir` the way postmark does in the given mode.
pub fn open(dir: BorrowedFd<'_>, name: &CStr, how: OpenFor, buffered: bool) -> io::Result<OwnedFd> {
    let cloexec = OFlags::CLOEXEC;
    let (flags, mode) = match (how, buffered) {
        (OpenFor::Create, true) => (OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC, 0o666),
        (OpenFor::Create, false) => (OFlags::RDWR | OFlags::CREATE, 0o644),
        (OpenFor::Append, true) => (OFlags::WRONLY | OFlags::CREATE | OFlags::APPEND, 0o666),
        (OpenFor::Append, false) => (OFlags::RDWR | OFlags::APPEND, 0o644),
        (OpenFor::Read, _) => (OFlags::RDONLY, 0o644),
    };
    let fd = rustix::fs::openat(dir, name, flags | cloexec, Mode::from_raw_mode(mode))?;
    if how == OpenFor::Append && buffered {
        rustix::fs::seek(&fd, SeekFrom::End(0))?;
    }
    Ok(fd)
}

/// Size glibc gives a `FILE` buffer: `st_blksize` when it is between 1 and BUFSIZ, else BUFSIZ.
fn buffer_size(fd: BorrowedFd<'_>) -> io::Result<usize> {
    let st = rustix::fs::fstat(fd)?;
    Ok(match usize::try_from(st.st_blksize) {
        Ok(b) if b > 0 && b < BUFSIZ => b,
        _ => BUFSIZ,
    })
}

fn write_all(fd: BorrowedFd<'_>, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        match rustix::io::write(fd, data) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => data = &data[n..],
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Writes `src` in `block`-sized pieces plus the remainder (postmark's `write_blocks` /
/// `fwrite_blocks`), then flushes as `fclose` would. `buf` is reused stdio buffer space.
pub fn write_blocks(
    fd: BorrowedFd<'_>,
    src: &[u8],
    block: usize,
    buffered: bool,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    let mut w = Writer::new(fd, buf);
    let mut chunks = src.chunks_exact(block);
    for chunk in chunks.by_ref() {
        w.put(chunk, buffered)?;
    }
    w.put(chunks.remainder(), buffered)?;
    w.flush()
}

/// Reads `size` bytes in `block`-sized pieces plus the remainder into `dst` (`block` bytes long),
/// as postmark's `read_file` does; short reads are ignored as postmark ignores them.
pub fn read_blocks(
    fd: BorrowedFd<'_>,
    size: usize,
    dst: &mut [u8],
    buffered: bool,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    let block = dst.len();
    let mut r = Reader::new(fd, buf);
    let mut left = size;
    while left >= block {
        r.get(dst, buffered)?;
        left -= block;
    }
    r.get(&mut dst[..left], buffered)
}

/// A write-side `FILE`: the buffer is allocated (after an `fstat`) at the first transfer.
struct Writer<'a> {
    fd: BorrowedFd<'a>,
    buf: &'a mut Vec<u8>,
    cap: usize,
}

impl<'a> Writer<'a> {
    fn new(fd: BorrowedFd<'a>, buf: &'a mut Vec<u8>) -> Self {
        buf.clear();
        Self { fd, buf, cap: 0 }
    }

    /// One `fwrite(data, len, 1, fp)` (`buffered`) or one `write(fd, data, len)`.
    fn put(&mut self, data: &[u8], buffered: bool) -> io::Result<()> {
        if !buffered {
            // A 0-byte write is still a system call in postmark's unbuffered path.
            return rustix::io::write(self.fd, data)
                .map(drop)
                .map_err(Into::into);
        }
        if data.is_empty() {
            return Ok(()); // fwrite of 0 bytes returns before touching the FILE
        }
        let space = self.cap - self.buf.len();
        let fits = space.min(data.len());
        self.buf.extend_from_slice(&data[..fits]);
        let rest = &data[fits..];
        if rest.is_empty() {
            return Ok(());
        }
        if self.cap == 0 {
            self.cap = buffer_size(self.fd)?; // _IO_doallocbuf
            self.buf.reserve(self.cap);
        } else {
            self.flush()?; // _IO_OVERFLOW of a full buffer
        }
        let direct = rest.len()
            - if self.cap >= 128 {
                rest.len() % self.cap
            } else {
                0
            };
        write_all(self.fd, &rest[..direct])?;
        self.buf.extend_from_slice(&rest[direct..]);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.buf.is_empty() {
            write_all(self.fd, self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }
}

/// A read-side `FILE`: `pos..end` of `buf` is data read ahead and not yet consumed.
struct Reader<'a> {
    fd: BorrowedFd<'a>,
    buf: &'a mut Vec<u8>,
    cap: usize,
    pos: usize,
    end: usize,
}

impl<'a> Reader<'a> {
    fn new(fd: BorrowedFd<'a>, buf: &'a mut Vec<u8>) -> Self {
        Self {
            fd,
            buf,
            cap: 0,
            pos: 0,
            end: 0,
        }
    }

    fn sys_read(fd: BorrowedFd<'_>, dst: &mut [u8]) -> io::Result<usize> {
        loop {
            match rustix::io::read(fd, &mut *dst) {
                Err(rustix::io::Errno::INTR) => {}
                other => return other.map_err(Into::into),
            }
        }
    }

    /// One `fread(dst, len, 1, fp)` (`buffered`) or one `read(fd, dst, len)`.
    fn get(&mut self, dst: &mut [u8], buffered: bool) -> io::Result<()> {
        if !buffered {
            return Self::sys_read(self.fd, dst).map(drop);
        }
        if dst.is_empty() {
            return Ok(());
        }
        if self.cap == 0 {
            self.cap = buffer_size(self.fd)?;
            self.buf.resize(self.cap, 0);
        }
        let mut done = 0;
        while done < dst.len() {
            let want = dst.len() - done;
            let have = self.end - self.pos;
            let n = have.min(want);
            dst[done..done + n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
            self.pos += n;
            done += n;
            let want = want - n;
            if want == 0 {
                break;
            }
            let got = if want < self.cap {
                // __underflow: refill the whole buffer.
                self.pos = 0;
                self.end = Self::sys_read(self.fd, &mut self.buf[..self.cap])?;
                self.end
            } else {
                let count = want - if self.cap >= 128 { want % self.cap } else { 0 };
                let got = Self::sys_read(self.fd, &mut dst[done..done + count])?;
                done += got;
                got
            };
            if got == 0 {
                break; // end of file
            }
        }
        Ok(())
    }
}
