//! The verdict from the kernel's evidence (`--profile`): `crypto` when cipher functions lead the
//! on-CPU profile (any thread, kernel workers included), else the largest share of fsbench's
//! thread time when it is a wait: `lock`, `daemon` (FUSE round trips), `device` or `network`.
//! A FUSE round trip to a daemon that serves a remote server, where the counters found neither
//! side busy (`network`), is a round trip on the wire: the verdict stays `network`, with the wait
//! as its evidence. A cell still `unknown` gets its largest wait as its reason. Without a profile
//! the counters' verdict stands.

use fsbench_model::profile::{self as p, Profile};
use fsbench_model::{Bound, BoundBy};

/// Cipher functions lead the profile from this share of the busy samples of fsbench, the
/// daemon and the kernel's threads.
const CIPHER_LEAD_PCT: f64 = 30.0;

/// A wait is the limit from this share of the wall time (and when nothing else is larger).
const WAIT_LIMIT_PCT: f64 = 20.0;

/// The verdict `judged` from the counters, revised by the cell's profile.
pub fn refine(judged: Option<Bound>, profile: Option<&Profile>) -> Option<Bound> {
    let (Some(b), Some(prof)) = (judged.as_ref(), profile) else {
        return judged;
    };
    if b.by == BoundBy::Rate || prof.wall_ns == 0 {
        return judged;
    }
    if let Some(c) = crypto(prof) {
        return Some(c);
    }
    let (reason, ns) = largest_wait(prof)?;
    let share = 100.0 * ns as f64 / prof.wall_ns as f64;
    let by = match reason {
        p::REASON_LOCK => Some(BoundBy::Lock),
        p::REASON_FUSE if b.by == BoundBy::Network => Some(BoundBy::Network),
        p::REASON_FUSE => Some(BoundBy::Daemon),
        p::REASON_DEVICE => Some(BoundBy::Device),
        p::REASON_NETWORK => Some(BoundBy::Network),
        _ => None,
    };
    let evidence = format!("{} ({})", wait_words(prof, reason, share), b.evidence);
    match by {
        Some(by) if share >= WAIT_LIMIT_PCT && ns >= own_cpu_ns(prof) => {
            Some(Bound { by, evidence })
        }
        _ if b.by == BoundBy::Unknown => Some(Bound {
            by: BoundBy::Unknown,
            evidence,
        }),
        _ => judged,
    }
}

/// `crypto` when cipher functions lead the busy samples of the threads that matter.
fn crypto(prof: &Profile) -> Option<Bound> {
    let relevant: u64 = prof
        .who
        .iter()
        .filter(|w| w.who != "other")
        .map(|w| w.samples)
        .sum();
    let cipher = prof.cipher_samples();
    let share = 100.0 * cipher as f64 / relevant.max(1) as f64;
    let (top, _) = prof
        .top_frames()
        .into_iter()
        .find(|(f, _)| p::is_cipher(f))?;
    (share >= CIPHER_LEAD_PCT).then(|| Bound {
        by: BoundBy::Crypto,
        evidence: format!(
            "cipher functions ran in {share:.0}% of the busy CPU samples (top: {top}; kernel profile)"
        ),
    })
}

/// fsbench's own on-CPU time, estimated from its samples, ns.
fn own_cpu_ns(prof: &Profile) -> u64 {
    let samples = prof
        .who
        .iter()
        .find(|w| w.who == "fsbench")
        .map_or(0, |w| w.samples);
    samples * 1_000_000_000 / prof.frequency_hz.max(1)
}

/// The largest named wait of fsbench's threads: its reason and ns (a lock's spinning counted
/// with its sleeping).
pub fn largest_wait(prof: &Profile) -> Option<(&'static str, u64)> {
    let lock_waits: u64 = prof.locks.iter().map(|l| l.wait_ns).sum();
    p::REASONS
        .iter()
        .filter(|r| ![p::REASON_OTHER, p::REASON_PREEMPTED].contains(r))
        .map(|&r| {
            let off = prof.off_cpu.get(r).copied().unwrap_or(0);
            let ns = if r == p::REASON_LOCK {
                off.max(lock_waits)
            } else {
                off
            };
            (r, ns)
        })
        .filter(|&(_, ns)| ns > 0)
        .max_by_key(|&(_, ns)| ns)
}

fn wait_words(prof: &Profile, reason: &str, share: f64) -> String {
    let mut s = format!("{reason} waits took {share:.0}% of the wall time");
    match reason {
        p::REASON_LOCK => {
            if let Some(l) = prof.locks.first() {
                s += &format!(": {}, {}", l.kind, l.caller);
            }
        }
        p::REASON_DEVICE => {
            if let Some(d) = &prof.device {
                s += &format!(
                    "; {} answered in {:.0} µs on average at queue depth {:.1}",
                    d.device,
                    d.mean_ns / 1e3,
                    d.mean_queue_depth
                );
            }
        }
        _ => {}
    }
    s + " (kernel profile)"
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::profile::{LockWait, WhoShare};

    fn profile(waits: &[(&str, u64)]) -> Profile {
        Profile {
            frequency_hz: 1000,
            wall_ns: 1_000_000_000,
            off_cpu: waits.iter().map(|(r, n)| (r.to_string(), *n)).collect(),
            who: vec![WhoShare {
                who: "fsbench".into(),
                samples: 100,
                pct: 100.0,
            }],
            ..Default::default()
        }
    }

    fn judged(by: BoundBy) -> Option<Bound> {
        Some(Bound {
            by,
            evidence: "counters".into(),
        })
    }

    #[test]
    fn the_largest_wait_decides_when_it_outweighs_the_cpu() {
        let fuse = profile(&[
            (p::REASON_FUSE, 700_000_000),
            (p::REASON_DEVICE, 50_000_000),
        ]);
        let b = refine(judged(BoundBy::Unknown), Some(&fuse)).unwrap();
        assert_eq!(b.by, BoundBy::Daemon);
        assert!(
            b.evidence.contains("FUSE round trip waits took 70%"),
            "{}",
            b.evidence
        );
        let mut lock = profile(&[(p::REASON_LOCK, 400_000_000)]);
        lock.locks.push(LockWait {
            kind: "rwsem-write".into(),
            caller: "down_write <- open_last_lookups <- path_openat".into(),
            wait_ns: 400_000_000,
            count: 9,
        });
        let b = refine(judged(BoundBy::Cpu), Some(&lock)).unwrap();
        assert_eq!(b.by, BoundBy::Lock);
        assert!(b.evidence.contains("open_last_lookups"));
        // Waits smaller than fsbench's own CPU time leave the counters' verdict.
        let small = profile(&[(p::REASON_DEVICE, 60_000_000)]);
        assert_eq!(
            refine(judged(BoundBy::Cpu), Some(&small)).unwrap().by,
            BoundBy::Cpu
        );
    }

    #[test]
    fn a_round_trip_to_a_daemon_of_a_remote_server_stays_network() {
        let fuse = profile(&[(p::REASON_FUSE, 850_000_000)]);
        let b = refine(judged(BoundBy::Network), Some(&fuse)).unwrap();
        assert_eq!(b.by, BoundBy::Network);
        assert!(
            b.evidence.starts_with("FUSE round trip waits took 85%")
                && b.evidence.contains("counters"),
            "{}",
            b.evidence
        );
        // A daemon on this host (the counters saw no server) is the daemon.
        assert_eq!(
            refine(judged(BoundBy::Unknown), Some(&fuse)).unwrap().by,
            BoundBy::Daemon
        );
    }

    #[test]
    fn unknown_gets_its_largest_wait_and_no_profile_changes_nothing() {
        let journal = profile(&[(p::REASON_JOURNAL, 900_000_000)]);
        let b = refine(judged(BoundBy::Unknown), Some(&journal)).unwrap();
        assert_eq!(b.by, BoundBy::Unknown);
        assert!(
            b.evidence.starts_with("journal waits took 90%"),
            "{}",
            b.evidence
        );
        assert_eq!(refine(judged(BoundBy::Cpu), None), judged(BoundBy::Cpu));
        assert_eq!(
            refine(judged(BoundBy::Rate), Some(&journal)),
            judged(BoundBy::Rate)
        );
    }

    #[test]
    fn cipher_functions_leading_the_profile_mean_crypto() {
        let mut prof = profile(&[(p::REASON_DEVICE, 900_000_000)]);
        prof.on_cpu.insert(
            "kworker fscrypt_read_queue;aes_xts_decrypt_vaes_avx2".into(),
            80,
        );
        prof.on_cpu.insert("fsbench;filemap_read".into(), 20);
        prof.who.push(WhoShare {
            who: "kworker fscrypt_read_queue".into(),
            samples: 80,
            pct: 80.0,
        });
        let b = refine(judged(BoundBy::Device), Some(&prof)).unwrap();
        assert_eq!(b.by, BoundBy::Crypto);
        assert!(b.evidence.contains("aes_xts_decrypt_vaes_avx2"));
    }
}
