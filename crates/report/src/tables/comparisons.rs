//! The comparisons table: each comparison's metric, baseline and other cell, the difference with
//! its confidence interval, and the verdict in words coloured by what it means (a proven
//! improvement is better, never alarming); `changed` keeps only the proven ones and those that
//! could not be compared, for the table of what changed between two runs.

use crate::format::metric_number;
use crate::table::{Cell, Column, Table, Tone};
use fsbench_model::{Comparison, RunRecord};

/// A comparison's verdict in words: not comparable (and why), better or worse (proven), or no
/// difference proven.
pub fn verdict(c: &Comparison) -> String {
    if let Some(d) = c.decision.as_ref().filter(|_| c.comparable) {
        return decided(c, d);
    }
    match Tone::of(c) {
        Tone::NotComparable => format!("not comparable: {}", c.not_comparable.join("; ")),
        Tone::Better => format!("better, proven at {}%", c.confidence),
        Tone::Worse => format!("worse, proven at {}%", c.confidence),
        Tone::Same => format!("no difference proven at {}%", c.confidence),
    }
}

/// A change in words: `+3.1% ± 0.8%`, or `−81.2% [−84.0%, −77.9%]` for a sequential decision's
/// asymmetric interval.
pub fn change_text(c: &Comparison) -> String {
    let (v, lo, hi) = c.change_pct();
    match c.decision {
        Some(_) => format!("{v:+.1}% [{lo:+.1}%, {hi:+.1}%]"),
        None => format!("{v:+.1}% ± {:.1}%", c.ci_half_pct),
    }
}

/// A sequential decision in words: the verdict, its interval and the samples it took.
fn decided(c: &Comparison, d: &fsbench_model::SequentialDecision) -> String {
    let [b, o] = d.samples_each;
    let interval = format!(
        "{:+.1}% [{:+.1}%, {:+.1}%]",
        d.effect_pct, d.low_pct, d.high_pct
    );
    match d.verdict.as_str() {
        "different" => {
            let small = match d.within_margin {
                true => format!(", within ±{}%", trim(d.margin_pct)),
                false => String::new(),
            };
            format!(
                "{}, decided at {}% after {b} + {o} samples: {interval}{small}",
                Tone::of(c).word(),
                c.confidence
            )
        }
        "equivalent" => format!(
            "equivalent (within ±{}%), decided at {}% after {b} + {o} samples: {interval}",
            trim(d.margin_pct),
            c.confidence
        ),
        _ => {
            let more = match d.more {
                Some(m) => format!("; the spread suggests about {m} more a side"),
                None => String::new(),
            };
            format!("undecided after {b} + {o} samples: {interval}{more}")
        }
    }
}

fn trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The comparisons of `record` (all, or with `changed` only the proven and the not comparable),
/// with `how` the way to make each incomparable pair comparable in its verdict; `None` when there
/// are none to show.
pub fn table(record: &RunRecord, title: &str, changed: bool, how: bool) -> Option<Table> {
    let mut t = Table::new(
        title,
        vec![
            Column::text("metric"),
            Column::text("baseline"),
            Column::text("vs"),
            Column::number("difference").optional(1),
            Column::number("%"),
            Column::text("verdict"),
        ],
    );
    for c in &record.comparisons {
        let tone = Tone::of(c);
        if changed && tone == Tone::Same {
            continue;
        }
        let n = |v: f64| metric_number(&c.metric, v);
        let mut verdict = verdict(c);
        if let Some(how) = c.how_to_compare.as_ref().filter(|_| how) {
            verdict.push_str(&format!(" — to compare: {how}"));
        }
        t.push(vec![
            fsbench_model::label_of(&c.metric).into(),
            c.baseline.clone().into(),
            c.other.clone().into(),
            format!("{} ± {}", n(c.difference), n(c.ci_half)).into(),
            format!("{:+.2}% ± {:.2}%", c.difference_pct, c.ci_half_pct).into(),
            Cell {
                text: verdict,
                tone: Some(tone),
            },
        ]);
    }
    (!t.rows.is_empty()).then_some(t)
}

/// How many comparisons are better, worse, the same, and not comparable.
pub fn counts(record: &RunRecord) -> [usize; 4] {
    let mut n = [0; 4];
    for c in &record.comparisons {
        n[match Tone::of(c) {
            Tone::Better => 0,
            Tone::Worse => 1,
            Tone::Same => 2,
            Tone::NotComparable => 3,
        }] += 1;
    }
    n
}
