//! Errors a workload can end with.

use std::path::PathBuf;

/// Why a workload stopped. Per-operation failures a workload can survive are counted in its
/// metrics instead.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// An I/O call failed on `path`.
    #[error("{op} failed on {path}: {source}")]
    Io {
        /// What was being done (`write`, `open`, `fsync`, ...).
        op: &'static str,
        /// The file or directory involved.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The target ran out of space.
    #[error("no space left on device while writing {path}")]
    NoSpace {
        /// The file being written.
        path: PathBuf,
    },
    /// Cancelled by a signal or a time limit.
    #[error("interrupted")]
    Interrupted,
    /// The workload cannot run on this kind of target.
    #[error("{0}")]
    Unsupported(String),
    /// The workload's input (an archive, a config, a tree) is invalid.
    #[error("{0}")]
    Invalid(String),
}

impl WorkloadError {
    /// Wraps an OS error on `path`; ENOSPC and EDQUOT become `NoSpace`.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        let path = path.into();
        match source.raw_os_error() {
            Some(libc::ENOSPC) | Some(libc::EDQUOT) => Self::NoSpace { path },
            _ => Self::Io { op, path, source },
        }
    }
}

impl From<fsbench_sys::cancel::Interrupted> for WorkloadError {
    fn from(_: fsbench_sys::cancel::Interrupted) -> Self {
        Self::Interrupted
    }
}

/// A parameter value that does not parse (`dist=`, `rate=`), with what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{value}'{hint}")]
pub struct BadValue {
    /// The value as given.
    pub value: String,
    /// What is wrong and what to give (`: give zipf:THETA …`, ` is not a rate: …`).
    pub hint: &'static str,
}
