//! How fast requests are issued: at full speed (closed loop, as fsbench always did), after a
//! `think` time, or on a schedule (`rate=`, open loop, `arrivals=fixed|poisson`), or along a
//! load curve (`rate=curve`: a closed-loop probe finds the maximum, then 10%, 20% … 100% of it).
//!
//! Open loop, a request's latency is measured from its **intended** start (its slot in the
//! schedule), not from when it was issued: when one request stalls, the requests queued behind
//! it are late, and each counts the delay (coordinated omission corrected, as wrk2 and
//! HdrHistogram's `recordValueWithExpectedInterval` do). The service time (issue to completion,
//! what closed-loop tools report) is kept beside it.
//!
//! Pacing is a [`Recorder`] wrapper, so every psync loop (`t = rec.op_done(t, n)`) is paced
//! without a line of its own: `op_done` records the request against its slot, then waits for
//! the next slot and returns the moment it began. Waiting sleeps to the schedule and spins only
//! the last microseconds, with the thread's timer slack lowered, so a paced run does not burn a
//! core. A workload without pacing gets the recorder as it was (no wrapper, no cost).

use crate::curve::Curve;
use crate::file::Rng;
use crate::{CancelToken, Recorder};
use fsbench_measure::RawSeries;
use fsbench_model::metric as k;
use hdrhistogram::Histogram;

/// How long before a slot the wait stops sleeping and spins, at first and at most: it then
/// follows how late this machine's sleeps actually wake (with the timer slack at 1 ns, a few µs
/// on an idle kernel, more on a busy one), at least [`MIN_SPIN_NS`].
const SPIN_NS: u64 = 40_000;

/// The shortest spin before a slot.
const MIN_SPIN_NS: u64 = 4_000;

/// Longest single sleep, so a cancelled run stops waiting within this.
const MAX_SLEEP_NS: u64 = 50_000_000;

/// How requests are spaced in time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rate {
    /// As fast as they complete (closed loop).
    Unlimited,
    /// This many requests per second, the run's total.
    PerSecond(f64),
    /// A closed-loop probe, then steps at 10%..100% of the rate it reached; each phase lasts
    /// this many ns (set by the workload from its `duration`).
    Curve(u64),
}

/// The pacing of one workload: its rate, how arrivals are spread, and think time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    /// Requests per second (or none, or a curve).
    pub rate: Rate,
    /// Exponential gaps between arrivals instead of even ones.
    pub poisson: bool,
    /// Pause after each request (closed loop only), ns.
    pub think_ns: u64,
}

impl Pace {
    /// Full speed, no pause: the recorder is used as it is.
    pub const FULL_SPEED: Pace = Pace {
        rate: Rate::Unlimited,
        poisson: false,
        think_ns: 0,
    };

    /// True when requests are issued back to back (no wrapper needed).
    pub fn full_speed(&self) -> bool {
        self.rate == Rate::Unlimited && self.think_ns == 0
    }

    /// The pace of one of `parts` jobs (or ranks) that share the rate evenly.
    pub fn share(&self, parts: usize) -> Pace {
        let mut p = *self;
        if let Rate::PerSecond(r) = p.rate {
            p.rate = Rate::PerSecond(r / parts.max(1) as f64);
        }
        p
    }
}

/// `2000`, `2000iops`, `2.5k` requests/s; `50m`, `50MiB`, `1g/s` bytes/s (divided by `bs`);
/// `curve`.
pub fn parse_rate(text: &str, bs: u64) -> Result<Rate, crate::error::BadValue> {
    let t = text.trim().to_ascii_lowercase();
    if t == "curve" {
        return Ok(Rate::Curve(0));
    }
    let t = t.strip_suffix("/s").unwrap_or(&t);
    let per_s = if let Some(n) = t.strip_suffix("iops") {
        n.trim().parse::<f64>().ok()
    } else if let Ok(n) = t.parse::<f64>() {
        Some(n)
    } else {
        let bytes = t
            .strip_suffix("ib")
            .map_or(t.to_string(), |s| s.to_string());
        fsbench_model::units::parse_size(&bytes)
            .ok()
            .map(|b| b as f64 / bs as f64)
    };
    match per_s {
        Some(r) if r.is_finite() && r > 0.0 && r <= 1e8 => Ok(Rate::PerSecond(r)),
        Some(_) => Err(crate::error::BadValue {
            value: text.to_string(),
            hint: " is not a usable rate: give more than 0 and at most 100 million requests/s",
        }),
        None => Err(crate::error::BadValue {
            value: text.to_string(),
            hint: " is not a rate: give requests/s (2000 or 2000iops), bytes/s (50m, 50MiB), or curve",
        }),
    }
}

/// Runs `f` with `rec` paced as `pace` says (seeded by `seed` for Poisson arrivals), then
/// records the pacing's own metrics. Full speed: `f` gets `rec` itself.
pub fn paced<T>(
    pace: Pace,
    seed: u64,
    cancel: &CancelToken,
    rec: &mut dyn Recorder,
    f: impl FnOnce(&mut dyn Recorder) -> T,
) -> T {
    if pace.full_speed() {
        return f(rec);
    }
    let slack = SlackGuard::lower();
    let mut p = Paced::new(pace, seed, cancel.clone(), rec);
    let out = f(&mut p);
    p.finish();
    drop(slack);
    out
}

/// The recorder a paced loop talks to: records each request against its slot, then waits
/// for the next slot.
pub struct Paced<'a> {
    inner: &'a mut dyn Recorder,
    cancel: CancelToken,
    pace: Pace,
    rng: Rng,
    /// Intended start of the request in flight, ns (`None` before the first).
    slot: Option<f64>,
    /// Gap between slots, ns (0: no schedule).
    period_ns: f64,
    /// Start of the schedule and requests done on it, for the achieved rate.
    origin_ns: u64,
    on_schedule: u64,
    last_end_ns: u64,
    /// Issue-to-completion times (what closed-loop tools report).
    service: Histogram<u64>,
    /// How long before each slot the wait spins instead of sleeping, ns (adapts).
    spin_ns: u64,
    curve: Option<Curve>,
}

impl<'a> Paced<'a> {
    fn new(pace: Pace, seed: u64, cancel: CancelToken, inner: &'a mut dyn Recorder) -> Self {
        let period_ns = match pace.rate {
            Rate::PerSecond(r) => 1e9 / r,
            _ => 0.0,
        };
        Self {
            inner,
            cancel,
            pace,
            rng: Rng::new(seed ^ 0x00A1_10C8),
            slot: None,
            period_ns,
            origin_ns: 0,
            on_schedule: 0,
            last_end_ns: 0,
            service: fsbench_measure::histo::new_histogram(),
            spin_ns: SPIN_NS,
            curve: match pace.rate {
                Rate::Curve(step_ns) => Some(Curve::new(step_ns)),
                _ => None,
            },
        }
    }

    /// The gap to the next slot: even, or exponential with the same mean.
    fn gap(&mut self) -> f64 {
        if !self.pace.poisson {
            return self.period_ns;
        }
        // Uniform in (0, 1]: never ln(0).
        let u = ((self.rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        -u.ln() * self.period_ns
    }

    /// Waits until `due` (sleeping, then spinning the last µs); returns the clock then. Stops
    /// waiting once the run is cancelled, so the loop reaches its cancel check.
    fn wait_until(&mut self, due: u64) -> u64 {
        let mut now = self.inner.now_ns();
        while now + self.spin_ns < due && !self.cancel.is_cancelled() {
            let ns = (due - now - self.spin_ns).min(MAX_SLEEP_NS);
            std::thread::sleep(std::time::Duration::from_nanos(ns));
            let woke = self.inner.now_ns();
            // Twice the latest wake-up delay, decaying slowly, bounds the next spin.
            let late = woke.saturating_sub(now + ns);
            self.spin_ns = (self.spin_ns - self.spin_ns / 64)
                .max(2 * late)
                .clamp(MIN_SPIN_NS, SPIN_NS);
            now = woke;
        }
        while now < due && !self.cancel.is_cancelled() {
            std::hint::spin_loop();
            now = self.inner.now_ns();
        }
        now
    }

    /// Sets a new schedule of `per_s` requests/s starting at `at` (curve steps; 0: none).
    fn reschedule(&mut self, per_s: f64, at: u64) {
        self.period_ns = if per_s > 0.0 { 1e9 / per_s } else { 0.0 };
        self.slot = Some(at as f64);
    }

    /// The pacing's metrics, into the sample.
    fn finish(self) {
        let service = &self.service;
        if !service.is_empty() {
            let q = |p: f64| service.value_at_quantile(p) as f64;
            let (p50, p99, p999, mean) = (q(0.5), q(0.99), q(0.999), service.mean());
            self.inner.metric(k::SERVICE_P50_NS, p50);
            self.inner.metric(k::SERVICE_P99_NS, p99);
            self.inner.metric(k::SERVICE_P999_NS, p999);
            self.inner.metric(k::SERVICE_MEAN_NS, mean);
        }
        if let Rate::PerSecond(r) = self.pace.rate {
            let span = self.last_end_ns.saturating_sub(self.origin_ns).max(1) as f64;
            let achieved = self.on_schedule as f64 / (span / 1e9);
            self.inner.metric(k::RATE_IOPS, r);
            self.inner
                .metric(k::RATE_ACHIEVED_PCT, 100.0 * achieved / r);
        }
        if self.pace.think_ns > 0 {
            self.inner.metric(k::THINK_NS, self.pace.think_ns as f64);
        }
        if let Some(c) = &self.curve {
            c.report(self.inner);
        }
    }
}

impl Recorder for Paced<'_> {
    fn now_ns(&mut self) -> u64 {
        self.inner.now_ns()
    }

    fn op_done(&mut self, start_ns: u64, bytes: u64) -> u64 {
        let intended = self.slot.map_or(start_ns, |s| s as u64).min(start_ns);
        let end = self.inner.op_done(intended, bytes);
        let _ = self.service.record(end.saturating_sub(start_ns).max(1));
        if self.slot.is_none() {
            self.origin_ns = start_ns;
            self.slot = Some(start_ns as f64);
        }
        self.on_schedule += 1;
        self.last_end_ns = end;
        let next_step = self
            .curve
            .as_mut()
            .and_then(|c| c.done(end - intended, end));
        if let Some(per_s) = next_step {
            self.reschedule(per_s, end);
            return end;
        }
        if self.period_ns > 0.0 {
            let gap = self.gap();
            let slot = self.slot.expect("invariant: set above") + gap;
            self.slot = Some(slot);
            // The next request may start no earlier than its slot; a late one starts now.
            let due = slot as u64;
            let started = if due > end { self.wait_until(due) } else { end };
            // The schedule's span ends where the next slot begins (n requests fill n slots).
            self.last_end_ns = due.max(end);
            return started;
        }
        if self.pace.think_ns > 0 {
            let now = self.wait_until(end + self.pace.think_ns);
            self.slot = Some(now as f64);
            return now;
        }
        self.slot = Some(end as f64);
        end
    }

    fn interval_ns(&self) -> Option<u64> {
        self.inner.interval_ns()
    }

    fn add_ops(&mut self, ops: u64, bytes: u64) {
        self.inner.add_ops(ops, bytes);
    }

    fn op_latency(&mut self, latency_ns: u64, bytes: u64) {
        self.inner.op_latency(latency_ns, bytes);
    }

    fn merge_ops(
        &mut self,
        hist: &Histogram<u64>,
        ops: u64,
        bytes: u64,
        series: Option<&RawSeries>,
    ) {
        self.inner.merge_ops(hist, ops, bytes, series);
    }

    fn phase(&mut self, name: &str, elapsed_ns: u64) {
        self.inner.phase(name, elapsed_ns);
    }

    fn metric(&mut self, name: &str, value: f64) {
        self.inner.metric(name, value);
    }

    fn program_cpu(&mut self, cpu: fsbench_measure::CpuTimes) {
        self.inner.program_cpu(cpu);
    }
}

/// The thread's timer slack at 1 ns while pacing (sleeps end within µs of their time, so the
/// spin before each slot stays short), restored after.
pub struct SlackGuard(Option<std::num::NonZeroU64>);

impl SlackGuard {
    /// Lowers the calling thread's timer slack to 1 ns until the guard is dropped.
    pub fn lower() -> Self {
        let before = fsbench_sys::timer::slack();
        fsbench_sys::timer::set_slack(std::num::NonZeroU64::new(1));
        Self(before)
    }
}

impl Drop for SlackGuard {
    fn drop(&mut self) {
        fsbench_sys::timer::set_slack(self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(text: &str) -> Result<Rate, String> {
        parse_rate(text, 4096).map_err(|e| e.to_string())
    }

    #[test]
    fn rates_are_requests_or_bytes_per_second() {
        assert_eq!(rate("2000"), Ok(Rate::PerSecond(2000.0)));
        assert_eq!(rate("2000iops"), Ok(Rate::PerSecond(2000.0)));
        assert_eq!(rate("4m"), Ok(Rate::PerSecond(1024.0)));
        assert_eq!(rate("4MiB/s"), Ok(Rate::PerSecond(1024.0)));
        assert_eq!(rate("curve"), Ok(Rate::Curve(0)));
        assert!(rate("0").is_err());
        assert!(rate("fast").unwrap_err().contains("requests/s"));
    }

    /// Runs `n` requests of nothing at `per_s`, the one numbered `stall` taking 100 ms.
    fn paced_run(per_s: f64, n: u64, stall: Option<u64>) -> fsbench_measure::SampleData {
        let pace = Pace {
            rate: Rate::PerSecond(per_s),
            ..Pace::FULL_SPEED
        };
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        paced(pace, 1, &CancelToken::new(), &mut rec, |rec| {
            let mut t = rec.now_ns();
            for i in 0..n {
                if Some(i) == stall {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
                t = rec.op_done(t, 4096);
            }
        });
        rec.finish()
    }

    fn metric(d: &fsbench_measure::SampleData, name: &str) -> f64 {
        d.metrics.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn a_rate_is_held() {
        // Three seconds: a busy machine's late wake-up at the very end (the only one the open
        // loop cannot catch up) stays well inside 2% of the sample.
        let d = paced_run(2000.0, 6000, None);
        let iops = d.ops as f64 / (d.wall_ns as f64 / 1e9);
        assert!((iops / 2000.0 - 1.0).abs() < 0.02, "{iops} IOPS");
        let achieved = metric(&d, "rate_achieved_pct");
        assert!((achieved - 100.0).abs() < 2.0, "{achieved}%");
    }

    /// A stall of one request delays the 200 scheduled behind it: their latency from intended
    /// start shows it at p99, their service time does not (coordinated omission corrected).
    #[test]
    fn a_stall_counts_against_every_request_it_delayed() {
        let d = paced_run(2000.0, 2000, Some(100));
        let corrected = d.latency.unwrap().p99_ns;
        let service = metric(&d, "service_p99_ns");
        assert!(corrected > 50_000_000, "corrected p99 {corrected} ns");
        assert!(service < 20_000_000.0, "service p99 {service} ns");
        assert!(metric(&d, "service_p999_ns") < corrected as f64);
        // The run catches up: the rate over the sample still holds.
        assert!(metric(&d, "rate_achieved_pct") > 98.0);
    }

    #[test]
    fn poisson_arrivals_keep_the_mean_rate() {
        let pace = Pace {
            rate: Rate::PerSecond(4000.0),
            poisson: true,
            think_ns: 0,
        };
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        paced(pace, 7, &CancelToken::new(), &mut rec, |rec| {
            let mut t = rec.now_ns();
            for _ in 0..4000 {
                t = rec.op_done(t, 0);
            }
        });
        let d = rec.finish();
        let iops = d.ops as f64 / (d.wall_ns as f64 / 1e9);
        // 4000 exponential gaps: the mean is within a few percent of the rate.
        assert!((iops / 4000.0 - 1.0).abs() < 0.08, "{iops} IOPS");
    }

    #[test]
    fn think_time_pauses_between_requests_and_is_not_latency() {
        let pace = Pace {
            think_ns: 2_000_000,
            ..Pace::FULL_SPEED
        };
        let mut rec = fsbench_measure::SampleRecorder::new();
        rec.start();
        paced(pace, 1, &CancelToken::new(), &mut rec, |rec| {
            let mut t = rec.now_ns();
            for _ in 0..50 {
                t = rec.op_done(t, 0);
            }
        });
        let d = rec.finish();
        assert!(d.wall_ns >= 50 * 2_000_000, "{} ns", d.wall_ns);
        assert!(d.latency.unwrap().p50_ns < 2_000_000);
    }
}
