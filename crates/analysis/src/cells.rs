//! After a run: compare every cell's headline metric against its baseline, ministat-style
//! (pooled Student's t). Several targets: each target against the first, per workload and cache
//! state. One target measured cold and warm: warm against cold. At ministat's levels (80, 90,
//! 95, 98, 99) the critical t comes from ministat's table, so the verdict is the one
//! `ministat -c LEVEL` gives on the same samples; other levels use the exact t.

use fsbench_model::{CacheState, Comparison, ResultEntry, RunRecord};
use fsbench_stats::{Method, compare, compare_ministat, ministat};

use fsbench_model::names::CellNames;
use fsbench_model::names::cell_label;

/// The headline values of a cell, in sampling order.
pub fn values(r: &ResultEntry) -> Vec<f64> {
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
                b.cache.state == CacheState::Cold
                    && r.cache.state == CacheState::Warm
                    && same_workload(b, r)
            })
        };
        if let Some(b) = baseline.filter(|&b| b != i) {
            pairs.push((b, i));
        }
    }
    let comparisons = pairs
        .into_iter()
        .filter_map(|(b, o)| labelled(rs, (b, o), confidence))
        .collect();
    record.comparisons = comparisons;
}

/// The comparison of cell `o` of `results` against cell `b`, labelled with the names that tell
/// two cells of one workload apart ([`CellNames`]).
pub fn labelled(
    results: &[ResultEntry],
    (b, o): (usize, usize),
    confidence: f64,
) -> Option<Comparison> {
    let names = CellNames::new(results);
    let mut c = one(&results[b], &results[o], confidence)?;
    c.baseline = names.label(results, b);
    c.other = names.label(results, o);
    Some(c)
}

/// The comparison of `other` against `base` on the baseline's headline metric (`None` with too
/// few samples, or when the difference in % is undefined: a baseline mean of zero), with the
/// comparability check.
pub fn one(base: &ResultEntry, other: &ResultEntry, confidence: f64) -> Option<Comparison> {
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
    // A baseline whose mean is zero (a command timed at 0 ns) has no difference in %: no
    // comparison, rather than a NaN that JSON stores as null and no record can load again.
    if ![d.difference, d.ci_half, d.difference_pct, d.ci_half_pct]
        .iter()
        .all(|v| v.is_finite())
    {
        return None;
    }
    let reasons = not_comparable(base, other);
    let how = how_to_compare(base, other, &reasons);
    Some(Comparison {
        how_to_compare: how,
        decision: None,
        comparable: reasons.is_empty(),
        proven: d.proven && reasons.is_empty(),
        not_comparable: reasons,
        metric: base.headline.clone(),
        baseline: cell_label(base),
        other: cell_label(other),
        confidence,
        difference: d.difference,
        ci_half: d.ci_half,
        difference_pct: d.difference_pct,
        ci_half_pct: d.ci_half_pct,
        method: method.into(),
    })
}

/// Mean of `metric` over a cell's samples, when every sample has it.
fn mean_of(r: &ResultEntry, metric: &str) -> Option<f64> {
    let v: Vec<f64> = r
        .samples
        .iter()
        .map(|s| s.metrics.get(metric).copied())
        .collect::<Option<_>>()?;
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The share of a cell's pages cached before its samples: the cell's, or while it is still
/// being sampled, the mean of its samples' so far.
fn resident(r: &ResultEntry) -> Option<f64> {
    r.cache.resident_pct.or_else(|| {
        let v: Vec<f64> = r.samples.iter().filter_map(|s| s.resident_pct).collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    })
}

/// How much of a cell's data was in the page cache before its samples.
fn residency_band(pct: f64) -> &'static str {
    match pct {
        p if p < 10.0 => "uncached",
        p if p <= 90.0 => "partly cached",
        _ => "cached",
    }
}

/// Why two cells cannot be compared, in words; empty when they ran under like conditions. The
/// cells' cache states may differ on purpose (cold against warm); everything else must match.
pub fn not_comparable(a: &ResultEntry, b: &ResultEntry) -> Vec<String> {
    let mut why = Vec::new();
    let trace = |e: &ResultEntry| e.params.get(fsbench_model::param::TRACE_ID).cloned();
    if trace(a) != trace(b) {
        why.push(format!(
            "replays of different traces ({} vs {}): their calls are not the same work",
            trace(a).unwrap_or_else(|| "none".into()),
            trace(b).unwrap_or_else(|| "none".into())
        ));
    } else if a.workload != b.workload || a.params != b.params || a.sweep != b.sweep {
        why.push("different workloads or parameters".to_string());
    }
    let (da, db) = (
        mean_of(a, fsbench_model::metric::DIRECT_USED),
        mean_of(b, fsbench_model::metric::DIRECT_USED),
    );
    if da != db {
        let show = |d: Option<f64>| match d {
            Some(1.0) => "direct I/O".to_string(),
            Some(0.0) | None => "buffered I/O".to_string(),
            Some(f) => format!("direct I/O in {:.0}% of samples", f * 100.0),
        };
        why.push(format!(
            "{} used {} but {} used {}",
            a.target,
            show(da),
            b.target,
            show(db)
        ));
    }
    if a.profile.is_some() != b.profile.is_some() {
        let (with, without) = match a.profile.is_some() {
            true => (&a.target, &b.target),
            false => (&b.target, &a.target),
        };
        why.push(format!(
            "{with} was profiled (--profile) but {without} was not: profiling costs a cell up to a third of its rate where every operation waits for a device (docs/methodology.md)"
        ));
    }
    let both_direct = da == Some(1.0) && db == Some(1.0);
    if a.cache.state == b.cache.state && a.cache.method != b.cache.method {
        why.push(format!(
            "cache made {} by {} vs {}",
            a.cache.state, a.cache.method, b.cache.method
        ));
    }
    for r in [a, b] {
        let verified = mean_of(r, fsbench_model::metric::COLD_VERIFIED);
        if let Some(v) = verified.filter(|&v| v < 1.0 && r.cache.state == CacheState::Cold) {
            why.push(format!(
                "{}'s cold samples were not verified cold ({:.0}% were): its tree's dentries and inodes did not come from the device",
                r.target,
                v * 100.0
            ));
        }
    }
    if let (Some(ra), Some(rb)) = (resident(a), resident(b)) {
        let (ba, bb) = (residency_band(ra), residency_band(rb));
        if a.cache.state == b.cache.state && !both_direct && ba != bb {
            why.push(format!(
                "{} started {ba} ({ra:.0}% of pages) but {} {bb} ({rb:.0}%)",
                a.target, b.target
            ));
        }
    }
    why
}

/// The change that would make `a` and `b` comparable, in words, given why they are not; `None`
/// when they are comparable or nothing fsbench can change would help (different workloads).
pub fn how_to_compare(a: &ResultEntry, b: &ResultEntry, reasons: &[String]) -> Option<String> {
    if reasons.is_empty() {
        return None;
    }
    let mut fixes: Vec<String> = Vec::new();
    let has = |needle: &str| reasons.iter().any(|r| r.contains(needle));
    if has(" I/O but ") || has("direct I/O in") {
        fixes.push(
            "run both buffered (direct=false, or rerun with --fix-comparable): direct I/O is not available on every target, and on FUSE it reaches the daemon only".into(),
        );
    }
    let cold = a.cache.state == CacheState::Cold || b.cache.state == CacheState::Cold;
    if cold && (has("not verified cold") || has("cached (")) {
        fixes.push(
            "compare warm results (--cache warm): one target cannot be made cold (it keeps its data in memory, or its cache survived the drop)".into(),
        );
    }
    if has("cache made") {
        fixes.push(
            "make both cold the same way (the same --cold-cmd, or drop_caches as root)".into(),
        );
    }
    if has("was profiled (--profile)") {
        fixes.push("run both with --profile, or both without".into());
    }
    if has("uncached") && !has("not verified cold") && !has("cached (") {
        fixes.push("run as root so drop_caches empties every target's cache".into());
    }
    (!fixes.is_empty()).then(|| fixes.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profiled_cell_is_not_compared_with_an_unprofiled_one() {
        let a = cell("ext4", &[1.0, 2.0]);
        let mut b = cell("xfs", &[1.0, 2.0]);
        assert!(not_comparable(&a, &b).is_empty());
        b.profile = Some(fsbench_model::Profile::default());
        let why = not_comparable(&a, &b);
        assert_eq!(why.len(), 1, "{why:?}");
        assert!(
            why[0].starts_with("xfs was profiled (--profile) but ext4 was not"),
            "{why:?}"
        );
        assert_eq!(
            how_to_compare(&a, &b, &why).as_deref(),
            Some("run both with --profile, or both without")
        );
    }

    fn cell(target: &str, values: &[f64]) -> ResultEntry {
        let samples: Vec<serde_json::Value> = values
            .iter()
            .map(|v| {
                serde_json::json!({"wall_ns": 1, "user_ns": 0, "sys_ns": 0, "ops": 1, "bytes": 0,
                    "metrics": {"command_ns": v}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "target": target, "workload": "command", "params": {"run": "true"},
            "cache": {"state": "warm", "method": "none", "resident_pct": null},
            "headline": "command_ns", "samples": samples, "summary": {}
        }))
        .expect("a valid cell")
    }

    #[test]
    fn a_baseline_of_zero_gives_no_comparison_rather_than_nan() {
        let zero = cell("a", &[0.0, 0.0, 0.0]);
        let some = cell("b", &[1.0, 2.0, 3.0]);
        assert!(one(&zero, &some, 95.0).is_none());
        let c = one(&some, &cell("c", &[2.0, 3.0, 4.0]), 95.0).expect("compared");
        assert!(c.difference_pct.is_finite());
    }
}
