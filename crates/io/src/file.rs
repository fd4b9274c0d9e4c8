//! Low-level helpers shared by the data-path workloads: aligned buffers, seeded incompressible
//! data, full-length positional reads and writes, O_DIRECT opening and the file a workload uses.
//!
//! These are written by hand rather than taken from a crate because they sit inside the measured
//! loops: one `pread`/`pwrite` per operation, no allocation, no locking.

use crate::{Context, Target, WorkloadError};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// Alignment of I/O buffers: enough for O_DIRECT on every common device (4 KiB sectors).
pub const ALIGN: usize = 4096;

/// A heap buffer whose start is aligned to [`ALIGN`], as O_DIRECT requires.
pub struct AlignedBuf {
    storage: Vec<u8>,
    offset: usize,
    len: usize,
}

impl AlignedBuf {
    /// A zeroed buffer of `len` bytes.
    pub fn new(len: usize) -> Self {
        let storage = vec![0u8; len + ALIGN];
        let offset = storage.as_ptr().align_offset(ALIGN);
        Self {
            storage,
            offset,
            len,
        }
    }

    /// The aligned bytes.
    #[inline]
    pub fn as_slice(&self) -> &[u8] {
        &self.storage[self.offset..self.offset + self.len]
    }

    /// The aligned bytes, writable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.storage[self.offset..self.offset + self.len]
    }
}

/// xoshiro256** seeded through splitmix64: a fast generator whose stream is fixed forever, so a
/// seed names the same offsets and data in every fsbench version (the `rand` crate makes no such
/// promise for its default generators).
#[derive(Debug, Clone)]
pub struct Rng {
    s: [u64; 4],
}

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Self {
            s: [next(), next(), next(), next()],
        }
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let result = self.s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = self.s[1] << 17;
        self.s[2] ^= self.s[0];
        self.s[3] ^= self.s[1];
        self.s[1] ^= self.s[2];
        self.s[0] ^= self.s[3];
        self.s[2] ^= t;
        self.s[3] = self.s[3].rotate_left(45);
        result
    }

    /// A uniform number in `0..n` (n > 0), by Lemire's multiply-shift (bias < 2^-32 for the
    /// block counts used here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
}

/// What written data looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataPattern {
    /// Seeded random bytes: incompressible; each block is stamped so it does not dedupe.
    Random,
    /// All zeros (dd `if=/dev/zero`): compressible and sparse-friendly.
    Zero,
    /// As fio's `buffer_compress_percentage` and `dedupe_percentage`: in every 4 KiB, the
    /// first `100 − compress_pct`% random and the rest zeros; `dedupe_pct`% of the blocks
    /// (chosen by block number, seeded) identical to each other, the others unique.
    Mixed {
        /// Share of each 4 KiB that compresses away, percent.
        compress_pct: u8,
        /// Share of blocks that are duplicates, percent.
        dedupe_pct: u8,
    },
}

/// Bytes of each compressible unit of [`DataPattern::Mixed`] (fio's `buffer_compress_chunk`).
const COMPRESS_CHUNK: usize = 4096;

impl DataPattern {
    /// Parses the `data` parameter value (`random` or `zero`).
    pub fn from_name(name: &str) -> Self {
        if name == "zero" {
            Self::Zero
        } else {
            Self::Random
        }
    }

    /// Fills `buf` for this pattern.
    pub fn fill(self, buf: &mut [u8], seed: u64) {
        match self {
            Self::Zero => buf.fill(0),
            Self::Random => random_fill(buf, seed),
            Self::Mixed { compress_pct, .. } => {
                random_fill(buf, seed);
                let keep = COMPRESS_CHUNK * (100 - usize::from(compress_pct)) / 100;
                for chunk in buf.chunks_mut(COMPRESS_CHUNK) {
                    let from = keep.min(chunk.len());
                    chunk[from..].fill(0);
                }
            }
        }
    }

    /// Makes block number `block` of a random buffer unique (8 bytes per 4 KiB, like fio's
    /// scramble_buffers): cheap, and defeats deduplication without regenerating the buffer.
    #[inline]
    pub fn stamp(self, buf: &mut [u8], block: u64) {
        let block = match self {
            Self::Zero => return,
            Self::Random => block,
            // A duplicate block carries one tag shared by every duplicate.
            Self::Mixed { dedupe_pct, .. } if is_duplicate(block, dedupe_pct) => u64::MAX,
            Self::Mixed { .. } => block,
        };
        {
            let tag = (block.wrapping_mul(0x9E37_79B9_7F4A_7C15)).to_le_bytes();
            for page in buf.chunks_mut(4096) {
                if page.len() >= 8 {
                    page[..8].copy_from_slice(&tag);
                }
            }
        }
    }
}

/// Seeded random bytes.
fn random_fill(buf: &mut [u8], seed: u64) {
    let mut rng = Rng::new(seed);
    for chunk in buf.chunks_mut(8) {
        let v = rng.next_u64().to_le_bytes();
        chunk.copy_from_slice(&v[..chunk.len()]);
    }
}

/// Whether block `block` is one of the `pct`% duplicates (a fixed hash of its number, so the
/// same blocks are duplicates in every run).
#[inline]
fn is_duplicate(block: u64, pct: u8) -> bool {
    pct > 0 && (block.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> 32) % 100 < u64::from(pct)
}

/// Opens a data file for reading, with O_DIRECT when `direct`. A file inside the scratch is
/// opened relative to its directory without following any symlink (see [`open_beneath`]).
pub fn open_read(file: &DataFile, direct: bool) -> Result<File, WorkloadError> {
    let mut flags = libc::O_RDONLY;
    if direct {
        flags |= libc::O_DIRECT;
    }
    open_data(file, flags).map_err(|e| open_error(&file.path, direct, e))
}

/// Opens a data file for writing (created and truncated when `truncate`; a file fsbench did not
/// make is never created or truncated), with O_DIRECT when `direct`.
pub fn open_write(file: &DataFile, direct: bool, truncate: bool) -> Result<File, WorkloadError> {
    let mut flags = libc::O_RDWR;
    if truncate && !file.external {
        flags |= libc::O_CREAT | libc::O_TRUNC;
    }
    if direct {
        flags |= libc::O_DIRECT;
    }
    open_data(file, flags).map_err(|e| open_error(&file.path, direct, e))
}

fn open_data(file: &DataFile, flags: i32) -> std::io::Result<File> {
    if file.external {
        let mut o = OpenOptions::new();
        o.read(true).write(flags & libc::O_RDWR != 0);
        o.custom_flags(flags & libc::O_DIRECT);
        return o.open(&file.path);
    }
    let (dir, name) = match (file.path.parent(), file.path.file_name()) {
        (Some(d), Some(n)) => (d, Path::new(n)),
        _ => return Err(std::io::Error::from_raw_os_error(libc::EINVAL)),
    };
    open_beneath(dir, name, flags)
}

/// Opens `rel` below the directory `dir` (which fsbench made) without following any symlink on
/// the way, with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it (5.6)
/// and a single-component `openat(O_NOFOLLOW)` otherwise. A symlink planted in place of a
/// workload's file between samples makes this fail with ELOOP instead of writing through it.
pub fn open_beneath(dir: &Path, rel: &Path, flags: i32) -> std::io::Result<File> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let oflags = OFlags::from_bits_retain(flags as u32) | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    // openat2 refuses a mode without O_CREAT.
    let mode = if oflags.contains(OFlags::CREATE) {
        Mode::from_bits_truncate(0o644)
    } else {
        Mode::empty()
    };
    let no_links = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    // Data files are opened inside samples: one syscall when the whole (canonical) path has no
    // symlink at all. A symlink anywhere (a planted one, or one in a non-canonical target path)
    // and kernels without openat2 take the directory-relative path below, which decides.
    if dir.is_absolute() {
        match rustix::fs::openat2(rustix::fs::CWD, dir.join(rel), oflags, mode, no_links) {
            Ok(fd) => return Ok(File::from(fd)),
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOSYS | rustix::io::Errno::PERM) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let d = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let fd = match rustix::fs::openat2(&d, rel, oflags, mode, ResolveFlags::BENEATH | no_links) {
        Err(rustix::io::Errno::NOSYS) | Err(rustix::io::Errno::PERM)
            if rel.components().count() == 1 =>
        {
            rustix::fs::openat(&d, rel, oflags, mode)?
        }
        r => r?,
    };
    Ok(File::from(fd))
}

fn open_error(path: &Path, direct: bool, e: std::io::Error) -> WorkloadError {
    if direct && e.raw_os_error() == Some(libc::EINVAL) {
        WorkloadError::Unsupported(format!(
            "direct I/O (O_DIRECT) is not supported by the filesystem of {} — use direct=false",
            path.display()
        ))
    } else if e.raw_os_error() == Some(libc::ELOOP) || e.raw_os_error() == Some(libc::EXDEV) {
        WorkloadError::io(
            "open (a symlink or mount was planted in the scratch; refusing to follow it)",
            path,
            e,
        )
    } else {
        WorkloadError::io("open", path, e)
    }
}

/// Reads exactly `buf.len()` bytes at `offset` (looping on short reads); returns the bytes read,
/// fewer only at end of file.
#[inline]
pub fn pread_full(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

/// Writes all of `buf` at `offset` (looping on short writes).
#[inline]
pub fn pwrite_full(file: &File, buf: &[u8], offset: u64) -> std::io::Result<()> {
    file.write_all_at(buf, offset)
}

/// Flushes file data to stable storage (fdatasync).
pub fn sync_data(file: &File, path: &Path) -> Result<(), WorkloadError> {
    file.sync_data()
        .map_err(|e| WorkloadError::io("fdatasync", path, e))
}

/// The file a data-path workload works on: a file in its scratch directory, an existing file the
/// user named (`file=PATH`, only ever read), or a device.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// Path of the file or device.
    pub path: PathBuf,
    /// Usable size in bytes (the requested size, capped at the device size).
    pub size: u64,
    /// True when fsbench did not create it (a block device or a user's file): it is never created,
    /// truncated or written unless explicitly allowed.
    pub external: bool,
}

impl DataFile {
    /// Resolves the data file `name` of `size` bytes for `ctx`; for a device, refuses writes
    /// unless the device was explicitly allowed.
    pub fn resolve(
        ctx: &Context,
        name: &str,
        size: u64,
        write: bool,
    ) -> Result<Self, WorkloadError> {
        match &ctx.target {
            Target::Dir(d) => Ok(Self {
                path: d.join(name),
                size,
                external: false,
            }),
            Target::Device {
                path,
                size: dev_size,
                writable,
            } => {
                if write && !writable {
                    return Err(WorkloadError::Unsupported(format!(
                        "refusing to write to block device {} — pass --allow-destroy={} to destroy its data",
                        path.display(),
                        path.display()
                    )));
                }
                Ok(Self {
                    path: path.clone(),
                    size: size.min(*dev_size),
                    external: true,
                })
            }
        }
    }
}

impl DataFile {
    /// An existing file named by the user, read only; `size` is capped at its length.
    pub fn existing(path: &Path, size: u64) -> Result<Self, WorkloadError> {
        let meta = std::fs::metadata(path).map_err(|e| WorkloadError::io("stat", path, e))?;
        if !meta.is_file() {
            return Err(WorkloadError::Invalid(format!(
                "file={} is not a regular file",
                path.display()
            )));
        }
        if meta.len() == 0 {
            return Err(WorkloadError::Invalid(format!(
                "file={} is empty",
                path.display()
            )));
        }
        Ok(Self {
            path: path.to_path_buf(),
            size: size.min(meta.len()),
            external: true,
        })
    }
}

/// Creates (or reuses, when it already has the right size) a file of `size` bytes of `pattern`
/// data, written in 1 MiB blocks and synced: the unmeasured set-up of read workloads.
pub fn ensure_file(
    ctx: &Context,
    file: &DataFile,
    pattern: DataPattern,
    seed: u64,
) -> Result<(), WorkloadError> {
    if file.external {
        return Ok(());
    }
    if std::fs::metadata(&file.path)
        .map(|m| m.len() == file.size)
        .unwrap_or(false)
    {
        return Ok(());
    }
    fill(ctx, file, 0..file.size, true, pattern, seed)
}

/// Writes `range` of `file` with the pattern (its blocks stamped by absolute offset, as
/// [`ensure_file`] does), without truncating: each MPI rank fills its own segment of one shared
/// file. A file named by the user or a device is left alone.
pub fn ensure_segment(
    ctx: &Context,
    file: &DataFile,
    range: std::ops::Range<u64>,
    pattern: DataPattern,
    seed: u64,
) -> Result<(), WorkloadError> {
    if file.external {
        return Ok(());
    }
    fill(ctx, file, range, false, pattern, seed)
}

fn fill(
    ctx: &Context,
    file: &DataFile,
    range: std::ops::Range<u64>,
    truncate: bool,
    pattern: DataPattern,
    seed: u64,
) -> Result<(), WorkloadError> {
    let f = if truncate {
        open_write(file, false, true)?
    } else {
        open_data(file, libc::O_RDWR | libc::O_CREAT)
            .map_err(|e| open_error(&file.path, false, e))?
    };
    let mut buf = AlignedBuf::new(1 << 20);
    pattern.fill(buf.as_mut_slice(), seed);
    let mut off = range.start;
    while off < range.end {
        ctx.cancel.check()?;
        let n = (range.end - off).min(buf.as_slice().len() as u64) as usize;
        pattern.stamp(buf.as_mut_slice(), off / (1 << 20));
        pwrite_full(&f, &buf.as_slice()[..n], off)
            .map_err(|e| WorkloadError::io("write", &file.path, e))?;
        off += n as u64;
    }
    sync_data(&f, &file.path)
}

/// How often (in operations) hot loops check the cancel token.
pub const CANCEL_EVERY: u64 = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressible_and_duplicate_blocks_come_in_the_asked_shares() {
        let p = DataPattern::Mixed {
            compress_pct: 75,
            dedupe_pct: 30,
        };
        let mut buf = vec![1u8; 8192];
        p.fill(&mut buf, 3);
        let zeros = buf.iter().filter(|&&b| b == 0).count();
        assert!((6100..6200).contains(&zeros), "{zeros} zero bytes of 8192");
        let blocks: Vec<Vec<u8>> = (0..1000)
            .map(|k| {
                let mut b = buf.clone();
                p.stamp(&mut b, k);
                b
            })
            .collect();
        let mut dup = buf.clone();
        p.stamp(&mut dup, u64::MAX);
        let dups = blocks.iter().filter(|b| **b == dup).count();
        assert!((250..350).contains(&dups), "{dups} duplicates of 1000");
    }

    #[test]
    fn aligned_buffer_is_aligned() {
        for len in [1, 4096, 1 << 20] {
            let b = AlignedBuf::new(len);
            assert_eq!(b.as_slice().as_ptr() as usize % ALIGN, 0);
            assert_eq!(b.as_slice().len(), len);
        }
    }

    #[test]
    fn rng_is_deterministic_and_below_is_in_range() {
        let mut a = Rng::new(42);
        let mut b = Rng::new(42);
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(7) < 7);
            b.below(7);
        }
        assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());
    }

    #[test]
    fn random_data_is_not_trivially_compressible_and_stamps_differ() {
        let mut buf = vec![0u8; 8192];
        DataPattern::Random.fill(&mut buf, 7);
        let zeros = buf.iter().filter(|&&b| b == 0).count();
        assert!(zeros < 100, "{zeros} zero bytes");
        let mut other = buf.clone();
        DataPattern::Random.stamp(&mut buf, 1);
        DataPattern::Random.stamp(&mut other, 2);
        assert_ne!(buf, other);
    }
}
