//! One cell of a plan (target × workload × cache state): its built workload, its samples, and
//! taking one sample with the cache prepared as the state demands.

use crate::ClockChoice;
use crate::cache::{self, ColdMethod};
use crate::metrics;
use fsbench_measure::{Clock, CpuSnapshot, FakeClock, SampleRecorder, clock_ticks_per_s};
use fsbench_model::Sample;
use fsbench_spec::plan::{CacheState, Runs};
use fsbench_workload::{Context, Workload, WorkloadError};

/// A workload set up on one target, shared by that target's cache-state cells.
pub struct Prepared {
    /// Index of the target in the plan.
    pub target: usize,
    /// The workload instance.
    pub workload: Box<dyn Workload>,
    /// Where it runs.
    pub ctx: Context,
    /// Set when set-up or a sample failed; the cells of this target stop.
    pub error: Option<String>,
    /// FUSE daemons serving the target or the walked tree, whose CPU each sample records.
    pub daemon_pids: Vec<i32>,
    /// The clock samples are timed with.
    pub clock: ClockChoice,
    /// The workload's fixed facts, from the plan's one build.
    pub caps: fsbench_workload::Caps,
    /// The block devices under the target, whose counters each sample records.
    pub devices: fsbench_measure::diskstats::Devices,
    /// Where the wire bytes of a network filesystem target are read.
    pub wire: Option<fsbench_measure::netstats::WireSource>,
    /// The simulated server hosts of a served lab target, read around each sample (their
    /// links then give the wire bytes).
    pub servers: Vec<fsbench_measure::servers::ServerWatch>,
    /// The time series' interval fixed by `--interval`, ns; `None`: chosen per sample from the
    /// cell's previous one (`fsbench_measure::series::interval_for`).
    pub interval_ns: Option<u64>,
    /// Where closed intervals are published for the progress display.
    pub live: fsbench_measure::LiveRate,
    /// `--background`: the workload run beside each sample on this target.
    pub background: Option<crate::background::Background>,
    /// `--profile`: record the kernel's evidence for every sample.
    pub profile: bool,
    /// The last sample's profile, until the cell takes it.
    pub last_profile: Option<fsbench_model::Profile>,
    /// The target is FUSE or a network filesystem: the kernel keeps its names and attributes
    /// only for the daemon's or the client's timeouts, so a warm sample's cost depends on how
    /// long ago the tree was last touched ([`rewarms`]).
    pub expiring: bool,
}

/// Whether a cell re-warms: an untimed run of its own right before every measured sample. So
/// are warm cells on a target whose caches expire ([`Prepared::expiring`]) when other cells'
/// samples run between two of theirs (interleaved with other targets): otherwise a warm sample
/// found its names and attributes fresh or expired depending on how long the other targets'
/// samples took (`git status` on bindfs: 0.11 s back to back, 0.15 s after 1.5 s idle; a
/// program and its replay were timed at 0.49 of each other, where back to back they agree).
pub fn rewarms(plan: &fsbench_spec::plan::Plan, expiring: bool, cache: CacheState) -> bool {
    let others_between =
        plan.targets.len() > 1 || (plan.interleave_workloads && plan.workloads.len() > 1);
    expiring && cache == CacheState::Warm && plan.interleave && others_between
}

/// Sampling state of one cell.
pub struct Cell {
    /// Index into the prepared workloads (one per target).
    pub prepared: usize,
    /// Cache state.
    pub cache: CacheState,
    /// Measured samples.
    pub samples: Vec<Sample>,
    /// Warm-up samples still to discard, taken right before the next measured one.
    pub warmup_left: u32,
    /// An untimed run precedes every measured sample ([`rewarms`]).
    pub rewarm: bool,
    /// Sampling time spent so far, ns.
    pub elapsed_ns: u64,
    /// No more samples wanted (policy met or failed).
    pub done: bool,
    /// With `--runs auto`: whether the precision was reached.
    pub precision_reached: Option<bool>,
    /// With `until=steady`: the last judgement of the steady-state window.
    pub steady: Option<fsbench_model::SteadyState>,
    /// How many samples it takes (the plan's policy, or steady state for `until=steady`).
    pub runs: Runs,
    /// Warm cells read their files once before the first sample.
    pub primed: bool,
    /// Wall time of the cell's last sample (warm-ups included), ns: the next one's series
    /// interval is chosen from it.
    pub last_wall_ns: Option<u64>,
}

impl Cell {
    /// True when the repetition policy is satisfied for `headline` (records, for `auto`,
    /// whether the precision was reached).
    pub fn policy_met(&mut self, runs: Runs, headline: &str) -> bool {
        let n = self.samples.len() as u32;
        match runs {
            Runs::Fixed(k) => n >= k,
            Runs::Auto {
                precision,
                min,
                max,
                max_time_ns,
            } => {
                if n < min {
                    return false;
                }
                let values = self.headline_values(headline);
                let reached = fsbench_stats::summarize(&values)
                    .and_then(|s| {
                        s.ci95_half
                            .map(|h| s.mean != 0.0 && h / s.mean.abs() <= precision)
                    })
                    .unwrap_or(false);
                let out_of_time = max_time_ns.is_some_and(|t| self.elapsed_ns >= t);
                self.precision_reached = Some(reached);
                reached || n >= max || out_of_time
            }
            Runs::Steady {
                window,
                max,
                max_time_ns,
            } => {
                let values = self.headline_values(headline);
                let judged = fsbench_stats::steady::judge(&values, window as usize);
                self.steady = judged.map(|s| fsbench_model::SteadyState {
                    steady: s.steady,
                    window_first: s.first + 1,
                    window_len: s.len,
                    mean: s.mean,
                    range_pct: s.range_pct,
                    slope_excursion_pct: s.slope_excursion_pct,
                });
                let out_of_time = max_time_ns.is_some_and(|t| self.elapsed_ns >= t);
                judged.is_some_and(|s| s.steady) || n >= max || out_of_time
            }
        }
    }

    /// The cell's `headline` values, in sampling order.
    pub fn headline_values(&self, headline: &str) -> Vec<f64> {
        self.samples
            .iter()
            .filter_map(|s| s.metrics.get(headline).copied())
            .collect()
    }
}

/// One sample measured by this process, before it becomes a stored sample (alone) or is sent
/// to the other MPI ranks.
pub struct Measured {
    /// What the recorder saw.
    pub data: fsbench_measure::SampleData,
    /// The latency histogram, encoded (HdrHistogram V2, deflated, base64).
    pub latency_hdr: Option<String>,
    /// Share of the workload's pages cached before the sample.
    pub resident: Option<f64>,
    /// CPU of the machine, fsbench and the FUSE daemons during the sample.
    pub cpu: fsbench_measure::CpuDelta,
    /// What the block devices under the target did during the sample, top first.
    pub devices: Vec<fsbench_model::DeviceIo>,
    /// Bytes received and sent on the wire during the sample (network filesystems).
    pub wire: Option<(u64, u64)>,
    /// What each simulated server host did during the sample (served lab targets).
    pub servers: Vec<fsbench_model::ServerSample>,
    /// With `--profile`: the kernel's evidence of the sample.
    pub profile: Option<fsbench_model::Profile>,
    /// The largest resident set during the sample, KiB ([`fsbench_measure::memory`]).
    pub peak_rss_kib: Option<u64>,
    /// A replay's time by call kind ([`fsbench_workload::Workload::call_times`]).
    pub calls: Option<fsbench_model::CallTimes>,
}

/// Takes one sample of `p` alone: makes it cold when asked, measures residency, runs.
pub fn take_sample(
    cell: &mut Cell,
    p: &mut Prepared,
    cold: Option<&ColdMethod>,
) -> Result<Sample, WorkloadError> {
    let m = measure(cell, p, cold, &fsbench_cluster::Cluster::solo())?;
    let mut sample = metrics::to_sample(m.data, m.resident, &m.cpu);
    sample.latency_hdr = m.latency_hdr;
    sample.peak_rss_kib = m.peak_rss_kib;
    sample.calls = m.calls;
    metrics::add_devices(&mut sample, m.devices, p.caps.flow);
    metrics::add_wire(&mut sample, m.wire);
    metrics::add_servers(&mut sample, m.servers);
    p.last_profile = m.profile;
    Ok(sample)
}

/// Takes one sample of `p` in its cell's cache state: the workload's `before_sample`, priming
/// (warm: once, and again whenever something else evicted the files since) or dropping the
/// cache (cold), residency, then the timed run, and the direct-I/O check.
/// Under MPI the ranks meet at `dist`'s barriers, which every rank reaches whatever failed before
/// them (so that they stay in step): every rank's files are written before its node's leader
/// drops the node's caches (once per node; `fadvise` on every rank for its own files), residency
/// is measured after the drop, and the sample starts together. The first error is returned after
/// the start barrier. Alone, the barriers are no-ops.
pub fn measure(
    cell: &mut Cell,
    p: &mut Prepared,
    cold: Option<&ColdMethod>,
    dist: &fsbench_cluster::Cluster,
) -> Result<Measured, WorkloadError> {
    let mut err = p.workload.before_sample(&p.ctx).err();
    let files = p.workload.cache_files(&p.ctx);
    if cell.cache == CacheState::Warm && (!cell.primed || cache::needs_repriming(&files)) {
        cache::prime(&files);
        cell.primed = true;
    }
    if cell.cache == CacheState::Cold {
        let method = cold.expect("invariant: a cold cell has a cold method");
        dist.barrier();
        if err.is_none() && (method.per_file() || dist.is_node_leader()) {
            err = cache::apply(method, &files, &p.ctx.cancel, &p.ctx.cleanup)
                .err()
                .map(|m| {
                    if p.ctx.cancel.is_cancelled() {
                        WorkloadError::Interrupted
                    } else {
                        WorkloadError::Unsupported(format!("cannot make the cache cold: {m}"))
                    }
                });
        }
        dist.barrier();
    }
    // A cold sample of a workload that reads a tree's metadata is not followed by a residency
    // measurement: opening each of its files would bring back into the cache the inodes and
    // directories the sample must read from the device (a replayed `git status`, measured so,
    // read 11 blocks cold where the program read 563).
    let resident = match cell.cache == CacheState::Cold && p.caps.reads_tree {
        true => None,
        false => cache::resident_pct(&files),
    };
    dist.barrier();
    if let Some(e) = err {
        return Err(e);
    }
    // One recorder type per clock, so the real clock's reading is inlined in the per-operation
    // path with no branch for the fake one.
    let interval = p
        .interval_ns
        .unwrap_or_else(|| fsbench_measure::series::interval_for(cell.last_wall_ns));
    let mut measured = match p.clock.fake_step(p.target, cell.samples.len()) {
        None => timed_run(SampleRecorder::new(), p, interval)?,
        Some(step) => timed_run(
            SampleRecorder::with_clock(FakeClock::new(step)),
            p,
            interval,
        )?,
    };
    cell.last_wall_ns = Some(measured.data.wall_ns);
    verify_direct(&mut measured.data.metrics, &files, resident);
    // A file a sample only writes is overwritten whatever of it was cached: its residency says
    // nothing of the sample, and two cells that differ in it (a deleted and recreated file on
    // ext4, always 100% on tmpfs) are no less comparable.
    measured.resident =
        resident.filter(|_| !matches!(p.caps.flow, fsbench_workload::Flow::Write { .. }));
    Ok(measured)
}

/// The counters read just before and just after the timed region: the devices, the wire and
/// the CPUs (machine, FUSE daemons, fsbench's own).
struct Counters {
    devices: Vec<(String, fsbench_measure::diskstats::DiskStat)>,
    wire: Option<(u64, u64)>,
    cpu: CpuSnapshot,
    servers: Vec<fsbench_measure::servers::ServerReading>,
}

impl Counters {
    fn read(p: &Prepared) -> Self {
        let servers = fsbench_measure::servers::read(&p.servers);
        let wire = match servers.is_empty() {
            true => p.wire.as_ref().and_then(|w| w.read()),
            false => Some(fsbench_measure::servers::client_wire(&servers)),
        };
        Self {
            devices: p.devices.read(),
            wire,
            cpu: CpuSnapshot::take(&p.daemon_pids),
            servers,
        }
    }

    /// What happened between `self` and `after`.
    fn delta(
        &self,
        after: &Self,
    ) -> (
        fsbench_measure::CpuDelta,
        Vec<fsbench_model::DeviceIo>,
        Option<(u64, u64)>,
    ) {
        let cpu = after.cpu.since(&self.cpu, clock_ticks_per_s());
        let devices = fsbench_measure::diskstats::delta(&self.devices, &after.devices);
        let wire = self
            .wire
            .zip(after.wire)
            .map(|(b, a)| (a.0.saturating_sub(b.0), a.1.saturating_sub(b.1)));
        (cpu, devices, wire)
    }
}

/// The timed region: the ticker and the background load started, the counters, then the
/// workload's run on `rec`, then the counters again (so they span the sample and nothing else:
/// not the background's settling, nor the verification after it).
fn timed_run<C: Clock>(
    mut rec: SampleRecorder<C>,
    p: &mut Prepared,
    interval_ns: u64,
) -> Result<Measured, WorkloadError> {
    rec.set_interval(interval_ns);
    rec.set_live(p.live.clone());
    // A workload that counts its work in bulk gets its series from a ticker thread reading its
    // counter (started before the timed region, stopped after it).
    let ticker = p
        .caps
        .counts_progress
        .then(|| fsbench_measure::Ticker::start(&p.ctx.progress, interval_ns));
    let background = match p.background.as_mut() {
        Some(bg) => Some(bg.start()?),
        None => None,
    };
    let before = Counters::read(p);
    let profiler = crate::profiling::start(p);
    let memory = fsbench_measure::memory::PeakMemory::start();
    rec.start();
    let ran = p.workload.run(&p.ctx, &mut rec);
    let mut data = rec.finish();
    let peak_rss_kib = memory.finish();
    let after = Counters::read(p);
    // A replay's calls, on which the profile puts its threads' waits (built after the sample).
    let windows = profiler.as_ref().and_then(|_| p.workload.call_windows());
    let profile = profiler.map(|s| s.stop(windows.as_ref()));
    let ticked = ticker.flatten().map(fsbench_measure::Ticker::finish);
    let loaded = background.map(|running| {
        let bg = p.background.as_mut().expect("invariant: it was started");
        running.stop(bg)
    });
    ran?;
    data.metrics.extend(p.workload.after_sample(&p.ctx)?);
    let calls = p.workload.call_times();
    if let Some(done) = loaded {
        let done = done.map_err(|e| match e {
            WorkloadError::Interrupted => e,
            e => WorkloadError::Invalid(format!("the background workload failed: {e}")),
        })?;
        done.exclude_cpu(&mut data);
        data.metrics.extend(done.metrics());
    }
    if let Some(mut s) = ticked.filter(|s| data.series.intervals.is_empty() && spread(s)) {
        // The ticker stopped a moment after the sample: its last interval ends with it.
        let prev = s.intervals.iter().rev().nth(1).map_or(0, |i| i.end_ns);
        if let Some(last) = s.intervals.last_mut() {
            last.end_ns = data.wall_ns.max(prev + 1);
        }
        data.series = s;
    }
    let (cpu, devices, wire) = before.delta(&after);
    let servers = fsbench_measure::servers::delta(
        &p.servers,
        &before.servers,
        &after.servers,
        clock_ticks_per_s(),
    );
    Ok(Measured {
        data,
        latency_hdr: fsbench_measure::histo::encode(rec.histogram()),
        resident: None,
        cpu,
        devices,
        wire,
        servers,
        profile,
        peak_rss_kib,
        calls,
    })
}

/// True when a ticked series shows work in more than one interval: one lump is a workload that
/// reported at its end, with no course over time to show.
fn spread(s: &fsbench_measure::RawSeries) -> bool {
    s.intervals.iter().filter(|i| i.ops > 0).count() > 1
}

/// Percentage points by which the page cache may grow during a direct sample before the sample
/// is judged not direct (metadata and the odd readahead page stay far below this).
const DIRECT_LEAK_PCT: f64 = 25.0;

/// A sample that claims direct I/O must leave the page cache as it found it: when the workload's
/// files were mostly uncached before and much more cached after, the I/O went through the page
/// cache. The sample is then recorded as not direct (`direct_used` 0), with the growth.
fn verify_direct(
    metrics: &mut Vec<(String, f64)>,
    files: &[std::path::PathBuf],
    before: Option<f64>,
) {
    let direct = metrics
        .iter_mut()
        .find(|(n, _)| n == fsbench_model::metric::DIRECT_USED);
    let Some((_, used)) = direct.filter(|(_, v)| *v == 1.0) else {
        return;
    };
    let (Some(before), Some(after)) = (before, cache::resident_pct(files)) else {
        return;
    };
    if before < 50.0 && after - before > DIRECT_LEAK_PCT {
        *used = 0.0;
        metrics.push((
            fsbench_model::metric::DIRECT_CACHE_GROWTH_PCT.into(),
            after - before,
        ));
    }
}
