//! How many threads were in a call at once: the program's, from its recorded calls, and a
//! replay's, from the calls it made (pure). A replay that overlaps calls the program made one
//! after another is faster cold than the program (its reads queue together on the device); the
//! replay keeps itself no more concurrent than the program was (see `crate::plan`).

use crate::model::Trace;

/// Threads in a call at once over a stretch of calls.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Concurrency {
    /// The calls' time over the time at least one call was under way: 1.0 for calls made one
    /// at a time, 2.0 for two threads always in a call together.
    pub mean: f64,
    /// The most calls under way at one instant.
    pub max: u32,
}

/// The concurrency of calls made over `spans` (start, end), in any order and unit.
pub fn of_spans(spans: impl IntoIterator<Item = (u64, u64)>) -> Concurrency {
    // Sweep the starts and ends in time order, an end before a start at the same instant (two
    // calls that only touch did not overlap).
    let mut events: Vec<(u64, i32)> = Vec::new();
    let mut total = 0u64;
    for (s, e) in spans {
        let e = e.max(s);
        total += e - s;
        events.push((s, 1));
        events.push((e, -1));
    }
    events.sort_unstable();
    let (mut now, mut busy, mut since, mut max) = (0i32, 0u64, 0u64, 0i32);
    for (t, d) in events {
        if now == 0 && d > 0 {
            since = t;
        }
        now += d;
        max = max.max(now);
        if now == 0 {
            busy += t - since;
        }
    }
    Concurrency {
        mean: if busy > 0 {
            total as f64 / busy as f64
        } else {
            1.0
        },
        max: max.max(0) as u32,
    }
}

/// The program's concurrency over the calls `replayed` says (one flag per call): each call's
/// span as recorded, less what the tracer's exit stop added to it when the trace measured that
/// (a call held at its exit stop while the tracer served another thread would otherwise seem to
/// overlap it).
pub fn recorded(trace: &Trace, replayed: &[bool]) -> Concurrency {
    let added = trace.stop_cost.map_or(0, |c| c.call_cpu_ns + c.call_off_ns);
    of_spans(
        trace
            .calls
            .iter()
            .zip(replayed)
            .filter(|(_, r)| **r)
            .map(|(c, _)| {
                let own = c.dur_ns.saturating_sub(added).max(1);
                (c.start_ns, c.start_ns + own)
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_one_after_another_are_one_at_a_time_and_overlaps_count() {
        let serial = of_spans([(0, 10), (10, 20), (30, 35)]);
        assert_eq!((serial.mean, serial.max), (1.0, 1));
        // Two calls together for 10 of the 20 ns some call was under way.
        let two = of_spans([(0, 20), (5, 15)]);
        assert_eq!((two.mean, two.max), (1.5, 2));
        let three = of_spans([(0, 10), (0, 10), (0, 10), (50, 60)]);
        assert_eq!((three.mean, three.max), (2.0, 3));
        assert_eq!(of_spans([]).max, 0);
    }
}
