//! What lock accounting must satisfy, checked where a sample's profile is reduced: a thread's
//! waits fit in its wall time, a lock's waits fit in the wall time of the threads that waited,
//! and the time asleep in sleeping locks' waits (mutex, rwsem, rtmutex, percpu-rwsem, semaphore)
//! is the off-CPU `lock` time within [`ASLEEP_TOLERANCE_PCT`]. Spinlock waits are on-CPU time
//! and are not compared with off-CPU time. A broken invariant becomes a note of the profile
//! (starting [`BROKEN`]), so a number that cannot be true is never shown without saying so.

use crate::pairing::Paired;
use fsbench_model::Profile;

/// How far apart the time asleep in lock waits and the off-CPU `lock` time may be, % of the
/// larger.
pub const ASLEEP_TOLERANCE_PCT: f64 = 5.0;

/// Below this difference, ns, the two are equal whatever the percentage (a single switch of a
/// thread caught in a lock's wait by the sample's start).
pub const ASLEEP_TOLERANCE_NS: u64 = 1_000_000;

/// How a broken invariant's note starts.
pub const BROKEN: &str = "lock accounting check failed:";

/// The invariants `paired` breaks for a sample of `wall_ns` whose watched threads were off the
/// CPU in `lock` for `lock_off_cpu_ns`, in words (empty when all hold).
pub fn check(paired: &Paired, lock_off_cpu_ns: u64, wall_ns: u64) -> Vec<String> {
    let mut out = Vec::new();
    if paired.max_thread_ns > wall_ns {
        out.push(format!(
            "{BROKEN} a thread waited {} ns in a sample of {wall_ns} ns",
            paired.max_thread_ns
        ));
    }
    out.extend(per_lock(&paired.waits, wall_ns));
    let (a, b) = (paired.asleep_ns, lock_off_cpu_ns);
    let diff = a.abs_diff(b);
    if diff > ASLEEP_TOLERANCE_NS && diff as f64 > ASLEEP_TOLERANCE_PCT / 100.0 * a.max(b) as f64 {
        let (a, b) = (a as f64 / 1e6, b as f64 / 1e6);
        out.push(match paired.lost_marks {
            // The begins of some sleeps were among the lost records: the gap is explained.
            0 => format!(
                "{BROKEN} threads slept {a:.1} ms in sleeping locks' waits but {b:.1} ms off the CPU in lock"
            ),
            _ => format!(
                "lock waits incomplete: records were lost, so threads slept {a:.1} ms in the lock waits seen but {b:.1} ms off the CPU in lock"
            ),
        });
    }
    out
}

/// Each lock's wait against the wall time of the threads that waited for it.
fn per_lock(waits: &[fsbench_model::profile::LockWait], wall_ns: u64) -> Vec<String> {
    waits
        .iter()
        .filter(|w| w.wait_ns > w.threads.max(1).saturating_mul(wall_ns))
        .map(|w| {
            format!(
                "{BROKEN} {} {} waited {} ns, more than its {} threads' {wall_ns} ns each",
                w.kind, w.caller, w.wait_ns, w.threads
            )
        })
        .collect()
}

/// The per-lock invariant on a cell's profile (its samples summed): the notes it breaks.
pub fn check_profile(p: &Profile) -> Vec<String> {
    per_lock(&p.locks, p.wall_ns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::profile::LockWait;

    fn wait(ns: u64, threads: u64) -> LockWait {
        LockWait {
            kind: "mutex".into(),
            caller: "fuse_lock_inode".into(),
            wait_ns: ns,
            count: 1,
            threads,
            asleep_ns: ns,
        }
    }

    #[test]
    fn waits_beyond_what_threads_can_wait_are_named() {
        let ok = Paired {
            waits: vec![wait(3_500, 4)],
            asleep_ns: 3_500,
            max_thread_ns: 1_000,
            ..Default::default()
        };
        assert!(check(&ok, 3_500, 1_000).is_empty());
        // The 1542%: one lock waited 15x the wall time with four walkers.
        let bad = Paired {
            waits: vec![wait(15_420, 4)],
            asleep_ns: 15_420,
            max_thread_ns: 3_900,
            ..Default::default()
        };
        let notes = check(&bad, 15_420, 1_000);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes.iter().all(|n| n.starts_with(BROKEN)));
    }

    #[test]
    fn time_asleep_in_locks_must_match_off_cpu_lock() {
        let p = Paired {
            asleep_ns: 243_000_000_000,
            ..Default::default()
        };
        // 243 s of lock waits against 1.75 s off-CPU lock: the case.
        let notes = check(&p, 1_750_000_000, u64::MAX);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("243000.0 ms"), "{notes:?}");
        // Within 5%, or within a millisecond, they agree.
        assert!(check(&p, 240_000_000_000, u64::MAX).is_empty());
        let small = Paired {
            asleep_ns: 900_000,
            ..Default::default()
        };
        assert!(check(&small, 0, u64::MAX).is_empty());
        // With records lost the gap is said, not called a failure.
        let lost = Paired { lost_marks: 1, ..p };
        let notes = check(&lost, 1_750_000_000, u64::MAX);
        assert!(notes[0].starts_with("lock waits incomplete"), "{notes:?}");
    }
}
