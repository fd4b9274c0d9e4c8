//! What the HTML report needs that the pure renderer cannot compute itself: latency percentile
//! curves from the samples' HdrHistograms (merged exactly per cell), and the comparison of
//! every later run with the first.

use fsbench_model::RunRecord;
use fsbench_model::report_input::{CrossRun, LatencyCurve, ReportInput};
use std::collections::BTreeMap;

/// Percentiles of the latency curves: dense enough that the curve is smooth on an axis of nines
/// (p50, p90, p99, p99.9, p99.99).
const PERCENTILES: &[f64] = &[
    0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 75.0, 80.0, 85.0, 90.0, 92.5, 95.0, 96.0, 97.0,
    97.5, 98.0, 98.5, 99.0, 99.25, 99.5, 99.6, 99.7, 99.8, 99.9, 99.925, 99.95, 99.96, 99.97,
    99.98, 99.99,
];

/// The latency curve of one cell: its samples' histograms merged, read at [`PERCENTILES`].
fn latency_curve(e: &fsbench_model::ResultEntry) -> Option<LatencyCurve> {
    let mut merged: Option<hdrhistogram::Histogram<u64>> = None;
    for s in &e.samples {
        let Some(h) = s
            .latency_hdr
            .as_deref()
            .and_then(fsbench_measure::histo::decode)
        else {
            continue;
        };
        match &mut merged {
            Some(m) => m.add(&h).ok()?,
            None => merged = Some(h),
        }
    }
    let h = merged.filter(|h| !h.is_empty())?;
    Some(LatencyCurve {
        count: h.len(),
        points: PERCENTILES
            .iter()
            .map(|&p| (p, h.value_at_quantile(p / 100.0) as f64))
            .collect(),
    })
}

/// What the report of `last` after the `earlier` runs (oldest first) is given: the cross-run
/// comparisons of every later run with the first and every cell's latency curve.
pub fn report_input(earlier: &[RunRecord], last: &RunRecord) -> ReportInput {
    let all: Vec<&RunRecord> = earlier.iter().chain(std::iter::once(last)).collect();
    let mut latency = BTreeMap::new();
    for (ri, r) in all.iter().enumerate() {
        for (ci, e) in r.results.iter().enumerate() {
            if let Some(c) = latency_curve(e) {
                latency.insert((ri, ci), c);
            }
        }
    }
    let cross = all
        .iter()
        .enumerate()
        .skip(1)
        .map(|(bi, b)| {
            let a = all[0];
            let comps = crate::runs::compare_records(a, b, 95.0);
            CrossRun {
                heading: format!("A = run {} against B = run {}", a.run.id, b.run.id),
                environment: crate::runs::environment_differences(a, b),
                merged: crate::runs::merged(a, b, comps),
                runs: (0, bi),
                a_cells: a.results.len(),
            }
        })
        .collect();
    ReportInput { cross, latency }
}
