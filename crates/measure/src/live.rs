//! The rate of the interval that just ended, for a progress display while a sample runs: the
//! recorder publishes each closed interval (its cold path, every few milliseconds; nothing per
//! operation), and the display reads the latest one when it redraws.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A published rate older than this is stale (the sample ended, or the workload prepares).
const STALE_MS: u64 = 1000;

/// The last closed interval of the running sample, shared with the display.
#[derive(Debug, Clone, Default)]
pub struct LiveRate(Arc<[AtomicU64; 4]>);

/// What the display shows: per second over the last interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Operations per second.
    pub ops_per_s: f64,
    /// Bytes per second.
    pub bytes_per_s: f64,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl LiveRate {
    /// Publishes an interval of `len_ns` in which `ops` operations moved `bytes`.
    pub fn publish(&self, len_ns: u64, ops: u64, bytes: u64) {
        let [at, len, o, b] = &*self.0;
        len.store(len_ns, Ordering::Relaxed);
        o.store(ops, Ordering::Relaxed);
        b.store(bytes, Ordering::Relaxed);
        at.store(now_ms(), Ordering::Release);
    }

    /// The latest interval's rate, unless it is stale or none was published.
    pub fn latest(&self) -> Option<Rate> {
        let [at, len, o, b] = &*self.0;
        let at = at.load(Ordering::Acquire);
        if at == 0 || now_ms().saturating_sub(at) > STALE_MS {
            return None;
        }
        let secs = len.load(Ordering::Relaxed) as f64 / 1e9;
        (secs > 0.0).then(|| Rate {
            ops_per_s: o.load(Ordering::Relaxed) as f64 / secs,
            bytes_per_s: b.load(Ordering::Relaxed) as f64 / secs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latest_interval_is_shown_until_it_is_stale() {
        let l = LiveRate::default();
        assert_eq!(l.latest(), None);
        l.publish(10_000_000, 250, 250 << 20);
        let r = l.latest().unwrap();
        assert!((r.ops_per_s - 25_000.0).abs() < 1e-6);
        assert!((r.bytes_per_s - (25_000u64 << 20) as f64).abs() < 1.0);
        l.0[0].store(1, Ordering::Release); // published long ago
        assert_eq!(l.latest(), None);
    }
}
