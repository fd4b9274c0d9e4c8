//! The timed loop of a card operation (FxMark's), shared by its jobs as threads and as
//! processes: every job opens its files, repeats the operation as warm-up until a common start
//! time on the monotonic clock (the same clock in every process), then counts operations until
//! a common end time. Recycling (a create job removing its batch) pauses the job's clock.

pub mod ops;
pub mod procs;

use fsbench_model::card::CardOp;
use ops::{Job, Layout};
use std::io;
use std::path::Path;

/// What one job did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobOutcome {
    /// Operations in the timed window.
    pub ops: u64,
    /// Every operation, warm-up included.
    pub all_ops: u64,
    /// Time in the timed window spent on operations (recycling excluded), ns.
    pub active_ns: u64,
    /// How late the job began its timed loop after the common start, ns.
    pub late_ns: u64,
}

impl JobOutcome {
    /// The job's rate over its active time.
    pub fn ops_per_s(&self) -> f64 {
        if self.active_ns == 0 {
            0.0
        } else {
            self.ops as f64 * 1e9 / self.active_ns as f64
        }
    }

    /// As one line (`ops all_ops active_ns late_ns`), how a worker process reports it.
    pub fn line(&self) -> String {
        format!(
            "{} {} {} {}\n",
            self.ops, self.all_ops, self.active_ns, self.late_ns
        )
    }

    /// Parses [`JobOutcome::line`].
    pub fn parse(text: &str) -> Option<Self> {
        let mut it = text.split_whitespace().map(|w| w.parse::<u64>().ok());
        Some(Self {
            ops: it.next()??,
            all_ops: it.next()??,
            active_ns: it.next()??,
            late_ns: it.next()??,
        })
    }
}

/// The monotonic clock, ns: one clock for every process of the machine.
pub fn now_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Operations between two looks at the clock and the cancel flag: a look costs about as much
/// as the fastest operation (a cached 4 KiB read), so the window ends at most this many
/// operations late.
const CHECK_EVERY: u64 = 8;

/// The common window of a sample's jobs, on the monotonic clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// When every job begins counting, ns.
    pub start_ns: u64,
    /// When every job stops, ns.
    pub end_ns: u64,
}

impl Window {
    /// The window that starts `warmup_ns` from now and lasts `duration_ns`.
    pub fn after(warmup_ns: u64, duration_ns: u64) -> Self {
        let start_ns = now_ns() + warmup_ns;
        Self {
            start_ns,
            end_ns: start_ns + duration_ns,
        }
    }
}

/// Runs job `job` of `op` under `root` with blocks of `bs`: opens its files, then `ready` (which
/// returns once every job is open) gives the common window; warm-up until its start, counted
/// until its end. `ready` is called even when opening failed, so that no other job waits for
/// this one forever. `stop` is asked between operations; true ends the job as interrupted.
pub fn run_job(
    op: &CardOp,
    root: &Path,
    (job, bs): (u64, u64),
    ready: &dyn Fn() -> io::Result<Window>,
    stop: &dyn Fn() -> bool,
) -> io::Result<JobOutcome> {
    let opened = now_ns();
    let j = Job::open(op, &Layout::new(root), job, bs);
    let window = ready();
    let mut j = j?;
    let Window { start_ns, end_ns } = window?;
    // The longest a recycle took (opening made the first batch): the warm-up ends twice that
    // before the start, then the job recycles, so that its window begins on time and fresh.
    let mut recycle_ns = now_ns() - opened;
    let mut out = JobOutcome::default();
    let interrupted = || io::Error::new(io::ErrorKind::Interrupted, "interrupted");
    // Warm-up: the operation itself, while there is time for a recycle after it (none when
    // a recycle takes longer than the warm-up: the job starts with what opening made).
    while now_ns() + 2 * recycle_ns < start_ns {
        for _ in 0..CHECK_EVERY {
            if j.due() {
                let a = now_ns();
                j.recycle()?;
                recycle_ns = recycle_ns.max(now_ns() - a);
            }
            j.step()?;
            out.all_ops += 1;
        }
        if stop() {
            return Err(interrupted());
        }
    }
    j.fresh()?;
    while now_ns() < start_ns {
        if stop() {
            return Err(interrupted());
        }
        let left = start_ns.saturating_sub(now_ns());
        std::thread::sleep(std::time::Duration::from_nanos(left.min(1_000_000)));
    }
    let t0 = now_ns();
    out.late_ns = t0.saturating_sub(start_ns);
    let mut paused = 0;
    let mut t = t0;
    // A job that starts after the window's end (its recycle took longer than the whole window,
    // say an fsync on a slow disk) still makes one operation: its rate is measured over its own
    // active time, not reported as 0, and its lateness is the sample's `fx_late_start_ns`.
    while t < end_ns || out.ops == 0 {
        if j.due() {
            let a = now_ns();
            j.recycle()?;
            paused += now_ns() - a;
        }
        j.step()?;
        out.ops += 1;
        if out.ops % CHECK_EVERY == 0 {
            if stop() {
                return Err(interrupted());
            }
            t = now_ns();
        }
    }
    out.all_ops += out.ops;
    // To the last operation's end: the operations since the last look at the clock count too.
    out.active_ns = (now_ns() - t0).saturating_sub(paused);
    j.tidy()?;
    Ok(out)
}
