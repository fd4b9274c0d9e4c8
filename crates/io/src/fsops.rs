//! Safe tree removal for workloads: [`fsbench_sys::remove`] with the workload error type.

use crate::WorkloadError;
use std::path::Path;

/// Removes `root` and everything under it without following symlinks or entering a mount
/// ([`fsbench_sys::remove::remove_all_io`]); a missing `root` is not an error.
pub fn remove_all(root: &Path) -> Result<(), WorkloadError> {
    fsbench_sys::remove::remove_all_io(root).map_err(|e| WorkloadError::io("remove", root, e))
}

/// [`remove_all`], counting every entry removed below `root` in `rec` as one operation as it
/// goes (the sample's series of `tar-delete` and `tree-create`'s removal).
pub fn remove_all_counted(root: &Path, rec: &mut dyn crate::Recorder) -> Result<(), WorkloadError> {
    fsbench_sys::remove::remove_all_counted(root, &mut || rec.add_ops(1, 0))
        .map_err(|e| WorkloadError::io("remove", root, e))
}
