//! The I/O machinery fsbench's workloads share, below the workloads themselves: where a
//! workload writes ([`Context`]), aligned buffers and full-length positional reads and writes
//! ([`file`]), sequential passes, jobs and random offsets ([`passes`], [`jobs`]), queue depth and
//! io_uring ([`queue`], [`uring`]), memory-mapped I/O ([`mapped`]), pacing and the load curve
//! ([`pace`], [`curve`]), offset distributions ([`skew`]), verified data ([`verify`]) and the
//! direct-I/O probe ([`direct_check`]).
//!
//! Nothing here reads `key=value` parameters: the workloads turn theirs into the typed
//! configurations this crate takes (`Direct`, `Queue`, `Pace`, `Dist`...).
#![warn(missing_docs)]

mod context;
pub mod curve;
pub mod direct_check;
mod error;
pub mod file;
pub mod fsops;
pub mod jobs;
pub mod mapped;
pub mod pace;
pub mod passes;
pub mod queue;
pub mod skew;
pub mod uring;
pub mod verify;

pub use context::{Context, RankSync, Ranks, Target};
pub use error::WorkloadError;
pub use file::Rng;
pub use fsbench_measure::Recorder;
pub use fsbench_sys::cancel::CancelToken;
