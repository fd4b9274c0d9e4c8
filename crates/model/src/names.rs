//! What to call a cell so that two of a kind differ: a workload's `label=` parameter when it has
//! one, else its name, swept values and the parameters that differ from the other cells of the
//! same workload on the same target (two `command` cells become `command run='git status'` and
//! `command run='git status -uall'`). Every report and every comparison label uses these names.

use crate::ResultEntry;
use std::collections::{BTreeMap, BTreeSet};

/// The parameter that names a workload in every report (`-w command:run=...,label=uc-off`).
pub const LABEL_PARAM: &str = "label";

/// Display names of the cells of one record, by index.
#[derive(Debug, Clone)]
pub struct CellNames {
    /// The workload without its swept values, by cell.
    bases: Vec<String>,
    /// The swept values (` workers=2`), by cell; empty outside a sweep.
    sweeps: Vec<String>,
}

/// `key=value`, quoted when the value has spaces or commas.
fn pair(k: &str, v: &str) -> String {
    if v.contains([' ', ',', '\'']) || v.is_empty() {
        format!("{k}='{}'", v.replace('\'', "’"))
    } else {
        format!("{k}={v}")
    }
}

/// Parameter keys whose values differ between cells of the same workload on the same target.
fn differing_keys(results: &[ResultEntry]) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut groups: BTreeMap<(&str, &str), Vec<&ResultEntry>> = BTreeMap::new();
    for r in results {
        groups
            .entry((r.target.as_str(), r.workload.as_str()))
            .or_default()
            .push(r);
    }
    let mut out: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for ((_, workload), cells) in groups {
        let keys: BTreeSet<&str> = cells
            .iter()
            .flat_map(|c| c.params.keys().map(String::as_str))
            .collect();
        for k in keys {
            if k == LABEL_PARAM || cells.iter().any(|c| c.sweep.contains_key(k)) {
                continue;
            }
            let first = cells[0].params.get(k);
            if cells.iter().any(|c| c.params.get(k) != first) {
                out.entry(workload).or_default().insert(k);
            }
        }
    }
    out
}

impl CellNames {
    /// Names for `results` (one record's cells).
    pub fn new(results: &[ResultEntry]) -> Self {
        let keys = differing_keys(results);
        let bases = results
            .iter()
            .map(
                |r| match r.params.get(LABEL_PARAM).filter(|l| !l.is_empty()) {
                    Some(l) => l.clone(),
                    None => {
                        let mut s = r.workload.clone();
                        for k in keys.get(r.workload.as_str()).into_iter().flatten() {
                            if let Some(v) = r.params.get(*k) {
                                s.push(' ');
                                s.push_str(&pair(k, v));
                            }
                        }
                        s
                    }
                },
            )
            .collect();
        let sweeps = results
            .iter()
            .map(|r| {
                r.sweep
                    .iter()
                    .map(|(k, v)| format!(" {}", pair(k, v)))
                    .collect()
            })
            .collect();
        Self { bases, sweeps }
    }

    /// The workload as the reader knows it (`walk workers=2`, `command run='git status'`).
    pub fn workload(&self, i: usize) -> String {
        format!("{}{}", self.base(i), self.sweep(i))
    }

    /// The workload without its swept values (`walk`, `command run='git status'`).
    pub fn base(&self, i: usize) -> &str {
        self.bases.get(i).map_or("", String::as_str)
    }

    /// The swept values with a leading space (` workers=2`), or empty.
    pub fn sweep(&self, i: usize) -> &str {
        self.sweeps.get(i).map_or("", String::as_str)
    }

    /// `target/workload/cache`, the label comparisons use.
    pub fn label(&self, results: &[ResultEntry], i: usize) -> String {
        let r = &results[i];
        format!("{}/{}/{}", r.target, self.workload(i), r.cache.state)
    }

    /// The index of the cell a comparison calls `label`: by these names, or by the plain
    /// label older records used (`target/workload[ sweep]/cache`).
    pub fn find(&self, results: &[ResultEntry], label: &str) -> Option<usize> {
        (0..results.len())
            .find(|&i| self.label(results, i) == label)
            .or_else(|| results.iter().position(|r| cell_label(r) == label))
    }
}

/// The label older records' comparisons use for a cell (`target/workload[ sweep]/cache`); the
/// reports name cells with [`CellNames`], which tells two cells of one workload apart.
pub fn cell_label(r: &ResultEntry) -> String {
    let sweep: String = r.sweep.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    format!("{}/{}{}/{}", r.target, r.workload, sweep, r.cache.state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CacheInfo, CacheState, RunRecord};

    /// A record of rand-read, cold, on the targets `ext4` and `x,y|z`.
    fn record() -> RunRecord {
        let entry = |target: &str| ResultEntry {
            target: target.into(),
            workload: "rand-read".into(),
            params: BTreeMap::from([("bs".to_string(), "4k".to_string())]),
            sweep: BTreeMap::new(),
            cache: CacheInfo {
                state: CacheState::Cold,
                method: "drop_caches".into(),
                resident_pct: Some(0.0),
            },
            headline: crate::metric::IOPS.into(),
            also_shown: Vec::new(),
            samples: Vec::new(),
            summary: BTreeMap::new(),
            precision_reached: None,
            steady: None,
            warnings: Vec::new(),
            error: None,
            bound: None,
            profile: None,
        };
        RunRecord {
            schema_version: crate::SCHEMA_VERSION,
            run: Default::default(),
            environment: Default::default(),
            overhead: Default::default(),
            results: vec![entry("ext4"), entry("x,y|z")],
            comparisons: Vec::new(),
            scaling: Vec::new(),
            cards: Vec::new(),
        }
    }

    #[test]
    fn two_cells_of_one_workload_are_told_apart_by_what_differs_or_their_label() {
        let mut r = record();
        let mut second = r.results[0].clone();
        r.results[0].workload = "command".into();
        r.results[0]
            .params
            .insert("run".into(), "git status".into());
        second.workload = "command".into();
        second
            .params
            .insert("run".into(), "git status -uall".into());
        r.results.insert(1, second);
        let names = CellNames::new(&r.results);
        assert_eq!(names.workload(0), "command run='git status'");
        assert_eq!(names.workload(1), "command run='git status -uall'");
        assert_eq!(names.workload(2), "rand-read");
        assert_eq!(
            names.label(&r.results, 1),
            "ext4/command run='git status -uall'/cold"
        );
        assert_eq!(
            names.find(&r.results, "ext4/command run='git status -uall'/cold"),
            Some(1)
        );
        r.results[1]
            .params
            .insert(LABEL_PARAM.into(), "uc-on".into());
        let names = CellNames::new(&r.results);
        assert_eq!(names.workload(1), "uc-on");
    }

    #[test]
    fn the_same_workload_on_two_targets_is_just_its_name() {
        let r = record();
        let names = CellNames::new(&r.results);
        assert_eq!(names.workload(0), "rand-read");
        assert_eq!(names.workload(1), "rand-read");
        assert_eq!(names.find(&r.results, "x,y|z/rand-read/cold"), Some(1));
    }
}
