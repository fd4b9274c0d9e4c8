//! Results no device under the target could have given. Each device gets a ceiling, measured
//! once with a short direct read and write probe (`fsbench env --probe`, kept in the store per
//! device) or given by the user; a cell whose data had to come from or go to the device (cold,
//! direct, or flushed writes) and moved faster than that was served by a cache above the device
//! (the hypervisor's, a RAID controller's) — the number is not the device's.

use fsbench_model::metric as k;
use fsbench_model::{CacheState, ResultEntry};

/// A result above the ceiling by this factor is flagged (probes vary by a few percent).
pub const CEILING_SLACK: f64 = 1.2;

pub use fsbench_model::DeviceCeiling as Ceiling;

fn mean(e: &ResultEntry, name: &str) -> Option<f64> {
    e.summary.get(name).map(|s| s.mean)
}

/// Why `e` is faster than its device `c` allows, or `None`.
pub fn check(e: &ResultEntry, c: &Ceiling) -> Option<String> {
    let direct = mean(e, k::DIRECT_USED) == Some(1.0);
    let cold = e.cache.state == CacheState::Cold;
    let flushed = e
        .params
        .get(fsbench_model::param::FSYNC)
        .is_none_or(|f| f != "none");
    let mut checks: Vec<(&str, f64, f64)> = Vec::new();
    if let Some(w) = mean(e, k::WRITE_MIB_S).filter(|_| flushed) {
        checks.push(("flushed writes", w, c.write_mib_s));
    }
    if let Some(r) = mean(e, k::READ_MIB_S).filter(|_| cold || direct) {
        checks.push(("reads", r, c.read_mib_s));
    }
    if !e.summary.contains_key(k::READ_MIB_S) {
        if let Some(t) = mean(e, k::THROUGHPUT_MIB_S) {
            if e.summary.contains_key(k::SERVED_BY_DEVICE_PCT) && (cold || direct) {
                checks.push(("reads", t, c.read_mib_s));
            } else if e.summary.contains_key(k::DEVICE_WRITE_PCT) && (flushed || direct) {
                checks.push(("writes", t, c.write_mib_s));
            }
        }
    }
    checks
        .into_iter()
        .find(|(_, got, max)| *max > 0.0 && *got > max * CEILING_SLACK)
        .map(|(what, got, max)| {
            format!(
                "faster than the device: {what} at {got:.0} MiB/s where {} does {max:.0} MiB/s ({}) — served from a cache above it (e.g. the hypervisor's)",
                c.device, c.source
            )
        })
}
