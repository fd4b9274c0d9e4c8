//! A process tree's work so far, from `/proc`: the I/O counters (`/proc/PID/io`: bytes read and
//! written at the storage layer, read and write system calls) and CPU time (`/proc/PID/stat`:
//! user and system time, its reaped children's included) of a process and every descendant
//! still alive, found through `/proc/PID/task/TID/children`. A child that exits and is reaped
//! has its counters added to its parent's by the kernel, so the sum over the live tree keeps
//! growing; the short moments where it does not (a child gone, its parent not yet updated) are
//! left to the reader ([`crate::Ticker`] never lets a source go back). A `command` sample's
//! series is read this way, once per interval.

use crate::RawSeries;
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

/// What a process tree has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TreeWork {
    /// Bytes read from and written to storage (`read_bytes` + `write_bytes`).
    pub bytes: u64,
    /// Read and write system calls (`syscr` + `syscw`).
    pub syscalls: u64,
    /// User and system CPU, in clock ticks (`utime + stime + cutime + cstime`).
    pub cpu_ticks: u64,
    /// Processes read.
    pub processes: u64,
}

impl TreeWork {
    fn add(&mut self, o: TreeWork) {
        self.bytes += o.bytes;
        self.syscalls += o.syscalls;
        self.cpu_ticks += o.cpu_ticks;
        self.processes += o.processes;
    }
}

/// A process tree watched while it runs: a [`crate::Ticker`] reading [`read_tree`] of its root
/// at every interval's end, the read system calls and storage bytes as operations and bytes.
/// Started before the root exists (so the thread's start is outside what is timed) and told
/// its pid once it is spawned; stopped while the root is still a zombie, so the last reading
/// holds everything.
pub struct TreeWatch {
    root: Arc<AtomicI32>,
    ticker: Option<crate::Ticker>,
    series: Option<RawSeries>,
}

impl TreeWatch {
    /// Starts the watching thread, reading every `interval_ns`; `None` when it cannot start.
    pub fn start(interval_ns: u64) -> Option<Self> {
        let root = Arc::new(AtomicI32::new(0));
        let pid = root.clone();
        let mut last = (0, 0);
        let ticker = crate::Ticker::start_with(interval_ns, move || {
            let p = pid.load(Ordering::Relaxed);
            if let Some(w) = (p > 0).then(|| read_tree(p)).flatten() {
                last = (w.syscalls, w.bytes);
            }
            last
        })?;
        Some(Self {
            root,
            ticker: Some(ticker),
            series: None,
        })
    }

    /// The root process to read from now on.
    pub fn set_root(&self, pid: u32) {
        self.root.store(pid as i32, Ordering::Relaxed);
    }

    /// Takes the last reading and stops (again: nothing).
    pub fn stop(&mut self) {
        if let Some(t) = self.ticker.take() {
            self.series = Some(t.finish());
        }
    }

    /// Stops if still running; the series: operations are read and write system calls, bytes
    /// the storage bytes read and written.
    pub fn finish(mut self) -> RawSeries {
        self.stop();
        self.series.take().unwrap_or_default()
    }
}

/// Most processes of a tree that are read: a fork bomb must not make the reader the load.
const MAX_PROCESSES: usize = 4096;

/// Reads the tree under `root` (itself included); `None` when `root` itself cannot be read.
pub fn read_tree(root: i32) -> Option<TreeWork> {
    let mut total = read_one(root)?;
    let mut todo = parse_children(&fsbench_sys::proc::process_children(root));
    let mut seen = 1;
    while let Some(pid) = todo.pop() {
        if seen >= MAX_PROCESSES {
            break;
        }
        seen += 1;
        if let Some(w) = read_one(pid) {
            total.add(w);
            todo.extend(parse_children(&fsbench_sys::proc::process_children(pid)));
        }
    }
    Some(total)
}

/// One process's counters.
fn read_one(pid: i32) -> Option<TreeWork> {
    let io = parse_io(&fsbench_sys::proc::process_io(pid)?)?;
    let cpu = fsbench_sys::proc::process_stat(pid).and_then(|t| parse_stat_cpu(&t));
    Some(TreeWork {
        cpu_ticks: cpu.unwrap_or(0),
        processes: 1,
        ..io
    })
}

/// Storage bytes and read/write system calls from the text of `/proc/PID/io`.
pub fn parse_io(text: &str) -> Option<TreeWork> {
    let field = |name: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().parse().ok())
    };
    Some(TreeWork {
        bytes: field("read_bytes")? + field("write_bytes")?,
        syscalls: field("syscr")? + field("syscw")?,
        ..TreeWork::default()
    })
}

/// utime + stime + cutime + cstime (fields 14 to 17), in clock ticks, from `/proc/PID/stat`.
pub fn parse_stat_cpu(text: &str) -> Option<u64> {
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    let (_, rest) = text.rsplit_once(')')?;
    let f: Vec<&str> = rest.split_ascii_whitespace().skip(11).take(4).collect();
    if f.len() < 4 {
        return None;
    }
    f.iter().map(|v| v.parse::<u64>().ok()).sum()
}

/// The pids listed in `children` files (space-separated); anything else is skipped.
pub fn parse_children(text: &str) -> Vec<i32> {
    text.split_ascii_whitespace()
        .filter_map(|p| p.parse().ok())
        .filter(|&p: &i32| p > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `/proc/PID/io` of `dd if=/dev/zero of=f bs=1M count=64 conv=fsync` on ext4, at its end.
    const IO: &str = "rchar: 67110783\nwchar: 67108864\nsyscr: 72\nsyscw: 64\n\
                      read_bytes: 4096\nwrite_bytes: 67108864\ncancelled_write_bytes: 0\n";

    #[test]
    fn io_counters_parse_into_bytes_and_syscalls() {
        let w = parse_io(IO).unwrap();
        assert_eq!((w.bytes, w.syscalls), (67_112_960, 136));
        assert_eq!(parse_io("rchar: 1\n"), None);
        assert_eq!(parse_io(""), None);
    }

    #[test]
    fn cpu_ticks_count_from_the_last_parenthesis() {
        let stat = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 120 0 0 0 \
                    30 12 5 3 20 0 1 0 1000 1000000 100";
        assert_eq!(parse_stat_cpu(stat), Some(30 + 12 + 5 + 3));
        assert_eq!(parse_stat_cpu("1 (x) S 1"), None);
        assert_eq!(parse_stat_cpu("no parenthesis"), None);
    }

    #[test]
    fn children_lists_parse_and_skip_noise() {
        assert_eq!(parse_children("12 34 \n 56 x -1 0"), vec![12, 34, 56]);
        assert!(parse_children("").is_empty());
    }

    #[test]
    fn this_process_tree_can_be_read() {
        let me = std::process::id() as i32;
        let w = read_tree(me).unwrap();
        assert!(w.processes >= 1 && w.syscalls > 0, "{w:?}");
        assert_eq!(read_tree(i32::MAX), None);
    }

    #[test]
    fn a_watched_tree_counts_its_childrens_work_until_it_exits() {
        let mut w = TreeWatch::start(5_000_000).unwrap();
        let mut child = std::process::Command::new("sh")
            .args([
                "-c",
                "for i in 1 2 3 4 5 6; do head -c 100000 /dev/zero >/dev/null; sleep 0.01; done",
            ])
            .spawn()
            .unwrap();
        w.set_root(child.id());
        std::thread::sleep(std::time::Duration::from_millis(30));
        // Stopped while it may still run, then again: the second stop changes nothing.
        let _ = child.wait();
        w.stop();
        let s = w.finish();
        assert!(s.intervals.len() >= 2, "{s:?}");
        assert!(s.intervals.iter().map(|i| i.ops).sum::<u64>() > 0, "{s:?}");
    }
}
