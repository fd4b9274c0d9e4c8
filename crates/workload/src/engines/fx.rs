//! `fx`: one of FxMark's 19 operations (`op=MWCM`), repeated by J jobs (processes or threads)
//! for a fixed time after a warm-up: the points of a character card (`fsbench card`), and a
//! workload like any other (`-w fx:op=MRDM,jobs=1,2,4`).
//!
//! The sample's number is the jobs' operations per second over their common timed window,
//! measured by each job on the monotonic clock (so that starting eight processes is not in it);
//! the machine's CPU split (FxMark's user/sys/idle/iowait) is read over that window too.

use crate::fx::{self, JobOutcome, Window};
use crate::info::WorkloadInfo;
use crate::knob::Knob;
use crate::params::{ParamDoc, ParamError, Params};
use crate::{Caps, Context, Headline, Recorder, Workload, WorkloadError};
use fsbench_io::jobs::Gate;
use fsbench_measure::{CpuSnapshot, MachineCpuNs};
use fsbench_model::card::{CARD_OPS, CardOp, card_op};
use fsbench_model::metric as k;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Registry entry.
pub const INFO: WorkloadInfo = WorkloadInfo {
    name: fsbench_model::card::CARD_WORKLOAD,
    summary: "one of FxMark's 19 operations (op=MWCM) by J jobs for a fixed time: a card's point",
    params: PARAMS,
    build,
    shared: false,
};

/// `op`: the operation, by FxMark's code or its readable name.
const OP: Knob<String> = crate::knob::text(
    fsbench_model::param::OP,
    "MWCM",
    "FxMark's code or name (DRBL read-private … MWRM rename-into-shared-dir; `fsbench card --help` lists them)",
);

/// `jobs`: J, the processes or threads doing the operation together.
const JOBS: Knob<u64> = crate::knobs::queue::JOBS
    .help_as("J: processes (or threads) doing the operation together (a list sweeps: jobs=1,2,4)")
    .counts_workers();

/// `mode`'s values.
const MODES: [&str; 2] = [
    fsbench_model::param::MODE_PROCS,
    fsbench_model::param::MODE_THREADS,
];

/// `mode`: jobs as processes (FxMark's default) or threads.
const MODE: Knob<bool> = Knob::new(
    fsbench_model::param::MODE,
    MODES[0],
    "procs (FxMark's: no shared memory map) or threads",
    |p, k, d| Ok(p.choice(k, &MODES, d)? == MODES[1]),
);

/// `duration`: the timed window.
const DURATION: Knob<u64> = crate::knob::duration(
    fsbench_model::param::DURATION,
    "1s",
    "the timed window of each sample",
);

/// `warmup`: the operation repeated, untimed, before the window.
const WARMUP: Knob<u64> = crate::knob::duration(
    fsbench_model::param::WARMUP,
    "200ms",
    "the operation repeated untimed before the window",
);

/// `bs`: the block of the data operations.
const BS: Knob<u64> = crate::knobs::io::BS.default_to("4k");

const PARAMS: &[ParamDoc] = &[
    OP.doc(),
    JOBS.doc(),
    MODE.doc(),
    DURATION.doc(),
    WARMUP.doc(),
    BS.doc(),
];

/// The most blocks a data operation's block may be (the shared file holds one per job).
const MAX_BS: u64 = 1 << 20;

struct Fx {
    op: &'static CardOp,
    jobs: u64,
    threads: bool,
    duration_ns: u64,
    warmup_ns: u64,
    bs: u64,
    root: Option<PathBuf>,
}

fn build(p: &mut Params) -> Result<Box<dyn Workload>, ParamError> {
    let word = OP.read(p)?;
    let op = card_op(&word).ok_or_else(|| {
        OP.error(format!(
            "unknown operation '{word}': use one of {} (or their names, e.g. create-shared-dir)",
            CARD_OPS.map(|o| o.code).join(", ")
        ))
    })?;
    // Recorded as the code, so that `op=MWCM` and `op=create-shared-dir` are one cell.
    OP.record(p, op.code);
    let bs = BS.read(p)?;
    if bs > MAX_BS {
        return Err(BS.error(format!("{bs} is more than 1m: use a smaller block")));
    }
    Ok(Box::new(Fx {
        op,
        jobs: JOBS.read(p)?,
        threads: MODE.read(p)?,
        duration_ns: DURATION.read(p)?,
        warmup_ns: WARMUP.read(p)?,
        bs,
        root: None,
    }))
}

/// Sleeps until the monotonic clock reads `at`, then reads the machine's CPU counters.
fn machine_at(at: u64) -> CpuSnapshot {
    let now = fx::now_ns();
    if at > now {
        std::thread::sleep(std::time::Duration::from_nanos(at - now));
    }
    CpuSnapshot::take(&[])
}

/// The machine's CPU split over the window `told` will hold, read beside the jobs; `None` when
/// the jobs ended (`done`) before a window was set.
fn watch(told: &OnceLock<Window>, done: &AtomicBool) -> Option<MachineCpuNs> {
    let w = loop {
        if let Some(w) = told.get() {
            break *w;
        }
        if done.load(Ordering::Acquire) {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let start = machine_at(w.start_ns);
    let end = machine_at(w.end_ns);
    end.since(&start, fsbench_measure::clock_ticks_per_s())
        .machine
}

impl Fx {
    fn outcomes(
        &self,
        root: &std::path::Path,
        ctx: &Context,
        told: &OnceLock<Window>,
    ) -> Result<Vec<JobOutcome>, WorkloadError> {
        if !self.threads {
            return fx::procs::run(
                self.op.code,
                root,
                (self.jobs, self.bs),
                (self.warmup_ns, self.duration_ns),
                ctx,
                told,
            );
        }
        let fail = |e: std::io::Error| {
            if ctx.cancel.is_cancelled() || e.kind() == std::io::ErrorKind::Interrupted {
                WorkloadError::Interrupted
            } else {
                WorkloadError::io(self.op.code, root, e)
            }
        };
        // Every job open, then one window for all: the last job ready sets it and opens the
        // gate; a job that cannot start shuts it, so that no other waits for it forever.
        let gate = Gate::default();
        let ready_jobs = AtomicUsize::new(0);
        let ready = || -> std::io::Result<Window> {
            if ready_jobs.fetch_add(1, Ordering::AcqRel) + 1 == self.jobs as usize {
                told.get_or_init(|| Window::after(self.warmup_ns, self.duration_ns));
                gate.open(true);
            }
            match (gate.wait(), told.get()) {
                (true, Some(w)) => Ok(*w),
                _ => Err(std::io::Error::other("another job could not start")),
            }
        };
        let stop = || ctx.cancel.is_cancelled();
        let results: Vec<std::io::Result<JobOutcome>> = std::thread::scope(|s| {
            let mut handles = Vec::new();
            for j in 0..self.jobs {
                let (ready, stop) = (&ready, &stop);
                let spawned = std::thread::Builder::new()
                    .name(format!("fsbench-fx{j}"))
                    .spawn_scoped(s, move || {
                        fx::run_job(self.op, root, (j, self.bs), ready, stop)
                    });
                match spawned {
                    Ok(h) => handles.push(h),
                    Err(e) => {
                        gate.open(false);
                        let failed = std::io::Error::other(format!(
                            "cannot start job thread {j}: {e} — use fewer jobs"
                        ));
                        // The first error is the one reported: this one, before the others'.
                        return std::iter::once(Err(failed))
                            .chain(handles.into_iter().map(|h| {
                                h.join().unwrap_or_else(|_| {
                                    Err(std::io::Error::other("card job panicked"))
                                })
                            }))
                            .collect();
                    }
                }
            }
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(std::io::Error::other("card job panicked")))
                })
                .collect()
        });
        results.into_iter().map(|r| r.map_err(fail)).collect()
    }
}

impl Workload for Fx {
    fn prepare(&mut self, ctx: &Context) -> Result<(), WorkloadError> {
        let root = ctx
            .scratch()
            .ok_or_else(|| WorkloadError::Unsupported("fx needs a directory target".into()))?
            .join("fx");
        fx::ops::Layout::new(&root)
            .prepare(self.op, self.jobs, self.bs)
            .map_err(|e| WorkloadError::io("prepare", &root, e))?;
        self.root = Some(root);
        Ok(())
    }

    fn run(&mut self, ctx: &Context, rec: &mut dyn Recorder) -> Result<(), WorkloadError> {
        let root = self
            .root
            .clone()
            .ok_or_else(|| WorkloadError::Invalid("fx ran before prepare".into()))?;
        let told = OnceLock::new();
        let done = AtomicBool::new(false);
        let (outcomes, cpu) = std::thread::scope(|s| {
            let watcher = s.spawn(|| watch(&told, &done));
            let outcomes = self.outcomes(&root, ctx, &told);
            done.store(true, Ordering::Release);
            (outcomes, watcher.join().ok().flatten())
        });
        let outcomes = outcomes?;
        let ops: u64 = outcomes.iter().map(|o| o.ops).sum();
        rec.add_ops(ops, 0);
        rec.metric(
            k::FX_OPS_PER_S,
            outcomes.iter().map(JobOutcome::ops_per_s).sum(),
        );
        rec.metric(
            k::FX_ALL_OPS,
            outcomes.iter().map(|o| o.all_ops).sum::<u64>() as f64,
        );
        rec.metric(
            k::FX_LATE_START_NS,
            outcomes.iter().map(|o| o.late_ns).max().unwrap_or(0) as f64,
        );
        if let Some(m) = cpu {
            let parts = [
                (k::FX_USER_PCT, m.user_ns as f64),
                (k::FX_SYS_PCT, (m.sys_ns + m.irq_ns) as f64),
                (k::FX_IDLE_PCT, m.idle_ns as f64),
                (k::FX_IOWAIT_PCT, m.iowait_ns as f64),
            ];
            let total: f64 = parts.iter().map(|p| p.1).sum::<f64>() + m.steal_ns as f64;
            if total > 0.0 {
                for (name, v) in parts {
                    rec.metric(name, v / total * 100.0);
                }
            }
        }
        Ok(())
    }

    fn cache_files(&self, _ctx: &Context) -> Vec<PathBuf> {
        Vec::new()
    }

    fn caps(&self) -> Caps {
        let names = self.op.kind.creates() || self.op.kind.unlinks();
        Caps {
            writes: true,
            // The append and truncate files at their cap, a block per job in the shared file.
            space_needed: self.jobs * (fx::ops::GROW_CAP + self.bs),
            inodes_needed: if names {
                self.jobs * fx::ops::BATCH
            } else {
                self.jobs * 8 + fx::ops::SHARED_NAMES
            },
            size_knob: JOBS.key,
            ..Caps::base(Headline::Metric {
                name: k::FX_OPS_PER_S,
                unit: "ops/s",
                higher_is_better: true,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_op(code: &str, jobs: u64, threads: bool, warmup_ns: u64) -> JobOutcome {
        let dir = tempfile::tempdir().unwrap();
        let op = card_op(code).unwrap();
        let root = dir.path().join("fx");
        fx::ops::Layout::new(&root).prepare(op, jobs, 4096).unwrap();
        // The window starts `warmup_ns` after the first job asks (when they run one after
        // another, not once every job is open).
        let told = OnceLock::new();
        let ready = || Ok(*told.get_or_init(|| Window::after(warmup_ns, 300_000_000)));
        let run = |j| fx::run_job(op, &root, (j, 4096), &ready, &|| false).unwrap();
        let all: Vec<JobOutcome> = if threads {
            std::thread::scope(|s| {
                let h: Vec<_> = (0..jobs).map(|j| s.spawn(move || run(j))).collect();
                h.into_iter().map(|h| h.join().unwrap()).collect()
            })
        } else {
            (0..jobs).map(run).collect()
        };
        all.into_iter()
            .fold(JobOutcome::default(), |a, o| JobOutcome {
                ops: a.ops + o.ops,
                all_ops: a.all_ops + o.all_ops,
                active_ns: a.active_ns.max(o.active_ns),
                late_ns: a.late_ns.max(o.late_ns),
            })
    }

    #[test]
    fn every_operation_runs_on_a_temporary_directory_with_two_jobs() {
        for op in CARD_OPS {
            let o = run_op(op.code, 2, true, 50_000_000);
            assert!(o.ops > 0 && o.active_ns > 0, "{}: {o:?}", op.code);
            assert_eq!(o.late_ns / 1_000_000_000, 0, "{}: {o:?}", op.code);
            assert!(o.all_ops >= o.ops, "{}", op.code);
        }
    }

    #[test]
    fn create_and_unlink_loops_recycle_past_a_batch() {
        // A warm-up longer than a batch's recycling on a slow disk (1,000 creates took 460 ms
        // on this machine's /tmp), so that the warm-up recycles too.
        let o = run_op("MWCL", 1, false, 1_500_000_000);
        assert!(o.ops > 0, "{o:?}");
        // More than a batch in the window is possible on any tmp filesystem; the loop must not
        // fail with EEXIST or ENOENT when it goes past one.
        let o = run_op("MWUM", 2, true, 1_500_000_000);
        assert!(o.ops > 0, "{o:?}");
    }

    #[test]
    fn op_takes_codes_and_names_and_refuses_others() {
        for (text, code) in [("op=mwcm", "MWCM"), ("op=create-shared-dir", "MWCM")] {
            let mut p = Params::parse(text).unwrap();
            build(&mut p).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(p.finish(PARAMS).unwrap()["op"], code);
        }
        let mut p = Params::parse("op=NOPE").unwrap();
        let e = build(&mut p).err().unwrap().to_string();
        assert!(
            e.contains("unknown operation 'NOPE'") && e.contains("MWRM"),
            "{e}"
        );
        // Without op=, a shared directory's creates (the readdir seed's question).
        let mut p = Params::parse("").unwrap();
        build(&mut p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.finish(PARAMS).unwrap()["op"], "MWCM");
    }

    #[test]
    fn an_outcome_line_round_trips() {
        let o = JobOutcome {
            ops: 5,
            all_ops: 9,
            active_ns: 1_000,
            late_ns: 3,
        };
        assert_eq!(JobOutcome::parse(&o.line()), Some(o));
        assert_eq!(JobOutcome::parse("5 9"), None);
        assert!((o.ops_per_s() - 5e6).abs() < 1e-6);
    }
}
