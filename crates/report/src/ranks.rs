//! The MPI table: for each cell measured by several ranks, the aggregate (all ranks' work over
//! the slowest rank's time), the IOR-style stonewalled rate, and the spread between the slowest
//! and the fastest rank, each the median over the samples.

use crate::format::metric_number;
use crate::names::CellNames;
use crate::table::{Column, Table};
use crate::tables::cache_label;
use fsbench_model::{ResultEntry, RunRecord};

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
        r.workload.clone(),
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

/// The ranks table, or `None` when no cell was measured by several ranks.
pub fn table(record: &RunRecord, names: &CellNames) -> Option<Table> {
    let cells: Vec<usize> = (0..record.results.len())
        .filter(|&i| {
            record.results[i]
                .summary
                .get("ranks")
                .is_some_and(|s| s.median > 1.0)
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let columns = HEAD
        .iter()
        .enumerate()
        .map(|(i, h)| {
            if i >= 3 && i != 4 {
                Column::number(h)
            } else {
                Column::text(h)
            }
        })
        .collect();
    let mut t = Table::new("MPI ranks", columns);
    for i in cells {
        let mut r = row(&record.results[i]);
        r[1] = names.workload(i);
        t.push(r.into_iter().map(Into::into).collect());
    }
    Some(t)
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
        let t = table(&r, &CellNames::new(&r.results)).unwrap();
        assert_eq!(t.title, "MPI ranks");
        assert_eq!(t.rows[0][8].text, "900 – 1100");
    }
}
