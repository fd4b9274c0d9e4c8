//! The MPI table: for each cell measured by several ranks, the aggregate (all ranks' work over
//! the slowest rank's time), the IOR-style stonewalled rate, and the spread between the slowest
//! and the fastest rank, each the median over the samples. When the ranks ran on several hosts,
//! the cell's row is followed by one row per host (its ranks' work over its slowest rank's time,
//! the spread between its ranks, and the machine CPU and device counters its leader read), and
//! the cell's row shows the spread between hosts.

use super::{cache_label, pct_or_dash};
use crate::format::metric_number;
use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::{HostShare, ResultEntry, RunRecord};

/// Column heads of the ranks table.
const HEAD: [&str; 13] = [
    "target",
    "workload",
    "cache",
    "host",
    "ranks",
    "layout",
    "aggregate",
    "stonewall",
    "per host",
    "per rank MiB/s",
    "per rank IOPS",
    "machine sys",
    "device busy",
];

/// One table row.
type Row = [String; 13];

/// The rows of every cell measured by several ranks: the cell's, then one per host when there
/// were several (empty when no cell was measured by several ranks).
pub fn rows(results: &[ResultEntry]) -> Vec<Row> {
    results
        .iter()
        .filter(|r| {
            r.summary
                .get(fsbench_model::metric::RANKS)
                .is_some_and(|s| s.median > 1.0)
        })
        .flat_map(cell_rows)
        .collect()
}

/// A number, or `-` when the cell has no such metric.
fn number_or_dash(name: &str, v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| metric_number(name, v))
}

/// The median of `v` (`None` when empty).
fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

/// The hosts of a cell, in order of their lowest rank, with each host's shares over the samples.
fn host_shares(r: &ResultEntry) -> Vec<(String, Vec<&HostShare>)> {
    let mut out: Vec<(String, Vec<&HostShare>)> = Vec::new();
    for h in r.samples.iter().flat_map(|s| &s.hosts) {
        match out.iter_mut().find(|(name, _)| *name == h.host) {
            Some((_, v)) => v.push(h),
            None => out.push((h.host.clone(), vec![h])),
        }
    }
    out
}

/// The headline of a cell's rows and whether a host's aggregate is in MiB/s (else IOPS).
fn headline(r: &ResultEntry) -> (&str, &'static str, bool) {
    use fsbench_model::metric as k;
    if r.headline == k::IOPS {
        (k::IOPS, k::STONEWALL_IOPS, false)
    } else if r.headline == k::THROUGHPUT_MIB_S {
        (k::THROUGHPUT_MIB_S, k::STONEWALL_MIB_S, true)
    } else {
        (r.headline.as_str(), k::STONEWALL_MIB_S, false)
    }
}

/// A host's aggregate in the cell's unit for hosts: MiB/s or IOPS.
fn host_rate(h: &HostShare, mib: bool) -> f64 {
    if mib { h.mib_s() } else { h.iops() }
}

fn rate_text(v: Option<f64>, mib: bool) -> String {
    use fsbench_model::metric as k;
    let name = if mib { k::THROUGHPUT_MIB_S } else { k::IOPS };
    let unit = fsbench_model::unit_of(name).0;
    v.map_or_else(
        || "-".into(),
        |v| format!("{} {unit}", metric_number(name, v)),
    )
}

fn cell_rows(r: &ResultEntry) -> Vec<Row> {
    let hosts = host_shares(r);
    let mut out = vec![row(r, &hosts)];
    if hosts.len() > 1 {
        out.extend(hosts.iter().map(|(name, shares)| host_row(r, name, shares)));
    }
    out
}

fn span(lo: Option<f64>, hi: Option<f64>, name: &str) -> String {
    format!(
        "{} – {}",
        number_or_dash(name, lo),
        number_or_dash(name, hi)
    )
}

fn row(r: &ResultEntry, hosts: &[(String, Vec<&HostShare>)]) -> Row {
    use fsbench_model::metric as k;
    // A metric the cell lacks shows as `-`, never as NaN.
    let med = |name: &str| r.summary.get(name).map(|s| s.median);
    let (headline, wall, mib) = headline(r);
    let unit = fsbench_model::unit_of(headline).0;
    let stonewall = if headline == k::IOPS || headline == k::THROUGHPUT_MIB_S {
        format!("{} {unit}", number_or_dash(wall, med(wall)))
    } else {
        "-".into()
    };
    let medians: Vec<f64> = hosts
        .iter()
        .filter_map(|(_, v)| median(v.iter().map(|h| host_rate(h, mib)).collect()))
        .collect();
    let per_host = if hosts.len() > 1 {
        let lo = medians.iter().copied().reduce(f64::min);
        let hi = medians.iter().copied().reduce(f64::max);
        let name = if mib { k::THROUGHPUT_MIB_S } else { k::IOPS };
        format!("{} {}", span(lo, hi, name), fsbench_model::unit_of(name).0)
    } else {
        "-".into()
    };
    let (host, machine, device) = match hosts {
        [(name, v)] => (name.clone(), machine_sys(v), device_busy(v)),
        [] => ("-".into(), "-".into(), "-".into()),
        _ => (format!("{} hosts", hosts.len()), "-".into(), "-".into()),
    };
    [
        r.target.clone(),
        r.workload.clone(),
        cache_label(r),
        host,
        number_or_dash("ranks", med("ranks")),
        r.params
            .get(fsbench_model::param::LAYOUT)
            .cloned()
            .unwrap_or_else(|| "-".into()),
        with_unit(headline, med(headline)),
        stonewall,
        per_host,
        span(
            med(k::RANK_MIB_S_MIN),
            med(k::RANK_MIB_S_MAX),
            k::RANK_MIB_S_MIN,
        ),
        span(
            med(k::RANK_IOPS_MIN),
            med(k::RANK_IOPS_MAX),
            k::RANK_IOPS_MIN,
        ),
        machine,
        device,
    ]
}

/// A headline value with its unit; a time is already written with its own (`4.649 s`).
fn with_unit(name: &str, v: Option<f64>) -> String {
    let text = number_or_dash(name, v);
    match fsbench_model::catalogue::unit_kind(name) {
        fsbench_model::catalogue::Unit::Ns => text,
        _ => format!("{text} {}", fsbench_model::unit_of(name).0),
    }
}

fn machine_sys(v: &[&HostShare]) -> String {
    pct_or_dash(median(
        v.iter().filter_map(|h| h.machine_sys_pct()).collect(),
    ))
}

fn device_busy(v: &[&HostShare]) -> String {
    pct_or_dash(median(
        v.iter().filter_map(|h| h.device_busy_pct()).collect(),
    ))
}

/// One host's row under its cell: medians over the samples.
fn host_row(r: &ResultEntry, name: &str, v: &[&HostShare]) -> Row {
    use fsbench_model::metric as k;
    let (_, _, mib) = headline(r);
    let med = |f: &dyn Fn(&HostShare) -> f64| median(v.iter().map(|h| f(h)).collect());
    [
        String::new(),
        String::new(),
        String::new(),
        name.to_string(),
        v.first()
            .map_or_else(|| "-".into(), |h| h.ranks.to_string()),
        String::new(),
        rate_text(med(&|h| host_rate(h, mib)), mib),
        "-".into(),
        "-".into(),
        span(
            med(&|h| h.rank_mib_s_min),
            med(&|h| h.rank_mib_s_max),
            k::RANK_MIB_S_MIN,
        ),
        span(
            med(&|h| h.rank_iops_min),
            med(&|h| h.rank_iops_max),
            k::RANK_IOPS_MIN,
        ),
        machine_sys(v),
        device_busy(v),
    ]
}

/// The ranks table, or `None` when no cell was measured by several ranks.
pub fn table(record: &RunRecord, names: &CellNames) -> Option<Table> {
    let cells: Vec<usize> = (0..record.results.len())
        .filter(|&i| {
            record.results[i]
                .summary
                .get(fsbench_model::metric::RANKS)
                .is_some_and(|s| s.median > 1.0)
        })
        .collect();
    if cells.is_empty() {
        return None;
    }
    let columns = HEAD
        .iter()
        .enumerate()
        .map(|(i, h)| match i {
            11 => Column::number(h).optional(3),
            12 => Column::number(h).optional(4),
            _ if i >= 4 && i != 5 => Column::number(h),
            _ => Column::text(h),
        })
        .collect();
    let mut t = Table::new("MPI ranks", columns);
    for i in cells {
        let mut rows = cell_rows(&record.results[i]).into_iter();
        if let Some(mut first) = rows.next() {
            first[1] = names.workload(i);
            t.push(first.into_iter().map(Into::into).collect());
        }
        for r in rows {
            t.push(r.into_iter().map(Into::into).collect());
        }
    }
    // Hosts, the spread between them and the host counters only where some cell has them.
    let keep: Vec<bool> = (0..t.columns.len())
        .map(|c| ![3, 8, 11, 12].contains(&c) || t.rows.iter().any(|r| r[c].text != "-"))
        .collect();
    t.retain_columns(&keep);
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
        assert_eq!((row[4].as_str(), row[5].as_str()), ("4", "shared"));
        assert!(row[6].ends_with("IOPS") && row[7] == "5000 IOPS", "{row:?}");
        assert_eq!(row[9], "3.5 – 4.3");
        assert_eq!(row[10], "900 – 1100");
        let t = table(&r, &CellNames::new(&r.results)).unwrap();
        assert_eq!(t.title, "MPI ranks");
        // No host is known (a record from before hosts): no host columns.
        assert_eq!(t.columns.len(), 9);
        assert_eq!(t.rows[0][8].text, "900 – 1100");
    }

    #[test]
    fn ranks_on_several_hosts_get_a_row_per_host_and_the_spread_between_hosts() {
        let mut r = record();
        let e = &mut r.results[0];
        e.headline = fsbench_model::metric::THROUGHPUT_MIB_S.into();
        e.summary.insert("ranks".into(), summary(4.0));
        let host = |name: &str, bytes: u64, sys_ns: u64| HostShare {
            host: name.into(),
            ranks: 2,
            wall_ns: 1_000_000_000,
            leader_wall_ns: 1_000_000_000,
            bytes,
            ops: bytes >> 20,
            rank_mib_s_min: 40.0,
            rank_mib_s_max: 60.0,
            rank_iops_min: 40.0,
            rank_iops_max: 60.0,
            machine: Some(fsbench_model::MachineCpu {
                cpus: 2,
                sys_ns,
                ..Default::default()
            }),
            devices: Vec::new(),
        };
        for s in &mut e.samples {
            s.hosts = vec![host("n1", 100 << 20, 500_000_000), host("n2", 50 << 20, 0)];
        }
        let rows = rows(&r.results);
        assert_eq!(rows.len(), 3, "{rows:?}");
        assert_eq!(rows[0][3], "2 hosts");
        assert_eq!(rows[0][8], "50.0 – 100.0 MiB/s");
        assert_eq!((rows[1][3].as_str(), rows[1][4].as_str()), ("n1", "2"));
        assert_eq!(rows[1][6], "100.0 MiB/s");
        assert_eq!(
            rows[1][11], "25%",
            "n1's leader: 0.5 s of kernel time on 2 CPUs in 1 s"
        );
        assert_eq!(
            (rows[2][3].as_str(), rows[2][6].as_str()),
            ("n2", "50.0 MiB/s")
        );
        let t = table(&r, &CellNames::new(&r.results)).unwrap();
        assert_eq!(t.rows.len(), 3);
        assert!(t.columns.iter().any(|c| c.head == "per host"));
        // A time headline (postmark, tar) carries its unit in its text: never `4.649 s ns`.
        assert_eq!(
            with_unit(fsbench_model::metric::WALL_NS, Some(4.649e9)),
            "4.649 s"
        );
    }
}
