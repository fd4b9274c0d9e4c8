//! Lock waits paired per thread as the kernel emits `lock:contention_begin/end`. The mutex slow
//! path traces a begin more than once for one acquisition (optimistic spinning, then sleeping)
//! before its single end, and a lock's slow path can contend on its own spinlock in between: so
//! waits are keyed by the lock's address, a begin on a lock the thread already waits for
//! continues that wait (from its first begin), and a begin on another lock nests inside it. A
//! thread's time is charged to its innermost open wait only, so its waits never add up to more
//! than its wall time. A wait whose end cannot be seen (records lost, the thread exited, the
//! sample ended) is dropped and counted, never stretched to the next end that happens to come.

use fsbench_model::profile::{LockDrops, LockWait, is_spinning_kind};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One wait being timed.
#[derive(Debug)]
struct Open {
    addr: u64,
    kind: &'static str,
    caller: String,
    /// Time charged so far (while it was the innermost), ns.
    ns: u64,
    /// Of `ns`, asleep off the CPU.
    asleep: u64,
}

/// A thread's open waits (innermost last) and when its innermost one last started accruing.
#[derive(Debug, Default)]
struct Task {
    stack: Vec<Open>,
    since: u64,
    /// Switched out at this time, asleep (not runnable) in a sleeping lock's wait.
    asleep_since: Option<u64>,
}

impl Task {
    /// Charges the innermost wait up to `t`.
    fn charge(&mut self, t: u64) {
        if let Some(top) = self.stack.last_mut() {
            top.ns += t.saturating_sub(self.since);
        }
        self.since = t;
    }

    /// Drops the waits above `keep` (their ends were lost), giving their time to the wait at
    /// `keep`, which encloses them; returns how many were dropped.
    fn fold_above(&mut self, keep: usize) -> u64 {
        let mut dropped = 0;
        while self.stack.len() > keep + 1 {
            let o = self.stack.pop().expect("invariant: longer than keep + 1");
            let below = self.stack.last_mut().expect("invariant: keep is below");
            below.ns += o.ns;
            below.asleep += o.asleep;
            dropped += 1;
        }
        dropped
    }
}

/// Totals of one (kind, caller).
#[derive(Debug, Default)]
struct Total {
    ns: u64,
    count: u64,
    asleep: u64,
    threads: BTreeSet<u32>,
}

/// What the pairing measured besides the waits, for the invariants of [`crate::invariants`].
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Paired {
    /// The waits by kind and caller, longest first.
    pub waits: Vec<LockWait>,
    /// Waits dropped unpaired, by why.
    pub drops: LockDrops,
    /// Time threads slept off the CPU inside a sleeping lock's wait, dropped waits included, ns
    /// (what off-CPU `lock` should equal).
    pub asleep_ns: u64,
    /// The largest total of paired waits of one thread, ns.
    pub max_thread_ns: u64,
    /// Points where the kernel lost lock or switch records.
    pub lost_marks: u64,
}

/// Waits being timed, per thread.
#[derive(Debug, Default)]
pub struct Pairing {
    tasks: HashMap<u32, Task>,
    total: BTreeMap<(&'static str, String), Total>,
    per_thread: HashMap<u32, u64>,
    drops: LockDrops,
    asleep_ns: u64,
    lost_marks: u64,
}

impl Pairing {
    /// Thread `tid` began waiting at `t` for the lock at `addr` (0: unknown, every begin is a new
    /// wait) of `kind`, called from `caller`.
    pub fn begin(&mut self, tid: u32, t: u64, addr: u64, kind: &'static str, caller: String) {
        let task = self.tasks.entry(tid).or_default();
        task.charge(t);
        let again = (addr != 0)
            .then(|| task.stack.iter().rposition(|o| o.addr == addr))
            .flatten();
        match again {
            // The same acquisition, traced again: one wait from its first begin.
            Some(pos) => self.drops.lost += task.fold_above(pos),
            None => task.stack.push(Open {
                addr,
                kind,
                caller,
                ns: 0,
                asleep: 0,
            }),
        }
    }

    /// Thread `tid` took (or gave up) the lock at `addr` at `t` (0: its innermost wait).
    pub fn end(&mut self, tid: u32, t: u64, addr: u64) {
        let Some(task) = self.tasks.get_mut(&tid).filter(|k| !k.stack.is_empty()) else {
            self.drops.unmatched_ends += 1;
            return;
        };
        let pos = match addr {
            0 => Some(task.stack.len() - 1),
            a => task.stack.iter().rposition(|o| o.addr == a),
        };
        let Some(pos) = pos else {
            self.drops.unmatched_ends += 1;
            return;
        };
        task.charge(t);
        self.drops.lost += task.fold_above(pos);
        let o = task.stack.pop().expect("invariant: pos is in the stack");
        *self.per_thread.entry(tid).or_default() += o.ns;
        let e = self.total.entry((o.kind, o.caller)).or_default();
        e.ns += o.ns;
        e.asleep += o.asleep;
        e.count += 1;
        e.threads.insert(tid);
    }

    /// Thread `tid` was switched out at `t`, asleep unless `runnable`.
    pub fn switched_out(&mut self, tid: u32, t: u64, runnable: bool) {
        let Some(task) = self.tasks.get_mut(&tid) else {
            return;
        };
        let sleeping = task.stack.last().is_some_and(|o| !is_spinning_kind(o.kind));
        task.asleep_since = (sleeping && !runnable).then_some(t);
    }

    /// Thread `tid` was switched back in at `t`.
    pub fn switched_in(&mut self, tid: u32, t: u64) {
        let Some(task) = self.tasks.get_mut(&tid) else {
            return;
        };
        if let Some(t0) = task.asleep_since.take() {
            let ns = t.saturating_sub(t0);
            self.asleep_ns += ns;
            if let Some(top) = task.stack.last_mut() {
                top.asleep += ns;
            }
        }
    }

    /// The kernel dropped records at about `t`: any open wait's end may be among them.
    pub fn lost(&mut self, t: u64) {
        self.lost_marks += 1;
        for task in self.tasks.values_mut() {
            task.charge(t);
            self.drops.lost += task.stack.len() as u64;
            task.stack.clear();
        }
    }

    /// Thread `tid` exited: its open waits end with it, unpaired.
    pub fn exited(&mut self, tid: u32) {
        if let Some(task) = self.tasks.remove(&tid) {
            self.drops.exited += task.stack.len() as u64;
        }
    }

    /// The sample ended at `end`: open waits are dropped; what was measured.
    pub fn finish(mut self, end: u64) -> Paired {
        for task in self.tasks.values() {
            self.drops.open_at_end += task.stack.len() as u64;
            if let Some(t0) = task.asleep_since {
                self.asleep_ns += end.saturating_sub(t0);
            }
        }
        let mut waits: Vec<LockWait> = self
            .total
            .into_iter()
            .map(|((kind, caller), t)| LockWait {
                kind: kind.to_string(),
                caller,
                wait_ns: t.ns,
                count: t.count,
                threads: t.threads.len() as u64,
                asleep_ns: t.asleep,
            })
            .collect();
        waits.sort_by_key(|w| std::cmp::Reverse(w.wait_ns));
        Paired {
            waits,
            drops: self.drops,
            asleep_ns: self.asleep_ns,
            max_thread_ns: self.per_thread.values().copied().max().unwrap_or(0),
            lost_marks: self.lost_marks,
        }
    }
}

#[cfg(test)]
#[path = "pairing_tests.rs"]
mod tests;
