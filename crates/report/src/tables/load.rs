//! Requests under load: for cells run open loop (`rate=`) the rate asked and achieved, latency
//! from intended start beside the service time closed-loop tools report, and the background
//! load measured at the same time (`--background`); for `rate=curve` cells, one row per load
//! step with its latency percentiles, the knee marked.

use super::mean_of;
use crate::format::duration_ns;
use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::metric as m;
use fsbench_model::{ResultEntry, RunRecord};

/// Load steps of `rate=curve`, in percent of the probed maximum.
const STEPS: [u32; 10] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

fn time(r: &ResultEntry, name: &str) -> String {
    mean_of(r, name).map_or_else(|| "-".into(), duration_ns)
}

fn number(v: Option<f64>, unit: &str) -> String {
    v.map_or_else(
        || "-".into(),
        |v| format!("{} {unit}", crate::format::count(v)),
    )
}

/// True when `r` ran paced or beside a background load.
fn under_load(r: &ResultEntry) -> bool {
    [m::RATE_IOPS, m::SERVICE_P99_NS, m::BACKGROUND_MIB_S]
        .iter()
        .any(|n| r.summary.contains_key(*n))
}

/// The open-loop table: one row per paced or loaded cell; `None` when there is none.
pub fn open_loop(record: &RunRecord, names: &CellNames) -> Option<Table> {
    if !record.results.iter().any(under_load) {
        return None;
    }
    let mut t = Table::new(
        "Under load (latency from each request's scheduled start)",
        vec![
            Column::text("target"),
            Column::text("workload"),
            Column::text("cache"),
            Column::number("rate asked"),
            Column::number("achieved"),
            Column::number("p50"),
            Column::number("p99"),
            Column::number("service p99"),
            Column::text("background").optional(1),
        ],
    );
    for (i, r) in record.results.iter().enumerate() {
        if !under_load(r) || r.samples.is_empty() {
            continue;
        }
        let background = r
            .params
            .get("background")
            .map(|b| {
                format!(
                    "{} at {}",
                    b,
                    number(mean_of(r, m::BACKGROUND_MIB_S), "MiB/s")
                )
            })
            .unwrap_or_else(|| "-".into());
        t.push(vec![
            r.target.clone().into(),
            names.workload(i).into(),
            r.cache.state.to_string().into(),
            number(mean_of(r, m::RATE_IOPS), "IOPS").into(),
            super::pct_or_dash(mean_of(r, m::RATE_ACHIEVED_PCT)).into(),
            time(r, m::LAT_P50_NS).into(),
            time(r, m::LAT_P99_NS).into(),
            time(r, m::SERVICE_P99_NS).into(),
            background.into(),
        ]);
    }
    t.drop_empty_columns(3);
    Some(t)
}

/// The latency-against-load table of every `rate=curve` cell; `None` when there is none.
pub fn curve(record: &RunRecord, names: &CellNames) -> Option<Table> {
    let cells: Vec<usize> = (0..record.results.len())
        .filter(|&i| record.results[i].summary.contains_key(m::CURVE_MAX_IOPS))
        .collect();
    if cells.is_empty() {
        return None;
    }
    let mut t = Table::new(
        "Latency against load (rate=curve; * the knee: p99 rises fastest beyond it)",
        vec![
            Column::text("target"),
            Column::text("workload"),
            Column::text("cache"),
            Column::number("load"),
            Column::number("IOPS"),
            Column::number("p50"),
            Column::number("p99"),
            Column::number("p99.9").optional(1),
        ],
    );
    for i in cells {
        let r = &record.results[i];
        let knee = mean_of(r, m::KNEE_LOAD_PCT).map(|k| k.round() as u32);
        for p in STEPS {
            let Some(iops) = mean_of(r, &format!("curve_{p}_iops")) else {
                continue;
            };
            let mark = if knee == Some(p) { " *" } else { "" };
            t.push(vec![
                r.target.clone().into(),
                names.workload(i).into(),
                r.cache.state.to_string().into(),
                format!("{p}%{mark}").into(),
                crate::format::count(iops).into(),
                time(r, &format!("curve_{p}_p50_ns")).into(),
                time(r, &format!("curve_{p}_p99_ns")).into(),
                time(r, &format!("curve_{p}_p999_ns")).into(),
            ]);
        }
    }
    Some(t)
}
