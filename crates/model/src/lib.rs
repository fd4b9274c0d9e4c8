//! The shared vocabulary of fsbench: plain serde data for runs, samples, summaries and the
//! environment. This is the JSON contract of `docs/formats.md`; any change bumps
//! [`SCHEMA_VERSION`].
#![warn(missing_docs)]

mod record;
mod units;

pub use record::*;
pub use units::unit_of;

/// Version of the JSON (and later database) format; bumped on every incompatible change.
pub const SCHEMA_VERSION: u32 = 2;
