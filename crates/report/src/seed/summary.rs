//! The plain-language summary that ends the `quick` and `fs-shootout` suites: per workload the
//! cold and warm headline, where the page cache matters most, which target is fastest and
//! slowest, and what could not be measured cold and why. A pure function of the record.

use crate::format::metric_value;
use fsbench_model::{Better, CacheState, ResultEntry, RunRecord, unit_of};
use std::fmt::Write;

fn mean(r: &ResultEntry) -> Option<f64> {
    r.summary
        .get(&r.headline)
        .map(|s| s.mean)
        .filter(|v| v.is_finite())
}

/// `seq-read`, `walk workers=2` for a swept cell, `command run='git status'` for one of two
/// command cells ([`crate::names::CellNames`]).
fn name(record: &RunRecord, r: &ResultEntry) -> String {
    let i = record
        .results
        .iter()
        .position(|x| std::ptr::eq(x, r))
        .expect("invariant: r is one of the record's cells");
    crate::names::CellNames::new(&record.results).workload(i)
}

fn find<'a>(
    record: &'a RunRecord,
    target: &str,
    w: &str,
    cache: CacheState,
) -> Option<&'a ResultEntry> {
    record
        .results
        .iter()
        .find(|r| r.target == target && r.cache.state == cache && name(record, r) == w)
}

/// The summary of `record`, a few lines of text.
pub fn render(record: &RunRecord) -> String {
    let mut out = String::from("\nSummary\n");
    let mut targets: Vec<&str> = Vec::new();
    let mut workloads: Vec<String> = Vec::new();
    for r in &record.results {
        if !targets.contains(&r.target.as_str()) {
            targets.push(&r.target);
        }
        let n = name(record, r);
        if !workloads.contains(&n) {
            workloads.push(n);
        }
    }
    for t in &targets {
        per_target(record, t, &workloads, &mut out);
    }
    if targets.len() > 1 {
        ranking(record, &targets, &workloads, &mut out);
    }
    not_cold(record, &targets, &workloads, &mut out);
    out
}

/// One line per workload (cold and warm), then where the cache matters most.
fn per_target(record: &RunRecord, t: &str, workloads: &[String], out: &mut String) {
    let _ = writeln!(out, "- {t}:");
    let mut biggest: Option<(f64, &str)> = None;
    for w in workloads {
        let (cold, warm) = (
            find(record, t, w, CacheState::Cold),
            find(record, t, w, CacheState::Warm),
        );
        let Some(any) = cold.or(warm) else { continue };
        let show =
            |c: Option<&ResultEntry>| c.and_then(mean).map(|v| metric_value(&any.headline, v));
        let text = match (show(cold), show(warm)) {
            (Some(c), Some(w)) => format!("{c} cold, {w} warm"),
            (Some(c), None) => format!("{c} cold"),
            (None, Some(w)) => format!("{w} warm"),
            (None, None) => "not measured".into(),
        };
        let _ = writeln!(
            out,
            "    {w} ({}): {text}",
            fsbench_model::label_of(&any.headline)
        );
        if let (Some(c), Some(h)) = (cold.and_then(mean), warm.and_then(mean)) {
            let ratio = speedup(&any.headline, c, h);
            if ratio > biggest.map_or(0.0, |b| b.0) {
                biggest = Some((ratio, w.as_str()));
            }
        }
    }
    if let Some((ratio, w)) = biggest.filter(|b| b.0 >= 1.5) {
        let _ = writeln!(
            out,
            "    the page cache matters most for {w}: warm is {ratio:.1}x faster than cold"
        );
    }
    let (fast, slow) = cold_verdicts(record, t, workloads);
    if !fast.is_empty() {
        let _ = writeln!(
            out,
            "    fast even cold (within 1.5x of warm): {}",
            fast.join(", ")
        );
    }
    if !slow.is_empty() {
        let _ = writeln!(
            out,
            "    slow when not cached (warm 1.5x faster or more): {}",
            slow.join(", ")
        );
    }
}

/// Workloads whose cold result is close to warm (fast), and those far from it (slow).
fn cold_verdicts(record: &RunRecord, t: &str, workloads: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut fast, mut slow) = (Vec::new(), Vec::new());
    for w in workloads {
        let (Some(c), Some(h)) = (
            find(record, t, w, CacheState::Cold),
            find(record, t, w, CacheState::Warm),
        ) else {
            continue;
        };
        let (Some(cv), Some(hv)) = (mean(c), mean(h)) else {
            continue;
        };
        match speedup(&c.headline, cv, hv) {
            r if r < 1.5 => fast.push(w.clone()),
            _ => slow.push(w.clone()),
        }
    }
    (fast, slow)
}

/// How many times better `b` is than `a` for a metric of this direction.
fn speedup(metric: &str, a: f64, b: f64) -> f64 {
    match unit_of(metric).1 {
        Better::Higher => b / a,
        Better::Lower => a / b,
    }
}

/// Fastest and slowest target per workload and cache state.
fn ranking(record: &RunRecord, targets: &[&str], workloads: &[String], out: &mut String) {
    let _ = writeln!(out, "- fastest and slowest target:");
    for w in workloads {
        for cache in [CacheState::Cold, CacheState::Warm] {
            let cells: Vec<(&str, f64, &str)> = targets
                .iter()
                .filter_map(|t| {
                    find(record, t, w, cache)
                        .and_then(|r| mean(r).map(|v| (*t, v, r.headline.as_str())))
                })
                .collect();
            let Some(&(_, _, metric)) = cells.first() else {
                continue;
            };
            if cells.len() < 2 {
                continue;
            }
            let better = |a: &(&str, f64, &str), b: &(&str, f64, &str)| {
                speedup(metric, b.1, a.1).total_cmp(&1.0)
            };
            let best = cells
                .iter()
                .max_by(|a, b| better(a, b))
                .expect("invariant: two cells");
            let worst = cells
                .iter()
                .min_by(|a, b| better(a, b))
                .expect("invariant: two cells");
            let _ = writeln!(
                out,
                "    {w} {cache}: fastest {} ({}), slowest {} ({}, {:.1}x slower)",
                best.0,
                metric_value(metric, best.1),
                worst.0,
                metric_value(metric, worst.1),
                speedup(metric, worst.1, best.1)
            );
        }
    }
}

/// What could not be measured cold, and why: one line per target and reason.
fn not_cold(record: &RunRecord, targets: &[&str], workloads: &[String], out: &mut String) {
    let planned_cold = record
        .results
        .iter()
        .any(|r| r.cache.state == CacheState::Cold);
    if !planned_cold {
        let _ = writeln!(out, "- nothing was measured cold (--cache warm)");
        return;
    }
    for t in targets {
        let mut by_reason: Vec<(String, Vec<&str>)> = Vec::new();
        for w in workloads {
            let Some(reason) = why_not_cold(find(record, t, w, CacheState::Cold)) else {
                continue;
            };
            match by_reason.iter_mut().find(|(r, _)| *r == reason) {
                Some((_, ws)) => ws.push(w),
                None => by_reason.push((reason, vec![w])),
            }
        }
        for (reason, ws) in by_reason {
            let _ = writeln!(
                out,
                "- not measured cold on {t}: {} — {reason}",
                ws.join(", ")
            );
        }
    }
}

/// Why a planned cold cell gave no cold number; `None` when it did.
fn why_not_cold(cold: Option<&ResultEntry>) -> Option<String> {
    match cold {
        None => Some("they read metadata (dentries, inodes) that only drop_caches can drop, and fsbench is not root; run as root or give --cold-cmd".into()),
        Some(r) if r.error.is_some() => Some(format!("failed: {}", r.error.as_deref().unwrap_or(""))),
        Some(r) if r.warnings.iter().any(|x| x.kind == fsbench_model::WarningKind::NotCold) => {
            Some("their pages stayed in memory after the drop (tmpfs, or a FUSE or network filesystem): reported as not cold".into())
        }
        _ => None,
    }
}
