//! The `procs` mode of `walk`: each worker is a separate process (fsbench re-executed with the
//! hidden `__walk-worker` command), as in the readdir-lock study, so per-process kernel state and
//! locks are exercised the way parallel builds and test suites do. Their CPU time reaches the
//! sample through RUSAGE_CHILDREN once they are waited for. Their progress reaches it through a
//! counter in shared memory ([`fsbench_measure::Counter::shared`]) handed to each worker as its
//! standard input: each adds every directory's entries to it as it reads them, as threads do.

use crate::walker::{StatMode, WalkCounts};
use fsbench_io::{Context, WorkloadError};
use fsbench_sys::child::WaitError;
use fsbench_sys::vfork::{Child, Command, Io};
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::path::Path;

/// Name of the hidden subcommand the binary routes to [`worker_main`].
pub const WORKER_COMMAND: &str = "__walk-worker";

/// Runs `workers` processes, worker k doing `share(k)` walks of `root`; returns the summed
/// counts. With a shared `progress` counter, the workers add their entries to it as they go.
pub fn run(
    root: &Path,
    workers: u64,
    share: impl Fn(u64) -> u64,
    stat: StatMode,
    ctx: &Context,
    progress: Option<&fsbench_measure::Counter>,
) -> Result<WalkCounts, WorkloadError> {
    let exe = std::env::current_exe()
        .map_err(|e| WorkloadError::io("find own executable", "/proc/self/exe", e))?;
    let mut children = Vec::new();
    for k in 0..workers {
        let mut cmd = Command::new(&exe);
        cmd.arg(WORKER_COMMAND)
            .arg(root)
            .arg(share(k).to_string())
            .arg(stat_name(stat));
        let stdin = match progress.and_then(|p| p.fd()) {
            Some(fd) => Io::Borrowed(fd),
            None => Io::Null,
        };
        // Own process group, killed with fsbench even on SIGKILL (PR_SET_PDEATHSIG), started
        // without copying fsbench (`fsbench_sys::vfork`): the start is inside the timed walk.
        let child = cmd
            .ready_with([stdin, Io::Piped, Io::Piped])
            .and_then(|ready| ready.spawn(&ctx.cleanup))
            .map_err(|e| {
                WorkloadError::Invalid(format!(
                    "cannot start walk worker {} of {workers}: {e} — use fewer workers",
                    k + 1
                ))
            });
        match child {
            Ok(c) => children.push(c),
            Err(e) => {
                kill_all(&mut children);
                return Err(e);
            }
        }
    }
    let mut total = WalkCounts::default();
    let mut failure = None;
    for child in &mut children {
        match wait(child, ctx) {
            Ok(c) => total.add(c),
            Err(e) => {
                failure.get_or_insert(e);
            }
        }
        if failure.is_some() {
            break;
        }
    }
    if let Some(e) = failure {
        kill_all(&mut children);
        return Err(e);
    }
    Ok(total)
}

fn stat_name(stat: StatMode) -> &'static str {
    match stat {
        StatMode::Lstat => "lstat",
        StatMode::Statx => "statx",
        StatMode::None => "none",
    }
}

fn kill_all(children: &mut [Child]) {
    for c in children.iter_mut() {
        c.kill();
    }
}

/// Waits for one worker (checking for cancellation) and parses `entries dirs errors`. Its
/// output is a few bytes, so the pipes cannot fill before it exits.
fn wait(child: &mut Child, ctx: &Context) -> Result<WalkCounts, WorkloadError> {
    let status = match child.wait(&ctx.cancel, None) {
        Ok(s) => s,
        Err(WaitError::Io(e)) => return Err(WorkloadError::io("wait for walk worker", "child", e)),
        Err(_) => return Err(WorkloadError::Interrupted),
    };
    let read = |r: Option<std::fs::File>| {
        let mut s = String::new();
        if let Some(mut r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    };
    let out = read(child.take_stdout());
    if !status.success() {
        let err = read(child.take_stderr());
        return Err(WorkloadError::Invalid(format!(
            "walk worker failed: {}",
            err.trim()
        )));
    }
    parse_counts(&out).ok_or_else(|| WorkloadError::Invalid("walk worker printed no counts".into()))
}

fn parse_counts(text: &str) -> Option<WalkCounts> {
    let mut it = text.split_whitespace().map(|w| w.parse::<u64>().ok());
    Some(WalkCounts {
        entries: it.next()??,
        dirs: it.next()??,
        errors: it.next()??,
    })
}

/// The worker process: `__walk-worker ROOT N STAT` → prints `entries dirs errors`. Returns the
/// exit code. When its standard input is a shared counter, each directory's entries are added
/// to it as they are read.
pub fn worker_main(args: &[String]) -> i32 {
    let (Some(root), Some(n), Some(stat)) = (
        args.first(),
        args.get(1).and_then(|n| n.parse().ok()),
        args.get(2),
    ) else {
        let _ = writeln!(
            std::io::stderr(),
            "usage: {WORKER_COMMAND} ROOT WALKS lstat|statx|none"
        );
        return 2;
    };
    let stat = match stat.as_str() {
        "statx" => StatMode::Statx,
        "none" => StatMode::None,
        _ => StatMode::Lstat,
    };
    let progress = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(fsbench_measure::Counter::open);
    match crate::walker::walk_n(
        Path::new(root),
        n,
        stat,
        &fsbench_io::CancelToken::new(),
        progress.as_ref(),
    ) {
        Ok(c) => {
            use std::io::Write;
            let line = format!("{} {} {}\n", c.entries, c.dirs, c.errors);
            match std::io::stdout().write_all(line.as_bytes()) {
                Ok(()) => 0,
                Err(_) => 3,
            }
        }
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{root}: {e}");
            3
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse() {
        assert_eq!(
            parse_counts("10 2 0\n"),
            Some(WalkCounts {
                entries: 10,
                dirs: 2,
                errors: 0
            })
        );
        assert_eq!(parse_counts("x"), None);
    }
}
