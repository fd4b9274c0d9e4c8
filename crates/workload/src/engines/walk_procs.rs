//! The `procs` mode of `walk`: each worker is a separate process (fsbench re-executed with the
//! hidden `__walk-worker` command), as in the readdir-lock study, so per-process kernel state and
//! locks are exercised the way parallel builds and test suites do. Their CPU time reaches the
//! sample through RUSAGE_CHILDREN once they are waited for.

use crate::walker::{StatMode, WalkCounts};
use crate::{Context, WorkloadError};
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// Name of the hidden subcommand the binary routes to [`worker_main`].
pub const WORKER_COMMAND: &str = "__walk-worker";

/// Runs `workers` processes, worker k doing `share(k)` walks of `root`; returns the summed counts.
pub fn run(
    root: &Path,
    workers: u64,
    share: impl Fn(u64) -> u64,
    stat: StatMode,
    ctx: &Context,
) -> Result<WalkCounts, WorkloadError> {
    let exe = std::env::current_exe()
        .map_err(|e| WorkloadError::io("find own executable", "/proc/self/exe", e))?;
    let mut children = Vec::new();
    for k in 0..workers {
        let child = Command::new(&exe)
            .arg(WORKER_COMMAND)
            .arg(root)
            .arg(share(k).to_string())
            .arg(stat_name(stat))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| WorkloadError::io("spawn walk worker", &exe, e));
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
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// Waits for one worker (checking for cancellation) and parses `entries dirs errors`. Its
/// output is a few bytes, so the pipes cannot fill before it exits.
fn wait(child: &mut Child, ctx: &Context) -> Result<WalkCounts, WorkloadError> {
    let status = loop {
        if ctx.cancel.is_cancelled() {
            return Err(WorkloadError::Interrupted);
        }
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) => std::thread::sleep(Duration::from_millis(1)),
            Err(e) => return Err(WorkloadError::io("wait for walk worker", "child", e)),
        }
    };
    let read = |r: Option<&mut dyn Read>| {
        let mut s = String::new();
        if let Some(r) = r {
            let _ = r.read_to_string(&mut s);
        }
        s
    };
    let out = read(child.stdout.as_mut().map(|s| s as &mut dyn Read));
    if !status.success() {
        let err = read(child.stderr.as_mut().map(|s| s as &mut dyn Read));
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
/// exit code.
pub fn worker_main(args: &[String]) -> i32 {
    let (Some(root), Some(n), Some(stat)) = (
        args.first(),
        args.get(1).and_then(|n| n.parse().ok()),
        args.get(2),
    ) else {
        eprintln!("usage: {WORKER_COMMAND} ROOT WALKS lstat|statx|none");
        return 2;
    };
    let stat = match stat.as_str() {
        "statx" => StatMode::Statx,
        "none" => StatMode::None,
        _ => StatMode::Lstat,
    };
    match super::walk::walk_n(Path::new(root), n, stat, &crate::CancelToken::new()) {
        Ok(c) => {
            println!("{} {} {}", c.entries, c.dirs, c.errors);
            0
        }
        Err(e) => {
            eprintln!("{root}: {e}");
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
