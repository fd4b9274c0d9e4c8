//! CSV of the time series (`--export-csv-series FILE`): one row per interval of every sample,
//! with the cell's keys first, so a spreadsheet or pandas can plot throughput and latency over
//! time per target and cache state.

use super::csv::join;
use crate::Renderer;
use fsbench_model::RunRecord;

/// One row per interval of every sample that has a series.
#[derive(Debug, Clone, Copy, Default)]
pub struct SeriesCsv;

/// The columns, in order.
const HEADER: &[&str] = &[
    "run",
    "target",
    "workload",
    "params",
    "sweep",
    "cache",
    "sample",
    "t_ns",
    "interval_ns",
    "ops",
    "bytes",
    "mib_s",
    "iops",
    "lat_p50_ns",
    "lat_p99_ns",
    "lat_max_ns",
];

fn opt(v: Option<u64>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

impl Renderer for SeriesCsv {
    fn format(&self) -> crate::Format {
        crate::Format::SeriesCsv
    }

    fn render(&self, record: &RunRecord, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        let mut buf = Vec::new();
        let mut w = ::csv::Writer::from_writer(&mut buf);
        w.write_record(HEADER)?;
        for r in &record.results {
            let keys = [
                record.run.id.clone(),
                r.target.clone(),
                r.workload.clone(),
                join(&r.params),
                join(&r.sweep),
                r.cache.state.name().to_string(),
            ];
            for (i, s) in r.samples.iter().enumerate() {
                // Each interval's own length: the last one ends with the sample.
                for sp in fsbench_model::series::spans(&s.series) {
                    let p = sp.point;
                    let mut row: Vec<String> = keys.to_vec();
                    row.extend([
                        (i + 1).to_string(),
                        p.t_ns.to_string(),
                        sp.len_ns.to_string(),
                        p.ops.to_string(),
                        p.bytes.to_string(),
                        format!("{:.3}", sp.rate(true)),
                        format!("{:.1}", sp.rate(false)),
                        opt(p.lat_p50_ns),
                        opt(p.lat_p99_ns),
                        opt(p.lat_max_ns),
                    ]);
                    w.write_record(&row)?;
                }
            }
        }
        w.flush()?;
        drop(w);
        // Labels and paths are data, but never raw control characters (CSV goes to `-` too).
        out.write_all(crate::format::terminal_safe(&String::from_utf8_lossy(&buf)).as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_per_interval_with_its_own_length_and_rates() {
        let mut rec = super::super::tests::record();
        let s = &mut rec.results[0].samples[0];
        s.series = vec![
            fsbench_model::SeriesPoint {
                t_ns: 10_000_000,
                ops: 100,
                bytes: 100 << 20,
                lat_p50_ns: Some(90_000),
                lat_p99_ns: Some(120_000),
                lat_max_ns: Some(300_000),
            },
            fsbench_model::SeriesPoint {
                t_ns: 15_000_000,
                ops: 10,
                bytes: 10 << 20,
                ..Default::default()
            },
        ];
        let text = SeriesCsv.text(&rec);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert!(lines[0].starts_with("run,target,workload,params"));
        assert!(
            lines[1].ends_with(
                ",1,10000000,10000000,100,104857600,10000.000,10000.0,90000,120000,300000"
            ),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].ends_with(",1,15000000,5000000,10,10485760,2000.000,2000.0,,,"),
            "{}",
            lines[2]
        );
    }
}
