//! Safe tree removal for workloads: [`fsbench_sys::remove`] with the workload error type.

use crate::WorkloadError;
use std::path::Path;

/// Removes `root` and everything under it without following symlinks or entering a mount
/// ([`fsbench_sys::remove::remove_all_io`]); a missing `root` is not an error.
pub fn remove_all(root: &Path) -> Result<(), WorkloadError> {
    fsbench_sys::remove::remove_all_io(root).map_err(|e| WorkloadError::io("remove", root, e))
}
