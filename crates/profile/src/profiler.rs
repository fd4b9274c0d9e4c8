//! The profiler of this machine, checked once before any work: system-wide perf events allowed,
//! tracefs found (or mounted, read, and unmounted again), the tracepoints' ids and field
//! layouts. A missing optional tracepoint is a note; a missing `sched_switch` stops `--profile`.

use crate::error::ProfileError;
use crate::tracefs::{Format, Tracefs};
use perf_event::Builder;
use perf_event::events::{Software, Tracepoint};

/// On-CPU sampling frequency per CPU, Hz (about 1 kHz, off the round number so that sampling
/// does not fall in step with periodic work).
pub const FREQUENCY_HZ: u64 = 997;

/// A tracepoint this kernel has: its id and the layout of its raw record.
#[derive(Debug, Clone)]
pub struct Point {
    /// The tracepoint's id.
    pub id: u64,
    /// Its fields.
    pub format: Format,
}

/// The tracepoints that tie kernel workers' work items to devices: a work item is queued
/// (`workqueue:workqueue_queue_work`, in the context that queued it: a block request's issue or
/// completion names the device), begun (`workqueue_execute_start`, in the worker: it runs until
/// the worker's next item begins), and a writeback work names its device itself
/// (`writeback:writeback_start`/`_written`).
#[derive(Debug, Clone)]
pub struct WorkPoints {
    /// `workqueue:workqueue_queue_work`.
    pub queue: Point,
    /// `workqueue:workqueue_execute_start`.
    pub start: Point,
    /// `writeback:writeback_start` and `writeback:writeback_written`, those the kernel has.
    pub writeback: Vec<Point>,
}

/// What the profiler found on this machine.
#[derive(Debug, Clone)]
pub struct Profiler {
    /// On-CPU sampling frequency per CPU, Hz.
    pub frequency_hz: u64,
    /// Online CPUs.
    pub cpus: Vec<usize>,
    /// `sched:sched_switch`.
    pub switch: Point,
    /// `lock:contention_begin` and `lock:contention_end`.
    pub locks: Option<(Point, Point)>,
    /// `block:block_rq_issue` and `block:block_rq_complete`.
    pub block: Option<(Point, Point)>,
    /// The tracepoints that tie a kernel worker's work items to the devices they serve.
    pub works: Option<WorkPoints>,
    /// What is missing, for every profile's notes.
    pub notes: Vec<String>,
    /// Said once to the user: what fsbench did to tracefs.
    pub said: Vec<String>,
}

impl Profiler {
    /// Checks that `--profile` can run here and learns the tracepoints; an error names what is
    /// missing and how to allow it.
    pub fn prepare() -> Result<Self, ProfileError> {
        check_perf_events()?;
        let fs = Tracefs::open()?;
        let point = |name: &str| {
            Some(Point {
                id: fs.id(name)?,
                format: fs.format(name)?,
            })
        };
        let switch = point("sched/sched_switch")
            .ok_or_else(|| ProfileError::Tracepoint("sched:sched_switch".into()))?;
        let mut notes = Vec::new();
        let locks = point("lock/contention_begin").zip(point("lock/contention_end"));
        if locks.is_none() {
            notes.push("no lock waits: the kernel lacks lock:contention_begin/end".into());
        }
        let block = point("block/block_rq_issue").zip(point("block/block_rq_complete"));
        if block.is_none() {
            notes.push("no device latency: the kernel lacks block:block_rq_issue/complete".into());
        }
        let works = point("workqueue/workqueue_queue_work")
            .zip(point("workqueue/workqueue_execute_start"))
            .map(|(queue, start)| WorkPoints {
                queue,
                start,
                writeback: ["writeback/writeback_start", "writeback/writeback_written"]
                    .into_iter()
                    .filter_map(point)
                    .collect(),
            });
        if works.is_none() {
            notes.push(
                "kernel workers tied to devices by their names only: the kernel lacks workqueue:workqueue_queue_work/execute_start".into(),
            );
        }
        let mut said = Vec::new();
        if fs.mounted_here() {
            said.push(format!(
                "note: --profile mounted tracefs at {} to read the tracepoints, and unmounted it",
                crate::tracefs::TRACEFS
            ));
        }
        check_tracepoint(switch.id)?;
        Ok(Self {
            frequency_hz: FREQUENCY_HZ,
            cpus: online_cpus(),
            switch,
            locks,
            block,
            works,
            notes,
            said,
        })
    }
}

/// Opens (and closes) one system-wide cpu-clock event: what every sample will need.
fn check_perf_events() -> Result<(), ProfileError> {
    check_opens(Builder::new(Software::CPU_CLOCK))
}

/// Opens (and closes) the tracepoint `id` system-wide.
fn check_tracepoint(id: u64) -> Result<(), ProfileError> {
    check_opens(Builder::new(Tracepoint::with_id(id)))
}

/// Whether `event` opens on CPU 0 for every process, kernel included; why not, in words.
fn check_opens(mut event: Builder<'_>) -> Result<(), ProfileError> {
    event
        .one_cpu(0)
        .any_pid()
        .include_kernel()
        .build()
        .map(drop)
        .map_err(|e| ProfileError::PerfEvents(why(&e)))
}

const EPERM: i32 = 1;
const EACCES: i32 = 13;
const ENOSYS: i32 = 38;

/// The refusal in words, with how to allow it.
fn why(e: &std::io::Error) -> String {
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "unknown".into());
    match e.raw_os_error() {
        Some(EPERM | EACCES) => format!(
            "not allowed (kernel.perf_event_paranoid is {paranoid} and fsbench is not root); run as root, or allow it with 'sysctl kernel.perf_event_paranoid=-1' or CAP_PERFMON"
        ),
        Some(ENOSYS) => "the perf_event_open system call is not available (a container's seccomp profile blocks it, or the kernel lacks CONFIG_PERF_EVENTS); allow perf_event_open".into(),
        _ => format!("{e} (kernel.perf_event_paranoid is {paranoid})"),
    }
}

/// The online CPUs (`/sys/devices/system/cpu/online`: `0-3,6`).
pub fn online_cpus() -> Vec<usize> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap_or_default();
    let mut cpus = parse_cpu_list(text.trim());
    if cpus.is_empty() {
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        cpus = (0..n).collect();
    }
    cpus
}

fn parse_cpu_list(s: &str) -> Vec<usize> {
    s.split(',')
        .filter_map(|r| match r.split_once('-') {
            Some((a, b)) => Some(a.parse().ok()?..=b.parse().ok()?),
            None => r.parse().ok().map(|a| a..=a),
        })
        .flatten()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_expand() {
        assert_eq!(parse_cpu_list("0-3,6"), vec![0, 1, 2, 3, 6]);
        assert_eq!(parse_cpu_list("0"), vec![0]);
        assert!(parse_cpu_list("").is_empty());
    }
}
