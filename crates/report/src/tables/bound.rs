//! What bounded each result: the limit (device, cache, cpu, crypto, daemon, lock, latency,
//! network, harness, unknown) and the measurements behind it.

use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::RunRecord;

/// The bound table of `record`; `None` when no cell was judged.
pub fn table(record: &RunRecord, names: &CellNames) -> Option<Table> {
    if record.results.iter().all(|r| r.bound.is_none()) {
        return None;
    }
    let mut t = Table::new(
        "What bounded each result",
        vec![
            Column::text("target"),
            Column::text("workload"),
            Column::text("cache"),
            Column::text("bound by"),
            Column::text("evidence"),
        ],
    );
    for (i, r) in record.results.iter().enumerate() {
        if let Some(b) = &r.bound {
            t.push(vec![
                r.target.clone().into(),
                names.workload(i).into(),
                r.cache.state.to_string().into(),
                b.by.as_str().into(),
                b.evidence.clone().into(),
            ]);
        }
    }
    Some(t)
}
