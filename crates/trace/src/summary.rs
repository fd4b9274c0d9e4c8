//! What `fsbench trace show` says of a trace: calls by kind, threads, processes, files, bytes,
//! the time in calls, and what was outside the root. Pure.

use crate::model::Trace;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// A trace in numbers (the JSON of `trace show --export-json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// The recorded command.
    pub command: Vec<String>,
    /// Calls under the root, by kind (what a replay makes).
    pub calls: BTreeMap<String, u64>,
    /// Threads that made a recorded call.
    pub threads: usize,
    /// Processes those threads belonged to.
    pub processes: usize,
    /// Paths in the start state (what a replay rebuilds).
    pub files: usize,
    /// Of those, directories.
    pub dirs: usize,
    /// Their regular files' bytes.
    pub start_bytes: u64,
    /// Bytes read and written by the calls under the root.
    pub bytes: u64,
    /// Of [`Summary::bytes`], read (mappings included).
    pub bytes_read: u64,
    /// Of [`Summary::bytes`], written.
    pub bytes_written: u64,
    /// Time in the calls under the root, as traced, ns.
    pub call_time_ns: u64,
    /// Calls that failed under the root (their errors are replayed too).
    pub failed: u64,
    /// Calls outside the root (a replay makes the read-only ones on files still as recorded).
    pub outside_root: u64,
    /// Of those, by kind.
    pub outside_root_calls: BTreeMap<String, u64>,
    /// Of those, what they are: read-only calls on files the recording identified, calls on
    /// the kernel's files, calls that change something.
    pub outside: crate::outside::OutsideCalls,
    /// The paths outside the root the calls named (the kernel's files aside), with what was
    /// there when recorded.
    pub outside_files: Vec<OutsideShown>,
    /// Calls on pipes, sockets, terminals and inherited descriptors: not recorded.
    pub not_files: u64,
    /// dup, fcntl and anonymous mmap calls: followed for the bookkeeping, not recorded.
    pub followed_only: u64,
    /// Every call the tracer stopped at: recorded, outside, not files and followed only.
    pub traced_calls: u64,
    /// The traced run, ns.
    pub wall_ns: u64,
    /// The untraced runs after it, ns each.
    pub untraced_wall_ns: Vec<u64>,
    /// What tracing added to each call, ns (calibrated).
    pub call_overhead_ns: u64,
    /// What tracing added to each call in this recording, ns: the traced run less the untraced
    /// runs' median, over the calls traced (`None` without an untraced run).
    pub measured_overhead_ns: Option<u64>,
    /// The untraced runs' CPU time, ns each (the program and the children it reaped).
    pub untraced_cpu_ns: Vec<u64>,
    /// What the calls that only read cost the CPU made again untraced, ns.
    pub reran_cpu_ns: Option<u64>,
    /// The program's own time a paced replay (`pace=trace`) keeps between its calls, all
    /// threads together, ns.
    pub paced_gaps_ns: u64,
    /// The untraced runs did the traced run's work (the program leaves its tree as found, or
    /// `--prepare` restored it), so their CPU time measures the program's.
    pub untraced_same_work: bool,
}

/// A path outside the root as `trace show --export-json` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutsideShown {
    /// The absolute path.
    pub path: String,
    /// `file`, `dir`, `symlink` or `other` when it was there; `null` when it was not.
    pub kind: Option<String>,
    /// Its size then (a symlink's own).
    pub size: Option<u64>,
}

impl Summary {
    /// Counts `trace`.
    pub fn of(trace: &Trace) -> Self {
        let mut s = Summary {
            command: trace.command.clone(),
            calls: BTreeMap::new(),
            threads: 0,
            processes: 0,
            files: trace.start.len(),
            dirs: trace
                .start
                .iter()
                .filter(|e| e.kind == crate::model::FileKind::Dir)
                .count(),
            start_bytes: trace
                .start
                .iter()
                .filter(|e| e.kind == crate::model::FileKind::File)
                .map(|e| e.size)
                .sum(),
            bytes: 0,
            bytes_read: 0,
            bytes_written: 0,
            call_time_ns: 0,
            failed: 0,
            outside_root: 0,
            outside_root_calls: BTreeMap::new(),
            outside: crate::outside::count(trace),
            outside_files: trace
                .outside_files
                .iter()
                .map(|f| OutsideShown {
                    path: String::from_utf8_lossy(&trace.paths[f.path as usize]).into_owned(),
                    kind: f.found.map(|i| i.name.kind.name().to_string()),
                    size: f.found.map(|i| i.name.size),
                })
                .collect(),
            not_files: trace.not_files,
            followed_only: trace.followed_only,
            traced_calls: 0,
            wall_ns: trace.wall_ns,
            untraced_wall_ns: trace.untraced_wall_ns.clone(),
            call_overhead_ns: trace.call_overhead_ns,
            measured_overhead_ns: None,
            untraced_cpu_ns: trace.untraced_cpu_ns.clone(),
            reran_cpu_ns: trace.reran_cpu_ns,
            paced_gaps_ns: 0,
            untraced_same_work: crate::pace::untraced_did_the_same_work(trace),
        };
        let mut threads = BTreeSet::new();
        for c in &trace.calls {
            threads.insert(c.thread);
            if c.outside {
                s.outside_root += 1;
                *s.outside_root_calls.entry(c.op.kind().into()).or_default() += 1;
                continue;
            }
            *s.calls.entry(c.op.kind().into()).or_default() += 1;
            let (r, w) = c.op.bytes(c.result);
            s.bytes_read += r;
            s.bytes_written += w;
            s.call_time_ns += c.dur_ns;
            s.failed += u64::from(c.result < 0);
        }
        s.bytes = s.bytes_read + s.bytes_written;
        s.traced_calls = s.replayed() + s.outside_root + s.not_files + s.followed_only;
        s.measured_overhead_ns = s
            .untraced_median_ns()
            .filter(|_| s.traced_calls > 0)
            .map(|u| s.wall_ns.saturating_sub(u) / s.traced_calls);
        s.paced_gaps_ns = crate::plan::plan(
            trace,
            crate::plan::Order::Thread,
            s.measured_overhead_ns.unwrap_or(s.call_overhead_ns),
        )
        .gap_ns
        .iter()
        .sum();
        s.threads = threads.len();
        s.processes = threads
            .iter()
            .filter_map(|&t| trace.threads.get(t as usize))
            .map(|t| t.pid)
            .collect::<BTreeSet<_>>()
            .len();
        s
    }

    /// Calls under the root, all kinds.
    pub fn replayed(&self) -> u64 {
        self.calls.values().sum()
    }

    /// The untraced runs' median, ns.
    pub fn untraced_median_ns(&self) -> Option<u64> {
        let mut v = self.untraced_wall_ns.clone();
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    }

    /// "traced run took 1.7× the untraced (…)", or the calibrated estimate without untraced runs.
    pub fn overhead_line(&self) -> String {
        let calls = self.traced_calls;
        let calibrated = self.call_overhead_ns as f64 / 1000.0;
        match (self.untraced_median_ns(), self.measured_overhead_ns) {
            (Some(u), Some(m)) if u > 0 => format!(
                "traced run took {:.2}× the untraced ({} against {}, median of {}; {calls} calls traced, {:.1} µs added to each, {calibrated:.1} µs by calibration)",
                self.wall_ns as f64 / u as f64,
                seconds(self.wall_ns),
                seconds(u),
                self.untraced_wall_ns.len(),
                m as f64 / 1000.0
            ),
            _ => {
                let added = calls * self.call_overhead_ns;
                format!(
                    "traced run took {}; no untraced run to compare (--untraced 0): tracing added about {} ({calls} calls traced, {calibrated:.1} µs added to each by calibration)",
                    seconds(self.wall_ns),
                    seconds(added.min(self.wall_ns))
                )
            }
        }
    }
}

impl Summary {
    /// "a paced replay keeps 4.1 ms of the program's own time between its calls (…)".
    pub fn pace_line(&self) -> String {
        let how = match (crate::pace::least(&self.untraced_cpu_ns), self.reran_cpu_ns) {
            (Some(_), _) if !self.untraced_same_work => "each thread's CPU time between its calls less the calibrated cost of a stop: the untraced runs did other work, the program having changed its tree (--prepare CMD restores it before each run)".to_string(),
            (Some(u), Some(r)) => format!(
                "its untraced CPU time, {} (the least run's), less its calls': {} for those that only read, made again untraced; the rest as traced less what a stop added to those made again",
                seconds(u),
                seconds(r)
            ),
            _ => "each thread's CPU time between its calls less the calibrated cost of a stop; no untraced run to measure it against".to_string(),
        };
        format!(
            "a paced replay (pace=trace) keeps {} of the program's own time between its calls ({how})",
            seconds(self.paced_gaps_ns)
        )
    }
}

fn seconds(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1000.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Call, Entry, FileKind, Op, Thread};

    #[test]
    fn counts_what_is_replayed_apart_from_what_is_outside() {
        let call = |thread, op, result, outside| Call {
            thread,
            start_ns: 0,
            dur_ns: 5,
            op,
            result,
            outside,
            before: None,
            during: None,
            hidden: 0,
        };
        let t = Trace {
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
                Thread {
                    tid: 3,
                    pid: 3,
                    begun_ns: 0,
                },
            ],
            paths: vec![b"a".to_vec(), b"/lib/x.so".to_vec()],
            start: vec![Entry {
                path: 0,
                kind: FileKind::File,
                size: 10,
                mode: 0o644,
                target: None,
            }],
            calls: vec![
                call(
                    0,
                    Op::Open {
                        path: 1,
                        flags: 0,
                        mode: 0,
                    },
                    0,
                    true,
                ),
                call(
                    0,
                    Op::Open {
                        path: 0,
                        flags: 0,
                        mode: 0,
                    },
                    0,
                    false,
                ),
                call(
                    1,
                    Op::Read {
                        file: 1,
                        offset: None,
                        size: 100,
                    },
                    10,
                    false,
                ),
                call(
                    2,
                    Op::Stat {
                        target: crate::model::Target::Path(0),
                        nofollow: true,
                    },
                    -2,
                    false,
                ),
            ],
            wall_ns: 2_000_000,
            untraced_wall_ns: vec![1_000_000],
            call_overhead_ns: 3000,
            ..Trace::default()
        };
        let s = Summary::of(&t);
        assert_eq!(s.calls.get("open"), Some(&1));
        assert_eq!(s.replayed(), 3);
        assert_eq!((s.outside_root, s.threads, s.processes), (1, 3, 2));
        assert_eq!((s.bytes, s.call_time_ns, s.failed, s.files), (10, 15, 1, 1));
        assert!(
            s.overhead_line()
                .starts_with("traced run took 2.00× the untraced"),
            "{}",
            s.overhead_line()
        );
    }
}
