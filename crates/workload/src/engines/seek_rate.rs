//! `seek-rate`: back-to-back random reads for a duration (ioping -R), on the random-I/O engine
//! of [`super::rand_io`]: requests per second.

use super::rand_io::{RandIo, RandSpec, Stop};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::params::{ParamDoc, ParamError, Params};
use fsbench_io::file::DataPattern;
use fsbench_io::pace::Pace;
use fsbench_io::passes::FsyncPolicy;
use fsbench_io::queue::{Jobs, Queue};

/// Registry entry of `seek-rate`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seek-rate",
    summary: "back-to-back random reads for a duration (ioping -R): requests per second",
    params: SEEK_PARAMS,
    build: build_seek,
    shared: true,
};

const SEEK_PARAMS: &[ParamDoc] = &[
    ParamDoc {
        key: "file",
        default: "",
        help: "read this existing file instead of one fsbench writes (never modified)",
    },
    ParamDoc {
        key: "bs",
        default: "4k",
        help: "size of each read",
    },
    ParamDoc {
        key: "size",
        default: "64m",
        help: "working set: offsets fall in 0..size",
    },
    ParamDoc {
        key: "duration",
        default: "3s",
        help: "length of each sample",
    },
    ParamDoc {
        key: "direct",
        default: "auto",
        help: "O_DIRECT: true, false or auto (when supported)",
    },
    ParamDoc {
        key: "seed",
        default: "42",
        help: "seed of offsets and data",
    },
];

pub(super) fn build_seek(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = p.raw().contains_key("bs");
    let bs = p.positive_size("bs", "4k")?;
    let size = p.positive_size("size", "64m")?;
    let bs = crate::knobs::io::fit_bs(p, bs_given, bs, size)?;
    let duration = p.positive_duration("duration", "3s")?;
    let direct = crate::knobs::io::direct_param(p, "auto")?;
    crate::knobs::io::check_direct_bs(direct, bs)?;
    let seed = p.u64("seed", "42")?;
    let file = crate::knobs::io::file_param(p)?;
    let spec = RandSpec {
        write: false,
        bs,
        stop: Stop::Duration(duration),
        direct,
        fsync: FsyncPolicy::None,
        pattern: DataPattern::Random,
        queue: Queue::PSYNC,
        pace: Pace::FULL_SPEED,
        verify: false,
        dist: fsbench_io::skew::Dist::Uniform,
    };
    let jobs = Jobs {
        count: 1,
        file_per_job: true,
    };
    Ok(Box::new(RandIo::new(file, size, seed, spec, jobs)))
}
