//! A program's filesystem calls recorded once, to be replayed on any filesystem: the trace
//! ([`model`]), its versioned file format ([`format`]), what `fsbench trace show` says of it
//! ([`summary`]), and the recording itself ([`record`], [`session`]: ptrace with a seccomp
//! filter, through `fsbench_sys::tracer`).
#![warn(missing_docs)]

pub mod concurrency;
pub mod confine;
pub mod format;
pub mod kinds;
pub mod listing;
pub mod model;
pub mod outside;
pub mod pace;
pub mod plan;
pub mod record;
pub mod rerun;
pub mod session;
pub mod summary;
pub mod touch;

pub use format::{TraceError, decode, encode};
pub use model::Trace;
pub use summary::Summary;
