//! Where a replay's time went, by call kind (issue 58): per replay cell its kinds (calls, time,
//! share of the wall time, per call, median and 99th percentile, errors) with its slowest calls
//! under it; and per compared pair of replay cells, which kinds make the difference.

use crate::calls::{Attribution, CellCalls};
use crate::format::{count, duration_ns};
use crate::names::CellNames;
use crate::table::{Cell, Column, Table, Tone};
use fsbench_model::RunRecord;

/// Slowest calls named under a cell's table.
const SLOWEST_NAMED: usize = 3;

/// The tables of `record`: one per replay cell with a breakdown, then one per attributed pair.
pub fn tables(record: &RunRecord, names: &CellNames) -> Vec<Table> {
    let mut out: Vec<Table> = record
        .results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let c = crate::calls::of_cell(r)?;
            let title = format!(
                "Time by call: {} {} {}",
                r.target,
                names.workload(i),
                r.cache.state
            );
            let mut t = cell_table(&title, &c);
            if r.profile.is_some() {
                t.columns
                    .push(Column::text("kernel's reason (--profile)").optional(0));
                for (row, k) in t.rows.iter_mut().zip(&c.kinds) {
                    let why = crate::calls::kernel_reason(r, &k.kind).unwrap_or_default();
                    row.push(why.into());
                }
            }
            Some(t)
        })
        .collect();
    out.extend(attribution_tables(record));
    out
}

/// One table per compared pair of `record`'s cells that both have a breakdown (`fsbench
/// compare` draws these for two stored runs of one trace).
pub fn attribution_tables(record: &RunRecord) -> Vec<Table> {
    crate::calls::of_record(record)
        .iter()
        .map(attribution_table)
        .collect()
}

/// One cell's time by call kind.
pub fn cell_table(title: &str, c: &CellCalls) -> Table {
    let mut t = Table::new(
        title,
        vec![
            Column::text("call"),
            Column::number("n"),
            Column::number("time"),
            Column::number("wall").optional(4),
            Column::number("of wall"),
            Column::number("per call"),
            Column::number("p50").optional(2),
            Column::number("p99").optional(1),
            Column::number("errors").optional(3),
        ],
    );
    for k in &c.kinds {
        t.push(vec![
            k.kind.as_str().into(),
            count(k.count).into(),
            duration_ns(k.total_ns).into(),
            duration_ns(k.wall_ns).into(),
            format!("{:.0}%", k.share_pct).into(),
            duration_ns(k.per_call_ns).into(),
            duration_ns(k.p50_ns).into(),
            duration_ns(k.p99_ns).into(),
            count(k.errors).into(),
        ]);
    }
    let slow: Vec<String> = c
        .slowest
        .iter()
        .take(SLOWEST_NAMED)
        .map(|(sample, s)| {
            let path = if s.path.is_empty() {
                String::new()
            } else {
                format!(" {}", fsbench_model::text::escape_controls(&s.path))
            };
            format!(
                "{}{path} {} (call #{}, thread {}, sample {})",
                s.kind,
                duration_ns(s.ns as f64),
                s.call,
                s.thread,
                sample + 1
            )
        })
        .collect();
    t.note = format!(
        "Means of {} sample{}; time is the calls' own (several threads' at once each count), wall their part of the wall time ({}: each instant shared by the calls in flight then).{}",
        c.samples,
        if c.samples == 1 { "" } else { "s" },
        duration_ns(c.wall_ns),
        match slow.is_empty() {
            true => String::new(),
            false => format!(" Slowest: {}.", slow.join("; ")),
        }
    );
    t
}

/// A signed duration: `+21.0 µs`, `−3.10 ms` (under half a nanosecond either way: `0 ns`).
fn signed(ns: f64) -> String {
    match ns {
        n if n.abs() < 0.5 => "0 ns".into(),
        n if n < 0.0 => format!("−{}", duration_ns(-n)),
        n => format!("+{}", duration_ns(n)),
    }
}

/// A share in whole percent, never `-0%`.
fn percent(v: f64) -> String {
    let r = v.round();
    format!("{}%", if r == 0.0 { 0.0 } else { r })
}

/// Which kinds of call make one pair's difference.
pub fn attribution_table(a: &Attribution) -> Table {
    let mut t = Table::new(
        &format!("Why {} differs from {}, by call", a.other, a.baseline),
        vec![
            Column::text("call"),
            Column::number("n"),
            Column::number("A per call"),
            Column::number("B per call"),
            Column::number("A wall").optional(2),
            Column::number("B wall").optional(2),
            Column::number("B − A"),
            Column::number("share"),
            Column::text("verdict").optional(1),
        ],
    );
    let profiled = a.kinds.iter().any(|k| k.kernel.1.is_some());
    if profiled {
        t.columns
            .push(Column::text("kernel's reason in B (--profile)").optional(0));
    }
    for k in &a.kinds {
        let verdict: Cell = match k.proven {
            Some(true) if k.difference_ns > 0.0 => Cell {
                text: "slower (proven)".into(),
                tone: Some(Tone::Worse),
            },
            Some(true) => Cell {
                text: "faster (proven)".into(),
                tone: Some(Tone::Better),
            },
            Some(false) => "not proven".into(),
            None => "too few samples".into(),
        };
        let calls = match k.count.0 == k.count.1 {
            true => count(k.count.1),
            false => format!("{} / {}", count(k.count.0), count(k.count.1)),
        };
        let mut cells: Vec<Cell> = vec![
            k.kind.as_str().into(),
            calls.into(),
            duration_ns(k.per_call_ns.0).into(),
            duration_ns(k.per_call_ns.1).into(),
            duration_ns(k.wall_ns.0).into(),
            duration_ns(k.wall_ns.1).into(),
            signed(k.difference_ns).into(),
            percent(k.share_pct).into(),
            verdict,
        ];
        if profiled {
            cells.push(k.kernel.1.clone().unwrap_or_default().into());
        }
        t.push(cells);
    }
    let share = |ns: f64| match a.difference_ns {
        d if d != 0.0 => percent(100.0 * ns / d),
        _ => "-".into(),
    };
    t.push(vec![
        "no call in flight".into(),
        "".into(),
        "".into(),
        "".into(),
        "".into(),
        "".into(),
        signed(a.rest_ns).into(),
        share(a.rest_ns).into(),
        "".into(),
        "".into(),
    ]);
    let wall_verdict = match a.proven {
        Some(true) => "proven",
        Some(false) => "not proven",
        None => "not compared",
    };
    t.push(vec![
        "wall time".into(),
        "".into(),
        "".into(),
        "".into(),
        duration_ns(a.wall_ns.0).into(),
        duration_ns(a.wall_ns.1).into(),
        signed(a.difference_ns).into(),
        "100%".into(),
        wall_verdict.into(),
        "".into(),
    ]);
    t.note = format!(
        "A = {}, B = {}. {}. A kind's wall is its part of the wall time (each instant shared by the calls in flight then), its share its part of the difference, its verdict its own part compared sample by sample; no call in flight is the program's own time between calls (paced) and its threads waiting for each other.",
        a.baseline,
        a.other,
        a.line(&|ns| duration_ns(ns))
    );
    t
}
