//! `--background WORKLOAD`: a second workload that runs continuously on the same target while
//! each measured sample runs (`-w latency --background seq-write:bs=1m` asks what a request
//! costs while the disk writes). It is prepared once beside the measured workload, in its own
//! directory of the scratch, started before each sample (after the cache was made cold), given
//! a moment to reach its pace, and stopped after the sample; what it did meanwhile is recorded
//! with the sample (`background_mib_s`, `background_iops`), so a result says how much load it
//! was measured under.

use fsbench_measure::SampleRecorder;
use fsbench_model::metric as k;
use fsbench_spec::plan::PlanWorkload;
use fsbench_workload::{CancelToken, Context, Params, Target, Workload, WorkloadError};
use std::path::Path;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long the background runs before a sample starts, to be at its pace by then.
pub const SETTLE: Duration = Duration::from_millis(300);

/// A prepared background workload, idle between samples.
pub struct Background {
    /// `None` while it runs (its thread has it).
    workload: Option<Box<dyn Workload>>,
    ctx: Context,
    name: &'static str,
}

/// What the background did while one sample ran.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Done {
    /// Its operations.
    pub ops: u64,
    /// Its bytes.
    pub bytes: u64,
    /// How long it ran (settling included), ns.
    pub elapsed_ns: u64,
    /// The CPU its thread used meanwhile, and that of the programs it ran and reaped (a
    /// `command`'s: reaped children's CPU counts in the whole process's).
    pub cpu: fsbench_measure::CpuTimes,
}

impl Done {
    /// Takes the background's CPU during a sample of `wall_ns` (its share of its own CPU,
    /// pro rata) out of the sample's process CPU, which counted every thread; a timed program's
    /// CPU (a `command`'s) never held it.
    pub fn exclude_cpu(&self, data: &mut fsbench_measure::SampleData) {
        if data.cpu_is_a_programs() {
            return;
        }
        let share = (data.wall_ns as f64 / self.elapsed_ns.max(1) as f64).min(1.0);
        let part = |ns: u64| (ns as f64 * share) as u64;
        data.user_ns = data.user_ns.saturating_sub(part(self.cpu.user_ns));
        data.sys_ns = data.sys_ns.saturating_sub(part(self.cpu.sys_ns));
    }

    /// Its figures as sample metrics.
    pub fn metrics(&self) -> [(String, f64); 3] {
        let secs = (self.elapsed_ns.max(1)) as f64 / 1e9;
        [
            (
                k::BACKGROUND_MIB_S.into(),
                self.bytes as f64 / 1_048_576.0 / secs,
            ),
            (k::BACKGROUND_IOPS.into(), self.ops as f64 / secs),
            (k::BACKGROUND_OPS.into(), self.ops as f64),
        ]
    }
}

/// A background workload running on its own thread.
pub struct Running {
    thread: JoinHandle<(Box<dyn Workload>, Result<Done, WorkloadError>)>,
    stop: CancelToken,
}

impl Background {
    /// Builds and prepares `w` in `dir` (made here) with the measured workload's context.
    pub fn prepare(w: &PlanWorkload, dir: &Path, like: &Context) -> Result<Self, WorkloadError> {
        let mut workload = fsbench_workload::build(w.info, Params::new(w.raw.clone()))
            .map_err(|e| WorkloadError::Invalid(format!("--background: {e}")))?
            .workload;
        std::fs::create_dir(dir).map_err(|e| WorkloadError::io("mkdir", dir, e))?;
        let mut ctx = like.clone();
        ctx.target = Target::Dir(dir.to_path_buf());
        ctx.progress = Default::default();
        workload.prepare(&ctx)?;
        Ok(Self {
            workload: Some(workload),
            ctx,
            name: w.info.name,
        })
    }

    /// Starts it on its own thread and waits [`SETTLE`]; it stops when the run is cancelled
    /// or at [`Running::stop`].
    pub fn start(&mut self) -> Result<Running, WorkloadError> {
        let mut workload = self
            .workload
            .take()
            .expect("invariant: a background is started once per sample");
        let stop = self.ctx.cancel.child();
        let mut ctx = self.ctx.clone();
        ctx.cancel = stop.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("fsbench-bg-{}", self.name))
            .spawn(move || {
                let done = run_until_stopped(workload.as_mut(), &ctx);
                (workload, done)
            });
        let thread = spawned.map_err(|e| {
            WorkloadError::Unsupported(format!("cannot start the background workload: {e}"))
        })?;
        std::thread::sleep(SETTLE);
        Ok(Running { thread, stop })
    }

    /// Removes what it made and its directory (never following symlinks).
    pub fn cleanup(&mut self) {
        if let Some(w) = self.workload.as_mut() {
            let _ = w.cleanup(&self.ctx);
        }
        if let Some(dir) = self.ctx.scratch() {
            let _ = fsbench_scratch::remove_tree(dir);
        }
    }
}

impl Running {
    /// Stops the background and takes it back; what it did, or the error that ended it early.
    pub fn stop(self, bg: &mut Background) -> Result<Done, WorkloadError> {
        self.stop.cancel();
        let (workload, done) = self
            .thread
            .join()
            .map_err(|_| WorkloadError::Invalid("the background workload panicked".into()))?;
        bg.workload = Some(workload);
        done
    }
}

/// Runs `w` sample after sample until `ctx.cancel`; its totals.
fn run_until_stopped(w: &mut dyn Workload, ctx: &Context) -> Result<Done, WorkloadError> {
    let started = Instant::now();
    let cpu_before = fsbench_measure::CpuTimes::thread();
    let (mut ops, mut bytes) = (0, 0);
    let mut programs = fsbench_measure::CpuTimes::default();
    while !ctx.cancel.is_cancelled() {
        let mut rec = SampleRecorder::new();
        let ran = w.before_sample(ctx).and_then(|()| {
            rec.start();
            w.run(ctx, &mut rec)
        });
        let d = rec.finish();
        ops += d.ops;
        bytes += d.bytes;
        if d.cpu_is_a_programs() {
            programs = programs.plus(fsbench_measure::CpuTimes {
                user_ns: d.user_ns,
                sys_ns: d.sys_ns,
            });
        }
        match ran {
            Ok(()) | Err(WorkloadError::Interrupted) => {}
            Err(e) => return Err(e),
        }
        if d.ops == 0 && !ctx.cancel.is_cancelled() {
            return Err(WorkloadError::Invalid(
                "the background workload did nothing in a whole sample — give it work (size=, ops= or duration=)".into(),
            ));
        }
    }
    Ok(Done {
        ops,
        bytes,
        elapsed_ns: started.elapsed().as_nanos() as u64,
        cpu: fsbench_measure::CpuTimes::thread()
            .since(cpu_before)
            .plus(programs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A background `command` reaps its programs: their CPU lands in the whole process's
    /// children's, so the background's share taken out of a measured sample must hold it.
    #[test]
    fn a_background_commands_cpu_is_its_own_not_the_measured_samples() {
        let dir = tempfile::tempdir().unwrap();
        let info = fsbench_workload::find("command").unwrap();
        let run = "run='i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done; touch burnt'";
        let params = Params::parse(run).unwrap();
        let mut w = fsbench_workload::build(info, params).unwrap().workload;
        let ctx = Context::dir(dir.path(), CancelToken::new());
        w.prepare(&ctx).unwrap();
        let stop = ctx.cancel.clone();
        let marker = dir.path().join("burnt");
        // Stopped a second after the first program ended (the next one is killed, not counted).
        let stopper = std::thread::spawn(move || {
            while !marker.exists() {
                std::thread::sleep(Duration::from_millis(10));
            }
            std::thread::sleep(Duration::from_secs(1));
            stop.cancel();
        });
        let done = run_until_stopped(w.as_mut(), &ctx).unwrap();
        stopper.join().unwrap();
        assert!(done.ops > 0, "{done:?}");
        // 300,000 turns of a shell loop take 300 ms or more of CPU; the thread that starts and
        // reaps the program used 16 ms in a debug build.
        let cpu = done.cpu.user_ns + done.cpu.sys_ns;
        assert!(cpu >= 100_000_000, "the program's CPU is in: {done:?}");
    }
}
