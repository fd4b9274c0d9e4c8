//! How a trace is replayed: which calls, by which replay thread, each after which others, and
//! when (pure). One replay thread per recorded thread that made a replayed call: every call
//! under the root and, outside it, those the caller says ([`crate::outside::replayable`]: the
//! read-only calls on files still as recorded); a call not replayed keeps its time in the gaps
//! a paced replay keeps.
//!
//! Orders (`order=`):
//! - `resource` (ROOT's rule, the default): a call waits for the last earlier call on the same
//!   open file; for the last earlier call that changed its path (a call on an open file is one
//!   on the path it was opened by), and, when it changes the path itself, for every earlier
//!   call that only looked at it since (two calls that only look at a path, such as two
//!   threads' `lstat`, need no order); for the last earlier call that made, removed or renamed
//!   one of its path's directories; and (when it removes or renames a directory) for the last
//!   earlier call below it. Everything else runs concurrently. Outside the root, where only
//!   reads of files nothing in the trace changes are replayed, a call waits only for the open
//!   that made its file.
//! - `thread`: each thread keeps its own order, and threads do not wait for each other.
//! - `strict`: every call waits for the one recorded before it.

use crate::model::{Op, Trace};
use std::collections::HashMap;

/// Which calls wait for which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Calls on the same resource in their recorded order; the rest concurrently.
    Resource,
    /// Each thread in its own order only.
    Thread,
    /// All calls in their recorded order.
    Strict,
}

/// The replay's schedule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Per replay thread, its calls (indices into `Trace::calls`) in order.
    pub threads: Vec<Vec<u32>>,
    /// Per call (index into `Trace::calls`), the calls on other threads it waits for.
    pub deps: Vec<Vec<u32>>,
    /// Per call, ns to keep before it when paced as recorded: after the thread's previous
    /// replayed call ended (for a thread's first call, after the replay started), tracing's cost
    /// taken out.
    pub gap_ns: Vec<u64>,
    /// Per call, whether its gap counts from when what it waits for is done rather than from
    /// its thread's previous call: a call after a join, or a thread's first call (the thread
    /// began when the calls it waits for had ended; its gap is what it ran from then).
    pub after_waits: Vec<bool>,
}

impl Plan {
    /// Calls replayed.
    pub fn calls(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }
}

/// The plan for `trace` in `order` replaying the calls under its root only; `overhead_ns` is
/// what tracing added to each traced call, for a trace without the threads' own clocks (see
/// [`crate::pace::gaps`]).
pub fn plan(trace: &Trace, order: Order, overhead_ns: u64) -> Plan {
    plan_replaying(trace, order, overhead_ns, &inside(trace))
}

/// Per call, whether it is under the root.
pub fn inside(trace: &Trace) -> Vec<bool> {
    trace.calls.iter().map(|c| !c.outside).collect()
}

/// The plan for `trace` in `order` making the calls `replayed` says (one flag per call; every
/// call under the root must be one).
pub fn plan_replaying(trace: &Trace, order: Order, overhead_ns: u64, replayed: &[bool]) -> Plan {
    let n = trace.calls.len();
    let mut by_thread: HashMap<u32, usize> = HashMap::new();
    let mut threads: Vec<Vec<u32>> = Vec::new();
    for (i, c) in trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]) {
        let t = *by_thread.entry(c.thread).or_insert_with(|| {
            threads.push(Vec::new());
            threads.len() - 1
        });
        threads[t].push(i as u32);
    }
    let (gap_ns, waits) = crate::pace::gaps(trace, overhead_ns, replayed);
    let mut deps = match order {
        Order::Thread => vec![Vec::new(); n],
        Order::Strict => strict(trace, replayed),
        Order::Resource => resource(trace, replayed),
    };
    let mut after_waits = vec![false; n];
    if order == Order::Resource {
        let ends = ends_by_thread(trace, replayed);
        let first: std::collections::HashSet<u32> = threads.iter().map(|t| t[0]).collect();
        // Per replayed call, when its thread's previous replayed call ended.
        let mut from_of: HashMap<u32, u64> = HashMap::new();
        for t in &threads {
            for w in t.windows(2) {
                let p = &trace.calls[w[0] as usize];
                from_of.insert(w[1], p.start_ns + p.dur_ns);
            }
        }
        for (i, after) in waits {
            let me = trace.calls[i as usize].thread;
            let from = from_of.get(&i).copied().unwrap_or(0);
            // A wait ended by other threads' exits (a join, a parent's wait for its child) is
            // for them: for their last calls, not for the progress that threads still running
            // had made by then (a build's concurrent compiler, unrelated, would hold it back).
            let mut exited = exits_within(&ends, me, from, after);
            let candidates = if exited.is_empty() {
                ended_by(&ends, me, after)
            } else {
                // Of a trace that says who made each process (format 4), a wait within a
                // thread's calls ends with the exits of its own process's threads and of the
                // processes it made, directly or not; another job's process that ended
                // meanwhile did not end it (a build's cc waits for its own compiler, not for
                // the other job's assembler).
                if let Some(family) = trace.family_of(me).filter(|_| !first.contains(&i)) {
                    exited.retain(|&c| family[trace.calls[c as usize].thread as usize]);
                }
                exited
            };
            // A thread's start waits for the thread that made it: of a thread (not a process),
            // its process's first thread, which makes a program's threads; not for the other
            // threads' progress, which tracing distorts (a worker made last began 70 ms after
            // the first under the tracer, when its siblings had made most of their calls).
            let maker = first.contains(&i).then(|| leader_of(trace, me)).flatten();
            let d = &mut deps[i as usize];
            d.extend(
                candidates
                    .into_iter()
                    .filter(|&c| maker.is_none_or(|m| trace.calls[c as usize].thread == m)),
            );
            d.sort_unstable();
            d.dedup();
            after_waits[i as usize] = true;
        }
    }
    Plan {
        threads,
        deps,
        gap_ns,
        after_waits,
    }
}

/// The first thread of `thread`'s process when `thread` is another of its threads (a thread,
/// not a process), as the trace's thread index.
fn leader_of(trace: &Trace, thread: u32) -> Option<u32> {
    let me = trace.threads.get(thread as usize)?;
    if me.tid == me.pid {
        return None;
    }
    trace
        .threads
        .iter()
        .position(|t| t.tid == me.pid)
        .map(|i| i as u32)
}

/// Each thread's replayed calls as (end, index), by end: for [`ended_by`].
fn ends_by_thread(trace: &Trace, replayed: &[bool]) -> HashMap<u32, Vec<(u64, u32)>> {
    let mut ends: HashMap<u32, Vec<(u64, u32)>> = HashMap::new();
    for (i, c) in trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]) {
        ends.entry(c.thread)
            .or_default()
            .push((c.start_ns + c.dur_ns, i as u32));
    }
    for v in ends.values_mut() {
        v.sort_unstable();
    }
    ends
}

/// The last replayed calls of the threads other than `me` whose last call ended in (`from`,
/// `to`]: the threads that were done in that stretch.
fn exits_within(ends: &HashMap<u32, Vec<(u64, u32)>>, me: u32, from: u64, to: u64) -> Vec<u32> {
    ends.iter()
        .filter(|(t, _)| **t != me)
        .filter_map(|(_, v)| v.last())
        .filter(|&&(end, _)| end > from && end <= to)
        .map(|&(_, c)| c)
        .collect()
}

/// Per other thread than `me`, its last replayed call that had ended by `at` (recorded ns).
fn ended_by(ends: &HashMap<u32, Vec<(u64, u32)>>, me: u32, at: u64) -> Vec<u32> {
    ends.iter()
        .filter(|(t, _)| **t != me)
        .filter_map(|(_, v)| {
            let k = v.partition_point(|&(end, _)| end <= at);
            k.checked_sub(1).map(|k| v[k].1)
        })
        .collect()
}

fn strict(trace: &Trace, replayed: &[bool]) -> Vec<Vec<u32>> {
    let mut deps = vec![Vec::new(); trace.calls.len()];
    let mut prev: Option<usize> = None;
    for (i, c) in trace.calls.iter().enumerate().filter(|(i, _)| replayed[*i]) {
        if let Some(p) = prev {
            if trace.calls[p].thread != c.thread {
                deps[i].push(p as u32);
            }
        }
        prev = Some(i);
    }
    deps
}

/// Whether a call changes which names exist.
fn changes_names(op: &Op) -> bool {
    matches!(
        op,
        Op::Mkdir { .. }
            | Op::Rmdir { .. }
            | Op::Unlink { .. }
            | Op::Rename { .. }
            | Op::Link { .. }
            | Op::Symlink { .. }
    ) || matches!(op, Op::Open { flags, .. } if *flags as i32 & libc::O_CREAT != 0)
}

/// The directories of `p`: under the root, from the top down, then the root itself (`""`);
/// outside it (an absolute path), from `/usr` on, never the replay's root.
fn ancestors(p: &[u8]) -> impl Iterator<Item = &[u8]> {
    let absolute = p.first() == Some(&b'/');
    p.iter()
        .enumerate()
        .filter(move |&(i, &b)| b == b'/' && !(absolute && i == 0))
        .map(move |(i, _)| &p[..i])
        .chain(std::iter::once(&p[..0]).filter(move |_| !p.is_empty() && !absolute))
}

fn resource(trace: &Trace, replayed: &[bool]) -> Vec<Vec<u32>> {
    let n = trace.calls.len();
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); n];
    // The last call on each path that changed it, and each thread's last call on it since
    // (those that only look: two of them need no order); the last call on each open file, that
    // changed names at each path, and below each directory.
    let mut changed_path: HashMap<u32, u32> = HashMap::new();
    let mut looked: HashMap<u32, HashMap<u32, u32>> = HashMap::new();
    let mut on_file: HashMap<u32, u32> = HashMap::new();
    let mut changed: HashMap<&[u8], u32> = HashMap::new();
    let mut below: HashMap<&[u8], u32> = HashMap::new();
    for (i, c) in trace.calls.iter().enumerate() {
        if !replayed[i] {
            continue;
        }
        let i = i as u32;
        let mut want = Vec::new();
        if let Some(f) = c.op.file() {
            want.extend(on_file.get(&f));
            // The open that made the file.
            want.push(f);
            on_file.insert(f, i);
        }
        if c.outside {
            // A read of a file outside the root that nothing in the trace changes (the only
            // kind replayed there): in no order with other threads' calls on it, but after the
            // open that made its file.
            deps[i as usize] = want
                .into_iter()
                .filter(|&d| trace.calls[d as usize].thread != c.thread)
                .collect();
            continue;
        }
        let removes_dir = matches!(c.op, Op::Rmdir { .. } | Op::Rename { .. });
        // A call on an open file is a call on the file it names: a read through one open
        // follows a write through another.
        let mut paths = c.op.paths();
        if let Some(Op::Open { path, .. }) = c.op.file().map(|f| &trace.calls[f as usize].op) {
            paths.push(*path);
        }
        let changes = c.op.changes_files(0) || matches!(c.op, Op::Sync { .. });
        for p in paths {
            let path = trace.paths[p as usize].as_slice();
            want.extend(changed_path.get(&p));
            if changes {
                // After every thread's look at it since the last change.
                want.extend(looked.remove(&p).into_iter().flat_map(|m| m.into_values()));
                changed_path.insert(p, i);
            } else {
                looked.entry(p).or_default().insert(c.thread, i);
            }
            for a in ancestors(path) {
                want.extend(changed.get(a));
            }
            if removes_dir {
                want.extend(below.get(path));
            }
            if changes_names(&c.op) {
                changed.insert(path, i);
            }
            for a in ancestors(path) {
                below.insert(a, i);
            }
        }
        let me = c.thread;
        let mut w: Vec<u32> = want
            .into_iter()
            .filter(|&d| d != i && trace.calls[d as usize].thread != me)
            .collect();
        w.sort_unstable();
        w.dedup();
        deps[i as usize] = w;
    }
    deps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, Spent, StopCost, Target, Thread};
    use crate::pace::WAITED_NS;

    fn call(thread: u32, start_ns: u64, op: Op) -> Call {
        Call {
            thread,
            start_ns,
            dur_ns: 10,
            op,
            result: 0,
            outside: false,
            before: None,
            during: None,
            hidden: 0,
        }
    }

    fn two_threads() -> Trace {
        Trace {
            threads: vec![
                Thread {
                    tid: 1,
                    pid: 1,
                    begun_ns: 0,
                },
                Thread {
                    tid: 2,
                    pid: 1,
                    begun_ns: 0,
                },
            ],
            paths: vec![b"d".to_vec(), b"d/f".to_vec(), b"g".to_vec()],
            calls: vec![
                call(
                    0,
                    0,
                    Op::Mkdir {
                        path: 0,
                        mode: 0o755,
                    },
                ),
                call(
                    1,
                    100,
                    Op::Open {
                        path: 1,
                        flags: libc::O_CREAT as u32 | 1,
                        mode: 0o644,
                    },
                ),
                call(
                    1,
                    200,
                    Op::Write {
                        file: 1,
                        offset: None,
                        size: 5,
                    },
                ),
                call(
                    0,
                    300,
                    Op::Stat {
                        target: Target::Path(2),
                        nofollow: false,
                    },
                ),
                call(
                    0,
                    400,
                    Op::Read {
                        file: 1,
                        offset: Some(0),
                        size: 5,
                    },
                ),
                call(0, 500, Op::Unlink { path: 1 }),
            ],
            ..Trace::default()
        }
    }

    #[test]
    fn resource_order_keeps_one_file_and_its_directory_in_order_across_threads() {
        let p = plan(&two_threads(), Order::Resource, 0);
        assert_eq!(p.threads, vec![vec![0, 3, 4, 5], vec![1, 2]]);
        // The creation in d waits for d's mkdir; the other thread's read of the file waits for
        // its write; the unrelated stat waits for nothing.
        assert_eq!(p.deps[1], vec![0]);
        assert_eq!(p.deps[3], Vec::<u32>::new());
        assert_eq!(p.deps[4], vec![1, 2]);
        // The unlink after the file's last change (already waited for by its own thread's read).
        assert_eq!(p.deps[5], vec![2]);
    }

    #[test]
    fn calls_that_only_look_at_a_path_need_no_order_but_a_change_waits_for_them() {
        let mut t = two_threads();
        let stat = |thread, at| {
            call(
                thread,
                at,
                Op::Stat {
                    target: Target::Path(2),
                    nofollow: false,
                },
            )
        };
        t.calls = vec![
            stat(0, 0),
            stat(1, 10),
            stat(0, 20),
            call(1, 30, Op::Unlink { path: 2 }),
            stat(0, 40),
        ];
        let p = plan(&t, Order::Resource, 0);
        assert_eq!(p.deps[1], Vec::<u32>::new(), "two lstats of one path");
        assert_eq!(
            p.deps[3],
            vec![2],
            "the unlink after the other thread's last look"
        );
        assert_eq!(p.deps[4], vec![3], "and the next look after the unlink");
    }

    #[test]
    fn thread_order_waits_for_nothing_and_strict_for_the_call_before() {
        let t = two_threads();
        assert!(plan(&t, Order::Thread, 0).deps.iter().all(Vec::is_empty));
        let s = plan(&t, Order::Strict, 0);
        assert_eq!(s.deps[1], vec![0]);
        assert_eq!(s.deps[2], Vec::<u32>::new(), "same thread: its own order");
        assert_eq!(s.deps[3], vec![2]);
    }

    #[test]
    fn gaps_are_kept_per_thread_less_tracing_for_each_call_started_within_them() {
        let mut t = two_threads();
        t.calls.insert(
            4,
            Call {
                outside: true,
                ..call(0, 350, Op::Mkdir { path: 2, mode: 0 })
            },
        );
        // Indices shift by one after 4: the read is now 5.
        let p = plan(&t, Order::Thread, 20);
        assert_eq!(p.gap_ns[0], 0);
        // The stat waited 290 ns after the mkdir, while thread 1's open and write started too:
        // three stops of the one tracer.
        assert_eq!(p.gap_ns[3], 300 - 10 - 3 * 20);
        // The read follows the stat (ended at 310) across one outside call: two traced calls.
        assert_eq!(p.gap_ns[5], 400 - 310 - 2 * 20);
        // Thread 1's write: 100 ns after its open ended (110), one call started within.
        assert_eq!(p.gap_ns[2], 200 - 110 - 20);
        assert_eq!(p.calls(), 6);
        // Replayed too (a read-only call outside the root still as recorded): its time is
        // made, not kept, so the read's gap counts from its end (360).
        let mut replayed = inside(&t);
        replayed[4] = true;
        let p = plan_replaying(&t, Order::Thread, 20, &replayed);
        assert_eq!(p.calls(), 7);
        assert_eq!(p.gap_ns[4], 350 - 310 - 20);
        assert_eq!(p.gap_ns[5], 400 - 360 - 20);
    }

    #[test]
    fn an_absolute_path_outside_the_root_is_not_below_the_root() {
        assert_eq!(
            ancestors(b"/usr/lib/x").collect::<Vec<_>>(),
            [b"/usr".as_slice(), b"/usr/lib"]
        );
        assert_eq!(
            ancestors(b"d/f").collect::<Vec<_>>(),
            [b"d".as_slice(), b""]
        );
    }

    fn clocked(c: Call, cpu_ns: u64, off_ns: u64) -> Call {
        Call {
            // A long wait blocked once (a second arrival); the rest only stopped.
            before: Some(Spent {
                cpu_ns,
                off_ns,
                arrivals: if off_ns > 0 { 2 } else { 1 },
            }),
            during: Some(Spent {
                cpu_ns: 10,
                off_ns: 0,
                arrivals: 1,
            }),
            ..c
        }
    }

    /// Two threads: 0 stats "g" three times, the last after waiting (off-CPU) 5 ms; 1 begins
    /// at 150 and stats "d" twice. Each stop costs 100 ns of CPU in the gap, 10 in the call.
    fn joined(wait_off_ns: u64, other_starts: u64) -> Trace {
        let stat = |p| Op::Stat {
            target: Target::Path(p),
            nofollow: false,
        };
        Trace {
            threads: vec![
                Thread {
                    tid: 1,
                    pid: 1,
                    begun_ns: 0,
                },
                Thread {
                    tid: 2,
                    pid: 1,
                    begun_ns: 150,
                },
            ],
            paths: vec![b"d".to_vec(), b"g".to_vec()],
            calls: vec![
                clocked(call(0, 100, stat(1)), 1100, 0),
                clocked(call(1, 200, stat(0)), 100, 0),
                clocked(call(0, 300, stat(1)), 2100, 0),
                clocked(call(1, other_starts, stat(0)), 100, 0),
                clocked(call(0, 10_000_000, stat(1)), 100, wait_off_ns),
            ],
            stop_cost: Some(StopCost {
                gap_cpu_ns: 100,
                gap_off_ns: 0,
                call_cpu_ns: 0,
                call_off_ns: 0,
            }),
            ..Trace::default()
        }
    }

    #[test]
    fn a_long_wait_while_other_threads_made_calls_waits_for_their_calls() {
        // Thread 0's last stat waited 5 ms while thread 1 made its calls, the last ending just
        // before it: it waits for that call (3), and the wait is not kept as time; thread 1's
        // first call waits for what had ended when it began (thread 0's first stat).
        let p = plan(&joined(5_000_000, 9_999_000), Order::Resource, 0);
        assert_eq!(p.deps[4], vec![3]);
        assert_eq!(p.deps[1], vec![0]);
        assert_eq!(p.gap_ns[4], 0);
        // Their gaps count from when what they waited for was done.
        assert_eq!(p.after_waits, vec![false, true, false, false, true]);
        // Under order=thread nothing waits across threads.
        assert!(
            plan(&joined(5_000_000, 9_999_000), Order::Thread, 0)
                .deps
                .iter()
                .all(Vec::is_empty)
        );
        // A short wait is the tracer's, not the program's.
        assert_eq!(
            plan(&joined(WAITED_NS / 2, 9_999_000), Order::Resource, 0).deps[4],
            vec![]
        );
        // So is a long one in which the thread never blocked: it queued for the tracer.
        let mut queued = joined(5_000_000, 9_999_000);
        if let Some(b) = &mut queued.calls[4].before {
            b.arrivals = 1;
        }
        let p = plan(&queued, Order::Resource, 0);
        assert_eq!((p.deps[4].clone(), p.gap_ns[4]), (vec![], 0));
    }

    #[test]
    fn a_wait_ends_with_its_own_childrens_exits_not_another_processs() {
        // make (pid 1) runs two jobs: cc (pid 2) makes its compiler (pid 3) and waits for it;
        // meanwhile the other job's assembler (pid 4) ends. cc's next call waits for its own
        // compiler's last call, not for the assembler's.
        let stat = |p| Op::Stat {
            target: Target::Path(p),
            nofollow: false,
        };
        let thread = |tid: i32, begun_ns| Thread {
            tid,
            pid: tid,
            begun_ns,
        };
        let mut t = Trace {
            threads: vec![thread(1, 0), thread(2, 50), thread(3, 150), thread(4, 60)],
            paths: vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()],
            calls: vec![
                clocked(call(0, 10, stat(0)), 100, 0),
                clocked(call(1, 100, stat(1)), 100, 0),
                clocked(call(3, 120, stat(2)), 100, 0),
                clocked(call(2, 200, stat(2)), 100, 0),
                clocked(call(3, 2_000_000, stat(2)), 100, 0),
                clocked(call(2, 3_000_000, stat(2)), 100, 0),
                clocked(call(1, 9_000_000, stat(1)), 100, 5_000_000),
                clocked(call(0, 12_000_000, stat(0)), 100, 0),
            ],
            stop_cost: Some(StopCost {
                gap_cpu_ns: 100,
                gap_off_ns: 0,
                call_cpu_ns: 0,
                call_off_ns: 0,
            }),
            makers: vec![0, 1, 2, 1],
            ..Trace::default()
        };
        let family = t.family_of(1).unwrap();
        assert_eq!(
            family,
            vec![false, true, true, false],
            "cc and its compiler"
        );
        assert_eq!(t.family_of(0).unwrap(), vec![true; 4], "make made them all");
        let p = plan(&t, Order::Resource, 0);
        assert_eq!(p.deps[6], vec![5], "its compiler's last call only");
        // A trace of format 3 does not say who made a process: both exits end the wait.
        t.makers.clear();
        assert!(t.family_of(1).is_none());
        let p = plan(&t, Order::Resource, 0);
        assert_eq!(p.deps[6], vec![4, 5]);
    }

    #[test]
    fn an_idle_wait_after_the_other_threads_last_call_is_kept_as_time() {
        // Thread 1's calls ended at 410; thread 0 went on 10 ms later, 5 ms of it off-CPU: it
        // waits for thread 1's last call, then keeps the 5 ms (a child that slept).
        let p = plan(&joined(5_000_000, 400), Order::Resource, 0);
        assert_eq!(p.deps[4], vec![3]);
        assert_eq!(p.gap_ns[4], 5_000_000);
    }

    #[test]
    fn a_long_wait_while_no_other_thread_made_a_call_is_kept_as_time() {
        // Thread 1's calls are all over before thread 0's wait began (its second at 400 ended
        // at 410; the wait runs from 310): the program slept.
        let mut t = joined(5_000_000, 400);
        t.calls[3].start_ns = 250;
        t.calls.swap(2, 3);
        let p = plan(&t, Order::Resource, 0);
        assert_eq!(p.deps[4], vec![]);
        // Its CPU less the stop's (0) plus the wait.
        assert_eq!(p.gap_ns[4], 5_000_000);
    }

    #[test]
    fn the_program_own_time_is_its_untraced_cpu_less_its_calls_spread_by_the_clocks() {
        let mut t = joined(0, 400);
        // Untraced: 3,000 ns of CPU (the least run); the calls that only read cost 1,000 made
        // again.
        t.untraced_cpu_ns = vec![3_000, 4_000, 9_000];
        t.reran_cpu_ns = Some(1_000);
        let p = plan(&t, Order::Resource, 0);
        // 2,000 ns of the program's own, spread as the clocks said less the stops' 100:
        // 1,000 before call 0, 2,000 before call 2, nothing elsewhere.
        assert_eq!(p.gap_ns, vec![666, 0, 1333, 0, 0]);
        // Without untraced runs, the clocks less the stops' cost as they are.
        t.untraced_cpu_ns.clear();
        assert_eq!(
            plan(&t, Order::Resource, 0).gap_ns,
            vec![1000, 0, 2000, 0, 0]
        );
    }
}
