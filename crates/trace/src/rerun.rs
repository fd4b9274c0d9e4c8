//! The recorded calls that only read, made again untraced on the recorded root right after the
//! recording: what they cost the CPU there. A paced replay takes it (and an estimate for the
//! calls that write) out of the program's untraced CPU time, which leaves the program's own
//! time between its calls, free of the tracer's cost.
//!
//! Never writes: it stats, reads links, checks access, and opens read-only only what the start
//! state says is a regular file or a directory (no device, FIFO or socket is ever opened).
//! Written by hand because it is the measurement: the calls as the program made them, one
//! system call each, each recorded thread's on a thread of its own.

use crate::model::{FileKind, Op, Target, Trace};
use rustix::fs::{AtFlags, Mode, OFlags};
use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Per call, whether [`rerun`] makes it again: a call under the root that only reads: a stat,
/// access or readlink of any path, a read-only open of what the start state holds as a file
/// or directory, and the calls on a file such an open opened; and outside the root the same
/// calls among those a replay makes there ([`crate::outside::replayable`]: on files still as
/// recorded, regular files or directories; a mapping there is made as a replay makes it,
/// [`crate::touch::map`]), so that what they cost is not counted twice in a paced replay, once
/// made and once as the program's own time.
pub fn repeatable(trace: &Trace) -> Vec<bool> {
    let kinds: HashMap<u32, FileKind> = trace.start.iter().map(|e| (e.path, e.kind)).collect();
    let outside_ok = crate::outside::replayable(trace);
    let readable = |i: usize, p: &u32| {
        let c = &trace.calls[i];
        match c.outside {
            // Replayable outside and opened: a regular file or directory as recorded.
            true => outside_ok[i],
            false => matches!(kinds.get(p), Some(FileKind::File | FileKind::Dir)),
        }
    };
    let mut opened = vec![false; trace.calls.len()];
    let mut out = vec![false; trace.calls.len()];
    for (i, c) in trace.calls.iter().enumerate() {
        if c.outside && !outside_ok[i] {
            continue;
        }
        let on = |f: &u32| opened[*f as usize];
        out[i] = match &c.op {
            Op::Open { path, flags, .. } => {
                let f = *flags as i32;
                let read_only = f & libc::O_ACCMODE == libc::O_RDONLY
                    && f & (libc::O_CREAT | libc::O_TRUNC | libc::O_TMPFILE) == 0;
                opened[i] = read_only && readable(i, path) && c.result >= 0;
                opened[i]
            }
            Op::Mmap { file, .. } if c.outside => on(file),
            Op::Close { file, .. }
            | Op::Read { file, .. }
            | Op::Seek { file, .. }
            | Op::Getdents { file, .. } => on(file),
            Op::Stat {
                target: Target::File(f),
                ..
            } => on(f),
            // Nothing is opened: safe on any path, found or not.
            Op::Stat {
                target: Target::Path(_),
                ..
            }
            | Op::Access { .. }
            | Op::Readlink { .. } => true,
            _ => false,
        };
    }
    out
}

/// Makes the [`repeatable`] calls of `trace` again under `root` `rounds` times, each recorded
/// thread's on a thread of its own, concurrently as the program made them (its threads' calls
/// contend for the same locks and caches); the least CPU time of a round, all threads, ns.
/// `None` when `rounds` is 0, the root cannot be opened or a thread's CPU clock cannot be read.
pub fn rerun(trace: &Trace, root: &Path, rounds: u32) -> Option<u64> {
    let which = repeatable(trace);
    let root = rustix::fs::open(
        root,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let mut threads: Vec<Vec<usize>> = vec![Vec::new(); trace.threads.len()];
    for (i, c) in trace.calls.iter().enumerate().filter(|(i, _)| which[*i]) {
        threads[c.thread as usize].push(i);
    }
    threads.retain(|t| !t.is_empty());
    let largest = trace
        .calls
        .iter()
        .map(|c| match c.op {
            Op::Read { size, .. } | Op::Getdents { size, .. } => size,
            _ => 0,
        })
        .max()
        .unwrap_or(0)
        .clamp(4096, 16 << 20) as usize;
    let mut best = None::<u64>;
    for _ in 0..rounds {
        let files = Files::new(trace.calls.len());
        let took: Option<Vec<u64>> = std::thread::scope(|s| {
            let handles: Vec<_> = threads
                .iter()
                .map(|calls| {
                    let (files, root) = (&files, &root);
                    s.spawn(move || {
                        let mut buf = vec![0u8; largest];
                        // Unmapped when the thread is done, after its time is taken (a
                        // replay unmaps after the sample).
                        let mut maps = crate::touch::Mappings::default();
                        let start = thread_cpu_ns()?;
                        for &i in calls {
                            make(trace, i, root, files, &mut buf, &mut maps);
                        }
                        let took = thread_cpu_ns()?.saturating_sub(start);
                        drop(maps);
                        Some(took)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        });
        let took: u64 = took?.iter().sum();
        best = Some(best.map_or(took, |b| b.min(took)));
    }
    best
}

fn thread_cpu_ns() -> Option<u64> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Some(u64::try_from(t.tv_sec).ok()? * 1_000_000_000 + u64::try_from(t.tv_nsec).ok()?)
}

/// The files the round's opens made, by the index of their open, shared by its threads. A
/// file is closed when its recorded close comes on the thread that opened it, else when the
/// round ends: a descriptor number is never reused while another thread may still use it.
struct Files {
    by_open: Vec<std::sync::Mutex<Option<(OwnedFd, std::thread::ThreadId)>>>,
}

impl Files {
    fn new(calls: usize) -> Self {
        Files {
            by_open: (0..calls).map(|_| std::sync::Mutex::new(None)).collect(),
        }
    }

    /// Runs `f` on the file open call `open` made, if it is open.
    fn with(&self, open: u32, f: impl FnOnce(std::os::fd::BorrowedFd<'_>)) {
        if let Some(slot) = self.by_open.get(open as usize) {
            if let Some((fd, _)) = &*slot.lock().unwrap_or_else(|e| e.into_inner()) {
                f(fd.as_fd());
            }
        }
    }
}

/// Makes call `i` (its result is not checked: the cost is what is measured).
fn make(
    trace: &Trace,
    i: usize,
    root: &OwnedFd,
    files: &Files,
    buf: &mut [u8],
    maps: &mut crate::touch::Mappings,
) {
    let path = |p: &u32| {
        let rel = &trace.paths[*p as usize];
        if rel.is_empty() {
            std::ffi::OsStr::new(".")
        } else {
            std::ffi::OsStr::from_bytes(rel)
        }
    };
    match &trace.calls[i].op {
        Op::Open { path: p, flags, .. } => {
            // Only the flags that change what is found; never one that could block or make a
            // terminal the controlling one.
            let keep = OFlags::from_bits_retain(*flags)
                & (OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::NOATIME);
            let flags = keep | OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NONBLOCK | OFlags::NOCTTY;
            if let Ok(f) = rustix::fs::openat(root, path(p), flags, Mode::empty()) {
                *files.by_open[i].lock().unwrap_or_else(|e| e.into_inner()) =
                    Some((f, std::thread::current().id()));
            }
        }
        Op::Close { file, last } => {
            let mut slot = files.by_open[*file as usize]
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            if *last && slot.as_ref().map(|(_, t)| *t) == Some(std::thread::current().id()) {
                *slot = None;
            }
        }
        Op::Read { file, offset, size } => files.with(*file, |f| {
            let n = (*size as usize).min(buf.len());
            let _ = match offset {
                Some(o) => rustix::io::pread(f, &mut buf[..n], *o),
                None => rustix::io::read(f, &mut buf[..n]),
            };
        }),
        Op::Seek {
            file,
            offset,
            whence,
        } => files.with(*file, |f| {
            let to = match i32::from(*whence) {
                libc::SEEK_SET => rustix::fs::SeekFrom::Start(*offset as u64),
                libc::SEEK_CUR => rustix::fs::SeekFrom::Current(*offset),
                _ => rustix::fs::SeekFrom::End(*offset),
            };
            let _ = rustix::fs::seek(f, to);
        }),
        Op::Mmap { file, offset, len } => files.with(*file, |f| {
            let _ = crate::touch::map(f, *offset, *len, maps);
        }),
        Op::Getdents { file, size } => files.with(*file, |f| {
            let n = (*size as usize).min(buf.len());
            getdents(f, &mut buf[..n]);
        }),
        Op::Stat {
            target: Target::File(f),
            ..
        } => files.with(*f, |f| {
            let _ = rustix::fs::fstat(f);
        }),
        Op::Stat {
            target: Target::Path(p),
            nofollow,
        } => {
            let how = if *nofollow {
                AtFlags::SYMLINK_NOFOLLOW
            } else {
                AtFlags::empty()
            };
            let _ = rustix::fs::statat(root, path(p), how);
        }
        Op::Access { path: p, mode } => {
            let _ = rustix::fs::accessat(
                root,
                path(p),
                rustix::fs::Access::from_bits_retain(*mode),
                AtFlags::empty(),
            );
        }
        Op::Readlink { path: p } => {
            let _ = rustix::fs::readlinkat(root, path(p), Vec::new());
        }
        _ => {}
    }
}

/// One `getdents64` into `buf` (rustix offers only a whole-directory iterator).
fn getdents(f: std::os::fd::BorrowedFd<'_>, buf: &mut [u8]) {
    use std::os::fd::AsRawFd;
    // SAFETY: `buf` is valid and writable for its length during the call.
    #[allow(unsafe_code)]
    unsafe {
        libc::syscall(
            libc::SYS_getdents64,
            f.as_raw_fd(),
            buf.as_mut_ptr(),
            buf.len(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, Entry, Thread};

    fn call(op: Op, result: i64) -> Call {
        Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 0,
            op,
            result,
            outside: false,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    fn entry(path: u32, kind: FileKind) -> Entry {
        Entry {
            path,
            kind,
            size: 4,
            mode: 0o644,
            target: None,
        }
    }

    #[test]
    fn only_reads_of_files_and_directories_the_start_state_holds_are_made_again() {
        let t = Trace {
            threads: vec![Thread {
                tid: 1,
                pid: 1,
                begun_ns: 0,
            }],
            paths: vec![b"f".to_vec(), b"fifo".to_vec(), b"new".to_vec()],
            start: vec![entry(0, FileKind::File), entry(1, FileKind::Other)],
            calls: vec![
                call(
                    Op::Open {
                        path: 0,
                        flags: 0,
                        mode: 0,
                    },
                    0,
                ),
                call(
                    Op::Read {
                        file: 0,
                        offset: None,
                        size: 4,
                    },
                    4,
                ),
                // A FIFO is never opened (it could block); a write-open never made.
                call(
                    Op::Open {
                        path: 1,
                        flags: 0,
                        mode: 0,
                    },
                    0,
                ),
                call(
                    Op::Read {
                        file: 2,
                        offset: None,
                        size: 4,
                    },
                    4,
                ),
                call(
                    Op::Open {
                        path: 2,
                        flags: (libc::O_WRONLY | libc::O_CREAT) as u32,
                        mode: 0o644,
                    },
                    0,
                ),
                call(
                    Op::Stat {
                        target: Target::Path(0),
                        nofollow: true,
                    },
                    0,
                ),
                call(Op::Unlink { path: 0 }, 0),
                call(
                    Op::Close {
                        file: 0,
                        last: true,
                    },
                    0,
                ),
            ],
            ..Trace::default()
        };
        assert_eq!(
            repeatable(&t),
            vec![true, true, false, false, false, true, false, true]
        );
    }

    #[test]
    fn reads_outside_the_root_are_made_again_only_where_a_replay_makes_them() {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("conf");
        std::fs::write(&conf, b"0123").unwrap();
        let abs = conf.clone().into_os_string().into_encoded_bytes();
        let mut t = Trace {
            threads: vec![Thread {
                tid: 1,
                pid: 1,
                begun_ns: 0,
            }],
            paths: vec![abs],
            outside_files: vec![crate::outside::OutsideFile {
                path: 0,
                found: crate::outside::identity_of(&conf),
            }],
            ..Trace::default()
        };
        let outside = |op, result| Call {
            outside: true,
            ..call(op, result)
        };
        t.calls = vec![
            outside(
                Op::Open {
                    path: 0,
                    flags: 0,
                    mode: 0,
                },
                0,
            ),
            outside(
                Op::Read {
                    file: 0,
                    offset: None,
                    size: 4,
                },
                4,
            ),
            outside(
                Op::Mmap {
                    file: 0,
                    offset: 0,
                    len: 4,
                },
                0,
            ),
            outside(
                Op::Close {
                    file: 0,
                    last: true,
                },
                0,
            ),
        ];
        // The mapping too, made as a replay makes it (mapped, touched): its cost is the
        // replay's, not the program's own time.
        assert_eq!(repeatable(&t), vec![true, true, true, true]);
        assert!(
            rerun(&t, dir.path(), 2).is_some(),
            "made again, mapping included"
        );
        // Changed since: a replay does not read it, nor does the rerun.
        std::fs::write(&conf, b"01").unwrap();
        assert_eq!(repeatable(&t), vec![false; 4]);
    }

    #[test]
    fn a_rerun_reads_the_tree_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), b"data").unwrap();
        let t = Trace {
            threads: vec![Thread {
                tid: 1,
                pid: 1,
                begun_ns: 0,
            }],
            paths: vec![b"f".to_vec()],
            start: vec![entry(0, FileKind::File)],
            calls: vec![
                call(
                    Op::Open {
                        path: 0,
                        flags: 0,
                        mode: 0,
                    },
                    0,
                ),
                call(
                    Op::Read {
                        file: 0,
                        offset: Some(0),
                        size: 4,
                    },
                    4,
                ),
                call(
                    Op::Close {
                        file: 0,
                        last: true,
                    },
                    0,
                ),
                call(Op::Unlink { path: 0 }, 0),
            ],
            ..Trace::default()
        };
        assert!(rerun(&t, dir.path(), 2).is_some());
        assert_eq!(std::fs::read(dir.path().join("f")).unwrap(), b"data");
        assert!(rerun(&t, &dir.path().join("missing"), 1).is_none());
    }
}
