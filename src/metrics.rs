//! From a recorder's raw sample data to a stored `Sample` with derived metrics (throughput, IOPS,
//! %CPU, latency percentiles), and the name of each workload's headline metric.

use fsbench_measure::SampleData;
use fsbench_model::{LatencySummary, MetricSummary, Sample, unit_of};
use fsbench_workload::Headline;
use std::collections::BTreeMap;

/// The metric name that carries `headline`.
pub fn headline_name(headline: Headline) -> String {
    match headline {
        Headline::Throughput => "throughput_mib_s".into(),
        Headline::Iops => "iops".into(),
        Headline::Latency => "lat_p50_ns".into(),
        Headline::Wall => "wall_ns".into(),
        Headline::Metric { name, .. } => name.into(),
    }
}

/// Builds the stored sample, deriving rates from wall time.
pub fn to_sample(d: SampleData, resident_pct: Option<f64>) -> Sample {
    let secs = d.wall_ns as f64 / 1e9;
    let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let mut m = BTreeMap::new();
    m.insert("wall_ns".into(), d.wall_ns as f64);
    m.insert("user_ns".into(), d.user_ns as f64);
    m.insert("sys_ns".into(), d.sys_ns as f64);
    m.insert(
        "cpu_pct".into(),
        rate((d.user_ns + d.sys_ns) as f64 / 1e9) * 100.0,
    );
    m.insert(
        "throughput_mib_s".into(),
        rate(d.bytes as f64 / 1_048_576.0),
    );
    m.insert("iops".into(), rate(d.ops as f64));
    let latency = d.latency.map(|l| {
        m.insert("lat_p50_ns".into(), l.p50_ns as f64);
        m.insert("lat_mean_ns".into(), l.mean_ns);
        m.insert("lat_p99_ns".into(), l.p99_ns as f64);
        LatencySummary {
            count: l.count,
            min_ns: l.min_ns,
            mean_ns: l.mean_ns,
            stddev_ns: l.stddev_ns,
            p50_ns: l.p50_ns,
            p90_ns: l.p90_ns,
            p99_ns: l.p99_ns,
            p999_ns: l.p999_ns,
            max_ns: l.max_ns,
        }
    });
    for (name, v) in d.metrics {
        m.insert(name, v);
    }
    if let Some(&entries) = m.get("entries") {
        m.insert("entries_per_s".into(), rate(entries));
        if entries > 0.0 {
            m.insert("sys_ns_per_entry".into(), d.sys_ns as f64 / entries);
            m.insert("user_ns_per_entry".into(), d.user_ns as f64 / entries);
        }
    }
    if let Some(r) = resident_pct {
        m.insert("resident_pct".into(), r);
    }
    Sample {
        wall_ns: d.wall_ns,
        user_ns: d.user_ns,
        sys_ns: d.sys_ns,
        ops: d.ops,
        bytes: d.bytes,
        metrics: m,
        latency,
        phases: d.phases.into_iter().collect(),
        resident_pct,
        outlier: false,
    }
}

/// Summarises every metric present in all of `samples`.
pub fn summarize(samples: &[Sample]) -> BTreeMap<String, MetricSummary> {
    let mut out = BTreeMap::new();
    let Some(first) = samples.first() else {
        return out;
    };
    for name in first.metrics.keys() {
        let values: Vec<f64> = samples
            .iter()
            .filter_map(|s| s.metrics.get(name).copied())
            .collect();
        if values.len() != samples.len() {
            continue;
        }
        if let Some(s) = fsbench_stats::summarize(&values) {
            let (unit, better) = unit_of(name);
            out.insert(
                name.clone(),
                MetricSummary {
                    n: s.n,
                    min: s.min,
                    max: s.max,
                    median: s.median,
                    mean: s.mean,
                    stddev: s.stddev,
                    ci95: s.ci95_half,
                    unit: unit.into(),
                    better,
                },
            );
        }
    }
    out
}
