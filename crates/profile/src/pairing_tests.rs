//! The pairing on recorded event sequences, shaped as the kernel emits them: the mutex slow
//! path's repeated begins, a nested spinlock, a lost record, a migration between CPUs, a thread
//! exiting while it waits, a wait open at the sample's end.

use crate::invariants::BROKEN;
use crate::recording::{Event, Kind, Recording};
use crate::reduce::reduce;
use crate::who::Scope;
use fsbench_model::profile as p;

const ME: u32 = 100;
const MUTEX: u32 = 32 | 1; // LCB_F_MUTEX | LCB_F_SPIN: the optimistic spin's begin
const MUTEX_SLEEP: u32 = 32;
const SPIN: u32 = 1;
const M: u64 = 0xffff_0001;
const S: u64 = 0xffff_0002;

fn scope() -> Scope {
    Scope {
        own_pid: ME,
        ..Default::default()
    }
}

/// Frames: 0 `__mutex_lock`, 1 `fuse_lock_inode`, 2 `_raw_spin_lock`, 3 `schedule`.
fn recording(events: Vec<(u64, u32, Kind)>) -> Recording {
    Recording {
        start_ns: 0,
        end_ns: 1_000,
        frequency_hz: 1000,
        cpus: 2,
        frames: [
            "__mutex_lock",
            "fuse_lock_inode",
            "_raw_spin_lock",
            "schedule",
        ]
        .map(String::from)
        .to_vec(),
        events: events
            .into_iter()
            .map(|(t, tid, kind)| Event {
                t,
                pid: ME,
                tid,
                kind,
            })
            .collect(),
        ..Default::default()
    }
}

fn begin(flags: u32, addr: u64) -> Kind {
    let stack = if flags & 32 != 0 { vec![0, 1] } else { vec![2] };
    Kind::LockBegin { flags, addr, stack }
}

fn end(addr: u64) -> Kind {
    Kind::LockEnd { addr }
}

fn asleep() -> Kind {
    Kind::Out {
        runnable: false,
        stack: vec![3, 0, 1],
    }
}

#[test]
fn repeated_begins_are_one_wait_from_the_first_and_a_nested_spinlock_is_its_own() {
    let rec = recording(vec![
        (100, 1, begin(MUTEX, M)),       // optimistic spinning
        (150, 1, begin(SPIN, S)),        // the mutex's wait_lock
        (170, 1, end(S)),                // wait_lock taken
        (180, 1, begin(MUTEX_SLEEP, M)), // traced again before sleeping
        (200, 1, asleep()),
        (500, 1, Kind::In { next: 1 }),
        (600, 1, end(M)),
    ]);
    let prof = reduce(&rec, &scope(), None);
    let mutex = prof.locks.iter().find(|l| l.kind == "mutex").unwrap();
    // 100..600 less the 20 ns on the spinlock: one wait, not two.
    assert_eq!((mutex.wait_ns, mutex.count, mutex.threads), (480, 1, 1));
    assert_eq!(mutex.asleep_ns, 300);
    let spin = prof.locks.iter().find(|l| l.kind == "spinlock").unwrap();
    assert_eq!((spin.wait_ns, spin.asleep_ns), (20, 0));
    assert!(spin.spins() && !mutex.spins());
    assert_eq!(prof.off_cpu.get(p::REASON_LOCK), Some(&300));
    assert!(prof.lock_drops.is_empty(), "{:?}", prof.lock_drops);
    assert!(prof.notes.is_empty(), "{:?}", prof.notes);
}

#[test]
fn a_lost_record_drops_the_open_wait_instead_of_stretching_it() {
    let rec = recording(vec![
        (100, 1, begin(MUTEX, M)),
        (200, 0, Kind::Lost), // the end was among the lost records
        (700, 1, begin(MUTEX, M)),
        (750, 1, end(M)),
        (800, 1, end(M)), // a second end: its begin was lost
    ]);
    let prof = reduce(&rec, &scope(), None);
    assert_eq!(prof.locks.len(), 1);
    assert_eq!((prof.locks[0].wait_ns, prof.locks[0].count), (50, 1));
    assert_eq!(prof.lock_drops.lost, 1);
    assert_eq!(prof.lock_drops.unmatched_ends, 1);
    assert!(
        prof.notes.iter().any(|n| n.starts_with(p::LOCK_DROPS_NOTE)),
        "{:?}",
        prof.notes
    );
}

#[test]
fn a_wait_that_migrates_between_cpus_pairs_once_the_buffers_are_ordered() {
    // Drained buffer by buffer: CPU 1's end comes out before CPU 0's begin.
    let mut rec = recording(vec![
        (400, 1, end(M)),
        (900, 2, end(M)),
        (100, 1, begin(MUTEX_SLEEP, M)),
        (300, 2, begin(MUTEX_SLEEP, M)),
    ]);
    Recording::order(&mut rec.events, rec.start_ns, rec.end_ns);
    let prof = reduce(&rec, &scope(), None);
    let w = &prof.locks[0];
    assert_eq!((w.wait_ns, w.count, w.threads), (300 + 600, 2, 2));
    assert!(prof.lock_drops.is_empty(), "{:?}", prof.lock_drops);
}

#[test]
fn a_thread_that_exits_while_waiting_and_a_wait_open_at_the_end_are_dropped() {
    let rec = recording(vec![
        (100, 1, begin(MUTEX_SLEEP, M)),
        (200, 1, Kind::Exit),
        (300, 1, end(M)), // a new thread given the same id: not the old wait's end
        (400, 2, begin(MUTEX_SLEEP, M)),
    ]);
    let prof = reduce(&rec, &scope(), None);
    assert!(prof.locks.is_empty(), "{:?}", prof.locks);
    let d = prof.lock_drops;
    assert_eq!((d.exited, d.open_at_end, d.unmatched_ends), (1, 1, 1));
}

#[test]
fn a_wait_spun_and_preempted_is_on_cpu_and_a_sleep_outside_a_traced_wait_is_named() {
    let preempted = Kind::Out {
        runnable: true,
        stack: vec![2],
    };
    let rec = recording(vec![
        (100, 1, begin(SPIN, S)),
        (150, 1, preempted),
        (250, 1, Kind::In { next: 1 }),
        (300, 1, end(S)),
        // Asleep in a mutex with no begin seen: off-CPU lock the waits cannot account for.
        (400, 2, asleep()),
        (900, 2, Kind::In { next: 2 }),
    ]);
    let prof = reduce(&rec, &scope(), None);
    assert_eq!((prof.locks[0].wait_ns, prof.locks[0].asleep_ns), (200, 0));
    assert_eq!(prof.off_cpu.get(p::REASON_PREEMPTED), Some(&100));
    let broken: Vec<&String> = prof
        .notes
        .iter()
        .filter(|n| n.starts_with(BROKEN))
        .collect();
    assert!(broken.is_empty(), "{broken:?}");
    let mut long = rec.clone();
    long.end_ns = 10_000_000;
    for e in &mut long.events {
        e.t *= 10_000;
    }
    let prof = reduce(&long, &scope(), None);
    assert!(
        prof.notes
            .iter()
            .any(|n| n.starts_with(BROKEN) && n.contains("slept 0.0 ms")),
        "{:?}",
        prof.notes
    );
}

/// A replay's calls get the off-CPU time and lock waits of their thread while they ran: a
/// `getdents` call 150..650 sleeps on the mutex 200..500; an `lstat` 700..900 is off the CPU
/// from 800 to the sample's end (1,000); nothing between calls is a call's.
#[test]
fn a_replays_calls_get_their_threads_waits_while_they_ran() {
    let rec = recording(vec![
        (180, 1, begin(MUTEX_SLEEP, M)),
        (200, 1, asleep()),
        (500, 1, Kind::In { next: 1 }),
        (600, 1, end(M)),
        (800, 1, asleep()),
    ]);
    let mut windows = fsbench_model::calls::CallWindows {
        kinds: vec!["getdents".into(), "lstat".into()],
        ..Default::default()
    };
    windows.by_tid.insert(1, vec![(150, 650, 0), (700, 900, 1)]);
    let prof = reduce(&rec, &scope(), Some(&windows));
    let getdents = &prof.by_call["getdents"];
    assert_eq!(getdents.off_cpu.get(p::REASON_LOCK), Some(&300));
    let lock = getdents.locks.iter().next().expect("the mutex wait");
    assert!(lock.0.starts_with("mutex: "), "{lock:?}");
    assert_eq!(*lock.1, 420);
    // Off the CPU 800..1,000: only 800..900 was in the lstat.
    let lstat = &prof.by_call["lstat"];
    assert_eq!(lstat.off_cpu.values().sum::<u64>(), 100);
    assert!(reduce(&rec, &scope(), None).by_call.is_empty());
}
