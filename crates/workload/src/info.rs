//! What a workload is: its registry entry (name, parameters, how to build it) and, once built,
//! its fixed facts. The engines declare their entry here without depending on the registry that
//! lists them (no import circle between `registry` and `engines`).

use crate::Workload;
use crate::params::{ParamDoc, ParamError, Params};
use std::collections::BTreeMap;

/// How to find, document and build one workload.
#[derive(Clone, Copy)]
pub struct WorkloadInfo {
    /// Stable name used in the CLI, job files, JSON and the store.
    pub name: &'static str,
    /// One line on what it measures.
    pub summary: &'static str,
    /// Its parameters.
    pub params: &'static [ParamDoc],
    /// Builds an instance from parameters (the caller checks for unknown keys afterwards).
    pub build: fn(&mut Params) -> Result<Box<dyn Workload>, ParamError>,
    /// It can split its work among MPI ranks in one directory (`--layout shared`): one file
    /// segmented by rank, or shared directories; whatever its parameters.
    pub shared: bool,
}

impl std::fmt::Debug for WorkloadInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkloadInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Which way a workload's counted bytes go, so that the device's own counters can say how much
/// of them it served (reads) or received (writes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flow {
    /// Its bytes are read (seq-read, rand-read, latency).
    Read,
    /// Its bytes are written; `durable` when they are flushed (fsync) before the sample ends.
    Write {
        /// Flushed before the sample ends.
        durable: bool,
    },
    /// Half its bytes are written and flushed, then read back (large-file).
    WriteThenRead,
    /// Metadata or mixed work: its bytes are not compared with the device's.
    #[default]
    Other,
}

/// What a workload is, fixed once its parameters are: its capabilities, headline metric and
/// needs. Read once at build time, so that nobody builds a workload again to ask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Caps {
    /// The headline metric.
    pub headline: crate::Headline,
    /// It writes to the target (refused on read-only targets and, without `--allow-destroy`,
    /// on devices).
    pub writes: bool,
    /// Bytes of free space it needs on the target, when known in advance (0: unknown).
    pub space_needed: u64,
    /// Inodes it creates at most, when known in advance (0: unknown).
    pub inodes_needed: u64,
    /// The parameter that makes it smaller, for hints.
    pub size_knob: &'static str,
    /// Metrics shown next to the headline in tables.
    pub also_shown: &'static [&'static str],
    /// It can read a block device directly.
    pub supports_device: bool,
    /// A cold sample needs a system-wide drop (dentries and inodes), not only file pages.
    pub cold_needs_global: bool,
    /// Which way its bytes go.
    pub flow: Flow,
    /// A sample reads an existing tree's metadata (a cold one must read it from the device).
    pub reads_tree: bool,
    /// It adds its work to the context's progress counter as it goes (its series is read from
    /// there).
    pub counts_progress: bool,
    /// The phase that starts each sample, when other phases (other operations) follow it in the
    /// same series: cliffs are judged within it (`tree-create`'s `create`, before its stat and
    /// delete); `None` judges the whole series.
    pub cliff_phase: Option<&'static str>,
    /// Its rate changes by design (a replayed program's mix of calls: a start-up that reads
    /// megabytes, then thousands of lstats that move none): no fall of it is judged a cliff.
    pub mixed_rate: bool,
}

impl Caps {
    /// The facts of a workload with `headline` that reads only, needs nothing known in
    /// advance and has none of the optional abilities; workloads override what differs
    /// (`Caps { writes: true, ..Caps::base(Headline::Throughput) }`).
    pub const fn base(headline: crate::Headline) -> Self {
        Self {
            headline,
            writes: false,
            space_needed: 0,
            inodes_needed: 0,
            size_knob: crate::knobs::io::SIZE.key,
            also_shown: &[],
            supports_device: false,
            cold_needs_global: false,
            flow: Flow::Other,
            reads_tree: false,
            counts_progress: false,
            cliff_phase: None,
            mixed_rate: false,
        }
    }
}

/// A built workload: the instance, its canonical parameters (defaults included) and its fixed
/// facts.
pub struct Built {
    /// The instance, ready to prepare.
    pub workload: Box<dyn Workload>,
    /// Canonical parameters, defaults included.
    pub params: BTreeMap<String, String>,
    /// Its fixed facts.
    pub caps: Caps,
    /// The files and directories its parameters name that it only reads.
    pub inputs: Vec<crate::params::Input>,
}
