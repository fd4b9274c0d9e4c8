//! The ranks' samples of one cell merged into one sample, with the code `jobs=N` uses
//! (`fsbench_measure::aggregate`): total bytes and operations over the slowest rank's time (the
//! plain aggregate, as IOR reports it), IOR-style stonewalled rates, per-rank spread, latency
//! histograms merged exactly, CPU summed over ranks, and each workload metric combined by what
//! it is (counts summed, flags by their minimum, times by their maximum, percentages averaged).

use crate::wire::RankSample;
use fsbench_measure::aggregate::{self, Combine, PartResult};
use fsbench_measure::{SampleData, latency_stats};
use fsbench_model::HostShare;
use hdrhistogram::Histogram;

/// The merged sample.
#[derive(Debug, Clone)]
pub struct Merged {
    /// The sample's data: wall time of the slowest rank, everything else over all ranks.
    pub data: SampleData,
    /// All ranks' latencies.
    pub hist: Histogram<u64>,
    /// Mean residency over the ranks that measured it.
    pub resident_pct: Option<f64>,
}

/// Workload rates that are a count over a phase: over all ranks they are the summed count over
/// the slowest rank's phase (mdtest's rate: items of all ranks over the phase's time).
const PHASE_RATES: &[(&str, &str, &str)] = {
    use fsbench_model::metric::{DELETE_FILES_PER_S, FILES, FILES_PER_S, STAT_FILES_PER_S};
    use fsbench_model::param::{PHASE_CREATE, PHASE_DELETE, PHASE_STAT};
    &[
        (FILES_PER_S, FILES, PHASE_CREATE),
        (DELETE_FILES_PER_S, FILES, PHASE_DELETE),
        (STAT_FILES_PER_S, FILES, PHASE_STAT),
    ]
};

/// How a workload metric is combined over ranks, by its catalogued unit (the rule parallel
/// jobs use too).
pub fn combine_rule(name: &str) -> Combine {
    aggregate::combine_by_unit(name)
}

/// Merges the ranks' samples (in rank order); `None` for none.
pub fn merge(ranks: &[RankSample]) -> Option<Merged> {
    let parts: Vec<PartResult> = ranks.iter().map(part).collect();
    let agg = aggregate::aggregate(&parts, "rank", &combine_rule)?;
    let mut metrics = agg.metrics;
    for (rate, count, phase) in PHASE_RATES {
        let total = metrics.iter().find(|(n, _)| n == count).map(|(_, v)| *v);
        let slowest = agg.phases.iter().find(|(n, _)| n == phase).map(|(_, t)| *t);
        if let (Some(total), Some(ns), Some(slot)) =
            (total, slowest, metrics.iter_mut().find(|(n, _)| n == rate))
        {
            slot.1 = total / (ns.max(1) as f64 / 1e9);
        }
    }
    metrics.push(("ranks".into(), ranks.len() as f64));
    let resident: Vec<f64> = ranks.iter().filter_map(|r| r.resident_pct).collect();
    let data = SampleData {
        wall_ns: agg.slowest_ns,
        user_ns: ranks.iter().map(|r| r.user_ns).sum(),
        sys_ns: ranks.iter().map(|r| r.sys_ns).sum(),
        ops: agg.ops,
        bytes: agg.bytes,
        latency: latency_stats(&agg.hist),
        phases: agg.phases,
        metrics,
        progress: Vec::new(),
        series: agg.series.unwrap_or_default(),
    };
    Some(Merged {
        data,
        hist: agg.hist,
        resident_pct: (!resident.is_empty())
            .then(|| resident.iter().sum::<f64>() / resident.len() as f64),
    })
}

/// The ranks grouped by host, in order of each host's lowest rank: each host's work over its
/// slowest rank's time, the spread between its ranks, and its leader's machine and device
/// counters (its lowest rank's when no rank of it says it leads).
pub fn hosts(ranks: &[RankSample]) -> Vec<HostShare> {
    let mut order: Vec<&str> = Vec::new();
    for r in ranks {
        if !order.contains(&r.host.as_str()) {
            order.push(&r.host);
        }
    }
    order
        .into_iter()
        .map(|h| host(h, ranks.iter().filter(|r| r.host == h).collect()))
        .collect()
}

fn host(name: &str, ranks: Vec<&RankSample>) -> HostShare {
    let leader = ranks.iter().find(|r| r.leader).unwrap_or(&ranks[0]);
    let rate = |x: f64, ns: u64| if ns == 0 { 0.0 } else { x / (ns as f64 / 1e9) };
    let mib: Vec<f64> = ranks
        .iter()
        .map(|r| rate(r.bytes as f64 / 1_048_576.0, r.wall_ns))
        .collect();
    let iops: Vec<f64> = ranks
        .iter()
        .map(|r| rate(r.ops as f64, r.wall_ns))
        .collect();
    let lo = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    HostShare {
        host: name.to_string(),
        ranks: ranks.len() as u32,
        wall_ns: ranks.iter().map(|r| r.wall_ns).max().unwrap_or(0),
        ops: ranks.iter().map(|r| r.ops).sum(),
        bytes: ranks.iter().map(|r| r.bytes).sum(),
        rank_mib_s_min: lo(&mib),
        rank_mib_s_max: hi(&mib),
        rank_iops_min: lo(&iops),
        rank_iops_max: hi(&iops),
        leader_wall_ns: leader.wall_ns,
        machine: leader.machine,
        devices: leader.devices.clone(),
    }
}

fn part(r: &RankSample) -> PartResult {
    let hist = r
        .hist
        .as_deref()
        .and_then(fsbench_measure::histo::decode)
        .unwrap_or_else(empty_hist);
    PartResult {
        ops: r.ops,
        bytes: r.bytes,
        elapsed_ns: r.wall_ns,
        hist,
        phases: r.phases.clone(),
        metrics: r.metrics.clone(),
        progress: r.progress_points(),
        series: r.series.clone(),
    }
}

fn empty_hist() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("invariant: constant histogram bounds are valid");
    h.auto(true);
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(wall_ns: u64, ops: u64, lats: &[u64], files: f64, create_ns: u64) -> RankSample {
        let mut h = empty_hist();
        for &l in lats {
            h.record(l).unwrap();
        }
        RankSample {
            wall_ns,
            user_ns: 10,
            sys_ns: 20,
            ops,
            bytes: ops << 20,
            phases: vec![("create".into(), create_ns)],
            metrics: vec![
                ("files".into(), files),
                (
                    fsbench_model::metric::FILES_PER_S.into(),
                    files / (create_ns as f64 / 1e9),
                ),
                (fsbench_model::metric::DIRECT_USED.into(), 1.0),
            ],
            progress: Vec::new(),
            series: Default::default(),
            hist: fsbench_measure::histo::encode(&h),
            resident_pct: Some(10.0),
            host: String::new(),
            leader: false,
            machine: None,
            devices: Vec::new(),
        }
    }

    #[test]
    fn hosts_group_ranks_with_their_leaders_counters() {
        let on = |host: &str, leader: bool, wall_ns: u64, dev: &str| RankSample {
            host: host.into(),
            leader,
            devices: vec![fsbench_model::DeviceIo {
                name: dev.into(),
                ..Default::default()
            }],
            ..rank(wall_ns, 100, &[100], 10.0, 1)
        };
        let ranks = [
            on("a", true, 1_000_000_000, "a0"),
            on("a", false, 2_000_000_000, "a1"),
            on("b", false, 1_000_000_000, "b2"),
            on("b", true, 500_000_000, "b3"),
        ];
        let h = hosts(&ranks);
        assert_eq!(h.len(), 2);
        assert_eq!((h[0].host.as_str(), h[0].ranks), ("a", 2));
        // 200 MiB over a's slowest rank (2 s); its ranks did 100 and 50 MiB/s.
        assert_eq!(h[0].mib_s(), 100.0);
        assert_eq!((h[0].rank_mib_s_min, h[0].rank_mib_s_max), (50.0, 100.0));
        assert_eq!(h[0].devices[0].name, "a0");
        assert_eq!((h[1].host.as_str(), h[1].mib_s()), ("b", 200.0));
        assert_eq!(h[1].devices[0].name, "b3", "the leader's counters");
        assert_eq!(h[1].iops(), 200.0);
    }

    fn get(d: &SampleData, name: &str) -> f64 {
        d.metrics.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn totals_over_the_slowest_rank_with_exact_latencies() {
        let a = rank(1_000_000_000, 100, &[100, 200], 1000.0, 500_000_000);
        let b = rank(2_000_000_000, 100, &[300, 400, 500], 1000.0, 1_000_000_000);
        let m = merge(&[a, b]).unwrap();
        assert_eq!((m.data.ops, m.data.bytes), (200, 200 << 20));
        assert_eq!(m.data.wall_ns, 2_000_000_000);
        assert_eq!((m.data.user_ns, m.data.sys_ns), (20, 40));
        let lat = m.data.latency.unwrap();
        assert_eq!(
            (lat.count, lat.min_ns, lat.max_ns, lat.p50_ns),
            (5, 100, 500, 300)
        );
        assert_eq!(get(&m.data, "files"), 2000.0);
        // 2000 files over the slowest create phase (1 s), not 2000 + 1000 per-rank rates.
        assert_eq!(get(&m.data, fsbench_model::metric::FILES_PER_S), 2000.0);
        assert_eq!(get(&m.data, fsbench_model::metric::DIRECT_USED), 1.0);
        assert_eq!(get(&m.data, "ranks"), 2.0);
        assert_eq!(get(&m.data, fsbench_model::metric::RANK_MIB_S_MIN), 50.0);
        assert_eq!(get(&m.data, fsbench_model::metric::RANK_MIB_S_MAX), 100.0);
        // Linear progress: at 1 s, b had done half: (100 + 50) MiB over 1 s.
        assert_eq!(get(&m.data, fsbench_model::metric::STONEWALL_MIB_S), 150.0);
        assert_eq!(m.resident_pct, Some(10.0));
    }

    #[test]
    fn combine_rules_follow_the_catalogue() {
        assert_eq!(
            combine_rule(fsbench_model::metric::DIRECT_USED),
            Combine::Min
        );
        assert_eq!(combine_rule("files"), Combine::Sum);
        assert_eq!(
            combine_rule(fsbench_model::metric::RESIDENT_PCT),
            Combine::Mean
        );
        assert_eq!(
            combine_rule(fsbench_model::metric::SHELL_OVERHEAD_NS),
            Combine::Max
        );
        assert!(merge(&[]).is_none());
    }
}
