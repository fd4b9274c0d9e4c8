//! The character card's vocabulary: FxMark's 19 operations (code, readable name, the component
//! of the filesystem each exercises, the sharing level) and the card itself as JSON carries it
//! (`cards[]`, one per target). The workload `fx` runs an operation; the analysis builds the card
//! from a card run's cells; the reports draw it.

use serde::{Deserialize, Serialize};

/// How much the jobs of an operation share (FxMark's L, M, H).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Sharing {
    /// Each job works on its own file or directory.
    Low,
    /// The jobs share a file or directory, each on its own part (block, name).
    Medium,
    /// The jobs work on the very same block or name.
    High,
}

impl Sharing {
    /// The word in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

/// Which of FxMark's operations, as a type: what the loops and the analysis match on (a code
/// compared as text in a loop would cost the loop, and a typo would be silent).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each is its FxMark code; `CARD_OPS` says what it does
pub enum OpKind {
    Drbl,
    Drbm,
    Drbh,
    Dwol,
    Dwom,
    Dwal,
    Dwtl,
    Dwsl,
    Mrpl,
    Mrpm,
    Mrph,
    Mrdl,
    Mrdm,
    Mwcl,
    Mwcm,
    Mwul,
    Mwum,
    Mwrl,
    Mwrm,
}

impl OpKind {
    /// A create of new names (MWCL, MWCM): recycling removes them.
    pub fn creates(self) -> bool {
        matches!(self, Self::Mwcl | Self::Mwcm)
    }

    /// An unlink of names (MWUL, MWUM): recycling makes them.
    pub fn unlinks(self) -> bool {
        matches!(self, Self::Mwul | Self::Mwum)
    }

    /// The frames of its recycling (a create job removes its batch, an unlink job makes one):
    /// a lock taken there is the recycling's, not the operation's, and is never named nor shown
    /// as its largest wait.
    pub fn recycling_frames(self) -> &'static [&'static str] {
        if self.creates() {
            &["do_unlinkat"]
        } else if self.unlinks() {
            &["path_openat", "open_last_lookups", "filename_create"]
        } else {
            &[]
        }
    }
}

/// One of FxMark's operations: what a job does in its loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CardOp {
    /// Which one, as a type.
    pub kind: OpKind,
    /// FxMark's code (`MWCM`).
    pub code: &'static str,
    /// The readable name (`create-shared-dir`), accepted by `--ops` and `op=` alike.
    pub name: &'static str,
    /// The part of the filesystem it exercises (a card's row group).
    pub component: &'static str,
    /// How much the jobs share.
    pub sharing: Sharing,
    /// One line: what one operation is.
    pub what: &'static str,
}

const fn op(
    kind: OpKind,
    code: &'static str,
    name: &'static str,
    component: &'static str,
    sharing: Sharing,
    what: &'static str,
) -> CardOp {
    CardOp {
        kind,
        code,
        name,
        component,
        sharing,
        what,
    }
}

/// The components, in the order a card lists them.
pub const COMPONENTS: [&str; 6] = [
    "page cache",
    "block allocation",
    "consistency",
    "path resolution",
    "directory read",
    "directory write",
];

/// FxMark's 19 operations, in the order a card lists them.
pub const CARD_OPS: [CardOp; 19] = [
    op(
        OpKind::Drbl,
        "DRBL",
        "read-private",
        "page cache",
        Sharing::Low,
        "read a block of the job's own file",
    ),
    op(
        OpKind::Drbm,
        "DRBM",
        "read-shared-block-each",
        "page cache",
        Sharing::Medium,
        "read the job's own block of a shared file",
    ),
    op(
        OpKind::Drbh,
        "DRBH",
        "read-same-block",
        "page cache",
        Sharing::High,
        "read the same block of a shared file",
    ),
    op(
        OpKind::Dwol,
        "DWOL",
        "overwrite-private",
        "page cache",
        Sharing::Low,
        "overwrite a block of the job's own file",
    ),
    op(
        OpKind::Dwom,
        "DWOM",
        "overwrite-shared",
        "page cache",
        Sharing::Medium,
        "overwrite the job's own block of a shared file",
    ),
    op(
        OpKind::Dwal,
        "DWAL",
        "append-private",
        "block allocation",
        Sharing::Low,
        "append a block to the job's own file",
    ),
    op(
        OpKind::Dwtl,
        "DWTL",
        "truncate-private",
        "block allocation",
        Sharing::Low,
        "truncate the job's own file by a block",
    ),
    op(
        OpKind::Dwsl,
        "DWSL",
        "write-fsync-private",
        "consistency",
        Sharing::Low,
        "overwrite a block of the job's own file, then fsync",
    ),
    op(
        OpKind::Mrpl,
        "MRPL",
        "resolve-private",
        "path resolution",
        Sharing::Low,
        "open and close a file five directories deep in the job's own tree",
    ),
    op(
        OpKind::Mrpm,
        "MRPM",
        "resolve-shared-dir",
        "path resolution",
        Sharing::Medium,
        "open and close one of many files of a shared directory",
    ),
    op(
        OpKind::Mrph,
        "MRPH",
        "resolve-same-file",
        "path resolution",
        Sharing::High,
        "open and close the same shared file",
    ),
    op(
        OpKind::Mrdl,
        "MRDL",
        "readdir-private",
        "directory read",
        Sharing::Low,
        "read the job's own directory to its end",
    ),
    op(
        OpKind::Mrdm,
        "MRDM",
        "readdir-shared",
        "directory read",
        Sharing::Medium,
        "read a shared directory to its end",
    ),
    op(
        OpKind::Mwcl,
        "MWCL",
        "create-private-dir",
        "directory write",
        Sharing::Low,
        "create an empty file in the job's own directory",
    ),
    op(
        OpKind::Mwcm,
        "MWCM",
        "create-shared-dir",
        "directory write",
        Sharing::Medium,
        "create an empty file in a shared directory",
    ),
    op(
        OpKind::Mwul,
        "MWUL",
        "unlink-private-dir",
        "directory write",
        Sharing::Low,
        "unlink a file of the job's own directory",
    ),
    op(
        OpKind::Mwum,
        "MWUM",
        "unlink-shared-dir",
        "directory write",
        Sharing::Medium,
        "unlink a file of a shared directory",
    ),
    op(
        OpKind::Mwrl,
        "MWRL",
        "rename-private-dir",
        "directory write",
        Sharing::Low,
        "rename a file within the job's own directory",
    ),
    op(
        OpKind::Mwrm,
        "MWRM",
        "rename-into-shared-dir",
        "directory write",
        Sharing::Medium,
        "move a file between the job's own directory and a shared one",
    ),
];

/// The operation named by its code (any case) or readable name.
pub fn card_op(word: &str) -> Option<&'static CardOp> {
    CARD_OPS
        .iter()
        .find(|o| o.code.eq_ignore_ascii_case(word) || o.name == word)
}

/// The text after `fsbench card --help`: every operation (code, name, sharing, what it is),
/// then the exit codes.
pub fn ops_help() -> String {
    let mut s = String::from("Operations (--ops takes the code or the name):\n");
    for o in CARD_OPS {
        s.push_str(&format!(
            "  {} {:<24} {:<6} {}\n",
            o.code,
            o.name,
            o.sharing.name(),
            o.what
        ));
    }
    s.push('\n');
    s.push_str(crate::EXIT_CODES);
    s
}

/// The name of the workload that runs one card operation.
pub const CARD_WORKLOAD: &str = "fx";

/// The metrics of a card operation's samples (in [`crate::metric`]).
pub use crate::metric::{
    FX_ALL_OPS, FX_IDLE_PCT, FX_IOWAIT_PCT, FX_LATE_START_NS, FX_OPS_PER_S, FX_SYS_PCT, FX_USER_PCT,
};

/// How an operation's ops/s changes with the jobs, judged up to the CPU count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CardClass {
    /// At the most jobs within the CPUs, at least 70% of linear speed-up.
    Scales,
    /// Neither: more jobs add less than 70% each, without losing what one job did.
    LevelsOff,
    /// More jobs do less than one job did (below 80% of its ops/s).
    Collapses,
    /// Fewer than two job counts within the CPUs, or not measured.
    Unknown,
}

impl CardClass {
    /// The word in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Self::Scales => "scales",
            Self::LevelsOff => "levels off",
            Self::Collapses => "collapses",
            Self::Unknown => "unknown",
        }
    }
}

/// A card: one target's operations.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Card {
    /// Target label.
    pub target: String,
    /// Online CPUs of the machine (the class is judged up to them).
    pub cpus: u32,
    /// One per operation measured, in [`CARD_OPS`] order.
    pub cells: Vec<CardCell>,
}

/// One operation of a card.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CardCell {
    /// FxMark's code.
    pub op: String,
    /// Readable name.
    pub name: String,
    /// Component of the filesystem.
    pub component: String,
    /// Sharing level.
    pub sharing: Sharing,
    /// One per job count, ascending.
    pub points: Vec<CardPoint>,
    /// The job count with the most ops/s.
    pub best_jobs: Option<u32>,
    /// The scaling class up to the CPU count.
    pub class: CardClass,
    /// Above the CPU count, in words (`oversubscribed: holds`, `oversubscribed: falls 40%`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oversubscribed: Option<String>,
    /// The lock whose wait per operation grows with the jobs, at the most jobs.
    pub lock: Option<CardLock>,
}

/// One job count of an operation.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CardPoint {
    /// Jobs (processes or threads).
    pub jobs: u32,
    /// Mean ops/s of the samples.
    pub ops_per_s: f64,
    /// 95% interval of the mean (Student's t), low end.
    pub ci95_low: f64,
    /// 95% interval of the mean, high end.
    pub ci95_high: f64,
    /// The machine's user time over the timed window, % of all CPUs.
    pub user_pct: Option<f64>,
    /// System time.
    pub sys_pct: Option<f64>,
    /// Idle time.
    pub idle_pct: Option<f64>,
    /// I/O wait.
    pub iowait_pct: Option<f64>,
    /// Every lock wait of the cell's own work per operation, ns (with a profile).
    pub lock_wait_ns_per_op: Option<f64>,
    /// The largest lock waits of this point (with a profile), largest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locks: Vec<CardLock>,
    /// The on-CPU kernel frames taking the most samples (with a profile), as "frame pct%".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub top_frames: Vec<String>,
}

/// A lock named on a card.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CardLock {
    /// Kind (`rwsem-write`, `mutex`, `spinlock`…).
    pub kind: String,
    /// Caller chain, innermost first (`down_write <- filename_create <- do_mkdirat`).
    pub caller: String,
    /// Wait per operation, ns.
    pub wait_ns_per_op: f64,
    /// Share of the jobs' time spent waiting on it (0–1).
    pub share: f64,
    /// Jobs at which it was measured.
    pub jobs: u32,
}
