//! The registry: every workload by its stable kebab-case name, with its parameter table.

use crate::Workload;
use crate::engines;
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
}

impl std::fmt::Debug for WorkloadInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkloadInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Every workload, in the order `fsbench` lists them.
const REGISTRY: &[WorkloadInfo] = &[
    engines::seq_write::INFO,
    engines::seq_read::INFO,
    engines::rand_io::READ_INFO,
    engines::rand_io::WRITE_INFO,
    engines::latency::INFO,
    engines::rand_io::SEEK_INFO,
    engines::large_file::INFO,
    engines::tree_create::INFO,
    engines::walk::INFO,
    engines::status_scan::INFO,
    engines::null_build::INFO,
    engines::command::INFO,
    engines::postmark::INFO,
    engines::tar_io::EXTRACT_INFO,
    engines::tar_io::DELETE_INFO,
    engines::null::INFO,
];

/// Names of all workloads.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|w| w.name).collect()
}

/// The workload called `name`, if any.
pub fn find(name: &str) -> Option<&'static WorkloadInfo> {
    REGISTRY.iter().find(|w| w.name == name)
}

/// The known workload name closest to `name`, for "did you mean".
pub fn suggest(name: &str) -> Option<&'static str> {
    closest(name, &names())
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
    /// It can split its work among MPI ranks in one directory (`--layout shared`).
    pub supports_shared: bool,
}

impl Caps {
    /// The fixed facts of `w`.
    pub fn of(w: &dyn Workload) -> Self {
        Self {
            headline: w.headline(),
            writes: w.writes(),
            space_needed: w.space_needed(),
            inodes_needed: w.inodes_needed(),
            size_knob: w.size_knob(),
            also_shown: w.also_shown(),
            supports_device: w.supports_device(),
            cold_needs_global: w.cold_needs_global(),
            supports_shared: w.supports_shared(),
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
}

/// Builds workload `info` from `params`, or returns the first parameter error.
pub fn build(info: &WorkloadInfo, mut params: Params) -> Result<Built, ParamError> {
    let workload = (info.build)(&mut params)?;
    let canonical = params.finish(info.params)?;
    let caps = Caps::of(workload.as_ref());
    Ok(Built {
        workload,
        params: canonical,
        caps,
    })
}

/// The candidate closest to `word` by edit distance, when it is close enough to be a likely typo.
pub(crate) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), *c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_kebab_case() {
        let n = names();
        for (i, a) in n.iter().enumerate() {
            assert!(a.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{a}");
            assert!(!n[i + 1..].contains(a), "duplicate {a}");
        }
    }

    #[test]
    fn typos_get_suggestions() {
        assert_eq!(closest("nul", &["null", "seq-read"]), Some("null"));
        assert_eq!(closest("zzzzzzzz", &["null", "seq-read"]), None);
    }
}
