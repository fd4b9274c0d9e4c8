//! `tar-extract`: extract a tarball into the scratch (GNU tar `xf`), on the engine of
//! [`super::tar_io`].

use super::tar_io::{PARAMS, build};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::params::{ParamError, Params};

/// Registry entry of `tar-extract`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "tar-extract",
    summary: "extract a tarball (archive=FILE or a synthetic csail one) into the scratch",
    params: PARAMS,
    build: build_extract,
    shared: false,
};

pub(super) fn build_extract(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, false)
}
