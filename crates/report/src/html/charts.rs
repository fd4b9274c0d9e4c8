//! From a record to its charts: the cells grouped by workload and headline for the
//! distributions (a row per target and swept value, a panel per cache state), latency curves by
//! workload with a panel per cache state, and the sweeps of one workload and cache state
//! together. Each function writes `<figure>`s into the page.

use super::latency::{self, Curve, LatencyCurve};
use super::palette::Palette;
use super::strip::{self, Row};
use super::svg::esc;
use crate::names::CellNames;
use fsbench_model::{CacheState, RunRecord, Scaling};
use std::fmt::Write;

/// The cache states present among `cells`, cold first.
fn panels(r: &RunRecord, cells: &[usize]) -> Vec<CacheState> {
    [CacheState::Cold, CacheState::Warm]
        .into_iter()
        .filter(|c| cells.iter().any(|&i| r.results[i].cache.state == *c))
        .collect()
}

/// Cells grouped by workload (without swept values) and headline, in plan order.
fn groups(r: &RunRecord, names: &CellNames) -> Vec<(String, String, Vec<usize>)> {
    let mut g: Vec<(String, String, Vec<usize>)> = Vec::new();
    for (i, e) in r.results.iter().enumerate() {
        let base = names.base(i);
        match g.iter_mut().find(|(b, m, _)| b == base && *m == e.headline) {
            Some((_, _, v)) => v.push(i),
            None => g.push((base.to_string(), e.headline.clone(), vec![i])),
        }
    }
    g
}

/// One distributions chart per workload group.
pub fn distributions(r: &RunRecord, names: &CellNames, palette: &Palette, out: &mut String) {
    for (base, metric, cells) in groups(r, names) {
        let panels = panels(r, &cells);
        let mut rows: Vec<Row<'_>> = Vec::new();
        for &i in &cells {
            let e = &r.results[i];
            if e.samples.is_empty() {
                continue;
            }
            let label = format!("{}{}", e.target, names.sweep(i));
            let p = panels
                .iter()
                .position(|c| *c == e.cache.state)
                .expect("invariant: the panels hold every cell's cache state");
            match rows.iter_mut().find(|x| x.label == label) {
                Some(row) => row.cells[p] = Some(e),
                None => {
                    let mut cells = vec![None; panels.len()];
                    cells[p] = Some(e);
                    rows.push(Row {
                        label,
                        target: e.target.clone(),
                        cells,
                    });
                }
            }
        }
        if rows.is_empty() {
            continue;
        }
        let chart = strip::Chart {
            title: base,
            metric,
            panels,
            rows,
        };
        let _ = writeln!(
            out,
            "<figure class=\"chart strip\">{}</figure>",
            strip::draw(&chart, palette)
        );
    }
}

/// One latency chart per workload (swept values included, so each target has one curve and one
/// colour), its cells' curves in a panel per cache state; `curve` gives a cell's curve by index;
/// the cells of a run A are drawn dashed.
pub fn latencies<'c>(
    r: &RunRecord,
    names: &CellNames,
    palette: &Palette,
    curve: &dyn Fn(usize) -> Option<&'c LatencyCurve>,
    out: &mut String,
) {
    let mut by_workload: Vec<(String, Vec<usize>)> = Vec::new();
    for i in 0..r.results.len() {
        if curve(i).is_none() {
            continue;
        }
        let name = names.workload(i);
        match by_workload.iter_mut().find(|(b, _)| *b == name) {
            Some((_, v)) => v.push(i),
            None => by_workload.push((name, vec![i])),
        }
    }
    for (base, cells) in by_workload {
        let panels: Vec<(CacheState, Vec<Curve<'_>>)> = panels(r, &cells)
            .into_iter()
            .map(|c| {
                let curves = cells
                    .iter()
                    .filter(|&&i| r.results[i].cache.state == c)
                    .filter_map(|&i| {
                        let e = &r.results[i];
                        Some(Curve {
                            label: e.target.clone(),
                            target: e.target.clone(),
                            dashed: e.target.starts_with("A:"),
                            curve: curve(i)?,
                        })
                    })
                    .collect();
                (c, curves)
            })
            .collect();
        let _ = writeln!(
            out,
            "<figure class=\"chart latency\">{}</figure>",
            latency::draw(&base, &panels, palette)
        );
    }
}

/// One scaling chart per workload and cache state (every target's sweep on it), with the
/// verdicts as its caption.
pub fn scaling(r: &RunRecord, palette: &Palette, out: &mut String) {
    let mut groups: Vec<((&str, &str), Vec<&Scaling>)> = Vec::new();
    for s in &r.scaling {
        let key = (s.workload.as_str(), s.cache.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(s),
            None => groups.push((key, vec![s])),
        }
    }
    for ((workload, cache), sweeps) in groups {
        let svg = super::scaling::draw(
            &format!("{workload} ({cache})"),
            &sweeps,
            r.environment.cpus,
            palette,
        );
        let _ = write!(out, "<figure class=\"chart scaling\">{svg}<figcaption><ul>");
        for s in sweeps {
            let _ = write!(
                out,
                "<li><b>{}</b>: {} — {}</li>",
                esc(&s.target),
                esc(s.verdict.name()),
                esc(&s.explanation)
            );
        }
        out.push_str("</ul></figcaption></figure>\n");
    }
}
