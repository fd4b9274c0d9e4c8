//! Parallel jobs without MPI (fio `numjobs`): N threads released together by one start gate,
//! each timing its own requests with its own recorder, and the pure aggregation of their results
//! into the sample: ops and bytes summed, latency histograms merged exactly (same HDR layout),
//! per-job throughput and IOPS spread as `job_*_min`/`job_*_max`. The sample's wall time spans
//! the jobs' start to the end of the slowest, so aggregate MiB/s and IOPS are totals over it.
//!
//! [`aggregate`] and [`record`] are plain functions over [`JobResult`]s, so an MPI layer can
//! gather per-rank results and reuse them.

use crate::{Context, Recorder, WorkloadError};
use fsbench_measure::SampleRecorder;
use hdrhistogram::Histogram;
use std::sync::{Condvar, Mutex};

/// What one job did in one sample.
#[derive(Debug, Clone)]
pub struct JobResult {
    /// Operations done.
    pub ops: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// The job's own wall time, from its release to its last operation.
    pub elapsed_ns: u64,
    /// Latencies of its operations.
    pub hist: Histogram<u64>,
    /// Its named phases (e.g. `fsync`) and their times.
    pub phases: Vec<(String, u64)>,
    /// Its named metrics (e.g. `direct_used`).
    pub metrics: Vec<(String, f64)>,
}

/// The jobs of one sample taken together.
#[derive(Debug, Clone)]
pub struct Aggregate {
    /// Operations of all jobs.
    pub ops: u64,
    /// Bytes of all jobs.
    pub bytes: u64,
    /// All latencies, merged.
    pub hist: Histogram<u64>,
    /// Each phase's longest time over the jobs (the sample waits for the slowest).
    pub phases: Vec<(String, u64)>,
    /// Each job metric's minimum over the jobs (a flag is 1 only when every job had it), then
    /// the spread metrics `job_mib_s_min|max` and `job_iops_min|max`.
    pub metrics: Vec<(String, f64)>,
}

/// Combines per-job results; `None` for no jobs.
pub fn aggregate(jobs: &[JobResult]) -> Option<Aggregate> {
    let first = jobs.first()?;
    let mut hist = first.hist.clone();
    hist.reset();
    let (mut ops, mut bytes) = (0, 0);
    for j in jobs {
        add_exact(&mut hist, &j.hist);
        ops += j.ops;
        bytes += j.bytes;
    }
    let mut phases: Vec<(String, u64)> = Vec::new();
    let mut metrics: Vec<(String, f64)> = Vec::new();
    for j in jobs {
        for (name, ns) in &j.phases {
            merge_by(&mut phases, name, *ns, u64::max);
        }
        for (name, v) in &j.metrics {
            merge_by(&mut metrics, name, *v, f64::min);
        }
    }
    metrics.extend(spread(jobs));
    Some(Aggregate {
        ops,
        bytes,
        hist,
        phases,
        metrics,
    })
}

/// Adds `from` into `into` bucket by bucket; value by value if the layouts differ.
fn add_exact(into: &mut Histogram<u64>, from: &Histogram<u64>) {
    if into.add(from).is_err() {
        for v in from.iter_recorded() {
            let _ = into.record_n(v.value_iterated_to(), v.count_at_value());
        }
    }
}

fn merge_by<T: Copy>(list: &mut Vec<(String, T)>, name: &str, v: T, f: fn(T, T) -> T) {
    match list.iter_mut().find(|(n, _)| n == name) {
        Some((_, old)) => *old = f(*old, v),
        None => list.push((name.to_string(), v)),
    }
}

/// Slowest and fastest job by MiB/s and by IOPS, each over its own wall time.
fn spread(jobs: &[JobResult]) -> Vec<(String, f64)> {
    let rate = |n: u64, ns: u64| n as f64 * 1e9 / ns.max(1) as f64;
    let mib: Vec<f64> = jobs
        .iter()
        .map(|j| rate(j.bytes, j.elapsed_ns) / 1_048_576.0)
        .collect();
    let iops: Vec<f64> = jobs.iter().map(|j| rate(j.ops, j.elapsed_ns)).collect();
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    vec![
        ("job_mib_s_min".into(), min(&mib)),
        ("job_mib_s_max".into(), max(&mib)),
        ("job_iops_min".into(), min(&iops)),
        ("job_iops_max".into(), max(&iops)),
    ]
}

/// Reports an aggregate into the sample's recorder.
pub fn record(agg: &Aggregate, rec: &mut dyn Recorder) {
    rec.merge_ops(&agg.hist, agg.ops, agg.bytes);
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
    let hist = rec.histogram().clone();
    let d = rec.finish();
    Ok(JobResult {
        ops: d.ops,
        bytes: d.bytes,
        elapsed_ns: d.wall_ns,
        hist,
        phases: d.phases,
        metrics: d.metrics,
    })
}

/// The start gate: jobs wait until every thread exists, then all go (or all give up).
#[derive(Default)]
struct Gate {
    state: Mutex<Option<bool>>,
    opened: Condvar,
}

impl Gate {
    /// Opens the gate: `go` true releases the jobs, false makes them return without running.
    fn open(&self, go: bool) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        *s = Some(go);
        self.opened.notify_all();
    }

    /// Waits until the gate opens; true to run.
    fn wait(&self) -> bool {
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

    fn job(ops: u64, bytes: u64, elapsed_ns: u64, lats: &[u64], direct: f64) -> JobResult {
        let mut hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).unwrap();
        hist.auto(true);
        for &l in lats {
            hist.record(l).unwrap();
        }
        JobResult {
            ops,
            bytes,
            elapsed_ns,
            hist,
            phases: vec![("fsync".into(), elapsed_ns / 10)],
            metrics: vec![("direct_used".into(), direct)],
        }
    }

    fn get(m: &[(String, f64)], name: &str) -> f64 {
        m.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn aggregation_sums_merges_and_spreads() {
        let a = job(2, 2 << 20, 1_000_000_000, &[100, 300], 1.0);
        let b = job(4, 4 << 20, 2_000_000_000, &[200, 400, 600, 1000], 0.0);
        let agg = aggregate(&[a, b]).unwrap();
        assert_eq!((agg.ops, agg.bytes), (6, 6 << 20));
        assert_eq!(agg.hist.len(), 6);
        assert_eq!((agg.hist.min(), agg.hist.max()), (100, 1000));
        assert_eq!(agg.hist.value_at_quantile(0.5), 300);
        assert_eq!(agg.phases, vec![("fsync".to_string(), 200_000_000)]);
        assert_eq!(get(&agg.metrics, "direct_used"), 0.0);
        assert_eq!(get(&agg.metrics, "job_mib_s_min"), 2.0);
        assert_eq!(get(&agg.metrics, "job_mib_s_max"), 2.0);
        assert_eq!(get(&agg.metrics, "job_iops_min"), 2.0);
        assert_eq!(get(&agg.metrics, "job_iops_max"), 2.0);
        assert!(aggregate(&[]).is_none());
    }

    #[test]
    fn spread_names_the_slowest_and_fastest_job() {
        let a = job(10, 10 << 20, 1_000_000_000, &[1], 1.0);
        let b = job(30, 30 << 20, 1_000_000_000, &[1], 1.0);
        let agg = aggregate(&[a, b]).unwrap();
        assert_eq!(get(&agg.metrics, "job_mib_s_min"), 10.0);
        assert_eq!(get(&agg.metrics, "job_mib_s_max"), 30.0);
        assert_eq!(get(&agg.metrics, "job_iops_max"), 30.0);
        assert_eq!(get(&agg.metrics, "direct_used"), 1.0);
    }

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
