//! The shared vocabulary of fsbench: plain serde data for runs, samples, summaries and the
//! environment. This is the JSON contract of `docs/formats.md`; any change bumps
//! [`SCHEMA_VERSION`].
#![warn(missing_docs)]

mod aging;
pub mod catalogue;
mod failure;
pub mod fstype;
mod kinds;
pub mod legacy;
pub mod metric;
pub mod names;
pub mod param;
pub mod profile;
mod record;
pub mod report_input;
pub mod series;
mod suffix;
pub mod text;
pub mod units;
mod vocabulary;

pub use aging::{AgingInfo, FileExtents, Fragmentation, FreeBucket, FreeSpace};
pub use catalogue::{label_of, unit_of};
pub use failure::{EngineResult, Failure, FailureKind};
pub use kinds::{AgingSpec, BlockKind, EncryptionKind, LabEntry, LabKind};
pub use profile::Profile;
pub use record::*;
pub use vocabulary::{
    CacheState, ComparePolicy, RunStatus, ScalingVerdict, SeedLayout, TargetKind,
};

/// Name of the suite a plain `fsbench run` (no `--suite`, no `--workload`) measures.
pub const DEFAULT_SUITE: &str = "quick";

/// Version of the JSON (and later database) format; bumped on every incompatible change.
pub const SCHEMA_VERSION: u32 = 4;
