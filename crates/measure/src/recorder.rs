//! The Recorder: what a workload reports while it runs (operations, bytes, latencies, phases,
//! named metrics), and `SampleRecorder`, which turns that into one sample's raw data.

use crate::clock::{Clock, MonotonicClock};
use crate::cpu::CpuTimes;
use crate::series::{
    DEFAULT_INTERVAL_NS, MAX_INTERVALS, MIN_INTERVAL_NS, RawInterval, RawSeries, drain,
};
use hdrhistogram::Histogram;

/// What a workload calls while it runs. Implementations must be cheap: `op_done` sits in the
/// hottest loop of every workload.
pub trait Recorder {
    /// The recorder's clock, in nanoseconds. Take it before the first operation of a chain.
    fn now_ns(&mut self) -> u64;

    /// One operation that started at `start_ns` has finished and moved `bytes`. Reads the clock
    /// once, records the latency, and returns the reading so that it can start the next
    /// operation (one clock read per operation).
    fn op_done(&mut self, start_ns: u64, bytes: u64) -> u64;

    /// Operations whose individual latency is not recorded (bulk counters).
    fn add_ops(&mut self, ops: u64, bytes: u64);

    /// One operation whose latency the caller measured with this recorder's clock (at queue
    /// depth: from its submission to the reaping of its completion), which moved `bytes`.
    fn op_latency(&mut self, latency_ns: u64, bytes: u64);

    /// Operations timed by other recorders (parallel jobs): `ops` and `bytes` are added and the
    /// latencies of `hist` merged bucket by bucket, which is exact (same histogram layout). With
    /// the parts' merged `series` (started with this sample), their intervals are added to this
    /// sample's interval by interval, and the latencies are taken from them instead of `hist`.
    fn merge_ops(
        &mut self,
        hist: &Histogram<u64>,
        ops: u64,
        bytes: u64,
        series: Option<&RawSeries>,
    );

    /// A named phase of the sample took `elapsed_ns` (e.g. `create`, `transactions`).
    fn phase(&mut self, name: &str, elapsed_ns: u64);

    /// A named, workload-specific number (`files_created`, `resident_pct`, ...).
    fn metric(&mut self, name: &str, value: f64);

    /// The CPU of the program this sample timed (an external command and the descendants it
    /// reaped, from its rusage), which becomes the sample's user and system time in place of
    /// fsbench's and its children's; fsbench's own CPU meanwhile is kept apart
    /// ([`fsbench_model::metric::FSBENCH_CPU_NS`]), as hyperfine counts a command's CPU.
    fn program_cpu(&mut self, _cpu: CpuTimes) {}

    /// The series interval this recorder closes, ns, when it keeps a series: parallel parts
    /// recorded apart (jobs) use it so that their series add up at the same interval.
    fn interval_ns(&self) -> Option<u64> {
        None
    }

    /// The sample's timed work is over: its wall time and CPU end here, and what the workload
    /// records after it (a replay's calls, timed by its threads and recorded once they are done)
    /// is not timed.
    fn stop_clock(&mut self) {}
}

/// Percentiles and moments of a sample's per-operation latencies, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatencyStats {
    /// Number of recorded operations.
    pub count: u64,
    /// Fastest operation.
    pub min_ns: u64,
    /// Mean latency.
    pub mean_ns: f64,
    /// Standard deviation of the latencies (ioping's mdev).
    pub stddev_ns: f64,
    /// Median.
    pub p50_ns: u64,
    /// 90th percentile.
    pub p90_ns: u64,
    /// 99th percentile.
    pub p99_ns: u64,
    /// 99.9th percentile.
    pub p999_ns: u64,
    /// Slowest operation.
    pub max_ns: u64,
}

/// The raw data of one measured sample.
#[derive(Debug, Clone)]
pub struct SampleData {
    /// Wall time from `start` to `finish`.
    pub wall_ns: u64,
    /// User CPU of the process and its waited-for children during the sample (a program's
    /// alone when the workload gave it: [`Recorder::program_cpu`]).
    pub user_ns: u64,
    /// System CPU, as `user_ns`.
    pub sys_ns: u64,
    /// Operations done (latency-recorded plus bulk).
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Latency statistics; `None` when no operation latency was recorded.
    pub latency: Option<LatencyStats>,
    /// Named phases in the order first reported, with their total time.
    pub phases: Vec<(String, u64)>,
    /// Named workload metrics in the order first reported (a repeated name keeps the last value).
    pub metrics: Vec<(String, f64)>,
    /// How the work progressed: cumulative operations and bytes at points in time since `start`,
    /// ending with the totals at `wall_ns` (at most [`TRACE_POINTS`] points). Used to tell how
    /// much each MPI rank had done when the first rank finished (IOR-style stonewalling).
    pub progress: Vec<ProgressPoint>,
    /// The sample as a time series: each interval's operations, bytes and latencies.
    pub series: RawSeries,
}

impl SampleData {
    /// True when the sample's user and system time are a timed program's, not fsbench's
    /// ([`Recorder::program_cpu`]): nothing of fsbench's own (a background thread) is in them.
    pub fn cpu_is_a_programs(&self) -> bool {
        self.metrics
            .iter()
            .any(|(n, _)| n == fsbench_model::metric::FSBENCH_CPU_NS)
    }
}

/// Cumulative work done at one moment of a sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProgressPoint {
    /// Time since the sample's start, ns.
    pub at_ns: u64,
    /// Operations done by then.
    pub ops: u64,
    /// Bytes moved by then.
    pub bytes: u64,
}

/// Most points a progress trace keeps (one per interval of the series, plus the totals).
pub const TRACE_POINTS: usize = MAX_INTERVALS;

/// Operations between clock reads for the series when the recorder itself does not read the
/// clock (latencies measured by the caller).
const TRACE_OP_STRIDE: u64 = 64;

/// Records one sample: call `start`, hand it to the workload as `&mut dyn Recorder`, then `finish`.
pub struct SampleRecorder<C: Clock = MonotonicClock> {
    clock: C,
    /// The current interval's latencies (drained into `series` when it ends).
    hist: Histogram<u64>,
    /// The whole sample's latencies, rebuilt by `finish` from the series.
    total: Histogram<u64>,
    ops: u64,
    bytes: u64,
    phases: Vec<(String, u64)>,
    metrics: Vec<(String, f64)>,
    start_ns: u64,
    /// fsbench's own CPU and its waited-for children's at `start`.
    start_cpu: (CpuTimes, CpuTimes),
    /// The timed program's CPU, when the workload gave it ([`Recorder::program_cpu`]).
    program_cpu: Option<CpuTimes>,
    /// The interval asked for (`--interval`); the series may double it.
    interval_ns: u64,
    series: RawSeries,
    /// Clock reading at which the current interval ends (the only per-operation comparison).
    due_ns: u64,
    /// Operations and bytes when the current interval began.
    mark: (u64, u64),
    /// Series of parallel parts merged in (`merge_ops` with a series), added at `finish`.
    merged: Option<RawSeries>,
    /// Where each closed interval is published for a progress display.
    live: Option<crate::LiveRate>,
    /// Where [`Recorder::stop_clock`] stopped the sample: the clock and the CPU counters.
    stopped: Option<(u64, CpuTimes, CpuTimes)>,
}

impl SampleRecorder<MonotonicClock> {
    /// A recorder on the real monotonic clock.
    pub fn new() -> Self {
        Self::with_clock(MonotonicClock::new())
    }
}

impl Default for SampleRecorder<MonotonicClock> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Clock> SampleRecorder<C> {
    /// A recorder on `clock` (a `FakeClock` in tests).
    pub fn with_clock(clock: C) -> Self {
        // 3 significant figures (0.1% relative error), 1 ns to 1 hour, growing if needed.
        let hist = new_histogram();
        Self {
            clock,
            total: new_histogram(),
            hist,
            ops: 0,
            bytes: 0,
            phases: Vec::new(),
            metrics: Vec::new(),
            start_ns: 0,
            start_cpu: Default::default(),
            program_cpu: None,
            interval_ns: DEFAULT_INTERVAL_NS,
            series: RawSeries::new(DEFAULT_INTERVAL_NS),
            due_ns: u64::MAX,
            mark: (0, 0),
            merged: None,
            live: None,
            stopped: None,
        }
    }

    /// Publishes every closed interval to `live` (a progress display's rate).
    pub fn set_live(&mut self, live: crate::LiveRate) {
        self.live = Some(live);
    }

    /// Sets the series' interval for the next samples (`--interval`; never under
    /// [`MIN_INTERVAL_NS`]).
    pub fn set_interval(&mut self, interval_ns: u64) {
        self.interval_ns = interval_ns.max(MIN_INTERVAL_NS);
    }

    /// Begins the sample: clears earlier data and reads the wall clock and CPU counters.
    pub fn start(&mut self) {
        // Drained at every interval's end: only a sample abandoned mid-way left anything.
        if !self.hist.is_empty() {
            self.hist.reset();
        }
        self.ops = 0;
        self.bytes = 0;
        self.phases.clear();
        self.metrics.clear();
        self.series = RawSeries::new(self.interval_ns);
        self.mark = (0, 0);
        self.merged = None;
        self.program_cpu = None;
        self.stopped = None;
        self.start_cpu = (CpuTimes::process(), CpuTimes::children());
        self.start_ns = self.clock.now_ns();
        self.due_ns = self.start_ns.saturating_add(self.interval_ns);
    }

    /// Called with each clock reading, before the operation it ends is counted.
    #[inline]
    fn trace_at(&mut self, now_ns: u64) {
        if now_ns >= self.due_ns {
            self.close_intervals(now_ns);
        }
    }

    /// Ends every interval that ended by `now_ns`: the first holds what was done since the last
    /// one, those after it (a stall longer than an interval) are empty.
    #[cold]
    fn close_intervals(&mut self, now_ns: u64) {
        let mut first = true;
        while now_ns >= self.due_ns {
            let (ops, bytes, buckets) = if first {
                (
                    self.ops - self.mark.0,
                    self.bytes - self.mark.1,
                    drain(&mut self.hist),
                )
            } else {
                (0, 0, Vec::new())
            };
            first = false;
            let end_ns = self.due_ns - self.start_ns;
            if let Some(l) = &self.live {
                l.publish(self.series.interval_ns, ops, bytes);
            }
            self.series.push(RawInterval {
                end_ns,
                ops,
                bytes,
                buckets,
            });
            // The interval may have doubled: the next one ends a whole (new) interval later.
            self.due_ns = (self.start_ns + end_ns).saturating_add(self.series.interval_ns);
        }
        self.mark = (self.ops, self.bytes);
    }

    /// Ends the sample and returns its data.
    pub fn finish(&mut self) -> SampleData {
        let (now, process, children) = match self.stopped.take() {
            Some(at) => at,
            None => (
                self.clock.now_ns(),
                CpuTimes::process(),
                CpuTimes::children(),
            ),
        };
        let wall_ns = now.saturating_sub(self.start_ns);
        let own = process.since(self.start_cpu.0);
        let children = children.since(self.start_cpu.1);
        let cpu = match self.program_cpu.take() {
            Some(program) => {
                self.metrics.push((
                    fsbench_model::metric::FSBENCH_CPU_NS.into(),
                    (own.user_ns + own.sys_ns) as f64,
                ));
                program
            }
            None => own.plus(children),
        };
        // Outside the timed region from here: the intervals that ended while nothing completed
        // (a final fsync), the last, partial interval, then the totals.
        if now >= self.due_ns {
            self.close_intervals(now);
        }
        // A sample within one interval (most short ones) keeps its histogram as the whole: the
        // two are swapped instead of one being drained and the other refilled, so a sample
        // clears one histogram (a quarter of a MiB), as before series existed.
        let whole = self.series.intervals.is_empty() && self.merged.is_none();
        let last = self.series.intervals.last().map_or(0, |i| i.end_ns);
        if wall_ns > last || self.ops > self.mark.0 {
            let buckets = if whole {
                self.hist
                    .iter_recorded()
                    .map(|v| (v.value_iterated_to(), v.count_at_value()))
                    .collect()
            } else {
                drain(&mut self.hist)
            };
            self.series.push(RawInterval {
                end_ns: wall_ns.max(last),
                ops: self.ops - self.mark.0,
                bytes: self.bytes - self.mark.1,
                buckets,
            });
        }
        let mut series = std::mem::take(&mut self.series);
        let merged = self.merged.take();
        if let Some(m) = &merged {
            series.add(m);
        }
        if whole {
            // The old whole is cleared by the next `start` (only when it holds something).
            std::mem::swap(&mut self.hist, &mut self.total);
        } else {
            if !self.total.is_empty() {
                self.total.reset();
            }
            series.fill(&mut self.total);
        }
        let progress = progress_of(&series, wall_ns, self.ops, self.bytes);
        if self.total.len() <= 1 && merged.is_none() && !spread(&series) {
            // Work counted in one lump (a walk's entries counted at its end, one operation
            // timed whole and its parts counted after it: at most two intervals): no course
            // over time to show. Work counted as it went (files created, entries removed)
            // fills every interval it lasted and keeps them.
            series = RawSeries::default();
        }
        SampleData {
            wall_ns,
            user_ns: cpu.user_ns,
            sys_ns: cpu.sys_ns,
            ops: self.ops,
            bytes: self.bytes,
            latency: latency_stats(&self.total),
            phases: std::mem::take(&mut self.phases),
            metrics: std::mem::take(&mut self.metrics),
            progress,
            series,
        }
    }

    /// The histogram of the latencies of the last finished sample (for merging across workers
    /// and storing); empty before `finish`.
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.total
    }
}

/// The empty latency histogram every recorder uses: 3 significant figures (0.1% relative
/// error), 1 ns to 1 hour, growing if needed.
pub(crate) fn new_histogram() -> Histogram<u64> {
    let mut hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .expect("invariant: constant histogram bounds are valid");
    hist.auto(true);
    hist
}

/// True when `series` shows work in more than two intervals: fewer is work reported in one
/// lump at the end (an operation timed whole, then its parts counted), with no course over time
/// to show.
pub fn spread(series: &RawSeries) -> bool {
    series.intervals.iter().filter(|i| i.ops > 0).count() > 2
}

/// The cumulative work at the end of each interval, then the totals at `wall_ns`: where each
/// MPI rank stood when the first one finished.
fn progress_of(series: &RawSeries, wall_ns: u64, ops: u64, bytes: u64) -> Vec<ProgressPoint> {
    let mut out = Vec::with_capacity(series.intervals.len() + 1);
    let (mut o, mut b) = (0, 0);
    for i in series.intervals.iter().filter(|i| i.end_ns < wall_ns) {
        o += i.ops;
        b += i.bytes;
        out.push(ProgressPoint {
            at_ns: i.end_ns,
            ops: o,
            bytes: b,
        });
    }
    out.push(ProgressPoint {
        at_ns: wall_ns,
        ops,
        bytes,
    });
    out
}

impl<C: Clock> Recorder for SampleRecorder<C> {
    #[inline]
    fn now_ns(&mut self) -> u64 {
        self.clock.now_ns()
    }

    #[inline]
    fn op_done(&mut self, start_ns: u64, bytes: u64) -> u64 {
        let now = self.clock.now_ns();
        self.trace_at(now);
        // saturating_record clamps instead of failing; with auto-resize it never clamps.
        self.hist
            .saturating_record(now.saturating_sub(start_ns).max(1));
        self.ops += 1;
        self.bytes += bytes;
        now
    }

    fn add_ops(&mut self, ops: u64, bytes: u64) {
        let now = self.clock.now_ns();
        self.trace_at(now);
        self.ops += ops;
        self.bytes += bytes;
    }

    #[inline]
    fn op_latency(&mut self, latency_ns: u64, bytes: u64) {
        if self.ops % TRACE_OP_STRIDE == 0 {
            let now = self.clock.now_ns();
            self.trace_at(now);
        }
        self.hist.saturating_record(latency_ns.max(1));
        self.ops += 1;
        self.bytes += bytes;
    }

    fn program_cpu(&mut self, cpu: CpuTimes) {
        self.program_cpu = Some(cpu);
    }

    fn stop_clock(&mut self) {
        if self.stopped.is_none() {
            self.stopped = Some((
                self.clock.now_ns(),
                CpuTimes::process(),
                CpuTimes::children(),
            ));
        }
    }

    fn merge_ops(
        &mut self,
        hist: &Histogram<u64>,
        ops: u64,
        bytes: u64,
        series: Option<&RawSeries>,
    ) {
        self.ops += ops;
        self.bytes += bytes;
        if let Some(series) = series {
            // The parts' intervals (and in them their latencies) are added at `finish`; the
            // interval being recorded here does not count them.
            self.mark.0 += ops;
            self.mark.1 += bytes;
            self.merged
                .get_or_insert_with(|| RawSeries::new(series.interval_ns))
                .add(series);
            return;
        }
        if self.hist.add(hist).is_err() {
            // With auto-resize on, `add` fails only on incompatible layouts: copy value by value.
            for v in hist.iter_recorded() {
                let n = v.count_at_value();
                let _ = self.hist.record_n(v.value_iterated_to(), n);
            }
        }
    }

    fn phase(&mut self, name: &str, elapsed_ns: u64) {
        match self.phases.iter_mut().find(|(n, _)| n == name) {
            Some((_, total)) => *total += elapsed_ns,
            None => self.phases.push((name.to_string(), elapsed_ns)),
        }
    }

    fn metric(&mut self, name: &str, value: f64) {
        match self.metrics.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v = value,
            None => self.metrics.push((name.to_string(), value)),
        }
    }

    fn interval_ns(&self) -> Option<u64> {
        Some(self.interval_ns)
    }
}

/// Percentiles and moments of `hist` (`None` when empty): one process's sample, or the ranks'
/// merged histograms.
pub fn latency_stats(hist: &Histogram<u64>) -> Option<LatencyStats> {
    if hist.is_empty() {
        return None;
    }
    Some(LatencyStats {
        count: hist.len(),
        min_ns: hist.min(),
        mean_ns: hist.mean(),
        stddev_ns: hist.stdev(),
        p50_ns: hist.value_at_quantile(0.50),
        p90_ns: hist.value_at_quantile(0.90),
        p99_ns: hist.value_at_quantile(0.99),
        p999_ns: hist.value_at_quantile(0.999),
        max_ns: hist.max(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FakeClock;

    #[test]
    fn chained_ops_record_each_latency() {
        let mut r = SampleRecorder::with_clock(FakeClock::new(100));
        r.start(); // reads 0
        let mut t = r.now_ns(); // 100
        for _ in 0..10 {
            t = r.op_done(t, 4096);
        }
        let d = r.finish();
        assert_eq!(d.ops, 10);
        assert_eq!(d.bytes, 40960);
        let lat = d.latency.unwrap();
        assert_eq!(lat.count, 10);
        assert_eq!(lat.p50_ns, 100);
        assert_eq!(lat.max_ns, 100);
        assert_eq!(d.wall_ns, 1200);
    }

    #[test]
    fn the_wall_time_ends_where_the_clock_was_stopped_and_later_work_still_counts() {
        let mut r = SampleRecorder::with_clock(FakeClock::new(100));
        r.start(); // reads 0
        let t = r.now_ns(); // 100
        r.op_done(t, 1); // 200
        r.stop_clock(); // 300
        r.stop_clock(); // the first stop holds
        for _ in 0..10 {
            r.now_ns();
        }
        r.add_ops(2, 2);
        let d = r.finish();
        assert_eq!(d.wall_ns, 300);
        assert_eq!((d.ops, d.bytes), (3, 3));
        // The next sample is timed to its own end again.
        r.start();
        let mut t = r.now_ns();
        for _ in 0..3 {
            t = r.op_done(t, 1);
        }
        assert_eq!(r.finish().wall_ns, 500);
    }

    #[test]
    fn phases_accumulate_and_metrics_keep_last() {
        let mut r = SampleRecorder::with_clock(FakeClock::new(1));
        r.start();
        r.phase("create", 5);
        r.phase("delete", 2);
        r.phase("create", 5);
        r.metric("files", 1.0);
        r.metric("files", 3.0);
        r.add_ops(7, 0);
        let d = r.finish();
        assert_eq!(d.phases, vec![("create".into(), 10), ("delete".into(), 2)]);
        assert_eq!(d.metrics, vec![("files".into(), 3.0)]);
        assert_eq!(d.ops, 7);
        assert!(d.latency.is_none());
    }

    #[test]
    fn latencies_measured_elsewhere_and_merged_jobs_count_exactly() {
        let mut job = SampleRecorder::with_clock(FakeClock::new(1));
        job.start();
        for ns in [10, 20, 30] {
            job.op_latency(ns, 4096);
        }
        job.finish();
        let mut r = SampleRecorder::with_clock(FakeClock::new(1));
        r.start();
        r.op_latency(1000, 4096);
        r.merge_ops(job.histogram(), 3, 3 * 4096, None);
        let d = r.finish();
        assert_eq!((d.ops, d.bytes), (4, 4 * 4096));
        let lat = d.latency.unwrap();
        assert_eq!((lat.count, lat.min_ns, lat.max_ns), (4, 10, 1000));
    }

    #[test]
    fn the_series_is_bounded_exact_and_consistent_with_the_progress_trace() {
        // 1 ms per operation, 1 ms intervals: 5000 intervals, coarsened to at most 1024.
        let mut r = SampleRecorder::with_clock(FakeClock::new(1_000_000));
        r.set_interval(1_000_000);
        r.start();
        let mut t = r.now_ns();
        for _ in 0..5000 {
            t = r.op_done(t, 10);
        }
        let d = r.finish();
        let s = &d.series;
        assert!(s.intervals.len() <= MAX_INTERVALS, "{}", s.intervals.len());
        assert_eq!(s.interval_ns, 8_000_000, "doubled three times");
        assert_eq!(s.intervals.iter().map(|i| i.ops).sum::<u64>(), 5000);
        assert_eq!(s.intervals.iter().map(|i| i.bytes).sum::<u64>(), 50_000);
        // Whole intervals hold one operation per millisecond, each taking 1 ms.
        for p in &s.points()[1..s.intervals.len() - 1] {
            // HDR reports a bucket's highest equivalent value: within 0.1% (3 digits).
            let hdr = r.histogram().highest_equivalent(1_000_000);
            assert_eq!(
                (p.ops, p.lat_p50_ns, p.lat_max_ns),
                (8, Some(hdr), Some(hdr))
            );
        }
        // The whole histogram is the intervals' sum.
        assert_eq!(d.latency.unwrap().count, 5000);
        assert_eq!(r.histogram().len(), 5000);
        let last = *d.progress.last().unwrap();
        assert_eq!(
            (last.at_ns, last.ops, last.bytes),
            (d.wall_ns, 5000, 50_000)
        );
        for w in d.progress.windows(2) {
            assert!(w[0].at_ns < w[1].at_ns && w[0].ops <= w[1].ops, "{w:?}");
        }
        assert!(d.progress.len() <= TRACE_POINTS + 1);
    }

    #[test]
    fn a_stall_longer_than_an_interval_shows_as_empty_intervals() {
        // Two operations of 35 ms with 10 ms intervals: they complete at 70 and 105 ms, and the
        // sample ends at 140 ms.
        let mut r = SampleRecorder::with_clock(FakeClock::new(35_000_000));
        r.start();
        let t = r.now_ns();
        let t = r.op_done(t, 4096);
        r.op_done(t, 4096);
        let d = r.finish();
        let ops: Vec<u64> = d.series.intervals.iter().map(|i| i.ops).collect();
        assert_eq!(ops, vec![0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0]);
        let ends: Vec<u64> = d
            .series
            .intervals
            .iter()
            .map(|i| i.end_ns / 1_000_000)
            .collect();
        assert_eq!(ends, (1..=14).map(|k| k * 10).collect::<Vec<u64>>());
        let hdr = r.histogram().highest_equivalent(35_000_000);
        assert_eq!(d.series.points()[7].lat_max_ns, Some(hdr));
    }

    #[test]
    fn work_counted_only_at_the_end_keeps_no_series() {
        // A 50 ms extraction timed as one operation, its files added at the end.
        let mut r = SampleRecorder::with_clock(FakeClock::new(50_000_000));
        r.start();
        let t = r.now_ns();
        r.op_done(t, 1 << 20);
        r.add_ops(7600, 0);
        let d = r.finish();
        assert!(d.series.intervals.is_empty(), "{:?}", d.series);
        assert_eq!(d.latency.unwrap().count, 1, "the histogram is still there");
    }

    #[test]
    fn bulk_counts_alone_keep_no_series_and_parallel_parts_keep_theirs() {
        let mut r = SampleRecorder::with_clock(FakeClock::new(1_000_000));
        r.start();
        r.add_ops(1000, 0);
        assert!(r.finish().series.intervals.is_empty());
        let mut job = SampleRecorder::with_clock(FakeClock::new(1_000_000));
        job.start();
        let mut t = job.now_ns();
        for _ in 0..50 {
            t = job.op_done(t, 1);
        }
        let jd = job.finish();
        r.start();
        r.merge_ops(job.histogram(), jd.ops, jd.bytes, Some(&jd.series));
        let d = r.finish();
        assert_eq!(d.series.intervals.iter().map(|i| i.ops).sum::<u64>(), 50);
        assert_eq!(d.latency.unwrap().count, 50, "latencies counted once");
    }

    #[test]
    fn bulk_counts_made_as_the_work_goes_keep_their_series() {
        // 10 ms intervals, a clock step of 1 ms per reading: one file counted per millisecond.
        let mut r = SampleRecorder::with_clock(FakeClock::new(1_000_000));
        r.start();
        for _ in 0..50 {
            r.add_ops(1, 0);
        }
        let d = r.finish();
        assert!(d.series.intervals.len() >= 5, "{:?}", d.series);
        assert_eq!(d.series.intervals.iter().map(|i| i.ops).sum::<u64>(), 50);
        assert_eq!(r.interval_ns(), Some(DEFAULT_INTERVAL_NS));
    }

    #[test]
    fn start_clears_the_previous_sample() {
        let mut r = SampleRecorder::with_clock(FakeClock::new(1));
        r.start();
        let t = r.now_ns();
        r.op_done(t, 1);
        r.finish();
        r.start();
        let d = r.finish();
        assert_eq!(d.ops, 0);
        assert!(d.latency.is_none());
    }
}
