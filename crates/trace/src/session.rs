//! One recording: the tracing cost calibrated, the program run traced into a [`Trace`], then
//! run untraced for the overhead line ("traced run took 1.7× the untraced").

use crate::model::{StopCost, Trace};
use crate::record::Recorder;
use fsbench_sys::cancel::CancelToken;
use fsbench_sys::cleanup::Cleanup;
use fsbench_sys::tracer;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Instant;

/// The hidden subcommand the calibration traces: `fsbench __trace-calibrate N` stats its
/// current directory N times and exits.
pub const CALIBRATE_COMMAND: &str = "__trace-calibrate";

/// The calibration program's body; returns its exit code.
pub fn calibrate_main(args: &[String]) -> i32 {
    let Some(n) = args.first().and_then(|a| a.parse::<u64>().ok()) else {
        return 2;
    };
    for _ in 0..n {
        let _ = std::fs::symlink_metadata(".");
    }
    0
}

/// The hidden subcommand between the tracer's attach and the program: `fsbench __trace-exec
/// PROGRAM ARGS…` installs the seccomp filter, then becomes PROGRAM (`execvp`).
pub const EXEC_COMMAND: &str = "__trace-exec";

/// The trampoline's body: returns only when PROGRAM could not be run (exit code 127).
pub fn exec_main(args: &[std::ffi::OsString]) -> i32 {
    use std::os::unix::process::CommandExt;
    let Some(program) = args.first() else {
        return 2;
    };
    if let Err(e) = tracer::install_filter(&fsbench_sys::fscalls::traced()) {
        eprintln!("fsbench: error: cannot install the recording's seccomp filter: {e}");
        return 127;
    }
    let e = std::process::Command::new(program).args(&args[1..]).exec();
    eprintln!(
        "fsbench: error: cannot run '{}': {e}",
        program.to_string_lossy()
    );
    127
}

/// `program` as `execvp` would find it: a path with a slash as it is, a name on `$PATH`; an
/// error saying why it cannot run.
fn find_program(program: &std::ffi::OsStr) -> std::io::Result<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let runnable = |p: &std::path::Path| {
        p.is_file() && rustix::fs::access(p, rustix::fs::Access::EXEC_OK).is_ok()
    };
    if program.as_bytes().contains(&b'/') {
        let p = PathBuf::from(program);
        if !p.exists() {
            return Err(std::io::Error::from_raw_os_error(libc::ENOENT));
        }
        if !runnable(&p) {
            return Err(std::io::Error::from_raw_os_error(libc::EACCES));
        }
        return Ok(p);
    }
    let path = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| runnable(p))
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "not found on $PATH"))
}

/// What to record.
#[derive(Debug, Clone)]
pub struct Request {
    /// The program and its arguments.
    pub command: Vec<OsString>,
    /// The root: absolute, symlinks resolved.
    pub root: PathBuf,
    /// Untraced runs after the traced one (0: none, for a program that cannot run twice).
    pub untraced: usize,
    /// A shell command run before the traced run and before each untraced one (untimed,
    /// untraced), to restore what the program changes.
    pub prepare: Option<String>,
    /// This fsbench's executable (the calibration runs it).
    pub exe: PathBuf,
}

/// A finished recording.
#[derive(Debug)]
pub struct Recorded {
    /// The trace.
    pub trace: Trace,
    /// How the traced run of the program ended.
    pub status: ExitStatus,
    /// How each untraced run ended, when one failed.
    pub untraced_failed: Option<ExitStatus>,
}

/// Why a recording did not finish.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The program could not be started.
    #[error("cannot run '{program}': {source} — check the command")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The tracer failed.
    #[error("cannot trace '{program}': {source}")]
    Trace {
        /// The program.
        program: String,
        /// Why.
        source: std::io::Error,
    },
    /// The `--prepare` command failed.
    #[error("the --prepare command '{command}' {why} — fix it, or record without --prepare")]
    Prepare {
        /// The command.
        command: String,
        /// How it failed.
        why: String,
    },
    /// Interrupted.
    #[error("interrupted")]
    Interrupted,
}

/// Runs the `--prepare` command, if any, through `sh -c` in the current directory.
fn prepare(req: &Request, cancel: &CancelToken) -> Result<(), RecordError> {
    let Some(command) = &req.prepare else {
        return Ok(());
    };
    if cancel.is_cancelled() {
        return Err(RecordError::Interrupted);
    }
    let failed = |why: String| RecordError::Prepare {
        command: command.clone(),
        why,
    };
    let status = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| failed(format!("could not run: {e}")))?;
    if cancel.is_cancelled() {
        return Err(RecordError::Interrupted);
    }
    if !status.success() {
        return Err(failed(format!("ended with {status}")));
    }
    Ok(())
}

/// Calibrates, records `req.command` traced, then runs it `req.untraced` times untraced.
pub fn record(
    req: &Request,
    cleanup: &Cleanup,
    cancel: &CancelToken,
) -> Result<Recorded, RecordError> {
    let program = req
        .command
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    if req.command.is_empty() {
        return Err(RecordError::Spawn {
            program,
            source: std::io::ErrorKind::InvalidInput.into(),
        });
    }
    find_program(&req.command[0]).map_err(|source| RecordError::Spawn {
        program: program.clone(),
        source,
    })?;
    let (overhead, stop_cost) =
        calibrate(&req.exe, cleanup, cancel).map_err(|source| RecordError::Trace {
            program: program.clone(),
            source,
        })?;
    prepare(req, cancel)?;
    let mut cmd = std::process::Command::new(&req.exe);
    cmd.arg(EXEC_COMMAND).args(&req.command);
    let mut recorder = Recorder::new(&req.root);
    let traced = tracer::trace(&mut cmd, cleanup, cancel, &mut recorder).map_err(|source| {
        if cancel.is_cancelled() || source.kind() == std::io::ErrorKind::Interrupted {
            RecordError::Interrupted
        } else if source.kind() == std::io::ErrorKind::NotFound
            || source.kind() == std::io::ErrorKind::PermissionDenied
        {
            RecordError::Spawn {
                program: program.clone(),
                source,
            }
        } else {
            RecordError::Trace {
                program: program.clone(),
                source,
            }
        }
    })?;
    let mut trace = recorder.finish();
    trace.command = req
        .command
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    trace.wall_ns = traced.wall_ns;
    trace.call_overhead_ns = overhead;
    trace.stop_cost = stop_cost;
    trace.prepare = req.prepare.clone();
    let mut untraced_failed = None;
    for _ in 0..req.untraced {
        prepare(req, cancel)?;
        let (ns, cpu_ns, status) =
            run_untraced(&req.command, cleanup, cancel).map_err(|source| {
                if cancel.is_cancelled() {
                    RecordError::Interrupted
                } else {
                    RecordError::Spawn {
                        program: program.clone(),
                        source,
                    }
                }
            })?;
        if !status.success() {
            untraced_failed = Some(status);
        }
        trace.untraced_wall_ns.push(ns);
        trace.untraced_cpu_ns.extend(cpu_ns);
    }
    if req.untraced > 0 {
        trace.reran_cpu_ns = crate::rerun::rerun(&trace, &req.root, rerun_rounds(&trace));
    }
    Ok(Recorded {
        trace,
        status: traced.status,
        untraced_failed,
    })
}

/// Rounds of the reads made again: three, the least kept; one when they read over 256 MiB, none
/// over 4 GiB (a paced replay then keeps the threads' clocks as they are).
fn rerun_rounds(trace: &Trace) -> u32 {
    let read: u64 = trace
        .calls
        .iter()
        .filter(|c| !c.outside)
        .map(|c| c.op.bytes(c.result).0)
        .sum();
    match read {
        r if r > 4 << 30 => 0,
        r if r > 256 << 20 => 1,
        _ => 3,
    }
}

/// The command as the `command` workload starts it (the cheap spawn), its output discarded:
/// spawn to exit, ns; the CPU time it and its children took, ns.
fn run_untraced(
    command: &[OsString],
    cleanup: &Cleanup,
    cancel: &CancelToken,
) -> std::io::Result<(u64, Option<u64>, ExitStatus)> {
    let mut cmd = fsbench_sys::vfork::Command::new(&command[0]);
    cmd.args(&command[1..]);
    if let Ok(dir) = std::env::current_dir() {
        cmd.current_dir(dir);
    }
    use fsbench_sys::vfork::Io;
    let ready = cmd.ready_with([Io::Null, Io::Null, Io::Null])?;
    let start = Instant::now();
    let mut child = ready.spawn(cleanup)?;
    let pid = child.id() as i32;
    let mut cpu_ns = None;
    let status = child
        .wait_then(cancel, None, &mut || {
            cpu_ns = fsbench_sys::child::cpu_ns_of_exited(pid);
        })
        .map_err(|e| match e {
            fsbench_sys::child::WaitError::Io(e) => e,
            fsbench_sys::child::WaitError::Cancelled => std::io::ErrorKind::Interrupted.into(),
            fsbench_sys::child::WaitError::TimedOut(_) => std::io::ErrorKind::TimedOut.into(),
        })?;
    let end = child.exited_at().unwrap_or_else(Instant::now);
    Ok((end.duration_since(start).as_nanos() as u64, cpu_ns, status))
}

/// Calls each calibration run makes.
const CALIBRATION_CALLS: u64 = 5000;

/// What tracing adds to a call, ns: the calibration program traced with and without
/// [`CALIBRATION_CALLS`] stats of its directory (the least of three runs each, by a recorder
/// like the real one), less what those stats take untraced; and what each stop costs the
/// program's own clocks, from the fastest traced run's calls ([`stop_cost`]).
fn calibrate(
    exe: &std::path::Path,
    cleanup: &Cleanup,
    cancel: &CancelToken,
) -> std::io::Result<(u64, Option<StopCost>)> {
    let traced = |n: u64| -> std::io::Result<(u64, Trace)> {
        let mut best = (u64::MAX, Trace::default());
        for _ in 0..3 {
            let mut cmd = std::process::Command::new(exe);
            cmd.arg(EXEC_COMMAND)
                .arg(exe)
                .arg(CALIBRATE_COMMAND)
                .arg(n.to_string())
                .current_dir("/");
            let mut r = Recorder::new(std::path::Path::new("/"));
            let t = tracer::trace(&mut cmd, cleanup, cancel, &mut r)?;
            if t.wall_ns < best.0 {
                best = (t.wall_ns, r.finish());
            }
        }
        Ok(best)
    };
    let (base, _) = traced(0)?;
    let (with, trace) = traced(CALIBRATION_CALLS)?;
    let mut untraced = u64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..CALIBRATION_CALLS {
            let _ = std::fs::symlink_metadata("/");
        }
        untraced = untraced.min(t.elapsed().as_nanos() as u64);
    }
    let per_call = with.saturating_sub(base).saturating_sub(untraced) / CALIBRATION_CALLS;
    Ok((per_call, stop_cost(&trace, untraced / CALIBRATION_CALLS)))
}

/// What each stop cost the calibration program's clocks: the means of its stats' gaps (it
/// does next to nothing between them) and of the stats themselves less `untraced_ns`, what a
/// stat takes untraced; means, not medians, because a program's stops have the same rare
/// long ones (an interrupt, a fault) and its gaps are summed. `None` when the kernel did not
/// say.
fn stop_cost(trace: &Trace, untraced_ns: u64) -> Option<StopCost> {
    let stats: Vec<&crate::model::Call> = trace
        .calls
        .iter()
        .filter(|c| matches!(c.op, crate::model::Op::Stat { .. }) && c.hidden == 0)
        .collect();
    let mean = |f: &dyn Fn(&crate::model::Call) -> Option<u64>| -> Option<u64> {
        let v: Vec<u64> = stats.iter().filter_map(|c| f(c)).collect();
        (!v.is_empty()).then(|| v.iter().sum::<u64>() / v.len() as u64)
    };
    Some(StopCost {
        gap_cpu_ns: mean(&|c| c.before.map(|b| b.cpu_ns))?,
        gap_off_ns: mean(&|c| c.before.map(|b| b.off_ns))?,
        call_cpu_ns: mean(&|c| c.during.map(|d| d.cpu_ns))?.saturating_sub(untraced_ns),
        call_off_ns: mean(&|c| c.during.map(|d| d.off_ns))?,
    })
}
