//! The regression gate (`--fail-if-slower PCT`): a decision for every headline cell of the
//! baseline and of the new run, and a rule that says how it was reached. The gate never passes
//! what it could not judge: a cell whose interval straddles the threshold is *inconclusive*, a
//! cell measured unlike its baseline is *not comparable*, and a cell present on one side only is
//! *missing*; each of these fails unless the caller allows it.

use fsbench_model::{Better, Comparison, RunRecord};
use std::fmt::Write;

/// What the gate decided for one cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// The whole interval of the change lies within the threshold: not worse by more than PCT.
    Pass,
    /// The whole interval lies beyond the threshold on the worse side: proven slower.
    Slower,
    /// The interval straddles the threshold: the samples cannot tell.
    Inconclusive,
    /// Measured unlike the baseline (the reasons), so no verdict is possible.
    NotComparable(Vec<String>),
    /// In one run only (`baseline` or `new`).
    Missing(&'static str),
}

/// One cell's decision.
#[derive(Debug, Clone, PartialEq)]
pub struct CellDecision {
    /// The cell (`ext4/rand-read/cold`).
    pub cell: String,
    /// The change of the headline metric in percent, with its CI half-width, when compared.
    pub change: Option<(f64, f64)>,
    /// The decision.
    pub decision: Decision,
}

/// The gate's outcome: every cell's decision under the stated rule.
#[derive(Debug, Clone, PartialEq)]
pub struct GateReport {
    /// The threshold, percent.
    pub pct: f64,
    /// The confidence level of the intervals, percent.
    pub confidence: f64,
    /// One decision per cell, baseline order then new cells.
    pub cells: Vec<CellDecision>,
}

impl GateReport {
    /// Cells proven slower.
    pub fn slower(&self) -> usize {
        self.count(|d| *d == Decision::Slower)
    }

    /// Cells the samples cannot decide.
    pub fn inconclusive(&self) -> usize {
        self.count(|d| *d == Decision::Inconclusive)
    }

    /// Cells not comparable or missing on one side.
    pub fn unjudged(&self) -> usize {
        self.count(|d| matches!(d, Decision::NotComparable(_) | Decision::Missing(_)))
    }

    fn count(&self, f: impl Fn(&Decision) -> bool) -> usize {
        self.cells.iter().filter(|c| f(&c.decision)).count()
    }

    /// The rule in words, then one line per cell.
    pub fn text(&self) -> String {
        let mut out = format!(
            "gate: a cell fails when the whole {c}% interval of its headline change lies beyond \
             -{p}% (worse), passes when the whole interval lies above -{p}%, and is inconclusive \
             when the interval contains -{p}%; cells measured unlike their baseline (not \
             comparable) or present in one run only (missing) are not judged and fail unless \
             allowed\n",
            c = self.confidence,
            p = self.pct
        );
        for c in &self.cells {
            let change = c
                .change
                .map(|(d, h)| format!(" {d:+.1}% ± {h:.1}%"))
                .unwrap_or_default();
            let what = match &c.decision {
                Decision::Pass => "pass".to_string(),
                Decision::Slower => "SLOWER".to_string(),
                Decision::Inconclusive => "INCONCLUSIVE".to_string(),
                Decision::NotComparable(why) => format!("NOT COMPARABLE ({})", why.join("; ")),
                Decision::Missing(side) => format!("MISSING (only in the {side} run)"),
            };
            let _ = writeln!(out, "  {}:{change} — {what}", c.cell);
        }
        out
    }
}

/// The gate over `comparisons` of `new` against `base` at threshold `pct`: every cell of either
/// run gets a decision. Changes are signed so that negative is worse for every metric.
pub fn judge(
    base: &RunRecord,
    new: &RunRecord,
    comparisons: &[Comparison],
    pct: f64,
    confidence: f64,
) -> GateReport {
    let mut cells: Vec<CellDecision> = comparisons.iter().map(|c| decide(c, pct)).collect();
    // Cells are matched as the comparison matches them (target, workload, parameters, sweep,
    // cache state): a cell with samples on one side and none on the other is missing.
    let (in_base, in_new) = (measured(base), measured(new));
    let missing = |from: &[&fsbench_model::ResultEntry],
                   other: &[&fsbench_model::ResultEntry],
                   side: &'static str,
                   prefix: &str| {
        from.iter()
            .filter(|e| {
                !other
                    .iter()
                    .any(|o| crate::runs::key(o) == crate::runs::key(e))
            })
            .map(|e| CellDecision {
                cell: format!("{prefix}:{}", cell_name(e)),
                change: None,
                decision: Decision::Missing(side),
            })
            .collect::<Vec<_>>()
    };
    cells.extend(missing(&in_base, &in_new, "baseline", "A"));
    cells.extend(missing(&in_new, &in_base, "new", "B"));
    GateReport {
        pct,
        confidence,
        cells,
    }
}

/// The cells of `r` that have samples.
fn measured(r: &RunRecord) -> Vec<&fsbench_model::ResultEntry> {
    r.results.iter().filter(|e| !e.samples.is_empty()).collect()
}

/// A cell's name with its parameters, which tell apart two cells of one workload.
fn cell_name(e: &fsbench_model::ResultEntry) -> String {
    let params: Vec<String> = e.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!(
        "{} ({})",
        fsbench_model::names::cell_label(e),
        params.join(",")
    )
}

fn decide(c: &Comparison, pct: f64) -> CellDecision {
    // Negative is worse, whichever way the metric is better.
    let sign = match fsbench_model::unit_of(&c.metric).1 {
        Better::Higher => 1.0,
        Better::Lower => -1.0,
    };
    // The interval (the sequential decision's where the sampling stopped on one), signed.
    let (d, lo, hi) = match c.change_pct() {
        (d, lo, hi) if sign > 0.0 => (d, lo, hi),
        (d, lo, hi) => (-d, -hi, -lo),
    };
    let h = (hi - lo) / 2.0;
    let decision = if !c.comparable {
        Decision::NotComparable(c.not_comparable.clone())
    } else if !(lo.is_finite() && hi.is_finite()) {
        Decision::Inconclusive
    } else if hi < -pct {
        Decision::Slower
    } else if lo >= -pct {
        Decision::Pass
    } else {
        Decision::Inconclusive
    };
    CellDecision {
        cell: c.other.clone(),
        change: Some((d, h)),
        decision,
    }
}

/// What the gate decided, with its one-line message.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Every cell passed.
    Pass,
    /// A cell is proven slower, or (unless allowed) could not be judged.
    Failed(String),
    /// No cell failed, but a cell is inconclusive.
    Undecided(String),
}

impl GateReport {
    /// The verdict at the threshold `pct`: failed when a cell is proven slower or, unless
    /// `allow_incomparable`, could not be judged; undecided when a cell is inconclusive. The
    /// message counts each.
    pub fn verdict(&self, pct: f64, allow_incomparable: bool) -> Verdict {
        let (slower, inconclusive, unjudged) =
            (self.slower(), self.inconclusive(), self.unjudged());
        let counts = format!(
            "{slower} slower, {inconclusive} inconclusive, {unjudged} not comparable or missing of {} cells (threshold {pct}%)",
            self.cells.len(),
        );
        if slower > 0 || (unjudged > 0 && !allow_incomparable) {
            let hint = if unjudged > 0 && !allow_incomparable {
                "; --allow-incomparable lets cells that cannot be judged pass"
            } else {
                ""
            };
            return Verdict::Failed(format!(
                "the gate failed: {counts} — see the gate's lines above{hint}"
            ));
        }
        if inconclusive > 0 {
            return Verdict::Undecided(format!(
                "the gate could not decide: {counts} — take more samples (--runs, --runs auto) to narrow the intervals"
            ));
        }
        Verdict::Pass
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comparison(metric: &str, diff: f64, half: f64, comparable: bool) -> Comparison {
        Comparison {
            metric: metric.into(),
            baseline: "A:x/rand-read/cold".into(),
            other: "B:x/rand-read/cold".into(),
            confidence: 95.0,
            difference: 0.0,
            ci_half: 0.0,
            difference_pct: diff,
            ci_half_pct: half,
            proven: diff.abs() > half,
            method: String::new(),
            comparable,
            not_comparable: if comparable {
                Vec::new()
            } else {
                vec!["direct I/O on one side only".into()]
            },
            how_to_compare: None,
            decision: None,
        }
    }

    #[test]
    fn every_interval_gets_the_decision_the_rule_states() {
        let pct = 5.0;
        let d = |c: Comparison| decide(&c, pct).decision;
        // Higher is better (IOPS): a drop is worse.
        assert_eq!(d(comparison("iops", -20.0, 2.0, true)), Decision::Slower);
        assert_eq!(d(comparison("iops", -2.0, 2.0, true)), Decision::Pass);
        assert_eq!(
            d(comparison("iops", -22.7, 18.0, true)),
            Decision::Inconclusive
        );
        assert_eq!(d(comparison("iops", 30.0, 1.0, true)), Decision::Pass);
        // Lower is better (a time): a rise is worse.
        assert_eq!(
            d(comparison("command_ns", 20.0, 2.0, true)),
            Decision::Slower
        );
        assert_eq!(
            d(comparison("command_ns", -20.0, 2.0, true)),
            Decision::Pass
        );
        // A -93% change on unlike cells is not judged, never passed.
        assert!(matches!(
            d(comparison("iops", -93.0, 1.0, false)),
            Decision::NotComparable(_)
        ));
    }

    #[test]
    fn the_report_states_its_rule_and_every_decision() {
        let r = GateReport {
            pct: 5.0,
            confidence: 95.0,
            cells: vec![decide(&comparison("iops", -22.7, 18.0, true), 5.0)],
        };
        let t = r.text();
        assert!(t.contains("whole 95% interval") && t.contains("-5%"), "{t}");
        assert!(t.contains("-22.7% ± 18.0% — INCONCLUSIVE"), "{t}");
        assert_eq!((r.slower(), r.inconclusive(), r.unjudged()), (0, 1, 0));
    }
}
