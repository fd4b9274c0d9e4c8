//! The character card built from a card run's cells (`fx` cells: one per target × operation ×
//! job count): per operation the points (ops/s with its 95% interval, the CPU split over the
//! timed window, lock waits per operation from the profile), the best job count, the class up to
//! the CPU count, and the lock that stops it.
//!
//! The lock that stops an operation is the lock of the cell's own work whose wait per operation
//! grows with the jobs: at the most jobs it takes at least [`LOCK_SHARE`] of the jobs' time and
//! waits at least [`LOCK_GROWTH`] times as long per operation as at the fewest jobs (or did not
//! appear there). On a machine with fewer CPUs than jobs this still holds: a lock that
//! serializes an operation makes every extra job wait for it, whoever holds the CPUs.

use fsbench_model::card::{
    CARD_OPS, CARD_WORKLOAD, Card, CardCell, CardClass, CardLock, CardOp, CardPoint,
};
use fsbench_model::metric as k;
use fsbench_model::param;
use fsbench_model::{ResultEntry, RunKind, RunRecord};
use std::collections::BTreeMap;

/// A lock must take at least this share of the jobs' time at the most jobs to be named.
pub const LOCK_SHARE: f64 = 0.05;
/// …and its wait per operation must grow at least this much from the fewest jobs.
pub const LOCK_GROWTH: f64 = 2.0;
/// Efficiency (speed-up / jobs) at or above which an operation scales.
pub const SCALES_EFFICIENCY: f64 = 0.7;
/// Below this share of one job's ops/s, more jobs collapse the operation.
pub const COLLAPSE_SHARE: f64 = 0.8;

/// Sets `record.cards` when the run is a card (recomputed from its cells: a stored card is
/// rebuilt the same way).
pub fn attach(record: &mut RunRecord) {
    if record.run.kind == RunKind::Card {
        record.cards = cards(record);
    }
}

/// One card per target with `fx` cells, in the order the targets were measured.
pub fn cards(record: &RunRecord) -> Vec<Card> {
    let cpus = record.environment.cpus.max(1);
    let mut targets: Vec<&str> = Vec::new();
    for e in &record.results {
        if e.workload == CARD_WORKLOAD && !targets.contains(&e.target.as_str()) {
            targets.push(&e.target);
        }
    }
    targets
        .into_iter()
        .map(|t| card(t, cpus, &record.results))
        .collect()
}

fn card(target: &str, cpus: u32, results: &[ResultEntry]) -> Card {
    let cells = CARD_OPS
        .iter()
        .filter_map(|op| {
            let mut entries: Vec<(u32, &ResultEntry)> = results
                .iter()
                .filter(|e| e.target == target && e.workload == CARD_WORKLOAD)
                .filter(|e| e.params.get(param::OP).map(String::as_str) == Some(op.code))
                .filter(|e| !e.samples.is_empty())
                .filter_map(|e| Some((e.params.get(param::JOBS)?.parse().ok()?, e)))
                .collect();
            entries.sort_by_key(|(j, _)| *j);
            entries.dedup_by_key(|(j, _)| *j);
            (!entries.is_empty()).then(|| cell(op, cpus, &entries))
        })
        .collect();
    Card {
        target: target.to_string(),
        cpus,
        cells,
    }
}

fn cell(op: &CardOp, cpus: u32, entries: &[(u32, &ResultEntry)]) -> CardCell {
    let points: Vec<CardPoint> = entries.iter().map(|(j, e)| point(*j, e)).collect();
    let best_jobs = points
        .iter()
        .max_by(|a, b| a.ops_per_s.total_cmp(&b.ops_per_s))
        .map(|p| p.jobs);
    let (class, oversubscribed) = class(&points, cpus);
    CardCell {
        op: op.code.to_string(),
        name: op.name.to_string(),
        component: op.component.to_string(),
        sharing: op.sharing,
        lock: stopping_lock(&points, op.kind.recycling_frames()),
        points,
        best_jobs,
        class,
        oversubscribed,
    }
}

fn mean_metric(e: &ResultEntry, name: &str) -> Option<f64> {
    let v: Vec<f64> = e
        .samples
        .iter()
        .filter_map(|s| s.metrics.get(name).copied())
        .filter(|v| v.is_finite())
        .collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn point(jobs: u32, e: &ResultEntry) -> CardPoint {
    let rates: Vec<f64> = e
        .samples
        .iter()
        .filter_map(|s| s.metrics.get(k::FX_OPS_PER_S).copied())
        .collect();
    let s = fsbench_stats::summarize(&rates);
    let mean = s.as_ref().map_or(0.0, |s| s.mean);
    let half = s.as_ref().and_then(|s| s.ci95_half).unwrap_or(0.0);
    let all_ops: f64 = e
        .samples
        .iter()
        .filter_map(|s| s.metrics.get(k::FX_ALL_OPS).copied())
        .sum();
    let (lock_wait_ns_per_op, locks, top_frames) = match &e.profile {
        Some(p) if all_ops > 0.0 => {
            let total: u64 = p.locks.iter().map(|l| l.wait_ns).sum();
            let jobs_time = f64::from(jobs.max(1)) * p.wall_ns.max(1) as f64;
            let mut locks: Vec<CardLock> = p
                .locks
                .iter()
                .map(|l| CardLock {
                    kind: l.kind.clone(),
                    caller: l.caller.clone(),
                    wait_ns_per_op: l.wait_ns as f64 / all_ops,
                    share: (l.wait_ns as f64 / jobs_time).min(1.0),
                    jobs,
                })
                .collect();
            locks.sort_by(|a, b| b.wait_ns_per_op.total_cmp(&a.wait_ns_per_op));
            locks.truncate(8);
            (
                Some(total as f64 / all_ops),
                locks,
                top_frames(&p.on_cpu, p.on_cpu_samples),
            )
        }
        _ => (None, Vec::new(), Vec::new()),
    };
    CardPoint {
        jobs,
        ops_per_s: mean,
        ci95_low: (mean - half).max(0.0),
        ci95_high: mean + half,
        user_pct: mean_metric(e, k::FX_USER_PCT),
        sys_pct: mean_metric(e, k::FX_SYS_PCT),
        idle_pct: mean_metric(e, k::FX_IDLE_PCT),
        iowait_pct: mean_metric(e, k::FX_IOWAIT_PCT),
        lock_wait_ns_per_op,
        locks,
        top_frames,
    }
}

/// The kernel frames on the CPU most often (each stack's innermost frame), as "frame pct%".
fn top_frames(on_cpu: &BTreeMap<String, u64>, total: u64) -> Vec<String> {
    let mut by: BTreeMap<&str, u64> = BTreeMap::new();
    for (stack, n) in on_cpu {
        if let Some(leaf) = stack.rsplit(';').next().filter(|f| !f.is_empty()) {
            *by.entry(leaf).or_default() += n;
        }
    }
    let mut v: Vec<(&str, u64)> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let total = total.max(1) as f64;
    v.into_iter()
        .take(3)
        .map(|(f, n)| format!("{f} {:.0}%", n as f64 / total * 100.0))
        .collect()
}

/// The class judged on the points up to the CPU count, and what happens above it.
fn class(points: &[CardPoint], cpus: u32) -> (CardClass, Option<String>) {
    let within: Vec<&CardPoint> = points.iter().filter(|p| p.jobs <= cpus).collect();
    let (Some(one), Some(top)) = (within.first(), within.last()) else {
        return (CardClass::Unknown, None);
    };
    let class = if top.jobs == one.jobs || one.ops_per_s <= 0.0 {
        CardClass::Unknown
    } else {
        let speedup = top.ops_per_s / one.ops_per_s;
        let efficiency = speedup / f64::from(top.jobs) * f64::from(one.jobs);
        if speedup < COLLAPSE_SHARE {
            CardClass::Collapses
        } else if efficiency >= SCALES_EFFICIENCY {
            CardClass::Scales
        } else {
            CardClass::LevelsOff
        }
    };
    let over = points
        .last()
        .filter(|p| p.jobs > cpus && top.ops_per_s > 0.0)
        .map(|p| {
            let change = (p.ops_per_s / top.ops_per_s - 1.0) * 100.0;
            if change <= -20.0 {
                format!("oversubscribed: falls {:.0}% at {} jobs", -change, p.jobs)
            } else if change >= 20.0 {
                format!("oversubscribed: rises {change:.0}% at {} jobs", p.jobs)
            } else {
                format!("oversubscribed: holds at {} jobs", p.jobs)
            }
        });
    (class, over)
}

/// The lock whose wait per operation grows with the jobs, at the most jobs (none taken where a
/// caller holds one of `aside`).
fn stopping_lock(points: &[CardPoint], aside: &[&str]) -> Option<CardLock> {
    let (first, last) = (points.first()?, points.last()?);
    if last.jobs <= first.jobs {
        return None;
    }
    last.locks
        .iter()
        .filter(|l| !aside.iter().any(|f| l.caller.contains(f)))
        .filter(|l| !fsbench_model::profile::is_scheduler_lock(&l.caller))
        .filter(|l| l.share >= LOCK_SHARE)
        .filter(|l| {
            let before = first
                .locks
                .iter()
                .find(|b| b.kind == l.kind && b.caller == l.caller)
                .map_or(0.0, |b| b.wait_ns_per_op);
            l.wait_ns_per_op >= LOCK_GROWTH * before
        })
        .max_by(|a, b| a.share.total_cmp(&b.share))
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::card::OpKind;

    fn p(jobs: u32, ops: f64, locks: Vec<CardLock>) -> CardPoint {
        CardPoint {
            jobs,
            ops_per_s: ops,
            ci95_low: ops * 0.95,
            ci95_high: ops * 1.05,
            user_pct: None,
            sys_pct: None,
            idle_pct: None,
            iowait_pct: None,
            lock_wait_ns_per_op: None,
            locks,
            top_frames: Vec::new(),
        }
    }

    fn lock(per_op: f64, share: f64, jobs: u32) -> CardLock {
        CardLock {
            kind: "rwsem-write".into(),
            caller: "down_write <- filename_create <- do_mkdirat".into(),
            wait_ns_per_op: per_op,
            share,
            jobs,
        }
    }

    #[test]
    fn classes_are_judged_up_to_the_cpus_and_above_them_said_apart() {
        let pts = [
            p(1, 100.0, vec![]),
            p(2, 190.0, vec![]),
            p(4, 120.0, vec![]),
        ];
        let (c, over) = class(&pts, 2);
        assert_eq!(c, CardClass::Scales);
        assert_eq!(over.as_deref(), Some("oversubscribed: falls 37% at 4 jobs"));
        let (c, _) = class(&[p(1, 100.0, vec![]), p(2, 120.0, vec![])], 2);
        assert_eq!(c, CardClass::LevelsOff);
        let (c, _) = class(&[p(1, 100.0, vec![]), p(2, 60.0, vec![])], 2);
        assert_eq!(c, CardClass::Collapses);
        let (c, over) = class(&[p(1, 100.0, vec![]), p(2, 100.0, vec![])], 1);
        assert_eq!(c, CardClass::Unknown);
        assert_eq!(over.as_deref(), Some("oversubscribed: holds at 2 jobs"));
    }

    #[test]
    fn the_stopping_lock_grows_per_operation_and_takes_a_share() {
        let pts = [
            p(1, 100.0, vec![lock(50.0, 0.01, 1)]),
            p(4, 110.0, vec![lock(4000.0, 0.71, 4)]),
        ];
        let l = stopping_lock(&pts, &[]).unwrap();
        assert!(stopping_lock(&pts, OpKind::Mwum.recycling_frames()).is_none());
        assert_eq!(l.share, 0.71);
        // The same wait per operation at every job count does not stop anything.
        let flat = [
            p(1, 100.0, vec![lock(4000.0, 0.4, 1)]),
            p(4, 390.0, vec![lock(4000.0, 0.4, 4)]),
        ];
        assert!(stopping_lock(&flat, &[]).is_none());
        // A small share is not named.
        let small = [p(1, 1.0, vec![]), p(4, 1.0, vec![lock(90.0, 0.01, 4)])];
        assert!(stopping_lock(&small, &[]).is_none());
    }

    #[test]
    fn top_frames_take_each_stacks_innermost_frame() {
        let mut m = BTreeMap::new();
        m.insert("fx;a;b;osq_lock".to_string(), 6);
        m.insert("fx;a;c;osq_lock".to_string(), 2);
        m.insert("fx;a;memcpy".to_string(), 2);
        assert_eq!(top_frames(&m, 10), vec!["osq_lock 80%", "memcpy 20%"]);
    }
}
