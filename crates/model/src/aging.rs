//! What aging a lab target did (`--lab ext4:aged`) and the fragmentation it left: the fullness
//! reached, the files written and deleted, the seed, and the free-space extents and per-file
//! extent counts measured afterwards. Recorded in [`crate::LabInfo`]; every field is additive to
//! the JSON of earlier versions.

use serde::{Deserialize, Serialize};

/// How a lab target was aged before it was measured (`KIND:aged[:fill=PCT,churn=N,seed=S]`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct AgingInfo {
    /// Fullness asked for, percent of the filesystem (`fill=`).
    pub fill_pct: u32,
    /// Fullness reached after the last round, percent (statvfs: used / (used + available)).
    pub fill_reached_pct: f64,
    /// Churn rounds run (`churn=`): each deletes a share of the aging files and writes new ones
    /// back to the fullness asked for.
    pub churn_rounds: u32,
    /// Share of the aging files each churn round deletes, percent.
    pub delete_pct: u32,
    /// Seed of the file sizes, their directories and the files deleted (`seed=`).
    pub seed: u64,
    /// Files written in all.
    pub files_created: u64,
    /// Files deleted in all.
    pub files_deleted: u64,
    /// Aging files left in place while the workloads run.
    pub files_kept: u64,
    /// Bytes written in all (file sizes, not blocks).
    pub bytes_written: u64,
    /// Wall time of the aging, seconds (fragmentation measurement excluded).
    pub seconds: f64,
    /// Directory holding the aging files (inside the target, kept during the run).
    pub dir: String,
    /// The file-size distribution, in words.
    pub sizes: String,
    /// What stopped a fill early (the filesystem reported no space), empty when nothing did.
    #[serde(default)]
    pub note: String,
}

/// Fragmentation of a lab filesystem, measured right after it was built (and aged).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Fragmentation {
    /// Free-space extents of the filesystem; `null` where no tool reports them.
    #[serde(default)]
    pub free_space: Option<FreeSpace>,
    /// Why there is no free-space summary (empty when there is one).
    #[serde(default)]
    pub free_space_note: String,
    /// Extents per aging file (FIEMAP through `filefrag`); `null` for a fresh target.
    #[serde(default)]
    pub files: Option<FileExtents>,
    /// The commands run to measure it.
    #[serde(default)]
    pub commands: Vec<String>,
}

/// Free-space extents of a filesystem (`e2freefrag`, `xfs_spaceman -c 'freesp -s'`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FreeSpace {
    /// The tool that measured it.
    pub tool: String,
    /// Free extents.
    pub extents: u64,
    /// Free bytes in them.
    pub free_bytes: u64,
    /// Mean free extent, bytes.
    pub mean_extent_bytes: f64,
    /// Histogram of free extent sizes, smallest first.
    #[serde(default)]
    pub histogram: Vec<FreeBucket>,
}

/// One bucket of a free-extent histogram: extents of at least `from_bytes` and less than
/// `to_bytes`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FreeBucket {
    /// Smallest extent size of the bucket, bytes.
    pub from_bytes: u64,
    /// Extent size the bucket stops below, bytes.
    pub to_bytes: u64,
    /// Free extents in it.
    pub extents: u64,
    /// Free bytes in it.
    pub bytes: u64,
}

/// Extents per file over the aging files that hold data.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct FileExtents {
    /// Files examined (a seeded sample when there are more than fsbench examines).
    pub files: u64,
    /// Mean extents per file.
    pub mean: f64,
    /// Median extents per file.
    pub median: f64,
    /// 99th percentile of extents per file.
    pub p99: f64,
    /// Most extents of one file.
    pub max: u64,
    /// Share of the files with more than one extent, percent.
    pub fragmented_pct: f64,
}
