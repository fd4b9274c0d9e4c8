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
    /// Off-CPU time of the cell's threads (fsbench's workers and a command's children, not its
    /// helpers) by reason, ns.
    pub off_cpu: BTreeMap<String, u64>,
    /// Off-CPU time of the FUSE daemon's threads by reason, ns.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub daemon_off_cpu: BTreeMap<String, u64>,
    /// Off-CPU time of fsbench's helpers (sampler, ticker, the measuring thread waiting for its
    /// workers and children) by reason, ns: never the cell's reasons.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub helper_off_cpu: BTreeMap<String, u64>,
    /// Lock waits of the cell's threads (fsbench's workers and children, the daemons'), largest
    /// first.
    pub locks: Vec<LockWait>,
    /// Lock waits whose end was never seen, dropped rather than guessed (by why).
    #[serde(default, skip_serializing_if = "LockDrops::is_empty")]
    pub lock_drops: LockDrops,
    /// The block requests of the target's device, as the device saw them; `None` without one.
    pub device: Option<DeviceLatency>,
    /// On-CPU samples by who ran them, largest first.
    pub who: Vec<WhoShare>,
    /// Parts that could not be measured (a missing tracepoint), in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A replay's: the off-CPU time and lock waits of its threads within its calls, by the
    /// kind of call they were in (`lstat`, `getdents`, `outside the root`), so that its time by
    /// call kind has the kernel's reason (issue 58); empty for every other workload and in
    /// older records.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_call: BTreeMap<String, CallEvidence>,
}

/// The kernel's evidence of the time a replay's threads spent in one kind of call.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CallEvidence {
    /// Off-CPU time by reason ([`REASONS`]), ns.
    pub off_cpu: BTreeMap<String, u64>,
    /// Lock waits by lock kind and caller (`rwsem-write: down_write <- do_unlinkat`), ns.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub locks: BTreeMap<String, u64>,
}

impl CallEvidence {
    /// Adds `o`'s times.
    pub fn add(&mut self, o: &CallEvidence) {
        for (k, v) in &o.off_cpu {
            *self.off_cpu.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &o.locks {
            *self.locks.entry(k.clone()).or_default() += v;
        }
    }
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
    /// Distinct threads that waited (a wait's share of the wall time is at most this × 100%).
    #[serde(default)]
    pub threads: u64,
    /// Of [`LockWait::wait_ns`], the time the waiting threads slept off the CPU, ns; the rest
    /// they spun (or were preempted) on it.
    #[serde(default)]
    pub asleep_ns: u64,
}

impl LockWait {
    /// True for a lock whose waiters spin on the CPU (spinlock, rwlock): its wait is on-CPU
    /// time, not sleep.
    pub fn spins(&self) -> bool {
        is_spinning_kind(&self.kind)
    }
}

/// True for the lock kinds whose waiters spin on the CPU rather than sleep.
pub fn is_spinning_kind(kind: &str) -> bool {
    matches!(kind, "spinlock" | "rwlock")
}

/// Lock waits begun but never seen to end, dropped (not counted in [`Profile::locks`]) because
/// what ended them was not seen.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct LockDrops {
    /// Open when the kernel dropped records (the end may be among them).
    pub lost: u64,
    /// Open when their thread exited.
    pub exited: u64,
    /// Still open when the sample ended.
    pub open_at_end: u64,
    /// Ends without a begin (begun before the sample, or the begin was lost).
    pub unmatched_ends: u64,
}

impl LockDrops {
    /// True when nothing was dropped.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// Adds `o`'s counts.
    pub fn add(&mut self, o: &Self) {
        self.lost += o.lost;
        self.exited += o.exited;
        self.open_at_end += o.open_at_end;
        self.unmatched_ends += o.unmatched_ends;
    }

    /// The drops in words, for a profile's notes; `None` when nothing was dropped.
    pub fn note(&self) -> Option<String> {
        (!self.is_empty()).then(|| {
            format!(
                "{LOCK_DROPS_NOTE} {} at lost records, {} at a thread's exit, {} open at the sample's end; {} ends without a begin ignored",
                self.lost, self.exited, self.open_at_end, self.unmatched_ends
            )
        })
    }
}

/// How the note of [`LockDrops::note`] starts (one such note per profile).
pub const LOCK_DROPS_NOTE: &str = "lock waits dropped unpaired:";

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

/// Who a piece of a profile belongs to (`docs/methodology.md`, "Roles").
#[derive(
    Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash, Default,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The cell's own work: its threads and children, its FUSE daemons and simulated servers,
    /// the kernel workers serving its target's devices.
    Cell,
    /// fsbench's helpers: the sampler, ticker, progress and the measuring thread's waits for its
    /// workers. Never an input of a verdict.
    Helper,
    /// Anything else running on the machine, named by command (or kernel worker and the device
    /// it serves).
    Neighbour,
    /// Kernel work that could not be tied to any device (softirqs, shared workqueues). Also the
    /// role of shares recorded before roles existed.
    #[default]
    Unattributed,
}

impl Role {
    /// The role's name as JSON and the tables spell it.
    pub fn name(self) -> &'static str {
        match self {
            Role::Cell => "cell",
            Role::Helper => "helper",
            Role::Neighbour => "neighbour",
            Role::Unattributed => "unattributed",
        }
    }
}

/// Who ran a share of the on-CPU samples.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct WhoShare {
    /// `fsbench`, `daemon COMM`, `fsbench helper`, `kworker WORKQUEUE`, `kthread NAME`, or a
    /// neighbour's command (`cc1`); the root of its folded stacks.
    pub who: String,
    /// Whose work it was.
    #[serde(default)]
    pub role: Role,
    /// The device a kernel worker serves, when its name or its requests tell (`loop4`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serves: Option<String>,
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

/// True when a lock wait's caller chain (`_raw_spin_lock <- raw_spin_rq_lock_nested <- …`) is
/// the scheduler's own run-queue lock, taken while switching or waking threads: its time is
/// the preemption's, never a filesystem's lock.
pub fn is_scheduler_lock(caller: &str) -> bool {
    [
        "__schedule",
        "sched_yield",
        "try_to_wake_up",
        "raw_spin_rq_lock",
        "__task_rq_lock",
    ]
    .iter()
    .any(|f| caller.contains(f))
}

impl Profile {
    /// The role of the shares whose folded stacks start with `who`.
    pub fn role_of(&self, who: &str) -> Role {
        self.who
            .iter()
            .find(|w| w.who == who)
            .map_or(Role::Unattributed, |w| w.role)
    }

    /// Gives the shares of a profile recorded before roles their role from their name:
    /// `fsbench` and `daemon …` the cell's, `other` a neighbour's, kernel threads unattributed
    /// (the old profile did not tie them to devices). A profile with any role set is left as
    /// it is. Its `off_cpu` still holds the helpers' waits: it cannot be split afterwards.
    pub fn fill_legacy_roles(&mut self) {
        if self.who.iter().any(|w| w.role != Role::Unattributed) {
            return;
        }
        for w in &mut self.who {
            w.role = match w.who.as_str() {
                "fsbench" => Role::Cell,
                d if d.starts_with("daemon ") => Role::Cell,
                "other" => Role::Neighbour,
                _ => Role::Unattributed,
            };
        }
    }

    /// The neighbours' share of the busy samples, % of them, and the largest ones named (`cc1
    /// 31%, kworker flush-7:4 (loop4, not in this run) 22%`); `None` without neighbours.
    pub fn neighbours(&self, named: usize) -> Option<(f64, String)> {
        let n: Vec<&WhoShare> = self
            .who
            .iter()
            .filter(|w| w.role == Role::Neighbour)
            .collect();
        let total: f64 = n.iter().map(|w| w.pct).sum();
        // Those that round to 0% are in the total, not named.
        let words: Vec<String> = n
            .iter()
            .filter(|w| w.pct >= 0.5)
            .take(named)
            .map(|w| match &w.serves {
                Some(d) => format!("{} ({d}, not in this run) {:.0}%", w.who, w.pct),
                None => format!("{} {:.0}%", w.who, w.pct),
            })
            .collect();
        (!n.is_empty()).then(|| (total, words.join(", ")))
    }

    /// On-CPU samples of `role`.
    pub fn samples_of(&self, role: Role) -> u64 {
        let shares = self.who.iter().filter(|w| w.role == role);
        shares.map(|w| w.samples).sum()
    }

    /// Busy samples whose running function is a cipher's, in the stacks of `roles` only.
    pub fn cipher_samples_of(&self, roles: &[Role]) -> u64 {
        let cipher = self.on_cpu.iter().filter(|(stack, _)| {
            let leaf = stack.rsplit(';').next().unwrap_or(stack);
            let who = stack.split(';').next().unwrap_or(stack);
            is_cipher(leaf) && roles.contains(&self.role_of(who))
        });
        cipher.map(|(_, n)| n).sum()
    }

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

    #[test]
    fn neighbours_are_named_with_the_device_they_serve_and_ciphers_counted_by_role() {
        let share = |who: &str, role, serves: Option<&str>, pct| WhoShare {
            who: who.into(),
            role,
            serves: serves.map(String::from),
            samples: pct as u64,
            pct,
        };
        let mut p = Profile {
            who: vec![
                share("cc1", Role::Neighbour, None, 31.0),
                share("kworker flush-7:4", Role::Neighbour, Some("loop4"), 22.0),
                share("fsbench", Role::Cell, None, 40.0),
            ],
            ..Default::default()
        };
        let (pct, words) = p.neighbours(3).unwrap();
        assert_eq!(pct, 53.0);
        assert_eq!(
            words,
            "cc1 31%, kworker flush-7:4 (loop4, not in this run) 22%"
        );
        p.on_cpu
            .insert("kworker flush-7:4;aesti_encrypt".into(), 22);
        p.on_cpu.insert("fsbench;filemap_read".into(), 40);
        assert_eq!(p.cipher_samples_of(&[Role::Cell]), 0);
        assert_eq!(p.cipher_samples_of(&[Role::Neighbour]), 22);
        assert_eq!(p.samples_of(Role::Cell), 40);
        p.fill_legacy_roles();
        assert_eq!(p.role_of("cc1"), Role::Neighbour, "roles set are kept");
        let mut old: Profile = serde_json::from_str(
            r#"{"frequency_hz":997,"cpus":2,"samples":1,"wall_ns":1,"on_cpu_samples":3,
            "idle_samples":0,"lost":0,"on_cpu":{},"off_cpu":{},"locks":[],"device":null,
            "who":[{"who":"fsbench","samples":1,"pct":33.0},{"who":"other","samples":1,"pct":33.0},
            {"who":"kworker flush-7:4","samples":1,"pct":33.0}]}"#,
        )
        .unwrap();
        old.fill_legacy_roles();
        let roles: Vec<Role> = old.who.iter().map(|w| w.role).collect();
        assert_eq!(roles, [Role::Cell, Role::Neighbour, Role::Unattributed]);
    }
}
