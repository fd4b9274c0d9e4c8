//! The data-path parameters shared by the file workloads: `bs`, `size`, `direct`, `fsync`,
//! `file`, `seed`, `data` and `dedupe`, `interleave`, and the checks that pair them.

use crate::knob::{self, Knob};
use crate::params::{ParamError, Params, PathKind, Scale};
use fsbench_io::file::DataPattern;
use fsbench_io::passes::{Direct, FsyncPolicy};
use fsbench_io::queue::{Engine, Jobs, Queue};
use fsbench_model::param;

/// `bs`: the size of each request.
pub const BS: Knob<u64> = knob::size("bs", "1m", "block size of each request");

/// `size`: the bytes a sample moves (or the file it works in).
pub const SIZE: Knob<u64> =
    knob::size("size", "256m", "bytes moved per sample").scaled(Scale::Bytes);

/// `seed`: the seed of everything random a workload does (data, offsets, trees).
pub const SEED: Knob<u64> = knob::number("seed", "42", "seed of the random data and choices");

/// `direct`: O_DIRECT.
pub const DIRECT: Knob<Direct> = Knob::new(
    param::DIRECT,
    "false",
    "O_DIRECT: true, false or auto (when supported)",
    |p, k, d| {
        Ok(match p.choice(k, &["true", "false", "auto"], d)? {
            "true" => Direct::On,
            "auto" => Direct::Auto,
            _ => Direct::Off,
        })
    },
);

/// `fsync`: when written data is flushed.
pub const FSYNC: Knob<FsyncPolicy> = Knob::new(
    param::FSYNC,
    "end",
    "end (one fdatasync, timed), each (after every write) or none",
    |p, k, d| {
        Ok(match p.choice(k, &["end", "each", "none"], d)? {
            "each" => FsyncPolicy::Each,
            "none" => FsyncPolicy::None,
            _ => FsyncPolicy::End,
        })
    },
);

/// `file`: an existing regular file to read instead of one fsbench creates (a FIFO or device
/// cannot be re-read for every sample).
pub const FILE: Knob<Option<std::path::PathBuf>> = Knob::new(
    "file",
    "",
    "read this existing file instead of one fsbench writes (never modified)",
    |p, k, _| p.existing_path(k, PathKind::File),
);

/// `data`: what written blocks hold.
pub const DATA: Knob<String> = knob::text(
    "data",
    "random",
    "random (incompressible), zero, or compress:PCT (that % of each 4 KiB compresses away, fio buffer_compress_percentage)",
);

/// `dedupe`: the share of written blocks identical to each other.
pub const DEDUPE: Knob<u64> = knob::number(
    "dedupe",
    "0",
    "percent of written blocks identical to each other (fio dedupe_percentage; seeded by block number)",
);

/// `interleave`: parts sharing one file take turns block by block.
pub const INTERLEAVE: Knob<bool> = knob::boolean(
    "interleave",
    "false",
    "parts sharing one file (jobs with file-per-job=false, ranks with --layout shared) take turns block by block instead of each taking a region (IOR's strided shared file, IO500 ior-hard); psync or mmap",
);

/// The block size to use: a `bs` given larger than the file it reads or writes is refused; the
/// default `bs` is lowered to `size` (and recorded so) when the file is smaller.
pub fn fit_bs(p: &mut Params, bs_given: bool, bs: u64, size: u64) -> Result<u64, ParamError> {
    if bs > size && !bs_given {
        BS.record(p, fsbench_model::units::format_size(size));
        return Ok(size);
    }
    if bs > size {
        return Err(BS.error(format!(
            "{} is larger than size ({}): give a larger size or a smaller bs",
            fsbench_model::units::format_size(bs),
            fsbench_model::units::format_size(size)
        )));
    }
    Ok(bs)
}

/// Reads the `data` parameter.
pub fn data_param(p: &mut Params) -> Result<DataPattern, ParamError> {
    let data = DATA.read(p)?;
    // Recorded only when given, so results from before the key existed stay comparable.
    let dedupe = DEDUPE.read_if_given(p)?.unwrap_or(0);
    if dedupe > 100 {
        return Err(DEDUPE.error(format!("{dedupe} is not a percentage: give 0 to 100")));
    }
    let compress = match data.split_once(':') {
        None if data == "random" => 0,
        None if data == "zero" && dedupe == 0 => return Ok(DataPattern::Zero),
        Some(("compress", pct)) => pct
            .trim()
            .trim_end_matches('%')
            .parse::<u64>()
            .ok()
            .filter(|&p| p <= 100)
            .ok_or_else(|| {
                DATA.error(format!(
                    "compress:{pct}: give a percentage 0 to 100, e.g. compress:50"
                ))
            })?,
        _ if data == "zero" => {
            return Err(
                DEDUPE.error("zero data is all duplicates already; drop dedupe or use data=random")
            );
        }
        _ => {
            return Err(DATA.error(format!(
                "invalid value '{data}': use random, zero or compress:PCT"
            )));
        }
    };
    if compress == 0 && dedupe == 0 {
        return Ok(DataPattern::Random);
    }
    Ok(DataPattern::Mixed {
        compress_pct: compress as u8,
        dedupe_pct: dedupe as u8,
    })
}

/// Checks that `bs` suits O_DIRECT (a multiple of 512).
pub fn check_direct_bs(direct: Direct, bs: u64) -> Result<(), ParamError> {
    if direct != Direct::Off && bs % 512 != 0 {
        return Err(BS.error(format!(
            "{bs} is not a multiple of 512, which direct I/O needs"
        )));
    }
    Ok(())
}

/// Reads `interleave` (recorded only when given); refused with io_uring.
pub fn interleave_param(p: &mut Params, queue: Queue) -> Result<bool, ParamError> {
    let on = INTERLEAVE.read_if_given(p)?.unwrap_or(false);
    if on && queue.engine == Engine::IoUring {
        return Err(
            INTERLEAVE.error("takes turns block by block with psync or mmap — use engine=psync")
        );
    }
    Ok(on)
}

/// Refuses a shared file with more jobs than blocks (a job with nothing to do).
pub fn check_regions(size: u64, bs: u64, jobs: Jobs) -> Result<(), ParamError> {
    let blocks = size.div_ceil(bs);
    if !jobs.file_per_job && u64::from(jobs.count) > blocks {
        return Err(crate::knobs::queue::JOBS.error(format!(
            "{} jobs cannot share {blocks} blocks of bs: give a larger size, a smaller bs \
             or file-per-job=true",
            jobs.count
        )));
    }
    Ok(())
}

/// Refuses `fsync=each` with io_uring (requests in flight have no order to flush between).
pub fn check_fsync_engine(fsync: FsyncPolicy, queue: Queue) -> Result<(), ParamError> {
    if fsync == FsyncPolicy::Each && queue.engine == Engine::IoUring {
        return Err(
            FSYNC.error("fsync=each needs engine=psync; with io_uring use fsync=end or none")
        );
    }
    Ok(())
}
