//! The parameter keys and phase names that crates other than the workload owning them read
//! from a stored cell (`params`, `sweep`, a sample's `phases`): named once here, so that a
//! renamed key is a compile error, not a silently empty report.

/// A replay's trace by content (recorded by the replay, not given): the FNV-1a hash of the
/// trace file, 16 hex digits; two replays of different traces never compare.
pub const TRACE_ID: &str = "trace_id";
/// `tree=`: the tree a walk reads (`generated` or a path).
pub const TREE: &str = "tree";
/// `layout=`: how MPI ranks share a target (`per-rank`, `shared`).
pub const LAYOUT: &str = "layout";
/// `ranks=`: how many MPI ranks ran the cell (recorded by the runner).
pub const RANKS: &str = "ranks";
/// `background=`: the load running beside the measured workload.
pub const BACKGROUND: &str = "background";
/// `direct=`: O_DIRECT asked for (`true`, `false`, `auto`).
pub const DIRECT: &str = "direct";
/// `workers=`: parallel walkers (swept by the readdir study).
pub const WORKERS: &str = "workers";
/// `walks=`: total walks shared across the workers.
pub const WALKS: &str = "walks";
/// `jobs=`: parallel jobs of a data-path workload.
pub const JOBS: &str = "jobs";
/// `stat=`: what a walk does to each entry, or whether tree-create has a stat phase.
pub const STAT: &str = "stat";
/// `iodepth=`: requests in flight.
pub const IODEPTH: &str = "iodepth";
/// `fsync=`: when written data is flushed (`end`, `each`, `none`).
pub const FSYNC: &str = "fsync";
/// `ops=`: operations per sample.
pub const OPS: &str = "ops";
/// `file-per-job=`: each job has its own file.
pub const FILE_PER_JOB: &str = "file-per-job";
/// `duration=`: a sample's length in time.
pub const DURATION: &str = "duration";
/// The untimed warm-up before a timed window (`fx`).
pub const WARMUP: &str = "warmup";
/// `op=`: the card operation an `fx` cell runs (FxMark's code).
pub const OP: &str = "op";
/// `mode=`: workers (walk) or jobs (fx) as threads or processes.
pub const MODE: &str = "mode";
/// `mode=threads`: workers (walk) or jobs (fx) as threads of fsbench.
pub const MODE_THREADS: &str = "threads";
/// `mode=procs`: workers or jobs as processes.
pub const MODE_PROCS: &str = "procs";
/// `sleep=`: the `null` workload's pause per sample.
pub const SLEEP: &str = "sleep";
/// Value of `tree=` for a generated tree.
pub const GENERATED: &str = "generated";

/// The write phase of a sample (large-file: written, then read back).
pub const PHASE_WRITE: &str = "write";
/// The read phase of a sample.
pub const PHASE_READ: &str = "read";
/// The creation phase of a tree or a postmark pool.
pub const PHASE_CREATE: &str = "create";
/// The deletion phase of a tree or a postmark pool.
pub const PHASE_DELETE: &str = "delete";
/// The transactions phase of a postmark execution.
pub const PHASE_TRANSACTIONS: &str = "transactions";
/// The stat phase of a tree (mdtest's).
pub const PHASE_STAT: &str = "stat";
