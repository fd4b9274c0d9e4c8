//! `rand-write`: `bs`-sized writes at seeded random aligned offsets of one file (fio
//! `rw=randwrite`), on the random-I/O engine of [`super::rand_io`].

use super::rand_io::{PARAMS, build};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::params::{ParamError, Params};

/// Registry entry of `rand-write`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "rand-write",
    summary: "random writes of bs at aligned offsets of one file (fio randwrite; psync QD1 or io_uring iodepth)",
    params: PARAMS,
    build: build_write,
    shared: true,
};

pub(super) fn build_write(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, true)
}
