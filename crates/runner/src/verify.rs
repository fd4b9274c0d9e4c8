//! What the device counters prove about a cell once its samples are in: whether a cold sample
//! of a metadata workload really started without the tree's dentries and inodes (it must then
//! read them from a device), and whether flushed writes reached the device.

use fsbench_model::metric as k;
use fsbench_model::{ResultEntry, Sample, Warning, WarningKind};
use fsbench_spec::plan::CacheState;
use fsbench_workload::{Caps, Flow};

/// A cold tree read must read at least this much from a device: one directory block or inode
/// table block. A tree whose metadata stayed cached reads nothing.
pub const MIN_COLD_READ_BYTES: u64 = 4096;

/// And at least this much per entry walked, when the workload counts entries: an inode is 128
/// to 512 bytes on disk and inode tables are read in blocks, so a cold walk reads well over 32
/// bytes per entry, a cached one next to none.
pub const MIN_COLD_READ_PER_ENTRY: f64 = 32.0;

/// Flushed writes must reach the device as at least this share of the bytes written (journals
/// and metadata add to it; nothing legitimate takes from it).
pub const MIN_DURABLE_WRITE_PCT: f64 = 90.0;

/// Why a cold metadata sample is not verified cold, or `None` when its reads prove it was.
/// `watched` is whether any device is under the target at all.
pub fn cold_problem(s: &Sample, watched: bool) -> Option<String> {
    if !watched {
        return Some(
            "no block device under the target: its metadata lives in memory (tmpfs, ramfs) or on a server, so dropping caches cannot make a walk of it cold".into(),
        );
    }
    let read = s.devices.iter().map(|d| d.read_bytes).max().unwrap_or(0);
    let entries = s
        .metrics
        .get(fsbench_model::metric::ENTRIES)
        .copied()
        .unwrap_or(0.0);
    let needed = (MIN_COLD_READ_BYTES as f64).max(entries * MIN_COLD_READ_PER_ENTRY);
    (s.devices.is_empty() || (read as f64) < needed).then(|| {
        format!(
            "the device read {read} bytes during the sample where a cold tree needs at least {needed:.0} — its dentries and inodes were still cached"
        )
    })
}

/// Marks each cold sample of a tree-reading workload `cold_verified` 1 or 0 and warns once
/// when any was not; warns when flushed writes did not reach the device.
pub fn check(entry: &mut ResultEntry, caps: &Caps, cache: CacheState, watched: bool) {
    if cache == CacheState::Cold && caps.reads_tree {
        let mut first = None;
        let mut failed = 0;
        for s in &mut entry.samples {
            let problem = cold_problem(s, watched);
            s.metrics.insert(
                k::COLD_VERIFIED.into(),
                if problem.is_none() { 1.0 } else { 0.0 },
            );
            if let Some(p) = problem {
                failed += 1;
                first.get_or_insert(p);
            }
        }
        if let Some(p) = first {
            entry.warnings.push(Warning::new(
                WarningKind::NotCold,
                format!(
                    "not cold: {failed} of {} cold samples not verified — {p}",
                    entry.samples.len()
                ),
            ));
        }
    }
    let durable = matches!(
        caps.flow,
        Flow::Write { durable: true } | Flow::WriteThenRead
    );
    if durable {
        let shares: Vec<f64> = entry
            .samples
            .iter()
            .filter_map(|s| s.metrics.get(k::DEVICE_WRITE_PCT).copied())
            .collect();
        if let Some(low) = shares.iter().copied().reduce(f64::min) {
            if low < MIN_DURABLE_WRITE_PCT && !shares.is_empty() {
                entry.warnings.push(Warning::new(
                    WarningKind::Implausible,
                    format!(
                        "flushed writes reached the device as only {low:.0}% of the bytes written: a cache below the filesystem acknowledged the flush (a loop device's backing file, the hypervisor)"
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::DeviceIo;

    fn sample(read: u64, entries: f64) -> Sample {
        let mut s: Sample = serde_json::from_value(serde_json::json!({
            "wall_ns": 1_000_000, "user_ns": 0, "sys_ns": 0, "ops": 0, "bytes": 0, "metrics": {}
        }))
        .unwrap();
        s.metrics.insert("entries".into(), entries);
        s.devices = vec![DeviceIo {
            name: "loop0".into(),
            read_bytes: read,
            ..DeviceIo::default()
        }];
        s
    }

    #[test]
    fn a_cold_walk_that_read_its_inodes_is_verified() {
        assert_eq!(cold_problem(&sample(2_000_000, 10_000.0), true), None);
        assert_eq!(cold_problem(&sample(8192, 0.0), true), None);
    }

    #[test]
    fn a_walk_that_read_next_to_nothing_was_cached() {
        let p = cold_problem(&sample(4096, 10_000.0), true).unwrap();
        assert!(p.contains("still cached"), "{p}");
        assert!(cold_problem(&sample(0, 0.0), true).is_some());
    }

    #[test]
    fn nothing_under_the_target_cannot_be_cold() {
        let mut s = sample(0, 5.0);
        s.devices.clear();
        let p = cold_problem(&s, false).unwrap();
        assert!(p.contains("tmpfs"), "{p}");
    }
}
