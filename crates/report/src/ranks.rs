//! The MPI table: for each cell measured by several ranks, the aggregate (all ranks' work over
//! the slowest rank's time), the IOR-style stonewalled rate, and the spread between the slowest
//! and the fastest rank, each the median over the samples.

use crate::format::metric_number;
use crate::terminal::{TerminalOptions, cache_label, right, table, workload_label};
use comfy_table::{Cell, Table};
use fsbench_model::ResultEntry;

/// The ranks table, or `None` when no cell was measured by several ranks.
pub fn ranks_table(results: &[ResultEntry], opts: TerminalOptions) -> Option<Table> {
    let rows: Vec<&ResultEntry> = results
        .iter()
        .filter(|r| r.summary.get("ranks").is_some_and(|s| s.median > 1.0))
        .collect();
    if rows.is_empty() {
        return None;
    }
    let mut t = table(
        opts,
        &[
            "target",
            "workload",
            "cache",
            "ranks",
            "layout",
            "aggregate",
            "stonewall",
            "per rank MiB/s",
            "per rank IOPS",
        ],
    );
    for r in rows {
        let med = |name: &str| r.summary.get(name).map(|s| s.median).unwrap_or(f64::NAN);
        let (agg, wall) = if r.headline == "iops" {
            ("iops", "stonewall_iops")
        } else {
            ("throughput_mib_s", "stonewall_mib_s")
        };
        let headline = if r.headline == "iops" || r.headline == "throughput_mib_s" {
            agg
        } else {
            r.headline.as_str()
        };
        let unit = fsbench_model::unit_of(headline).0;
        let stonewall = if headline == agg {
            format!("{} {unit}", metric_number(wall, med(wall)))
        } else {
            "-".into()
        };
        let span = |lo: &str, hi: &str| {
            format!(
                "{} – {}",
                metric_number(lo, med(lo)),
                metric_number(hi, med(hi))
            )
        };
        t.add_row(vec![
            Cell::new(&r.target),
            Cell::new(workload_label(r)),
            Cell::new(cache_label(r)),
            right(metric_number("ranks", med("ranks"))),
            Cell::new(r.params.get("layout").map(String::as_str).unwrap_or("-")),
            right(format!("{} {unit}", metric_number(headline, med(headline)))),
            right(stonewall),
            right(span("rank_mib_s_min", "rank_mib_s_max")),
            right(span("rank_iops_min", "rank_iops_max")),
        ]);
    }
    Some(t)
}
