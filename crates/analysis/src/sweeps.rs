//! After a run: find workloads swept over `workers` and attach their scaling analysis (speedup,
//! efficiency, sys time per entry, the machine's kernel share, a FUSE daemon's CPU, verdict) to
//! the record.

use crate::scaling::{Point, Verdict, analyse};
use fsbench_model::param;
use fsbench_model::{ResultEntry, RunRecord, Scaling, ScalingRow, ScalingVerdict};

/// Adds one `Scaling` per (target, workload, cache, other parameters) swept over `workers`.
pub fn attach(record: &mut RunRecord) {
    let cpus = record.environment.cpus;
    let mut groups: Vec<(String, Vec<&ResultEntry>)> = Vec::new();
    for r in record
        .results
        .iter()
        .filter(|r| r.sweep.contains_key(param::WORKERS) && r.error.is_none())
    {
        let mut other = r.params.clone();
        other.remove(param::WORKERS);
        other.remove(param::WALKS);
        let key = format!("{}|{}|{}|{:?}", r.target, r.workload, r.cache.state, other);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(r),
            None => groups.push((key, vec![r])),
        }
    }
    for (_, entries) in groups {
        let points: Vec<(Point, &ResultEntry)> = entries
            .iter()
            .filter_map(|r| point(r).map(|p| (p, *r)))
            .collect();
        let only: Vec<Point> = points.iter().map(|(p, _)| *p).collect();
        let Some((rows, verdict)) = analyse(&only, cpus) else {
            continue;
        };
        let first = entries[0];
        let busy = machine_busy(&entries);
        record.scaling.push(Scaling {
            target: first.target.clone(),
            workload: first.workload.clone(),
            cache: first.cache.state.name().to_string(),
            rows: rows
                .iter()
                .map(|r| {
                    let p = only
                        .iter()
                        .find(|p| p.workers == r.workers)
                        .copied()
                        .unwrap_or(only[0]);
                    ScalingRow {
                        workers: r.workers,
                        rate: r.rate,
                        speedup: r.speedup,
                        efficiency: r.efficiency,
                        sys_ns_per_entry: r.sys_per_unit_ns,
                        wall_ns: p.wall_ns,
                        user_ns: p.user_ns,
                        sys_ns: p.sys_ns,
                        machine_sys_pct: r.machine_sys_pct,
                        daemon_cpu_pct: r.daemon_cpu_pct,
                    }
                })
                .collect(),
            verdict: match (&busy, &verdict) {
                (Some(_), _) => ScalingVerdict::MachineBusy,
                (None, Verdict::Scales { .. }) => ScalingVerdict::Scales,
                (None, Verdict::Saturates { .. }) => ScalingVerdict::Saturates,
                (None, Verdict::LockContention { .. }) => ScalingVerdict::LockContention,
                (None, Verdict::DaemonBound { .. }) => ScalingVerdict::DaemonBound,
                (None, Verdict::LatencyBound { .. }) => ScalingVerdict::LatencyBound,
            },
            explanation: busy.unwrap_or_else(|| verdict.to_string()),
        });
    }
}

/// A sweep whose threads were preempted (runnable, switched out) this share of their time or
/// more ran on a busy machine: its curve is the machine's load, not the target's scaling.
pub const PREEMPTED_BUSY_PCT: f64 = 20.0;

/// The share of its workers' time the cell `r` spent preempted, %, from its profile.
fn preempted_pct(r: &ResultEntry) -> Option<(u32, f64)> {
    let p = r.profile.as_ref()?;
    let workers: u32 = r.sweep.get(fsbench_model::param::WORKERS)?.parse().ok()?;
    let ns = *p.off_cpu.get(fsbench_model::profile::REASON_PREEMPTED)?;
    let thread_ns = p.wall_ns as f64 * f64::from(workers.max(1));
    Some((workers, 100.0 * ns as f64 / thread_ns.max(1.0)))
}

/// "the machine was busy (…)" when a point of the sweep was preempted [`PREEMPTED_BUSY_PCT`] of
/// its workers' time or more, naming the neighbours that took the CPUs; `None` otherwise.
fn machine_busy(entries: &[&ResultEntry]) -> Option<String> {
    let (r, (workers, pct)) = entries
        .iter()
        .filter_map(|r| Some((*r, preempted_pct(r)?)))
        .max_by(|a, b| a.1.1.total_cmp(&b.1.1))?;
    (pct >= PREEMPTED_BUSY_PCT).then_some(())?;
    let who = match r.profile.as_ref().and_then(|p| p.neighbours(3)) {
        Some((share, named)) => {
            format!("; neighbours took {share:.0}% of the busy samples: {named}")
        }
        None => String::new(),
    };
    let whom = if workers == 1 {
        "worker was"
    } else {
        "workers were"
    };
    Some(format!(
        "the machine was busy ({pct:.0}%): at J={workers} the {whom} preempted (runnable, not running) {pct:.0}% of their time{who} — the curve is the machine's load, not the target's scaling; rerun on a quiet machine"
    ))
}

fn point(r: &ResultEntry) -> Option<Point> {
    let mean = |k: &str| r.summary.get(k).map(|s| s.mean);
    Some(Point {
        workers: r.sweep.get(fsbench_model::param::WORKERS)?.parse().ok()?,
        work: mean("entries").or_else(|| {
            mean(fsbench_model::metric::IOPS)
                .zip(mean(fsbench_model::metric::WALL_NS))
                .map(|(i, w)| i * w / 1e9)
        })?,
        wall_ns: mean(fsbench_model::metric::WALL_NS)?,
        user_ns: mean(fsbench_model::metric::USER_NS)?,
        sys_ns: mean(fsbench_model::metric::SYS_NS)?,
        machine_sys_pct: mean(fsbench_model::metric::MACHINE_SYS_PCT),
        daemon_cpu_pct: mean(fsbench_model::metric::DAEMON_CPU_PCT),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::profile::{Profile, REASON_PREEMPTED, Role, WhoShare};

    /// A walk cell at `workers` whose threads were preempted `preempted_pct` of their time.
    fn cell(workers: u32, preempted_pct: f64) -> ResultEntry {
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "ext4", "workload": "walk", "params": {"workers": workers.to_string()},
            "sweep": {"workers": workers.to_string()},
            "cache": {"state": "warm", "method": "none"}, "headline": "entries_s",
            "samples": [], "summary": {}
        }))
        .unwrap();
        let wall = 1_000_000_000u64;
        let mut p = Profile {
            wall_ns: wall,
            on_cpu_samples: 100,
            who: vec![WhoShare {
                who: "cc1".into(),
                role: Role::Neighbour,
                samples: 60,
                pct: 60.0,
                ..Default::default()
            }],
            ..Default::default()
        };
        let ns = preempted_pct / 100.0 * (wall * u64::from(workers)) as f64;
        p.off_cpu.insert(REASON_PREEMPTED.into(), ns as u64);
        e.profile = Some(p);
        e
    }

    #[test]
    fn a_sweep_whose_single_worker_was_preempted_is_the_machine_being_busy() {
        let (j1, j8) = (cell(1, 68.0), cell(8, 10.0));
        let why = machine_busy(&[&j1, &j8]).expect("68% preempted at J=1");
        assert!(
            why.starts_with("the machine was busy (68%): at J=1 the worker was preempted"),
            "{why}"
        );
        assert!(why.contains("cc1 60%"), "{why}");
        let quiet = cell(1, 3.0);
        assert_eq!(machine_busy(&[&quiet, &j8]), None);
        // Without a profile nothing is claimed.
        let mut bare = cell(1, 68.0);
        bare.profile = None;
        assert_eq!(machine_busy(&[&bare]), None);
    }
}
