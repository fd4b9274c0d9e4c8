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

fn time(r: &ResultEntry, name: &str) -> String {
    mean_of(r, name).map_or_else(|| "-".into(), duration_ns)
}

/// One step of a `rate=curve` cell, as its summary holds it (means over the samples).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurveStep {
    /// Load, percent of the probed maximum.
    pub load_pct: u32,
    /// Requests per second achieved.
    pub iops: f64,
    /// Latency from scheduled start, ns: p50, p99 and p99.9 (`None` when not recorded).
    pub p50_ns: Option<f64>,
    /// p99, ns.
    pub p99_ns: Option<f64>,
    /// p99.9, ns.
    pub p999_ns: Option<f64>,
    /// This step is the knee.
    pub knee: bool,
}

/// The recorded steps of cell `r`, in load order (empty for a cell without a curve).
pub fn curve_steps(r: &ResultEntry) -> Vec<CurveStep> {
    let knee = mean_of(r, m::KNEE_LOAD_PCT).map(|k| k.round() as u32);
    let at = |p: u32, what: &str| mean_of(r, &m::curve_step(p, what));
    m::CURVE_STEPS
        .iter()
        .filter_map(|&p| {
            Some(CurveStep {
                load_pct: p,
                iops: at(p, "iops")?,
                p50_ns: at(p, "p50_ns"),
                p99_ns: at(p, "p99_ns"),
                p999_ns: at(p, "p999_ns"),
                knee: knee == Some(p),
            })
        })
        .collect()
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
            .get(fsbench_model::param::BACKGROUND)
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
    let time = |ns: Option<f64>| ns.map_or_else(|| "-".into(), duration_ns);
    for i in cells {
        let r = &record.results[i];
        for s in curve_steps(r) {
            let mark = if s.knee { " *" } else { "" };
            t.push(vec![
                r.target.clone().into(),
                names.workload(i).into(),
                r.cache.state.to_string().into(),
                format!("{}%{mark}", s.load_pct).into(),
                crate::format::count(s.iops).into(),
                time(s.p50_ns).into(),
                time(s.p99_ns).into(),
                time(s.p999_ns).into(),
            ]);
        }
    }
    Some(t)
}
