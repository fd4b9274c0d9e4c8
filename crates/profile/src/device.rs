//! The device as it saw the requests: `block:block_rq_issue` paired with
//! `block:block_rq_complete` by device and sector, into a latency histogram and the mean queue
//! depth (Little's law: total time in flight over the sampled time).

use fsbench_model::profile::{DeviceLatency, LatencyBucket};
use std::collections::HashMap;

/// The first histogram bound, ns; each next one doubles.
const FIRST_BOUND_NS: u64 = 1024;

/// Requests of one device in flight and completed.
#[derive(Debug, Default)]
pub struct Requests {
    issued: HashMap<u64, u64>,
    latencies: Vec<u64>,
}

impl Requests {
    /// A request at `sector` was issued at `t`.
    pub fn issue(&mut self, sector: u64, t: u64) {
        self.issued.insert(sector, t);
    }

    /// The request at `sector` completed at `t` (one issued before the sample is ignored).
    pub fn complete(&mut self, sector: u64, t: u64) {
        if let Some(t0) = self.issued.remove(&sector) {
            self.latencies.push(t.saturating_sub(t0));
        }
    }

    /// The device's figures over `wall_ns`; `None` when no request completed.
    pub fn finish(self, device: &str, wall_ns: u64) -> Option<DeviceLatency> {
        let n = self.latencies.len() as u64;
        if n == 0 {
            return None;
        }
        let total: u64 = self.latencies.iter().sum();
        Some(DeviceLatency {
            device: device.to_string(),
            requests: n,
            mean_ns: total as f64 / n as f64,
            mean_queue_depth: total as f64 / wall_ns.max(1) as f64,
            histogram: histogram(&self.latencies),
        })
    }
}

/// Power-of-two buckets from [`FIRST_BOUND_NS`] up to the largest latency.
pub fn histogram(latencies: &[u64]) -> Vec<LatencyBucket> {
    let mut out: Vec<LatencyBucket> = Vec::new();
    for &l in latencies {
        let mut le = FIRST_BOUND_NS;
        let mut i = 0;
        while le < l {
            le = le.saturating_mul(2);
            i += 1;
        }
        while out.len() <= i {
            let le_ns = FIRST_BOUND_NS << out.len().min(60);
            out.push(LatencyBucket { le_ns, count: 0 });
        }
        out[i].count += 1;
    }
    out
}

/// The kernel's dev_t of a `MAJOR:MINOR` pair (as block tracepoints record it).
pub fn dev_t(major: u32, minor: u32) -> u32 {
    (major << 20) | minor
}

/// A kernel dev_t's major and minor numbers.
pub fn major_minor(dev: u32) -> (u32, u32) {
    (dev >> 20, dev & 0xf_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_pair_into_a_histogram_and_a_queue_depth() {
        let mut r = Requests::default();
        r.issue(8, 0);
        r.issue(16, 0);
        r.complete(8, 1000);
        r.complete(16, 3000);
        r.complete(99, 50);
        let d = r.finish("loop3", 4000).unwrap();
        assert_eq!(d.requests, 2);
        assert_eq!(d.mean_ns, 2000.0);
        assert_eq!(d.mean_queue_depth, 1.0);
        assert_eq!(
            d.histogram[0],
            LatencyBucket {
                le_ns: 1024,
                count: 1
            }
        );
        assert_eq!(
            d.histogram[2],
            LatencyBucket {
                le_ns: 4096,
                count: 1
            }
        );
        assert!(Requests::default().finish("x", 1).is_none());
        assert_eq!(dev_t(7, 3), (7 << 20) | 3);
    }
}
