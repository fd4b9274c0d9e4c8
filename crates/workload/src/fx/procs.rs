//! Card jobs as processes (FxMark's default: processes share no memory map, so the process's
//! own `mmap_lock` is not what a threaded job would measure). Each job is fsbench re-executed
//! with the hidden `__fx-worker` command; it runs [`super::run_job`] and prints its outcome as
//! one line. Each is its own process group, killed with fsbench even on SIGKILL.

use super::{JobOutcome, Window};
use fsbench_io::{Context, WorkloadError};
use fsbench_sys::child::WaitError;
use fsbench_sys::vfork::{Child, Command, Io};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

/// Name of the hidden subcommand the binary routes to [`worker_main`].
pub const WORKER_COMMAND: &str = "__fx-worker";

/// Runs `jobs` worker processes of `op` (its code): once every one has opened its files (each
/// says `ready`), they are given one window (`warmup_ns` from then, `duration_ns` long) on their
/// standard input, also set in `told`; returns their outcomes.
pub fn run(
    op: &str,
    root: &Path,
    (jobs, bs): (u64, u64),
    (warmup_ns, duration_ns): (u64, u64),
    ctx: &Context,
    told: &std::sync::OnceLock<Window>,
) -> Result<Vec<JobOutcome>, WorkloadError> {
    let exe = std::env::current_exe()
        .map_err(|e| WorkloadError::io("find own executable", "/proc/self/exe", e))?;
    let mut children: Vec<Child> = Vec::new();
    let mut outs: Vec<BufReader<std::fs::File>> = Vec::new();
    let fail = |children: &mut Vec<Child>, e: WorkloadError| {
        children.iter_mut().for_each(Child::kill);
        Err(e)
    };
    for k in 0..jobs {
        let mut cmd = Command::new(&exe);
        cmd.arg(WORKER_COMMAND)
            .arg(op)
            .arg(root)
            .args([k, bs].map(|v| v.to_string()));
        // Started without copying fsbench (`fsbench_sys::vfork`), as the `command` workload's
        // programs are: a fork of a grown fsbench per job is no part of what a card measures.
        let started = cmd
            .ready_with([Io::Piped, Io::Piped, Io::Piped])
            .and_then(|ready| ready.spawn(&ctx.cleanup));
        match started {
            Ok(mut c) => {
                let Some(out) = c.take_stdout() else {
                    children.push(c);
                    return fail(
                        &mut children,
                        WorkloadError::Invalid("card job has no output".into()),
                    );
                };
                outs.push(BufReader::new(out));
                children.push(c);
            }
            Err(e) => {
                return fail(
                    &mut children,
                    WorkloadError::Invalid(format!(
                        "cannot start card job {} of {jobs}: {e} — use fewer jobs",
                        k + 1
                    )),
                );
            }
        }
    }
    // Every job open: then the window.
    for (i, out) in outs.iter_mut().enumerate() {
        let mut line = String::new();
        if out.read_line(&mut line).is_err() || line.trim() != "ready" {
            let e = wait(&mut children[i], "", ctx).err().unwrap_or_else(|| {
                WorkloadError::Invalid("card job ended before it was ready".into())
            });
            return fail(&mut children, e);
        }
    }
    let window = *told.get_or_init(|| Window::after(warmup_ns, duration_ns));
    for c in &mut children {
        if let Some(mut input) = c.take_stdin() {
            // A job that cannot read its window fails on its own and says so below.
            let _ = writeln!(input, "{} {}", window.start_ns, window.end_ns);
        }
    }
    let mut outcomes = Vec::with_capacity(children.len());
    for i in 0..children.len() {
        let mut text = String::new();
        let _ = outs[i].read_to_string(&mut text);
        match wait(&mut children[i], &text, ctx) {
            Ok(o) => outcomes.push(o),
            Err(e) => return fail(&mut children, e),
        }
    }
    Ok(outcomes)
}

/// Waits for one worker (checking for cancellation) and parses `text`, the rest of its output:
/// one short line, so the pipe cannot fill before it exits.
fn wait(child: &mut Child, text: &str, ctx: &Context) -> Result<JobOutcome, WorkloadError> {
    let status = match child.wait(&ctx.cancel, None) {
        Ok(s) => s,
        Err(WaitError::Io(e)) => return Err(WorkloadError::io("wait for card job", "child", e)),
        Err(_) => return Err(WorkloadError::Interrupted),
    };
    if !status.success() {
        let mut err = String::new();
        if let Some(mut e) = child.take_stderr() {
            let _ = e.read_to_string(&mut err);
        }
        return Err(WorkloadError::Invalid(format!(
            "card job failed: {}",
            err.trim()
        )));
    }
    JobOutcome::parse(text)
        .ok_or_else(|| WorkloadError::Invalid("card job printed no outcome".into()))
}

/// The worker process: `__fx-worker OP ROOT JOB BS` opens its files, prints `ready`, reads its
/// window (`START_NS END_NS`) from standard input, runs, and prints its outcome line. Returns the
/// exit code.
pub fn worker_main(args: &[String]) -> i32 {
    let num = |i: usize| args.get(i).and_then(|v| v.parse::<u64>().ok());
    let (Some(op), Some(root), Some(job), Some(bs)) = (
        args.first().and_then(|o| fsbench_model::card::card_op(o)),
        args.get(1),
        num(2),
        num(3),
    ) else {
        let _ = writeln!(std::io::stderr(), "usage: {WORKER_COMMAND} OP ROOT JOB BS");
        return 2;
    };
    let ready = || -> std::io::Result<Window> {
        let mut out = std::io::stdout();
        out.write_all(b"ready\n")?;
        out.flush()?;
        let mut line = String::new();
        std::io::stdin().read_line(&mut line)?;
        let mut it = line.split_whitespace().map(|w| w.parse::<u64>().ok());
        match (it.next().flatten(), it.next().flatten()) {
            (Some(start_ns), Some(end_ns)) => Ok(Window { start_ns, end_ns }),
            _ => Err(std::io::Error::other(format!("no window in {line:?}"))),
        }
    };
    match super::run_job(op, Path::new(root), (job, bs), &ready, &|| false) {
        Ok(o) => match std::io::stdout().write_all(o.line().as_bytes()) {
            Ok(()) => 0,
            Err(_) => 3,
        },
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "{} job {job} in {root}: {e}", op.code);
            3
        }
    }
}
