//! The series of workloads that count their work in bulk (a walk's entries, a tree's files):
//! they add to a shared [`Counter`] as they go (one relaxed atomic add per directory or file),
//! and a [`Ticker`] thread reads it at every interval's end. Written by hand because the
//! recorder's own series closes intervals on the clock readings of timed operations, which such
//! workloads do not make; the ticker sleeps between readings, so it costs a wake-up per interval.
//! A counter can live in memory shared with child processes ([`Counter::shared`]: walk workers
//! started as processes), and a ticker can read any cumulative source ([`Ticker::start_with`]: a
//! command's process tree from `/proc`).

use crate::series::{RawInterval, RawSeries};
use fsbench_sys::shared::SharedWords;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Work done so far in a sample, shared by the workload's threads (or processes) and the ticker.
#[derive(Debug, Clone, Default)]
pub struct Counter(Arc<Cells>);

/// Where a counter's two words (operations, bytes) live.
#[derive(Debug)]
enum Cells {
    /// This process's memory.
    Own([AtomicU64; 2]),
    /// Memory shared with other processes.
    Shared(SharedWords),
}

impl Default for Cells {
    fn default() -> Self {
        Cells::Own([AtomicU64::new(0), AtomicU64::new(0)])
    }
}

impl Cells {
    #[inline]
    fn words(&self) -> &[AtomicU64] {
        match self {
            Cells::Own(w) => w,
            Cells::Shared(s) => s.words(),
        }
    }
}

impl Counter {
    /// A counter in memory that child processes can map too: [`Counter::fd`] handed to a child,
    /// [`Counter::open`] there. `None` when the shared memory cannot be made.
    pub fn shared() -> Option<Self> {
        let words = SharedWords::new(2).ok()?;
        Some(Self(Arc::new(Cells::Shared(words))))
    }

    /// The counter that another process made with [`Counter::shared`] and handed over as `fd`;
    /// `None` when `fd` is not one.
    pub fn open(fd: std::os::fd::OwnedFd) -> Option<Self> {
        let words = SharedWords::open(fd, 2).ok()?;
        Some(Self(Arc::new(Cells::Shared(words))))
    }

    /// The shared memory to hand to a child process; `None` for a counter of this process.
    pub fn fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        match &*self.0 {
            Cells::Own(_) => None,
            Cells::Shared(s) => Some(s.fd()),
        }
    }

    /// Adds `ops` operations (entries, files) and `bytes`.
    #[inline]
    pub fn add(&self, ops: u64, bytes: u64) {
        let w = self.0.words();
        w[0].fetch_add(ops, Ordering::Relaxed);
        if bytes > 0 {
            w[1].fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// (operations, bytes) so far.
    pub fn read(&self) -> (u64, u64) {
        let w = self.0.words();
        (w[0].load(Ordering::Relaxed), w[1].load(Ordering::Relaxed))
    }

    /// Back to zero (before a sample).
    pub fn reset(&self) {
        let w = self.0.words();
        w[0].store(0, Ordering::Relaxed);
        w[1].store(0, Ordering::Relaxed);
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
        let c = counter.clone();
        Self::start_with(interval_ns, move || c.read())
    }

    /// Starts reading `source` (cumulative operations and bytes, never decreasing) every
    /// `interval_ns` from now, and once more at [`Ticker::finish`]; `None` when the thread
    /// cannot be started. The first reading, taken now, is the zero of the series.
    pub fn start_with(
        interval_ns: u64,
        mut source: impl FnMut() -> (u64, u64) + Send + 'static,
    ) -> Option<Self> {
        let (stop, stopped) = mpsc::channel();
        let seen = source();
        let started = Instant::now();
        let thread = std::thread::Builder::new()
            .name("fsbench-ticker".into())
            .spawn(move || tick(&mut source, seen, started, interval_ns.max(1), &stopped))
            .ok()?;
        Some(Self { stop, thread })
    }

    /// Stops reading; the series, its last interval ending now.
    pub fn finish(self) -> RawSeries {
        let _ = self.stop.send(());
        self.thread.join().unwrap_or_default()
    }
}

/// Adds a ticked series (one without latencies, started with the sample) to `rec`: its
/// operations and bytes, interval by interval, as a parallel part's.
pub fn merge_ticked(rec: &mut dyn crate::Recorder, series: &RawSeries) {
    let ops = series.intervals.iter().map(|i| i.ops).sum();
    let bytes = series.intervals.iter().map(|i| i.bytes).sum();
    rec.merge_ops(&crate::histo::new_histogram(), ops, bytes, Some(series));
}

fn tick(
    source: &mut dyn FnMut() -> (u64, u64),
    mut seen: (u64, u64),
    started: Instant,
    interval_ns: u64,
    stopped: &mpsc::Receiver<()>,
) -> RawSeries {
    let mut series = RawSeries::new(interval_ns);
    let mut end_ns = interval_ns;
    loop {
        let due = started + Duration::from_nanos(end_ns);
        let wait = due.saturating_duration_since(Instant::now());
        let last = !matches!(
            stopped.recv_timeout(wait),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        // A source that went back (a process of a tree gone before its parent counted it) adds
        // nothing until it is past what was seen.
        let now = source();
        let now = (now.0.max(seen.0), now.1.max(seen.1));
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

    #[test]
    fn a_shared_counter_is_read_through_a_second_mapping_and_any_source_ticks() {
        let c = Counter::shared().unwrap();
        let other = Counter::open(c.fd().unwrap().try_clone_to_owned().unwrap()).unwrap();
        other.add(5, 100);
        assert_eq!(c.read(), (5, 100));
        assert!(Counter::default().fd().is_none());
        let mut n = 1000;
        let t = Ticker::start_with(2_000_000, move || {
            n += 10;
            (n, 0)
        })
        .unwrap();
        std::thread::sleep(Duration::from_millis(9));
        let s = t.finish();
        let total: u64 = s.intervals.iter().map(|i| i.ops).sum();
        assert_eq!(
            total,
            10 * s.intervals.len() as u64,
            "from the first reading: {s:?}"
        );
    }
}
