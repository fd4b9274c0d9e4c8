//! One catalogue of every metric fsbench records: its name, unit, direction and label. The
//! workloads, the runner and every renderer read units and labels from here instead of guessing
//! them from name suffixes; a test checks that every workload's headline metric is listed with
//! the unit and direction the workload declares. Metrics not listed (new ones from a workload not
//! yet catalogued) fall back to their name's suffix (`_ns`, `_mib_s`, `_per_s`, `_pct`).

use crate::Better;

/// How a metric's values are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds (shown as ns, µs, ms, s).
    Ns,
    /// Mebibytes per second.
    MibPerS,
    /// Operations per second.
    Iops,
    /// A rate of things per second; the string names the things (`files/s`).
    PerS(&'static str),
    /// A percentage.
    Pct,
    /// Bytes.
    Bytes,
    /// A plain count.
    Count,
    /// 1 for yes, 0 for no (a mean gives the share of samples).
    Flag,
}

impl Unit {
    /// The unit's label (`ns`, `MiB/s`, `IOPS`, `files/s`, `%`, `B`, or empty).
    pub fn label(self) -> &'static str {
        match self {
            Self::Ns => "ns",
            Self::MibPerS => "MiB/s",
            Self::Iops => "IOPS",
            Self::PerS(what) => what,
            Self::Pct => "%",
            Self::Bytes => "B",
            Self::Count | Self::Flag => "",
        }
    }
}

/// One catalogued metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricDef {
    /// Name as stored in samples and summaries.
    pub name: &'static str,
    /// Unit of its values.
    pub unit: Unit,
    /// Which direction is better (for counts and conditions: the one that means less work).
    pub better: Better,
    /// Short label for table headers.
    pub label: &'static str,
    /// What it means, for `fsbench metrics` and docs.
    pub help: &'static str,
}

const fn m(
    name: &'static str,
    unit: Unit,
    better: Better,
    label: &'static str,
    help: &'static str,
) -> MetricDef {
    MetricDef {
        name,
        unit,
        better,
        label,
        help,
    }
}

use Better::{Higher as H, Lower as L};
use Unit::*;

/// Every metric fsbench records.
#[rustfmt::skip]
pub const CATALOGUE: &[MetricDef] = &[
    m("wall_ns", Ns, L, "time", "wall time of the sample (monotonic clock)"),
    m("user_ns", Ns, L, "user", "user CPU of fsbench and its waited-for children"),
    m("sys_ns", Ns, L, "sys", "system CPU of fsbench and its waited-for children"),
    m("cpu_pct", Pct, L, "%CPU", "(user + sys) / wall of fsbench and its children"),
    m("throughput_mib_s", MibPerS, H, "MiB/s", "bytes moved per second of wall time"),
    m("iops", Iops, H, "IOPS", "operations per second of wall time"),
    m("lat_p50_ns", Ns, L, "latency p50", "median per-operation latency"),
    m("lat_mean_ns", Ns, L, "latency mean", "mean per-operation latency"),
    m("lat_p99_ns", Ns, L, "latency p99", "99th percentile per-operation latency"),
    m("read_mib_s", MibPerS, H, "read MiB/s", "read phase throughput (large-file)"),
    m("write_mib_s", MibPerS, H, "write MiB/s", "write phase throughput, fdatasync included (large-file)"),
    m("unique_write_bytes", Bytes, L, "unique written", "bytes random writes covered, expected: a block written twice before a flush reaches the device once (rand-write)"),
    m("peak_mib_s", MibPerS, H, "peak MiB/s", "the best 5 intervals of the sample's series (the gauge's peak)"),
    m("sustained_mib_s", MibPerS, H, "sustained MiB/s", "the rate over the second half of the active intervals of the series (where the gauge settles; idle starts and final flushes left out)"),
    m("write_peak_mib_s", MibPerS, H, "write peak MiB/s", "peak_mib_s of the write phase (large-file)"),
    m("write_sustained_mib_s", MibPerS, H, "write sustained MiB/s", "sustained_mib_s of the write phase (large-file)"),
    m("read_peak_mib_s", MibPerS, H, "read peak MiB/s", "peak_mib_s of the read phase (large-file)"),
    m("read_sustained_mib_s", MibPerS, H, "read sustained MiB/s", "sustained_mib_s of the read phase (large-file)"),
    m("entries_per_s", PerS("entries/s"), H, "entries/s", "directory entries walked per second"),
    m("sys_ns_per_entry", Ns, L, "sys/entry", "system CPU per directory entry walked"),
    m("user_ns_per_entry", Ns, L, "user/entry", "user CPU per directory entry walked"),
    m("files_per_s", PerS("files/s"), H, "files/s", "files created per second (tree-create)"),
    m("delete_files_per_s", PerS("files/s"), H, "deleted/s", "files deleted per second (tree-create)"),
    m("stat_files_per_s", PerS("files/s"), H, "stat/s", "files lstat'ed by name per second (tree-create stat=true, mdtest's stat phase)"),
    m("transactions_per_s", PerS("tx/s"), H, "tx/s", "postmark transactions per second"),
    m("command_ns", Ns, L, "command time", "wall time of the command, shell start-up subtracted"),
    m("shell_overhead_ns", Ns, L, "shell start-up", "median wall time of an empty `sh -c`"),
    m("fsbench_cpu_ns", Ns, L, "fsbench CPU", "fsbench's own CPU while a command ran: starting, watching and reaping it (the sample's user and sys are the command's)"),
    m("resident_pct", Pct, L, "cached before", "share of the workload's file pages in the page cache before the sample"),
    m("direct_used", Flag, H, "direct I/O", "1 when the sample used verified direct I/O"),
    m("engine_io_uring", Flag, H, "io_uring", "1 when requests went through io_uring (engine=io_uring or auto), 0 for psync"),
    m("job_mib_s_min", MibPerS, H, "slowest job MiB/s", "MiB/s of the slowest of the parallel jobs, over its own time"),
    m("job_mib_s_max", MibPerS, H, "fastest job MiB/s", "MiB/s of the fastest of the parallel jobs, over its own time"),
    m("job_iops_min", Iops, H, "slowest job IOPS", "IOPS of the slowest of the parallel jobs, over its own time"),
    m("job_iops_max", Iops, H, "fastest job IOPS", "IOPS of the fastest of the parallel jobs, over its own time"),
    m("rank_mib_s_min", MibPerS, H, "slowest rank MiB/s", "MiB/s of the slowest MPI rank, over its own time"),
    m("rank_mib_s_max", MibPerS, H, "fastest rank MiB/s", "MiB/s of the fastest MPI rank, over its own time"),
    m("rank_iops_min", Iops, H, "slowest rank IOPS", "IOPS of the slowest MPI rank, over its own time"),
    m("rank_iops_max", Iops, H, "fastest rank IOPS", "IOPS of the fastest MPI rank, over its own time"),
    m("ranks", Count, H, "ranks", "MPI ranks (or parallel parts) whose work the sample adds up"),
    m("stonewall_mib_s", MibPerS, H, "stonewall MiB/s", "IOR-style stonewalled MiB/s: what every rank (or job) had moved when the first finished, over that time"),
    m("stonewall_iops", Iops, H, "stonewall IOPS", "IOR-style stonewalled IOPS: operations of every rank (or job) done when the first finished, over that time"),
    m("stonewall_ns", Ns, L, "stonewall time", "when the first rank (or job) finished: the time the stonewalled rates are over"),
    m("direct_cache_growth_pct", Pct, L, "cache growth", "page-cache growth during a sample that asked for direct I/O"),
    m("bytes_read", Bytes, H, "bytes read", "bytes read (postmark)"),
    m("bytes_written", Bytes, H, "bytes written", "bytes written (postmark)"),
    m("entries", Count, H, "entries", "directory entries seen"),
    m("dirs", Count, H, "dirs", "directories seen or made"),
    m("dirs_read", Count, H, "dirs read", "directories read for untracked files (status-scan)"),
    m("errors", Count, L, "errors", "entries that could not be read"),
    m("files", Count, H, "files", "files made or seen"),
    m("files_appended", Count, H, "appended", "files appended to (postmark)"),
    m("files_checked", Count, H, "checked", "tracked files lstat'ed (status-scan)"),
    m("files_created", Count, H, "created", "files created (postmark)"),
    m("files_deleted", Count, H, "deleted", "files deleted (postmark)"),
    m("files_read", Count, H, "read", "files read (postmark)"),
    m("deleted_alone", Count, H, "deleted alone", "files deleted during transactions (postmark)"),
    m("modified", Count, L, "modified", "tracked files found modified (status-scan)"),
    m("untracked", Count, L, "untracked", "untracked files found (status-scan)"),
    m("dirty", Count, L, "dirty", "outputs found out of date (null-build)"),
    m("edges", Count, H, "edges", "build graph edges checked (null-build)"),
    m("nodes", Count, H, "nodes", "build graph nodes stat'ed (null-build)"),
    m("out_of_files", Flag, L, "out of files", "1 when postmark ran out of files"),
    m("walks", Count, H, "walks", "walks done (walk)"),
    m("create_ops", Count, H, "creates", "postmark create operations"),
    m("read_ops", Count, H, "reads", "postmark read operations"),
    m("append_ops", Count, H, "appends", "postmark append operations"),
    m("delete_ops", Count, H, "deletes", "postmark delete operations"),
    m("create_mean_ns", Ns, L, "create mean", "mean time of a postmark create"),
    m("read_mean_ns", Ns, L, "read mean", "mean time of a postmark read"),
    m("append_mean_ns", Ns, L, "append mean", "mean time of a postmark append"),
    m("delete_mean_ns", Ns, L, "delete mean", "mean time of a postmark delete"),
    m("workers", Count, H, "workers", "workers used (walk)"),
    m("machine_user_pct", Pct, L, "machine user", "user CPU of the whole machine, % of wall x CPUs (/proc/stat)"),
    m("machine_sys_pct", Pct, L, "machine sys", "system CPU of the whole machine, % of wall x CPUs (/proc/stat)"),
    m("machine_iowait_pct", Pct, L, "machine iowait", "iowait of the whole machine, % of wall x CPUs"),
    m("machine_irq_pct", Pct, L, "machine irq", "irq + softirq time of the whole machine, % of wall x CPUs"),
    m("machine_idle_pct", Pct, H, "machine idle", "idle time of the whole machine, % of wall x CPUs"),
    m("machine_steal_pct", Pct, L, "machine steal", "time stolen by the hypervisor, % of wall x CPUs"),
    m("machine_context_switches_per_s", PerS("switches/s"), L, "ctx switches/s", "context switches of the whole machine per second"),
    m("daemon_user_ns", Ns, L, "daemon user", "user CPU of the FUSE daemon serving the target"),
    m("daemon_sys_ns", Ns, L, "daemon sys", "system CPU of the FUSE daemon serving the target"),
    m("daemon_cpu_pct", Pct, L, "daemon CPU", "CPU of the FUSE daemon, % of one CPU"),
    m("cpu_wait_pct", Pct, L, "CPU wait", "time the thread that ran the sample waited for a CPU while runnable, % of wall"),
    m("server_cpu_pct", Pct, L, "server CPU", "CPU of the busiest simulated server host (its daemons), % of one CPU"),
    m("major_faults", Count, L, "major faults", "major page faults of fsbench and its children"),
    m("voluntary_switches", Count, L, "vol. switches", "voluntary context switches of fsbench and its children"),
    m("involuntary_switches", Count, L, "invol. switches", "involuntary context switches of fsbench and its children"),
    m("device_read_bytes", Bytes, L, "device read", "bytes the deepest block device under the target read (/sys/block/*/stat)"),
    m("device_write_bytes", Bytes, L, "device written", "bytes the deepest block device under the target wrote (/sys/block/*/stat)"),
    m("device_ios", Count, L, "device I/Os", "I/Os the deepest block device completed"),
    m("device_busy_pct", Pct, L, "device busy", "time the deepest device had I/O in flight (io_ticks), % of wall time"),
    m("served_by_device_pct", Pct, L, "from device", "device bytes read over the bytes the workload read, %"),
    m("device_write_pct", Pct, H, "to device", "device bytes written over the bytes the workload wrote, %"),
    m("cold_verified", Flag, H, "cold verified", "1 when the device's reads show a cold metadata sample started cold"),
    m("network_rx_bytes", Bytes, L, "net received", "bytes received on the wire during the sample"),
    m("network_tx_bytes", Bytes, L, "net sent", "bytes sent on the wire during the sample"),
    m("rate_iops", Iops, H, "rate asked", "open loop: requests per second asked for (rate=), this part's share"),
    m("rate_achieved_pct", Pct, H, "rate achieved", "open loop: requests done over the schedule's span, in % of the rate asked"),
    m("service_p50_ns", Ns, L, "service p50", "open loop: median time from issuing a request to its completion (what closed-loop tools report; latency counts from the scheduled start)"),
    m("service_p99_ns", Ns, L, "service p99", "open loop: 99th percentile of issue-to-completion time"),
    m("service_p999_ns", Ns, L, "service p99.9", "open loop: 99.9th percentile of issue-to-completion time"),
    m("service_mean_ns", Ns, L, "service mean", "open loop: mean issue-to-completion time"),
    m("think_ns", Ns, L, "think", "pause after each request (think=)"),
    m("curve_max_iops", Iops, H, "curve max IOPS", "rate=curve: the closed-loop probe's rate, 100% of the curve"),
    m("knee_load_pct", Pct, H, "knee load", "rate=curve: the load (% of the maximum) beyond which p99 rises fastest"),
    m("knee_iops", Iops, H, "knee IOPS", "rate=curve: requests per second achieved at the knee"),
    m("knee_p99_ns", Ns, L, "knee p99", "rate=curve: p99 latency at the knee"),
    m("background_mib_s", MibPerS, H, "background MiB/s", "--background: what the background workload moved per second while the sample ran"),
    m("background_iops", Iops, H, "background IOPS", "--background: the background workload's operations per second"),
    m("background_ops", Count, H, "background ops", "--background: the background workload's operations during the sample"),
    m("verified_bytes", Bytes, H, "verified", "verify=true: bytes checked against their checksums"),
    m("mmap_minor_faults", Count, L, "mmap minor faults", "engine=mmap: page faults served from the page cache"),
    m("mmap_major_faults", Count, L, "mmap major faults", "engine=mmap: page faults that read from storage"),
    m("fx_ops_per_s", PerS("ops/s"), H, "ops/s", "card operation: operations per second of the timed window, summed over the jobs"),
    m("fx_all_ops", Count, H, "all ops", "card operation: every operation of the sample, warm-up included"),
    m("fx_user_pct", Pct, L, "user", "card operation: the machine's user time over the timed window, % of all CPUs"),
    m("fx_sys_pct", Pct, L, "sys", "card operation: the machine's system time over the timed window, % of all CPUs"),
    m("fx_idle_pct", Pct, H, "idle", "card operation: the machine's idle time over the timed window, % of all CPUs"),
    m("fx_iowait_pct", Pct, L, "iowait", "card operation: the machine's I/O wait over the timed window, % of all CPUs"),
    m("fx_late_start_ns", Ns, L, "late start", "card operation: the latest a job began its timed loop after the common start"),
    m("replay_calls", Count, H, "calls", "calls a replay made (a trace's calls under its root)"),
    m("replay_threads", Count, H, "threads", "threads a replay ran, one per recorded thread"),
    m("replay_diverged", Count, L, "diverged", "replayed calls whose result differed from the recorded one"),
    m("replay_diverged_pct", Pct, L, "diverged", "replayed calls whose result differed from the recorded one, % of the calls"),
    m("replay_concurrency", Count, H, "in calls at once", "a replay's threads in a call at once, on average over the time some call was under way (1: one at a time)"),
];

/// The catalogue entry of `name`, if it is listed.
pub fn lookup(name: &str) -> Option<&'static MetricDef> {
    CATALOGUE.iter().find(|d| d.name == name)
}

/// Unit and direction of `name`: from the catalogue, else from its suffix.
fn unit_and_better(name: &str) -> (Unit, Better) {
    match lookup(name) {
        Some(d) => (d.unit, d.better),
        None => crate::suffix::by_suffix(name),
    }
}

/// Unit label and direction of `name`: from the catalogue, else from its suffix.
pub fn unit_of(name: &str) -> (&'static str, Better) {
    let (unit, better) = unit_and_better(name);
    (unit.label(), better)
}

/// Unit of `name`: from the catalogue, else from its suffix.
pub fn unit_kind(name: &str) -> Unit {
    unit_and_better(name).0
}

/// The column label of `name`: the catalogue's, else the name with its unit.
pub fn label_of(name: &str) -> String {
    match lookup(name) {
        Some(d) => d.label.to_string(),
        None => match crate::suffix::by_suffix(name).0 {
            Unit::Count | Unit::Ns => name.to_string(),
            unit => format!("{name} ({})", unit.label()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_labelled() {
        for (i, d) in CATALOGUE.iter().enumerate() {
            assert!(!d.label.is_empty() && !d.help.is_empty(), "{}", d.name);
            assert!(
                CATALOGUE[i + 1..].iter().all(|o| o.name != d.name),
                "duplicate {}",
                d.name
            );
        }
    }

    #[test]
    fn catalogue_wins_over_suffixes() {
        assert_eq!(unit_of("files_per_s"), ("files/s", Better::Higher));
        assert_eq!(unit_of("resident_pct"), ("%", Better::Lower));
        assert_eq!(unit_of("direct_used"), ("", Better::Higher));
        assert_eq!(unit_of("something_ns"), ("ns", Better::Lower));
        assert_eq!(label_of("iops"), "IOPS");
        assert_eq!(label_of("new_thing_mib_s"), "new_thing_mib_s (MiB/s)");
    }
}
