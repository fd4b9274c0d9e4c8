//! `--runs auto` with comparisons: a compared cell samples until every comparison it is part of
//! has ended (`different`, `equivalent`, or out of samples or time), instead of until its own
//! interval is narrow. The comparisons are the record's within one cache state: each target's
//! cell against the first target's (`fsbench_analysis::cells`). Cold against warm on one target
//! is not decided while sampling (the cold cells finish before the warm ones start, so the
//! caches stay as each state needs); its decision is still replayed in the record.

use crate::cell::Cell;
use fsbench_model::ResultEntry;
use fsbench_spec::plan::{Against, Runs, Sequential};
use fsbench_stats::sequential::{self, Question};

/// The compared pairs (baseline, other) among the cells `idx` of one cache state, as indices
/// into `cells`: every target's cell against the first target's (`targets[i]`: cell `i`'s).
pub fn pairs(targets: &[usize], cells: &[Cell], idx: &[usize]) -> Vec<(usize, usize)> {
    let target = |i: usize| targets[i];
    let Some(&base) = idx.iter().find(|&&i| target(i) == 0) else {
        return Vec::new();
    };
    idx.iter()
        .filter(|&&i| i != base && matches!(cells[i].runs, Runs::Auto { .. }))
        .filter(|_| matches!(cells[base].runs, Runs::Auto { .. }))
        .map(|&i| (base, i))
        .collect()
}

/// The cell can take no more samples: it `failed`, reached `--max-runs` or `--max-time`.
fn exhausted(cell: &Cell, failed: bool) -> bool {
    if failed {
        return true;
    }
    match cell.runs {
        Runs::Auto {
            max, max_time_ns, ..
        } => cell.samples.len() as u32 >= max || max_time_ns.is_some_and(|t| cell.elapsed_ns >= t),
        _ => cell.done,
    }
}

/// After a round: whether each compared cell goes on, from the comparisons it is part of
/// (`failed[i]`: cell `i`'s workload failed; `entries`: the cells' results so far, in the order
/// of `cells`): the run's pairs, and its
/// comparison with the `--baseline` cell of the same key (`against`). A comparison is open while
/// it is unsettled, a later look is ahead, neither side is exhausted and the two are
/// comparable; a compared cell stops when none of its comparisons is open, it has `--min-runs`
/// samples, and (with `--precision` given) its own interval is narrow enough.
pub fn settle(
    seq: &Sequential,
    failed: &[bool],
    cells: &mut [Cell],
    pairs: &[(usize, usize)],
    (entries, against): (&[ResultEntry], &[Against]),
) {
    let headline = entries.first().map_or("", |e| e.headline.as_str());
    let values: Vec<Vec<f64>> = cells.iter().map(|c| c.headline_values(headline)).collect();
    let exhausted: Vec<bool> = cells
        .iter()
        .zip(failed)
        .map(|(c, &f)| exhausted(c, f))
        .collect();
    let mut open = vec![false; cells.len()];
    let mut compared: Vec<usize> = Vec::new();
    for &(b, o) in pairs {
        compared.extend([b, o]);
        if exhausted[b] || exhausted[o] {
            continue;
        }
        // A pair measured unlike (direct I/O on one side, one side still cached) gets no
        // verdict however many samples it takes: it holds neither cell.
        if !fsbench_analysis::cells::not_comparable(&entries[b], &entries[o]).is_empty() {
            continue;
        }
        if sequential::open(&seq.plan, &values[b], &values[o]) {
            open[b] = true;
            open[o] = true;
        }
    }
    for (i, e) in entries.iter().enumerate() {
        let Some(stored) = against.iter().find(|a| matches(a, e)) else {
            continue;
        };
        compared.push(i);
        let q = Question {
            fixed_base: true,
            gate_pct: stored.gate_pct,
        };
        if !exhausted[i] && sequential::open_as(&seq.plan, q, &stored.values, &values[i]) {
            open[i] = true;
        }
    }
    for i in compared {
        let c = &mut cells[i];
        let Runs::Auto { min, .. } = c.runs else {
            continue;
        };
        let enough = c.samples.len() as u32 >= min
            && (!seq.precision_asked || c.precision_reached == Some(true));
        if !seq.precision_asked {
            // Its comparisons decide when it stops, not its own precision: nothing to report.
            c.precision_reached = None;
        }
        c.done = exhausted[i] || (!open[i] && enough);
    }
}

/// The stored cell `a` is this run's cell `e`: same target label, workload, parameters, sweep
/// and cache state (as `fsbench compare` matches cells).
pub fn matches(a: &Against, e: &ResultEntry) -> bool {
    a.target == e.target
        && a.workload == e.workload
        && a.params == e.params
        && a.sweep == e.sweep
        && a.cache == e.cache.state
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{CacheInfo, CacheState, Sample};
    use std::collections::BTreeMap;

    const METRIC: &str = fsbench_model::metric::WALL_NS;

    fn auto(min: u32, max: u32) -> Runs {
        Runs::Auto {
            precision: 0.05,
            min,
            max,
            max_time_ns: None,
        }
    }

    fn cell(values: &[f64], runs: Runs) -> Cell {
        Cell {
            prepared: 0,
            cache: CacheState::Warm,
            samples: values
                .iter()
                .map(|v| Sample::new(*v as u64, 0, 0, 1, 0).with_metrics([(METRIC, *v)]))
                .collect(),
            warmup_left: 0,
            rewarm: false,
            elapsed_ns: 0,
            done: false,
            precision_reached: None,
            steady: None,
            runs,
            primed: true,
            last_wall_ns: None,
        }
    }

    fn entry(target: &str, c: &Cell) -> ResultEntry {
        ResultEntry {
            target: target.into(),
            workload: "null".into(),
            params: BTreeMap::new(),
            sweep: BTreeMap::new(),
            cache: CacheInfo {
                state: CacheState::Warm,
                method: "none".into(),
                resident_pct: None,
            },
            headline: METRIC.into(),
            also_shown: Vec::new(),
            samples: c.samples.clone(),
            summary: BTreeMap::new(),
            precision_reached: None,
            steady: None,
            warnings: Vec::new(),
            error: None,
            bound: None,
            profile: None,
        }
    }

    fn seq(min: usize, max: usize) -> Sequential {
        Sequential {
            plan: sequential::Plan::new(0.95, 0.03, min, max),
            precision_asked: false,
        }
    }

    /// One round's settling of a two-target pair with `a` and `b`'s values.
    fn settle_pair(a: &[f64], b: &[f64], runs: Runs, failed: [bool; 2]) -> [bool; 2] {
        let mut cells = vec![cell(a, runs), cell(b, runs)];
        let entries = vec![entry("a", &cells[0]), entry("b", &cells[1])];
        let pairs = pairs(&[0, 1], &cells, &[0, 1]);
        assert_eq!(pairs, vec![(0, 1)]);
        settle(&seq(3, 12), &failed, &mut cells, &pairs, (&entries, &[]));
        [cells[0].done, cells[1].done]
    }

    #[test]
    fn every_target_is_paired_with_the_first_when_both_sample_automatically() {
        let runs = auto(3, 12);
        let cells = vec![cell(&[], runs), cell(&[], runs), cell(&[], runs)];
        assert_eq!(pairs(&[0, 1, 2], &cells, &[0, 1, 2]), vec![(0, 1), (0, 2)]);
        // The first target's cell is the baseline wherever it stands.
        assert_eq!(pairs(&[1, 0, 2], &cells, &[0, 1, 2]), vec![(1, 0), (1, 2)]);
        // A fixed count is not decided while sampling.
        let fixed = vec![cell(&[], Runs::Fixed(5)), cell(&[], runs)];
        assert!(pairs(&[0, 1], &fixed, &[0, 1]).is_empty());
        // No cell of the first target: nothing to compare with.
        assert!(pairs(&[1, 2], &cells[..2], &[0, 1]).is_empty());
    }

    #[test]
    fn a_clear_difference_stops_both_cells_at_the_first_look() {
        let a = [100.0, 101.0, 99.0];
        let b = [200.0, 202.0, 198.0];
        assert_eq!(settle_pair(&a, &b, auto(3, 12), [false; 2]), [true, true]);
    }

    #[test]
    fn an_undecided_pair_samples_on_until_a_side_is_exhausted_or_failed() {
        // Wide and overlapping: neither different nor within ±3%.
        let a = [100.0, 140.0, 70.0];
        let b = [110.0, 60.0, 150.0];
        assert_eq!(settle_pair(&a, &b, auto(3, 12), [false; 2]), [false, false]);
        // At the maximum the pair is over, undecided.
        assert_eq!(settle_pair(&a, &b, auto(3, 3), [false; 2]), [true, true]);
        // A failed side ends the comparison: the other stops at its minimum.
        assert_eq!(
            settle_pair(&a, &b, auto(3, 12), [false, true]),
            [true, true]
        );
        // Below the minimum nothing stops.
        assert_eq!(
            settle_pair(&a[..2], &b[..2], auto(3, 12), [false; 2]),
            [false, false]
        );
    }

    #[test]
    fn a_cell_against_a_stored_baseline_stops_when_that_comparison_settles() {
        let runs = auto(3, 12);
        let mut cells = vec![cell(&[100.0, 101.0, 99.0], runs)];
        let entries = vec![entry("a", &cells[0])];
        let against = |values: Vec<f64>| Against {
            target: "a".into(),
            workload: "null".into(),
            params: BTreeMap::new(),
            sweep: BTreeMap::new(),
            cache: CacheState::Warm,
            values,
            gate_pct: None,
        };
        let open = [against(vec![100.0, 140.0, 70.0, 120.0, 80.0])];
        settle(&seq(3, 12), &[false], &mut cells, &[], (&entries, &open));
        assert!(!cells[0].done, "undecided against the baseline: goes on");
        let far = [against(vec![300.0, 301.0, 299.0, 302.0, 298.0])];
        settle(&seq(3, 12), &[false], &mut cells, &[], (&entries, &far));
        assert!(cells[0].done, "decided against the baseline: stops");
        assert!(matches(&far[0], &entries[0]));
    }
}
