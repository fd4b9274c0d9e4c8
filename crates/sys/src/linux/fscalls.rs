//! The filesystem calls a recording follows, as this architecture numbers them, and their
//! arguments decoded from the raw words a tracer sees ([`crate::tracer`]). Paths are still
//! addresses in the traced task's memory here: the recorder reads them.

/// What a traced call is, with the arguments that matter to a replay. `dir` is the directory
/// descriptor a relative path is taken from (`AT_FDCWD` for the current directory); `path`,
/// `old`, `new` and `target` are addresses of NUL-terminated strings in the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsCall {
    /// open, openat, creat, openat2 (its `how.flags`, read by the caller when `how` is set).
    Open {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// Open flags (`O_*`); for openat2, 0 and `how` set.
        flags: u64,
        /// Mode for a new file.
        mode: u32,
        /// openat2's `struct open_how` address.
        how: Option<u64>,
    },
    /// close.
    Close {
        /// Descriptor.
        fd: i32,
    },
    /// read, pread64, readv, preadv, preadv2.
    Read {
        /// Descriptor.
        fd: i32,
        /// Bytes asked for (for a vector read, the `iovec` array's address and count follow).
        size: u64,
        /// Position for a positioned read.
        offset: Option<u64>,
        /// `(iovec address, count)` of a vector read.
        iov: Option<(u64, u64)>,
    },
    /// write, pwrite64, writev, pwritev, pwritev2.
    Write {
        /// Descriptor.
        fd: i32,
        /// Bytes given.
        size: u64,
        /// Position for a positioned write.
        offset: Option<u64>,
        /// `(iovec address, count)` of a vector write.
        iov: Option<(u64, u64)>,
    },
    /// lseek.
    Seek {
        /// Descriptor.
        fd: i32,
        /// Offset.
        offset: i64,
        /// `SEEK_*`.
        whence: i32,
    },
    /// fsync (`data_only` false), fdatasync (true).
    Sync {
        /// Descriptor.
        fd: i32,
        /// fdatasync.
        data_only: bool,
    },
    /// sync_file_range.
    SyncRange {
        /// Descriptor.
        fd: i32,
        /// Start.
        offset: u64,
        /// Length.
        len: u64,
    },
    /// truncate (`fd` None) or ftruncate.
    Truncate {
        /// Path address of truncate.
        path: Option<u64>,
        /// Descriptor of ftruncate.
        fd: Option<i32>,
        /// New length.
        len: u64,
    },
    /// fallocate.
    Fallocate {
        /// Descriptor.
        fd: i32,
        /// `FALLOC_FL_*`.
        mode: i32,
        /// Start.
        offset: u64,
        /// Length.
        len: u64,
    },
    /// stat, lstat, newfstatat, statx; with an empty path and `AT_EMPTY_PATH`, of `dir` itself.
    Stat {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// Does not follow a final symlink.
        nofollow: bool,
        /// `AT_EMPTY_PATH` given.
        empty_path: bool,
    },
    /// fstat.
    Fstat {
        /// Descriptor.
        fd: i32,
    },
    /// access, faccessat, faccessat2.
    Access {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// `R_OK`, `W_OK`, `X_OK`, `F_OK`.
        mode: u32,
    },
    /// getdents64, getdents.
    Getdents {
        /// Descriptor.
        fd: i32,
        /// Buffer size.
        size: u64,
    },
    /// readlink, readlinkat.
    Readlink {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// Buffer size.
        size: u64,
    },
    /// mkdir, mkdirat.
    Mkdir {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// Mode.
        mode: u32,
    },
    /// unlink, unlinkat (`AT_REMOVEDIR`: `dir_too`), rmdir (`dir_too`).
    Unlink {
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
        /// Removes a directory.
        dir_too: bool,
    },
    /// rename, renameat, renameat2.
    Rename {
        /// Old directory descriptor.
        old_dir: i32,
        /// Old path address.
        old: u64,
        /// New directory descriptor.
        new_dir: i32,
        /// New path address.
        new: u64,
        /// `RENAME_*`.
        flags: u32,
    },
    /// link, linkat.
    Link {
        /// Old directory descriptor.
        old_dir: i32,
        /// Old path address.
        old: u64,
        /// New directory descriptor.
        new_dir: i32,
        /// New path address.
        new: u64,
    },
    /// symlink, symlinkat.
    Symlink {
        /// The link's contents (address).
        target: u64,
        /// Directory descriptor.
        dir: i32,
        /// Path address.
        path: u64,
    },
    /// chmod, fchmodat (path) or fchmod (`fd`).
    Chmod {
        /// Directory descriptor and path address, when by path.
        at: Option<(i32, u64)>,
        /// Descriptor, when by descriptor.
        fd: Option<i32>,
        /// Mode.
        mode: u32,
    },
    /// chown, lchown, fchownat (path) or fchown (`fd`).
    Chown {
        /// Directory descriptor and path address, when by path.
        at: Option<(i32, u64)>,
        /// Descriptor, when by descriptor.
        fd: Option<i32>,
    },
    /// utimensat (a null path: of `dir` itself).
    Utimens {
        /// Directory descriptor.
        dir: i32,
        /// Path address (0: `dir` itself).
        path: u64,
    },
    /// chdir (path) or fchdir (`fd`).
    Chdir {
        /// Path address, when by path.
        path: Option<u64>,
        /// Descriptor, when by descriptor.
        fd: Option<i32>,
    },
    /// mmap of a file.
    Mmap {
        /// Descriptor (negative: anonymous, not a file).
        fd: i32,
        /// Offset in the file.
        offset: u64,
        /// Length mapped.
        len: u64,
        /// `PROT_*`.
        prot: u32,
        /// `MAP_*`.
        flags: u32,
    },
    /// dup, dup2, dup3, fcntl(F_DUPFD, F_DUPFD_CLOEXEC): `new` is the result unless given.
    Dup {
        /// Descriptor copied.
        old: i32,
        /// Descriptor asked for (dup2, dup3).
        new: Option<i32>,
    },
    /// fcntl with any other command: not recorded.
    Fcntl,
}

/// Every call number [`decode`] knows, for the tracer's filter.
pub fn traced() -> Vec<i64> {
    TABLE.iter().map(|&(nr, _)| nr).collect()
}

/// The system calls by name, as [`TABLE`] maps their numbers.
#[derive(Debug, Clone, Copy)]
enum Nr {
    Open,
    Openat,
    Openat2,
    Creat,
    Close,
    Read,
    Pread,
    Readv,
    Preadv,
    Preadv2,
    Write,
    Pwrite,
    Writev,
    Pwritev,
    Pwritev2,
    Lseek,
    Fsync,
    Fdatasync,
    SyncFileRange,
    Truncate,
    Ftruncate,
    Fallocate,
    StatPath,
    Lstat,
    Fstat,
    Newfstatat,
    Statx,
    Access,
    Faccessat,
    Faccessat2,
    Getdents64,
    Getdents,
    Readlink,
    Readlinkat,
    Mkdir,
    Mkdirat,
    Rmdir,
    Unlink,
    Unlinkat,
    Rename,
    Renameat,
    Renameat2,
    Link,
    Linkat,
    Symlink,
    Symlinkat,
    Chmod,
    Fchmod,
    Fchmodat,
    Chown,
    Lchown,
    Fchown,
    Fchownat,
    Utimensat,
    Chdir,
    Fchdir,
    Mmap,
    Dup,
    Dup2,
    Dup3,
    Fcntl,
}

/// The calls both architectures have.
const COMMON: &[(i64, Nr)] = &[
    (libc::SYS_openat, Nr::Openat),
    (libc::SYS_openat2, Nr::Openat2),
    (libc::SYS_close, Nr::Close),
    (libc::SYS_read, Nr::Read),
    (libc::SYS_pread64, Nr::Pread),
    (libc::SYS_readv, Nr::Readv),
    (libc::SYS_preadv, Nr::Preadv),
    (libc::SYS_preadv2, Nr::Preadv2),
    (libc::SYS_write, Nr::Write),
    (libc::SYS_pwrite64, Nr::Pwrite),
    (libc::SYS_writev, Nr::Writev),
    (libc::SYS_pwritev, Nr::Pwritev),
    (libc::SYS_pwritev2, Nr::Pwritev2),
    (libc::SYS_lseek, Nr::Lseek),
    (libc::SYS_fsync, Nr::Fsync),
    (libc::SYS_fdatasync, Nr::Fdatasync),
    (libc::SYS_sync_file_range, Nr::SyncFileRange),
    (libc::SYS_truncate, Nr::Truncate),
    (libc::SYS_ftruncate, Nr::Ftruncate),
    (libc::SYS_fallocate, Nr::Fallocate),
    (libc::SYS_fstat, Nr::Fstat),
    (libc::SYS_newfstatat, Nr::Newfstatat),
    (libc::SYS_statx, Nr::Statx),
    (libc::SYS_faccessat, Nr::Faccessat),
    (libc::SYS_faccessat2, Nr::Faccessat2),
    (libc::SYS_getdents64, Nr::Getdents64),
    (libc::SYS_readlinkat, Nr::Readlinkat),
    (libc::SYS_mkdirat, Nr::Mkdirat),
    (libc::SYS_unlinkat, Nr::Unlinkat),
    (libc::SYS_renameat, Nr::Renameat),
    (libc::SYS_renameat2, Nr::Renameat2),
    (libc::SYS_linkat, Nr::Linkat),
    (libc::SYS_symlinkat, Nr::Symlinkat),
    (libc::SYS_fchmod, Nr::Fchmod),
    (libc::SYS_fchmodat, Nr::Fchmodat),
    (libc::SYS_fchown, Nr::Fchown),
    (libc::SYS_fchownat, Nr::Fchownat),
    (libc::SYS_utimensat, Nr::Utimensat),
    (libc::SYS_chdir, Nr::Chdir),
    (libc::SYS_fchdir, Nr::Fchdir),
    (libc::SYS_mmap, Nr::Mmap),
    (libc::SYS_dup, Nr::Dup),
    (libc::SYS_dup3, Nr::Dup3),
    (libc::SYS_fcntl, Nr::Fcntl),
];

/// The older calls only x86-64 has (aarch64 has their `*at` forms only).
#[cfg(target_arch = "x86_64")]
const LEGACY: &[(i64, Nr)] = &[
    (libc::SYS_open, Nr::Open),
    (libc::SYS_creat, Nr::Creat),
    (libc::SYS_stat, Nr::StatPath),
    (libc::SYS_lstat, Nr::Lstat),
    (libc::SYS_access, Nr::Access),
    (libc::SYS_getdents, Nr::Getdents),
    (libc::SYS_readlink, Nr::Readlink),
    (libc::SYS_mkdir, Nr::Mkdir),
    (libc::SYS_rmdir, Nr::Rmdir),
    (libc::SYS_unlink, Nr::Unlink),
    (libc::SYS_rename, Nr::Rename),
    (libc::SYS_link, Nr::Link),
    (libc::SYS_symlink, Nr::Symlink),
    (libc::SYS_chmod, Nr::Chmod),
    (libc::SYS_chown, Nr::Chown),
    (libc::SYS_lchown, Nr::Lchown),
    (libc::SYS_dup2, Nr::Dup2),
];
#[cfg(not(target_arch = "x86_64"))]
const LEGACY: &[(i64, Nr)] = &[];

static TABLE: std::sync::LazyLock<Vec<(i64, Nr)>> =
    std::sync::LazyLock::new(|| COMMON.iter().chain(LEGACY).copied().collect());

fn nr_of(nr: i64) -> Option<Nr> {
    TABLE.iter().find(|&&(n, _)| n == nr).map(|&(_, k)| k)
}

const CWD: i32 = libc::AT_FDCWD;

/// `nr` with raw arguments `a` as a filesystem call; `None` for a call not followed.
pub fn decode(nr: i64, a: [u64; 6]) -> Option<FsCall> {
    let k = nr_of(nr)?;
    data_call(k, &a)
        .or_else(|| name_call(k, &a))
        .or_else(|| attr_call(k, &a))
}

/// Opening, moving data through and syncing an open file, mapping it, copying its descriptor.
fn data_call(k: Nr, a: &[u64; 6]) -> Option<FsCall> {
    let fd = |i: usize| a[i] as i32;
    let rw = |pos: Option<usize>, vec: bool| {
        let offset = pos.map(|i| a[i]);
        if vec {
            (0, offset, Some((a[1], a[2])))
        } else {
            (a[2], offset, None)
        }
    };
    Some(match k {
        Nr::Open => open(CWD, a[0], a[1], a[2]),
        Nr::Openat => open(fd(0), a[1], a[2], a[3]),
        Nr::Creat => open(
            CWD,
            a[0],
            (libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC) as u64,
            a[1],
        ),
        Nr::Openat2 => FsCall::Open {
            dir: fd(0),
            path: a[1],
            flags: 0,
            mode: 0,
            how: Some(a[2]),
        },
        Nr::Close => FsCall::Close { fd: fd(0) },
        Nr::Read | Nr::Pread | Nr::Readv | Nr::Preadv | Nr::Preadv2 => {
            let vec = matches!(k, Nr::Readv | Nr::Preadv | Nr::Preadv2);
            let pos = match k {
                Nr::Pread => Some(3),
                Nr::Preadv | Nr::Preadv2 if a[3] as i64 != -1 => Some(3),
                _ => None,
            };
            let (size, offset, iov) = rw(pos, vec);
            FsCall::Read {
                fd: fd(0),
                size,
                offset,
                iov,
            }
        }
        Nr::Write | Nr::Pwrite | Nr::Writev | Nr::Pwritev | Nr::Pwritev2 => {
            let vec = matches!(k, Nr::Writev | Nr::Pwritev | Nr::Pwritev2);
            let pos = match k {
                Nr::Pwrite => Some(3),
                Nr::Pwritev | Nr::Pwritev2 if a[3] as i64 != -1 => Some(3),
                _ => None,
            };
            let (size, offset, iov) = rw(pos, vec);
            FsCall::Write {
                fd: fd(0),
                size,
                offset,
                iov,
            }
        }
        Nr::Lseek => FsCall::Seek {
            fd: fd(0),
            offset: a[1] as i64,
            whence: a[2] as i32,
        },
        Nr::Fsync => FsCall::Sync {
            fd: fd(0),
            data_only: false,
        },
        Nr::Fdatasync => FsCall::Sync {
            fd: fd(0),
            data_only: true,
        },
        Nr::SyncFileRange => FsCall::SyncRange {
            fd: fd(0),
            offset: a[1],
            len: a[2],
        },
        Nr::Mmap => FsCall::Mmap {
            fd: fd(4),
            offset: a[5],
            len: a[1],
            prot: a[2] as u32,
            flags: a[3] as u32,
        },
        Nr::Dup => FsCall::Dup {
            old: fd(0),
            new: None,
        },
        Nr::Dup2 | Nr::Dup3 => FsCall::Dup {
            old: fd(0),
            new: Some(fd(1)),
        },
        Nr::Fcntl => match a[1] as i32 {
            libc::F_DUPFD | libc::F_DUPFD_CLOEXEC => FsCall::Dup {
                old: fd(0),
                new: None,
            },
            _ => FsCall::Fcntl,
        },
        _ => return None,
    })
}

/// Calls on names: stat, access, reading directories and links, making, removing and renaming.
fn name_call(k: Nr, a: &[u64; 6]) -> Option<FsCall> {
    let fd = |i: usize| a[i] as i32;
    Some(match k {
        Nr::StatPath => stat(CWD, a[0], 0),
        Nr::Lstat => stat(CWD, a[0], libc::AT_SYMLINK_NOFOLLOW as u64),
        Nr::Newfstatat => stat(fd(0), a[1], a[3]),
        Nr::Statx => stat(fd(0), a[1], a[2]),
        Nr::Fstat => FsCall::Fstat { fd: fd(0) },
        Nr::Access => FsCall::Access {
            dir: CWD,
            path: a[0],
            mode: a[1] as u32,
        },
        Nr::Faccessat | Nr::Faccessat2 => FsCall::Access {
            dir: fd(0),
            path: a[1],
            mode: a[2] as u32,
        },
        Nr::Getdents64 | Nr::Getdents => FsCall::Getdents {
            fd: fd(0),
            size: a[2],
        },
        Nr::Readlink => FsCall::Readlink {
            dir: CWD,
            path: a[0],
            size: a[2],
        },
        Nr::Readlinkat => FsCall::Readlink {
            dir: fd(0),
            path: a[1],
            size: a[3],
        },
        Nr::Mkdir => FsCall::Mkdir {
            dir: CWD,
            path: a[0],
            mode: a[1] as u32,
        },
        Nr::Mkdirat => FsCall::Mkdir {
            dir: fd(0),
            path: a[1],
            mode: a[2] as u32,
        },
        Nr::Rmdir => FsCall::Unlink {
            dir: CWD,
            path: a[0],
            dir_too: true,
        },
        Nr::Unlink => FsCall::Unlink {
            dir: CWD,
            path: a[0],
            dir_too: false,
        },
        Nr::Unlinkat => FsCall::Unlink {
            dir: fd(0),
            path: a[1],
            dir_too: a[2] as i32 & libc::AT_REMOVEDIR != 0,
        },
        Nr::Rename => rename(CWD, a[0], CWD, a[1], 0),
        Nr::Renameat => rename(fd(0), a[1], fd(2), a[3], 0),
        Nr::Renameat2 => rename(fd(0), a[1], fd(2), a[3], a[4]),
        Nr::Link => FsCall::Link {
            old_dir: CWD,
            old: a[0],
            new_dir: CWD,
            new: a[1],
        },
        Nr::Linkat => FsCall::Link {
            old_dir: fd(0),
            old: a[1],
            new_dir: fd(2),
            new: a[3],
        },
        Nr::Symlink => FsCall::Symlink {
            target: a[0],
            dir: CWD,
            path: a[1],
        },
        Nr::Symlinkat => FsCall::Symlink {
            target: a[0],
            dir: fd(1),
            path: a[2],
        },
        _ => return None,
    })
}

/// Changing a file's attributes (mode, owner, times, size, allocation), and the current
/// directory.
fn attr_call(k: Nr, a: &[u64; 6]) -> Option<FsCall> {
    let fd = |i: usize| a[i] as i32;
    let chmod_at = |dir: i32, path: u64, mode: u64| FsCall::Chmod {
        at: Some((dir, path)),
        fd: None,
        mode: mode as u32,
    };
    Some(match k {
        Nr::Chmod => chmod_at(CWD, a[0], a[1]),
        Nr::Fchmodat => chmod_at(fd(0), a[1], a[2]),
        Nr::Fchmod => FsCall::Chmod {
            at: None,
            fd: Some(fd(0)),
            mode: a[1] as u32,
        },
        Nr::Chown | Nr::Lchown => FsCall::Chown {
            at: Some((CWD, a[0])),
            fd: None,
        },
        Nr::Fchownat => FsCall::Chown {
            at: Some((fd(0), a[1])),
            fd: None,
        },
        Nr::Fchown => FsCall::Chown {
            at: None,
            fd: Some(fd(0)),
        },
        Nr::Utimensat => FsCall::Utimens {
            dir: fd(0),
            path: a[1],
        },
        Nr::Chdir => FsCall::Chdir {
            path: Some(a[0]),
            fd: None,
        },
        Nr::Fchdir => FsCall::Chdir {
            path: None,
            fd: Some(fd(0)),
        },
        Nr::Truncate => FsCall::Truncate {
            path: Some(a[0]),
            fd: None,
            len: a[1],
        },
        Nr::Ftruncate => FsCall::Truncate {
            path: None,
            fd: Some(fd(0)),
            len: a[1],
        },
        Nr::Fallocate => FsCall::Fallocate {
            fd: fd(0),
            mode: a[1] as i32,
            offset: a[2],
            len: a[3],
        },
        _ => return None,
    })
}

fn open(dir: i32, path: u64, flags: u64, mode: u64) -> FsCall {
    FsCall::Open {
        dir,
        path,
        flags,
        mode: mode as u32,
        how: None,
    }
}

fn stat(dir: i32, path: u64, flags: u64) -> FsCall {
    let flags = flags as i32;
    FsCall::Stat {
        dir,
        path,
        nofollow: flags & libc::AT_SYMLINK_NOFOLLOW != 0,
        empty_path: flags & libc::AT_EMPTY_PATH != 0,
    }
}

fn rename(old_dir: i32, old: u64, new_dir: i32, new: u64, flags: u64) -> FsCall {
    FsCall::Rename {
        old_dir,
        old,
        new_dir,
        new,
        flags: flags as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_number_is_decoded_and_none_twice() {
        let nrs = traced();
        let mut sorted = nrs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), nrs.len());
        for nr in nrs {
            assert!(decode(nr, [0; 6]).is_some(), "{nr}");
        }
        assert_eq!(decode(libc::SYS_getpid, [0; 6]), None);
    }

    #[test]
    fn an_openat_and_a_pread_keep_their_arguments() {
        let o = decode(
            libc::SYS_openat,
            [libc::AT_FDCWD as u64, 0x1000, 0o102, 0o644, 0, 0],
        );
        assert_eq!(
            o,
            Some(FsCall::Open {
                dir: libc::AT_FDCWD,
                path: 0x1000,
                flags: 0o102,
                mode: 0o644,
                how: None
            })
        );
        let r = decode(libc::SYS_pread64, [3, 0x2000, 4096, 8192, 0, 0]);
        assert_eq!(
            r,
            Some(FsCall::Read {
                fd: 3,
                size: 4096,
                offset: Some(8192),
                iov: None
            })
        );
        let f = decode(libc::SYS_fcntl, [3, libc::F_GETFL as u64, 0, 0, 0, 0]);
        assert_eq!(f, Some(FsCall::Fcntl));
    }
}
