//! Who did the work: fsbench (its threads and the children a `command` starts), the FUSE
//! daemon, a kernel worker by its workqueue's name, another kernel thread, or anyone else.

use std::collections::{BTreeMap, HashMap};

/// What the profile is about: fsbench's process, the daemons serving the target, the threads
/// to leave out (the profiler's own), and the device whose requests are timed.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// fsbench's process id.
    pub own_pid: u32,
    /// FUSE daemons' process ids ([`crate::SampleProfiler::start`] adds the processes under
    /// them).
    pub daemon_pids: Vec<u32>,
    /// The simulated server hosts' processes (their inits; [`crate::SampleProfiler::start`]
    /// adds every process under them): the cell's, attributed on the CPU as `server COMM`.
    pub server_pids: Vec<u32>,
    /// Threads left out of the off-CPU and lock accounting (the profiler's drainer).
    pub ignored_tids: Vec<u32>,
    /// The target's block device: its dev_t and name.
    pub device: Option<(u32, String)>,
    /// Every block device under the target (dev_t, name), top first: kernel workers serving
    /// them are the cell's.
    pub chain: Vec<(u32, String)>,
    /// The thread that runs the sample (its workers and children are the cell's, its idle
    /// waits for them a helper's); 0 when not known.
    pub runner_tid: u32,
}

/// Which side of the measurement a process is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// fsbench or a process it started.
    Fsbench,
    /// A FUSE daemon serving the target, or a process it started.
    Daemon,
    /// A process of a simulated server host serving the target.
    Server,
}

/// The processes of each side, grown by the forks seen during the sample.
#[derive(Debug, Clone, Default)]
pub struct Sides {
    procs: HashMap<u32, Side>,
}

impl Sides {
    /// The sides as `scope` names them.
    pub fn new(scope: &Scope) -> Self {
        let mut procs = HashMap::new();
        procs.insert(scope.own_pid, Side::Fsbench);
        for &d in &scope.daemon_pids {
            procs.insert(d, Side::Daemon);
        }
        for &s in &scope.server_pids {
            procs.insert(s, Side::Server);
        }
        Self { procs }
    }

    /// A process forked `child`: it joins its parent's side.
    pub fn fork(&mut self, child: u32, parent: u32) {
        if let Some(&side) = self.procs.get(&parent) {
            self.procs.entry(child).or_insert(side);
        }
    }

    /// The side of process `pid`, if it is on one.
    pub fn of(&self, pid: u32) -> Option<Side> {
        self.procs.get(&pid).copied()
    }
}

/// The attribution name of a thread: `fsbench`, `daemon COMM`, `server COMM`, `kworker WORKQUEUE`,
/// `kthread NAME` or `other`. `comms` holds `/proc/TID/comm`, bracketed for kernel threads.
pub fn name(side: Option<Side>, tid: u32, comms: &BTreeMap<u32, String>) -> String {
    let comm = comms.get(&tid).map_or("", String::as_str);
    match side {
        Some(Side::Fsbench) => "fsbench".into(),
        Some(Side::Daemon) => format!("daemon {}", comm.trim_matches(['[', ']'])),
        Some(Side::Server) => format!("server {}", comm.trim_matches(['[', ']'])),
        None => kernel_thread(comm).unwrap_or_else(|| "other".into()),
    }
}

/// A neighbour's name: its command, told apart from the names of the cell's shares (another
/// fsbench on the machine is `fsbench (neighbour)`).
pub fn neighbour(comm: &str) -> String {
    let comm = comm.trim();
    match comm {
        // The thread ended before its name could be read.
        "" => "unnamed".into(),
        c if c.starts_with("fsbench") || c.starts_with("daemon ") => format!("{c} (neighbour)"),
        c => c.to_string(),
    }
}

/// `[kworker/u8:2-fscrypt_read_queue]` (or `+` while it works) → `kworker fscrypt_read_queue`;
/// `[jbd2/loop0-8]` →
/// `kthread jbd2`; `None` for a user thread.
fn kernel_thread(comm: &str) -> Option<String> {
    let inner = comm.strip_prefix('[')?.strip_suffix(']')?;
    if let Some(rest) = inner.strip_prefix("kworker/") {
        // `-WQ`: the last workqueue it served; `+WQ`: the one it serves now.
        return Some(match rest.split_once(['-', '+']) {
            Some((_, wq)) if !wq.is_empty() => format!("kworker {wq}"),
            _ => "kworker".into(),
        });
    }
    // `jbd2/loop0-8`, `ksoftirqd/1`: the part before the slash; `loop3`: without its number.
    let base = match inner.split_once('/') {
        Some((base, _)) => base,
        None => inner.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'),
    };
    Some(format!("kthread {base}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_workers_are_named_by_their_workqueue() {
        let mut comms = BTreeMap::new();
        comms.insert(7, "[kworker/u8:2-fscrypt_read_queue]".to_string());
        comms.insert(8, "[kworker/1:1H]".to_string());
        comms.insert(12, "[kworker/u8:3+fscrypt_read_queue]".to_string());
        comms.insert(9, "[jbd2/loop0-8]".to_string());
        comms.insert(10, "bash".to_string());
        comms.insert(11, "gocryptfs".to_string());
        assert_eq!(name(None, 7, &comms), "kworker fscrypt_read_queue");
        assert_eq!(name(None, 8, &comms), "kworker");
        assert_eq!(name(None, 12, &comms), "kworker fscrypt_read_queue");
        assert_eq!(name(None, 9, &comms), "kthread jbd2");
        assert_eq!(name(None, 10, &comms), "other");
        assert_eq!(name(Some(Side::Daemon), 11, &comms), "daemon gocryptfs");
        assert_eq!(name(Some(Side::Server), 11, &comms), "server gocryptfs");
        assert_eq!(name(Some(Side::Fsbench), 10, &comms), "fsbench");
    }

    #[test]
    fn children_join_their_parents_side() {
        let scope = Scope {
            own_pid: 100,
            daemon_pids: vec![200],
            server_pids: vec![400],
            ..Default::default()
        };
        let mut s = Sides::new(&scope);
        s.fork(101, 100);
        s.fork(102, 101);
        s.fork(201, 200);
        s.fork(301, 300);
        s.fork(401, 400);
        assert_eq!(s.of(401), Some(Side::Server));
        assert_eq!(s.of(102), Some(Side::Fsbench));
        assert_eq!(s.of(201), Some(Side::Daemon));
        assert_eq!(s.of(301), None);
    }
}
