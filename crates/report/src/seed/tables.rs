//! Tables in the seeds' layouts, after the standard tables: `times` (the Chromium study: one row
//! per operation and cache state, real/user/sys/%CPU per target) and `overhead` (the encryption
//! study: each target's headline against the baseline, as an overhead in %).

use crate::format::metric_value;
use crate::names::CellNames;
use crate::table::{Cell, Column, Layout, Table, Tone};
use fsbench_model::{Better, ResultEntry, RunRecord, unit_of};

/// Targets in the order of the results (the first is the baseline).
fn targets(record: &RunRecord) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in &record.results {
        if !v.contains(&r.target) {
            v.push(r.target.clone());
        }
    }
    v
}

/// The cells of every target for one row (`status-scan untracked-cache=on, cold`), in target
/// order, as indices into the results.
fn rows(record: &RunRecord, names: &CellNames) -> Vec<(String, Vec<Option<usize>>)> {
    let ts = targets(record);
    let label = |i: usize| format!("{}, {}", names.workload(i), record.results[i].cache.state);
    let mut out: Vec<(String, Vec<Option<usize>>)> = Vec::new();
    for i in 0..record.results.len() {
        let l = label(i);
        if out.iter().any(|(x, _)| *x == l) {
            continue;
        }
        let cells = ts
            .iter()
            .map(|t| {
                (0..record.results.len()).find(|&j| &record.results[j].target == t && label(j) == l)
            })
            .collect();
        out.push((l, cells));
    }
    out
}

fn mean(r: Option<&ResultEntry>, metric: &str) -> Option<f64> {
    r.and_then(|r| r.summary.get(metric)).map(|s| s.mean)
}

/// A metric's value with its unit, or `-` when the cell has none.
fn value_or_dash(metric: &str, v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| metric_value(metric, v))
}

/// The Chromium study's table: seconds of real, user and sys time and %CPU (means).
pub fn times(record: &RunRecord, names: &CellNames) -> Table {
    let ts = targets(record);
    let mut cols = vec![Column::text("wall clock (s), mean")];
    for t in &ts {
        cols.extend([
            Column::number(&format!("{t} real")),
            Column::number("user"),
            Column::number("sys"),
            Column::number("%CPU"),
        ]);
    }
    let mut table = Table::new(
        "In the seed's layout (real, user, sys in seconds; %CPU = (user+sys)/real):",
        cols,
    );
    table.layout = Layout::Plain;
    for (label, cells) in rows(record, names) {
        let mut row: Vec<Cell> = vec![label.into()];
        for c in cells {
            let c = c.map(|i| &record.results[i]);
            let secs = |m: &str| mean(c, m).map_or("-".into(), |ns| format!("{:.3}", ns / 1e9));
            let cpu =
                mean(c, fsbench_model::metric::CPU_PCT).map_or("-".into(), |p| format!("{p:.0}%"));
            row.extend([
                secs(fsbench_model::metric::WALL_NS).into(),
                secs(fsbench_model::metric::USER_NS).into(),
                secs(fsbench_model::metric::SYS_NS).into(),
                cpu.into(),
            ]);
        }
        table.push(row);
    }
    table
}

/// The encryption study's overhead table: the headline of every cell per target, and each
/// target's overhead against the first in % (positive: slower than the baseline); `None` with
/// no target.
pub fn overhead(record: &RunRecord, names: &CellNames) -> Option<Table> {
    let ts = targets(record);
    let base = ts.first()?;
    let mut cols = vec![Column::text("headline (mean)"), Column::number(base)];
    for t in &ts[1..] {
        cols.extend([Column::number(t), Column::number("overhead")]);
    }
    let mut table = Table::new(
        &format!(
            "Overhead against {base} (how much slower, in %; the seed's \"encryption overhead\"):"
        ),
        cols,
    );
    table.layout = Layout::Plain;
    for (label, cells) in rows(record, names) {
        let Some(bi) = cells[0] else { continue };
        let b = &record.results[bi];
        let metric = &b.headline;
        let mut row: Vec<Cell> = vec![
            format!("{label}: {}", fsbench_model::label_of(metric)).into(),
            value_or_dash(metric, mean(Some(b), metric)).into(),
        ];
        for o in &cells[1..] {
            let other = o.map(|i| (i, &record.results[i]));
            let v = mean(other.map(|o| o.1), metric);
            row.push(value_or_dash(metric, v).into());
            row.push(overhead_cell(record, names, (bi, b), other, v));
        }
        table.push(row);
    }
    Some(table)
}

fn overhead_cell(
    record: &RunRecord,
    names: &CellNames,
    (bi, base): (usize, &ResultEntry),
    other: Option<(usize, &ResultEntry)>,
    v: Option<f64>,
) -> Cell {
    let (Some((oi, _)), Some(v), Some(bv)) = (other, v, mean(Some(base), &base.headline)) else {
        return "-".into();
    };
    let (bl, ol) = (
        names.label(&record.results, bi),
        names.label(&record.results, oi),
    );
    let comparison = record
        .comparisons
        .iter()
        .find(|c| c.baseline == bl && c.other == ol);
    let tone = comparison.map(Tone::of);
    if tone == Some(Tone::NotComparable) {
        return Cell {
            text: "not comparable".into(),
            tone,
        };
    }
    let pct = match unit_of(&base.headline).1 {
        Better::Higher => (bv - v) / bv * 100.0,
        Better::Lower => (v - bv) / bv * 100.0,
    };
    if pct.is_finite() {
        Cell {
            text: format!("{pct:+.0}%"),
            tone,
        }
    } else {
        "-".into()
    }
}
