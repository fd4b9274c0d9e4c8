//! `tar-delete`: remove an extracted tarball's tree (`rm -rf`), on the engine of
//! [`super::tar_io`].

use super::tar_io::{PARAMS, build};
use crate::Workload;
use crate::info::WorkloadInfo;
use crate::params::{ParamError, Params};

/// Registry entry of `tar-delete`.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: "tar-delete",
    summary: "remove an extracted tarball's tree (rm -rf, never following symlinks)",
    params: PARAMS,
    build: build_delete,
    shared: false,
};

pub(super) fn build_delete(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    build(p, true)
}
