//! `--runs auto` with comparisons: a compared cell samples until every comparison it is part of
//! has ended (`different`, `equivalent`, or out of samples or time), instead of until its own
//! interval is narrow. The comparisons are the record's within one cache state: each target's
//! cell against the first target's (`fsbench_analysis::cells`). Cold against warm on one target
//! is not decided while sampling (the cold cells finish before the warm ones start, so the
//! caches stay as each state needs); its decision is still replayed in the record.

use crate::cell::{Cell, Prepared};
use fsbench_model::ResultEntry;
use fsbench_spec::plan::{Against, Runs, Sequential};
use fsbench_stats::sequential::{self, Question};

/// The compared pairs (baseline, other) among the cells `idx` of one cache state, as indices
/// into `cells`: every target's cell against the first target's.
pub fn pairs(prepared: &[Prepared], cells: &[Cell], idx: &[usize]) -> Vec<(usize, usize)> {
    let target = |i: usize| prepared[cells[i].prepared].target;
    let Some(&base) = idx.iter().find(|&&i| target(i) == 0) else {
        return Vec::new();
    };
    idx.iter()
        .filter(|&&i| i != base && matches!(cells[i].runs, Runs::Auto { .. }))
        .filter(|_| matches!(cells[base].runs, Runs::Auto { .. }))
        .map(|&i| (base, i))
        .collect()
}

/// The cell can take no more samples: it failed, reached `--max-runs` or `--max-time`.
fn exhausted(cell: &Cell, prepared: &[Prepared]) -> bool {
    if prepared[cell.prepared].error.is_some() {
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
/// (`entries`: the cells' results so far, in the order of `cells`): the run's pairs, and its
/// comparison with the `--baseline` cell of the same key (`against`). A comparison is open while
/// it is unsettled, a later look is ahead, neither side is exhausted and the two are
/// comparable; a compared cell stops when none of its comparisons is open, it has `--min-runs`
/// samples, and (with `--precision` given) its own interval is narrow enough.
pub fn settle(
    seq: &Sequential,
    prepared: &[Prepared],
    cells: &mut [Cell],
    pairs: &[(usize, usize)],
    (entries, against): (&[ResultEntry], &[Against]),
) {
    let headline = entries.first().map_or("", |e| e.headline.as_str());
    let values: Vec<Vec<f64>> = cells.iter().map(|c| c.headline_values(headline)).collect();
    let exhausted: Vec<bool> = cells.iter().map(|c| exhausted(c, prepared)).collect();
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
