//! The kernel's evidence per sample (`--profile`): system-wide on-CPU call chains sampled with
//! `perf_event_open`, off-CPU intervals from `sched:sched_switch`, lock waits from
//! `lock:contention_begin/end`, the device's requests from `block:block_rq_issue/complete`;
//! symbolized from `/proc/kallsyms`, attributed to who did the work, reduced to reasons and
//! folded stacks (the model's [`fsbench_model::Profile`]).
#![warn(missing_docs)]

pub mod collect;
pub mod device;
pub mod error;
pub mod fold;
pub mod invariants;
pub mod kallsyms;
pub mod locks;
pub mod merge;
pub mod pairing;
pub mod profiler;
pub mod reason;
pub mod recording;
pub mod reduce;
pub mod roles;
pub mod symbolize;
pub mod tracefs;
pub mod who;
pub mod works;

pub use error::ProfileError;
pub use profiler::Profiler;
pub use recording::Recording;
pub use who::Scope;

use std::sync::OnceLock;

static PREPARED: OnceLock<Profiler> = OnceLock::new();

/// Checks, once before any work, that `--profile` can run, and keeps what was learned for
/// every sample of the run. Returns the lines to tell the user (a tracefs mounted and
/// unmounted).
pub fn prepare() -> Result<Vec<String>, ProfileError> {
    if let Some(p) = PREPARED.get() {
        return Ok(p.said.clone());
    }
    let p = Profiler::prepare()?;
    let said = p.said.clone();
    let _ = PREPARED.set(p);
    Ok(said)
}

/// The profiler [`prepare`] checked; `None` before it was.
pub fn prepared() -> Option<&'static Profiler> {
    PREPARED.get()
}

/// The threads of `processes` (`/proc/PID/task`).
fn threads(processes: &[u32]) -> Vec<u32> {
    let list = |pid: &u32| {
        std::fs::read_dir(format!("/proc/{pid}/task"))
            .into_iter()
            .flatten()
    };
    let names = processes.iter().flat_map(list).flatten();
    names
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// `roots` and every process under them (`/proc/PID/task/TID/children`, recursively).
fn descendants(roots: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let mut todo: Vec<u32> = roots.to_vec();
    while let Some(pid) = todo.pop() {
        if out.contains(&pid) {
            continue;
        }
        out.push(pid);
        for tid in threads(&[pid]) {
            let text = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/children"));
            let children = text.unwrap_or_default();
            todo.extend(
                children
                    .split_whitespace()
                    .filter_map(|c| c.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// Records one sample: started just before its timed region, stopped just after.
pub struct SampleProfiler {
    running: collect::Running,
    scope: Scope,
}

impl SampleProfiler {
    /// Starts recording for `scope`; `None` when the profiler was not prepared or an event could
    /// not be opened (the sample is then taken without a profile).
    pub fn start(mut scope: Scope) -> Option<Self> {
        // A daemon's children (the `ssh` sshfs talks through) are the daemon's side.
        scope.daemon_pids = descendants(&scope.daemon_pids);
        let running = prepared()?.start(&threads(&scope.daemon_pids)).ok()?;
        scope.ignored_tids.push(running.drainer_tid());
        scope.runner_tid = rustix::thread::gettid().as_raw_nonzero().get() as u32;
        scope.server_pids = descendants(&scope.server_pids);
        Some(Self { running, scope })
    }

    /// Stops recording and reduces what was recorded to the sample's profile.
    pub fn stop(
        self,
        windows: Option<&fsbench_model::calls::CallWindows>,
    ) -> fsbench_model::Profile {
        let p = prepared().expect("invariant: started from the prepared profiler");
        let mut processes = vec![self.scope.own_pid];
        processes.extend(&self.scope.daemon_pids);
        let rec = self.running.stop(p, &processes);
        reduce::reduce(&rec, &self.scope, windows)
    }
}
