//! The Recorder: what a workload reports while it runs (operations, bytes, latencies, phases,
//! named metrics), and `SampleRecorder`, which turns that into one sample's raw data.

use crate::clock::{Clock, MonotonicClock};
use crate::cpu::CpuTimes;
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
    /// latencies of `hist` merged bucket by bucket, which is exact (same histogram layout).
    fn merge_ops(&mut self, hist: &Histogram<u64>, ops: u64, bytes: u64);

    /// A named phase of the sample took `elapsed_ns` (e.g. `create`, `transactions`).
    fn phase(&mut self, name: &str, elapsed_ns: u64);

    /// A named, workload-specific number (`files_created`, `resident_pct`, ...).
    fn metric(&mut self, name: &str, value: f64);
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
    /// User CPU of the process and its waited-for children during the sample.
    pub user_ns: u64,
    /// System CPU of the process and its waited-for children during the sample.
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

/// Most points a progress trace keeps: when full, every other point is dropped and the spacing
/// doubles, so a trace of any length stays small enough to gather from every MPI rank.
pub const TRACE_POINTS: usize = 256;

/// First spacing of progress points, ns.
const TRACE_START_SPACING_NS: u64 = 1_000_000;

/// Operations between clock reads for the progress trace when the recorder itself does not read
/// the clock (latencies measured by the caller).
const TRACE_OP_STRIDE: u64 = 64;

/// The progress trace of a running sample: a point at most every `spacing_ns`.
#[derive(Debug, Clone)]
struct Trace {
    points: Vec<ProgressPoint>,
    spacing_ns: u64,
    due_ns: u64,
}

impl Trace {
    fn new() -> Self {
        Self {
            points: Vec::with_capacity(TRACE_POINTS),
            spacing_ns: TRACE_START_SPACING_NS,
            due_ns: u64::MAX,
        }
    }

    fn reset(&mut self, start_ns: u64) {
        self.points.clear();
        self.spacing_ns = TRACE_START_SPACING_NS;
        self.due_ns = start_ns.saturating_add(self.spacing_ns);
    }

    /// Records the totals at `now_ns` (called only once `now_ns >= due_ns`).
    #[cold]
    fn push(&mut self, start_ns: u64, now_ns: u64, ops: u64, bytes: u64) {
        if self.points.len() == TRACE_POINTS {
            let mut keep = 0;
            for i in (1..self.points.len()).step_by(2) {
                self.points[keep] = self.points[i];
                keep += 1;
            }
            self.points.truncate(keep);
            self.spacing_ns *= 2;
        }
        self.points.push(ProgressPoint {
            at_ns: now_ns.saturating_sub(start_ns),
            ops,
            bytes,
        });
        self.due_ns = now_ns.saturating_add(self.spacing_ns);
    }
}

/// Records one sample: call `start`, hand it to the workload as `&mut dyn Recorder`, then `finish`.
pub struct SampleRecorder<C: Clock = MonotonicClock> {
    clock: C,
    hist: Histogram<u64>,
    ops: u64,
    bytes: u64,
    phases: Vec<(String, u64)>,
    metrics: Vec<(String, f64)>,
    start_ns: u64,
    start_cpu: CpuTimes,
    trace: Trace,
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
        let mut hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
            .expect("invariant: constant histogram bounds are valid");
        hist.auto(true);
        Self {
            clock,
            hist,
            ops: 0,
            bytes: 0,
            phases: Vec::new(),
            metrics: Vec::new(),
            start_ns: 0,
            start_cpu: CpuTimes::default(),
            trace: Trace::new(),
        }
    }

    /// Begins the sample: clears earlier data and reads the wall clock and CPU counters.
    pub fn start(&mut self) {
        self.hist.reset();
        self.ops = 0;
        self.bytes = 0;
        self.phases.clear();
        self.metrics.clear();
        self.start_cpu = CpuTimes::process_and_children();
        self.start_ns = self.clock.now_ns();
        self.trace.reset(self.start_ns);
    }

    #[inline]
    fn trace_at(&mut self, now_ns: u64) {
        if now_ns >= self.trace.due_ns {
            self.trace.push(self.start_ns, now_ns, self.ops, self.bytes);
        }
    }

    /// Ends the sample and returns its data.
    pub fn finish(&mut self) -> SampleData {
        let now = self.clock.now_ns();
        let wall_ns = now.saturating_sub(self.start_ns);
        let cpu = CpuTimes::process_and_children().since(self.start_cpu);
        let mut progress = std::mem::take(&mut self.trace.points);
        progress.push(ProgressPoint {
            at_ns: wall_ns,
            ops: self.ops,
            bytes: self.bytes,
        });
        SampleData {
            wall_ns,
            user_ns: cpu.user_ns,
            sys_ns: cpu.sys_ns,
            ops: self.ops,
            bytes: self.bytes,
            latency: latency_stats(&self.hist),
            phases: std::mem::take(&mut self.phases),
            metrics: std::mem::take(&mut self.metrics),
            progress,
        }
    }

    /// The histogram of latencies recorded since `start` (for merging across workers).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }
}

impl<C: Clock> Recorder for SampleRecorder<C> {
    #[inline]
    fn now_ns(&mut self) -> u64 {
        self.clock.now_ns()
    }

    #[inline]
    fn op_done(&mut self, start_ns: u64, bytes: u64) -> u64 {
        let now = self.clock.now_ns();
        // saturating_record clamps instead of failing; with auto-resize it never clamps.
        self.hist
            .saturating_record(now.saturating_sub(start_ns).max(1));
        self.ops += 1;
        self.bytes += bytes;
        self.trace_at(now);
        now
    }

    fn add_ops(&mut self, ops: u64, bytes: u64) {
        self.ops += ops;
        self.bytes += bytes;
        let now = self.clock.now_ns();
        self.trace_at(now);
    }

    #[inline]
    fn op_latency(&mut self, latency_ns: u64, bytes: u64) {
        self.hist.saturating_record(latency_ns.max(1));
        self.ops += 1;
        self.bytes += bytes;
        if self.ops % TRACE_OP_STRIDE == 0 {
            let now = self.clock.now_ns();
            self.trace_at(now);
        }
    }

    fn merge_ops(&mut self, hist: &Histogram<u64>, ops: u64, bytes: u64) {
        // With auto-resize on, `add` fails only on incompatible layouts; then copy value by value.
        if self.hist.add(hist).is_err() {
            for v in hist.iter_recorded() {
                let n = v.count_at_value();
                let _ = self.hist.record_n(v.value_iterated_to(), n);
            }
        }
        self.ops += ops;
        self.bytes += bytes;
        let now = self.clock.now_ns();
        self.trace_at(now);
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
        let mut r = SampleRecorder::with_clock(FakeClock::new(1));
        r.start();
        r.op_latency(1000, 4096);
        r.merge_ops(job.histogram(), 3, 3 * 4096);
        let d = r.finish();
        assert_eq!((d.ops, d.bytes), (4, 4 * 4096));
        let lat = d.latency.unwrap();
        assert_eq!((lat.count, lat.min_ns, lat.max_ns), (4, 10, 1000));
    }

    #[test]
    fn progress_trace_is_bounded_and_ends_with_the_totals() {
        // 1 ms per operation: a point per operation at first, then thinned as it fills.
        let mut r = SampleRecorder::with_clock(FakeClock::new(1_000_000));
        r.start();
        let mut t = r.now_ns();
        for _ in 0..5000 {
            t = r.op_done(t, 10);
        }
        let d = r.finish();
        assert!(d.progress.len() <= TRACE_POINTS + 1, "{}", d.progress.len());
        assert!(d.progress.len() > TRACE_POINTS / 2);
        let last = *d.progress.last().unwrap();
        assert_eq!(
            (last.at_ns, last.ops, last.bytes),
            (d.wall_ns, 5000, 50_000)
        );
        for w in d.progress.windows(2) {
            assert!(w[0].at_ns < w[1].at_ns && w[0].ops <= w[1].ops, "{w:?}");
        }
        // Every point is consistent with one operation per millisecond since the start.
        for p in &d.progress[..d.progress.len() - 1] {
            assert_eq!(p.ops, (p.at_ns - 1_000_000) / 1_000_000, "{p:?}");
        }
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
