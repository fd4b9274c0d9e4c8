//! A suite's comparison policy: which cells are compared with which after the run.

use fsbench_model::{CacheState, ComparePolicy, RunRecord};

/// The comparisons a suite asks for: `targets` (each target against the baseline), `cache` (warm against
/// cold on each target), `both`, or `none`; default: what `fsbench run` does.
pub fn suite_policy(policy: Option<ComparePolicy>, record: &mut RunRecord, confidence: f64) {
    let Some(policy) = policy else {
        return;
    };
    let mut out = Vec::new();
    if policy.targets() {
        let first = record
            .results
            .first()
            .map(|r| r.target.clone())
            .unwrap_or_default();
        let rs = &record.results;
        for (oi, o) in rs.iter().enumerate().filter(|(_, r)| r.target != first) {
            let base = rs
                .iter()
                .position(|b| b.target == first && b.cache.state == o.cache.state && same(b, o));
            out.extend(base.and_then(|b| crate::cells::labelled(rs, (b, oi), confidence)));
        }
    }
    if policy.cache() {
        let rs = &record.results;
        for (oi, o) in rs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.cache.state == CacheState::Warm)
        {
            let base = rs.iter().position(|b| {
                b.target == o.target && b.cache.state == CacheState::Cold && same(b, o)
            });
            out.extend(base.and_then(|b| crate::cells::labelled(rs, (b, oi), confidence)));
        }
    }
    record.comparisons = out;
}

fn same(a: &fsbench_model::ResultEntry, b: &fsbench_model::ResultEntry) -> bool {
    a.workload == b.workload && a.params == b.params && a.sweep == b.sweep
}
