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
    /// The CPU time of each untraced run (the program and its children, user and system), ns.
    pub untraced_cpu_ns: Vec<u64>,
    /// What the calls that only read cost the CPU when made again untraced on the recorded
    /// root after the untraced runs (the least of three rounds, ns; `rerun`).
    pub reran_cpu_ns: Option<u64>,
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
    /// What each stop costs the traced program's own clocks (calibrated at record time): a
    /// replay that keeps the program's time between calls (`pace=trace`) takes it out.
    pub stop_cost: Option<StopCost>,
    /// The `--prepare` command that restored the tree before the traced run and each untraced
    /// one: with it (or with a program that leaves its tree as found) the untraced runs did the
    /// traced run's work.
    pub prepare: Option<String>,
    /// Every path outside the root a call named, as the program first found it (format 3; a
    /// format-2 trace has none): what lets a replay read the same files of this machine.
    /// A format-2 body is this one without it and `makers` ([`crate::format`]).
    pub outside_files: Vec<crate::outside::OutsideFile>,
    /// Per thread (as `threads`), the process id of the process it was copied from when it
    /// began a process of its own (fork, vfork); 0 for a thread of its process and for the
    /// program's first (format 4; a format-3 trace has none: empty). A replayed process that
    /// waited for its children waits for them, not for another process's that ended meanwhile.
    /// Kept last: a format-3 body is this one without it ([`crate::format`]).
    pub makers: Vec<i32>,
}

impl Trace {
    /// Per thread, whether it belongs to `thread`'s process or to a process that process made,
    /// directly or not (its family: whose exits it can wait for); `None` when the trace does
    /// not say who made each process (format 3 and older).
    pub fn family_of(&self, thread: u32) -> Option<Vec<bool>> {
        if self.makers.len() != self.threads.len() {
            return None;
        }
        let pid = self.threads.get(thread as usize)?.pid;
        let parent: std::collections::HashMap<i32, i32> = self
            .threads
            .iter()
            .zip(&self.makers)
            .filter(|(_, m)| **m > 0)
            .map(|(t, &m)| (t.pid, m))
            .collect();
        Some(
            self.threads
                .iter()
                .map(|t| {
                    // Up the makers from t's process, at most once per process.
                    let mut p = t.pid;
                    for _ in 0..=parent.len() {
                        if p == pid {
                            return true;
                        }
                        match parent.get(&p) {
                            Some(&up) => p = up,
                            None => return false,
                        }
                    }
                    false
                })
                .collect(),
        )
    }
}

/// Where a thread's time went over a stretch (from its `/proc/TID/schedstat` at the stops that
/// bound it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spent {
    /// ns it ran on a CPU.
    pub cpu_ns: u64,
    /// ns it neither ran nor waited for a CPU: blocked, or stopped by the tracer until seen.
    pub off_ns: u64,
    /// Times it got a CPU: once after each stop, once more after each time it blocked or was
    /// preempted.
    pub arrivals: u64,
}

impl Spent {
    /// Both stretches together.
    pub fn plus(self, other: Spent) -> Spent {
        Spent {
            cpu_ns: self.cpu_ns + other.cpu_ns,
            off_ns: self.off_ns + other.off_ns,
            arrivals: self.arrivals + other.arrivals,
        }
    }
}

/// What tracing adds to a traced call's stretches on the program's own clocks, medians of a
/// calibration program's calls (which do nothing between calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopCost {
    /// CPU ns in the gap before each call (the seccomp filter, the entry stop, the resume).
    pub gap_cpu_ns: u64,
    /// Off-CPU ns in that gap (stopped until the tracer saw it).
    pub gap_off_ns: u64,
    /// CPU ns added to the call itself (its exit stop), the call's own cost taken out.
    pub call_cpu_ns: u64,
    /// Off-CPU ns added to the call itself.
    pub call_off_ns: u64,
}

/// A thread of the recorded program.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thread {
    /// Its thread id when recorded.
    pub tid: i32,
    /// Its process id when recorded.
    pub pid: i32,
    /// When it began, ns since the program started (0 for the program's first thread).
    pub begun_ns: u64,
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

impl FileKind {
    /// The kind of a file of type `t`.
    pub fn of(t: std::fs::FileType) -> FileKind {
        if t.is_file() {
            FileKind::File
        } else if t.is_dir() {
            FileKind::Dir
        } else if t.is_symlink() {
            FileKind::Symlink
        } else {
            FileKind::Other
        }
    }

    /// Its name in `trace show --export-json`: `file`, `dir`, `symlink` or `other`.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::File => "file",
            FileKind::Dir => "dir",
            FileKind::Symlink => "symlink",
            FileKind::Other => "other",
        }
    }
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
    /// It named a path outside the root (or a file opened there): replayed only when it reads a
    /// file still as recorded ([`crate::outside::replayable`]).
    pub outside: bool,
    /// The thread's time since its previous recorded call ended (or since it began), traced
    /// calls not recorded (pipes, dups) included; `None` when the kernel did not say.
    pub before: Option<Spent>,
    /// The thread's time in the call.
    pub during: Option<Spent>,
    /// Traced calls not recorded within `before`, whose stops' cost it holds.
    pub hidden: u32,
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

    /// Whether the call, returning `result`, changed what is under the root (names, content,
    /// sizes, modes, owners or times): a replay that makes none must rebuild its start state
    /// only once. An open that may create or truncate counts; a failed call does not.
    pub fn changes_files(&self, result: i64) -> bool {
        if result < 0 {
            return false;
        }
        match self {
            Op::Open { flags, .. } => *flags as i32 & (libc::O_CREAT | libc::O_TRUNC) != 0,
            Op::Write { .. }
            | Op::Truncate { .. }
            | Op::Fallocate { .. }
            | Op::Mkdir { .. }
            | Op::Rmdir { .. }
            | Op::Unlink { .. }
            | Op::Rename { .. }
            | Op::Link { .. }
            | Op::Symlink { .. }
            | Op::Chmod { .. }
            | Op::Chown { .. }
            | Op::Utimens { .. } => true,
            _ => false,
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

/// Whether replaying `trace` leaves its tree as it found it: no call under the root changes
/// anything but files the trace itself creates (absent from the start state) and removes again
/// (a lock file, a temporary), and those are only written, never renamed or linked. A replay of
/// such a trace rebuilds its start state once.
pub fn leaves_as_found(trace: &Trace) -> bool {
    use std::collections::HashSet;
    let at_start: HashSet<u32> = trace.start.iter().map(|e| e.path).collect();
    let replayed = || trace.calls.iter().filter(|c| !c.outside && c.result >= 0);
    // Paths made and removed again by the trace.
    let made: HashSet<u32> = replayed()
        .filter_map(|c| match c.op {
            Op::Open { path, .. } | Op::Mkdir { path, .. } if c.op.changes_files(c.result) => {
                (!at_start.contains(&path)).then_some(path)
            }
            _ => None,
        })
        .collect();
    let removed: HashSet<u32> = replayed()
        .filter_map(|c| match c.op {
            Op::Unlink { path } | Op::Rmdir { path } => Some(path),
            _ => None,
        })
        .collect();
    let own = |p: u32| made.contains(&p) && removed.contains(&p);
    let own_target = |t: &Target| match t {
        Target::Path(p) => own(*p),
        Target::File(f) => {
            matches!(trace.calls[*f as usize].op, Op::Open { path, .. } if own(path))
        }
    };
    replayed().all(|c| {
        !c.op.changes_files(c.result)
            || match &c.op {
                Op::Open { path, .. }
                | Op::Mkdir { path, .. }
                | Op::Unlink { path }
                | Op::Rmdir { path } => own(*path),
                Op::Write { file, .. } | Op::Fallocate { file, .. } => {
                    own_target(&Target::File(*file))
                }
                Op::Truncate { target, .. }
                | Op::Chmod { target, .. }
                | Op::Chown { target }
                | Op::Utimens { target } => own_target(target),
                _ => false,
            }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(op: Op) -> Call {
        Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 0,
            op,
            result: 0,
            outside: false,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    fn git_like() -> Trace {
        let lock = (libc::O_CREAT | libc::O_EXCL | libc::O_RDWR) as u32;
        Trace {
            paths: vec![b"index".to_vec(), b"index.lock".to_vec()],
            start: vec![Entry {
                path: 0,
                kind: FileKind::File,
                size: 1,
                mode: 0o644,
                target: None,
            }],
            calls: vec![
                call(Op::Stat {
                    target: Target::Path(0),
                    nofollow: true,
                }),
                call(Op::Open {
                    path: 1,
                    flags: lock,
                    mode: 0o666,
                }),
                call(Op::Write {
                    file: 1,
                    offset: None,
                    size: 4,
                }),
                call(Op::Close {
                    file: 1,
                    last: true,
                }),
                call(Op::Unlink { path: 1 }),
            ],
            ..Trace::default()
        }
    }

    #[test]
    fn a_lock_file_made_written_and_removed_leaves_the_tree_as_found() {
        assert!(leaves_as_found(&git_like()));
        // Renamed into place instead of removed: the index changed.
        let mut t = git_like();
        t.calls[4].op = Op::Rename {
            from: 1,
            to: 0,
            flags: 0,
        };
        assert!(!leaves_as_found(&t));
        // A write to a file that was there at the start.
        let mut t = git_like();
        t.calls[1].op = Op::Open {
            path: 0,
            flags: libc::O_WRONLY as u32,
            mode: 0,
        };
        assert!(!leaves_as_found(&t));
        // A failed unlink removes nothing: the lock stays.
        let mut t = git_like();
        t.calls[4].result = -i64::from(libc::ENOENT);
        assert!(!leaves_as_found(&t));
    }
}
