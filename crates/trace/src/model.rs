//! What a trace holds: the recorded program, its threads, the start state of the files it
//! touched under the root, and every filesystem call in the order the calls ended, each with
//! its thread, times, arguments and result. Plain data; `format` writes and reads it.

use serde::{Deserialize, Serialize};

/// A recorded program's filesystem calls and the files they found.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The program and its arguments, as given to `fsbench record`.
    pub command: Vec<String>,
    /// The root at record time (shown; a replay uses its own scratch instead).
    pub root: String,
    /// The fsbench version that recorded it.
    pub fsbench_version: String,
    /// The traced run, ns from its start to the end of its last task.
    pub wall_ns: u64,
    /// Untraced runs of the same command right after the traced one, ns each.
    pub untraced_wall_ns: Vec<u64>,
    /// What tracing adds to each traced call, ns (calibrated at record time): a replay that
    /// keeps the recorded gaps between calls (`pace=trace`) takes it out of them.
    pub call_overhead_ns: u64,
    /// Every thread that made a recorded call.
    pub threads: Vec<Thread>,
    /// Every path the calls name, once: under the root relative to it (`""` is the root),
    /// outside it absolute.
    pub paths: Vec<Vec<u8>>,
    /// The files under the root as the program first found them (the replay rebuilds these).
    pub start: Vec<Entry>,
    /// The calls, in the order they ended.
    pub calls: Vec<Call>,
    /// Calls on pipes, sockets, terminals and descriptors opened before the recording began:
    /// not filesystem calls on the root, not recorded, counted.
    pub not_files: u64,
    /// Calls followed for the bookkeeping only (dup, dup2, dup3, fcntl, anonymous mmap): not
    /// filesystem calls a replay makes, counted.
    pub followed_only: u64,
}

/// A thread of the recorded program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// Its thread id when recorded.
    pub tid: i32,
    /// Its process id when recorded.
    pub pid: i32,
}

/// A file under the root as the program found it the first time it touched it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Index into [`Trace::paths`].
    pub path: u32,
    /// What it is.
    pub kind: FileKind,
    /// Size in bytes (a regular file's; 0 otherwise).
    pub size: u64,
    /// Permission bits.
    pub mode: u32,
    /// A symlink's target, as stored.
    pub target: Option<Vec<u8>>,
}

/// The type of a start-state entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A FIFO, socket or device: rebuilt as nothing (said by a replay).
    Other,
}

/// One recorded call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// Index into [`Trace::threads`].
    pub thread: u32,
    /// When the call was let run, ns since the program started.
    pub start_ns: u64,
    /// How long it took, as traced, ns.
    pub dur_ns: u64,
    /// What it was.
    pub op: Op,
    /// What it returned: a size or count (an open's descriptor is kept as 0), or −errno.
    pub result: i64,
    /// It named a path outside the root (or a file opened there): recorded, not replayed.
    pub outside: bool,
}

/// What a call on a path or on an open file names: a path (index into [`Trace::paths`]) or
/// the file opened by an earlier call (that [`Op::Open`]'s index into [`Trace::calls`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Target {
    /// By path.
    Path(u32),
    /// By an open file.
    File(u32),
}

/// A call and the arguments a replay needs. `file` is the index of the [`Op::Open`] call that
/// opened the file the call is made on; `path`, `from`, `to` index [`Trace::paths`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // the fields are the system calls' own arguments
pub enum Op {
    /// open, openat, openat2, creat; `flags` are `O_*`.
    Open { path: u32, flags: u32, mode: u32 },
    /// close; `last` when no descriptor of the open file is left (dups, forks).
    Close { file: u32, last: bool },
    /// read, pread64, readv, preadv, preadv2; `offset` for the positioned ones.
    Read {
        file: u32,
        offset: Option<u64>,
        size: u64,
    },
    /// write, pwrite64, writev, pwritev, pwritev2.
    Write {
        file: u32,
        offset: Option<u64>,
        size: u64,
    },
    /// lseek.
    Seek { file: u32, offset: i64, whence: u8 },
    /// fsync, fdatasync.
    Sync { file: u32, data_only: bool },
    /// sync_file_range.
    SyncRange { file: u32, offset: u64, len: u64 },
    /// truncate, ftruncate.
    Truncate { target: Target, len: u64 },
    /// fallocate.
    Fallocate {
        file: u32,
        mode: u32,
        offset: u64,
        len: u64,
    },
    /// stat, lstat, newfstatat, statx, fstat.
    Stat { target: Target, nofollow: bool },
    /// access, faccessat, faccessat2.
    Access { path: u32, mode: u32 },
    /// getdents64, getdents.
    Getdents { file: u32, size: u64 },
    /// readlink, readlinkat.
    Readlink { path: u32 },
    /// mkdir, mkdirat.
    Mkdir { path: u32, mode: u32 },
    /// rmdir, unlinkat(AT_REMOVEDIR).
    Rmdir { path: u32 },
    /// unlink, unlinkat.
    Unlink { path: u32 },
    /// rename, renameat, renameat2.
    Rename { from: u32, to: u32, flags: u32 },
    /// link, linkat.
    Link { from: u32, to: u32 },
    /// symlink, symlinkat.
    Symlink { path: u32, target: Vec<u8> },
    /// chmod, fchmod, fchmodat.
    Chmod { target: Target, mode: u32 },
    /// chown, lchown, fchown, fchownat.
    Chown { target: Target },
    /// utimensat.
    Utimens { target: Target },
    /// chdir, fchdir.
    Chdir { target: Target },
    /// mmap of a file: replayed as a read of the mapped range (an approximation: the program
    /// may touch less of it, or touch it later).
    Mmap { file: u32, offset: u64, len: u64 },
}

impl Op {
    /// The call's kind as `trace show` counts it.
    pub fn kind(&self) -> &'static str {
        match self {
            Op::Open { .. } => "open",
            Op::Close { .. } => "close",
            Op::Read { .. } => "read",
            Op::Write { .. } => "write",
            Op::Seek { .. } => "seek",
            Op::Sync {
                data_only: false, ..
            } => "fsync",
            Op::Sync {
                data_only: true, ..
            } => "fdatasync",
            Op::SyncRange { .. } => "sync_file_range",
            Op::Truncate { .. } => "truncate",
            Op::Fallocate { .. } => "fallocate",
            Op::Stat { .. } => "stat",
            Op::Access { .. } => "access",
            Op::Getdents { .. } => "getdents",
            Op::Readlink { .. } => "readlink",
            Op::Mkdir { .. } => "mkdir",
            Op::Rmdir { .. } => "rmdir",
            Op::Unlink { .. } => "unlink",
            Op::Rename { .. } => "rename",
            Op::Link { .. } => "link",
            Op::Symlink { .. } => "symlink",
            Op::Chmod { .. } => "chmod",
            Op::Chown { .. } => "chown",
            Op::Utimens { .. } => "utimens",
            Op::Chdir { .. } => "chdir",
            Op::Mmap { .. } => "mmap",
        }
    }

    /// The paths the call names (indices into [`Trace::paths`]).
    pub fn paths(&self) -> Vec<u32> {
        let target = |t: &Target| match t {
            Target::Path(p) => vec![*p],
            Target::File(_) => vec![],
        };
        match self {
            Op::Open { path, .. }
            | Op::Access { path, .. }
            | Op::Readlink { path }
            | Op::Mkdir { path, .. }
            | Op::Rmdir { path }
            | Op::Unlink { path }
            | Op::Symlink { path, .. } => vec![*path],
            Op::Rename { from, to, .. } | Op::Link { from, to } => vec![*from, *to],
            Op::Truncate { target: t, .. }
            | Op::Stat { target: t, .. }
            | Op::Chmod { target: t, .. }
            | Op::Chown { target: t }
            | Op::Utimens { target: t }
            | Op::Chdir { target: t } => target(t),
            _ => vec![],
        }
    }

    /// The open file the call is made on (the index of its [`Op::Open`] in [`Trace::calls`]).
    pub fn file(&self) -> Option<u32> {
        let target = |t: &Target| match t {
            Target::File(f) => Some(*f),
            Target::Path(_) => None,
        };
        match self {
            Op::Close { file, .. }
            | Op::Read { file, .. }
            | Op::Write { file, .. }
            | Op::Seek { file, .. }
            | Op::Sync { file, .. }
            | Op::SyncRange { file, .. }
            | Op::Fallocate { file, .. }
            | Op::Getdents { file, .. }
            | Op::Mmap { file, .. } => Some(*file),
            Op::Truncate { target: t, .. }
            | Op::Stat { target: t, .. }
            | Op::Chmod { target: t, .. }
            | Op::Chown { target: t }
            | Op::Utimens { target: t }
            | Op::Chdir { target: t } => target(t),
            _ => None,
        }
    }

    /// Bytes the call moved: a read's, a write's or a mapping's, from its result (an mmap's
    /// length when it succeeded).
    pub fn bytes(&self, result: i64) -> (u64, u64) {
        let done = result.max(0) as u64;
        match self {
            Op::Read { .. } => (done, 0),
            Op::Mmap { len, .. } if result >= 0 => (*len, 0),
            Op::Write { .. } => (0, done),
            _ => (0, 0),
        }
    }
}
