//! Whose work each piece of a profile is (`fsbench_model::profile::Role`): the cell's (the
//! threads the measuring thread started and its processes' children, the FUSE daemons, the
//! kernel workers serving the target's devices), fsbench's helpers (its named helper threads,
//! its process's threads the sample did not start, and the measuring thread's idle waits for its
//! workers), neighbours (anything else, named by command) or unattributed kernel work. A kernel
//! worker's sample is tied to a device by the work item it was running (`crate::works`: the
//! item's writeback records, the request that queued it, its queuer, its requests); outside a
//! recorded item, by the worker's name (`flush-7:4`, `loop4`, `jbd2/loop0-8`, `kcryptd/252:0`)
//! or, failing that, by the block requests it issued during the sample.

use crate::recording::{Kind, Recording};
use crate::who::{Scope, Side};
use crate::works::{Item, Works};
use fsbench_model::profile::Role;
use std::collections::{HashMap, HashSet};

/// fsbench's helper threads are named with this prefix (`fsbench-ticker`, `fsbench-profile`,
/// `fsbench-signals`); `fsbench-bg-` threads run the `--background` workload, the cell's.
const HELPER_PREFIX: &str = "fsbench-";
const BACKGROUND_PREFIX: &str = "fsbench-bg-";

/// The folded-stack root of fsbench's helpers' samples.
pub const HELPER_WHO: &str = "fsbench helper";

/// A device a kernel worker serves, as its name or its requests tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tie {
    /// By device number (`flush-7:4`, a request's `dev`).
    Dev(u32),
    /// By device name (`loop4`, `jbd2/loop4-8`).
    Name(String),
}

/// The role of each thread, learned over a recording.
#[derive(Debug, Default)]
pub struct Roles {
    runner: u32,
    own_pid: u32,
    /// Threads of fsbench's process started (directly or not) by the measuring thread.
    started: HashSet<u32>,
    /// True once the measuring thread started a worker (a thread or process not named as a
    /// helper): from then its idle waits are waits for them.
    has_workers: bool,
    /// Kernel threads that issued requests, by the device of their first one.
    issued: HashMap<u32, u32>,
    /// The target's devices: number and name.
    chain: Vec<(u32, String)>,
    /// The kernel workers' work items, tied to devices.
    works: Works,
}

impl Roles {
    /// The roles of `scope`, with the kernel workers' requests read from `rec` beforehand.
    pub fn new(scope: &Scope, rec: &Recording) -> Self {
        let mut issued = HashMap::new();
        for e in &rec.events {
            if let Kind::Issue { dev, .. } = e.kind {
                let kernel = rec.comms.get(&e.tid).is_some_and(|c| c.starts_with('['));
                if kernel && e.pid != 0 {
                    issued.entry(e.tid).or_insert(dev);
                }
            }
        }
        Self {
            runner: scope.runner_tid,
            own_pid: scope.own_pid,
            started: HashSet::from([scope.runner_tid]),
            has_workers: false,
            issued,
            chain: scope.chain.clone(),
            works: Works::new(rec),
        }
    }

    /// Thread `tid`, named `comm`, was started by thread `parent_tid`.
    pub fn fork(&mut self, tid: u32, parent_tid: u32, comm: &str) {
        if self.started.contains(&parent_tid) {
            self.started.insert(tid);
            self.has_workers |=
                !comm.starts_with(HELPER_PREFIX) || comm.starts_with(BACKGROUND_PREFIX);
        }
    }

    /// True when thread `tid` of fsbench's process (`side`) is a helper.
    pub fn is_helper(&self, side: Option<Side>, pid: u32, tid: u32, comm: &str) -> bool {
        if side != Some(Side::Fsbench) {
            return false;
        }
        let named = comm.starts_with(HELPER_PREFIX) && !comm.starts_with(BACKGROUND_PREFIX);
        named || (pid == self.own_pid && self.runner != 0 && !self.started.contains(&tid))
    }

    /// True when an off-CPU interval of `tid` for `reason` is a helper's wait: the measuring
    /// thread idle (`other`: joining its workers, reaping its children) once it started workers.
    /// A measuring thread that does the work itself (a paced `latency` sleeping between its
    /// requests) keeps its waits.
    pub fn is_helper_wait(&self, tid: u32, reason: &str) -> bool {
        self.has_workers && tid == self.runner && reason == fsbench_model::profile::REASON_OTHER
    }

    /// The role of a sample at `t` of a thread that is on no side, from its `/proc` name `comm`
    /// (bracketed for a kernel thread), the device it served when known, and the work item it
    /// was running when one was recorded.
    pub fn outsider(&self, tid: u32, comm: &str, t: u64) -> (Role, Option<Tie>, Option<&Item>) {
        if !comm.starts_with('[') {
            return (Role::Neighbour, None, None);
        }
        let item = self.works.at(tid, t);
        let tie = match item {
            Some(it) => it.dev.map(Tie::Dev).or_else(|| {
                // The name tells the last workqueue the worker served: this item's only when
                // its own workqueue is not known.
                it.workqueue.is_none().then(|| tie(comm)).flatten()
            }),
            None => tie(comm).or_else(|| self.issued.get(&tid).map(|&d| Tie::Dev(d))),
        };
        let role = match &tie {
            None => Role::Unattributed,
            Some(t) if self.serves_target(t) => Role::Cell,
            Some(_) => Role::Neighbour,
        };
        (role, tie, item)
    }

    fn serves_target(&self, t: &Tie) -> bool {
        self.chain.iter().any(|(dev, name)| match t {
            Tie::Dev(d) => d == dev,
            Tie::Name(n) => n == name,
        })
    }
}

/// The device a kernel thread's name says it serves: `[kworker/u8:2+flush-7:4]` → 7:4,
/// `[kworker/u8:1-loop4]` or `[loop4]` → loop4, `[jbd2/loop0-8]` → loop0,
/// `[kworker/u8:0-kcryptd/252:0]` or `[kdmflush/252:0]` → 252:0, `[kworker/0:2-dio/vda]` → vda.
pub fn tie(comm: &str) -> Option<Tie> {
    let inner = comm.strip_prefix('[')?.strip_suffix(']')?;
    let name = match inner.strip_prefix("kworker/") {
        Some(rest) => rest.split_once(['-', '+'])?.1,
        None => inner,
    };
    tie_of_workqueue(name)
}

/// The device a kernel thread's or workqueue's own name says it serves (`flush-7:4`, `loop4`,
/// `jbd2/loop0-8`, `kcryptd/252:0`, `dio/vda`).
pub fn tie_of_workqueue(name: &str) -> Option<Tie> {
    if let Some((_, numbers)) = name.rsplit_once('/').or_else(|| name.split_once("flush-")) {
        if let Some(d) = dev_of(numbers) {
            return Some(Tie::Dev(d));
        }
    }
    if let Some(dev) = name.strip_prefix("dio/") {
        return Some(Tie::Name(dev.to_string()));
    }
    if let Some(rest) = name.strip_prefix("jbd2/") {
        let dev = rest.rsplit_once('-').map_or(rest, |(d, _)| d);
        return Some(Tie::Name(dev.to_string()));
    }
    let is_loop = name
        .strip_prefix("loop")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    is_loop.then(|| Tie::Name(name.to_string()))
}

/// `7:4` → its dev_t.
pub fn dev_of(s: &str) -> Option<u32> {
    let (major, minor) = s.split_once(':')?;
    Some(crate::device::dev_t(
        major.parse().ok()?,
        minor.parse().ok()?,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_workers_are_tied_to_devices_by_their_names() {
        let d = |a, b| Some(Tie::Dev(crate::device::dev_t(a, b)));
        let n = |s: &str| Some(Tie::Name(s.into()));
        assert_eq!(tie("[kworker/u8:2+flush-7:4]"), d(7, 4));
        assert_eq!(tie("[kworker/u8:2-flush-254:0]"), d(254, 0));
        assert_eq!(tie("[kworker/u8:1-loop4]"), n("loop4"));
        assert_eq!(tie("[loop12]"), n("loop12"));
        assert_eq!(tie("[jbd2/loop0-8]"), n("loop0"));
        assert_eq!(tie("[kworker/u8:0-kcryptd/252:0]"), d(252, 0));
        assert_eq!(tie("[kdmflush/252:0]"), d(252, 0));
        assert_eq!(tie("[kworker/0:2-dio/vda]"), n("vda"));
        assert_eq!(tie("[kworker/u8:3+fscrypt_read_queue]"), None);
        assert_eq!(tie("[ksoftirqd/1]"), None);
        assert_eq!(tie("[kworker/1:1H]"), None);
        assert_eq!(tie("cc1"), None);
    }

    #[test]
    fn workers_of_other_devices_are_neighbours_and_untied_ones_unattributed() {
        let scope = Scope {
            own_pid: 10,
            runner_tid: 10,
            chain: vec![(crate::device::dev_t(7, 0), "loop0".into())],
            ..Default::default()
        };
        let mut rec = Recording::default();
        rec.comms.insert(5, "[kworker/u8:1-kblockd]".into());
        rec.events.push(crate::recording::Event {
            t: 1,
            pid: 5,
            tid: 5,
            kind: Kind::Issue {
                dev: crate::device::dev_t(7, 0),
                sector: 8,
                cpu: 0,
            },
        });
        let r = Roles::new(&scope, &rec);
        assert_eq!(r.outsider(1, "[kworker/u8:2+flush-7:0]", 1).0, Role::Cell);
        assert_eq!(
            r.outsider(1, "[kworker/u8:2+flush-7:4]", 1).0,
            Role::Neighbour
        );
        assert_eq!(r.outsider(5, "[kworker/u8:1-kblockd]", 1).0, Role::Cell);
        assert_eq!(r.outsider(6, "[ksoftirqd/0]", 1).0, Role::Unattributed);
        assert_eq!(r.outsider(7, "cc1", 1).0, Role::Neighbour);
    }

    #[test]
    fn a_workers_samples_take_the_device_of_the_item_it_ran_not_of_its_name() {
        let ours = crate::device::dev_t(7, 0);
        let theirs = crate::device::dev_t(7, 4);
        let scope = Scope {
            chain: vec![(ours, "loop0".into())],
            ..Default::default()
        };
        let ev = |t, kind| crate::recording::Event {
            t,
            pid: 5,
            tid: 5,
            kind,
        };
        let rec = Recording {
            end_ns: 1_000,
            events: vec![
                ev(
                    10,
                    Kind::Queue {
                        work: 1,
                        cpu: 0,
                        workqueue: "writeback".into(),
                    },
                ),
                ev(20, Kind::WorkStart { work: 1 }),
                ev(30, Kind::Writeback { dev: theirs }),
                ev(200, Kind::WorkStart { work: 2 }),
            ],
            ..Default::default()
        };
        let r = Roles::new(&scope, &rec);
        // Named for our device when its name was read, it wrote theirs back.
        let comm = "[kworker/u8:2-flush-7:0]";
        let (role, tie, item) = r.outsider(5, comm, 50);
        assert_eq!((role, tie), (Role::Neighbour, Some(Tie::Dev(theirs))));
        assert_eq!(item.unwrap().workqueue.as_deref(), Some("writeback"));
        // An item queued before the sample, tied by nothing: its name may be its own.
        assert_eq!(r.outsider(5, comm, 250).0, Role::Cell);
        // Before its first item, the name.
        assert_eq!(r.outsider(5, comm, 10).0, Role::Cell);
    }

    #[test]
    fn helpers_are_named_threads_and_threads_the_sample_did_not_start() {
        let scope = Scope {
            own_pid: 10,
            runner_tid: 11,
            ..Default::default()
        };
        let mut r = Roles::new(&scope, &Recording::default());
        r.fork(12, 11, "fsbench-ticker");
        // Alone, the measuring thread's idle waits are its own (a paced workload's sleeps).
        assert!(!r.is_helper_wait(11, fsbench_model::profile::REASON_OTHER));
        r.fork(13, 12, "fsbench");
        let fs = Some(Side::Fsbench);
        assert!(!r.is_helper(fs, 10, 13, "fsbench"));
        assert!(r.is_helper(fs, 10, 12, "fsbench-ticker"));
        assert!(!r.is_helper(fs, 10, 12, "fsbench-bg-seq-write"));
        // The main thread, started before the sample (progress, signals).
        assert!(r.is_helper(fs, 10, 10, "fsbench"));
        // A child process of the cell is the cell's, whatever its threads.
        assert!(!r.is_helper(fs, 20, 21, "walker"));
        assert!(!r.is_helper(None, 10, 10, "fsbench"));
        assert!(r.is_helper_wait(11, fsbench_model::profile::REASON_OTHER));
        assert!(!r.is_helper_wait(11, fsbench_model::profile::REASON_DEVICE));
    }
}
