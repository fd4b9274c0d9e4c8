//! Pure statistics for fsbench: summaries of samples, Student's t, comparisons and the ministat
//! text layout. No I/O, clocks, threads or randomness here: every function is a deterministic map
//! from numbers to numbers (or text), and degenerate input gives `None`, never a panic or a NaN.
#![warn(missing_docs)]

pub mod cfmt;
pub mod changepoint;
mod compare;
pub mod ministat;
mod moments;
mod outliers;
mod segments;
pub mod sequential;
pub mod steady;
pub mod steps;
mod summary;

pub use compare::{Difference, Method, compare, compare_ministat, relative_precision};
pub use moments::Moments;
pub use outliers::{THRESHOLD as OUTLIER_THRESHOLD, modified_z_outliers};
pub use summary::{Summary, summarize};
