//! The MPI table: for each cell measured by several ranks, the aggregate (all ranks' work over
//! the slowest rank's time), the IOR-style stonewalled rate, and the spread between the slowest
//! and the fastest rank, each the median over the samples.

use crate::format::metric_number;
use crate::terminal::{TerminalOptions, cache_label, right, table, workload_label};
use comfy_table::{Cell, Table};
use fsbench_model::ResultEntry;

/// Column heads of the ranks table.
const HEAD: [&str; 9] = [
    "target",
    "workload",
    "cache",
    "ranks",
    "layout",
    "aggregate",
    "stonewall",
    "per rank MiB/s",
    "per rank IOPS",
];

/// One row per cell measured by several ranks (empty when none was).
pub fn rows(results: &[ResultEntry]) -> Vec<[String; 9]> {
    results
        .iter()
        .filter(|r| r.summary.get("ranks").is_some_and(|s| s.median > 1.0))
        .map(row)
        .collect()
}

/// A number, or `-` when the cell has no such metric.
fn number_or_dash(name: &str, v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| metric_number(name, v))
}

fn row(r: &ResultEntry) -> [String; 9] {
    // A metric the cell lacks shows as `-`, never as NaN.
    let med = |name: &str| r.summary.get(name).map(|s| s.median);
    let (agg, wall) = if r.headline == fsbench_model::metric::IOPS {
        (
            fsbench_model::metric::IOPS,
            fsbench_model::metric::STONEWALL_IOPS,
        )
    } else {
        (
            fsbench_model::metric::THROUGHPUT_MIB_S,
            fsbench_model::metric::STONEWALL_MIB_S,
        )
    };
    let headline = if r.headline == fsbench_model::metric::IOPS
        || r.headline == fsbench_model::metric::THROUGHPUT_MIB_S
    {
        agg
    } else {
        r.headline.as_str()
    };
    let unit = fsbench_model::unit_of(headline).0;
    let stonewall = if headline == agg {
        format!("{} {unit}", number_or_dash(wall, med(wall)))
    } else {
        "-".into()
    };
    let span = |lo: &str, hi: &str| {
        format!(
            "{} – {}",
            number_or_dash(lo, med(lo)),
            number_or_dash(hi, med(hi))
        )
    };
    [
        r.target.clone(),
        workload_label(r),
        cache_label(r),
        number_or_dash("ranks", med("ranks")),
        r.params
            .get("layout")
            .cloned()
            .unwrap_or_else(|| "-".into()),
        format!("{} {unit}", number_or_dash(headline, med(headline))),
        stonewall,
        span(
            fsbench_model::metric::RANK_MIB_S_MIN,
            fsbench_model::metric::RANK_MIB_S_MAX,
        ),
        span(
            fsbench_model::metric::RANK_IOPS_MIN,
            fsbench_model::metric::RANK_IOPS_MAX,
        ),
    ]
}

/// The ranks table for the terminal, or `None` when no cell was measured by several ranks.
pub fn ranks_table(results: &[ResultEntry], opts: TerminalOptions) -> Option<Table> {
    let rows = rows(results);
    if rows.is_empty() {
        return None;
    }
    let mut t = table(opts, &HEAD);
    for r in rows {
        let cells: Vec<Cell> = r
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                if i >= 3 && i != 4 {
                    right(c)
                } else {
                    Cell::new(c)
                }
            })
            .collect();
        t.add_row(cells);
    }
    Some(t)
}

/// The ranks table as HTML (nothing when no cell was measured by several ranks); `esc` escapes
/// text for HTML.
pub fn ranks_html(results: &[ResultEntry], esc: fn(&str) -> String, out: &mut String) {
    let rows = rows(results);
    if rows.is_empty() {
        return;
    }
    out.push_str("<h3>MPI ranks</h3><table><tr>");
    for h in HEAD {
        out.push_str(&format!("<th>{h}</th>"));
    }
    out.push_str("</tr>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let class = if i >= 3 && i != 4 { " class=\"n\"" } else { "" };
            out.push_str(&format!("<td{class}>{}</td>", esc(c)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::{record, summary};

    #[test]
    fn only_cells_of_several_ranks_get_a_row_with_aggregate_stonewall_and_spread() {
        let mut r = record();
        assert!(rows(&r.results).is_empty());
        let e = &mut r.results[0];
        e.params.insert("layout".into(), "shared".into());
        for (name, v) in [
            ("ranks", 4.0),
            (fsbench_model::metric::STONEWALL_IOPS, 5000.0),
            (fsbench_model::metric::RANK_IOPS_MIN, 900.0),
            (fsbench_model::metric::RANK_IOPS_MAX, 1100.0),
            (fsbench_model::metric::RANK_MIB_S_MIN, 3.5),
            (fsbench_model::metric::RANK_MIB_S_MAX, 4.3),
        ] {
            e.summary.insert(name.into(), summary(v));
        }
        let rows = rows(&r.results);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!((row[3].as_str(), row[4].as_str()), ("4", "shared"));
        assert!(row[5].ends_with("IOPS") && row[6] == "5000 IOPS", "{row:?}");
        assert_eq!(row[7], "3.5 – 4.3");
        assert_eq!(row[8], "900 – 1100");
        let mut html = String::new();
        ranks_html(&r.results, |s| s.to_string(), &mut html);
        assert!(html.contains("<h3>MPI ranks</h3>") && html.contains("900 – 1100"));
    }
}
