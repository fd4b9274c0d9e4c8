//! The verdict from the kernel's evidence (`--profile`), read from the cell's own work only
//! (its role; neighbours and fsbench's helpers are never an input): `crypto` when cipher
//! functions lead the cell's on-CPU samples (with kernel work tied to no device counted too on a
//! stack that encrypts: fscrypt decrypts in a shared workqueue), else the largest share of the
//! cell's thread time when it is a wait: `lock`, `daemon` (FUSE round trips), `device` or
//! `network`.
//! A FUSE round trip to a daemon that serves a remote server, where the counters found neither
//! side busy (`network`), is a round trip on the wire: the verdict stays `network`, with the wait
//! as its evidence. A cell still `unknown` gets its largest wait as its reason. Without a profile
//! the counters' verdict stands.

use fsbench_model::profile::{self as p, Profile, Role};
use fsbench_model::{Bound, BoundBy};

/// Cipher functions lead the profile from this share of the cell's busy samples.
pub const CIPHER_LEAD_PCT: f64 = 30.0;

/// What the profile's verdict needs to know of the cell besides its profile.
#[derive(Debug, Clone, Copy, Default)]
pub struct Context {
    /// Encryption on the target's stack.
    pub encrypted: bool,
    /// The cell's workers (threads or processes working at once), at least 1.
    pub workers: u32,
}

/// A wait is the limit from this share of the wall time (and when nothing else is larger).
const WAIT_LIMIT_PCT: f64 = 20.0;

/// The verdict `judged` from the counters, revised by the cell's profile.
pub fn refine(judged: Option<Bound>, profile: Option<&Profile>, ctx: Context) -> Option<Bound> {
    let (Some(b), Some(prof)) = (judged.as_ref(), profile) else {
        return judged;
    };
    if b.by == BoundBy::Rate || prof.wall_ns == 0 {
        return judged;
    }
    if let Some(c) = crypto(prof, ctx.encrypted) {
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
    let evidence = format!(
        "{} ({})",
        wait_words(prof, reason, share, ctx.workers),
        b.evidence
    );
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

/// `crypto` when cipher functions lead the cell's busy samples (and, on a stack that encrypts,
/// the kernel work tied to no device).
fn crypto(prof: &Profile, encrypted: bool) -> Option<Bound> {
    let roles: &[Role] = match encrypted {
        true => &[Role::Cell, Role::Unattributed],
        false => &[Role::Cell],
    };
    let relevant: u64 = roles.iter().map(|&r| prof.samples_of(r)).sum();
    let cipher = prof.cipher_samples_of(roles);
    let share = 100.0 * cipher as f64 / relevant.max(1) as f64;
    let top = prof.on_cpu.iter().filter(|(stack, _)| {
        let who = stack.split(';').next().unwrap_or(stack);
        roles.contains(&prof.role_of(who))
    });
    let top = top
        .filter_map(|(stack, &n)| Some((stack.rsplit(';').next()?, n)))
        .filter(|(f, _)| p::is_cipher(f))
        .max_by_key(|&(_, n)| n)?
        .0;
    let whose = match encrypted {
        true => "the cell's and unattributed kernel work's",
        false => "the cell's own",
    };
    (share >= CIPHER_LEAD_PCT).then(|| Bound {
        by: BoundBy::Crypto,
        evidence: format!(
            "cipher functions ran in {share:.0}% of {whose} busy CPU samples (top: {top}; kernel profile)"
        ),
    })
}

/// fsbench's own on-CPU time, estimated from its samples, ns.
fn own_cpu_ns(prof: &Profile) -> u64 {
    let samples = prof
        .who
        .iter()
        .find(|w| w.who == "fsbench" && w.role == Role::Cell)
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

fn wait_words(prof: &Profile, reason: &str, share: f64, workers: u32) -> String {
    let mut s = format!("{reason} waits took {share:.0}% of the wall time");
    // Summed over threads: what each of the workers waited, at most 100%.
    if workers > 1 {
        s += &format!(
            " ({:.0}% of each of {workers} workers' time)",
            share / f64::from(workers)
        );
    }
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
                role: Role::Cell,
                samples: 100,
                pct: 100.0,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    const CTX: Context = Context {
        encrypted: false,
        workers: 1,
    };

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
        let b = refine(judged(BoundBy::Unknown), Some(&fuse), CTX).unwrap();
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
            ..Default::default()
        });
        let b = refine(judged(BoundBy::Cpu), Some(&lock), CTX).unwrap();
        assert_eq!(b.by, BoundBy::Lock);
        assert!(b.evidence.contains("open_last_lookups"));
        // Waits smaller than fsbench's own CPU time leave the counters' verdict.
        let small = profile(&[(p::REASON_DEVICE, 60_000_000)]);
        assert_eq!(
            refine(judged(BoundBy::Cpu), Some(&small), CTX).unwrap().by,
            BoundBy::Cpu
        );
    }

    #[test]
    fn a_round_trip_to_a_daemon_of_a_remote_server_stays_network() {
        let fuse = profile(&[(p::REASON_FUSE, 850_000_000)]);
        let b = refine(judged(BoundBy::Network), Some(&fuse), CTX).unwrap();
        assert_eq!(b.by, BoundBy::Network);
        assert!(
            b.evidence.starts_with("FUSE round trip waits took 85%")
                && b.evidence.contains("counters"),
            "{}",
            b.evidence
        );
        // A daemon on this host (the counters saw no server) is the daemon.
        assert_eq!(
            refine(judged(BoundBy::Unknown), Some(&fuse), CTX)
                .unwrap()
                .by,
            BoundBy::Daemon
        );
    }

    #[test]
    fn unknown_gets_its_largest_wait_and_no_profile_changes_nothing() {
        let journal = profile(&[(p::REASON_JOURNAL, 900_000_000)]);
        let b = refine(judged(BoundBy::Unknown), Some(&journal), CTX).unwrap();
        assert_eq!(b.by, BoundBy::Unknown);
        assert!(
            b.evidence.starts_with("journal waits took 90%"),
            "{}",
            b.evidence
        );
        assert_eq!(
            refine(judged(BoundBy::Cpu), None, CTX),
            judged(BoundBy::Cpu)
        );
        assert_eq!(
            refine(judged(BoundBy::Rate), Some(&journal), CTX),
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
        prof.who[0].samples = 20;
        prof.who.push(WhoShare {
            who: "kworker fscrypt_read_queue".into(),
            role: Role::Unattributed,
            samples: 80,
            pct: 80.0,
            ..Default::default()
        });
        let fscrypt = Context {
            encrypted: true,
            workers: 1,
        };
        let b = refine(judged(BoundBy::Device), Some(&prof), fscrypt).unwrap();
        assert_eq!(b.by, BoundBy::Crypto);
        assert!(b.evidence.contains("aes_xts_decrypt_vaes_avx2"));
        // The same work on a stack without encryption is no one's the cell can claim.
        let b = refine(judged(BoundBy::Device), Some(&prof), CTX).unwrap();
        assert_eq!(b.by, BoundBy::Device, "{}", b.evidence);
    }

    #[test]
    fn a_neighbours_cipher_is_not_the_cells_crypto() {
        // The case: plain ext4 written while another fscrypt filesystem's writeback
        // worker encrypted 95% of the busy samples.
        let mut prof = profile(&[(p::REASON_DEVICE, 100_000_000)]);
        prof.on_cpu.insert(
            "kworker flush-7:4;fscrypt_encrypt_pagecache_blocks;aesti_encrypt".into(),
            95,
        );
        prof.on_cpu
            .insert("fsbench;ext4_buffered_write_iter".into(), 5);
        prof.who[0].samples = 5;
        prof.who.push(WhoShare {
            who: "kworker flush-7:4".into(),
            role: Role::Neighbour,
            serves: Some("loop4".into()),
            samples: 95,
            pct: 95.0,
        });
        for encrypted in [false, true] {
            let ctx = Context {
                encrypted,
                workers: 1,
            };
            let b = refine(judged(BoundBy::Cpu), Some(&prof), ctx).unwrap();
            assert_eq!(b.by, BoundBy::Cpu, "{}", b.evidence);
        }
    }

    #[test]
    fn a_wait_summed_over_workers_is_said_per_worker() {
        let fuse = profile(&[(p::REASON_FUSE, 2_940_000_000)]);
        let four = Context {
            encrypted: false,
            workers: 4,
        };
        let b = refine(judged(BoundBy::Unknown), Some(&fuse), four).unwrap();
        assert!(
            b.evidence.starts_with(
                "FUSE round trip waits took 294% of the wall time (74% of each of 4 workers' time)"
            ),
            "{}",
            b.evidence
        );
    }
}
