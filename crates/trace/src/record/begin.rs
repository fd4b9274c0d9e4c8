//! What a call will be, read at its entry (its paths resolved and their start state read, its
//! descriptor tied to its open): the recorder's half that reads the traced task.

use super::{Effect, Opened, Pending, Place, Recorder, inside_rel, iov_bytes};
use crate::model::{Op, Target};
use fsbench_sys::fscalls::FsCall;
use fsbench_sys::tracer::Tracee;

/// A call with no descriptor bookkeeping to do at its exit.
fn plain(op: Op, outside: bool) -> Pending {
    Pending {
        op,
        outside,
        effect: Effect::None,
    }
}

impl Recorder {
    /// What the call will be; `None` when it is not recorded.
    pub(super) fn begin(&mut self, t: &Tracee, call: FsCall) -> Option<Pending> {
        use FsCall as F;
        match call {
            F::Close { .. }
            | F::Read { .. }
            | F::Write { .. }
            | F::Seek { .. }
            | F::Sync { .. }
            | F::SyncRange { .. }
            | F::Fallocate { .. }
            | F::Fstat { .. }
            | F::Getdents { .. }
            | F::Mmap { .. }
            | F::Dup { .. }
            | F::Fcntl => self.on_descriptor(t, call),
            F::Open { .. }
            | F::Mkdir { .. }
            | F::Rename { .. }
            | F::Link { .. }
            | F::Symlink { .. } => self.making(t, call),
            _ => self.on_name(t, call),
        }
    }

    /// The open file behind descriptor `fd`; one that is none (a pipe, a socket, a terminal,
    /// inherited) is counted.
    fn on_file(&mut self, t: &Tracee, fd: i32) -> Option<Opened> {
        let o = self.opened(t, fd);
        if o.is_none() {
            self.trace.not_files += 1;
        }
        o
    }

    /// Calls on an open file.
    fn on_descriptor(&mut self, t: &Tracee, call: FsCall) -> Option<Pending> {
        use FsCall as F;
        match call {
            F::Close { fd } => {
                let o = self.opened(t, fd)?;
                let last = false;
                Some(Pending {
                    op: Op::Close { file: o.call, last },
                    outside: o.outside,
                    effect: Effect::Closed(fd),
                })
            }
            F::Read {
                fd,
                size,
                offset,
                iov,
            } => self.data(t, fd, size, offset, iov, false),
            F::Write {
                fd,
                size,
                offset,
                iov,
            } => self.data(t, fd, size, offset, iov, true),
            F::Seek { fd, offset, whence } => self.file_op(t, fd, |file| Op::Seek {
                file,
                offset,
                whence: whence as u8,
            }),
            F::Sync { fd, data_only } => self.file_op(t, fd, |file| Op::Sync { file, data_only }),
            F::SyncRange { fd, offset, len } => {
                self.file_op(t, fd, |file| Op::SyncRange { file, offset, len })
            }
            F::Fallocate {
                fd,
                mode,
                offset,
                len,
            } => self.file_op(t, fd, |file| Op::Fallocate {
                file,
                mode: mode as u32,
                offset,
                len,
            }),
            F::Fstat { fd } => self.file_op(t, fd, |file| Op::Stat {
                target: Target::File(file),
                nofollow: false,
            }),
            F::Getdents { fd, size } => {
                let o = self.on_file(t, fd)?;
                if !o.outside {
                    self.list(&o.path);
                }
                Some(plain(Op::Getdents { file: o.call, size }, o.outside))
            }
            F::Mmap {
                fd,
                offset,
                len,
                flags,
                ..
            } if fd >= 0 && flags as i32 & libc::MAP_ANONYMOUS == 0 => {
                self.file_op(t, fd, |file| Op::Mmap { file, offset, len })
            }
            // An anonymous mapping; a dup, bound at its exit ([`Recorder::dups`]); fcntl's other
            // commands: counted only.
            F::Mmap { .. } | F::Dup { .. } | F::Fcntl => {
                self.trace.followed_only += 1;
                None
            }
            _ => None,
        }
    }

    /// A call on the open file behind `fd`, made by `op` from that file's index.
    fn file_op(&mut self, t: &Tracee, fd: i32, op: impl FnOnce(u32) -> Op) -> Option<Pending> {
        let o = self.on_file(t, fd)?;
        Some(plain(op(o.call), o.outside))
    }

    /// Calls on a name (or, for some, a descriptor instead).
    fn on_name(&mut self, t: &Tracee, call: FsCall) -> Option<Pending> {
        use FsCall as F;
        Some(match call {
            F::Truncate { path, fd, len } => {
                let (target, outside) = self.target(t, libc::AT_FDCWD, path, fd)?;
                plain(Op::Truncate { target, len }, outside)
            }
            F::Stat {
                dir,
                path,
                nofollow,
                empty_path,
            } => {
                let name_empty = path == 0 || t.read_cstr(path).is_some_and(|n| n.is_empty());
                let (target, outside) = if empty_path && name_empty {
                    let o = self.on_file(t, dir)?;
                    (Target::File(o.call), o.outside)
                } else {
                    let place = self.resolve(t, dir, path, false)?;
                    let (p, outside) = self.path_arg(place);
                    (Target::Path(p), outside)
                };
                plain(Op::Stat { target, nofollow }, outside)
            }
            F::Access { dir, path, mode } => {
                let (path, outside) = self.path_of(t, dir, path)?;
                plain(Op::Access { path, mode }, outside)
            }
            F::Readlink { dir, path, .. } => {
                let (path, outside) = self.path_of(t, dir, path)?;
                plain(Op::Readlink { path }, outside)
            }
            F::Unlink { dir, path, dir_too } => {
                let (path, outside) = self.path_of(t, dir, path)?;
                let op = if dir_too {
                    Op::Rmdir { path }
                } else {
                    Op::Unlink { path }
                };
                plain(op, outside)
            }
            F::Chmod { at, fd, mode } => {
                let (dir, path) = at.unwrap_or((libc::AT_FDCWD, 0));
                let (target, outside) = self.target(t, dir, at.map(|_| path), fd)?;
                plain(Op::Chmod { target, mode }, outside)
            }
            F::Chown { at, fd } => {
                let (dir, path) = at.unwrap_or((libc::AT_FDCWD, 0));
                let (target, outside) = self.target(t, dir, at.map(|_| path), fd)?;
                plain(Op::Chown { target }, outside)
            }
            F::Utimens { dir, path } => {
                let (target, outside) = if path == 0 {
                    let o = self.on_file(t, dir)?;
                    (Target::File(o.call), o.outside)
                } else {
                    let (p, outside) = self.path_of(t, dir, path)?;
                    (Target::Path(p), outside)
                };
                plain(Op::Utimens { target }, outside)
            }
            F::Chdir { path, fd } => {
                let (target, outside) = self.target(t, libc::AT_FDCWD, path, fd)?;
                plain(Op::Chdir { target }, outside)
            }
            _ => return None,
        })
    }

    /// Calls that may make a name: open, mkdir, rename, link, symlink.
    fn making(&mut self, t: &Tracee, call: FsCall) -> Option<Pending> {
        use FsCall as F;
        Some(match call {
            F::Open {
                dir,
                path,
                flags,
                mode,
                how,
            } => self.open(t, (dir, path), flags, mode, how)?,
            F::Mkdir { dir, path, mode } => {
                let place = self.resolve(t, dir, path, false)?;
                let made = inside_rel(&place);
                let (path, outside) = self.path_arg(place);
                Pending {
                    op: Op::Mkdir { path, mode },
                    outside,
                    effect: made.map_or(Effect::None, |p| Effect::Made {
                        path: p,
                        from: None,
                    }),
                }
            }
            F::Rename {
                old_dir,
                old,
                new_dir,
                new,
                flags,
            } => {
                let from_place = self.resolve(t, old_dir, old, false)?;
                let to_place = self.resolve(t, new_dir, new, false)?;
                let (from_rel, to_rel) = (inside_rel(&from_place), inside_rel(&to_place));
                let (from, o1) = self.path_arg(from_place);
                let (to, o2) = self.path_arg(to_place);
                Pending {
                    op: Op::Rename { from, to, flags },
                    outside: o1 || o2,
                    effect: match to_rel {
                        Some(to) => Effect::Made {
                            path: to,
                            from: from_rel,
                        },
                        None => Effect::None,
                    },
                }
            }
            F::Link {
                old_dir,
                old,
                new_dir,
                new,
            } => {
                let (from, o1) = self.path_of(t, old_dir, old)?;
                let to_place = self.resolve(t, new_dir, new, false)?;
                let made = inside_rel(&to_place);
                let (to, o2) = self.path_arg(to_place);
                Pending {
                    op: Op::Link { from, to },
                    outside: o1 || o2,
                    effect: made.map_or(Effect::None, |p| Effect::Made {
                        path: p,
                        from: None,
                    }),
                }
            }
            F::Symlink { target, dir, path } => {
                let target = t.read_cstr(target)?;
                let place = self.resolve(t, dir, path, false)?;
                let made = inside_rel(&place);
                let (path, outside) = self.path_arg(place);
                Pending {
                    op: Op::Symlink { path, target },
                    outside,
                    effect: made.map_or(Effect::None, |p| Effect::Made {
                        path: p,
                        from: None,
                    }),
                }
            }
            _ => return None,
        })
    }

    /// A read or a write (vector ones by their `iovec`s' total).
    fn data(
        &mut self,
        t: &Tracee,
        fd: i32,
        size: u64,
        offset: Option<u64>,
        iov: Option<(u64, u64)>,
        write: bool,
    ) -> Option<Pending> {
        let o = self.on_file(t, fd)?;
        let size = iov.map_or(size, |(a, n)| iov_bytes(t, a, n));
        let file = o.call;
        let op = if write {
            Op::Write { file, offset, size }
        } else {
            Op::Read { file, offset, size }
        };
        Some(plain(op, o.outside))
    }

    /// An open: openat2's flags and mode are read from its `struct open_how`.
    fn open(
        &mut self,
        t: &Tracee,
        (dir, path): (i32, u64),
        flags: u64,
        mode: u32,
        how: Option<u64>,
    ) -> Option<Pending> {
        let (flags, mode) = match how {
            Some(h) => {
                let mut b = [0u8; 16];
                t.read_mem(h, &mut b)?;
                let f = u64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
                let m = u64::from_le_bytes(b[8..].try_into().expect("8 bytes"));
                (f, m as u32)
            }
            None => (flags, mode),
        };
        let place = self.resolve(t, dir, path, false)?;
        let shown = match &place {
            Place::Inside(p) | Place::Outside(p) => p.clone(),
        };
        let (path, outside) = self.path_arg(place);
        let creates = flags as i32 & libc::O_CREAT != 0;
        Some(Pending {
            op: Op::Open {
                path,
                flags: flags as u32,
                mode,
            },
            outside,
            effect: if creates && !outside {
                Effect::Made {
                    path: shown.clone(),
                    from: None,
                }
            } else {
                Effect::Opened {
                    outside,
                    path: shown,
                }
            },
        })
    }
}
