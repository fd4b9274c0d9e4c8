//! Workloads: named, parameterised sequences of filesystem operations. Each has an unmeasured
//! `prepare`, a measured `run` (one sample, reported through a `Recorder`) and a `cleanup`.
//!
//! A workload never prints, never reads flags or the environment and never picks units: it gets
//! typed parameters (parsed from `key=value` by [`Params`]), a [`Context`] (its scratch directory
//! or a device, and a cancel token) and a recorder. A new workload is one file in `engines/` plus
//! one line in `registry.rs`.
#![warn(missing_docs)]

mod engines;
pub mod fx;
mod info;
pub mod knob;
pub mod knobs;
mod params;
mod registry;

#[cfg(test)]
mod testutil;

pub use fsbench_io::{CancelToken, Context, RankSync, Ranks, Recorder, Target, WorkloadError};
pub use info::{Built, Caps, Flow, WorkloadInfo};
pub use knob::Knob;
pub use params::{
    Input, ParamDoc, ParamError, ParamKind, Params, PathKind, Scale, check_quotes, split_top_level,
};
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

    /// What the last sample's calls took, by kind, with its slowest calls (a replay's, taken
    /// once after each sample, untimed); `None` for a workload that does not time calls one by
    /// one.
    fn call_times(&mut self) -> Option<fsbench_model::CallTimes> {
        None
    }

    /// When the last sample's calls ran, on which threads (a replay's, read before
    /// [`Workload::call_times`], untimed): a profile puts each thread's waits on them.
    fn call_windows(&self) -> Option<fsbench_model::calls::CallWindows> {
        None
    }

    /// Files whose page cache a cold sample drops and whose residency is then measured.
    fn cache_files(&self, ctx: &Context) -> Vec<PathBuf>;

    /// Its fixed facts (headline, whether it writes, what it needs, what it can do), settled
    /// once its parameters are: read once at build time into [`Built::caps`], so that nobody
    /// builds a workload again to ask.
    fn caps(&self) -> Caps;

    /// What the reader should know about how this workload runs on its target, settled in
    /// `prepare` (e.g. why `direct=auto` uses buffered I/O there).
    fn notes(&self) -> Vec<String> {
        Vec::new()
    }
}
