//! How a trace is replayed: which calls, by which replay thread, each after which others, and
//! when (pure). One replay thread per recorded thread that made a call under the root; calls
//! outside the root are not replayed, but their time stays in the gaps a paced replay keeps.
//!
//! Orders (`order=`):
//! - `resource` (ROOT's rule, the default): a call waits for the last earlier call on the same
//!   path or open file (a call on an open file is one on the path it was opened by), for the last earlier call that made, removed or renamed one of its
//!   path's directories, and (when it removes or renames a directory) for the last earlier
//!   call below it; everything else runs concurrently.
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
}

impl Plan {
    /// Calls replayed.
    pub fn calls(&self) -> usize {
        self.threads.iter().map(Vec::len).sum()
    }
}

/// The plan for `trace` in `order`; `overhead_ns` is what tracing added to each traced call
/// (taken out of the recorded gaps, once per traced call of any thread that started within).
pub fn plan(trace: &Trace, order: Order, overhead_ns: u64) -> Plan {
    let n = trace.calls.len();
    let mut by_thread: HashMap<u32, usize> = HashMap::new();
    let mut threads: Vec<Vec<u32>> = Vec::new();
    let mut gap_ns = vec![0u64; n];
    // When each recorded thread's last replayed call ended.
    let mut last_end: HashMap<u32, u64> = HashMap::new();
    // Traced calls not in `calls` (pipes, dups...) spread over the recorded ones.
    let per_call = if n == 0 {
        0.0
    } else {
        overhead_ns as f64 * (n as u64 + trace.not_files + trace.followed_only) as f64 / n as f64
    };
    // One tracer stops every thread in turn: a gap holds the cost of every call, of any
    // thread, that started within it (its own included), not only its thread's.
    let mut starts: Vec<u64> = trace.calls.iter().map(|c| c.start_ns).collect();
    starts.sort_unstable();
    let started_within = |from: u64, to: u64| {
        let (a, b) = (
            starts.partition_point(|&s| s <= from),
            starts.partition_point(|&s| s <= to),
        );
        b.saturating_sub(a) as f64
    };
    for (i, c) in trace.calls.iter().enumerate().filter(|(_, c)| !c.outside) {
        let end = last_end.get(&c.thread).copied().unwrap_or(0);
        let gap = c.start_ns.saturating_sub(end) as f64
            - per_call * started_within(end, c.start_ns).max(1.0);
        gap_ns[i] = gap.max(0.0) as u64;
        let t = *by_thread.entry(c.thread).or_insert_with(|| {
            threads.push(Vec::new());
            threads.len() - 1
        });
        threads[t].push(i as u32);
        last_end.insert(c.thread, c.start_ns + c.dur_ns);
    }
    let deps = match order {
        Order::Thread => vec![Vec::new(); n],
        Order::Strict => strict(trace),
        Order::Resource => resource(trace),
    };
    Plan {
        threads,
        deps,
        gap_ns,
    }
}

fn strict(trace: &Trace) -> Vec<Vec<u32>> {
    let mut deps = vec![Vec::new(); trace.calls.len()];
    let mut prev: Option<usize> = None;
    for (i, c) in trace.calls.iter().enumerate().filter(|(_, c)| !c.outside) {
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

/// The directories of `p`, nearest last.
fn ancestors(p: &[u8]) -> impl Iterator<Item = &[u8]> {
    p.iter()
        .enumerate()
        .filter(|&(_, &b)| b == b'/')
        .map(move |(i, _)| &p[..i])
        .chain(std::iter::once(&p[..0]).filter(move |_| !p.is_empty()))
}

fn resource(trace: &Trace) -> Vec<Vec<u32>> {
    let n = trace.calls.len();
    let mut deps: Vec<Vec<u32>> = vec![Vec::new(); n];
    // The last call on each path, on each open file, that changed names at each path, and
    // below each directory.
    let mut on_path: HashMap<u32, u32> = HashMap::new();
    let mut on_file: HashMap<u32, u32> = HashMap::new();
    let mut changed: HashMap<&[u8], u32> = HashMap::new();
    let mut below: HashMap<&[u8], u32> = HashMap::new();
    for (i, c) in trace.calls.iter().enumerate() {
        if c.outside {
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
        let removes_dir = matches!(c.op, Op::Rmdir { .. } | Op::Rename { .. });
        // A call on an open file is a call on the file it names: a read through one open
        // follows a write through another.
        let mut paths = c.op.paths();
        if let Some(Op::Open { path, .. }) = c.op.file().map(|f| &trace.calls[f as usize].op) {
            paths.push(*path);
        }
        for p in paths {
            let path = trace.paths[p as usize].as_slice();
            want.extend(on_path.get(&p));
            for a in ancestors(path) {
                want.extend(changed.get(a));
            }
            if removes_dir {
                want.extend(below.get(path));
            }
            on_path.insert(p, i);
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
    use crate::model::{Call, Target, Thread};

    fn call(thread: u32, start_ns: u64, op: Op) -> Call {
        Call {
            thread,
            start_ns,
            dur_ns: 10,
            op,
            result: 0,
            outside: false,
        }
    }

    fn two_threads() -> Trace {
        Trace {
            threads: vec![Thread { tid: 1, pid: 1 }, Thread { tid: 2, pid: 1 }],
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
        // After its own thread's read of the file, which waited for the other's calls on it.
        assert_eq!(p.deps[5], Vec::<u32>::new());
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
    }
}
