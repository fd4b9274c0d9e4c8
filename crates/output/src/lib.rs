//! The files fsbench writes for the user (`--json`, the exports, `--html`, a report): checked
//! before any work against everything they must never replace ([`protect`]: the results
//! database, a workload's input, the suite file, another output), and written the way careful
//! tools do ([`file`]: replaced atomically, never renamed over a device or a symlink); the
//! exports of a run, `show` or `compare` ([`exports`]).
#![warn(missing_docs)]

pub mod exports;
pub mod file;
pub mod protect;
pub mod run_sink;

/// Why an output path was refused: one line saying what, where and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

impl From<Refused> for String {
    fn from(r: Refused) -> Self {
        r.0
    }
}
