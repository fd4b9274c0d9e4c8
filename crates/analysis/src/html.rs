//! What the HTML report needs that the pure renderer cannot compute itself: latency percentile
//! curves from the samples' HdrHistograms (merged exactly per cell), and the comparison of
//! every later run with the first.

use fsbench_model::RunRecord;
use fsbench_report::html::{CrossRun, Html};
use std::collections::BTreeMap;

/// Percentiles of the latency curves.
const PERCENTILES: &[f64] = &[
    0.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99,
];

/// The latency curve of one cell: its samples' histograms merged, read at [`PERCENTILES`].
fn latency_curve(e: &fsbench_model::ResultEntry) -> Option<Vec<(f64, f64)>> {
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
    Some(
        PERCENTILES
            .iter()
            .map(|&p| (p, h.value_at_quantile(p / 100.0) as f64))
            .collect(),
    )
}

/// The HTML renderer of `last` after the `earlier` runs (oldest first): the cross-run
/// comparisons of every later run with the first, and every cell's latency curve.
pub fn renderer(earlier: Vec<RunRecord>, last: &RunRecord) -> Html {
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
        .skip(1)
        .map(|b| {
            let a = all[0];
            let comps = crate::runs::compare_records(a, b, 95.0);
            CrossRun {
                heading: format!("A = run {} vs B = run {}", a.run.id, b.run.id),
                environment: crate::runs::environment_differences(a, b),
                merged: crate::runs::merged(a, b, comps),
            }
        })
        .collect();
    Html {
        earlier,
        cross,
        latency,
    }
}
