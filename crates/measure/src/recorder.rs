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
    }

    /// Ends the sample and returns its data.
    pub fn finish(&mut self) -> SampleData {
        let wall_ns = self.clock.now_ns().saturating_sub(self.start_ns);
        let cpu = CpuTimes::process_and_children().since(self.start_cpu);
        SampleData {
            wall_ns,
            user_ns: cpu.user_ns,
            sys_ns: cpu.sys_ns,
            ops: self.ops,
            bytes: self.bytes,
            latency: latency_stats(&self.hist),
            phases: std::mem::take(&mut self.phases),
            metrics: std::mem::take(&mut self.metrics),
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
        now
    }

    fn add_ops(&mut self, ops: u64, bytes: u64) {
        self.ops += ops;
        self.bytes += bytes;
    }

    #[inline]
    fn op_latency(&mut self, latency_ns: u64, bytes: u64) {
        self.hist.saturating_record(latency_ns.max(1));
        self.ops += 1;
        self.bytes += bytes;
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

fn latency_stats(hist: &Histogram<u64>) -> Option<LatencyStats> {
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
