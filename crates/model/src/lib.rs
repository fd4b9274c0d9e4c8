//! The shared vocabulary of fsbench: plain serde data for runs, samples, summaries and the
//! environment. This is the JSON contract of `docs/formats.md`; any change bumps
//! [`SCHEMA_VERSION`].
#![warn(missing_docs)]

mod aging;
pub mod calls;
pub mod card;
pub mod catalogue;
mod entry_head;
mod failure;
pub mod fstype;
mod kinds;
pub mod legacy;
pub mod metric;
pub mod names;
mod netlab;
pub mod param;
pub mod profile;
mod record;
pub mod report_input;
pub mod series;
mod suffix;
pub mod text;
pub mod trend;
pub mod units;
mod vocabulary;

pub use aging::{AgingInfo, FileExtents, Fragmentation, FreeBucket, FreeSpace};
pub use calls::CallTimes;
pub use catalogue::{label_of, unit_of};
pub use failure::{EngineResult, Failure, FailureKind};
pub use kinds::{AgingSpec, BlockKind, EncryptionKind, LabEntry, LabKind};
pub use netlab::{HOST_MARKER, NetLabInfo, NetSpec, ServerHost, ServerSample};
pub use profile::Profile;
pub use record::*;
pub use vocabulary::{
    CacheState, ComparePolicy, RunStatus, ScalingVerdict, SeedLayout, TargetKind,
};

/// Name of the suite a plain `fsbench run` (no `--suite`, no `--workload`) measures.
pub const DEFAULT_SUITE: &str = "quick";

/// Version of the JSON (and later database) format; bumped on every incompatible change.
pub const SCHEMA_VERSION: u32 = 4;

/// The exit-code rule of every command, as `--help` prints it (README.md and docs/safety.md say
/// the same).
pub const EXIT_CODES: &str = "Exit codes (every command): 0 ok · 1 a requested check failed (--fail-if-slower) · \
2 usage or input error (a bad flag or file, a database refused) · 3 the work failed (an I/O \
error, a full disk under a target, an output or the database; clean left a stale scratch) · \
4 a requested check could not decide · 101 internal error (a bug) · 130 interrupted";
