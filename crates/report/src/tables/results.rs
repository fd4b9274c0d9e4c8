//! The results table: each cell's headline (and the metrics shown beside it) as median,
//! mean ± sd, min – max and n, with the cache state and how much was cached before.

use super::cache_label;
use crate::format::metric_number;
use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::RunRecord;

/// The results table of `record`.
pub fn table(record: &RunRecord, names: &CellNames) -> Table {
    let mut t = Table::new(
        "Results",
        vec![
            Column::text("target"),
            Column::text("workload"),
            Column::text("cache (cached)"),
            Column::text("metric"),
            Column::number("median"),
            Column::number("mean ± sd").optional(2),
            Column::number("min – max").optional(1),
            Column::number("n").optional(3),
        ],
    );
    for (i, r) in record.results.iter().enumerate() {
        for name in std::iter::once(&r.headline).chain(&r.also_shown) {
            let Some(s) = r.summary.get(name) else {
                continue;
            };
            let n = |v: f64| metric_number(name, v);
            let outliers = r.samples.iter().filter(|s| s.outlier).count();
            let count = if outliers > 0 {
                format!("{} ({outliers} outl.)", s.n)
            } else {
                s.n.to_string()
            };
            t.push(vec![
                r.target.clone().into(),
                names.workload(i).into(),
                cache_label(r).into(),
                fsbench_model::label_of(name).into(),
                n(s.median).into(),
                format!("{} ± {}", n(s.mean), n(s.stddev)).into(),
                format!("{} – {}", n(s.min), n(s.max)).into(),
                count.into(),
            ]);
        }
    }
    t
}
