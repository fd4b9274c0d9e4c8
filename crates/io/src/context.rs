//! What a workload runs against: its own scratch directory, or a block device for reads.

use crate::{CancelToken, WorkloadError};
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
    /// The other processes doing the same work at the same time (MPI ranks); alone by default.
    pub ranks: Ranks,
    /// The process's cleanup registry: children the workload starts are registered there.
    pub cleanup: fsbench_sys::cleanup::Cleanup,
    /// Where a workload that counts its work in bulk adds it as it goes (see
    /// [`crate::Workload::counts_progress`]), for the sample's time series.
    pub progress: fsbench_measure::Counter,
}

/// This process's place among the MPI ranks running the same plan.
#[derive(Debug, Clone)]
pub struct Ranks {
    /// This process's rank, from 0.
    pub rank: usize,
    /// How many ranks run the plan (1 when alone).
    pub size: usize,
    /// `--layout shared`: every rank works in the same directory (one file segmented by rank,
    /// one directory for metadata workloads); else each rank has its own directory.
    pub shared: bool,
    /// Meets the other ranks at a phase boundary inside a sample; `None` when alone.
    pub sync: Option<Arc<dyn RankSync>>,
}

impl Default for Ranks {
    fn default() -> Self {
        Self {
            rank: 0,
            size: 1,
            shared: false,
            sync: None,
        }
    }
}

impl Ranks {
    /// True when ranks share files and directories (the workload must segment its work).
    pub fn sharing(&self) -> bool {
        self.shared && self.size > 1
    }

    /// Waits until every rank reaches this point (a phase boundary inside a sample, as mdtest's
    /// barrier between create and remove). A no-op when alone. `Interrupted` when the sample was
    /// ended (Ctrl-C, or another rank failed).
    pub fn barrier(&self, cancel: &CancelToken) -> Result<(), WorkloadError> {
        match &self.sync {
            Some(s) => s.barrier(cancel),
            None => Ok(()),
        }
    }
}

/// A barrier among ranks that gives up when the sample is cancelled, implemented by the MPI
/// layer (the `dist` crate).
pub trait RankSync: Send + Sync + std::fmt::Debug {
    /// Blocks until every rank has called it as many times as this one, or `cancel` is set.
    fn barrier(&self, cancel: &CancelToken) -> Result<(), WorkloadError>;
}

impl Context {
    /// A context for a scratch directory.
    pub fn dir(dir: impl Into<PathBuf>, cancel: CancelToken) -> Self {
        Self {
            target: Target::Dir(dir.into()),
            cancel,
            ranks: Ranks::default(),
            cleanup: Default::default(),
            progress: Default::default(),
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
