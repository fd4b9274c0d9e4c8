//! Parameters several workloads share, read from `key=value` into the typed configurations of
//! `fsbench-io` and `fsbench-tree`: direct and fsync policies, data patterns, queue depth and
//! jobs, pacing, offset distributions, verification, trees and archives.

pub mod archive;
pub mod every;
pub mod io;
pub mod pace;
pub mod queue;
pub mod skew;
pub mod tree;
pub mod tree_source;
pub mod verify;
