//! `run` in the drop-in: one postmark execution in fresh scratch directories (one per
//! `set location`, or one in the current directory), postmark's progress messages, then the
//! report computed the way postmark computes it (whole seconds from the wall clock at its four
//! `time()` calls, derived here from nanosecond readings) and fsbench's precise timings.

use crate::engine::{self as postmark, Location, OpKind, OpLog, Outcome, Progress};
use crate::lang::Settings;
use crate::report::{self, Precise, ReportData};
use fsbench_io::{CancelToken, WorkloadError};
use fsbench_measure::{Clock, CpuTimes, MonotonicClock, Recorder, SampleRecorder};
use fsbench_model::Failure;
use fsbench_scratch::Scratch;
use fsbench_sys::cleanup::Cleanup;
use std::io::Write;
use std::os::fd::AsFd;
use std::path::Path;

/// Why a run did not happen or failed.
#[derive(Debug)]
pub enum RunError {
    /// The configuration cannot run (postmark's limits): an input error at the `run` line.
    Config {
        /// What is wrong.
        what: String,
        /// How to fix it.
        hint: String,
    },
    /// Scratch, I/O or interruption: ends the program.
    Failed(Failure),
}

/// The texts a successful run produced: postmark's report (none when out of files) and
/// fsbench's precise block.
pub struct RunOutput {
    /// Verbose or terse report.
    pub report: Option<String>,
    /// The precise timings block.
    pub precise: String,
}

/// Records per-kind latencies (one histogram per kind on a shared clock) and prints progress.
struct PrintLog<'a> {
    out: &'a mut dyn Write,
    clock: MonotonicClock,
    kinds: [SampleRecorder<MonotonicClock>; 4],
}

impl OpLog for PrintLog<'_> {
    fn now_ns(&mut self) -> u64 {
        self.clock.now_ns()
    }

    fn op(&mut self, kind: OpKind, start_ns: u64, bytes: u64) -> u64 {
        self.kinds[kind as usize].op_done(start_ns, bytes)
    }

    fn progress(&mut self, event: Progress) {
        let text = match event {
            Progress::SubdirsStart => "Creating subdirectories...",
            Progress::CreateStart => "Creating files...",
            Progress::TransactionsStart => "Performing transactions",
            Progress::Dot => ".",
            Progress::OutOfFiles => {
                "out of files!\nFor this workload, either increase the number of files or\n\
                 decrease the number of transactions.\n"
            }
            Progress::DeleteStart => "Deleting files...",
            Progress::RmdirStart => "Deleting subdirectories...",
            Progress::SubdirsDone
            | Progress::CreateDone
            | Progress::TransactionsDone
            | Progress::DeleteDone
            | Progress::RmdirDone => "Done\n",
        };
        // Progress is best effort: a closed stdout must not abort the measurement.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }
}

fn scratch_error(e: fsbench_scratch::ScratchError) -> RunError {
    let err = match e.errno {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) | Some(libc::EIO) => Failure::run(e.message),
        _ => Failure::input(e.message),
    };
    RunError::Failed(err)
}

fn make_scratches(
    s: &Settings,
    run_no: u32,
    cleanup: &Cleanup,
) -> Result<Vec<(Scratch, u32)>, RunError> {
    let locations = if s.locations.is_empty() {
        vec![(".".to_string(), 1)]
    } else {
        s.locations.clone()
    };
    let pid = std::process::id();
    let mut scratches = Vec::new();
    for (i, (dir, weight)) in locations.iter().enumerate() {
        let id = format!("postmark-{pid}-{run_no}-{i}");
        // As `run -t /proc` does: a kernel interface is not a filesystem to measure.
        if let Some(fs) = fsbench_sys::fskind::kernel_interface(Path::new(dir)) {
            return Err(RunError::Failed(Failure::input(format!(
                "location {dir} is on {fs}, a kernel interface, not a filesystem fsbench can measure — give a directory on the filesystem to test"
            ))));
        }
        let scratch =
            Scratch::create_guarded(Path::new(dir), &id, cleanup).map_err(scratch_error)?;
        scratches.push((scratch, *weight));
    }
    Ok(scratches)
}

fn workload_error(e: WorkloadError) -> RunError {
    RunError::Failed(match e {
        WorkloadError::Interrupted => Failure::interrupted(),
        WorkloadError::NoSpace { .. } => Failure::run(format!(
            "postmark run failed: {e} — free space, or lower `set number` or `set size`"
        )),
        e => Failure::run(format!(
            "postmark run failed: {e} — check the location (permissions, filesystem health)"
        )),
    })
}

/// Runs postmark once with `s`; progress goes to `out`.
pub fn run(
    s: &Settings,
    run_no: u32,
    cancel: &CancelToken,
    out: &mut dyn Write,
    cleanup: &Cleanup,
) -> Result<RunOutput, RunError> {
    s.cfg.validate().map_err(|what| RunError::Config {
        what: what.to_string(),
        hint: "change the setting before `run`".into(),
    })?;
    let scratches = make_scratches(s, run_no, cleanup)?;
    let dirs = scratches
        .iter()
        .map(|(sc, _)| std::fs::File::open(sc.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| RunError::Failed(Failure::run(format!("cannot open scratch: {e}"))))?;
    let locs: Vec<Location<'_>> = scratches
        .iter()
        .zip(&dirs)
        .map(|((sc, w), d)| Location {
            dir: d.as_fd(),
            path: sc.path(),
            weight: *w,
        })
        .collect();
    let clock = MonotonicClock::new();
    let mut log = PrintLog {
        out,
        clock: clock.clone(),
        kinds: std::array::from_fn(|_| SampleRecorder::with_clock(clock.clone())),
    };
    log.kinds.iter_mut().for_each(SampleRecorder::start);
    let cpu0 = CpuTimes::process();
    let (wall0, mono0) = (std::time::SystemTime::now(), clock.now_ns());
    let outcome = postmark::run(&s.cfg, &locs, &mut log, cancel).map_err(workload_error)?;
    let cpu = CpuTimes::process().since(cpu0);
    let latency = log.kinds.each_mut().map(|k| k.finish().latency);
    drop(locs);
    drop(dirs);
    for (sc, _) in scratches {
        sc.remove()
            .map_err(|e| RunError::Failed(Failure::run(e.message)))?;
    }
    let wall0_ns = wall0
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let secs = |mark: u64| ((wall0_ns + mark.saturating_sub(mono0)) / 1_000_000_000) as i64;
    let data = report_data(s, &outcome, secs);
    let text = if s.terse {
        report::terse(&data)
    } else {
        report::verbose(&data)
    };
    let m = outcome.marks;
    let precise = report::precise(&Precise {
        phases_ns: [
            m.t_start_ns - m.start_ns,
            m.t_end_ns - m.t_start_ns,
            m.end_ns - m.t_end_ns,
        ],
        transactions: outcome.transactions_done,
        incomplete: outcome.out_of_files,
        latency,
        cpu_ns: (cpu.user_ns, cpu.sys_ns),
    });
    Ok(RunOutput {
        report: (!outcome.out_of_files).then_some(text),
        precise,
    })
}

/// Postmark's report numbers: `time()` readings are whole seconds of the wall clock.
fn report_data(s: &Settings, o: &Outcome, secs: impl Fn(u64) -> i64) -> ReportData {
    let m = o.marks;
    let (start, t_start, t_end, end) = (
        secs(m.start_ns),
        secs(m.t_start_ns),
        secs(m.t_end_ns),
        secs(m.end_ns),
    );
    let c = &o.counts;
    ReportData {
        elapsed: report::diff_time(end, start),
        t_elapsed: report::diff_time(t_end, t_start),
        create_interval: report::diff_time(t_start, start),
        delete_interval: report::diff_time(end, t_end),
        transactions: s.cfg.transactions as i32,
        simultaneous: s.cfg.number as i32,
        files_created: c.files_created as i32,
        files_deleted: c.files_deleted as i32,
        files_read: c.files_read as i32,
        files_appended: c.files_appended as i32,
        deleted_alone: c.deleted_alone as i32,
        bytes_read: c.bytes_read_f32,
        bytes_written: c.bytes_written_f32,
    }
}
