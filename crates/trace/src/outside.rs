//! Files outside the root: what the program found there (its binary's libraries, its
//! configuration, the loader's search for them) and which of its calls on them only read.
//! A cold run of the program pays for loading them; a replay can pay the same by making those
//! read-only calls on the same files of this machine, and only while they are the files that were
//! recorded (their identity: type, size and modification time). The kernel's own files
//! (`/proc`, `/sys`, `/dev`) are never replayed.

use crate::model::{Call, FileKind, Op, Target, Trace};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Where the kernel's own files are: calls there are never replayed, only counted.
const KERNELS: &[&[u8]] = &[b"/proc", b"/sys", b"/dev"];

/// A path outside the root that a call named, as the program first found it (read before that
/// call ran).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutsideFile {
    /// Index into [`Trace::paths`] (absolute).
    pub path: u32,
    /// What was there; `None` when nothing was (a lookup that failed, such as the loader's
    /// search of its library directories).
    pub found: Option<Identity>,
}

/// What identifies a file outside the root between a recording and a replay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Identity {
    /// The name itself (`lstat`).
    pub name: Stamp,
    /// What a symlink leads to (`stat`), `None` for anything else or a dangling link.
    pub leads_to: Option<Stamp>,
}

/// A file's type, size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// What it is.
    pub kind: FileKind,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, ns since the epoch.
    pub mtime_ns: i64,
}

impl Stamp {
    fn of(m: &std::fs::Metadata) -> Stamp {
        Stamp {
            kind: FileKind::of(m.file_type()),
            size: m.len(),
            mtime_ns: m.mtime() * 1_000_000_000 + m.mtime_nsec(),
        }
    }
}

/// The identity of `path` now; `None` when nothing is there (or it cannot be read).
pub fn identity_of(path: &Path) -> Option<Identity> {
    let name = std::fs::symlink_metadata(path).ok()?;
    let leads_to = match name.file_type().is_symlink() {
        true => std::fs::metadata(path).ok().map(|m| Stamp::of(&m)),
        false => None,
    };
    Some(Identity {
        name: Stamp::of(&name),
        leads_to,
    })
}

/// Whether `abs` is one of the kernel's own files (`/proc`, `/sys`, `/dev` and below).
pub fn kernels(abs: &[u8]) -> bool {
    KERNELS.iter().any(|k| {
        abs.strip_prefix(*k)
            .is_some_and(|r| r.is_empty() || r[0] == b'/')
    })
}

/// How `path` differs from what was recorded of it, in a few words; `None` when it is the same
/// file (or still absent).
pub fn divergence(recorded: Option<&Identity>, path: &Path) -> Option<String> {
    let now = identity_of(path);
    let word = |k: FileKind| match k {
        FileKind::File => "a file",
        FileKind::Dir => "a directory",
        FileKind::Symlink => "a symlink",
        FileKind::Other => "a special file",
    };
    let stamp = |was: &Stamp, is: &Stamp, what: &str| {
        if was.kind != is.kind {
            Some(format!(
                "{what}{} then, {} now",
                word(was.kind),
                word(is.kind)
            ))
        } else if was.size != is.size {
            Some(format!("{what}{} bytes then, {} now", was.size, is.size))
        } else if was.mtime_ns != is.mtime_ns {
            Some(format!("{what}modified since"))
        } else {
            None
        }
    };
    match (recorded, now) {
        (None, None) => None,
        (None, Some(_)) => Some("absent then, there now".into()),
        (Some(_), None) => Some("there then, absent now".into()),
        (Some(was), Some(is)) => {
            stamp(&was.name, &is.name, "").or_else(|| match (&was.leads_to, &is.leads_to) {
                (Some(a), Some(b)) => stamp(a, b, "what it leads to: "),
                (None, None) => None,
                _ => Some("what it leads to: changed".into()),
            })
        }
    }
}

/// Whether open flags only read: no write access, no creating, truncating or temporary file.
pub fn open_only_reads(flags: u32) -> bool {
    let f = flags as i32;
    // O_TMPFILE holds O_DIRECTORY's bit: only all of its bits make a temporary file.
    f & libc::O_ACCMODE == libc::O_RDONLY
        && f & (libc::O_CREAT | libc::O_TRUNC) == 0
        && f & libc::O_TMPFILE != libc::O_TMPFILE
}

/// Whether `call` (outside the root) only reads: a read-only open, and on a file so opened a
/// read, map, seek, listing, stat or close; by path a stat, access or readlink. Everything else
/// (a write, a create, a change of attributes) is never replayed outside the root.
pub fn only_reads(trace: &Trace, call: &Call) -> bool {
    let on_read_only = |file: u32| {
        matches!(
            trace.calls.get(file as usize).map(|c| &c.op),
            Some(Op::Open { flags, .. }) if open_only_reads(*flags)
        )
    };
    match &call.op {
        Op::Open { flags, .. } => open_only_reads(*flags),
        Op::Read { file, .. }
        | Op::Mmap { file, .. }
        | Op::Seek { file, .. }
        | Op::Getdents { file, .. }
        | Op::Close { file, .. } => on_read_only(*file),
        Op::Stat { target, .. } => match target {
            Target::Path(_) => true,
            Target::File(f) => on_read_only(*f),
        },
        Op::Access { .. } | Op::Readlink { .. } => true,
        _ => false,
    }
}

/// The path a call outside the root names, directly or through the open that made its file.
pub fn path_of(trace: &Trace, call: &Call) -> Option<u32> {
    match call.op.paths().first() {
        Some(p) => Some(*p),
        None => {
            let f = call.op.file()?;
            trace.calls.get(f as usize)?.op.paths().first().copied()
        }
    }
}

/// What a trace's calls outside the root are: how many only read files the recording
/// identified (what a replay can make again), how many are on the kernel's files, and how many
/// change something (never replayed).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct OutsideCalls {
    /// Calls outside the root in all.
    pub calls: u64,
    /// Of them, calls that only read, on a path the recording identified (found or absent).
    pub read_only: u64,
    /// Of them, calls on `/proc`, `/sys` or `/dev`.
    pub kernels: u64,
    /// Of them, calls that write, create, remove or change attributes.
    pub changing: u64,
    /// Distinct paths the read-only calls name.
    pub files: u64,
    /// Of those, paths that were there when recorded.
    pub found: u64,
}

/// The paths the calls outside the root that only read name (the kernel's files aside), each
/// once: what a replay could read again, among them what the recording identified.
pub fn read_only_paths(trace: &Trace) -> BTreeSet<u32> {
    trace
        .calls
        .iter()
        .filter(|c| c.outside && only_reads(trace, c))
        .filter_map(|c| path_of(trace, c))
        .filter(|&p| !kernels(&trace.paths[p as usize]))
        .collect()
}

/// Counts the trace's calls outside the root ([`OutsideCalls`]).
pub fn count(trace: &Trace) -> OutsideCalls {
    let identified: BTreeSet<u32> = trace.outside_files.iter().map(|f| f.path).collect();
    let mut n = OutsideCalls::default();
    for c in trace.calls.iter().filter(|c| c.outside) {
        n.calls += 1;
        let path = path_of(trace, c);
        if path.is_some_and(|p| kernels(&trace.paths[p as usize])) {
            n.kernels += 1;
        } else if !only_reads(trace, c) {
            n.changing += 1;
        } else if path.is_some_and(|p| identified.contains(&p)) {
            n.read_only += 1;
        }
    }
    let files = read_only_paths(trace);
    let identified_read = trace
        .outside_files
        .iter()
        .filter(|f| files.contains(&f.path));
    n.files = identified_read.clone().count() as u64;
    n.found = identified_read.filter(|f| f.found.is_some()).count() as u64;
    n
}

/// Per call, whether a replay on this machine makes it: every call under the root; outside
/// it, a call that only reads ([`only_reads`]), on an absolute path the recording identified,
/// not the kernel's ([`kernels`]) and not one the program itself changes (a temporary file it
/// makes, writes or removes), whose file is still the one recorded (same type, size and
/// modification time, [`divergence`]) and is a regular file or a directory (or a symlink to
/// one); or, on a path that was and still is absent, a call that failed (the loader's search:
/// a call that found a file absent when first named was made after something created it). A
/// device, FIFO or socket is never opened; a file that changed since the recording is not read
/// (the cell names it instead). Reads the identities of this machine's files, once per path.
pub fn replayable(trace: &Trace) -> Vec<bool> {
    let recorded: std::collections::HashMap<u32, Option<&Identity>> = trace
        .outside_files
        .iter()
        .map(|f| (f.path, f.found.as_ref()))
        .collect();
    let changed: BTreeSet<u32> = trace
        .calls
        .iter()
        .filter(|c| c.outside && !only_reads(trace, c))
        .flat_map(|c| c.op.paths().into_iter().chain(path_of(trace, c)))
        .collect();
    let mut same_here: std::collections::HashMap<u32, bool> = std::collections::HashMap::new();
    let mut still = |p: u32| {
        *same_here.entry(p).or_insert_with(|| {
            let abs = &trace.paths[p as usize];
            let Some(found) = recorded.get(&p) else {
                return false;
            };
            let readable = |s: &Stamp| matches!(s.kind, FileKind::File | FileKind::Dir);
            let plain = found.is_none_or(|i| match i.name.kind {
                FileKind::Symlink => i.leads_to.as_ref().is_none_or(readable),
                _ => readable(&i.name),
            });
            abs.first() == Some(&b'/')
                && !kernels(abs)
                && !changed.contains(&p)
                && plain
                && divergence(*found, as_path(abs)).is_none()
        })
    };
    let failed = |c: &Call| match c.op.file() {
        Some(f) => trace.calls.get(f as usize).is_some_and(|o| o.result < 0),
        None => c.result < 0,
    };
    trace
        .calls
        .iter()
        .map(|c| {
            if !c.outside {
                return true;
            }
            let Some(p) = path_of(trace, c).filter(|_| only_reads(trace, c)) else {
                return false;
            };
            let absent = matches!(recorded.get(&p), Some(None));
            still(p) && (!absent || failed(c))
        })
        .collect()
}

/// `abs` as a path.
pub fn as_path(abs: &[u8]) -> &Path {
    Path::new(std::ffi::OsStr::from_bytes(abs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Call;

    fn call(op: Op) -> Call {
        Call {
            thread: 0,
            start_ns: 0,
            dur_ns: 0,
            op,
            result: 0,
            outside: true,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    #[test]
    fn the_kernels_files_are_the_three_trees_and_nothing_beside_them() {
        for p in ["/proc", "/proc/self/maps", "/sys/fs", "/dev/null", "/dev"] {
            assert!(kernels(p.as_bytes()), "{p}");
        }
        for p in ["/procfs", "/usr/lib/libc.so.6", "/devices", "/", "/etc/sys"] {
            assert!(!kernels(p.as_bytes()), "{p}");
        }
    }

    #[test]
    fn only_opens_without_write_access_create_or_truncate_read() {
        assert!(open_only_reads((libc::O_RDONLY | libc::O_CLOEXEC) as u32));
        assert!(open_only_reads((libc::O_RDONLY | libc::O_DIRECTORY) as u32));
        for f in [
            libc::O_WRONLY,
            libc::O_RDWR,
            libc::O_RDONLY | libc::O_CREAT,
            libc::O_RDONLY | libc::O_TRUNC,
            libc::O_TMPFILE | libc::O_RDWR,
        ] {
            assert!(!open_only_reads(f as u32), "{f:#o}");
        }
    }

    #[test]
    fn calls_on_a_file_read_only_when_its_open_did() {
        let mut t = Trace {
            paths: vec![b"/etc/a".to_vec(), b"/etc/b".to_vec()],
            ..Trace::default()
        };
        t.calls.push(call(Op::Open {
            path: 0,
            flags: libc::O_RDONLY as u32,
            mode: 0,
        }));
        t.calls.push(call(Op::Open {
            path: 1,
            flags: (libc::O_WRONLY | libc::O_APPEND) as u32,
            mode: 0,
        }));
        let read = |file| {
            call(Op::Read {
                file,
                offset: None,
                size: 10,
            })
        };
        assert!(only_reads(&t, &read(0)));
        assert!(!only_reads(&t, &read(1)));
        let write = call(Op::Write {
            file: 0,
            offset: None,
            size: 1,
        });
        assert!(!only_reads(&t, &write));
        assert!(only_reads(&t, &call(Op::Readlink { path: 1 })));
        assert!(!only_reads(&t, &call(Op::Unlink { path: 0 })));
        assert!(!only_reads(&t, &call(Op::Mkdir { path: 0, mode: 0 })));
        assert_eq!(path_of(&t, &read(1)), Some(1));
    }

    #[test]
    fn a_file_changed_moved_or_made_since_is_a_divergence_and_the_same_file_is_none() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("conf");
        std::fs::write(&f, b"abc").unwrap();
        let then = identity_of(&f).expect("there");
        assert_eq!(then.name.kind, FileKind::File);
        assert_eq!(then.name.size, 3);
        assert_eq!(divergence(Some(&then), &f), None);
        std::fs::write(&f, b"abcd").unwrap();
        assert_eq!(
            divergence(Some(&then), &f).as_deref(),
            Some("3 bytes then, 4 now")
        );
        let same_size = identity_of(&f).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1000);
        std::fs::File::options()
            .write(true)
            .open(&f)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(
            divergence(Some(&same_size), &f).as_deref(),
            Some("modified since")
        );
        let gone = d.path().join("gone");
        assert_eq!(divergence(None, &gone), None);
        assert_eq!(
            divergence(Some(&same_size), &gone).as_deref(),
            Some("there then, absent now")
        );
        assert_eq!(
            divergence(None, &f).as_deref(),
            Some("absent then, there now")
        );
        let link = d.path().join("link");
        std::os::unix::fs::symlink(&f, &link).unwrap();
        let l = identity_of(&link).unwrap();
        assert_eq!(l.name.kind, FileKind::Symlink);
        assert_eq!(l.leads_to.map(|s| s.size), Some(4));
        std::fs::write(&f, b"abcdef").unwrap();
        assert_eq!(
            divergence(Some(&l), &link).as_deref(),
            Some("what it leads to: 4 bytes then, 6 now")
        );
    }

    #[test]
    fn the_count_splits_read_only_kernel_and_changing_calls() {
        let mut t = Trace {
            paths: vec![
                b"/usr/lib/libz.so".to_vec(),
                b"/proc/self/maps".to_vec(),
                b"/tmp/out".to_vec(),
                b"/usr/lib/missing.so".to_vec(),
            ],
            ..Trace::default()
        };
        t.calls.push(call(Op::Open {
            path: 0,
            flags: libc::O_RDONLY as u32,
            mode: 0,
        }));
        t.calls.push(call(Op::Read {
            file: 0,
            offset: None,
            size: 832,
        }));
        t.calls.push(call(Op::Open {
            path: 1,
            flags: libc::O_RDONLY as u32,
            mode: 0,
        }));
        t.calls.push(call(Op::Open {
            path: 2,
            flags: (libc::O_WRONLY | libc::O_CREAT) as u32,
            mode: 0o644,
        }));
        let mut failed = call(Op::Open {
            path: 3,
            flags: libc::O_RDONLY as u32,
            mode: 0,
        });
        failed.result = -(libc::ENOENT as i64);
        t.calls.push(failed);
        let mut inside = call(Op::Stat {
            target: Target::Path(0),
            nofollow: false,
        });
        inside.outside = false;
        t.calls.push(inside);
        let stamp = Stamp {
            kind: FileKind::File,
            size: 100,
            mtime_ns: 1,
        };
        t.outside_files = vec![
            OutsideFile {
                path: 0,
                found: Some(Identity {
                    name: stamp,
                    leads_to: None,
                }),
            },
            OutsideFile {
                path: 3,
                found: None,
            },
        ];
        let n = count(&t);
        assert_eq!(
            n,
            OutsideCalls {
                calls: 5,
                read_only: 3,
                kernels: 1,
                changing: 1,
                files: 2,
                found: 1,
            }
        );
    }

    #[test]
    fn only_read_only_calls_on_files_still_as_recorded_and_plain_are_replayable() {
        let d = tempfile::tempdir().unwrap();
        let abs = |n: &str| d.path().join(n).into_os_string().into_encoded_bytes();
        std::fs::write(d.path().join("same"), b"0123").unwrap();
        std::fs::write(d.path().join("changed"), b"0123").unwrap();
        let fifo = std::ffi::CString::new(abs("fifo")).unwrap();
        // SAFETY: a NUL-terminated path alive for the call.
        #[allow(unsafe_code)]
        let made = unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) };
        assert_eq!(made, 0);
        let mut t = Trace {
            paths: vec![
                abs("same"),
                abs("changed"),
                abs("fifo"),
                abs("absent"),
                b"/proc/self/maps".to_vec(),
                b"inside".to_vec(),
            ],
            ..Trace::default()
        };
        for p in 0..4u32 {
            let path = as_path(&t.paths[p as usize]).to_path_buf();
            t.outside_files.push(OutsideFile {
                path: p,
                found: identity_of(&path),
            });
        }
        std::fs::write(d.path().join("changed"), b"01").unwrap();
        let read_only = libc::O_RDONLY as u32;
        for path in 0..5 {
            t.calls.push(call(Op::Open {
                path,
                flags: read_only,
                mode: 0,
            }));
        }
        // 5: a write-open of a recorded file; 6: a read on the first open; 7: one under the root.
        t.calls.push(call(Op::Open {
            path: 1,
            flags: libc::O_WRONLY as u32,
            mode: 0,
        }));
        t.calls.push(call(Op::Read {
            file: 0,
            offset: None,
            size: 4,
        }));
        let mut inside = call(Op::Stat {
            target: Target::Path(5),
            nofollow: false,
        });
        inside.outside = false;
        t.calls.push(inside);
        // The open of the absent path failed, as its stat (8); a later open of it succeeded
        // (9): something made it meanwhile.
        t.calls[3].result = -i64::from(libc::ENOENT);
        let mut stat = call(Op::Stat {
            target: Target::Path(3),
            nofollow: false,
        });
        stat.result = -i64::from(libc::ENOENT);
        t.calls.push(stat);
        t.calls.push(call(Op::Open {
            path: 3,
            flags: read_only,
            mode: 0,
        }));
        assert_eq!(
            replayable(&t),
            [
                true, false, false, true, false, false, true, true, true, false
            ],
            "same, changed, FIFO, still absent, /proc, write-open, read of same, inside, \
             failed stat of the absent, successful open of the absent"
        );
        // A file the program also writes: none of its calls is made.
        let mut by_program = t.clone();
        by_program.calls.push(call(Op::Open {
            path: 0,
            flags: (libc::O_WRONLY | libc::O_APPEND) as u32,
            mode: 0,
        }));
        let r = replayable(&by_program);
        assert!(!r[0] && !r[6], "{r:?}");
    }
}
