//! One replay thread: its calls made in order, each after the calls it waits for and (paced)
//! after its recorded gap, timed one by one, and checked against the recorded result.
//!
//! Between two calls a thread does nothing but the wait its order and pace ask for.

use super::{Shared, WAIT_SLICE};
use crate::{Recorder, WorkloadError};
use fsbench_sys::cancel::CancelToken;
use fsbench_trace::model::{Call, Op};
use rustix::fs::{Mode, OFlags};
use std::collections::BTreeMap;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// What one thread's calls came to.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Calls whose result differed from the recorded one.
    pub diverged: u64,
    /// Of those, by kind.
    pub by_kind: BTreeMap<&'static str, u64>,
    /// The first few, in words.
    pub named: Vec<String>,
    /// Each call's start, end (ns since the replay started) and bytes: how concurrent the
    /// replay was, and (with several threads) what the sample records.
    pub spans: Vec<super::jobs::Span>,
    /// The mappings its calls made, unmapped when the sample is over.
    pub maps: super::calls::Mappings,
    /// With `calls=off`: the calls made and the bytes they moved (no spans).
    pub untimed: (u64, u64),
}

impl Outcome {
    /// Adds `o`'s counts (and its first divergences, up to three).
    pub fn add(&mut self, mut o: Outcome) {
        self.maps.take(&mut o.maps);
        self.diverged += o.diverged;
        for (k, n) in o.by_kind {
            *self.by_kind.entry(k).or_default() += n;
        }
        for n in o.named {
            if self.named.len() < 3 {
                self.named.push(n);
            }
        }
        self.spans.extend(o.spans);
        self.untimed.0 += o.untimed.0;
        self.untimed.1 += o.untimed.1;
    }
}

/// The replay root's descriptor, from which every path is looked up.
pub fn open_root(root: &Path) -> Result<OwnedFd, WorkloadError> {
    rustix::fs::open(
        root,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| WorkloadError::io("open", root, e.into()))
}

/// Closes a descriptor the replay opened.
pub fn close(fd: i32) {
    // SAFETY: `fd` was opened by this replay and taken out of its table, so nothing else
    // closes or uses it.
    #[allow(unsafe_code)]
    drop(unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
}

/// A descriptor of the replay's table, borrowed for one call.
pub(super) fn borrowed(fd: i32) -> BorrowedFd<'static> {
    // SAFETY: the descriptor stays open until the call that closes it, which the order places
    // after every call on the same file (resource and strict orders; under `order=thread` a
    // racing close makes the call fail with EBADF, counted as a divergence).
    #[allow(unsafe_code)]
    unsafe {
        BorrowedFd::borrow_raw(fd)
    }
}

/// Makes thread `t`'s calls; `start` is the replay's start, from which a paced thread's first
/// call keeps its recorded offset.
pub fn run_thread(
    shared: &Shared,
    t: usize,
    start: Instant,
    cancel: &CancelToken,
    rec: &mut dyn Recorder,
) -> Result<Outcome, WorkloadError> {
    let plan = &shared.plan;
    let mut out = Outcome {
        spans: Vec::with_capacity(if shared.timed {
            plan.threads[t].len()
        } else {
            0
        }),
        ..Outcome::default()
    };
    let mut bufs = super::calls::Buffers::default();
    // Paced, a sleep ends within µs of its time (not up to the default 50 µs slack later, on
    // every gap), so the spin before each call stays short.
    let _slack = shared
        .speed
        .is_some()
        .then(fsbench_io::pace::SlackGuard::lower);
    let mut prev_end = start;
    let tid = rustix::thread::gettid().as_raw_nonzero().get() as u32;
    // The recorder's clock when the replay started: every thread's spans on one time line.
    let origin = rec
        .now_ns()
        .saturating_sub(start.elapsed().as_nanos() as u64);
    for (n, &ci) in plan.threads[t].iter().enumerate() {
        if n % 64 == 0 {
            cancel.check()?;
        }
        for &d in &plan.deps[ci as usize] {
            wait_for(&shared.done[d as usize], cancel)?;
        }
        if let Some(speed) = shared.speed {
            let gap = plan.gap_ns[ci as usize] as f64 / speed;
            // After a join (or a thread's start), the program's time runs from when what it
            // waited for was done.
            let from = if plan.after_waits[ci as usize] {
                prev_end.max(Instant::now())
            } else {
                prev_end
            };
            wait_until(from + Duration::from_nanos(gap as u64), cancel)?;
        }
        let call = &shared.trace.calls[ci as usize];
        let result = if shared.timed {
            let t0 = rec.now_ns();
            let (result, bytes) = super::calls::make(shared, ci, call, &mut bufs);
            let t1 = rec.op_done(t0, bytes);
            out.spans.push(super::jobs::Span {
                call: ci,
                tid,
                failed: result < 0,
                start: t0.saturating_sub(origin),
                end: t1.saturating_sub(origin),
                bytes,
            });
            result
        } else {
            let (result, bytes) = super::calls::make(shared, ci, call, &mut bufs);
            out.untimed.0 += 1;
            out.untimed.1 += bytes;
            result
        };
        if shared.speed.is_some() {
            prev_end = Instant::now();
        }
        if let Some(why) = diverged(call, result) {
            out.diverged += 1;
            *out.by_kind.entry(call.op.kind()).or_default() += 1;
            if out.named.len() < 3 {
                out.named.push(format!(
                    "{} {}",
                    fsbench_trace::listing::line(&shared.trace, ci as usize)
                        .split_whitespace()
                        .skip(3)
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(" "),
                    why
                ));
            }
        }
        mark_done(&shared.done[ci as usize]);
    }
    out.maps.take(&mut bufs.maps);
    Ok(out)
}

/// A call not made yet, no thread asleep waiting for it.
pub(crate) const PENDING: u32 = 0;
/// A call not made yet, a thread asleep on it (its maker must wake it).
const SLEEPER: u32 = 1;
/// A call made.
const DONE: u32 = 2;

/// How long a waiting thread yields its CPU before it sleeps. The yields keep short handoffs
/// fast: a thread that sleeps on a futex takes 30 µs or more to wake on a virtual machine's
/// idle CPU (measured here: a build's replay, one handoff between its processes after another,
/// ran 4-5× longer as fast as possible with every wait asleep). Past it the thread sleeps: a
/// waiting thread that yields forever takes CPU time that the program's own blocked thread
/// never took, and a FUSE daemon that needs it (gocryptfs decrypting names, cold) then
/// answered the replay's calls later than the program's.
const YIELD_FOR: Duration = Duration::from_micros(500);

/// Marks a call made, waking the threads asleep on it.
fn mark_done(flag: &AtomicU32) {
    if flag.swap(DONE, Ordering::Release) == SLEEPER {
        let _ = rustix::thread::futex::wake(flag, rustix::thread::futex::Flags::PRIVATE, u32::MAX);
    }
}

/// Waits until a call is made: spins briefly, yields for [`YIELD_FOR`], then sleeps on the
/// flag, looking at `cancel` every slice.
fn wait_for(flag: &AtomicU32, cancel: &CancelToken) -> Result<(), WorkloadError> {
    let mut spins = 0u32;
    let began = Instant::now();
    let mut slice = began;
    loop {
        let state = flag.load(Ordering::Acquire);
        if state == DONE {
            return Ok(());
        }
        spins += 1;
        if spins < 100 {
            std::hint::spin_loop();
            continue;
        }
        if slice.elapsed() > WAIT_SLICE {
            cancel.check()?;
            slice = Instant::now();
        }
        if began.elapsed() < YIELD_FOR {
            std::thread::yield_now();
            continue;
        }
        // Asleep until the maker sees SLEEPER and wakes every sleeper on the flag, or the
        // slice ends (to look at `cancel`). A changed flag (made meanwhile) returns at once.
        if state == PENDING
            && flag
                .compare_exchange(PENDING, SLEEPER, Ordering::Acquire, Ordering::Acquire)
                .is_err()
        {
            continue;
        }
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: WAIT_SLICE.as_nanos() as i64,
        };
        let _ = rustix::thread::futex::wait(
            flag,
            rustix::thread::futex::Flags::PRIVATE,
            SLEEPER,
            Some(&timeout),
        );
    }
}

/// Waits until `due`: sleeps while more than 100 µs are left, then spins.
fn wait_until(due: Instant, cancel: &CancelToken) -> Result<(), WorkloadError> {
    loop {
        let now = Instant::now();
        if now >= due {
            return Ok(());
        }
        let left = due - now;
        if left > Duration::from_micros(100) {
            std::thread::sleep((left - Duration::from_micros(100)).min(WAIT_SLICE));
            cancel.check()?;
        } else {
            std::hint::spin_loop();
        }
    }
}

/// How the replayed result differs from the recorded one, in words; `None` when it does not.
fn diverged(call: &Call, result: i64) -> Option<String> {
    let name = |r: i64| fsbench_trace::listing::errno_name(-r);
    match (call.result < 0, result < 0) {
        (false, true) => Some(format!("{} where it succeeded", name(result))),
        (true, false) => Some(format!(
            "succeeded where it failed with {}",
            name(call.result)
        )),
        (true, true) if call.result != result => Some(format!(
            "{} where it failed with {}",
            name(result),
            name(call.result)
        )),
        (false, false) => match call.op {
            // Sizes: a directory's entries come in batches of the filesystem's choosing, and a
            // symlink's target is confined to the replay's root.
            Op::Read { .. } | Op::Write { .. } if result != call.result => {
                Some(format!("{result} bytes where {}", call.result))
            }
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_wait_sleeps_and_the_maker_wakes_it() {
        let flag = std::sync::Arc::new(AtomicU32::new(PENDING));
        let cancel = CancelToken::new();
        let waiter = {
            let (flag, cancel) = (flag.clone(), cancel.clone());
            std::thread::spawn(move || wait_for(&flag, &cancel))
        };
        // Past its yielding the waiter says it sleeps (a waiter that yielded forever never
        // would); a liveness bound only, whatever the machine's speed.
        let began = Instant::now();
        while flag.load(Ordering::Acquire) != SLEEPER {
            assert!(began.elapsed() < Duration::from_secs(60), "never slept");
            std::thread::sleep(Duration::from_millis(1));
        }
        mark_done(&flag);
        waiter.join().unwrap().unwrap();
        assert_eq!(flag.load(Ordering::Acquire), DONE);
        // A call made before anyone waits is not waited for.
        wait_for(&flag, &cancel).unwrap();
    }

    #[test]
    fn a_sleeping_wait_ends_on_cancel() {
        let flag = AtomicU32::new(PENDING);
        let cancel = CancelToken::new();
        std::thread::scope(|s| {
            let w = s.spawn(|| wait_for(&flag, &cancel));
            let began = Instant::now();
            while flag.load(Ordering::Acquire) != SLEEPER {
                assert!(began.elapsed() < Duration::from_secs(60), "never slept");
                std::thread::sleep(Duration::from_millis(1));
            }
            cancel.cancel();
            assert!(w.join().unwrap().is_err(), "a cancelled wait fails");
        });
    }
}
