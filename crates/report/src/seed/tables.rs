//! Reports in the seeds' layouts, after the standard tables: `times` (the Chromium study: one row
//! per operation and cache state, real/user/sys/%CPU per target) and `overhead` (the encryption
//! study: each target's headline against the baseline, as an overhead in %).

use crate::format::metric_value;
use crate::terminal::label_of;
use comfy_table::{Cell, CellAlignment, Table, presets};
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

/// `status-scan untracked-cache=on, cold`: the row of a cell, without its target.
fn row_label(r: &ResultEntry) -> String {
    let sweep: String = r.sweep.iter().map(|(k, v)| format!(" {k}={v}")).collect();
    format!("{}{sweep}, {}", r.workload, r.cache.state)
}

/// Cells of every target for one row, in target order.
fn rows(record: &RunRecord) -> Vec<(String, Vec<Option<&ResultEntry>>)> {
    let ts = targets(record);
    let mut out: Vec<(String, Vec<Option<&ResultEntry>>)> = Vec::new();
    for r in &record.results {
        let label = row_label(r);
        if out.iter().any(|(l, _)| *l == label) {
            continue;
        }
        let cells = ts
            .iter()
            .map(|t| {
                record
                    .results
                    .iter()
                    .find(|c| &c.target == t && row_label(c) == label)
            })
            .collect();
        out.push((label, cells));
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

fn right(s: String) -> Cell {
    Cell::new(s).set_alignment(CellAlignment::Right)
}

fn new_table(head: Vec<String>) -> Table {
    let mut t = Table::new();
    t.load_preset(presets::NOTHING);
    t.set_header(head);
    t
}

/// The Chromium study's table: seconds of real, user and sys time and %CPU (means).
pub fn times(record: &RunRecord) -> String {
    let ts = targets(record);
    let mut head = vec![String::from("wall clock (s), mean")];
    for t in &ts {
        head.extend([
            format!("{t} real"),
            "user".into(),
            "sys".into(),
            "%CPU".into(),
        ]);
    }
    let mut table = new_table(head);
    for (label, cells) in rows(record) {
        let mut row = vec![Cell::new(label)];
        for c in cells {
            let secs = |m: &str| mean(c, m).map_or("-".into(), |ns| format!("{:.3}", ns / 1e9));
            let cpu =
                mean(c, fsbench_model::metric::CPU_PCT).map_or("-".into(), |p| format!("{p:.0}%"));
            row.extend([
                right(secs(fsbench_model::metric::WALL_NS)),
                right(secs(fsbench_model::metric::USER_NS)),
                right(secs(fsbench_model::metric::SYS_NS)),
                right(cpu),
            ]);
        }
        table.add_row(row);
    }
    format!(
        "\nIn the seed's layout (real, user, sys in seconds; %CPU = (user+sys)/real):\n{table}\n"
    )
}

/// The encryption study's overhead table: the headline of every cell per target, and each
/// target's overhead against the first in % (positive: slower than the baseline).
pub fn overhead(record: &RunRecord) -> String {
    let ts = targets(record);
    let Some(base) = ts.first() else {
        return String::new();
    };
    let mut head = vec![String::from("headline (mean)"), base.clone()];
    for t in &ts[1..] {
        head.extend([t.clone(), "overhead".into()]);
    }
    let mut table = new_table(head);
    for (label, cells) in rows(record) {
        let Some(b) = cells[0] else { continue };
        let metric = &b.headline;
        let mut row = vec![
            Cell::new(format!("{label}: {}", fsbench_model::label_of(metric))),
            right(value_or_dash(metric, mean(Some(b), metric))),
        ];
        for o in &cells[1..] {
            let v = mean(*o, metric);
            row.extend([
                right(value_or_dash(metric, v)),
                right(overhead_cell(record, b, *o, v)),
            ]);
        }
        table.add_row(row);
    }
    format!(
        "\nOverhead against {base} (how much slower, in %; the seed's \"encryption overhead\"):\n{table}\n"
    )
}

fn overhead_cell(
    record: &RunRecord,
    base: &ResultEntry,
    other: Option<&ResultEntry>,
    v: Option<f64>,
) -> String {
    let (Some(o), Some(v), Some(bv)) = (other, v, mean(Some(base), &base.headline)) else {
        return "-".into();
    };
    let comparable = record
        .comparisons
        .iter()
        .find(|c| c.baseline == label_of(base) && c.other == label_of(o))
        .is_none_or(|c| c.comparable);
    if !comparable {
        return "not comparable".into();
    }
    let pct = match unit_of(&base.headline).1 {
        Better::Higher => (bv - v) / bv * 100.0,
        Better::Lower => (v - bv) / bv * 100.0,
    };
    if pct.is_finite() {
        format!("{pct:+.0}%")
    } else {
        "-".into()
    }
}
