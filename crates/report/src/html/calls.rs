//! A replay's time by call kind as stacked bars (issue 58): per replay workload and cache state,
//! one bar per target, each call kind a segment in the same colour on every bar, the mean wall
//! time as a tick; the attribution tables of the run follow among its tables.

use super::palette::{INK, MUTED};
use super::svg::{Anchor, Svg, fit};
use crate::calls::CellCalls;
use crate::format::duration_ns;
use crate::names::CellNames;
use fsbench_model::RunRecord;
use std::fmt::Write;

/// Kind colours, in order of each kind's time over the chart (the most first); kinds past the
/// last share grey.
const KINDS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f",
    "#e15759", "#86bcb6",
];
/// The colour of the kinds past [`KINDS`].
const OTHER: &str = "#bab0ac";

const WIDTH: f64 = 760.0;
const LEFT: f64 = 150.0;
const RIGHT: f64 = 90.0;
const BAR: f64 = 22.0;
const GAP: f64 = 12.0;
const TOP: f64 = 34.0;

/// The charts of `r`: one per replay workload and cache state with a breakdown.
pub fn section(r: &RunRecord, names: &CellNames, out: &mut String) {
    let mut groups: Vec<(String, Vec<(usize, CellCalls)>)> = Vec::new();
    for (i, e) in r.results.iter().enumerate() {
        let Some(c) = crate::calls::of_cell(e) else {
            continue;
        };
        let key = format!("{} {}", names.workload(i), e.cache.state);
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push((i, c)),
            None => groups.push((key, vec![(i, c)])),
        }
    }
    if groups.is_empty() {
        return;
    }
    out.push_str("<h3>Time by call</h3>\n<p class=\"meta\">Each bar is a target's mean wall time as the replay's calls held it (each instant shared by the calls in flight then), one segment per call kind in the same colour on every bar; the black tick is the mean wall time, the gap before it the time no call was in flight. Hover a segment for its calls and time per call.</p>\n");
    // One colour per kind across every chart of the run (cold and warm alike).
    let every: Vec<(String, &CellCalls)> = groups
        .iter()
        .flat_map(|(_, cells)| cells.iter().map(|(_, c)| (String::new(), c)))
        .collect();
    let order = kind_order(&every);
    for (title, cells) in &groups {
        let bars: Vec<(String, &CellCalls)> = cells
            .iter()
            .map(|(i, c)| (r.results[*i].target.clone(), c))
            .collect();
        let _ = writeln!(
            out,
            "<figure class=\"chart calls\">{}</figure>",
            draw(&format!("time by call: {title}"), &bars, &order)
        );
    }
}

/// Kinds in order of their time over every bar, the most first.
fn kind_order(bars: &[(String, &CellCalls)]) -> Vec<String> {
    let mut totals: Vec<(String, f64)> = Vec::new();
    for (_, c) in bars {
        for k in &c.kinds {
            match totals.iter_mut().find(|(n, _)| *n == k.kind) {
                Some((_, t)) => *t += k.wall_ns,
                None => totals.push((k.kind.clone(), k.wall_ns)),
            }
        }
    }
    totals.sort_by(|a, b| b.1.total_cmp(&a.1));
    totals.into_iter().map(|(k, _)| k).collect()
}

/// The colour of the kind at `rank`.
fn colour(rank: usize) -> &'static str {
    KINDS.get(rank).copied().unwrap_or(OTHER)
}

/// One chart: a bar per `(target, breakdown)`, each kind coloured by its place in `colours`
/// (every kind of the run, the most time first); a legend of the chart's kinds below.
pub fn draw(title: &str, bars: &[(String, &CellCalls)], colours: &[String]) -> String {
    let rank = |kind: &str| colours.iter().position(|k| k == kind).unwrap_or(usize::MAX);
    let order = kind_order(bars);
    let scale_max = bars
        .iter()
        .map(|(_, c)| c.wall_ns.max(c.kinds.iter().map(|k| k.wall_ns).sum()))
        .fold(1.0, f64::max);
    let legend_rows = order.len().div_ceil(4);
    let height = TOP + bars.len() as f64 * (BAR + GAP) + 10.0 + legend_rows as f64 * 18.0 + 8.0;
    let mut s = Svg::new(WIDTH, height, title);
    s.title(title, WIDTH);
    let span = WIDTH - LEFT - RIGHT;
    let x_of = |ns: f64| LEFT + span * ns / scale_max;
    for (row, (target, c)) in bars.iter().enumerate() {
        let y = TOP + row as f64 * (BAR + GAP);
        s.text(
            LEFT - 8.0,
            y + BAR * 0.7,
            &fit(target, 12.0, LEFT - 12.0),
            Anchor::End,
            12.0,
            INK,
        );
        let mut at = 0.0;
        for kind in &order {
            let Some(k) = c.kinds.iter().find(|k| k.kind == *kind) else {
                continue;
            };
            let w = span * k.wall_ns / scale_max;
            s.marked_group(
                "call-kind",
                &format!(
                    "{target}: {kind} ×{:.0}, {} of the wall time ({:.0}%), {} per call",
                    k.count,
                    duration_ns(k.wall_ns),
                    k.share_pct,
                    duration_ns(k.per_call_ns)
                ),
            );
            s.rect(x_of(at), y, w.max(0.5), BAR, colour(rank(kind)), "#fff");
            s.end_group();
            at += k.wall_ns;
        }
        let wall = x_of(c.wall_ns);
        s.line(wall, y - 3.0, wall, y + BAR + 3.0, INK, 2.0);
        s.text(
            x_of(at.max(c.wall_ns)) + 6.0,
            y + BAR * 0.7,
            &duration_ns(c.wall_ns),
            Anchor::Start,
            11.0,
            MUTED,
        );
    }
    let ly = TOP + bars.len() as f64 * (BAR + GAP) + 10.0;
    for (place, kind) in order.iter().enumerate() {
        let (col, line) = (place % 4, place / 4);
        let x = LEFT + col as f64 * (span / 4.0);
        let y = ly + line as f64 * 18.0;
        s.rect(x, y, 12.0, 12.0, colour(rank(kind)), "none");
        s.text(
            x + 16.0,
            y + 10.0,
            &fit(kind, 11.0, span / 4.0 - 20.0),
            Anchor::Start,
            11.0,
            INK,
        );
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calls::KindSummary;

    fn kind(name: &str, total_ns: f64) -> KindSummary {
        KindSummary {
            kind: name.into(),
            count: 10.0,
            total_ns,
            wall_ns: total_ns,
            per_call_ns: total_ns / 10.0,
            p50_ns: 0.0,
            p99_ns: 0.0,
            errors: 0.0,
            share_pct: 0.0,
        }
    }

    #[test]
    fn every_bar_colours_a_kind_alike_and_the_legend_names_each_kind_once() {
        let a = CellCalls {
            kinds: vec![kind("lstat", 9e6), kind("read", 1e6)],
            wall_ns: 12e6,
            samples: 3,
            slowest: Vec::new(),
        };
        let b = CellCalls {
            kinds: vec![kind("read", 2e6), kind("lstat", 30e6)],
            wall_ns: 35e6,
            samples: 3,
            slowest: Vec::new(),
        };
        let bars = [("ext4".to_string(), &a), ("bindfs".to_string(), &b)];
        let svg = draw("time by call", &bars, &kind_order(&bars));
        assert_eq!(svg.matches("class=\"call-kind\"").count(), 4);
        // lstat has the most time: the first colour on both bars; read the second.
        assert_eq!(svg.matches(KINDS[0]).count(), 3, "two bars and the legend");
        assert_eq!(svg.matches(KINDS[1]).count(), 3);
        assert!(svg.contains("bindfs: lstat ×10"), "{svg}");
        assert!(svg.contains(">ext4<") && svg.contains(">bindfs<"));
    }
}
