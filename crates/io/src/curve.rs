//! `rate=curve`: latency against load, as vdbench's `iorate=curve`. A closed-loop probe of one
//! step's length finds the maximum rate; then the same requests run open loop at 10%, 20% …
//! 100% of it, one step each, and every step's achieved rate and latency percentiles (from
//! intended start) are recorded. The knee is the load beyond which p99 rises fastest: the step
//! before the largest rise of p99 from one step to the next.

use crate::Recorder;
use fsbench_model::metric as k;
use fsbench_model::metric::{CURVE_STEPS as STEPS, curve_step};
use hdrhistogram::Histogram;

/// One finished step: its load, what it achieved and its latency.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// Load asked for, percent of the probed maximum.
    pub load_pct: u32,
    /// Requests per second achieved.
    pub iops: f64,
    /// Median latency from intended start, ns.
    pub p50_ns: f64,
    /// 99th percentile, ns.
    pub p99_ns: f64,
    /// 99.9th percentile, ns.
    pub p999_ns: f64,
}

/// The state of a curve while it runs.
pub struct Curve {
    step_ns: u64,
    /// 0: the probe; k: step `STEPS[k - 1]`; past the last: done (requests go unrecorded here).
    phase: usize,
    phase_start: Option<u64>,
    ops: u64,
    hist: Histogram<u64>,
    max_iops: f64,
    steps: Vec<Step>,
}

impl Curve {
    /// A curve whose probe and steps last `step_ns` each.
    pub fn new(step_ns: u64) -> Self {
        Self {
            step_ns: step_ns.max(1),
            phase: 0,
            phase_start: None,
            ops: 0,
            hist: fsbench_measure::histo::new_histogram(),
            max_iops: 0.0,
            steps: Vec::new(),
        }
    }

    /// Phases in all (the probe and the steps): a sample lasts this many step lengths.
    pub const PHASES: u64 = STEPS.len() as u64 + 1;

    /// A request of `latency_ns` ended at `end`. When this ends a phase, returns the next
    /// phase's rate (requests/s).
    pub fn done(&mut self, latency_ns: u64, end: u64) -> Option<f64> {
        let start = *self
            .phase_start
            .get_or_insert(end.saturating_sub(latency_ns));
        if self.phase > STEPS.len() {
            return None;
        }
        self.ops += 1;
        let _ = self.hist.record(latency_ns.max(1));
        if end.saturating_sub(start) < self.step_ns {
            return None;
        }
        let iops = self.ops as f64 / ((end - start) as f64 / 1e9);
        if self.phase == 0 {
            self.max_iops = iops;
        } else {
            let q = |p: f64| self.hist.value_at_quantile(p) as f64;
            self.steps.push(Step {
                load_pct: STEPS[self.phase - 1],
                iops,
                p50_ns: q(0.5),
                p99_ns: q(0.99),
                p999_ns: q(0.999),
            });
        }
        self.phase += 1;
        // Phases keep their nominal lengths (the next starts a step after this one did), so the
        // first request past each boundary does not push every later step back; only a stall
        // longer than a step restarts the clock at this request.
        let nominal = start + self.step_ns;
        self.phase_start = Some(if end - nominal > self.step_ns {
            end
        } else {
            nominal
        });
        self.ops = 0;
        self.hist.reset();
        let pct = STEPS.get(self.phase - 1).copied().unwrap_or(100);
        Some(self.max_iops * f64::from(pct) / 100.0)
    }

    /// Records the probe's maximum, every step and the knee as metrics of the sample.
    pub fn report(&self, rec: &mut dyn Recorder) {
        rec.metric(k::CURVE_MAX_IOPS, self.max_iops);
        for s in &self.steps {
            let p = s.load_pct;
            rec.metric(&curve_step(p, "iops"), s.iops);
            rec.metric(&curve_step(p, "p50_ns"), s.p50_ns);
            rec.metric(&curve_step(p, "p99_ns"), s.p99_ns);
            rec.metric(&curve_step(p, "p999_ns"), s.p999_ns);
        }
        if let Some(k) = knee(&self.steps) {
            rec.metric(k::KNEE_LOAD_PCT, f64::from(k.load_pct));
            rec.metric(k::KNEE_IOPS, k.iops);
            rec.metric(k::KNEE_P99_NS, k.p99_ns);
        }
    }
}

/// The step beyond which p99 rises fastest (the largest rise to the next step); `None` with
/// fewer than two steps.
pub fn knee(steps: &[Step]) -> Option<Step> {
    steps
        .windows(2)
        .max_by(|a, b| {
            let rise = |w: &[Step]| w[1].p99_ns - w[0].p99_ns;
            rise(a).total_cmp(&rise(b))
        })
        .map(|w| w[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(load_pct: u32, p99_ns: f64) -> Step {
        Step {
            load_pct,
            iops: f64::from(load_pct) * 10.0,
            p50_ns: 1.0,
            p99_ns,
            p999_ns: p99_ns,
        }
    }

    #[test]
    fn the_knee_is_before_the_steepest_rise() {
        let steps = [
            step(10, 100.0),
            step(20, 110.0),
            step(30, 130.0),
            step(40, 900.0),
            step(50, 1000.0),
        ];
        assert_eq!(knee(&steps).unwrap().load_pct, 30);
        assert!(knee(&steps[..1]).is_none());
    }

    #[test]
    fn phases_follow_time_and_rates_follow_the_probe() {
        let mut c = Curve::new(1000);
        // Probe: 10 requests of 100 ns in 1000 ns: 10 million per second.
        let mut t = 0;
        let mut next = None;
        for _ in 0..10 {
            t += 100;
            next = next.or(c.done(100, t));
        }
        assert_eq!(next, Some(1e6));
        let mut rates = vec![];
        while c.phase <= STEPS.len() {
            t += 100;
            if let Some(r) = c.done(50, t) {
                rates.push(r);
            }
        }
        assert_eq!(rates.len(), 10);
        assert_eq!(c.steps.len(), 10);
        assert_eq!(c.steps[0].load_pct, 10);
        assert_eq!(*rates.last().unwrap(), 1e7);
    }
}
