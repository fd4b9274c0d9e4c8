//! CSV: one row per sample, tidy (each sample an observation, each metric a column), with the
//! cell's keys first so a spreadsheet or pandas can group by them; a replay's samples add their
//! time by call kind (`call_KIND_count`, `call_KIND_ns`, `call_KIND_errors`).

use crate::Renderer;
use fsbench_model::RunRecord;
use std::collections::BTreeSet;

/// One row per sample.
#[derive(Debug, Clone, Copy, Default)]
pub struct Csv;

/// The cell's key columns, before the metrics.
const KEYS: &[&str] = &[
    "run",
    "target",
    "workload",
    "params",
    "sweep",
    "cache",
    "cache_method",
    "sample",
    "outlier",
    fsbench_model::metric::WALL_NS,
    fsbench_model::metric::USER_NS,
    fsbench_model::metric::SYS_NS,
    "ops",
    "bytes",
];

/// `k=v;k=v` of a cell's parameters or sweep, one CSV field.
pub(super) fn join(m: &std::collections::BTreeMap<String, String>) -> String {
    m.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

impl Renderer for Csv {
    fn format(&self) -> crate::Format {
        crate::Format::Csv
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let metrics: BTreeSet<&String> = record
            .results
            .iter()
            .flat_map(|r| r.samples.iter().flat_map(|s| s.metrics.keys()))
            .filter(|m| !KEYS.contains(&m.as_str()))
            .collect();
        let mut buf = Vec::new();
        let mut w = ::csv::Writer::from_writer(&mut buf);
        // A replay's time by call kind: three columns a kind, for every kind any sample made.
        let kinds: BTreeSet<&str> = record
            .results
            .iter()
            .flat_map(|r| r.samples.iter().filter_map(|s| s.calls.as_ref()))
            .flat_map(|c| c.kinds.iter().map(|k| k.kind.as_str()))
            .collect();
        // The cell's bound, last, when the run was explained (records before it have none).
        let bounds = record.results.iter().any(|r| r.bound.is_some());
        let header = KEYS
            .iter()
            .map(|k| k.to_string())
            .chain(metrics.iter().map(|m| m.to_string()))
            .chain(kinds.iter().flat_map(|k| {
                let k = k.replace(' ', "_");
                [
                    format!("call_{k}_count"),
                    format!("call_{k}_ns"),
                    format!("call_{k}_errors"),
                ]
            }))
            .chain(
                ["bound", "bound_evidence"]
                    .into_iter()
                    .filter(|_| bounds)
                    .map(String::from),
            );
        w.write_record(header.collect::<Vec<_>>())?;
        for r in &record.results {
            for (i, s) in r.samples.iter().enumerate() {
                let mut row = vec![
                    record.run.id.clone(),
                    r.target.clone(),
                    r.workload.clone(),
                    join(&r.params),
                    join(&r.sweep),
                    r.cache.state.name().to_string(),
                    r.cache.method.clone(),
                    (i + 1).to_string(),
                    s.outlier.to_string(),
                    s.wall_ns.to_string(),
                    s.user_ns.to_string(),
                    s.sys_ns.to_string(),
                    s.ops.to_string(),
                    s.bytes.to_string(),
                ];
                row.extend(
                    metrics
                        .iter()
                        .map(|m| s.metrics.get(*m).map(|v| v.to_string()).unwrap_or_default()),
                );
                for k in &kinds {
                    let kind = s.calls.as_ref().and_then(|c| c.kind(k));
                    let field = |f: fn(&fsbench_model::calls::KindTime) -> u64| {
                        kind.map(|x| f(x).to_string()).unwrap_or_default()
                    };
                    row.push(field(|x| x.count));
                    row.push(field(|x| x.total_ns));
                    row.push(field(|x| x.errors));
                }
                if bounds {
                    row.push(
                        r.bound
                            .as_ref()
                            .map(|b| b.by.to_string())
                            .unwrap_or_default(),
                    );
                    row.push(
                        r.bound
                            .as_ref()
                            .map(|b| b.evidence.clone())
                            .unwrap_or_default(),
                    );
                }
                w.write_record(&row)?;
            }
        }
        w.flush()?;
        drop(w);
        // Labels and paths are data, but never raw control characters (CSV goes to `-` too).
        out.write_all(crate::format::terminal_safe(&String::from_utf8_lossy(&buf)).as_bytes())
    }
}
