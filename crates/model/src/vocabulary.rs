//! The typed vocabulary of results: cache states and run statuses. They travel as the same
//! lower-case words as before (`cold`, `ok`...) in JSON and SQLite, so old files still load.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Cache state of a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheState {
    /// Caches dropped before each sample by a recorded method.
    Cold,
    /// Caches as the previous sample left them.
    Warm,
}

impl CacheState {
    /// `cold` or `warm`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Cold => "cold",
            Self::Warm => "warm",
        }
    }

    /// The state named `text` (`cold`, `warm`).
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "cold" => Some(Self::Cold),
            "warm" => Some(Self::Warm),
            _ => None,
        }
    }
}

impl fmt::Display for CacheState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How a run ended (or that it has not yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Under way (or its process was killed: the store says `incomplete` then).
    #[default]
    Running,
    /// Every cell measured.
    Ok,
    /// A cell failed; the others were measured.
    Failed,
    /// A signal stopped it.
    Interrupted,
    /// Its process is gone without finishing it (SIGKILL, a crash): found by the store.
    Incomplete,
}

impl RunStatus {
    /// The word stored and shown: `running`, `ok`, `failed`, `interrupted`, `incomplete`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Ok => "ok",
            Self::Failed => "failed",
            Self::Interrupted => "interrupted",
            Self::Incomplete => "incomplete",
        }
    }

    /// The status named `text`; `None` for a word no version wrote.
    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Running,
            Self::Ok,
            Self::Failed,
            Self::Interrupted,
            Self::Incomplete,
        ]
        .into_iter()
        .find(|s| s.name() == text)
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_through_json_as_before() {
        assert_eq!(
            serde_json::to_string(&CacheState::Cold).unwrap(),
            "\"cold\""
        );
        let s: RunStatus = serde_json::from_str("\"interrupted\"").unwrap();
        assert_eq!(s, RunStatus::Interrupted);
        for s in ["running", "ok", "failed", "interrupted", "incomplete"] {
            assert_eq!(RunStatus::parse(s).map(RunStatus::name), Some(s));
        }
        assert_eq!(CacheState::parse("warm"), Some(CacheState::Warm));
        assert_eq!(CacheState::parse("tepid"), None);
    }
}

/// What limited a sweep over worker counts (`Scaling::verdict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScalingVerdict {
    /// Efficiency stays high up to the largest worker count.
    Scales,
    /// Throughput stops growing without sys time per unit exploding.
    Saturates,
    /// Sys time per unit grows with workers while efficiency falls: a kernel lock.
    LockContention,
    /// A FUSE daemon serialises the work.
    DaemonBound,
    /// One worker left the CPUs idle (waiting on the device or network): more than linear.
    LatencyBound,
    /// The sweep's samples were preempted (runnable, not running) for a large share of their
    /// time (`--profile`): other work took the CPUs, so the curve is not the target's.
    MachineBusy,
}

impl ScalingVerdict {
    /// The word stored and shown (`lock-contention`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Scales => "scales",
            Self::Saturates => "saturates",
            Self::LockContention => "lock-contention",
            Self::DaemonBound => "daemon-bound",
            Self::LatencyBound => "latency-bound",
            Self::MachineBusy => "machine-busy",
        }
    }
}

impl fmt::Display for ScalingVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a target is (`TargetInfo::kind`): `dir`, `device` or `file`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// A directory: workloads run in a scratch directory inside it.
    #[default]
    Dir,
    /// A block device.
    Device,
    /// A regular file (`fsbench env FILE`: the stack under a file).
    File,
}

impl TargetKind {
    /// `dir` or `device`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Dir => "dir",
            Self::Device => "device",
            Self::File => "file",
        }
    }
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The seed study's own layout a suite asks for after the standard tables
/// (`report = "summary" | "times" | "overhead"`), recorded with the run so that `show`,
/// exports and reports lay it out again without the suite file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SeedLayout {
    /// The plain-language summary.
    Summary,
    /// The Chromium study's times table.
    Times,
    /// The encryption study's overhead table.
    Overhead,
    /// A character card (`fsbench card`): the cards in place of the cells' tables.
    Card,
}

impl SeedLayout {
    /// The layout a suite file names; `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "summary" => Some(Self::Summary),
            "times" => Some(Self::Times),
            "overhead" => Some(Self::Overhead),
            "card" => Some(Self::Card),
            _ => None,
        }
    }

    /// The word a suite file uses.
    pub fn name(self) -> &'static str {
        match self {
            Self::Summary => "summary",
            Self::Times => "times",
            Self::Overhead => "overhead",
            Self::Card => "card",
        }
    }
}

/// Which comparisons a suite asks for after the run (`compare = "targets" | "cache" | "both" |
/// "none"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComparePolicy {
    /// Each target against the baseline target, per cache state.
    Targets,
    /// Warm against cold on each target.
    Cache,
    /// Both of the above.
    Both,
    /// No comparisons.
    None,
}

impl ComparePolicy {
    /// The policy a suite file names; `None` for an unknown name.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "targets" => Some(Self::Targets),
            "cache" => Some(Self::Cache),
            "both" => Some(Self::Both),
            "none" => Some(Self::None),
            _ => None,
        }
    }

    /// Whether targets are compared with the baseline.
    pub fn targets(self) -> bool {
        matches!(self, Self::Targets | Self::Both)
    }

    /// Whether warm is compared with cold.
    pub fn cache(self) -> bool {
        matches!(self, Self::Cache | Self::Both)
    }
}
