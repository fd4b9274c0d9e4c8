//! A replay sample's time by call kind (issue 58): for each kind of call the replay made, how
//! many, how long in all and per call, and how many failed; and the slowest calls with their
//! path and thread. Two targets' breakdowns of one trace say which of the program's calls made
//! the difference between them (`fsbench_report::calls`).

use serde::{Deserialize, Serialize};

/// What the calls of one replay sample took, by kind.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct CallTimes {
    /// Per call kind, the most time first.
    pub kinds: Vec<KindTime>,
    /// The slowest calls, slowest first (at most [`SLOWEST`]).
    pub slowest: Vec<SlowCall>,
}

/// Calls kept in [`CallTimes::slowest`].
pub const SLOWEST: usize = 10;

/// The kind under which a replay counts the program's calls outside its root (its start-up:
/// libraries, configuration), whatever call each was: they read the machine's own files, not
/// the target's.
pub const OUTSIDE_KIND: &str = "outside the root";

/// One kind of call in one sample.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct KindTime {
    /// The call, as the replay made it (`lstat`, `stat`, `fstat`, `open`, `read`, `pread`,
    /// `getdents`, …), or [`OUTSIDE_KIND`].
    pub kind: String,
    /// Calls made.
    pub count: u64,
    /// Their time together, ns (threads' calls at once each count: with several threads this
    /// can exceed the sample's wall time).
    pub total_ns: u64,
    /// The part of the sample's wall time these calls held, ns: each instant split equally
    /// among the calls in flight then (with one thread, their time). The kinds' parts add up
    /// to the time some call was in flight; the rest of the wall time none was.
    #[serde(default)]
    pub wall_ns: u64,
    /// The median call's time, ns.
    pub p50_ns: u64,
    /// The 99th percentile call's time, ns.
    pub p99_ns: u64,
    /// Calls that returned an error (as the program's may have: not a divergence by itself).
    pub errors: u64,
}

/// One of a sample's slowest calls.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct SlowCall {
    /// Its kind, as in [`KindTime::kind`].
    pub kind: String,
    /// The path it named (relative to the replay's root; absolute outside it; a call on an open
    /// file names the file's path), empty when it named none.
    pub path: String,
    /// The recorded thread that made it (index into the trace's threads).
    pub thread: u32,
    /// Its index in the trace (`fsbench trace show --calls` numbers calls the same way).
    pub call: u32,
    /// How long it took, ns.
    pub ns: u64,
}

impl CallTimes {
    /// Every kind's time together, ns.
    pub fn total_ns(&self) -> u64 {
        self.kinds.iter().map(|k| k.total_ns).sum()
    }

    /// Calls made, of every kind.
    pub fn count(&self) -> u64 {
        self.kinds.iter().map(|k| k.count).sum()
    }

    /// The kind named `kind`, when the sample made such calls.
    pub fn kind(&self, kind: &str) -> Option<&KindTime> {
        self.kinds.iter().find(|k| k.kind == kind)
    }
}

/// When each of a sample's calls ran, on which thread: a profile (`--profile`) puts the kernel's
/// evidence of each thread (its off-CPU intervals, its lock waits) on the calls it overlaps, so
/// each kind of call gets its own reasons. Not stored: the profile keeps what it gave.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallWindows {
    /// The kinds, indexed by the windows.
    pub kinds: Vec<String>,
    /// Per OS thread id, its calls' windows: start and end (CLOCK_MONOTONIC ns) and the index
    /// of their kind, in time order (a thread's calls never overlap).
    pub by_tid: std::collections::BTreeMap<u32, Vec<(u64, u64, u16)>>,
}

impl CallWindows {
    /// The part of `[t0, t1)` on thread `tid` that each of its calls covers: `(kind, ns)`.
    pub fn overlaps(&self, tid: u32, t0: u64, t1: u64) -> Vec<(&str, u64)> {
        let Some(w) = self.by_tid.get(&tid) else {
            return Vec::new();
        };
        // The first window that ends after t0.
        let from = w.partition_point(|&(_, end, _)| end <= t0);
        w[from..]
            .iter()
            .take_while(|&&(start, _, _)| start < t1)
            .filter_map(|&(start, end, k)| {
                let ns = end.min(t1).saturating_sub(start.max(t0));
                let kind = self.kinds.get(usize::from(k))?;
                (ns > 0).then_some((kind.as_str(), ns))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interval_is_split_over_the_calls_it_overlaps() {
        let mut w = CallWindows {
            kinds: vec!["lstat".into(), "read".into()],
            ..CallWindows::default()
        };
        w.by_tid
            .insert(7, vec![(100, 200, 0), (250, 400, 1), (400, 500, 0)]);
        assert_eq!(w.overlaps(7, 150, 300), vec![("lstat", 50), ("read", 50)]);
        assert_eq!(
            w.overlaps(7, 0, 1000),
            vec![("lstat", 100), ("read", 150), ("lstat", 100)]
        );
        assert!(w.overlaps(7, 200, 250).is_empty(), "between two calls");
        assert!(w.overlaps(8, 0, 1000).is_empty(), "another thread");
    }
}
