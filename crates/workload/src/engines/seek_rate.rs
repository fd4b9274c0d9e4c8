//! `seek-rate`: back-to-back random reads for a duration (ioping -R), on the random-I/O engine
//! of [`super::rand_io`]: requests per second.

use super::rand_io::{RandIo, RandSpec, Stop};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::knobs::io;
use crate::params::{ParamDoc, ParamError, Params};
use fsbench_io::file::DataPattern;
use fsbench_io::pace::Pace;
use fsbench_io::passes::{Direct, FsyncPolicy};
use fsbench_io::queue::{Jobs, Queue};

/// Registry entry of `seek-rate`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "seek-rate",
    summary: "back-to-back random reads for a duration (ioping -R): requests per second",
    params: SEEK_PARAMS,
    build: build_seek,
    shared: true,
};

const BS: Knob<u64> = io::BS.default_to("4k").help_as("size of each read");
const SIZE: Knob<u64> = io::SIZE
    .default_to("64m")
    .help_as("working set: offsets fall in 0..size");
const DURATION: Knob<u64> =
    crate::knob::duration(super::rand_io::DURATION.key, "3s", "length of each sample")
        .scaled(crate::Scale::Duration);
const DIRECT: Knob<Direct> = io::DIRECT.default_to("auto");

const SEEK_PARAMS: &[ParamDoc] = &[
    io::FILE.doc(),
    BS.doc(),
    SIZE.doc(),
    DURATION.doc(),
    DIRECT.doc(),
    io::SEED.help_as("seed of offsets and data").doc(),
];

pub(super) fn build_seek(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let bs_given = BS.given(p);
    let bs = BS.read(p)?;
    let size = SIZE.read(p)?;
    let bs = io::fit_bs(p, bs_given, bs, size)?;
    let duration = DURATION.read(p)?;
    let direct = DIRECT.read(p)?;
    io::check_direct_bs(direct, bs)?;
    let seed = io::SEED.read(p)?;
    let file = io::FILE.read(p)?;
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
