//! The character card in HTML: per target a grid (a row per component, a column per sharing
//! level), each operation a small scaling curve (ops/s by jobs, on a doubling axis) coloured by
//! its class, with the lock that stops it named under it; the cards of a run side by side, and
//! a differential card (B/A at each job count) for a second target or a second stored card.

use super::svg::esc;
use fsbench_model::card::{COMPONENTS, Card, CardCell, CardClass, Sharing};
use std::fmt::Write;

/// The colour of a class.
fn colour(c: CardClass) -> &'static str {
    match c {
        CardClass::Scales => "#2e7d32",
        CardClass::LevelsOff => "#b26a00",
        CardClass::Collapses => "#c62828",
        CardClass::Unknown => "#757575",
    }
}

/// A small curve of ops/s by jobs (x: job counts evenly, y: 0 to the cell's best).
fn curve(c: &CardCell) -> String {
    let (w, h, pad) = (150.0, 56.0, 6.0);
    let best = c
        .points
        .iter()
        .map(|p| p.ci95_high.max(p.ops_per_s))
        .fold(0.0_f64, f64::max)
        .max(1e-9);
    let n = c.points.len().max(2) - 1;
    let x = |i: usize| pad + (w - 2.0 * pad) * i as f64 / n as f64;
    let y = |v: f64| h - pad - (h - 2.0 * pad) * (v / best);
    let mut s = format!(
        "<svg class=\"card-curve\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\"><title>{} ops/s by jobs: {}</title>",
        esc(&c.op),
        esc(&crate::seed::card::curve_text(c))
    );
    let pts: Vec<String> = c
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{:.1},{:.1}", x(i), y(p.ops_per_s)))
        .collect();
    let col = colour(c.class);
    let _ = write!(
        s,
        "<polyline fill=\"none\" stroke=\"{col}\" stroke-width=\"2\" points=\"{}\"/>",
        pts.join(" ")
    );
    for (i, p) in c.points.iter().enumerate() {
        let _ = write!(
            s,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"{col}\" stroke-opacity=\"0.5\"/><circle cx=\"{0:.1}\" cy=\"{3:.1}\" r=\"2.5\" fill=\"{col}\"/><text x=\"{0:.1}\" y=\"{4:.1}\" font-size=\"8\" text-anchor=\"middle\">{5}</text>",
            x(i),
            y(p.ci95_low),
            y(p.ci95_high),
            y(p.ops_per_s),
            h - 0.5,
            p.jobs
        );
    }
    s.push_str("</svg>");
    s
}

/// Under a cell that names no lock: that none stops it, and why none met the rule.
fn no_lock(c: &CardCell) -> String {
    match crate::seed::card::no_lock_text(c).as_str() {
        "-" => "no lock stops it".into(),
        why => format!(
            "no lock stops it ({})",
            why.trim_start_matches("none: ")
                .trim_start_matches("none met the rule; ")
        ),
    }
}

/// One card as a grid.
pub fn grid(card: &Card) -> String {
    let mut out = format!(
        "<div class=\"card\"><h4>{} <span class=\"meta\">({} CPUs)</span></h4><table class=\"card-grid\"><tr><th>component</th>",
        esc(&card.target),
        card.cpus
    );
    let levels = [Sharing::Low, Sharing::Medium, Sharing::High];
    for l in levels {
        let _ = write!(out, "<th>sharing {}</th>", l.name());
    }
    out.push_str("</tr>\n");
    for comp in COMPONENTS {
        let cells: Vec<&CardCell> = card.cells.iter().filter(|c| c.component == comp).collect();
        if cells.is_empty() {
            continue;
        }
        let _ = write!(out, "<tr><th>{}</th>", esc(comp));
        for l in levels {
            out.push_str("<td>");
            for c in cells.iter().filter(|c| c.sharing == l) {
                let _ = write!(
                    out,
                    "<div class=\"card-op\" data-op=\"{op}\"><b>{op}</b> {name}<br>{curve}<br><span style=\"color:{col}\">{scaling}</span><br><span class=\"lock\">{lock}</span></div>",
                    op = esc(&c.op),
                    name = esc(&c.name),
                    curve = curve(c),
                    col = colour(c.class),
                    scaling = esc(&crate::seed::card::scaling_text(c)),
                    lock = c.lock.as_ref().map_or_else(
                        || esc(&no_lock(c)),
                        |l| { esc(&crate::seed::card::lock_text(l)) }
                    ),
                );
            }
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out
}

/// The differential card of `b` over `a`: per operation the ratio at each job count, coloured
/// (green faster, red slower by more than 10%), and the lock that appears or disappears.
pub fn differential(a: &Card, b: &Card) -> String {
    let mut out = format!(
        "<div class=\"card-diff\"><h4>Differential card: {} / {}</h4><table class=\"card-grid\"><tr><th>operation</th><th>B/A by jobs</th><th>lock</th></tr>\n",
        esc(&b.target),
        esc(&a.target)
    );
    for ca in &a.cells {
        let Some(cb) = b.cells.iter().find(|c| c.op == ca.op) else {
            continue;
        };
        let _ = write!(
            out,
            "<tr><td><b>{}</b> {}</td><td>",
            esc(&ca.op),
            esc(&ca.name)
        );
        for pa in &ca.points {
            let Some(pb) = cb.points.iter().find(|p| p.jobs == pa.jobs) else {
                continue;
            };
            if pa.ops_per_s <= 0.0 {
                continue;
            }
            let r = pb.ops_per_s / pa.ops_per_s;
            let col = if r >= 1.1 {
                "#2e7d32"
            } else if r <= 0.9 {
                "#c62828"
            } else {
                "#757575"
            };
            let _ = write!(
                out,
                "<span class=\"ratio\" style=\"color:{col}\">J={}: {}</span> ",
                pa.jobs,
                crate::seed::card::ratio(r)
            );
        }
        let _ = writeln!(
            out,
            "</td><td>{}</td></tr>",
            esc(&crate::seed::card::lock_change(
                ca.lock.as_ref(),
                cb.lock.as_ref()
            ))
        );
    }
    out.push_str("</table></div>\n");
    out
}

/// A run's cards side by side, then the differential of each later card over the first.
pub fn section(cards: &[Card], out: &mut String) {
    if cards.is_empty() {
        return;
    }
    out.push_str("<h3>Character card</h3>\n<div class=\"cards\">\n");
    for c in cards {
        out.push_str(&grid(c));
    }
    out.push_str("</div>\n");
    if let Some((first, rest)) = cards.split_first() {
        for b in rest {
            out.push_str(&differential(first, b));
        }
    }
}
