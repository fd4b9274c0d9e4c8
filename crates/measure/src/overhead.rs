//! Self-measurement: what one recorded operation costs fsbench itself (a clock read plus a
//! histogram insert through the `Recorder` trait object), so reports can show it is small.

use crate::clock::MonotonicClock;
use crate::recorder::{Recorder, SampleRecorder};

/// fsbench's own cost per recorded operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overhead {
    /// Mean cost of one `op_done` call (clock read + histogram insert + dispatch), in ns.
    pub per_op_ns: f64,
    /// Number of calls the mean was taken over.
    pub calls: u64,
}

/// Times `calls` back-to-back `op_done` calls through `&mut dyn Recorder` on the real clock and
/// returns the best of three rounds (the least disturbed by other load).
pub fn measure_overhead(calls: u64) -> Overhead {
    let calls = calls.max(1);
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let mut rec = SampleRecorder::with_clock(MonotonicClock::new());
        rec.start();
        let dyn_rec: &mut dyn Recorder = &mut rec;
        let begin = dyn_rec.now_ns();
        let mut t = begin;
        for _ in 0..calls {
            t = dyn_rec.op_done(t, 4096);
        }
        let per_op = (t - begin) as f64 / calls as f64;
        best = best.min(per_op);
    }
    Overhead {
        per_op_ns: best,
        calls,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overhead_is_positive_and_counts_calls() {
        let o = measure_overhead(1000);
        assert_eq!(o.calls, 1000);
        assert!(o.per_op_ns > 0.0);
    }
}
