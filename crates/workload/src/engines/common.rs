//! Pieces shared by the data-path engines: the common parameters (`direct`, `data`, `seed`,
//! `fsync`) and the sequential read and write passes that `seq-*` and `large-file` measure.

use crate::io::{self, AlignedBuf, DataFile, DataPattern, Rng};
use crate::params::{ParamError, Params};
use crate::{Context, Recorder, WorkloadError};
use std::fs::File;

/// When to flush written data to stable storage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsyncPolicy {
    /// One fdatasync after the last write (dd `conv=fdatasync`); counted in the sample's time.
    End,
    /// fdatasync after every write (counted in each operation's latency).
    Each,
    /// Never.
    None,
}

/// O_DIRECT choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// Buffered I/O through the page cache.
    Off,
    /// O_DIRECT; an error if the filesystem refuses it.
    On,
    /// O_DIRECT when the filesystem supports it, else buffered (recorded in `direct_used`).
    Auto,
}

/// Reads the `direct` parameter.
pub fn direct_param(p: &mut Params, default: &str) -> Result<Direct, ParamError> {
    Ok(
        match p.choice("direct", &["true", "false", "auto"], default)? {
            "true" => Direct::On,
            "auto" => Direct::Auto,
            _ => Direct::Off,
        },
    )
}

/// Reads the `fsync` parameter.
pub fn fsync_param(p: &mut Params, default: &str) -> Result<FsyncPolicy, ParamError> {
    Ok(
        match p.choice("fsync", &["end", "each", "none"], default)? {
            "each" => FsyncPolicy::Each,
            "none" => FsyncPolicy::None,
            _ => FsyncPolicy::End,
        },
    )
}

/// Reads the optional `file` parameter: an existing regular file to read instead of one fsbench
/// creates (a FIFO or device cannot be re-read for every sample).
pub fn file_param(p: &mut Params) -> Result<Option<std::path::PathBuf>, ParamError> {
    p.existing_path("file", crate::PathKind::File)
}

/// The block size to use: a `bs` given larger than the file it reads or writes is refused; the
/// default `bs` is lowered to `size` (and recorded so) when the file is smaller.
pub fn fit_bs(p: &mut Params, bs_given: bool, bs: u64, size: u64) -> Result<u64, ParamError> {
    if bs > size && !bs_given {
        p.record("bs", crate::units::format_size(size));
        return Ok(size);
    }
    if bs > size {
        return Err(ParamError {
            key: "bs".into(),
            message: format!(
                "{} is larger than size ({}): give a larger size or a smaller bs",
                crate::units::format_size(bs),
                crate::units::format_size(size)
            ),
        });
    }
    Ok(bs)
}

/// The data file of a read workload: the user's `file`, else `name` in the scratch (or the device).
pub fn read_file(
    ctx: &Context,
    user: Option<&std::path::Path>,
    name: &str,
    size: u64,
) -> Result<DataFile, WorkloadError> {
    match user {
        Some(path) => DataFile::existing(path, size),
        None => DataFile::resolve(ctx, name, size, false),
    }
}

/// Reads the `data` parameter.
pub fn data_param(p: &mut Params) -> Result<DataPattern, ParamError> {
    Ok(DataPattern::from_name(p.choice(
        "data",
        &["random", "zero"],
        "random",
    )?))
}

/// Checks that `bs` suits O_DIRECT (a multiple of 512).
pub fn check_direct_bs(direct: Direct, bs: u64) -> Result<(), ParamError> {
    if direct != Direct::Off && bs % 512 != 0 {
        return Err(ParamError {
            key: "bs".into(),
            message: format!("{bs} is not a multiple of 512, which direct I/O needs"),
        });
    }
    Ok(())
}

/// Opens for reading with the direct policy; returns the file and whether O_DIRECT is in use.
pub fn open_read(file: &DataFile, direct: Direct) -> Result<(File, bool), WorkloadError> {
    match direct {
        Direct::Off => Ok((io::open_read(file, false)?, false)),
        Direct::On => Ok((io::open_read(file, true)?, true)),
        Direct::Auto => match io::open_read(file, true) {
            Ok(f) => Ok((f, true)),
            Err(WorkloadError::Unsupported(_)) => Ok((io::open_read(file, false)?, false)),
            Err(e) => Err(e),
        },
    }
}

/// Opens for writing with the direct policy; returns the file and whether O_DIRECT is in use.
pub fn open_write(
    file: &DataFile,
    direct: Direct,
    truncate: bool,
) -> Result<(File, bool), WorkloadError> {
    let truncate = truncate && !file.external;
    match direct {
        Direct::Off => Ok((io::open_write(file, false, truncate)?, false)),
        Direct::On => Ok((io::open_write(file, true, truncate)?, true)),
        Direct::Auto => match io::open_write(file, true, truncate) {
            Ok(f) => Ok((f, true)),
            Err(WorkloadError::Unsupported(_)) => {
                Ok((io::open_write(file, false, truncate)?, false))
            }
            Err(e) => Err(e),
        },
    }
}

/// Settings of one sequential write pass.
#[derive(Debug, Clone, Copy)]
pub struct WritePass {
    /// Block size of each write.
    pub bs: u64,
    /// Direct policy.
    pub direct: Direct,
    /// Flush policy.
    pub fsync: FsyncPolicy,
    /// Data written.
    pub pattern: DataPattern,
    /// Data seed.
    pub seed: u64,
}

/// Writes `file.size` bytes sequentially in `bs` blocks (the last one may be short), recording
/// each write; the final fdatasync (policy `end`) is reported as phase `fsync`.
pub fn write_pass(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    w: &WritePass,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_write(file, w.direct, true)?;
    rec.metric("direct_used", if used_direct { 1.0 } else { 0.0 });
    let mut buf = AlignedBuf::new(w.bs as usize);
    w.pattern.fill(buf.as_mut_slice(), w.seed);
    let mut off = 0u64;
    let mut block = 0u64;
    let mut t = rec.now_ns();
    while off < file.size {
        if block % io::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        let n = (file.size - off).min(w.bs) as usize;
        w.pattern.stamp(buf.as_mut_slice(), block);
        io::pwrite_full(&f, &buf.as_slice()[..n], off)
            .map_err(|e| WorkloadError::io("write", &file.path, e))?;
        if w.fsync == FsyncPolicy::Each {
            io::sync_data(&f, &file.path)?;
        }
        t = rec.op_done(t, n as u64);
        off += n as u64;
        block += 1;
    }
    if w.fsync == FsyncPolicy::End {
        io::sync_data(&f, &file.path)?;
        let end = rec.now_ns();
        rec.phase("fsync", end - t);
    }
    Ok(())
}

/// Reads `file.size` bytes sequentially in `bs` blocks, recording each read.
pub fn read_pass(
    ctx: &Context,
    rec: &mut dyn Recorder,
    file: &DataFile,
    bs: u64,
    direct: Direct,
) -> Result<(), WorkloadError> {
    let (f, used_direct) = open_read(file, direct)?;
    rec.metric("direct_used", if used_direct { 1.0 } else { 0.0 });
    let mut buf = AlignedBuf::new(bs as usize);
    let mut off = 0u64;
    let mut block = 0u64;
    let mut t = rec.now_ns();
    while off < file.size {
        if block % io::CANCEL_EVERY == 0 {
            ctx.cancel.check()?;
        }
        let want = (file.size - off).min(bs) as usize;
        let n = io::pread_full(&f, &mut buf.as_mut_slice()[..want], off)
            .map_err(|e| WorkloadError::io("read", &file.path, e))?;
        t = rec.op_done(t, n as u64);
        if n < want {
            break;
        }
        off += n as u64;
        block += 1;
    }
    Ok(())
}

/// Random block offsets in `0..size`, aligned to `bs`, from a seeded stream that continues
/// across samples (sample k of a seed is the same in every run).
#[derive(Debug, Clone)]
pub struct Offsets {
    rng: Rng,
    blocks: u64,
    bs: u64,
}

impl Offsets {
    /// Offsets of `bs`-sized blocks within `size` bytes.
    pub fn new(seed: u64, size: u64, bs: u64) -> Self {
        Self {
            rng: Rng::new(seed),
            blocks: (size / bs).max(1),
            bs,
        }
    }

    /// The next offset.
    #[inline]
    pub fn next_offset(&mut self) -> u64 {
        self.rng.below(self.blocks) * self.bs
    }
}
