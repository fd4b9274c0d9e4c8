//! Times and CPU: per cell the mean real, user and sys time and %CPU, the machine's kernel
//! share, the largest peak resident set of its samples (fsbench's or a child's: a command's
//! process tree), the FUSE daemon's CPU and the device's busy time and bytes when they were measured,
//! and the median latency percentiles of the samples.

use super::{mean_of, pct_or_dash};
use crate::format::duration_ns;
use crate::names::CellNames;
use crate::table::{Column, Table};
use fsbench_model::metric as m;
use fsbench_model::{ResultEntry, RunRecord};

/// Below this much CPU capacity (wall × CPUs, summed over a cell's samples) the machine's
/// shares rest on under 20 clock ticks of 10 ms: shown with `~`.
const COARSE_CAPACITY_NS: u64 = 200_000_000;

fn coarse_machine_shares(r: &ResultEntry) -> bool {
    let capacity: u64 = r
        .samples
        .iter()
        .filter_map(|s| {
            s.machine
                .map(|m| s.wall_ns.saturating_mul(u64::from(m.cpus)))
        })
        .fold(0, u64::saturating_add);
    capacity > 0 && capacity < COARSE_CAPACITY_NS
}

/// The median over the samples of one latency figure; `None` without latencies.
fn median_latency(r: &ResultEntry, pick: fn(&fsbench_model::LatencySummary) -> f64) -> Option<f64> {
    let mut v: Vec<f64> = r
        .samples
        .iter()
        .filter_map(|s| s.latency.as_ref().map(pick))
        .collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

/// A time, or `-` when there is none.
fn duration_or_dash(ns: Option<f64>) -> String {
    ns.map_or_else(|| "-".into(), duration_ns)
}

/// The largest peak resident set over the cell's samples (fsbench or a child it reaped), as
/// bytes; `None` when no sample measured it.
fn peak_memory(r: &ResultEntry) -> Option<u64> {
    r.samples
        .iter()
        .filter_map(|s| s.peak_rss_kib)
        .max()
        .map(|kib| kib.saturating_mul(1024))
}

fn columns(daemon: bool, served: bool, device: bool, memory: bool) -> Vec<Column> {
    let mut c = vec![
        Column::text("target"),
        Column::text("workload"),
        Column::text("cache"),
        Column::number("real"),
        Column::number("user").optional(6),
        Column::number("sys"),
        Column::number("%CPU"),
        Column::number("machine sys").optional(3),
    ];
    if memory {
        c.push(Column::number("peak RSS").optional(4));
    }
    if daemon {
        c.push(Column::number("daemon CPU"));
    }
    if served {
        c.extend([Column::number("server CPU"), Column::number("wire")]);
    }
    if device {
        c.extend([
            Column::number("device busy").optional(4),
            Column::number("device read").optional(5),
            Column::number("device written").optional(5),
        ]);
    }
    c.extend([
        Column::number("lat p50").optional(2),
        Column::number("p99").optional(2),
        Column::number("p99.9").optional(1),
        Column::number("max").optional(1),
    ]);
    c
}

/// The times and CPU table of `record`.
pub fn table(record: &RunRecord, names: &CellNames) -> Table {
    let any = |name: &str| record.results.iter().any(|r| r.summary.contains_key(name));
    let (daemon, device) = (any(m::DAEMON_CPU_PCT), any(m::DEVICE_BUSY_PCT));
    let served = any(m::SERVER_CPU_PCT);
    let memory = record.results.iter().any(|r| peak_memory(r).is_some());
    let columns = columns(daemon, served, device, memory);
    let mut t = Table::new("Times and CPU (means)", columns);
    for (i, r) in record.results.iter().enumerate() {
        if r.samples.is_empty() {
            continue;
        }
        let machine_sys = pct_or_dash(mean_of(r, m::MACHINE_SYS_PCT));
        let machine_sys = if coarse_machine_shares(r) && machine_sys != "-" {
            format!("~{machine_sys}")
        } else {
            machine_sys
        };
        let mut row = vec![
            r.target.clone().into(),
            names.workload(i).into(),
            r.cache.state.to_string().into(),
            duration_or_dash(mean_of(r, m::WALL_NS)).into(),
            duration_or_dash(mean_of(r, m::USER_NS)).into(),
            duration_or_dash(mean_of(r, m::SYS_NS)).into(),
            pct_or_dash(mean_of(r, m::CPU_PCT)).into(),
            machine_sys.into(),
        ];
        if memory {
            let peak = peak_memory(r).map_or_else(|| "-".into(), crate::format::bytes);
            row.push(peak.into());
        }
        if daemon {
            row.push(pct_or_dash(mean_of(r, m::DAEMON_CPU_PCT)).into());
        }
        if served {
            row.push(pct_or_dash(mean_of(r, m::SERVER_CPU_PCT)).into());
            let wire = mean_of(r, m::NETWORK_RX_BYTES)
                .zip(mean_of(r, m::NETWORK_TX_BYTES))
                .map_or_else(
                    || "-".into(),
                    |(rx, tx)| crate::format::bytes((rx + tx) as u64),
                );
            row.push(wire.into());
        }
        if device {
            let bytes = |name: &str| {
                mean_of(r, name).map_or_else(|| "-".into(), |b| crate::format::bytes(b as u64))
            };
            row.push(pct_or_dash(mean_of(r, m::DEVICE_BUSY_PCT)).into());
            row.push(bytes(m::DEVICE_READ_BYTES).into());
            row.push(bytes(m::DEVICE_WRITE_BYTES).into());
        }
        row.extend([
            duration_or_dash(median_latency(r, |l| l.p50_ns as f64)).into(),
            duration_or_dash(median_latency(r, |l| l.p99_ns as f64)).into(),
            duration_or_dash(median_latency(r, |l| l.p999_ns as f64)).into(),
            duration_or_dash(median_latency(r, |l| l.max_ns as f64)).into(),
        ]);
        t.push(row);
    }
    let first_latency = t.columns.len() - 4;
    t.drop_empty_columns(first_latency);
    t
}
