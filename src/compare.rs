//! After a run: compare every cell's headline metric against its baseline, ministat-style
//! (pooled Student's t). Several targets: each target against the first, per workload and cache
//! state. One target measured cold and warm: warm against cold. At ministat's levels (80, 90,
//! 95, 98, 99) the critical t comes from ministat's table, so the verdict is the one
//! `ministat -c LEVEL` gives on the same samples; other levels use the exact t.

use fsbench_model::{Comparison, ResultEntry, RunRecord};
use fsbench_stats::{Method, compare, compare_ministat, ministat};

use fsbench_report::terminal::label_of as cell_label;

fn values(r: &ResultEntry) -> Vec<f64> {
    r.samples
        .iter()
        .filter_map(|s| s.metrics.get(&r.headline).copied())
        .collect()
}

/// The same workload with the same parameters (sweep included).
fn same_workload(a: &ResultEntry, b: &ResultEntry) -> bool {
    a.workload == b.workload && a.params == b.params && a.sweep == b.sweep
}

/// Adds the comparisons of `record` at `confidence` percent.
pub fn attach(record: &mut RunRecord, confidence: f64) {
    let rs = &record.results;
    let targets: Vec<&String> = rs.iter().fold(Vec::new(), |mut v, r| {
        if !v.contains(&&r.target) {
            v.push(&r.target);
        }
        v
    });
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (i, r) in rs.iter().enumerate() {
        let baseline = if targets.len() > 1 {
            rs.iter().position(|b| {
                b.target == *targets[0] && b.cache.state == r.cache.state && same_workload(b, r)
            })
        } else {
            rs.iter().position(|b| {
                b.cache.state == "cold" && r.cache.state == "warm" && same_workload(b, r)
            })
        };
        if let Some(b) = baseline.filter(|&b| b != i) {
            pairs.push((b, i));
        }
    }
    let comparisons = pairs
        .into_iter()
        .filter_map(|(b, o)| one(&rs[b], &rs[o], confidence))
        .collect();
    record.comparisons = comparisons;
}

fn one(base: &ResultEntry, other: &ResultEntry, confidence: f64) -> Option<Comparison> {
    let (x, y) = (values(base), values(other));
    let (d, method) = match ministat::confidence_index(confidence).filter(|&i| i < 5) {
        Some(i) => (
            compare_ministat(&x, &y, i)?,
            "student-pooled (ministat table)",
        ),
        None => (
            compare(&x, &y, confidence / 100.0, Method::StudentPooled)?,
            "student-pooled",
        ),
    };
    Some(Comparison {
        metric: base.headline.clone(),
        baseline: cell_label(base),
        other: cell_label(other),
        confidence,
        difference: d.difference,
        ci_half: d.ci_half,
        difference_pct: d.difference_pct,
        ci_half_pct: d.ci_half_pct,
        proven: d.proven,
        method: method.into(),
    })
}
