//! Workloads: named, parameterised sequences of filesystem operations. Each has an unmeasured
//! `prepare`, a measured `run` (one sample, reported through a `Recorder`) and a `cleanup`.
//!
//! A workload never prints, never reads flags or the environment and never picks units: it gets
//! typed parameters (parsed from `key=value` by [`Params`]), a [`Context`] (its scratch directory
//! or a device, and a cancel token) and a recorder. A new workload is one file in `engines/` plus
//! one line in `registry.rs`.
#![warn(missing_docs)]

mod engines;
mod info;
mod knobs;
mod params;
mod registry;

#[cfg(test)]
mod testutil;

pub use fsbench_io::{CancelToken, Context, RankSync, Ranks, Recorder, Target, WorkloadError};
pub use info::{Built, Caps, Flow, WorkloadInfo};
pub use params::{ParamDoc, ParamError, Params, PathKind, check_quotes, split_top_level};
pub use registry::{LABEL, build, find, names, suggest};

use std::path::PathBuf;

/// The number a workload is judged by, derived from every sample by the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline {
    /// Bytes moved per second of wall time (MiB/s, higher is better).
    Throughput,
    /// Operations per second of wall time (IOPS, higher is better).
    Iops,
    /// Median per-operation latency (lower is better).
    Latency,
    /// Wall time of the sample (lower is better).
    Wall,
    /// A named metric the workload records itself, with its unit and direction.
    Metric {
        /// Metric name as passed to `Recorder::metric`.
        name: &'static str,
        /// Unit shown next to it.
        unit: &'static str,
        /// True when a larger value is better.
        higher_is_better: bool,
    },
}

/// A workload instance with resolved parameters, ready to prepare and run.
pub trait Workload: Send {
    /// Unmeasured set-up (create the files the run reads, generate trees). Called once per
    /// target and workload, before any sample.
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError>;

    /// Unmeasured set-up before each sample (before the cache is made cold): a `command`'s
    /// prepare step, restoring state a sample changed.
    fn before_sample(&mut self, _ctx: &Context) -> Result<(), WorkloadError> {
        Ok(())
    }

    /// One measured sample. Report every operation through `rec`; check `ctx.cancel` at least
    /// every few milliseconds.
    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError>;

    /// Unmeasured checks after each sample (`verify=true`: the blocks written are read back and
    /// checked); the metrics it returns join the sample's, and an error fails the sample.
    fn after_sample(&mut self, _ctx: &Context) -> Result<Vec<(String, f64)>, WorkloadError> {
        Ok(Vec::new())
    }

    /// Removes what `prepare` and `run` made (the scratch directory is removed afterwards anyway).
    fn cleanup(&mut self, _ctx: &Context) -> Result<(), WorkloadError> {
        Ok(())
    }

    /// Files whose page cache a cold sample drops and whose residency is then measured.
    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf>;

    /// Whether `run` or `prepare` writes to the target (refused on read-only targets and, without
    /// `--allow-destroy`, on devices).
    fn writes(&self) -> bool;

    /// Bytes of free space `prepare` and `run` need on the target, when known in advance.
    fn space_needed(&self) -> u64 {
        0
    }

    /// Inodes (files and directories) `prepare` and `run` create at most, when known in advance.
    fn inodes_needed(&self) -> u64 {
        0
    }

    /// The parameter that makes this workload smaller (`size`, `scale`, `number`), for hints.
    fn size_knob(&self) -> &'static str {
        "size"
    }

    /// What the reader should know about how this workload runs on its target, settled in
    /// `prepare` (e.g. why `direct=auto` uses buffered I/O there).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }

    /// Metrics shown next to the headline in tables (large-file: its write MiB/s beside the
    /// read MiB/s, as its seed reports both).
    fn also_shown(&self) -> &'static [&'static str] {
        &[]
    }

    /// The headline metric of this workload.
    fn headline(&self) -> Headline;

    /// Whether `run` can read a block device directly (no scratch directory needed).
    fn supports_device(&self) -> bool {
        false
    }

    /// True when a cold sample needs a system-wide drop (dentries and inodes, not only file
    /// pages): metadata workloads such as walks. Per-file fadvise cannot make them cold.
    fn cold_needs_global(&self) -> bool {
        false
    }

    /// True when the workload adds its work to `ctx.progress` as it goes (a walk, per
    /// directory) instead of timing operations: the runner then reads that counter every
    /// interval for the sample's time series.
    fn counts_progress(&self) -> bool {
        false
    }

    /// True when a sample reads an existing tree's directories and inodes (walk, status-scan,
    /// null-build, tar-delete): a cold sample must then read them from the device, which is how
    /// the runner verifies that it started cold.
    fn reads_tree(&self) -> bool {
        false
    }

    /// Which way its `bytes` go, so that they can be checked against the device's counters.
    fn flow(&self) -> Flow {
        Flow::Other
    }

    /// Whether the workload can run with `--layout shared` under MPI: every rank in one
    /// directory, on one file segmented by rank (data workloads) or in shared directories
    /// (metadata workloads), reading `ctx.ranks`. Others run only with their own directory.
    fn supports_shared(&self) -> bool {
        false
    }
}
