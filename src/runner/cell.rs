//! One cell of a plan (target × workload × cache state): its built workload, its samples, and
//! taking one sample with the cache prepared as the state demands.

use crate::cache::{self, ColdMethod};
use crate::metrics;
use crate::plan::{CacheState, Runs};
use fsbench_measure::{CpuSnapshot, SampleRecorder, clock_ticks_per_s};
use fsbench_model::Sample;
use fsbench_workload::{Context, Workload, WorkloadError};

/// A workload set up on one target, shared by that target's cache-state cells.
pub struct Prepared {
    /// Index of the target in the plan.
    pub target: usize,
    /// The workload instance.
    pub workload: Box<dyn Workload>,
    /// Where it runs.
    pub ctx: Context,
    /// Set when set-up or a sample failed; the cells of this target stop.
    pub error: Option<String>,
    /// FUSE daemons serving the target or the walked tree, whose CPU each sample records.
    pub daemon_pids: Vec<i32>,
}

/// Sampling state of one cell.
pub struct Cell {
    /// Index into the prepared workloads (one per target).
    pub prepared: usize,
    /// Cache state.
    pub cache: CacheState,
    /// Measured samples.
    pub samples: Vec<Sample>,
    /// Warm-up samples still to discard.
    pub warmup_left: u32,
    /// Sampling time spent so far, ns.
    pub elapsed_ns: u64,
    /// No more samples wanted (policy met or failed).
    pub done: bool,
    /// With `--runs auto`: whether the precision was reached.
    pub precision_reached: Option<bool>,
    /// Warm cells read their files once before the first sample.
    pub primed: bool,
}

impl Cell {
    /// True when the repetition policy is satisfied for `headline` (records, for `auto`,
    /// whether the precision was reached).
    pub fn policy_met(&mut self, runs: Runs, headline: &str) -> bool {
        let n = self.samples.len() as u32;
        match runs {
            Runs::Fixed(k) => n >= k,
            Runs::Auto {
                precision,
                min,
                max,
                max_time_ns,
            } => {
                if n < min {
                    return false;
                }
                let values: Vec<f64> = self
                    .samples
                    .iter()
                    .filter_map(|s| s.metrics.get(headline).copied())
                    .collect();
                let reached = fsbench_stats::summarize(&values)
                    .and_then(|s| {
                        s.ci95_half
                            .map(|h| s.mean != 0.0 && h / s.mean.abs() <= precision)
                    })
                    .unwrap_or(false);
                let out_of_time = max_time_ns.is_some_and(|t| self.elapsed_ns >= t);
                self.precision_reached = Some(reached);
                reached || n >= max || out_of_time
            }
        }
    }
}

/// Takes one sample of `p` in `state`: makes it cold when asked, measures residency, runs.
pub fn take_sample(
    cell: &mut Cell,
    p: &mut Prepared,
    cold: Option<&ColdMethod>,
) -> Result<Sample, WorkloadError> {
    let state = cell.cache;
    p.workload.before_sample(&p.ctx)?;
    let files = p.workload.cache_files(&p.ctx);
    if state == CacheState::Warm && !cell.primed {
        cache::prime(&files);
        cell.primed = true;
    }
    if state == CacheState::Cold {
        let method = cold.expect("invariant: a cold cell has a cold method");
        method.apply(&files, &p.ctx.cancel).map_err(|m| {
            if p.ctx.cancel.is_cancelled() {
                WorkloadError::Interrupted
            } else {
                WorkloadError::Unsupported(format!("cannot make the cache cold: {m}"))
            }
        })?;
    }
    let resident = cache::resident_pct(&files);
    let mut rec = SampleRecorder::new();
    let cpu_before = CpuSnapshot::take(&p.daemon_pids);
    rec.start();
    p.workload.run(&p.ctx, &mut rec)?;
    let data = rec.finish();
    let cpu = CpuSnapshot::take(&p.daemon_pids).since(&cpu_before, clock_ticks_per_s());
    let mut sample = metrics::to_sample(data, resident, &cpu);
    sample.latency_hdr = fsbench_measure::histo::encode(rec.histogram());
    verify_direct(&mut sample.metrics, &files, resident);
    Ok(sample)
}

/// Percentage points by which the page cache may grow during a direct sample before the sample
/// is judged not direct (metadata and the odd readahead page stay far below this).
const DIRECT_LEAK_PCT: f64 = 25.0;

/// A sample that claims direct I/O must leave the page cache as it found it: when the workload's
/// files were mostly uncached before and much more cached after, the I/O went through the page
/// cache. The sample is then recorded as not direct (`direct_used` 0), with the growth.
pub fn verify_direct(
    metrics: &mut impl DirectFlag,
    files: &[std::path::PathBuf],
    before: Option<f64>,
) {
    if metrics.direct_used() != Some(1.0) {
        return;
    }
    let (Some(before), Some(after)) = (before, cache::resident_pct(files)) else {
        return;
    };
    if before < 50.0 && after - before > DIRECT_LEAK_PCT {
        metrics.set("direct_used", 0.0);
        metrics.set("direct_cache_growth_pct", after - before);
    }
}

/// The metrics of a sample, as a finished sample's map or a rank's raw list.
pub trait DirectFlag {
    /// The `direct_used` flag, if recorded.
    fn direct_used(&self) -> Option<f64>;
    /// Sets a metric.
    fn set(&mut self, name: &str, v: f64);
}

impl DirectFlag for std::collections::BTreeMap<String, f64> {
    fn direct_used(&self) -> Option<f64> {
        self.get("direct_used").copied()
    }
    fn set(&mut self, name: &str, v: f64) {
        self.insert(name.into(), v);
    }
}

impl DirectFlag for Vec<(String, f64)> {
    fn direct_used(&self) -> Option<f64> {
        self.iter()
            .find(|(n, _)| n == "direct_used")
            .map(|(_, v)| *v)
    }
    fn set(&mut self, name: &str, v: f64) {
        match self.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = v,
            None => self.push((name.into(), v)),
        }
    }
}
