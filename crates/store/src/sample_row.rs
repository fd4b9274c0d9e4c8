//! A sample in its row, compact: every field its own columns do not hold, positionally
//! (postcard: varint integers, raw floats, no keys), with the metric values alone when the
//! metric names are those of the cell's first sample (kept once, in the cell's row). A 1.4 KB
//! JSON sample becomes about 350 bytes in under a microsecond: serialising JSON and the bytes
//! it wrote were most of the store's cost on short samples (issue 32). A sample this format
//! does not cover (one with `hosts`, `servers` or `off_cpu`, from multi-host and profiled runs,
//! whose samples are long) is stored as JSON text, as every sample was before schema version 8.
//!
//! The format is positional, so a field added to any type it encodes must change it: the
//! destructurings below name every field (a new one does not compile until it is decided on),
//! and a test decodes bytes written by this version.

use fsbench_model::{
    CpuPair, DeviceIo, LatencySummary, MachineCpu, ProcessCounts, Sample, SeriesPoint,
};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::BTreeMap;

/// The format's version, first byte of every row: 2 added `peak_rss_kib` at the end; rows of
/// version 1 are still read (without it).
const VERSION: u8 = 2;

/// What a sample's own columns hold: `wall_ns`, `user_ns`, `sys_ns`, `ops`, `bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Columns {
    /// `samples.wall_ns`.
    pub wall_ns: u64,
    /// `samples.user_ns`.
    pub user_ns: u64,
    /// `samples.sys_ns`.
    pub sys_ns: u64,
    /// `samples.ops`.
    pub ops: u64,
    /// `samples.bytes`.
    pub bytes: u64,
}

/// The metrics as written: the values alone, in the order of the cell's metric names, or the
/// names with their values.
#[derive(Serialize)]
enum MetricsOut<'a> {
    Values(#[serde(serialize_with = "values")] &'a BTreeMap<String, f64>),
    Named(&'a BTreeMap<String, f64>),
}

/// The metrics as read.
#[derive(Deserialize)]
enum MetricsIn {
    Values(Vec<f64>),
    Named(BTreeMap<String, f64>),
}

fn values<S: Serializer>(m: &&BTreeMap<String, f64>, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(m.values())
}

/// The row as written; [`RowIn`] reads it back field for field.
#[derive(Serialize)]
struct RowOut<'a> {
    metrics: MetricsOut<'a>,
    latency: &'a Option<LatencySummary>,
    phases: &'a BTreeMap<String, u64>,
    resident_pct: Option<f64>,
    outlier: bool,
    machine: &'a Option<MachineCpu>,
    daemon: &'a Option<CpuPair>,
    process: &'a Option<ProcessCounts>,
    devices: &'a [DeviceIo],
    series: &'a [SeriesPoint],
    series_interval_ns: Option<u64>,
    peak_rss_kib: Option<u64>,
}

/// The row of version 2 as read: version 1's fields, then `peak_rss_kib` (postcard writes a
/// nested struct's fields in place, so the bytes are those of one flat row).
#[derive(Deserialize)]
struct RowIn2 {
    v1: RowIn,
    peak_rss_kib: Option<u64>,
}

/// The row (of version 1, or the start of version 2's) as read.
#[derive(Deserialize)]
struct RowIn {
    metrics: MetricsIn,
    latency: Option<LatencySummary>,
    phases: BTreeMap<String, u64>,
    resident_pct: Option<f64>,
    outlier: bool,
    machine: Option<MachineCpu>,
    daemon: Option<CpuPair>,
    process: Option<ProcessCounts>,
    devices: Vec<DeviceIo>,
    series: Vec<SeriesPoint>,
    series_interval_ns: Option<u64>,
}

/// `s` as a row, its metrics as values alone when their names are `names`; `series` false
/// leaves its series out (stored in its own column). `None` for a sample this format does not
/// cover (it is then stored as JSON).
pub fn encode(s: &Sample, names: &[String], series: bool) -> Option<Vec<u8>> {
    let Sample {
        wall_ns: _,
        user_ns: _,
        sys_ns: _,
        ops: _,
        bytes: _,
        metrics,
        latency,
        latency_hdr: _,
        phases,
        resident_pct,
        outlier,
        machine,
        daemon,
        process,
        devices,
        series: points,
        series_interval_ns,
        hosts,
        servers,
        off_cpu,
        peak_rss_kib,
        calls: _,
    } = s;
    if !hosts.is_empty() || !servers.is_empty() || !off_cpu.is_empty() {
        return None;
    }
    let same_names = metrics.len() == names.len() && metrics.keys().eq(names.iter());
    let row = RowOut {
        metrics: match same_names {
            true => MetricsOut::Values(metrics),
            false => MetricsOut::Named(metrics),
        },
        latency,
        phases,
        resident_pct: *resident_pct,
        outlier: *outlier,
        machine,
        daemon,
        process,
        devices,
        series: if series { points } else { &[] },
        series_interval_ns: if series { *series_interval_ns } else { None },
        peak_rss_kib: *peak_rss_kib,
    };
    let mut out = Vec::with_capacity(512);
    out.push(VERSION);
    postcard::to_io(&row, &mut out).ok()?;
    Some(out)
}

/// The sample that [`encode`] wrote, with its columns and its cell's metric `names`; its
/// histogram and long series are the caller's to restore. `None` when the row is not one this
/// build reads (another version, damaged, or values without the names they belong to).
pub fn decode(row: &[u8], names: Option<&[String]>, c: Columns) -> Option<Sample> {
    let (&version, body) = row.split_first()?;
    let (r, peak_rss_kib, rest): (RowIn, Option<u64>, &[u8]) = match version {
        1 => postcard::take_from_bytes(body)
            .ok()
            .map(|(r, rest)| (r, None, rest))?,
        VERSION => postcard::take_from_bytes(body)
            .ok()
            .map(|(r, rest): (RowIn2, _)| (r.v1, r.peak_rss_kib, rest))?,
        _ => return None,
    };
    if !rest.is_empty() {
        return None;
    }
    let metrics = match r.metrics {
        MetricsIn::Named(m) => m,
        MetricsIn::Values(v) => {
            let names = names?;
            if names.len() != v.len() {
                return None;
            }
            names.iter().cloned().zip(v).collect()
        }
    };
    Some(Sample {
        wall_ns: c.wall_ns,
        user_ns: c.user_ns,
        sys_ns: c.sys_ns,
        ops: c.ops,
        bytes: c.bytes,
        metrics,
        latency: r.latency,
        latency_hdr: None,
        phases: r.phases,
        resident_pct: r.resident_pct,
        outlier: r.outlier,
        machine: r.machine,
        daemon: r.daemon,
        process: r.process,
        devices: r.devices,
        series: r.series,
        series_interval_ns: r.series_interval_ns,
        hosts: Vec::new(),
        servers: Vec::new(),
        off_cpu: BTreeMap::new(),
        peak_rss_kib,
        calls: None,
    })
}

/// Fails to compile when a type the row encodes positionally gains a field: decide then how
/// the row carries it (a new [`VERSION`], older rows still read).
#[allow(dead_code)]
fn every_field_is_in_the_format(
    l: LatencySummary,
    m: MachineCpu,
    c: CpuPair,
    p: ProcessCounts,
    d: DeviceIo,
    s: SeriesPoint,
) {
    let LatencySummary {
        count: _,
        min_ns: _,
        mean_ns: _,
        stddev_ns: _,
        p50_ns: _,
        p90_ns: _,
        p99_ns: _,
        p999_ns: _,
        max_ns: _,
    } = l;
    let MachineCpu {
        cpus: _,
        user_ns: _,
        sys_ns: _,
        iowait_ns: _,
        irq_ns: _,
        idle_ns: _,
        steal_ns: _,
        context_switches: _,
    } = m;
    let CpuPair {
        user_ns: _,
        sys_ns: _,
    } = c;
    let ProcessCounts {
        major_faults: _,
        voluntary_switches: _,
        involuntary_switches: _,
    } = p;
    let DeviceIo {
        name: _,
        read_bytes: _,
        write_bytes: _,
        read_ios: _,
        write_ios: _,
        io_ticks_ms: _,
        queue_ms: _,
    } = d;
    let SeriesPoint {
        t_ns: _,
        ops: _,
        bytes: _,
        lat_p50_ns: _,
        lat_p99_ns: _,
        lat_max_ns: _,
    } = s;
}

#[cfg(test)]
#[path = "sample_row_tests.rs"]
mod tests;
