//! A sample as a time series: the operations, bytes and latencies of each fixed interval of it.
//!
//! Written by hand rather than with a second HDR histogram per operation because its cost must
//! stay off the per-operation path: the recorder records every latency into one histogram (as it
//! always did) and compares the operation's clock reading with the next interval's end; only when
//! an interval ends (every few milliseconds) is that histogram's content moved into a compact
//! list of its non-empty buckets and cleared. The sample's whole histogram is rebuilt from those
//! lists when the sample ends, outside the timed region, so it stays exact.
//!
//! A sample of any length keeps at most [`MAX_INTERVALS`] intervals: when full, neighbours are
//! merged pairwise (exactly: bucket counts add) and the interval doubles.

use hdrhistogram::Histogram;

/// The interval of a series whose sample length nothing suggests, ns (a ticker's when asked
/// for none, and recorded series in tests).
pub const DEFAULT_INTERVAL_NS: u64 = 10_000_000;

/// The finest interval, ns: `--interval` accepts no finer, and the interval chosen for a sample
/// of unknown length starts there (and doubles as the sample grows).
pub const MIN_INTERVAL_NS: u64 = 1_000_000;

/// The coarsest interval chosen for a sample, ns.
pub const MAX_CHOSEN_INTERVAL_NS: u64 = 1_000_000_000;

/// The finest interval chosen for a sample, ns: each interval that ends costs the recorder
/// some tens of µs (its latencies moved out of the histogram), 1–2% of a CPU at this rate.
pub const MIN_CHOSEN_INTERVAL_NS: u64 = 2_000_000;

/// The interval a sample's series starts at when `--interval` does not fix it, from how long
/// the sample is expected to last (the cell's previous sample): about 1,000 points, the
/// interval rounded down to 1, 2 or 5 × 10ⁿ ns and kept within 2 ms .. 1 s. With nothing to
/// expect, the finest: the series then doubles it as the sample grows (at most
/// [`MAX_INTERVALS`] points), so a 300 ms sample keeps 150 points and a 10-minute one 512–1,024.
pub fn interval_for(expected_ns: Option<u64>) -> u64 {
    let Some(expected) = expected_ns else {
        return MIN_CHOSEN_INTERVAL_NS;
    };
    let wanted = (expected / 1000).clamp(MIN_CHOSEN_INTERVAL_NS, MAX_CHOSEN_INTERVAL_NS);
    let decade = 10u64.pow(wanted.ilog10());
    let nice = [5, 2, 1]
        .into_iter()
        .map(|m| m * decade)
        .find(|&v| v <= wanted)
        .unwrap_or(decade);
    nice.max(MIN_CHOSEN_INTERVAL_NS)
}

/// Most intervals a series keeps; beyond, neighbours merge and the interval doubles.
pub const MAX_INTERVALS: usize = 1024;

/// The latencies of one interval: `(highest equivalent value, count)` of each non-empty bucket
/// of the recorder's histogram, in increasing value order.
pub type Buckets = Vec<(u64, u64)>;

/// One interval while the sample runs: its end, its counts and its latency buckets.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RawInterval {
    /// End of the interval, ns since the sample's start (the last one ends with the sample).
    pub end_ns: u64,
    /// Operations completed in it.
    pub ops: u64,
    /// Bytes moved in it.
    pub bytes: u64,
    /// Latencies recorded in it (empty when the workload times no single operation).
    pub buckets: Buckets,
}

/// A sample's series while it is recorded and merged (jobs, MPI ranks).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RawSeries {
    /// Interval length, ns.
    pub interval_ns: u64,
    /// The intervals, oldest first.
    pub intervals: Vec<RawInterval>,
}

pub use fsbench_model::SeriesPoint;

/// Moves the content of `hist` into a bucket list and clears it.
pub fn drain(hist: &mut Histogram<u64>) -> Buckets {
    if hist.is_empty() {
        return Vec::new();
    }
    // From the lowest recorded value to the highest only: `iter_recorded` walks every bucket
    // from zero, ten times more for millisecond latencies, and this runs inside the sample.
    let (mut v, max) = (hist.min_nz(), hist.max());
    let mut out = Vec::new();
    loop {
        let count = hist.count_at(v);
        let top = hist.highest_equivalent(v);
        if count > 0 {
            out.push((top, count));
        }
        if top >= max {
            break;
        }
        v = hist.next_non_equivalent(v);
    }
    hist.reset();
    out
}

/// The sum of two bucket lists (both in increasing value order).
pub fn merge_buckets(a: &[(u64, u64)], b: &[(u64, u64)]) -> Buckets {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push((a[i].0, a[i].1 + b[j].1));
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// The value at quantile `q` (0..=1) of a bucket list, as HDR's `value_at_quantile` gives it.
pub fn quantile(buckets: &[(u64, u64)], q: f64) -> Option<u64> {
    let total: u64 = buckets.iter().map(|b| b.1).sum();
    if total == 0 {
        return None;
    }
    // HDR's rule: the first value whose cumulative count reaches ceil(q * total), at least 1.
    let wanted = ((q * total as f64).ceil() as u64).clamp(1, total);
    let mut seen = 0;
    buckets.iter().find_map(|&(v, n)| {
        seen += n;
        (seen >= wanted).then_some(v)
    })
}

impl RawSeries {
    /// An empty series of `interval_ns`.
    pub fn new(interval_ns: u64) -> Self {
        Self {
            interval_ns: interval_ns.max(1),
            intervals: Vec::new(),
        }
    }

    /// Appends an interval; once [`MAX_INTERVALS`] (an even number) are held, neighbours are
    /// merged and the interval doubles, so every interval keeps covering whole steps of it.
    pub fn push(&mut self, interval: RawInterval) {
        self.intervals.push(interval);
        if self.intervals.len() >= MAX_INTERVALS {
            self.coarsen();
        }
    }

    /// Merges neighbouring intervals pairwise; the interval doubles.
    pub fn coarsen(&mut self) {
        let old = std::mem::take(&mut self.intervals);
        let mut it = old.into_iter();
        while let Some(a) = it.next() {
            self.intervals.push(match it.next() {
                Some(b) => RawInterval {
                    end_ns: b.end_ns,
                    ops: a.ops + b.ops,
                    bytes: a.bytes + b.bytes,
                    buckets: merge_buckets(&a.buckets, &b.buckets),
                },
                None => a,
            });
        }
        self.interval_ns = (self.interval_ns * 2).max(1);
    }

    /// Adds `other` (a parallel job's or rank's series, started at the same moment) interval by
    /// interval: both are first brought to the coarser of the two intervals.
    pub fn add(&mut self, other: &RawSeries) {
        if other.intervals.is_empty() {
            return;
        }
        let mut other = other.clone();
        if self.intervals.is_empty() {
            self.interval_ns = self.interval_ns.max(other.interval_ns);
        }
        while other.interval_ns < self.interval_ns && !other.intervals.is_empty() {
            other.coarsen();
        }
        while self.interval_ns < other.interval_ns {
            self.coarsen();
        }
        for (k, o) in other.intervals.into_iter().enumerate() {
            match self.intervals.get_mut(k) {
                Some(s) => {
                    s.end_ns = s.end_ns.max(o.end_ns);
                    s.ops += o.ops;
                    s.bytes += o.bytes;
                    s.buckets = merge_buckets(&s.buckets, &o.buckets);
                }
                None => self.intervals.push(o),
            }
        }
        while self.intervals.len() > MAX_INTERVALS {
            self.coarsen();
        }
    }

    /// Every interval's latencies added into `hist` (the sample's whole histogram).
    pub fn fill(&self, hist: &mut Histogram<u64>) {
        for i in &self.intervals {
            for &(v, n) in &i.buckets {
                let _ = hist.record_n(v, n);
            }
        }
    }

    /// The points as kept: counts and the latency percentiles of each interval.
    pub fn points(&self) -> Vec<SeriesPoint> {
        self.intervals
            .iter()
            .map(|i| SeriesPoint {
                t_ns: i.end_ns,
                ops: i.ops,
                bytes: i.bytes,
                lat_p50_ns: quantile(&i.buckets, 0.50),
                lat_p99_ns: quantile(&i.buckets, 0.99),
                lat_max_ns: i.buckets.last().map(|b| b.0),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_interval_gives_about_a_thousand_round_points() {
        assert_eq!(interval_for(None), MIN_CHOSEN_INTERVAL_NS);
        let ms = 1_000_000;
        assert_eq!(
            interval_for(Some(300 * ms)),
            2 * ms,
            "a 300 ms sample: 150 points"
        );
        assert_eq!(interval_for(Some(17_500 * ms)), 10 * ms);
        assert_eq!(interval_for(Some(25_000 * ms)), 20 * ms);
        assert_eq!(interval_for(Some(60_000 * ms)), 50 * ms);
        assert_eq!(interval_for(Some(3_600_000 * ms)), 1000 * ms, "at most 1 s");
        assert_eq!(interval_for(Some(1)), 2 * ms, "at least 2 ms");
    }

    fn hist() -> Histogram<u64> {
        Histogram::new_with_bounds(1, 3_600_000_000_000, 3).unwrap()
    }

    #[test]
    fn quantiles_of_buckets_are_hdrs_own() {
        let mut h = hist();
        for v in [100u64, 200, 300, 400, 5000, 5000, 7000, 1_000_000] {
            h.record(v).unwrap();
        }
        let expected: Vec<u64> = [0.5, 0.9, 0.99, 1.0]
            .iter()
            .map(|&q| h.value_at_quantile(q))
            .collect();
        let b = drain(&mut h);
        assert!(h.is_empty(), "drained");
        let got: Vec<u64> = [0.5, 0.9, 0.99, 1.0]
            .iter()
            .map(|&q| quantile(&b, q).unwrap())
            .collect();
        assert_eq!(got, expected);
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn draining_from_the_lowest_value_gives_every_recorded_bucket() {
        let mut h = hist();
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            h.record(1 + (x >> 20) % 50_000_000).unwrap();
        }
        for v in [1u64, 2, 3_599_000_000_000] {
            h.record(v).unwrap();
        }
        let all: Buckets = h
            .iter_recorded()
            .map(|v| (v.value_iterated_to(), v.count_at_value()))
            .collect();
        assert_eq!(drain(&mut h), all);
        assert!(h.is_empty());
    }

    #[test]
    fn coarsening_merges_pairs_exactly_and_doubles_the_interval() {
        let mut s = RawSeries::new(10);
        for k in 0..(MAX_INTERVALS as u64 + 1) {
            s.push(RawInterval {
                end_ns: (k + 1) * 10,
                ops: 1,
                bytes: 4096,
                buckets: vec![(k % 7 + 1, 1)],
            });
        }
        assert_eq!(s.interval_ns, 20);
        assert_eq!(s.intervals.len(), MAX_INTERVALS / 2 + 1);
        assert_eq!(s.intervals.iter().map(|i| i.ops).sum::<u64>(), 1025);
        assert_eq!(s.intervals[0].end_ns, 20);
        assert_eq!(s.intervals[0].buckets, vec![(1, 1), (2, 1)]);
        let mut h = hist();
        s.fill(&mut h);
        assert_eq!(h.len(), 1025);
    }

    #[test]
    fn parallel_series_add_interval_by_interval_at_the_coarser_interval() {
        let one = |iv: u64, n: u64| RawSeries {
            interval_ns: iv,
            intervals: (1..=n)
                .map(|k| RawInterval {
                    end_ns: k * iv,
                    ops: 2,
                    bytes: 8,
                    buckets: vec![(50, 2)],
                })
                .collect(),
        };
        let mut a = RawSeries::new(10);
        a.add(&one(10, 4));
        a.add(&one(20, 3));
        assert_eq!(a.interval_ns, 20);
        let ops: Vec<u64> = a.intervals.iter().map(|i| i.ops).collect();
        assert_eq!(ops, vec![6, 6, 2]);
        let p = a.points();
        assert_eq!(p[0].lat_p50_ns, Some(50));
        assert_eq!(p[2].t_ns, 60);
    }
}
