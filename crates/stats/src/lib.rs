//! Pure statistics for fsbench: summaries of samples, Student's t, comparisons and the ministat
//! text layout. No I/O, clocks, threads or randomness here: every function is a deterministic map
//! from numbers to numbers (or text), and degenerate input gives `None`, never a panic or a NaN.
#![warn(missing_docs)]

pub mod cfmt;
pub mod ministat;
mod summary;

pub use summary::{Summary, summarize};
