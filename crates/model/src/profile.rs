//! A cell's profile (`--profile`): the kernel's own evidence gathered during each sample's timed
//! region, summed over the cell's samples. On-CPU call chains as folded stacks, off-CPU time of
//! fsbench's threads by reason, lock waits by kind and caller, the device's own request latency,
//! and who did the work. Documented in `docs/formats.md` (`results[].profile`).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The off-CPU reasons, in the order tables list them.
pub const REASONS: &[&str] = &[
    REASON_DEVICE,
    REASON_FUSE,
    REASON_LOCK,
    REASON_NETWORK,
    REASON_JOURNAL,
    REASON_THROTTLE,
    REASON_PREEMPTED,
    REASON_OTHER,
];
/// Waiting for the block device (`io_schedule`, `folio_wait…`).
pub const REASON_DEVICE: &str = "device I/O";
/// Waiting for the FUSE daemon's answer (`request_wait_answer`, `fuse_…`).
pub const REASON_FUSE: &str = "FUSE round trip";
/// Sleeping on a kernel lock (rwsem, mutex slow paths).
pub const REASON_LOCK: &str = "lock";
/// Waiting for the network (`rpc_wait…`, socket waits).
pub const REASON_NETWORK: &str = "network";
/// Waiting for the journal (`jbd2…`).
pub const REASON_JOURNAL: &str = "journal";
/// Throttled by dirty-page writeback or reclaim (`balance_dirty_pages`).
pub const REASON_THROTTLE: &str = "writeback throttling";
/// Runnable but switched out for another task (CPU contention).
pub const REASON_PREEMPTED: &str = "preempted";
/// Anything else (sleeps, futexes, pipes).
pub const REASON_OTHER: &str = "other";

/// The kernel's evidence for one cell (or one sample, before it is summed into its cell).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct Profile {
    /// On-CPU sampling frequency per CPU, Hz.
    pub frequency_hz: u64,
    /// CPUs sampled.
    pub cpus: u32,
    /// Samples profiled (the cell's measured samples).
    pub samples: u32,
    /// Wall time of the profiled samples, summed, ns.
    pub wall_ns: u64,
    /// On-CPU samples taken on busy CPUs (idle excluded).
    pub on_cpu_samples: u64,
    /// On-CPU samples of idle CPUs.
    pub idle_samples: u64,
    /// Records the kernel dropped because a ring buffer was full.
    pub lost: u64,
    /// Folded stacks: `who;user frames;kernel frames` (root first, `;`-separated) → samples.
    /// The 2,000 most frequent stacks are kept; the rest are counted in `[other stacks]`.
    pub on_cpu: BTreeMap<String, u64>,
    /// Off-CPU time of fsbench's threads (and a command's children) by reason, ns.
    pub off_cpu: BTreeMap<String, u64>,
    /// Off-CPU time of the FUSE daemon's threads by reason, ns.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub daemon_off_cpu: BTreeMap<String, u64>,
    /// Lock waits of fsbench's and the daemon's threads, largest first.
    pub locks: Vec<LockWait>,
    /// The block requests of the target's device, as the device saw them; `None` without one.
    pub device: Option<DeviceLatency>,
    /// On-CPU samples by who ran them, largest first.
    pub who: Vec<WhoShare>,
    /// Parts that could not be measured (a missing tracepoint), in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Time spent waiting for one kind of lock at one call site.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct LockWait {
    /// `rwsem-write`, `rwsem-read`, `mutex`, `spinlock`, `rwlock`, `rtmutex`, `percpu-rwsem`.
    pub kind: String,
    /// The caller frames above the lock, innermost first, joined by ` <- `.
    pub caller: String,
    /// Total wait, ns.
    pub wait_ns: u64,
    /// Contended acquisitions.
    pub count: u64,
}

/// The device's request latency (issue to completion) and queue depth.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DeviceLatency {
    /// The device (`loop3`).
    pub device: String,
    /// Requests completed.
    pub requests: u64,
    /// Mean issue-to-completion latency, ns.
    pub mean_ns: f64,
    /// Mean requests in flight over the sampled time (Little's law).
    pub mean_queue_depth: f64,
    /// Latency histogram: powers of two, each bucket counting requests at or below `le_ns`.
    pub histogram: Vec<LatencyBucket>,
}

/// One bucket of [`DeviceLatency::histogram`].
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct LatencyBucket {
    /// Upper bound, ns.
    pub le_ns: u64,
    /// Requests in the bucket (above the previous bound).
    pub count: u64,
}

/// Who ran a share of the on-CPU samples.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WhoShare {
    /// `fsbench`, `daemon COMM`, `kworker WORKQUEUE`, `kthread NAME` or `other`.
    pub who: String,
    /// On-CPU samples.
    pub samples: u64,
    /// Percent of the busy on-CPU samples.
    pub pct: f64,
}

/// True when `frame` is a cipher's code (AES, ChaCha, XTS, GCM, the crypto API's walkers).
pub fn is_cipher(frame: &str) -> bool {
    let f = frame.to_ascii_lowercase();
    [
        "aes", "chacha", "xts", "gcm", "crypto_", "skcipher", "poly1305",
    ]
    .iter()
    .any(|k| f.contains(k))
}

impl Profile {
    /// On-CPU samples by innermost frame (the function that was running), largest first.
    pub fn top_frames(&self) -> Vec<(&str, u64)> {
        let mut by: BTreeMap<&str, u64> = BTreeMap::new();
        for (stack, &n) in &self.on_cpu {
            let leaf = stack.rsplit(';').next().unwrap_or(stack);
            *by.entry(leaf).or_default() += n;
        }
        let mut v: Vec<(&str, u64)> = by.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        v
    }

    /// Busy on-CPU samples whose running function is a cipher's.
    pub fn cipher_samples(&self) -> u64 {
        self.top_frames()
            .iter()
            .filter(|(f, _)| is_cipher(f))
            .map(|(_, n)| n)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_frames_count_the_innermost_frame_and_ciphers_are_recognised() {
        let mut p = Profile::default();
        p.on_cpu.insert("fsbench;read;filemap_read".into(), 3);
        p.on_cpu
            .insert("kworker fscrypt_read_queue;aesni_xts_dec".into(), 5);
        p.on_cpu.insert("other;x;aesni_xts_dec".into(), 1);
        assert_eq!(p.top_frames()[0], ("aesni_xts_dec", 6));
        assert_eq!(p.cipher_samples(), 6);
        assert!(is_cipher("aes_xts_decrypt_vaes_avx2"));
        assert!(!is_cipher("filemap_read"));
    }
}
