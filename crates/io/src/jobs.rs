//! Parallel jobs without MPI (fio `numjobs`): N threads released together by one start gate,
//! each timing its own requests with its own recorder, and the pure aggregation of their results
//! into the sample: ops and bytes summed, latency histograms merged exactly (same HDR layout),
//! per-job throughput and IOPS spread as `job_*_min`/`job_*_max`. The sample's wall time spans
//! the jobs' start to the end of the slowest, so aggregate MiB/s and IOPS are totals over it.
//!
//! The aggregation itself lives in `fsbench_measure::aggregate`, shared with the MPI ranks.

use crate::{Context, Recorder, WorkloadError};
use fsbench_measure::SampleRecorder;
use std::sync::{Condvar, Mutex};

pub use fsbench_measure::aggregate::{Aggregate, Combine, PartResult as JobResult};

/// Combines per-job results (the same code and rule as the MPI ranks' merge): flags by their
/// minimum, times by the slowest job, rates summed; spread named `job_*`. `None` for no jobs.
pub fn aggregate(jobs: &[JobResult]) -> Option<Aggregate> {
    fsbench_measure::aggregate::aggregate(jobs, "job", &fsbench_measure::aggregate::combine_by_unit)
}

/// Reports an aggregate into the sample's recorder.
pub fn record(agg: &Aggregate, rec: &mut dyn Recorder) {
    rec.merge_ops(&agg.hist, agg.ops, agg.bytes, agg.series.as_ref());
    for (name, ns) in &agg.phases {
        rec.phase(name, *ns);
    }
    for (name, v) in &agg.metrics {
        rec.metric(name, *v);
    }
}

/// Runs `job` once per state: on the caller's thread with `rec` for one state, else on one
/// thread each, released together, their results aggregated into `rec`. A thread that cannot
/// be started, or a job that fails, fails the sample (the first error is returned).
pub fn run<S, F>(
    ctx: &Context,
    rec: &mut dyn Recorder,
    mut states: Vec<S>,
    job: F,
) -> Result<(), WorkloadError>
where
    S: Send,
    F: Fn(&Context, &mut dyn Recorder, S) -> Result<(), WorkloadError> + Sync,
{
    if states.len() == 1 {
        let s = states.pop().expect("invariant: one state");
        return job(ctx, rec, s);
    }
    let gate = Gate::default();
    let results = std::thread::scope(|scope| {
        let mut handles = Vec::with_capacity(states.len());
        for (i, s) in states.into_iter().enumerate() {
            let (gate, job) = (&gate, &job);
            let spawned = std::thread::Builder::new()
                .name(format!("fsbench-job{i}"))
                .spawn_scoped(scope, move || gate.wait().then(|| one_job(ctx, s, job)));
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    gate.open(false);
                    return Err(WorkloadError::Unsupported(format!(
                        "cannot start job {i}: {e} — use fewer jobs"
                    )));
                }
            }
        }
        gate.open(true);
        collect(handles)
    })?;
    if let Some(agg) = aggregate(&results) {
        record(&agg, rec);
    }
    Ok(())
}

/// Joins the job threads; the first error wins.
fn collect(
    handles: Vec<std::thread::ScopedJoinHandle<'_, Option<Result<JobResult, WorkloadError>>>>,
) -> Result<Vec<JobResult>, WorkloadError> {
    let mut out = Vec::with_capacity(handles.len());
    let mut first_err = None;
    for (i, h) in handles.into_iter().enumerate() {
        match h.join() {
            Ok(Some(Ok(r))) => out.push(r),
            Ok(Some(Err(e))) => {
                first_err.get_or_insert(e);
            }
            Ok(None) => {}
            Err(_) => {
                first_err.get_or_insert(WorkloadError::Invalid(format!("job {i} panicked")));
            }
        }
    }
    first_err.map_or(Ok(out), Err)
}

/// One job on its own recorder, started when the gate opens.
fn one_job<S, F>(ctx: &Context, s: S, job: &F) -> Result<JobResult, WorkloadError>
where
    F: Fn(&Context, &mut dyn Recorder, S) -> Result<(), WorkloadError>,
{
    let mut rec = SampleRecorder::new();
    rec.start();
    job(ctx, &mut rec, s)?;
    let d = rec.finish();
    let hist = rec.histogram().clone();
    Ok(JobResult {
        ops: d.ops,
        bytes: d.bytes,
        elapsed_ns: d.wall_ns,
        hist,
        phases: d.phases,
        metrics: d.metrics,
        progress: d.progress,
        series: d.series,
    })
}

/// The start gate: jobs wait until every thread exists, then all go (or all give up). Also the
/// card's jobs' meeting point: opened by the last job to be ready, or shut when one could not
/// start.
#[derive(Default)]
pub struct Gate {
    state: Mutex<Option<bool>>,
    opened: Condvar,
}

impl Gate {
    /// Opens the gate: `go` true releases the jobs, false makes them return without running.
    pub fn open(&self, go: bool) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        *s = Some(go);
        self.opened.notify_all();
    }

    /// Waits until the gate opens; true to run.
    pub fn wait(&self) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if let Some(go) = *s {
                return go;
            }
            s = self.opened.wait(s).unwrap_or_else(|p| p.into_inner());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CancelToken;

    #[test]
    fn threads_run_every_job_and_report_into_the_sample() {
        let ctx = Context::dir("/nonexistent", CancelToken::new());
        let mut rec = SampleRecorder::new();
        rec.start();
        run(&ctx, &mut rec, vec![1u64, 2, 3, 4], |_, r, n| {
            for _ in 0..n {
                r.op_latency(50, 10);
            }
            Ok(())
        })
        .unwrap();
        let d = rec.finish();
        assert_eq!((d.ops, d.bytes), (10, 100));
        assert_eq!(d.latency.unwrap().count, 10);
        let names: Vec<&str> = d.metrics.iter().map(|(n, _)| n.as_str()).collect();
        assert!(names.contains(&"job_iops_min"), "{names:?}");
    }

    #[test]
    fn a_failing_job_fails_the_sample() {
        let ctx = Context::dir("/nonexistent", CancelToken::new());
        let mut rec = SampleRecorder::new();
        let r = run(&ctx, &mut rec, vec![0u32, 1], |_, _, n| {
            if n == 1 {
                Err(WorkloadError::Invalid("job one".into()))
            } else {
                Ok(())
            }
        });
        assert!(r.unwrap_err().to_string().contains("job one"));
    }
}
