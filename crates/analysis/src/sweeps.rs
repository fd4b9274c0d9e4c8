//! After a run: find workloads swept over `workers` and attach their scaling analysis (speedup,
//! efficiency, sys time per entry, the machine's kernel share, a FUSE daemon's CPU, verdict) to
//! the record.

use crate::scaling::{Point, Verdict, analyse};
use fsbench_model::{ResultEntry, RunRecord, Scaling, ScalingRow, ScalingVerdict};

/// Adds one `Scaling` per (target, workload, cache, other parameters) swept over `workers`.
pub fn attach(record: &mut RunRecord) {
    let cpus = record.environment.cpus;
    let mut groups: Vec<(String, Vec<&ResultEntry>)> = Vec::new();
    for r in record
        .results
        .iter()
        .filter(|r| r.sweep.contains_key("workers") && r.error.is_none())
    {
        let mut other = r.params.clone();
        other.remove("workers");
        other.remove("walks");
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
            verdict: match verdict {
                Verdict::Scales { .. } => ScalingVerdict::Scales,
                Verdict::Saturates { .. } => ScalingVerdict::Saturates,
                Verdict::LockContention { .. } => ScalingVerdict::LockContention,
                Verdict::DaemonBound { .. } => ScalingVerdict::DaemonBound,
                Verdict::LatencyBound { .. } => ScalingVerdict::LatencyBound,
            },
            explanation: verdict.to_string(),
        });
    }
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
