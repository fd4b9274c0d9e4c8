//! Trends across runs (`fsbench trend`): one cell's headline over the stored runs, oldest first,
//! with the lasting steps in it and the environment changes beside each step. What the store
//! reads ([`CellHistory`]) and what the analysis finds ([`Trend`], the JSON of `--export-json`).

use crate::{Better, CacheState};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One cell's headline values in each stored run that has it, oldest run first: what the store
/// reads for a trend (and nothing more).
#[derive(Debug, Clone, PartialEq)]
pub struct CellHistory {
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Canonical parameters.
    pub params: BTreeMap<String, String>,
    /// Swept values.
    pub sweep: BTreeMap<String, String>,
    /// Cache state.
    pub cache: CacheState,
    /// The headline metric's name.
    pub metric: String,
    /// Each run's id, start time and headline values (one per sample), oldest run first.
    pub runs: Vec<RunValues>,
}

/// One run's headline values of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct RunValues {
    /// Run id.
    pub run_id: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// The headline of each sample, in order.
    pub values: Vec<f64>,
}

/// The trends of every cell shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trend {
    /// Confidence of the steps, in percent.
    pub confidence: f64,
    /// One entry per cell, in the order first measured.
    pub cells: Vec<TrendCell>,
}

impl Trend {
    /// What `--fail-on-step` fails on, in one line: the cells whose newest run is on the worse
    /// side of a step; `None` when there is none.
    pub fn step_failure(&self) -> Option<String> {
        let worse = self.cells.iter().filter(|c| c.newest_on_worse_side);
        let names: Vec<&str> = worse.map(|c| c.name.as_str()).collect();
        let list = names.join(", ");
        (!names.is_empty())
            .then(|| format!("the newest run is on the worse side of a step in {list}"))
    }
}

/// One cell over the runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendCell {
    /// `target/workload/cache`, as comparisons name cells.
    pub name: String,
    /// Target label.
    pub target: String,
    /// Workload name.
    pub workload: String,
    /// Canonical parameters.
    pub params: BTreeMap<String, String>,
    /// Swept values.
    pub sweep: BTreeMap<String, String>,
    /// Cache state.
    pub cache: CacheState,
    /// The headline metric.
    pub metric: String,
    /// Its unit.
    pub unit: String,
    /// Which direction is better.
    pub better: Better,
    /// The cell in each run, oldest first.
    pub runs: Vec<TrendRun>,
    /// The lasting steps, newest first.
    pub steps: Vec<TrendStep>,
    /// When the newest run alone differs from the runs since the last step (proven, but by one
    /// run: not yet a step): their level.
    pub newest_differs_from: Option<f64>,
    /// Whether the newest run is on the worse side of a step (what `--fail-on-step` fails on).
    pub newest_on_worse_side: bool,
}

/// The cell's headline in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendRun {
    /// Run id.
    pub run_id: String,
    /// Start time, RFC 3339 UTC.
    pub started_at: String,
    /// Samples.
    pub n: usize,
    /// Median of the samples.
    pub median: f64,
    /// Mean of the samples.
    pub mean: f64,
    /// Lower end of the 95% confidence interval of the mean (`null` for one sample).
    pub ci95_low: Option<f64>,
    /// Upper end of the 95% confidence interval of the mean (`null` for one sample).
    pub ci95_high: Option<f64>,
}

/// A lasting change across runs, proven at the trend's confidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrendStep {
    /// Index in `runs` of the first run at the new level.
    pub index: usize,
    /// That run's id.
    pub run_id: String,
    /// Its start time.
    pub started_at: String,
    /// The run just before it.
    pub previous_run_id: String,
    /// The level before the step (median of the runs' medians back to the previous step).
    pub before: f64,
    /// The level after it (up to the next step).
    pub after: f64,
    /// `after` against `before`, in percent.
    pub change_pct: f64,
    /// Whether the new level is better or worse, by the metric's direction.
    pub worse: bool,
    /// What differs between the environments of the run before and the run at the step
    /// (`kernel: 6.1 → 6.18`), for the machine and this cell's target.
    pub environment: Vec<String>,
}
