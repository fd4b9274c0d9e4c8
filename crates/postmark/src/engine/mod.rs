//! PostMark 1.51 (Debian's `postmark` 1.53), operation for operation: its configuration, its
//! generator, its stdio-style buffered I/O and its create/transact/delete engine. The same
//! configuration and seed give the same files, sizes and operations as the real program (see
//! `rng.rs` and `engine.rs`), but every operation is timed in nanoseconds instead of postmark's
//! whole seconds. Both the `postmark` workload and `fsbench postmark` run it.

pub mod config;
#[allow(clippy::module_inception)]
pub mod engine;
mod rng;
mod stdio;

pub use config::Config;
pub use engine::{Counts, Location, Marks, OpKind, OpLog, Outcome, Progress, run, run_skewed};
