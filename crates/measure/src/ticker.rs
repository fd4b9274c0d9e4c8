//! The series of workloads that count their work in bulk (a walk's entries, a tree's files):
//! they add to a shared [`Counter`] as they go (one relaxed atomic add per directory or file),
//! and a [`Ticker`] thread reads it at every interval's end. Written by hand because the
//! recorder's own series closes intervals on the clock readings of timed operations, which such
//! workloads do not make; the ticker sleeps between readings, so it costs a wake-up per interval.

use crate::series::{RawInterval, RawSeries};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Work done so far in a sample, shared by the workload's threads and the ticker.
#[derive(Debug, Clone, Default)]
pub struct Counter(Arc<(AtomicU64, AtomicU64)>);

impl Counter {
    /// Adds `ops` operations (entries, files) and `bytes`.
    pub fn add(&self, ops: u64, bytes: u64) {
        self.0.0.fetch_add(ops, Ordering::Relaxed);
        if bytes > 0 {
            self.0.1.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// (operations, bytes) so far.
    pub fn read(&self) -> (u64, u64) {
        (
            self.0.0.load(Ordering::Relaxed),
            self.0.1.load(Ordering::Relaxed),
        )
    }

    /// Back to zero (before a sample).
    pub fn reset(&self) {
        self.0.0.store(0, Ordering::Relaxed);
        self.0.1.store(0, Ordering::Relaxed);
    }
}

/// A thread reading a [`Counter`] at every interval's end while a sample runs.
pub struct Ticker {
    stop: mpsc::Sender<()>,
    thread: std::thread::JoinHandle<RawSeries>,
}

impl Ticker {
    /// Resets `counter` and starts reading it every `interval_ns` from now; `None` when the
    /// thread cannot be started (the sample then has no series).
    pub fn start(counter: &Counter, interval_ns: u64) -> Option<Self> {
        counter.reset();
        let (stop, stopped) = mpsc::channel();
        let c = counter.clone();
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name("fsbench-ticker".into())
            .spawn(move || tick(&c, started, interval_ns.max(1), &stopped))
            .ok()?;
        Some(Self { stop, thread })
    }

    /// Stops reading; the series, its last interval ending now.
    pub fn finish(self) -> RawSeries {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or_default()
    }
}

fn tick(
    c: &Counter,
    started: Instant,
    interval_ns: u64,
    stopped: &mpsc::Receiver<()>,
) -> RawSeries {
    let mut series = RawSeries::new(interval_ns);
    let mut seen = (0, 0);
    let mut end_ns = interval_ns;
    loop {
        let due = started + Duration::from_nanos(end_ns);
        let wait = due.saturating_duration_since(Instant::now());
        let last = !matches!(
            stopped.recv_timeout(wait),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        let now = c.read();
        let at = if last {
            started.elapsed().as_nanos() as u64
        } else {
            end_ns
        };
        series.push(RawInterval {
            end_ns: at,
            ops: now.0 - seen.0,
            bytes: now.1 - seen.1,
            buckets: Vec::new(),
        });
        seen = now;
        if last {
            return series;
        }
        // The interval may have doubled.
        end_ns += series.interval_ns;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ticker_records_what_was_counted_interval_by_interval() {
        let c = Counter::default();
        c.add(99, 0);
        let t = Ticker::start(&c, 5_000_000).unwrap();
        for _ in 0..6 {
            c.add(10, 4096);
            std::thread::sleep(Duration::from_millis(5));
        }
        let s = t.finish();
        assert_eq!(
            s.intervals.iter().map(|i| i.ops).sum::<u64>(),
            60,
            "reset at start"
        );
        assert_eq!(s.intervals.iter().map(|i| i.bytes).sum::<u64>(), 6 * 4096);
        assert!(s.intervals.len() >= 4, "{s:?}");
        let ends: Vec<u64> = s.intervals.iter().map(|i| i.end_ns).collect();
        assert!(ends.windows(2).all(|w| w[0] < w[1]), "{ends:?}");
    }
}
