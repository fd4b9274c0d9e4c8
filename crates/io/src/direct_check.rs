//! Direct I/O you can trust. `open(O_DIRECT)` succeeding proves nothing: ext4 with an fscrypt
//! policy (without inline encryption hardware), tmpfs and some FUSE filesystems accept the flag
//! and serve the I/O from the page cache, which once made an encrypted directory look 55 times
//! faster than a plain one. Before a workload uses direct I/O on a target, this module asks the
//! kernel (`statx(STATX_DIOALIGN)`, Linux 6.1: whether and with what alignment O_DIRECT works on
//! that file) and then proves it: a probe file next to the data file is written and read with
//! O_DIRECT and must not enter the page cache (`mincore`). `direct=auto` resolves to buffered
//! I/O with the reason recorded; `direct=true` on such a target is an error naming the reason.

use crate::WorkloadError;
use crate::file::{self, AlignedBuf, DataFile};
use crate::passes::Direct;
use fsbench_sys::residency;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// Bytes the probe writes and reads back: four 4 KiB pages (or four alignment units).
const PROBE_BLOCKS: u64 = 4;

/// Why direct I/O cannot be had (or verified) on a file: said in `direct=auto`'s note and in
/// `direct=true`'s refusal.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NoDirect {
    /// The data file's path has no parent directory to probe in.
    #[error("the data file has no directory")]
    NoDirectory,
    /// statx says the file takes no direct I/O.
    #[error(
        "the kernel reports that this file does not support direct I/O \
         (statx DIOALIGN is 0: e.g. fscrypt without inline encryption)"
    )]
    KernelSaysNo,
    /// The kernel wants buffers aligned more than fsbench aligns them.
    #[error("buffers must be aligned to {needed} bytes, more than fsbench's {ours}")]
    BufferAlignment {
        /// The kernel's memory alignment.
        needed: u32,
        /// fsbench's buffer alignment.
        ours: usize,
    },
    /// The block size is not a multiple of the file's direct I/O alignment.
    #[error("bs={bs} is not a multiple of the direct I/O alignment ({unit} bytes) of this file")]
    BlockAlignment {
        /// The block size asked for.
        bs: u64,
        /// The alignment.
        unit: u64,
    },
    /// open(O_DIRECT) gave EINVAL.
    #[error("the filesystem refuses O_DIRECT (EINVAL)")]
    Refused,
    /// A call of the probe failed.
    #[error("{what}: {source}")]
    Io {
        /// What failed (`an O_DIRECT read failed`).
        what: &'static str,
        /// The OS error.
        source: std::io::Error,
    },
    /// The user's file could not be opened for direct reads.
    #[error("{0}")]
    Open(Box<WorkloadError>),
    /// The probe's pages were cached: the direct I/O was buffered underneath.
    #[error(
        "O_DIRECT {what} went through the page cache ({resident} of {total} probe pages cached): \
         the filesystem or a layer under it (fscrypt, FUSE, tmpfs) falls back to buffered I/O"
    )]
    Cached {
        /// `reads` or `writes`.
        what: &'static str,
        /// Probe pages found cached.
        resident: u64,
        /// Probe pages.
        total: u64,
    },
    /// The page cache could not be inspected.
    #[error("cannot verify direct I/O here (the file cannot be mapped to check the page cache)")]
    Unverifiable,
    /// The file's cached pages stayed: a direct read could not be told from a cached one.
    #[error(
        "cannot verify direct I/O: the file's cached pages cannot be evicted (another process keeps them mapped or locked)"
    )]
    Pinned,
}

fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> NoDirect {
    move |source| NoDirect::Io { what, source }
}

/// The outcome of resolving a `direct` parameter on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Open with O_DIRECT.
    pub direct: Direct,
    /// Why direct I/O is not used when it was asked for (`direct=auto`), for the result.
    pub note: Option<String>,
}

/// Resolves `want` for `file` read or written in `bs` blocks: `Off` stays off; `On` and `Auto`
/// become `On` only when the kernel reports and the probe proves real direct I/O.
pub fn resolve(file: &DataFile, want: Direct, bs: u64) -> Result<Resolved, WorkloadError> {
    if want == Direct::Off {
        return Ok(Resolved {
            direct: Direct::Off,
            note: None,
        });
    }
    match check(file, bs) {
        Ok(()) => Ok(Resolved {
            direct: Direct::On,
            note: None,
        }),
        Err(reason) if want == Direct::Auto => Ok(Resolved {
            direct: Direct::Off,
            note: Some(format!("direct=auto used buffered I/O: {reason}")),
        }),
        Err(reason) => Err(WorkloadError::Unsupported(format!(
            "direct=true cannot be honoured on {}: {reason} — use direct=auto or direct=false",
            file.path.display()
        ))),
    }
}

/// [`resolve`] in place: `direct` becomes the resolved choice and `note` its reason, what every
/// data workload's `prepare` does.
pub fn settle(
    file: &DataFile,
    direct: &mut Direct,
    bs: u64,
    note: &mut Option<String>,
) -> Result<(), WorkloadError> {
    let r = resolve(file, *direct, bs)?;
    *direct = r.direct;
    *note = r.note;
    Ok(())
}

/// Ok when O_DIRECT on `file` in `bs` blocks is real; otherwise the reason in words.
pub fn check(file: &DataFile, bs: u64) -> Result<(), NoDirect> {
    if file.external {
        return check_external(file, bs);
    }
    let (dir, name) = match (file.path.parent(), file.path.file_name()) {
        (Some(d), Some(n)) => (d, n.to_string_lossy().into_owned()),
        _ => return Err(NoDirect::NoDirectory),
    };
    // The pid keeps MPI ranks probing next to one shared file out of each other's way.
    let probe = Path::new(&format!(".dio-probe-{}", std::process::id())).with_extension(name);
    let result = probe_in(dir, &probe, bs);
    let _ = std::fs::remove_file(dir.join(&probe));
    result
}

/// The kernel's word on direct I/O for an open file: Ok(offset alignment) when supported,
/// Err(reason) when it says no, Ok(None) when it does not say (older kernels, some filesystems).
fn kernel_alignment(f: &std::fs::File) -> Result<Option<u64>, NoDirect> {
    use rustix::fs::{AtFlags, StatxFlags};
    let Ok(st) = rustix::fs::statx(f, "", AtFlags::EMPTY_PATH, StatxFlags::DIOALIGN) else {
        return Ok(None);
    };
    if st.stx_mask & StatxFlags::DIOALIGN.bits() == 0 {
        return Ok(None);
    }
    if st.stx_dio_mem_align == 0 || st.stx_dio_offset_align == 0 {
        return Err(NoDirect::KernelSaysNo);
    }
    if file::ALIGN as u32 % st.stx_dio_mem_align != 0 {
        return Err(NoDirect::BufferAlignment {
            needed: st.stx_dio_mem_align,
            ours: file::ALIGN,
        });
    }
    Ok(Some(u64::from(st.stx_dio_offset_align)))
}

fn check_bs(bs: u64, align: Option<u64>) -> Result<u64, NoDirect> {
    let unit = align.unwrap_or(512).max(512);
    if bs % unit != 0 {
        return Err(NoDirect::BlockAlignment { bs, unit });
    }
    Ok(unit.max(4096))
}

/// Writes and reads a probe file with O_DIRECT; its pages must stay out of the page cache.
fn probe_in(dir: &Path, probe: &Path, bs: u64) -> Result<(), NoDirect> {
    let created = file::open_beneath(dir, probe, libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC)
        .map_err(io("cannot create a probe file"))?;
    let align = kernel_alignment(&created)?;
    let unit = check_bs(bs, align)?;
    drop(created);
    let f = file::open_beneath(dir, probe, libc::O_RDWR | libc::O_DIRECT).map_err(|e| {
        if e.raw_os_error() == Some(libc::EINVAL) {
            NoDirect::Refused
        } else {
            io("cannot open a probe file with O_DIRECT")(e)
        }
    })?;
    let len = unit * PROBE_BLOCKS;
    let mut buf = AlignedBuf::new(len as usize);
    buf.as_mut_slice().fill(0x5a);
    f.write_all_at(buf.as_slice(), 0)
        .map_err(io("an O_DIRECT write failed"))?;
    f.sync_data().map_err(io("fdatasync failed"))?;
    stayed_uncached(&f, len, "writes")?;
    f.read_exact_at(buf.as_mut_slice(), 0)
        .map_err(io("an O_DIRECT read failed"))?;
    stayed_uncached(&f, len, "reads")
}

/// Err when any of the first `len` bytes' pages are resident after direct `what`.
fn stayed_uncached(f: &std::fs::File, len: u64, what: &'static str) -> Result<(), NoDirect> {
    match residency::pages(f, 0, len) {
        Some((0, _)) => Ok(()),
        Some((resident, total)) => Err(NoDirect::Cached {
            what,
            resident,
            total,
        }),
        None => Err(NoDirect::Unverifiable),
    }
}

/// A user's file or a device: only read. The kernel's answer, an O_DIRECT open, and for regular
/// files a read of the first blocks after evicting them, which must not bring them back.
fn check_external(file: &DataFile, bs: u64) -> Result<(), NoDirect> {
    let plain = std::fs::File::open(&file.path).map_err(io("cannot open"))?;
    let align = kernel_alignment(&plain)?;
    let unit = check_bs(bs, align)?;
    let f = file::open_read(file, true).map_err(|e| NoDirect::Open(Box::new(e)))?;
    let is_file = plain.metadata().map(|m| m.is_file()).unwrap_or(false);
    if !is_file {
        return Ok(()); // A block device: O_DIRECT there always bypasses the cache.
    }
    let len = (unit * PROBE_BLOCKS).min(file.size / unit * unit);
    if len == 0 {
        return Ok(());
    }
    evict(&plain, len)?;
    let mut buf = AlignedBuf::new(len as usize);
    f.read_exact_at(buf.as_mut_slice(), 0)
        .map_err(io("an O_DIRECT read failed"))?;
    stayed_uncached(&plain, len, "reads")
}

/// Drops the cached pages of a user's file so that the first `len` bytes are not resident, as
/// the check needs (the file's content is unchanged: only clean pages leave the cache). The
/// whole file is advised, not just the range: the page cache keeps large folios (ext4 here), and
/// a folio is dropped whole or not at all, so a 16 KiB range inside a 2 MiB folio stays. Pages
/// still dirty are written back first (`fdatasync`, which writes what is there, never changes
/// it).
fn evict(plain: &std::fs::File, len: u64) -> Result<(), NoDirect> {
    let drop_all = || rustix::fs::fadvise(plain, 0, None, rustix::fs::Advice::DontNeed);
    let resident = || residency::pages(plain, 0, len).is_some_and(|(r, _)| r > 0);
    let _ = drop_all();
    if resident() {
        let _ = plain.sync_data();
        let _ = drop_all();
    }
    match resident() {
        true => Err(NoDirect::Pinned),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_file(dir: &Path) -> DataFile {
        DataFile {
            path: dir.join("data.dat"),
            size: 1 << 20,
            external: false,
        }
    }

    /// On the test machine's temp directory: either real direct I/O (disk) or a refusal with a
    /// reason (tmpfs); never a silent "yes" on a filesystem that caches.
    #[test]
    fn auto_resolves_with_a_reason_and_leaves_no_probe() {
        let d = tempfile::tempdir().unwrap();
        let f = scratch_file(d.path());
        let r = resolve(&f, Direct::Auto, 4096).unwrap();
        match r.direct {
            Direct::On => assert!(r.note.is_none()),
            _ => assert!(
                r.note.as_deref().unwrap_or("").contains("buffered"),
                "{r:?}"
            ),
        }
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            0,
            "probe left"
        );
        let off = resolve(&f, Direct::Off, 4096).unwrap();
        assert_eq!(off.direct, Direct::Off);
    }

    #[test]
    #[cfg_attr(not(fsbench_dev_shm), ignore = "needs /dev/shm (tmpfs)")]
    fn tmpfs_direct_is_refused_for_true_and_buffered_for_auto() {
        let shm = Path::new("/dev/shm");
        let d = tempfile::tempdir_in(shm).unwrap();
        let f = scratch_file(d.path());
        let e = resolve(&f, Direct::On, 4096).unwrap_err();
        assert!(
            e.to_string().contains("direct=true cannot be honoured"),
            "{e}"
        );
        let r = resolve(&f, Direct::Auto, 4096).unwrap();
        assert_eq!(r.direct, Direct::Off);
    }

    #[test]
    fn misaligned_block_sizes_are_named() {
        assert!(check_bs(4096, Some(4096)).is_ok());
        let e = check_bs(1024, Some(4096)).unwrap_err();
        assert!(e.to_string().contains("4096"), "{e}");
        assert!(check_bs(512, None).is_ok());
    }
}
