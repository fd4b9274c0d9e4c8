//! What the reports are given beside the runs themselves, computed by the analysis: every cell's
//! latency curve (from its merged histograms) and each later run's comparison with the first.

use crate::RunRecord;
use std::collections::BTreeMap;

/// The latency percentiles of one cell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencyCurve {
    /// Operations behind the curve (the merged histograms' count).
    pub count: u64,
    /// (percentile 0–100, latency ns), ascending.
    pub points: Vec<(f64, f64)>,
}

/// One comparison of two runs.
#[derive(Debug, Clone)]
pub struct CrossRun {
    /// `A = …, B = …`.
    pub heading: String,
    /// The environments' differences, in words.
    pub environment: Vec<String>,
    /// Both runs' cells (targets prefixed `A:`/`B:`, A's first) and the comparisons.
    pub merged: RunRecord,
    /// The indices of runs A and B among the report's runs (oldest first).
    pub runs: (usize, usize),
    /// How many cells run A has (the first ones of `merged`).
    pub a_cells: usize,
}

/// Everything the analysis adds for a report of several runs.
#[derive(Debug, Clone, Default)]
pub struct ReportInput {
    /// Each later run compared with the first.
    pub cross: Vec<CrossRun>,
    /// Latency percentile curves by run index (the last run last) and cell index.
    pub latency: BTreeMap<(usize, usize), LatencyCurve>,
}
