//! From a recorder's raw sample data to a stored `Sample` with derived metrics (throughput, IOPS,
//! %CPU, latency percentiles, the machine's and a FUSE daemon's CPU), and the name of each
//! workload's headline metric.

use fsbench_measure::{CpuDelta, SampleData};
use fsbench_model::DeviceIo;
use fsbench_model::{
    CpuPair, LatencySummary, MachineCpu, MetricSummary, ProcessCounts, Sample, unit_of,
};
use fsbench_workload::{Flow, Headline};
use std::collections::BTreeMap;

/// The metric name that carries `headline`.
pub fn headline_name(headline: Headline) -> String {
    match headline {
        Headline::Throughput => fsbench_model::metric::THROUGHPUT_MIB_S.into(),
        Headline::Iops => fsbench_model::metric::IOPS.into(),
        Headline::Latency => fsbench_model::metric::LAT_P50_NS.into(),
        Headline::Wall => fsbench_model::metric::WALL_NS.into(),
        Headline::Metric { name, .. } => name.into(),
    }
}

/// Builds the stored sample, deriving rates from wall time; `cpu` is what the machine, the FUSE
/// daemon and fsbench's own counters did around the run.
pub fn to_sample(d: SampleData, resident_pct: Option<f64>, cpu: &CpuDelta) -> Sample {
    let secs = d.wall_ns as f64 / 1e9;
    let rate = |x: f64| if secs > 0.0 { x / secs } else { 0.0 };
    let mut m = BTreeMap::new();
    m.insert(fsbench_model::metric::WALL_NS.into(), d.wall_ns as f64);
    m.insert(fsbench_model::metric::USER_NS.into(), d.user_ns as f64);
    m.insert(fsbench_model::metric::SYS_NS.into(), d.sys_ns as f64);
    m.insert(
        fsbench_model::metric::CPU_PCT.into(),
        rate((d.user_ns + d.sys_ns) as f64 / 1e9) * 100.0,
    );
    m.insert(
        fsbench_model::metric::THROUGHPUT_MIB_S.into(),
        rate(d.bytes as f64 / 1_048_576.0),
    );
    m.insert(fsbench_model::metric::IOPS.into(), rate(d.ops as f64));
    let latency = d.latency.map(|l| {
        m.insert(fsbench_model::metric::LAT_P50_NS.into(), l.p50_ns as f64);
        m.insert(fsbench_model::metric::LAT_MEAN_NS.into(), l.mean_ns);
        m.insert(fsbench_model::metric::LAT_P99_NS.into(), l.p99_ns as f64);
        LatencySummary {
            count: l.count,
            min_ns: l.min_ns,
            mean_ns: l.mean_ns,
            stddev_ns: l.stddev_ns,
            p50_ns: l.p50_ns,
            p90_ns: l.p90_ns,
            p99_ns: l.p99_ns,
            p999_ns: l.p999_ns,
            max_ns: l.max_ns,
        }
    });
    for (name, v) in d.metrics {
        m.insert(name, v);
    }
    if let Some(&entries) = m.get(fsbench_model::metric::ENTRIES) {
        m.insert(fsbench_model::metric::ENTRIES_PER_S.into(), rate(entries));
        if entries > 0.0 {
            m.insert(
                fsbench_model::metric::SYS_NS_PER_ENTRY.into(),
                d.sys_ns as f64 / entries,
            );
            m.insert(
                fsbench_model::metric::USER_NS_PER_ENTRY.into(),
                d.user_ns as f64 / entries,
            );
        }
    }
    if let Some(r) = resident_pct {
        m.insert(fsbench_model::metric::RESIDENT_PCT.into(), r);
    }
    let (machine, daemon, process) = cpu_parts(cpu);
    cpu_metrics(&mut m, d.wall_ns, machine, daemon, process);
    if let Some(ns) = cpu.thread_wait_ns.filter(|_| d.wall_ns > 0) {
        m.insert(
            fsbench_model::metric::CPU_WAIT_PCT.into(),
            ns as f64 * 100.0 / d.wall_ns as f64,
        );
    }
    let series = d.series.points();
    let series_interval_ns = (!series.is_empty()).then_some(d.series.interval_ns);
    let mut s = Sample::new(d.wall_ns, d.user_ns, d.sys_ns, d.ops, d.bytes);
    s.metrics = m;
    s.latency = latency;
    s.phases = d.phases.into_iter().collect();
    s.resident_pct = resident_pct;
    (s.machine, s.daemon, s.process) = (machine, daemon, process);
    (s.series, s.series_interval_ns) = (series, series_interval_ns);
    crate::gauge::add(&mut s);
    s
}

/// Adds what the simulated server hosts of a served lab target did (`servers`), and the
/// busiest host's CPU as `server_cpu_pct`.
pub fn add_servers(s: &mut Sample, servers: Vec<fsbench_model::ServerSample>) {
    let busiest = servers
        .iter()
        .map(|h| h.cpu_pct(s.wall_ns))
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
    if let Some(pct) = busiest.filter(|_| s.wall_ns > 0) {
        s.metrics
            .insert(fsbench_model::metric::SERVER_CPU_PCT.into(), pct);
    }
    s.servers = servers;
}

/// Adds the bytes received and sent on the wire during the sample (network filesystems).
pub fn add_wire(s: &mut Sample, wire: Option<(u64, u64)>) {
    if let Some((rx, tx)) = wire {
        s.metrics
            .insert(fsbench_model::metric::NETWORK_RX_BYTES.into(), rx as f64);
        s.metrics
            .insert(fsbench_model::metric::NETWORK_TX_BYTES.into(), tx as f64);
    }
}

/// Adds what the block devices under the target did during the sample: every device's counters
/// (top first), the deepest device's as metrics (`device_*`), and the share of the workload's
/// bytes that the chain served (reads) or received (writes), by the workload's `flow`. The
/// share counts the least any device of the chain moved: the top device (a loop device, a
/// partition) carries only this target's I/O but may be served from the page cache of a loop's
/// backing file, and the deepest (the disk) is the real device but shared with the rest of the
/// machine, so neither alone is this target's traffic to the disk.
pub fn add_devices(s: &mut Sample, devices: Vec<DeviceIo>, flow: Flow) {
    use fsbench_model::metric as k;
    let Some(d) = devices.last() else {
        return;
    };
    let m = &mut s.metrics;
    m.insert(k::DEVICE_READ_BYTES.into(), d.read_bytes as f64);
    m.insert(k::DEVICE_WRITE_BYTES.into(), d.write_bytes as f64);
    m.insert(k::DEVICE_IOS.into(), (d.read_ios + d.write_ios) as f64);
    if s.wall_ns > 0 {
        let busy = d.io_ticks_ms as f64 * 1e6 / s.wall_ns as f64 * 100.0;
        m.insert(k::DEVICE_BUSY_PCT.into(), busy.min(100.0));
    }
    let share = |dev: u64, of: u64| (of > 0).then(|| dev as f64 / of as f64 * 100.0);
    // Random writes that hit a block twice before the flush reach the device once.
    let unique = m
        .get(k::UNIQUE_WRITE_BYTES)
        .map_or(s.bytes, |&u| (u as u64).min(s.bytes));
    let (read, written) = match flow {
        Flow::Read => (Some(s.bytes), None),
        Flow::Write { .. } => (None, Some(unique)),
        Flow::WriteThenRead => (Some(s.bytes / 2), Some(s.bytes / 2)),
        Flow::Other => (None, None),
    };
    let chain_read = devices.iter().map(|x| x.read_bytes).min().unwrap_or(0);
    let chain_written = devices.iter().map(|x| x.write_bytes).min().unwrap_or(0);
    if let Some(p) = read.and_then(|r| share(chain_read, r)) {
        m.insert(k::SERVED_BY_DEVICE_PCT.into(), p);
    }
    if let Some(p) = written.and_then(|w| share(chain_written, w)) {
        m.insert(k::DEVICE_WRITE_PCT.into(), p);
    }
    s.devices = devices;
}

/// The model's view of a snapshot difference.
pub(crate) fn cpu_parts(
    cpu: &CpuDelta,
) -> (Option<MachineCpu>, Option<CpuPair>, Option<ProcessCounts>) {
    let machine = cpu.machine.map(|c| MachineCpu {
        cpus: c.cpus,
        user_ns: c.user_ns,
        sys_ns: c.sys_ns,
        iowait_ns: c.iowait_ns,
        irq_ns: c.irq_ns,
        idle_ns: c.idle_ns,
        steal_ns: c.steal_ns,
        context_switches: c.context_switches,
    });
    let daemon = cpu.processes.map(|p| CpuPair {
        user_ns: p.user_ns,
        sys_ns: p.sys_ns,
    });
    let process = Some(ProcessCounts {
        major_faults: cpu.own.major_faults,
        voluntary_switches: cpu.own.voluntary_switches,
        involuntary_switches: cpu.own.involuntary_switches,
    });
    (machine, daemon, process)
}

/// Machine parts in percent of the capacity `wall × CPUs`, the daemon's CPU in percent of one
/// CPU, and fsbench's own counts. The parts are clock-tick samples (10 ms, about ±1 per CPU per
/// sample): a short sample's share is coarse, but unbiased, so the mean over samples holds.
fn cpu_metrics(
    m: &mut BTreeMap<String, f64>,
    wall_ns: u64,
    machine: Option<MachineCpu>,
    daemon: Option<CpuPair>,
    process: Option<ProcessCounts>,
) {
    let wall = wall_ns as f64;
    if let Some(c) = machine.filter(|c| c.cpus > 0 && wall_ns > 0) {
        let pct = |ns: u64| ns as f64 / (wall * f64::from(c.cpus)) * 100.0;
        m.insert(
            fsbench_model::metric::MACHINE_USER_PCT.into(),
            pct(c.user_ns),
        );
        m.insert(fsbench_model::metric::MACHINE_SYS_PCT.into(), pct(c.sys_ns));
        m.insert(
            fsbench_model::metric::MACHINE_IOWAIT_PCT.into(),
            pct(c.iowait_ns),
        );
        m.insert(fsbench_model::metric::MACHINE_IRQ_PCT.into(), pct(c.irq_ns));
        m.insert(
            fsbench_model::metric::MACHINE_IDLE_PCT.into(),
            pct(c.idle_ns),
        );
        m.insert(
            fsbench_model::metric::MACHINE_STEAL_PCT.into(),
            pct(c.steal_ns),
        );
    }
    if let Some(c) = machine.filter(|_| wall_ns > 0) {
        let ctxt = c.context_switches as f64 / (wall / 1e9);
        m.insert(
            fsbench_model::metric::MACHINE_CONTEXT_SWITCHES_PER_S.into(),
            ctxt,
        );
    }
    if let Some(d) = daemon {
        m.insert(
            fsbench_model::metric::DAEMON_USER_NS.into(),
            d.user_ns as f64,
        );
        m.insert(fsbench_model::metric::DAEMON_SYS_NS.into(), d.sys_ns as f64);
        if wall_ns > 0 {
            let pct = (d.user_ns + d.sys_ns) as f64 / wall * 100.0;
            m.insert(fsbench_model::metric::DAEMON_CPU_PCT.into(), pct);
        }
    }
    if let Some(p) = process {
        m.insert(
            fsbench_model::metric::MAJOR_FAULTS.into(),
            p.major_faults as f64,
        );
        m.insert(
            fsbench_model::metric::VOLUNTARY_SWITCHES.into(),
            p.voluntary_switches as f64,
        );
        m.insert(
            fsbench_model::metric::INVOLUNTARY_SWITCHES.into(),
            p.involuntary_switches as f64,
        );
    }
}

/// Summarises every metric present in all of `samples`.
pub fn summarize(samples: &[Sample]) -> BTreeMap<String, MetricSummary> {
    let mut out = BTreeMap::new();
    let Some(first) = samples.first() else {
        return out;
    };
    for name in first.metrics.keys() {
        let values: Vec<f64> = samples
            .iter()
            .filter_map(|s| s.metrics.get(name).copied())
            .collect();
        if values.len() != samples.len() {
            continue;
        }
        if let Some(s) = fsbench_stats::summarize(&values) {
            let (unit, better) = unit_of(name);
            out.insert(
                name.clone(),
                MetricSummary {
                    n: s.n,
                    min: s.min,
                    max: s.max,
                    median: s.median,
                    mean: s.mean,
                    stddev: s.stddev,
                    ci95: s.ci95_half,
                    unit: unit.into(),
                    better,
                },
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_measure::{CpuTimes, MachineCpuNs, ProcessCounters};

    fn data(wall_ns: u64) -> SampleData {
        SampleData {
            wall_ns,
            user_ns: wall_ns / 4,
            sys_ns: wall_ns / 2,
            ops: 0,
            bytes: 0,
            latency: None,
            phases: Vec::new(),
            metrics: Vec::new(),
            progress: Vec::new(),
            series: Default::default(),
        }
    }

    fn dev(name: &str, read: u64, written: u64) -> DeviceIo {
        DeviceIo {
            name: name.into(),
            read_bytes: read,
            write_bytes: written,
            io_ticks_ms: 500,
            ..DeviceIo::default()
        }
    }

    #[test]
    fn the_chain_serves_what_its_least_busy_layer_moved_and_the_disk_gives_the_metrics() {
        // Recorded on lab ext4: loop0 read the 32 MiB file, vda 86 MiB (other processes too).
        let mut d = data(1_000_000_000);
        d.bytes = 32 << 20;
        let mut s = to_sample(d, None, &CpuDelta::default());
        add_devices(
            &mut s,
            vec![dev("loop0", 32 << 20, 0), dev("vda", 86 << 20, 4096)],
            Flow::Read,
        );
        let m = &s.metrics;
        assert_eq!(m[fsbench_model::metric::SERVED_BY_DEVICE_PCT], 100.0);
        assert_eq!(
            m[fsbench_model::metric::DEVICE_READ_BYTES],
            (86u64 << 20) as f64
        );
        assert_eq!(m[fsbench_model::metric::DEVICE_BUSY_PCT], 50.0);
        // A buffered loop device served from its backing file's page cache: the disk read little.
        let mut s = to_sample(data(1_000_000_000), None, &CpuDelta::default());
        s.bytes = 32 << 20;
        add_devices(
            &mut s,
            vec![dev("loop0", 32 << 20, 0), dev("vda", 1 << 20, 0)],
            Flow::Read,
        );
        assert!((s.metrics[fsbench_model::metric::SERVED_BY_DEVICE_PCT] - 3.125).abs() < 1e-9);
        // Random writes: the device owes only the blocks they covered (recorded: 64 MiB of 4 KiB
        // writes over a 64 MiB file cover 40.45 MiB; the device wrote 40.5).
        let mut s = to_sample(data(1_000_000_000), None, &CpuDelta::default());
        s.bytes = 64 << 20;
        s.metrics.insert(
            fsbench_model::metric::UNIQUE_WRITE_BYTES.into(),
            42_414_000.0,
        );
        add_devices(
            &mut s,
            vec![dev("vda", 0, 42_467_328)],
            Flow::Write { durable: true },
        );
        let pct = s.metrics[fsbench_model::metric::DEVICE_WRITE_PCT];
        assert!((99.0..=101.0).contains(&pct), "{pct}");
    }

    /// One second on 2 CPUs: 2 s of capacity split into parts.
    fn delta() -> CpuDelta {
        CpuDelta {
            machine: Some(MachineCpuNs {
                user_ns: 500_000_000,
                sys_ns: 1_000_000_000,
                idle_ns: 300_000_000,
                iowait_ns: 100_000_000,
                irq_ns: 60_000_000,
                steal_ns: 40_000_000,
                context_switches: 5000,
                cpus: 2,
            }),
            processes: Some(CpuTimes {
                user_ns: 300_000_000,
                sys_ns: 600_000_000,
            }),
            own: ProcessCounters {
                major_faults: 3,
                voluntary_switches: 7,
                involuntary_switches: 1,
            },
            thread_wait_ns: Some(250_000_000),
        }
    }

    #[test]
    fn machine_parts_are_shares_of_wall_times_cpus() {
        let s = to_sample(data(1_000_000_000), None, &delta());
        let m = &s.metrics;
        assert_eq!(m[fsbench_model::metric::MACHINE_SYS_PCT], 50.0);
        assert_eq!(m[fsbench_model::metric::MACHINE_USER_PCT], 25.0);
        assert_eq!(m[fsbench_model::metric::MACHINE_IOWAIT_PCT], 5.0);
        let parts = ["user", "sys", "iowait", "irq", "idle", "steal"];
        let sum: f64 = parts.iter().map(|p| m[&format!("machine_{p}_pct")]).sum();
        assert!((sum - 100.0).abs() < 1e-9, "{sum}");
        assert_eq!(
            m[fsbench_model::metric::MACHINE_CONTEXT_SWITCHES_PER_S],
            5000.0
        );
        assert_eq!(m[fsbench_model::metric::DAEMON_CPU_PCT], 90.0, "of one CPU");
        assert_eq!(m[fsbench_model::metric::DAEMON_SYS_NS], 6e8);
        assert_eq!(m[fsbench_model::metric::MAJOR_FAULTS], 3.0);
        assert_eq!(
            m[fsbench_model::metric::CPU_WAIT_PCT],
            25.0,
            "of the wall time"
        );
        assert_eq!(s.machine.map(|c| c.cpus), Some(2));
        assert_eq!(s.daemon.map(|d| d.user_ns), Some(300_000_000));
    }

    #[test]
    fn a_zero_wall_time_gives_counts_but_no_shares() {
        let s = to_sample(data(0), None, &delta());
        assert!(
            !s.metrics
                .contains_key(fsbench_model::metric::MACHINE_SYS_PCT)
        );
        assert!(
            !s.metrics
                .contains_key(fsbench_model::metric::DAEMON_CPU_PCT)
        );
        assert!(
            s.metrics
                .contains_key(fsbench_model::metric::DAEMON_USER_NS)
        );
        assert_eq!(s.machine.map(|c| c.sys_ns), Some(1_000_000_000));
    }

    #[test]
    fn no_daemon_and_no_proc_stat_mean_no_fields() {
        let s = to_sample(data(1_000_000_000), None, &CpuDelta::default());
        assert!(s.machine.is_none() && s.daemon.is_none());
        assert!(
            !s.metrics
                .keys()
                .any(|k| k.starts_with("machine_") || k.starts_with("daemon_"))
        );
        let old: Sample = serde_json::from_value(serde_json::json!({
            fsbench_model::metric::WALL_NS: 1, fsbench_model::metric::USER_NS: 0, fsbench_model::metric::SYS_NS: 0, "ops": 0, "bytes": 0, "metrics": {}
        }))
        .expect("a sample written before these fields reads");
        assert!(old.machine.is_none() && old.daemon.is_none() && old.process.is_none());
    }
}
