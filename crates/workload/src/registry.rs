//! The registry: every workload by its stable kebab-case name, with its parameter table.

use crate::engines;
use crate::info::{Built, WorkloadInfo};
use crate::params::{ParamError, Params};

/// Every workload, in the order `fsbench` lists them.
const REGISTRY: &[WorkloadInfo] = &[
    engines::seq_write::INFO,
    engines::seq_read::INFO,
    engines::rand_read::INFO,
    engines::rand_write::INFO,
    engines::latency::INFO,
    engines::seek_rate::INFO,
    engines::large_file::INFO,
    engines::tree_create::INFO,
    engines::walk::INFO,
    engines::status_scan::INFO,
    engines::null_build::INFO,
    engines::command::INFO,
    engines::replay::INFO,
    engines::postmark::INFO,
    engines::tar_extract::INFO,
    engines::tar_delete::INFO,
    engines::fx::INFO,
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
    crate::params::closest(name, &names())
}

/// The key of the parameter every workload takes: a name for the cell in every report
/// ([`crate::knobs::every::LABEL`]).
pub const LABEL: &str = crate::knobs::every::LABEL.key;

/// Builds workload `info` from `params`, or returns the first parameter error.
pub fn build(info: &WorkloadInfo, mut params: Params) -> Result<Built, ParamError> {
    crate::knobs::every::LABEL.read(&mut params)?;
    let workload = (info.build)(&mut params)?;
    let inputs = params.inputs().to_vec();
    let canonical = params.finish(info.params)?;
    let caps = workload.caps();
    Ok(Built {
        workload,
        params: canonical,
        caps,
        inputs,
    })
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
    fn every_workload_takes_a_label_and_records_it() {
        let info = crate::find("null").expect("null is registered");
        let raw = [("label".to_string(), "mine".to_string())]
            .into_iter()
            .collect();
        let built = build(info, Params::new(raw)).expect("label is accepted");
        assert_eq!(built.params.get(LABEL).map(String::as_str), Some("mine"));
    }

    #[test]
    fn typos_get_suggestions() {
        assert_eq!(
            crate::params::closest("nul", &["null", "seq-read"]),
            Some("null")
        );
        assert_eq!(
            crate::params::closest("zzzzzzzz", &["null", "seq-read"]),
            None
        );
    }
}
