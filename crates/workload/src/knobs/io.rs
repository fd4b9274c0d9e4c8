//! The data-path parameters shared by the file workloads: `direct`, `fsync`, `file`, `bs`
//! against `size`, `data` and `dedupe`, `interleave`, and the checks that pair them.

use crate::params::{ParamDoc, ParamError, Params, PathKind};
use fsbench_io::file::DataPattern;
use fsbench_io::passes::{Direct, FsyncPolicy};
use fsbench_io::queue::{Engine, Jobs, Queue};

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
    p.existing_path("file", PathKind::File)
}

/// The block size to use: a `bs` given larger than the file it reads or writes is refused; the
/// default `bs` is lowered to `size` (and recorded so) when the file is smaller.
pub fn fit_bs(p: &mut Params, bs_given: bool, bs: u64, size: u64) -> Result<u64, ParamError> {
    if bs > size && !bs_given {
        p.record("bs", fsbench_model::units::format_size(size));
        return Ok(size);
    }
    if bs > size {
        return Err(ParamError {
            key: "bs".into(),
            message: format!(
                "{} is larger than size ({}): give a larger size or a smaller bs",
                fsbench_model::units::format_size(bs),
                fsbench_model::units::format_size(size)
            ),
        });
    }
    Ok(bs)
}

/// Reads the `data` parameter.
pub fn data_param(p: &mut Params) -> Result<DataPattern, ParamError> {
    let data = p.string("data", "random");
    // Recorded only when given, so results from before the key existed stay comparable.
    let dedupe = match p.raw().contains_key("dedupe") {
        true => p.u64("dedupe", "0")?,
        false => 0,
    };
    let err = |key: &str, message: String| ParamError {
        key: key.into(),
        message,
    };
    if dedupe > 100 {
        return Err(err(
            "dedupe",
            format!("{dedupe} is not a percentage: give 0 to 100"),
        ));
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
                err(
                    "data",
                    format!("compress:{pct}: give a percentage 0 to 100, e.g. compress:50"),
                )
            })?,
        _ if data == "zero" => {
            return Err(err(
                "dedupe",
                "zero data is all duplicates already; drop dedupe or use data=random".into(),
            ));
        }
        _ => {
            return Err(err(
                "data",
                format!("invalid value '{data}': use random, zero or compress:PCT"),
            ));
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

/// Documentation of `dedupe`.
pub const DEDUPE_DOC: ParamDoc = ParamDoc {
    key: "dedupe",
    default: "0",
    help: "percent of written blocks identical to each other (fio dedupe_percentage; seeded by block number)",
};

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

/// Documentation of `interleave`.
pub const INTERLEAVE_DOC: ParamDoc = ParamDoc {
    key: "interleave",
    default: "false",
    help: "parts sharing one file (jobs with file-per-job=false, ranks with --layout shared) take turns block by block instead of each taking a region (IOR's strided shared file, IO500 ior-hard); psync or mmap",
};

/// Reads `interleave` (recorded only when given); refused with io_uring.
pub fn interleave_param(p: &mut Params, queue: Queue) -> Result<bool, ParamError> {
    let on = p.raw().contains_key("interleave") && p.bool("interleave", "false")?;
    if on && queue.engine == Engine::IoUring {
        return Err(ParamError {
            key: "interleave".into(),
            message: "takes turns block by block with psync or mmap — use engine=psync".into(),
        });
    }
    Ok(on)
}

/// Refuses a shared file with more jobs than blocks (a job with nothing to do).
pub fn check_regions(size: u64, bs: u64, jobs: Jobs) -> Result<(), ParamError> {
    let blocks = size.div_ceil(bs);
    if !jobs.file_per_job && u64::from(jobs.count) > blocks {
        return Err(ParamError {
            key: "jobs".into(),
            message: format!(
                "{} jobs cannot share {blocks} blocks of bs: give a larger size, a smaller bs \
                 or file-per-job=true",
                jobs.count
            ),
        });
    }
    Ok(())
}

/// Refuses `fsync=each` with io_uring (requests in flight have no order to flush between).
pub fn check_fsync_engine(fsync: FsyncPolicy, queue: Queue) -> Result<(), ParamError> {
    if fsync == FsyncPolicy::Each && queue.engine == Engine::IoUring {
        return Err(ParamError {
            key: "fsync".into(),
            message: "fsync=each needs engine=psync; with io_uring use fsync=end or none".into(),
        });
    }
    Ok(())
}
