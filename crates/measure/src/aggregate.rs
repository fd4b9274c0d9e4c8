//! Combining parts of one sample that ran at the same time — the threads of `jobs=N` or the ranks
//! of an MPI run — into one: operations and bytes summed, latency histograms merged exactly
//! (same HDR layout, bucket by bucket), each phase's slowest time, each flag's minimum, the
//! spread of the parts' own rates (`<who>_mib_s_min|max`, `<who>_iops_min|max`), and IOR-style
//! stonewalled rates (`stonewall_mib_s`, `stonewall_iops`): the work every part had done by the
//! moment the first part finished, over that moment. The sample's own wall time (total over the
//! slowest part) is the caller's, so its `throughput_mib_s` and `iops` are the plain aggregate.

use crate::ProgressPoint;
use crate::series::RawSeries;
use hdrhistogram::Histogram;

/// What one part (a job thread or an MPI rank) did in one sample.
#[derive(Debug, Clone)]
pub struct PartResult {
    /// Operations done.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// The part's own wall time, from its release to its last operation.
    pub elapsed_ns: u64,
    /// Latencies of its operations.
    pub hist: Histogram<u64>,
    /// Its named phases (e.g. `fsync`) and their times.
    pub phases: Vec<(String, u64)>,
    /// Its named metrics (e.g. `direct_used`).
    pub metrics: Vec<(String, f64)>,
    /// Its progress trace (may be empty: then progress is taken as linear over `elapsed_ns`).
    pub progress: Vec<ProgressPoint>,
    /// Its time series (may be empty: a part recorded before series existed).
    pub series: RawSeries,
}

/// The parts of one sample taken together.
#[derive(Debug, Clone)]
pub struct Aggregate {
    /// Operations of all parts.
    pub ops: u64,
    /// Bytes of all parts.
    pub bytes: u64,
    /// The slowest part's wall time.
    pub slowest_ns: u64,
    /// All latencies, merged.
    pub hist: Histogram<u64>,
    /// Each phase's longest time over the parts (the sample waits for the slowest).
    pub phases: Vec<(String, u64)>,
    /// Each part metric combined by `combine` (by default the minimum: a flag is 1 only when
    /// every part had it), then the spread and stonewall metrics.
    pub metrics: Vec<(String, f64)>,
    /// The parts' series added interval by interval (they started together); `None` when a
    /// part has none, so that its operations are not missing from the series.
    pub series: Option<RawSeries>,
}

/// How a part metric is combined across parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The smallest value (flags: 1 only when every part had it).
    Min,
    /// The largest value (times: the slowest part).
    Max,
    /// The sum (counts, and rates of parts that ran at the same time).
    Sum,
    /// The mean (percentages).
    Mean,
}

/// How a metric is combined over parts that ran at the same time, by its catalogued unit: a
/// part's own spread (`*_min`, `*_max`) by its extreme, flags by their minimum (1 only when
/// every part had it), times by the slowest, percentages by their mean, counts and rates summed.
pub fn combine_by_unit(name: &str) -> Combine {
    use fsbench_model::catalogue::{self, Unit};
    if name.ends_with("_min") {
        return Combine::Min;
    }
    if name.ends_with("_max") {
        return Combine::Max;
    }
    match catalogue::unit_kind(name) {
        Unit::Flag => Combine::Min,
        Unit::Ns => Combine::Max,
        Unit::Pct => Combine::Mean,
        Unit::Count | Unit::Bytes | Unit::MibPerS | Unit::Iops | Unit::PerS(_) => Combine::Sum,
    }
}

/// The parts' series added together; `None` when one part recorded operations without one.
fn merged_series(parts: &[PartResult]) -> Option<RawSeries> {
    let complete = parts
        .iter()
        .all(|p| p.ops == 0 || !p.series.intervals.is_empty());
    complete.then(|| {
        let mut out = RawSeries::new(
            parts
                .iter()
                .map(|p| p.series.interval_ns)
                .max()
                .unwrap_or(1),
        );
        for p in parts {
            out.add(&p.series);
        }
        out
    })
}

/// Combines per-part results; `who` names the parts in the spread metrics (`job`, `rank`) and
/// `combine` says how each named metric is combined. `None` for no parts.
pub fn aggregate(
    parts: &[PartResult],
    who: &str,
    combine: &dyn Fn(&str) -> Combine,
) -> Option<Aggregate> {
    let first = parts.first()?;
    let mut hist = first.hist.clone();
    hist.reset();
    let (mut ops, mut bytes) = (0, 0);
    for p in parts {
        add_exact(&mut hist, &p.hist);
        ops += p.ops;
        bytes += p.bytes;
    }
    let mut phases: Vec<(String, u64)> = Vec::new();
    for p in parts {
        for (name, ns) in &p.phases {
            match phases.iter_mut().find(|(n, _)| n == name) {
                Some((_, old)) => *old = (*old).max(*ns),
                None => phases.push((name.clone(), *ns)),
            }
        }
    }
    // The parts' own stonewall figures (jobs inside a rank) give way to the ones over all parts.
    let mut metrics = combine_metrics(parts, combine);
    metrics.retain(|(n, _)| !n.starts_with("stonewall_"));
    metrics.extend(spread(parts, who));
    metrics.extend(stonewall(parts));
    Some(Aggregate {
        ops,
        bytes,
        slowest_ns: parts.iter().map(|p| p.elapsed_ns).max().unwrap_or(0),
        hist,
        phases,
        metrics,
        series: merged_series(parts),
    })
}

/// Adds `from` into `into` bucket by bucket; value by value if the layouts differ.
pub fn add_exact(into: &mut Histogram<u64>, from: &Histogram<u64>) {
    if into.add(from).is_err() {
        for v in from.iter_recorded() {
            let _ = into.record_n(v.value_iterated_to(), v.count_at_value());
        }
    }
}

fn combine_metrics(parts: &[PartResult], combine: &dyn Fn(&str) -> Combine) -> Vec<(String, f64)> {
    let mut names: Vec<&str> = Vec::new();
    for p in parts {
        for (n, _) in &p.metrics {
            if !names.contains(&n.as_str()) {
                names.push(n);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let values: Vec<f64> = parts
                .iter()
                .filter_map(|p| p.metrics.iter().find(|(n, _)| n == name).map(|(_, v)| *v))
                .collect();
            let v = match combine(name) {
                Combine::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
                Combine::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                Combine::Sum => values.iter().sum(),
                Combine::Mean => values.iter().sum::<f64>() / values.len() as f64,
            };
            (name.to_string(), v)
        })
        .collect()
}

/// Slowest and fastest part by MiB/s and by IOPS, each over its own wall time.
fn spread(parts: &[PartResult], who: &str) -> Vec<(String, f64)> {
    let rate = |n: u64, ns: u64| n as f64 * 1e9 / ns.max(1) as f64;
    let mib: Vec<f64> = parts
        .iter()
        .map(|p| rate(p.bytes, p.elapsed_ns) / 1_048_576.0)
        .collect();
    let iops: Vec<f64> = parts.iter().map(|p| rate(p.ops, p.elapsed_ns)).collect();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    vec![
        (format!("{who}_mib_s_min"), min(&mib)),
        (format!("{who}_mib_s_max"), max(&mib)),
        (format!("{who}_iops_min"), min(&iops)),
        (format!("{who}_iops_max"), max(&iops)),
    ]
}

/// IOR-style stonewalled rates: when the first part finished (`t`), how much had every part
/// done (read off its progress trace, linearly between points), over `t`. With parts that all
/// finish together this equals the plain aggregate; with a straggler it leaves out the tail in
/// which only the straggler was working.
fn stonewall(parts: &[PartResult]) -> Vec<(String, f64)> {
    let t = parts.iter().map(|p| p.elapsed_ns).min().unwrap_or(0);
    if t == 0 {
        return Vec::new();
    }
    let (mut ops, mut bytes) = (0.0, 0.0);
    for p in parts {
        let (o, b) = done_by(p, t);
        ops += o;
        bytes += b;
    }
    let secs = t as f64 / 1e9;
    vec![
        ("stonewall_mib_s".into(), bytes / 1_048_576.0 / secs),
        ("stonewall_iops".into(), ops / secs),
        ("stonewall_ns".into(), t as f64),
    ]
}

/// Operations and bytes part `p` had done `t` ns after its start.
pub fn done_by(p: &PartResult, t: u64) -> (f64, f64) {
    let end = ProgressPoint {
        at_ns: p.elapsed_ns,
        ops: p.ops,
        bytes: p.bytes,
    };
    let mut prev = ProgressPoint::default();
    for point in p.progress.iter().chain(std::iter::once(&end)) {
        if point.at_ns >= t {
            let span = (point.at_ns - prev.at_ns).max(1) as f64;
            let f = (t.saturating_sub(prev.at_ns)) as f64 / span;
            let lerp = |a: u64, b: u64| a as f64 + (b as f64 - a as f64) * f;
            return (lerp(prev.ops, point.ops), lerp(prev.bytes, point.bytes));
        }
        prev = *point;
    }
    (p.ops as f64, p.bytes as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn part(
        ops: u64,
        bytes: u64,
        elapsed_ns: u64,
        lats: &[u64],
        direct: f64,
    ) -> PartResult {
        let mut hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        hist.auto(true);
        for &l in lats {
            hist.record(l).unwrap();
        }
        PartResult {
            ops,
            bytes,
            elapsed_ns,
            hist,
            phases: vec![("fsync".into(), elapsed_ns / 10)],
            metrics: vec![("direct_used".into(), direct)],
            progress: Vec::new(),
            series: RawSeries::default(),
        }
    }

    fn get(m: &[(String, f64)], name: &str) -> f64 {
        m.iter().find(|(n, _)| n == name).unwrap().1
    }

    fn min_all(_: &str) -> Combine {
        Combine::Min
    }

    #[test]
    fn aggregation_sums_merges_and_spreads() {
        let a = part(2, 2 << 20, 1_000_000_000, &[100, 300], 1.0);
        let b = part(4, 4 << 20, 2_000_000_000, &[200, 400, 600, 1000], 0.0);
        let agg = aggregate(&[a, b], "job", &min_all).unwrap();
        assert_eq!(
            (agg.ops, agg.bytes, agg.slowest_ns),
            (6, 6 << 20, 2_000_000_000)
        );
        assert_eq!(agg.hist.len(), 6);
        assert_eq!((agg.hist.min(), agg.hist.max()), (100, 1000));
        assert_eq!(agg.hist.value_at_quantile(0.5), 300);
        assert_eq!(agg.phases, vec![("fsync".to_string(), 200_000_000)]);
        assert_eq!(get(&agg.metrics, "direct_used"), 0.0);
        assert_eq!(get(&agg.metrics, "job_mib_s_min"), 2.0);
        assert_eq!(get(&agg.metrics, "job_mib_s_max"), 2.0);
        assert_eq!(get(&agg.metrics, "job_iops_min"), 2.0);
        assert_eq!(get(&agg.metrics, "job_iops_max"), 2.0);
        assert!(aggregate(&[], "job", &min_all).is_none());
    }

    #[test]
    fn spread_names_the_slowest_and_fastest_part() {
        let a = part(10, 10 << 20, 1_000_000_000, &[1], 1.0);
        let b = part(30, 30 << 20, 1_000_000_000, &[1], 1.0);
        let agg = aggregate(&[a, b], "rank", &min_all).unwrap();
        assert_eq!(get(&agg.metrics, "rank_mib_s_min"), 10.0);
        assert_eq!(get(&agg.metrics, "rank_mib_s_max"), 30.0);
        assert_eq!(get(&agg.metrics, "rank_iops_max"), 30.0);
        assert_eq!(get(&agg.metrics, "direct_used"), 1.0);
    }

    #[test]
    fn metrics_combine_as_told() {
        let mut a = part(1, 1, 10, &[1], 1.0);
        let mut b = part(1, 1, 10, &[1], 1.0);
        a.metrics = vec![("files".into(), 3.0), ("pct".into(), 10.0)];
        b.metrics = vec![("files".into(), 5.0), ("pct".into(), 30.0)];
        let rule = |n: &str| {
            if n == "files" {
                Combine::Sum
            } else {
                Combine::Mean
            }
        };
        let agg = aggregate(&[a, b], "rank", &rule).unwrap();
        assert_eq!(get(&agg.metrics, "files"), 8.0);
        assert_eq!(get(&agg.metrics, "pct"), 20.0);
    }

    #[test]
    fn stonewall_counts_what_everyone_had_done_when_the_first_finished() {
        // Rank a: 100 MiB in 1 s. Rank b: 200 MiB in 4 s, steady (a trace point every second).
        let a = part(100, 100 << 20, 1_000_000_000, &[1], 1.0);
        let mut b = part(200, 200 << 20, 4_000_000_000, &[1], 1.0);
        b.progress = (1..4)
            .map(|s| ProgressPoint {
                at_ns: s * 1_000_000_000,
                ops: s * 50,
                bytes: (s * 50) << 20,
            })
            .collect();
        let agg = aggregate(&[a, b], "rank", &min_all).unwrap();
        // At 1 s: a did 100 MiB, b 50 MiB: 150 MiB/s; the plain aggregate would be 300/4 = 75.
        assert_eq!(get(&agg.metrics, "stonewall_mib_s"), 150.0);
        assert_eq!(get(&agg.metrics, "stonewall_iops"), 150.0);
        assert_eq!(get(&agg.metrics, "stonewall_ns"), 1e9);
    }

    #[test]
    fn progress_is_interpolated_and_linear_without_a_trace() {
        let mut p = part(100, 1000, 1000, &[1], 1.0);
        assert_eq!(done_by(&p, 250), (25.0, 250.0));
        p.progress = vec![ProgressPoint {
            at_ns: 500,
            ops: 90,
            bytes: 900,
        }];
        assert_eq!(done_by(&p, 250), (45.0, 450.0));
        assert_eq!(done_by(&p, 750), (95.0, 950.0));
        assert_eq!(done_by(&p, 5000), (100.0, 1000.0));
    }
}
