//! What a workload runs against: its own scratch directory, or a block device for reads.

use crate::CancelToken;
use std::path::{Path, PathBuf};

/// Where a workload does its I/O.
#[derive(Debug, Clone)]
pub enum Target {
    /// A directory that fsbench created for this workload alone; everything may be written here.
    Dir(PathBuf),
    /// A block device, read unless the user allowed destruction of exactly this device.
    Device {
        /// Device node, e.g. `/dev/loop3`.
        path: PathBuf,
        /// Size of the device in bytes.
        size: u64,
        /// True only when `--allow-destroy` named this device and it is not mounted.
        writable: bool,
    },
}

/// Everything a workload gets from the runner.
#[derive(Debug, Clone)]
pub struct Context {
    /// Where to do I/O.
    pub target: Target,
    /// Set when the run must stop (signal or time limit).
    pub cancel: CancelToken,
}

impl Context {
    /// A context for a scratch directory.
    pub fn dir(dir: impl Into<PathBuf>, cancel: CancelToken) -> Self {
        Self {
            target: Target::Dir(dir.into()),
            cancel,
        }
    }

    /// The scratch directory, or `None` for a device target.
    pub fn scratch(&self) -> Option<&Path> {
        match &self.target {
            Target::Dir(d) => Some(d),
            Target::Device { .. } => None,
        }
    }
}
