//! The calls themselves, one system call per recorded call (rustix, and libc where rustix has
//! none), relative to the replay root's descriptor: written by hand because they are what a
//! replay measures. Each gives back its result as a trace keeps it (a size, 0, or −errno) and
//! the bytes it moved.

use super::Shared;
use super::exec::{borrowed, close};
use fsbench_trace::model::{Call, Op, Target};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::ffi::OsStr;
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::Ordering;

/// A call on a file whose open failed here: EBADF, as the program would have seen.
const EBADF: (i64, u64) = (-(libc::EBADF as i64), 0);

/// "Now" for both times of a utimensat.
const NOW: rustix::fs::Timestamps = rustix::fs::Timestamps {
    last_access: rustix::fs::Timespec {
        tv_sec: 0,
        tv_nsec: rustix::fs::UTIME_NOW,
    },
    last_modification: rustix::fs::Timespec {
        tv_sec: 0,
        tv_nsec: rustix::fs::UTIME_NOW,
    },
};

/// A call that succeeds with no value: its result is 0.
fn nothing(_: &()) -> i64 {
    0
}

/// The replay's descriptor of the file opened by call `f` (-1: not open).
fn fd_of(shared: &Shared, f: u32) -> i32 {
    shared.fds[f as usize].load(Ordering::Acquire)
}

/// Per-thread buffers: reads land in one, writes come from the other (`data=` content); and the
/// mappings the thread made.
#[derive(Default)]
pub(super) struct Buffers {
    read: Vec<u8>,
    write: Vec<u8>,
    /// Mappings made outside the root, kept until the sample is over.
    pub maps: Mappings,
}

/// Mappings a replay made, unmapped when dropped (after the sample).
pub(crate) use fsbench_trace::touch::Mappings;

/// Largest single read or write replayed; larger ones are made in pieces of this size.
const MAX_IO: usize = 16 << 20;

impl Buffers {
    fn read(&mut self, n: u64) -> &mut [u8] {
        let n = (n as usize).min(MAX_IO);
        if self.read.len() < n {
            self.read.resize(n, 0);
        }
        &mut self.read[..n]
    }

    fn write(&mut self, n: u64, shared: &Shared) -> &[u8] {
        let n = (n as usize).min(MAX_IO);
        if self.write.len() < n {
            self.write.resize(n, 0);
            shared.data.fill(&mut self.write, shared.seed);
        }
        &self.write[..n]
    }
}

/// A path of the trace, relative to the replay root (`.` for the root itself); a path outside
/// the root is absolute (the `*at` calls then ignore the root's descriptor).
fn rel(shared: &Shared, p: u32) -> &OsStr {
    let p = &shared.trace.paths[p as usize];
    if p.is_empty() {
        OsStr::new(".")
    } else {
        OsStr::from_bytes(p)
    }
}

/// The last libc call's errno, negated.
fn last_errno() -> i64 {
    -i64::from(
        std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO),
    )
}

fn errno(e: rustix::io::Errno) -> i64 {
    -i64::from(e.raw_os_error())
}

/// `Ok(n)` as a result and `n` bytes, `Ok(())` as 0; an error as −errno.
fn done<T>(r: rustix::io::Result<T>, value: impl FnOnce(&T) -> i64) -> (i64, u64) {
    match r {
        Ok(v) => {
            let n = value(&v);
            (n, n.max(0) as u64)
        }
        Err(e) => (errno(e), 0),
    }
}

/// Makes `call` (index `ci`): its result as the recorded one is kept (a size, 0, or −errno)
/// and the bytes it moved.
///
/// Outside the root only a call that reads is ever made (the plan holds no other; checked
/// again here): an open there is read-only, non-blocking and, as root, leaves access times.
pub(super) fn make(shared: &Shared, ci: u32, call: &Call, bufs: &mut Buffers) -> (i64, u64) {
    if call.outside && !fsbench_trace::outside::only_reads(&shared.trace, call) {
        return (-i64::from(libc::EPERM), 0);
    }
    match &call.op {
        Op::Open { .. } | Op::Close { .. } => open_close(shared, ci, &call.op, call.outside),
        Op::Mmap { file, offset, len } if call.outside => {
            map(fd_of(shared, *file), *offset, *len, &mut bufs.maps)
        }
        Op::Read { .. } | Op::Mmap { .. } | Op::Write { .. } => data(shared, &call.op, bufs),
        Op::Seek { .. }
        | Op::Sync { .. }
        | Op::SyncRange { .. }
        | Op::Fallocate { .. }
        | Op::Getdents { .. } => on_file(shared, &call.op, bufs),
        Op::Stat { .. }
        | Op::Chmod { .. }
        | Op::Chown { .. }
        | Op::Utimens { .. }
        | Op::Truncate { .. }
        | Op::Chdir { .. } => attrs(shared, &call.op),
        op => by_name(shared, ci, op),
    }
}

/// Flags an open outside the root is made with: the recorded ones with every bit that could
/// write, create, truncate or wait on a FIFO taken out (the plan only holds read-only opens
/// there; this makes sure), non-blocking, and (as root, who may) without touching access times.
fn read_only(flags: u32) -> OFlags {
    let writes = OFlags::ACCMODE
        | OFlags::CREATE
        | OFlags::TRUNC
        | OFlags::APPEND
        | OFlags::TMPFILE
        | OFlags::EXCL;
    let mut f = (OFlags::from_bits_retain(flags) - writes)
        | OFlags::RDONLY
        | OFlags::NONBLOCK
        | OFlags::NOCTTY;
    if rustix::process::geteuid().is_root() {
        f |= OFlags::NOATIME;
    }
    f
}

/// An open (its descriptor kept by its call index) or a close of the last descriptor;
/// `outside` the root, an open is made [`read_only`].
fn open_close(shared: &Shared, ci: u32, op: &Op, outside: bool) -> (i64, u64) {
    let root = shared.root_fd.as_fd();
    match op {
        Op::Open { path, flags, mode } => {
            let flags = if outside {
                read_only(*flags)
            } else {
                OFlags::from_bits_retain(*flags)
            };
            let r = rustix::fs::openat(
                root,
                rel(shared, *path),
                flags | OFlags::CLOEXEC,
                Mode::from_bits_retain(*mode),
            );
            match r {
                Ok(fd) => {
                    let old = shared.fds[ci as usize]
                        .swap(std::os::fd::IntoRawFd::into_raw_fd(fd), Ordering::AcqRel);
                    if old >= 0 {
                        close(old);
                    }
                    (0, 0)
                }
                Err(e) => (errno(e), 0),
            }
        }
        Op::Close { file: f, last } => {
            if *last {
                let fd = shared.fds[*f as usize].swap(-1, Ordering::AcqRel);
                if fd < 0 {
                    return EBADF;
                }
                close(fd);
            }
            (0, 0)
        }
        _ => EBADF,
    }
}

/// A read, a write, or a mapping read whole.
fn data(shared: &Shared, op: &Op, bufs: &mut Buffers) -> (i64, u64) {
    let file = |f: u32| fd_of(shared, f);
    match op {
        Op::Read {
            file: f,
            offset,
            size,
        } if file(*f) >= 0 => {
            let fd = borrowed(file(*f));
            let buf = bufs.read(*size);
            let r = match offset {
                Some(o) => rustix::io::pread(fd, buf, *o),
                None => rustix::io::read(fd, buf),
            };
            done(r, |n| *n as i64)
        }
        Op::Mmap {
            file: f,
            offset,
            len,
        } if file(*f) >= 0 => {
            // The mapped range, read (in pieces of at most MAX_IO).
            let fd = borrowed(file(*f));
            let (mut at, end, mut moved) = (*offset, offset + len, 0u64);
            while at < end {
                let buf = bufs.read(end - at);
                match rustix::io::pread(fd, buf, at) {
                    Ok(0) => break,
                    Ok(n) => {
                        at += n as u64;
                        moved += n as u64;
                    }
                    Err(e) => return (errno(e), moved),
                }
            }
            (0, moved)
        }
        Op::Write {
            file: f,
            offset,
            size,
        } if file(*f) >= 0 => {
            let fd = borrowed(file(*f));
            let buf = bufs.write(*size, shared);
            let r = match offset {
                Some(o) => rustix::io::pwrite(fd, buf, *o),
                None => rustix::io::write(fd, buf),
            };
            done(r, |n| *n as i64)
        }
        _ => EBADF,
    }
}

/// A mapping outside the root (a library the loader maps, its data), made as
/// [`fsbench_trace::touch::map`] makes it and kept in `maps` (unmapped after the sample).
fn map(fd: i32, offset: u64, len: u64, maps: &mut Mappings) -> (i64, u64) {
    if fd < 0 {
        return EBADF;
    }
    match fsbench_trace::touch::map(borrowed(fd), offset, len, maps) {
        Ok(bytes) => (0, bytes),
        Err(e) => (errno(e), 0),
    }
}

/// The other calls on an open file.
fn on_file(shared: &Shared, op: &Op, bufs: &mut Buffers) -> (i64, u64) {
    let file = |f: u32| fd_of(shared, f);
    match op {
        Op::Seek {
            file: f,
            offset,
            whence,
        } if file(*f) >= 0 => {
            let fd = borrowed(file(*f));
            let to = match i32::from(*whence) {
                libc::SEEK_SET => rustix::fs::SeekFrom::Start(*offset as u64),
                libc::SEEK_END => rustix::fs::SeekFrom::End(*offset),
                _ => rustix::fs::SeekFrom::Current(*offset),
            };
            // The new position is not compared (it is not a size): success or failure is.
            done(rustix::fs::seek(fd, to), |_| 0)
        }
        Op::Sync { file: f, data_only } if file(*f) >= 0 => {
            let fd = borrowed(file(*f));
            let r = if *data_only {
                rustix::fs::fdatasync(fd)
            } else {
                rustix::fs::fsync(fd)
            };
            done(r, nothing)
        }
        Op::SyncRange {
            file: f,
            offset,
            len,
        } if file(*f) >= 0 => {
            // SAFETY: a plain system call on a descriptor of the replay.
            #[allow(unsafe_code)]
            let r = unsafe {
                libc::sync_file_range(
                    file(*f),
                    *offset as i64,
                    *len as i64,
                    libc::SYNC_FILE_RANGE_WRITE,
                )
            };
            if r == 0 { (0, 0) } else { (last_errno(), 0) }
        }
        Op::Fallocate {
            file: f,
            mode,
            offset,
            len,
        } if file(*f) >= 0 => {
            let r = rustix::fs::fallocate(
                borrowed(file(*f)),
                rustix::fs::FallocateFlags::from_bits_retain(*mode),
                *offset,
                *len,
            );
            done(r, nothing)
        }
        Op::Getdents { file: f, size } if file(*f) >= 0 => {
            let buf = bufs.read(*size);
            // SAFETY: getdents64 writes at most `buf.len()` bytes into `buf`.
            #[allow(unsafe_code)]
            let r = unsafe {
                libc::syscall(libc::SYS_getdents64, file(*f), buf.as_mut_ptr(), buf.len())
            };
            if r >= 0 { (r, 0) } else { (last_errno(), 0) }
        }
        _ => EBADF,
    }
}

/// Calls on a name: access, links, making, removing and renaming.
fn by_name(shared: &Shared, ci: u32, op: &Op) -> (i64, u64) {
    let root = shared.root_fd.as_fd();
    match op {
        Op::Access { path, mode } => done(
            rustix::fs::accessat(
                root,
                rel(shared, *path),
                rustix::fs::Access::from_bits_retain(*mode),
                AtFlags::empty(),
            ),
            nothing,
        ),
        Op::Readlink { path } => done(
            rustix::fs::readlinkat(root, rel(shared, *path), Vec::with_capacity(256)),
            |t| t.as_bytes().len() as i64,
        ),
        Op::Mkdir { path, mode } => done(
            rustix::fs::mkdirat(root, rel(shared, *path), Mode::from_bits_retain(*mode)),
            nothing,
        ),
        Op::Rmdir { path } => done(
            rustix::fs::unlinkat(root, rel(shared, *path), AtFlags::REMOVEDIR),
            nothing,
        ),
        Op::Unlink { path } => done(
            rustix::fs::unlinkat(root, rel(shared, *path), AtFlags::empty()),
            nothing,
        ),
        Op::Rename { from, to, flags } => done(
            rustix::fs::renameat_with(
                root,
                rel(shared, *from),
                root,
                rel(shared, *to),
                rustix::fs::RenameFlags::from_bits_retain(*flags),
            ),
            nothing,
        ),
        Op::Link { from, to } => done(
            rustix::fs::linkat(
                root,
                rel(shared, *from),
                root,
                rel(shared, *to),
                AtFlags::empty(),
            ),
            nothing,
        ),
        Op::Symlink { path, .. } => {
            let Some(target) = shared.links.get(&ci) else {
                return EBADF;
            };
            done(
                rustix::fs::symlinkat(target.as_os_str(), root, rel(shared, *path)),
                nothing,
            )
        }
        _ => EBADF,
    }
}

/// A file's attributes, by name or by an open file; a chdir.
fn attrs(shared: &Shared, op: &Op) -> (i64, u64) {
    let (root, file) = (shared.root_fd.as_fd(), |f: u32| fd_of(shared, f));
    match op {
        Op::Stat {
            target: Target::Path(p),
            nofollow,
        } => {
            let flags = if *nofollow {
                AtFlags::SYMLINK_NOFOLLOW
            } else {
                AtFlags::empty()
            };
            done(
                rustix::fs::statx(
                    root,
                    rel(shared, *p),
                    flags,
                    rustix::fs::StatxFlags::BASIC_STATS,
                ),
                |_| 0,
            )
        }
        Op::Stat {
            target: Target::File(f),
            ..
        } if file(*f) >= 0 => done(rustix::fs::fstat(borrowed(file(*f))), |_| 0),
        Op::Chmod {
            target: Target::Path(p),
            mode,
        } => done(
            rustix::fs::chmodat(
                root,
                rel(shared, *p),
                Mode::from_bits_retain(*mode),
                AtFlags::empty(),
            ),
            nothing,
        ),
        Op::Chmod {
            target: Target::File(f),
            mode,
        } if file(*f) >= 0 => done(
            rustix::fs::fchmod(borrowed(file(*f)), Mode::from_bits_retain(*mode)),
            nothing,
        ),
        Op::Chown {
            target: Target::Path(p),
        } => done(
            rustix::fs::chownat(root, rel(shared, *p), None, None, AtFlags::empty()),
            nothing,
        ),
        Op::Chown {
            target: Target::File(f),
        } if file(*f) >= 0 => done(rustix::fs::fchown(borrowed(file(*f)), None, None), nothing),
        Op::Utimens {
            target: Target::Path(p),
        } => done(
            rustix::fs::utimensat(root, rel(shared, *p), &NOW, AtFlags::empty()),
            nothing,
        ),
        Op::Utimens {
            target: Target::File(f),
        } if file(*f) >= 0 => done(rustix::fs::futimens(borrowed(file(*f)), &NOW), nothing),
        Op::Truncate {
            target: Target::File(f),
            len,
        } if file(*f) >= 0 => done(rustix::fs::ftruncate(borrowed(file(*f)), *len), nothing),
        Op::Truncate {
            target: Target::Path(p),
            len,
        } => {
            // No truncateat: by its full path under the root (whose symlinks are confined).
            let full = shared.root.join(rel(shared, *p));
            let Ok(c) = std::ffi::CString::new(full.as_os_str().as_bytes()) else {
                return (-i64::from(libc::EINVAL), 0);
            };
            // SAFETY: `c` is a NUL-terminated path alive for the call.
            #[allow(unsafe_code)]
            let r = unsafe { libc::truncate(c.as_ptr(), *len as i64) };
            if r == 0 { (0, 0) } else { (last_errno(), 0) }
        }
        // A replay looks every path up from its root: a chdir changes nothing it does.
        Op::Chdir { .. } => (0, 0),
        _ => EBADF,
    }
}
