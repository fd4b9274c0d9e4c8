//! Run records: one run of a plan, its environment, and one result per target × workload × cache.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Everything fsbench knows about one run; serialised as the `--json` document.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunRecord {
    /// Format version ([`crate::SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Identity of the run.
    pub run: RunInfo,
    /// Host and targets.
    pub environment: Environment,
    /// fsbench's own cost per recorded operation, measured at start.
    pub overhead: OverheadInfo,
    /// One entry per target × workload × cache state.
    pub results: Vec<ResultEntry>,
    /// Statistical comparisons of headline metrics against the baseline.
    #[serde(default)]
    pub comparisons: Vec<Comparison>,
    /// Scaling analyses of workloads swept over `workers`.
    #[serde(default)]
    pub scaling: Vec<Scaling>,
}

/// A workload swept over its worker count on one target and cache state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Scaling {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Cache state.
    pub cache: String,
    /// One row per worker count.
    pub rows: Vec<ScalingRow>,
    /// `scales`, `saturates` or `lock-contention`.
    pub verdict: String,
    /// The verdict in words, with the numbers that led to it.
    pub explanation: String,
}

/// One worker count of a sweep (means over its samples).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct ScalingRow {
    /// Workers (J).
    pub workers: u32,
    /// Entries per second.
    pub rate: f64,
    /// Rate over the rate at the smallest J.
    pub speedup: f64,
    /// Speedup over the ideal speedup (capped at the CPU count).
    pub efficiency: f64,
    /// Kernel time per entry, ns.
    pub sys_ns_per_entry: f64,
    /// Wall time, ns.
    pub wall_ns: f64,
    /// User CPU, ns.
    pub user_ns: f64,
    /// System CPU, ns.
    pub sys_ns: f64,
}

/// Identity and outcome of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RunInfo {
    /// Unique id: UTC start time plus pid (`20261122T101500Z-1234`).
    pub id: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// fsbench version.
    pub fsbench_version: String,
    /// The command line.
    pub argv: Vec<String>,
    /// `ok`, `failed` (a cell failed) or `interrupted`.
    pub status: String,
}

/// Host facts and one entry per target.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Environment {
    /// Host name.
    pub hostname: String,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// Operating system (`uname -s`).
    pub os: String,
    /// CPU model name.
    pub cpu_model: String,
    /// Online CPUs.
    pub cpus: u32,
    /// Physical memory in bytes.
    pub memory_bytes: u64,
    /// Whether fsbench ran as root (needed for drop_caches).
    pub root: bool,
    /// The targets of the plan.
    pub targets: Vec<TargetInfo>,
}

/// A target directory or device and the filesystem under it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct TargetInfo {
    /// Label used in results (`xfs` in `--target xfs=/mnt/xfs`).
    pub label: String,
    /// Absolute path given.
    pub path: String,
    /// `dir` or `device`.
    pub kind: String,
    /// Filesystem type (`ext4`, `tmpfs`, `fuse.sshfs`...), empty for a raw device.
    pub fs_type: String,
    /// Mount source (device or server path).
    pub source: String,
    /// Mount point containing the target.
    pub mount_point: String,
    /// Mount options.
    pub mount_options: String,
    /// Free bytes available to fsbench at start.
    pub free_bytes: u64,
    /// Total bytes of the filesystem (or device).
    pub total_bytes: u64,
    /// Block devices under the filesystem, top first (`dm-0 (crypt)`, `nvme0n1p2`, `nvme0n1`).
    #[serde(default)]
    pub device_chain: Vec<String>,
    /// Encryption layer found (`dm-crypt`, `fuse.gocryptfs`, `ecryptfs`...), empty when none.
    #[serde(default)]
    pub encryption: String,
    /// Whether the bottom device spins (`/sys/block/X/queue/rotational`), when known.
    #[serde(default)]
    pub rotational: Option<bool>,
    /// Model of the bottom device, when the kernel reports it.
    #[serde(default)]
    pub device_model: String,
}

/// fsbench's own measurement cost.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct OverheadInfo {
    /// Extra time per 4 KiB page-cache read when each read is recorded (clock read + histogram
    /// insert), measured as recorded loop minus bare loop, ns.
    pub per_op_ns: f64,
    /// Time of one bare 4 KiB page-cache pread measured at start, ns (0 if not measured).
    pub reference_read_ns: f64,
    /// `per_op_ns` as a percentage of `reference_read_ns`.
    pub pct_of_4k_cached_read: f64,
    /// Cost of one recorder call alone (back-to-back calls, nothing to overlap with), ns.
    #[serde(default)]
    pub recorder_only_ns: f64,
}

/// Results of one target × workload × cache state.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ResultEntry {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Canonical parameters, defaults included.
    pub params: BTreeMap<String, String>,
    /// The swept parameters' values of this cell (`workers=1,2,4` gives one cell per value).
    #[serde(default)]
    pub sweep: BTreeMap<String, String>,
    /// Cache state and how it was obtained.
    pub cache: CacheInfo,
    /// The headline metric's name (a key of `summary`).
    pub headline: String,
    /// Measured samples in order (warm-up samples are not included).
    pub samples: Vec<Sample>,
    /// Summary per metric.
    pub summary: BTreeMap<String, MetricSummary>,
    /// With `--runs auto`: whether the CI95 half-width reached the requested precision.
    #[serde(default)]
    pub precision_reached: Option<bool>,
    /// Things the reader should know (cold not reached, outliers, slow first sample).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Set when the cell failed; samples taken before the failure are kept.
    #[serde(default)]
    pub error: Option<String>,
}

/// Cache state of a result.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CacheInfo {
    /// `cold` or `warm`.
    pub state: String,
    /// How cold was reached: `drop_caches`, `fadvise`, `cold-cmd`; `none` for warm.
    pub method: String,
    /// Mean share of the workload's file pages resident in the page cache right before each
    /// sample, in percent; `None` when not measurable (no files, a device).
    pub resident_pct: Option<f64>,
}

/// One measured execution.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Sample {
    /// Wall time, ns.
    pub wall_ns: u64,
    /// User CPU of fsbench and its waited-for children, ns.
    pub user_ns: u64,
    /// System CPU of fsbench and its waited-for children, ns.
    pub sys_ns: u64,
    /// Operations done.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Derived and workload metrics by name.
    pub metrics: BTreeMap<String, f64>,
    /// Per-operation latency summary, where the workload records one.
    #[serde(default)]
    pub latency: Option<LatencySummary>,
    /// Per-phase wall times, ns.
    #[serde(default)]
    pub phases: BTreeMap<String, u64>,
    /// Page-cache residency of the workload's files right before the sample, percent.
    #[serde(default)]
    pub resident_pct: Option<f64>,
    /// Flagged as an outlier of its cell (modified z-score of the headline > 3.5, judged with 5 or
    /// more samples); never dropped.
    #[serde(default)]
    pub outlier: bool,
}

/// Per-operation latency summary, ns.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq)]
pub struct LatencySummary {
    /// Operations recorded.
    pub count: u64,
    /// Minimum.
    pub min_ns: u64,
    /// Mean.
    pub mean_ns: f64,
    /// Standard deviation (ioping's mdev).
    pub stddev_ns: f64,
    /// 50th percentile.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Maximum.
    pub max_ns: u64,
}

/// Which direction of a metric is better.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Larger values are better (throughput).
    Higher,
    /// Smaller values are better (latency, time).
    Lower,
}

/// Summary of one metric over a cell's samples.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct MetricSummary {
    /// Number of samples.
    pub n: usize,
    /// Minimum.
    pub min: f64,
    /// Maximum.
    pub max: f64,
    /// Median.
    pub median: f64,
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation.
    pub stddev: f64,
    /// Half-width of the 95% confidence interval of the mean; `None` for n < 2.
    pub ci95: Option<f64>,
    /// Unit (`MiB/s`, `IOPS`, `ns`, `s`, `%`...).
    pub unit: String,
    /// Direction.
    pub better: Better,
}

/// A statistical comparison of one metric between a baseline cell and another.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    /// Metric name.
    pub metric: String,
    /// Baseline cell (`target/workload/cache`).
    pub baseline: String,
    /// Compared cell.
    pub other: String,
    /// Confidence level in percent.
    pub confidence: f64,
    /// Mean of other minus mean of baseline.
    pub difference: f64,
    /// Half-width of the confidence interval of the difference.
    pub ci_half: f64,
    /// Difference in percent of the baseline mean.
    pub difference_pct: f64,
    /// Half-width in percent of the baseline mean.
    pub ci_half_pct: f64,
    /// True when the interval excludes zero.
    pub proven: bool,
    /// Test used (`student-pooled`, `welch`).
    pub method: String,
}
