//! The parameter keys and phase names that crates other than the workload owning them read
//! from a stored cell (`params`, `sweep`, a sample's `phases`): named once here, so that a
//! renamed key is a compile error, not a silently empty report.

/// `tree=`: the tree a walk reads (`generated` or a path).
pub const TREE: &str = "tree";
/// `layout=`: how MPI ranks share a target (`per-rank`, `shared`).
pub const LAYOUT: &str = "layout";
/// `background=`: the load running beside the measured workload.
pub const BACKGROUND: &str = "background";
/// `direct=`: O_DIRECT asked for (`true`, `false`, `auto`).
pub const DIRECT: &str = "direct";
/// `workers=`: parallel walkers (swept by the readdir study).
pub const WORKERS: &str = "workers";
/// `iodepth=`: requests in flight.
pub const IODEPTH: &str = "iodepth";
/// `fsync=`: when written data is flushed (`end`, `each`, `none`).
pub const FSYNC: &str = "fsync";
/// `ops=`: operations per sample.
pub const OPS: &str = "ops";
/// `file-per-job=`: each job has its own file.
pub const FILE_PER_JOB: &str = "file-per-job";
/// Value of `tree=` for a generated tree.
pub const GENERATED: &str = "generated";

/// The write phase of a sample (large-file: written, then read back).
pub const PHASE_WRITE: &str = "write";
/// The read phase of a sample.
pub const PHASE_READ: &str = "read";
