//! `rand-read`: `bs`-sized reads at seeded random aligned offsets of one file (fio
//! `rw=randread`), on the random-I/O engine of [`super::rand_io`].

use super::rand_io::{PARAMS, build};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::params::{ParamError, Params};

/// Registry entry of `rand-read`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "rand-read",
    summary: "random reads of bs at aligned offsets of one file (fio randread; psync QD1 or io_uring iodepth)",
    params: PARAMS,
    build: build_read,
    shared: true,
};

pub(super) fn build_read(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, false)
}
