//! Metric identifiers: one constant per catalogued metric, so that code looking a metric up
//! names it through the catalogue instead of a string literal (a typo is a compile error; a test
//! checks that every constant is catalogued).

/// `wall_ns`: wall time of the sample (monotonic clock).
pub const WALL_NS: &str = "wall_ns";
/// `user_ns`: user CPU of fsbench and its waited-for children.
pub const USER_NS: &str = "user_ns";
/// `sys_ns`: system CPU of fsbench and its waited-for children.
pub const SYS_NS: &str = "sys_ns";
/// `cpu_pct`: (user + sys) / wall of fsbench and its children.
pub const CPU_PCT: &str = "cpu_pct";
/// `throughput_mib_s`: bytes moved per second of wall time.
pub const THROUGHPUT_MIB_S: &str = "throughput_mib_s";
/// `iops`: operations per second of wall time.
pub const IOPS: &str = "iops";
/// `lat_p50_ns`: median per-operation latency.
pub const LAT_P50_NS: &str = "lat_p50_ns";
/// `lat_mean_ns`: mean per-operation latency.
pub const LAT_MEAN_NS: &str = "lat_mean_ns";
/// `lat_p99_ns`: 99th percentile per-operation latency.
pub const LAT_P99_NS: &str = "lat_p99_ns";
/// `read_mib_s`: read phase throughput (large-file).
pub const READ_MIB_S: &str = "read_mib_s";
/// `write_mib_s`: write phase throughput, fdatasync included (large-file).
pub const WRITE_MIB_S: &str = "write_mib_s";
/// `unique_write_bytes`: the bytes random writes covered, expected (a block written twice before
/// a flush reaches the device once).
pub const UNIQUE_WRITE_BYTES: &str = "unique_write_bytes";
/// `peak_mib_s`: the best 5-interval stretch of a sample's series, MiB/s.
pub const PEAK_MIB_S: &str = "peak_mib_s";
/// `sustained_mib_s`: the rate over the second half of a series' active intervals, MiB/s.
pub const SUSTAINED_MIB_S: &str = "sustained_mib_s";
/// `write_peak_mib_s`: `peak_mib_s` of large-file's write phase.
pub const WRITE_PEAK_MIB_S: &str = "write_peak_mib_s";
/// `write_sustained_mib_s`: `sustained_mib_s` of large-file's write phase.
pub const WRITE_SUSTAINED_MIB_S: &str = "write_sustained_mib_s";
/// `read_peak_mib_s`: `peak_mib_s` of large-file's read phase.
pub const READ_PEAK_MIB_S: &str = "read_peak_mib_s";
/// `read_sustained_mib_s`: `sustained_mib_s` of large-file's read phase.
pub const READ_SUSTAINED_MIB_S: &str = "read_sustained_mib_s";
/// `entries_per_s`: directory entries walked per second.
pub const ENTRIES_PER_S: &str = "entries_per_s";
/// `sys_ns_per_entry`: system CPU per directory entry walked.
pub const SYS_NS_PER_ENTRY: &str = "sys_ns_per_entry";
/// `user_ns_per_entry`: user CPU per directory entry walked.
pub const USER_NS_PER_ENTRY: &str = "user_ns_per_entry";
/// `files_per_s`: files created per second (tree-create).
pub const FILES_PER_S: &str = "files_per_s";
/// `delete_files_per_s`: files deleted per second (tree-create).
pub const DELETE_FILES_PER_S: &str = "delete_files_per_s";
/// `stat_files_per_s`: files lstat'ed by name per second (tree-create stat=true, mdtest's stat phase).
pub const STAT_FILES_PER_S: &str = "stat_files_per_s";
/// `transactions_per_s`: postmark transactions per second.
pub const TRANSACTIONS_PER_S: &str = "transactions_per_s";
/// `command_ns`: wall time of the command, shell start-up subtracted.
pub const COMMAND_NS: &str = "command_ns";
/// `shell_overhead_ns`: median wall time of an empty sh -c.
pub const SHELL_OVERHEAD_NS: &str = "shell_overhead_ns";
/// `fsbench_cpu_ns`: fsbench's own CPU (user and system) during a sample whose user and system
/// time are a program's (a `command`): what starting, watching and reaping it cost.
pub const FSBENCH_CPU_NS: &str = "fsbench_cpu_ns";
/// `resident_pct`: share of the workload's file pages in the page cache before the sample.
pub const RESIDENT_PCT: &str = "resident_pct";
/// `direct_used`: 1 when the sample used verified direct I/O.
pub const DIRECT_USED: &str = "direct_used";
/// `engine_io_uring`: 1 when requests went through io_uring (engine=io_uring or auto), 0 for psync.
pub const ENGINE_IO_URING: &str = "engine_io_uring";
/// `job_mib_s_min`: MiB/s of the slowest of the parallel jobs, over its own time.
pub const JOB_MIB_S_MIN: &str = "job_mib_s_min";
/// `job_mib_s_max`: MiB/s of the fastest of the parallel jobs, over its own time.
pub const JOB_MIB_S_MAX: &str = "job_mib_s_max";
/// `job_iops_min`: IOPS of the slowest of the parallel jobs, over its own time.
pub const JOB_IOPS_MIN: &str = "job_iops_min";
/// `job_iops_max`: IOPS of the fastest of the parallel jobs, over its own time.
pub const JOB_IOPS_MAX: &str = "job_iops_max";
/// `rank_mib_s_min`: MiB/s of the slowest MPI rank, over its own time.
pub const RANK_MIB_S_MIN: &str = "rank_mib_s_min";
/// `rank_mib_s_max`: MiB/s of the fastest MPI rank, over its own time.
pub const RANK_MIB_S_MAX: &str = "rank_mib_s_max";
/// `rank_iops_min`: IOPS of the slowest MPI rank, over its own time.
pub const RANK_IOPS_MIN: &str = "rank_iops_min";
/// `rank_iops_max`: IOPS of the fastest MPI rank, over its own time.
pub const RANK_IOPS_MAX: &str = "rank_iops_max";
/// `ranks`: MPI ranks (or parallel parts) whose work the sample adds up.
pub const RANKS: &str = "ranks";
/// `stonewall_mib_s`: IOR-style stonewalled MiB/s: what every rank (or job) had moved when the first finished, over that time.
pub const STONEWALL_MIB_S: &str = "stonewall_mib_s";
/// `stonewall_iops`: IOR-style stonewalled IOPS: operations of every rank (or job) done when the first finished, over that time.
pub const STONEWALL_IOPS: &str = "stonewall_iops";
/// `stonewall_ns`: when the first rank (or job) finished: the time the stonewalled rates are over.
pub const STONEWALL_NS: &str = "stonewall_ns";
/// `direct_cache_growth_pct`: page-cache growth during a sample that asked for direct I/O.
pub const DIRECT_CACHE_GROWTH_PCT: &str = "direct_cache_growth_pct";
/// `bytes_read`: bytes read (postmark).
pub const BYTES_READ: &str = "bytes_read";
/// `bytes_written`: bytes written (postmark).
pub const BYTES_WRITTEN: &str = "bytes_written";
/// `entries`: directory entries seen.
pub const ENTRIES: &str = "entries";
/// `dirs`: directories seen or made.
pub const DIRS: &str = "dirs";
/// `dirs_read`: directories read for untracked files (status-scan).
pub const DIRS_READ: &str = "dirs_read";
/// `errors`: entries that could not be read.
pub const ERRORS: &str = "errors";
/// `files`: files made or seen.
pub const FILES: &str = "files";
/// `files_appended`: files appended to (postmark).
pub const FILES_APPENDED: &str = "files_appended";
/// `files_checked`: tracked files lstat'ed (status-scan).
pub const FILES_CHECKED: &str = "files_checked";
/// `files_created`: files created (postmark).
pub const FILES_CREATED: &str = "files_created";
/// `files_deleted`: files deleted (postmark).
pub const FILES_DELETED: &str = "files_deleted";
/// `files_read`: files read (postmark).
pub const FILES_READ: &str = "files_read";
/// `deleted_alone`: files deleted during transactions (postmark).
pub const DELETED_ALONE: &str = "deleted_alone";
/// `modified`: tracked files found modified (status-scan).
pub const MODIFIED: &str = "modified";
/// `untracked`: untracked files found (status-scan).
pub const UNTRACKED: &str = "untracked";
/// `dirty`: outputs found out of date (null-build).
pub const DIRTY: &str = "dirty";
/// `edges`: build graph edges checked (null-build).
pub const EDGES: &str = "edges";
/// `nodes`: build graph nodes stat'ed (null-build).
pub const NODES: &str = "nodes";
/// `out_of_files`: 1 when postmark ran out of files.
pub const OUT_OF_FILES: &str = "out_of_files";
/// `walks`: walks done (walk).
pub const WALKS: &str = "walks";
/// `create_ops`: postmark create operations.
pub const CREATE_OPS: &str = "create_ops";
/// `read_ops`: postmark read operations.
pub const READ_OPS: &str = "read_ops";
/// `append_ops`: postmark append operations.
pub const APPEND_OPS: &str = "append_ops";
/// `delete_ops`: postmark delete operations.
pub const DELETE_OPS: &str = "delete_ops";
/// `create_mean_ns`: mean time of a postmark create.
pub const CREATE_MEAN_NS: &str = "create_mean_ns";
/// `read_mean_ns`: mean time of a postmark read.
pub const READ_MEAN_NS: &str = "read_mean_ns";
/// `append_mean_ns`: mean time of a postmark append.
pub const APPEND_MEAN_NS: &str = "append_mean_ns";
/// `delete_mean_ns`: mean time of a postmark delete.
pub const DELETE_MEAN_NS: &str = "delete_mean_ns";
/// `workers`: workers used (walk).
pub const WORKERS: &str = "workers";
/// `machine_user_pct`: user CPU of the whole machine, % of wall x CPUs (/proc/stat).
pub const MACHINE_USER_PCT: &str = "machine_user_pct";
/// `machine_sys_pct`: system CPU of the whole machine, % of wall x CPUs (/proc/stat).
pub const MACHINE_SYS_PCT: &str = "machine_sys_pct";
/// `machine_iowait_pct`: iowait of the whole machine, % of wall x CPUs.
pub const MACHINE_IOWAIT_PCT: &str = "machine_iowait_pct";
/// `machine_irq_pct`: irq + softirq time of the whole machine, % of wall x CPUs.
pub const MACHINE_IRQ_PCT: &str = "machine_irq_pct";
/// `machine_idle_pct`: idle time of the whole machine, % of wall x CPUs.
pub const MACHINE_IDLE_PCT: &str = "machine_idle_pct";
/// `machine_steal_pct`: time stolen by the hypervisor, % of wall x CPUs.
pub const MACHINE_STEAL_PCT: &str = "machine_steal_pct";
/// `machine_context_switches_per_s`: context switches of the whole machine per second.
pub const MACHINE_CONTEXT_SWITCHES_PER_S: &str = "machine_context_switches_per_s";
/// `daemon_user_ns`: user CPU of the FUSE daemon serving the target.
pub const DAEMON_USER_NS: &str = "daemon_user_ns";
/// `daemon_sys_ns`: system CPU of the FUSE daemon serving the target.
pub const DAEMON_SYS_NS: &str = "daemon_sys_ns";
/// `daemon_cpu_pct`: CPU of the FUSE daemon, % of one CPU.
pub const DAEMON_CPU_PCT: &str = "daemon_cpu_pct";
/// `cpu_wait_pct`: time the thread that ran the sample waited for a CPU while runnable (a CPU
/// taken by others), % of wall.
pub const CPU_WAIT_PCT: &str = "cpu_wait_pct";
/// `server_cpu_pct`: CPU of the busiest simulated server host of a served lab target, % of one CPU.
pub const SERVER_CPU_PCT: &str = "server_cpu_pct";
/// `major_faults`: major page faults of fsbench and its children.
pub const MAJOR_FAULTS: &str = "major_faults";
/// `voluntary_switches`: voluntary context switches of fsbench and its children.
pub const VOLUNTARY_SWITCHES: &str = "voluntary_switches";
/// `involuntary_switches`: involuntary context switches of fsbench and its children.
pub const INVOLUNTARY_SWITCHES: &str = "involuntary_switches";
/// `device_read_bytes`: bytes the deepest block device under the target read during the sample.
pub const DEVICE_READ_BYTES: &str = "device_read_bytes";
/// `device_write_bytes`: bytes the deepest block device under the target wrote during the sample.
pub const DEVICE_WRITE_BYTES: &str = "device_write_bytes";
/// `device_ios`: I/Os the deepest block device completed during the sample.
pub const DEVICE_IOS: &str = "device_ios";
/// `device_busy_pct`: time the deepest device had I/O in flight (io_ticks), % of wall time.
pub const DEVICE_BUSY_PCT: &str = "device_busy_pct";
/// `served_by_device_pct`: device bytes read over the bytes the workload read.
pub const SERVED_BY_DEVICE_PCT: &str = "served_by_device_pct";
/// `device_write_pct`: device bytes written over the bytes the workload wrote.
pub const DEVICE_WRITE_PCT: &str = "device_write_pct";
/// `cold_verified`: 1 when the device's reads showed that a cold metadata sample started cold.
pub const COLD_VERIFIED: &str = "cold_verified";
/// `network_rx_bytes`: bytes received on the wire (NFS mountstats or the interfaces) in the sample.
pub const NETWORK_RX_BYTES: &str = "network_rx_bytes";
/// `network_tx_bytes`: bytes sent on the wire (NFS mountstats or the interfaces) in the sample.
pub const NETWORK_TX_BYTES: &str = "network_tx_bytes";
/// `rate_iops`: open loop: requests per second asked for (rate=), this part's share.
pub const RATE_IOPS: &str = "rate_iops";
/// `rate_achieved_pct`: open loop: requests done over the schedule's span, in % of the rate asked.
pub const RATE_ACHIEVED_PCT: &str = "rate_achieved_pct";
/// `service_p50_ns`: open loop: median time from issuing a request to its completion (what closed-loop tools report; latency counts from the scheduled start).
pub const SERVICE_P50_NS: &str = "service_p50_ns";
/// `service_p99_ns`: open loop: 99th percentile of issue-to-completion time.
pub const SERVICE_P99_NS: &str = "service_p99_ns";
/// `service_p999_ns`: open loop: 99.9th percentile of issue-to-completion time.
pub const SERVICE_P999_NS: &str = "service_p999_ns";
/// `service_mean_ns`: open loop: mean issue-to-completion time.
pub const SERVICE_MEAN_NS: &str = "service_mean_ns";
/// `think_ns`: pause after each request (think=).
pub const THINK_NS: &str = "think_ns";
/// `curve_max_iops`: rate=curve: the closed-loop probe's rate, 100% of the curve.
pub const CURVE_MAX_IOPS: &str = "curve_max_iops";
/// `knee_load_pct`: rate=curve: the load (% of the maximum) beyond which p99 rises fastest.
pub const KNEE_LOAD_PCT: &str = "knee_load_pct";
/// `knee_iops`: rate=curve: requests per second achieved at the knee.
pub const KNEE_IOPS: &str = "knee_iops";
/// `knee_p99_ns`: rate=curve: p99 latency at the knee.
pub const KNEE_P99_NS: &str = "knee_p99_ns";
/// `background_mib_s`: --background: what the background workload moved per second while the sample ran.
pub const BACKGROUND_MIB_S: &str = "background_mib_s";
/// `background_iops`: --background: the background workload's operations per second.
pub const BACKGROUND_IOPS: &str = "background_iops";
/// `background_ops`: --background: the background workload's operations during the sample.
pub const BACKGROUND_OPS: &str = "background_ops";
/// `verified_bytes`: verify=true: bytes checked against their checksums.
pub const VERIFIED_BYTES: &str = "verified_bytes";
/// `mmap_minor_faults`: engine=mmap: page faults served from the page cache.
pub const MMAP_MINOR_FAULTS: &str = "mmap_minor_faults";
/// `mmap_major_faults`: engine=mmap: page faults that read from storage.
pub const MMAP_MAJOR_FAULTS: &str = "mmap_major_faults";
/// `rate=curve`'s load steps, in percent of the rate its closed-loop probe reached.
pub const CURVE_STEPS: [u32; 10] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

/// The metric holding figure `what` (`iops`, `p50_ns`, `p99_ns`, `p999_ns`) of the `rate=curve`
/// step at `load_pct`: `curve_{load_pct}_{what}` (not catalogued one by one; units by suffix).
pub fn curve_step(load_pct: u32, what: &str) -> String {
    format!("curve_{load_pct}_{what}")
}

/// `fx_ops_per_s`: a card operation's operations per second of the timed window, summed over
/// its jobs.
pub const FX_OPS_PER_S: &str = "fx_ops_per_s";
/// `fx_all_ops`: every operation a card sample's jobs did, warm-up included (the denominator of
/// a lock's wait per operation: the profile covers the whole sample).
pub const FX_ALL_OPS: &str = "fx_all_ops";
/// `fx_user_pct`: the machine's user time over a card sample's timed window, % of all CPUs.
pub const FX_USER_PCT: &str = "fx_user_pct";
/// `fx_sys_pct`: system time over the timed window, % of all CPUs.
pub const FX_SYS_PCT: &str = "fx_sys_pct";
/// `fx_idle_pct`: idle time over the timed window, % of all CPUs.
pub const FX_IDLE_PCT: &str = "fx_idle_pct";
/// `fx_iowait_pct`: I/O wait over the timed window, % of all CPUs.
pub const FX_IOWAIT_PCT: &str = "fx_iowait_pct";
/// `fx_late_start_ns`: the latest a card job began its timed loop after the common start.
pub const FX_LATE_START_NS: &str = "fx_late_start_ns";
/// `replay_calls`: calls a replay made (a trace's calls under its root).
pub const REPLAY_CALLS: &str = "replay_calls";
/// `replay_threads`: threads a replay ran (one per recorded thread with a call under the root).
pub const REPLAY_THREADS: &str = "replay_threads";
/// `replay_diverged`: replayed calls whose result differed from the recorded one.
pub const REPLAY_DIVERGED: &str = "replay_diverged";
/// `replay_diverged_pct`: [`REPLAY_DIVERGED`] as a share of [`REPLAY_CALLS`], %.
pub const REPLAY_DIVERGED_PCT: &str = "replay_diverged_pct";

/// `replay_concurrency`: the replay's threads in a call at once, on average over the time some
/// call was under way (1: one call at a time).
pub const REPLAY_CONCURRENCY: &str = "replay_concurrency";

/// Every identifier above, in catalogue order.
pub const ALL: &[&str] = &[
    WALL_NS,
    USER_NS,
    SYS_NS,
    CPU_PCT,
    THROUGHPUT_MIB_S,
    IOPS,
    LAT_P50_NS,
    LAT_MEAN_NS,
    LAT_P99_NS,
    READ_MIB_S,
    WRITE_MIB_S,
    UNIQUE_WRITE_BYTES,
    PEAK_MIB_S,
    SUSTAINED_MIB_S,
    WRITE_PEAK_MIB_S,
    WRITE_SUSTAINED_MIB_S,
    READ_PEAK_MIB_S,
    READ_SUSTAINED_MIB_S,
    ENTRIES_PER_S,
    SYS_NS_PER_ENTRY,
    USER_NS_PER_ENTRY,
    FILES_PER_S,
    DELETE_FILES_PER_S,
    STAT_FILES_PER_S,
    TRANSACTIONS_PER_S,
    COMMAND_NS,
    SHELL_OVERHEAD_NS,
    FSBENCH_CPU_NS,
    RESIDENT_PCT,
    DIRECT_USED,
    ENGINE_IO_URING,
    JOB_MIB_S_MIN,
    JOB_MIB_S_MAX,
    JOB_IOPS_MIN,
    JOB_IOPS_MAX,
    RANK_MIB_S_MIN,
    RANK_MIB_S_MAX,
    RANK_IOPS_MIN,
    RANK_IOPS_MAX,
    RANKS,
    STONEWALL_MIB_S,
    STONEWALL_IOPS,
    STONEWALL_NS,
    DIRECT_CACHE_GROWTH_PCT,
    BYTES_READ,
    BYTES_WRITTEN,
    ENTRIES,
    DIRS,
    DIRS_READ,
    ERRORS,
    FILES,
    FILES_APPENDED,
    FILES_CHECKED,
    FILES_CREATED,
    FILES_DELETED,
    FILES_READ,
    DELETED_ALONE,
    MODIFIED,
    UNTRACKED,
    DIRTY,
    EDGES,
    NODES,
    OUT_OF_FILES,
    WALKS,
    CREATE_OPS,
    READ_OPS,
    APPEND_OPS,
    DELETE_OPS,
    CREATE_MEAN_NS,
    READ_MEAN_NS,
    APPEND_MEAN_NS,
    DELETE_MEAN_NS,
    WORKERS,
    MACHINE_USER_PCT,
    MACHINE_SYS_PCT,
    MACHINE_IOWAIT_PCT,
    MACHINE_IRQ_PCT,
    MACHINE_IDLE_PCT,
    MACHINE_STEAL_PCT,
    MACHINE_CONTEXT_SWITCHES_PER_S,
    DAEMON_USER_NS,
    DAEMON_SYS_NS,
    DAEMON_CPU_PCT,
    CPU_WAIT_PCT,
    SERVER_CPU_PCT,
    MAJOR_FAULTS,
    VOLUNTARY_SWITCHES,
    INVOLUNTARY_SWITCHES,
    DEVICE_READ_BYTES,
    DEVICE_WRITE_BYTES,
    DEVICE_IOS,
    DEVICE_BUSY_PCT,
    SERVED_BY_DEVICE_PCT,
    DEVICE_WRITE_PCT,
    COLD_VERIFIED,
    NETWORK_RX_BYTES,
    NETWORK_TX_BYTES,
    RATE_IOPS,
    RATE_ACHIEVED_PCT,
    SERVICE_P50_NS,
    SERVICE_P99_NS,
    SERVICE_P999_NS,
    SERVICE_MEAN_NS,
    THINK_NS,
    CURVE_MAX_IOPS,
    KNEE_LOAD_PCT,
    KNEE_IOPS,
    KNEE_P99_NS,
    BACKGROUND_MIB_S,
    BACKGROUND_IOPS,
    BACKGROUND_OPS,
    VERIFIED_BYTES,
    MMAP_MINOR_FAULTS,
    MMAP_MAJOR_FAULTS,
    FX_OPS_PER_S,
    FX_ALL_OPS,
    FX_USER_PCT,
    FX_SYS_PCT,
    FX_IDLE_PCT,
    FX_IOWAIT_PCT,
    FX_LATE_START_NS,
    REPLAY_CALLS,
    REPLAY_THREADS,
    REPLAY_DIVERGED,
    REPLAY_DIVERGED_PCT,
    REPLAY_CONCURRENCY,
];

#[cfg(test)]
mod tests {
    #[test]
    fn every_identifier_is_catalogued() {
        for id in super::ALL {
            assert!(crate::catalogue::lookup(id).is_some(), "{id}");
        }
        assert_eq!(super::ALL.len(), crate::catalogue::CATALOGUE.len());
    }
}
