//! Run A against run B, one small chart per shared cell: on the left both distributions on one
//! axis (A hollow, B filled, in the target's colour, median ticks and 95% CIs of the mean); on
//! the right the difference B − A in % of A with its confidence interval, around a zero line,
//! coloured by the verdict (green better, red worse, grey no difference proven).

use super::axis::{self, Kind};
use super::palette::{GRID, INK, MUTED, Palette, Tone};
use super::strip::values;
use super::svg::{Anchor, Svg, fit};
use fsbench_model::{Comparison, ResultEntry};

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 126.0;
const LEFT: f64 = 60.0;
const SPLIT: f64 = 560.0;
const TOP: f64 = 38.0;
const ROW: f64 = 22.0;

/// The chart of `c` between cells `a` and `b`; `title` names the cell.
pub fn draw(
    title: &str,
    c: &Comparison,
    (a, b): (&ResultEntry, &ResultEntry),
    palette: &Palette,
) -> String {
    let tone = Tone::of(c);
    let head = format!(
        "{title} · {} ({}) — {}",
        fsbench_model::label_of(&c.metric),
        super::strip::direction(&c.metric),
        tone.word()
    );
    let mut svg = Svg::new(WIDTH, HEIGHT, &head);
    svg.bold(
        8.0,
        18.0,
        &fit(&head, 13.0, WIDTH - 16.0),
        Anchor::Start,
        13.0,
        INK,
    );
    distributions(&mut svg, &c.metric, (a, b), palette);
    difference(&mut svg, c, tone);
    svg.finish()
}

fn distributions(
    svg: &mut Svg,
    metric: &str,
    (a, b): (&ResultEntry, &ResultEntry),
    palette: &Palette,
) {
    let (va, vb) = (values(a, metric), values(b, metric));
    let cis: Vec<(f64, f64)> = [a, b]
        .iter()
        .filter_map(|e| e.summary.get(metric))
        .filter_map(|s| s.ci95.map(|h| ((s.mean - h).max(0.0), s.mean + h)))
        .collect();
    let all = va
        .iter()
        .chain(&vb)
        .copied()
        .chain(cis.iter().flat_map(|c| [c.0, c.1]));
    let (lo, hi) = all.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let ax = axis::linear(lo, hi, axis::kind_of(metric), false);
    let w = SPLIT - LEFT - 30.0;
    let x = |v: f64| LEFT + (v.clamp(ax.lo, ax.hi) - ax.lo) / (ax.hi - ax.lo) * w;
    x_axis(svg, &ax.ticks, &x, (LEFT, w), &ax.unit);
    let color = palette.of(&b.target);
    for (k, (e, v, name)) in [(a, &va, "A"), (b, &vb, "B")].into_iter().enumerate() {
        let yc = TOP + ROW * k as f64 + ROW / 2.0;
        svg.bold(LEFT - 40.0, yc + 4.0, name, Anchor::Start, 12.0, INK);
        let s = e.summary.get(metric);
        if let Some((lo, hi)) = s.and_then(|s| s.ci95.map(|h| ((s.mean - h).max(0.0), s.mean + h)))
        {
            svg.band(x(lo), yc - 8.0, x(hi) - x(lo), 16.0, color);
        }
        let n = v.len().max(1) as f64;
        for (i, val) in v.iter().enumerate() {
            let jitter = -6.0 + 12.0 * (i as f64 + 0.5) / n;
            svg.circle(x(*val), yc + jitter, 3.0, color, k == 0);
        }
        if let Some(s) = s.filter(|s| s.median.is_finite()) {
            svg.line(x(s.median), yc - 8.0, x(s.median), yc + 8.0, INK, 2.0);
        }
    }
}

/// A panel's x axis under its two rows: grid lines at `ticks` (placed by `x`), their labels,
/// the base line over `(x0, width)` and the axis title.
fn x_axis(
    svg: &mut Svg,
    ticks: &[(f64, String)],
    x: &dyn Fn(f64) -> f64,
    (x0, width): (f64, f64),
    title: &str,
) {
    let bottom = TOP + 2.0 * ROW;
    for (v, label) in ticks {
        svg.line(x(*v), TOP, x(*v), bottom, GRID, 1.0);
        svg.text(x(*v), bottom + 14.0, label, Anchor::Middle, 11.0, MUTED);
    }
    svg.line(x0, bottom, x0 + width, bottom, MUTED, 1.0);
    svg.text(
        x0 + width / 2.0,
        bottom + 30.0,
        title,
        Anchor::Middle,
        11.0,
        MUTED,
    );
}

fn difference(svg: &mut Svg, c: &Comparison, tone: Tone) {
    let (x0, w) = (SPLIT + 20.0, WIDTH - SPLIT - 40.0);
    let reach = (c.difference_pct.abs() + c.ci_half_pct).max(1.0) * 1.15;
    let ax = axis::linear(-reach, reach, Kind::Plain("%"), true);
    let x = |v: f64| x0 + (v.clamp(ax.lo, ax.hi) - ax.lo) / (ax.hi - ax.lo) * w;
    let yc = TOP + ROW;
    let bottom = TOP + 2.0 * ROW;
    x_axis(svg, &ax.ticks, &x, (x0, w), "B − A, % of A");
    svg.line(x(0.0), TOP - 4.0, x(0.0), bottom, INK, 1.5);
    let (z, d) = (x(0.0), x(c.difference_pct));
    if tone == Tone::NotComparable {
        svg.hollow_rect(z.min(d), yc - 7.0, (d - z).abs().max(1.5), 14.0, MUTED);
    } else {
        svg.rect(
            z.min(d),
            yc - 7.0,
            (d - z).abs().max(1.5),
            14.0,
            tone.color(),
            "",
        );
    }
    let (l, h) = (
        x(c.difference_pct - c.ci_half_pct),
        x(c.difference_pct + c.ci_half_pct),
    );
    svg.line(l, yc, h, yc, INK, 1.5);
    svg.line(l, yc - 5.0, l, yc + 5.0, INK, 1.5);
    svg.line(h, yc - 5.0, h, yc + 5.0, INK, 1.5);
    let text = format!("{:+.1}% ± {:.1}%", c.difference_pct, c.ci_half_pct).replace('-', "−");
    svg.text(x0 + w / 2.0, TOP - 4.0, &text, Anchor::Middle, 12.0, INK);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::record;

    #[test]
    fn both_distributions_and_the_difference_with_its_interval() {
        let r = record();
        let mut p = Palette::default();
        p.add("ext4");
        let svg = draw(
            "rand-read",
            &r.comparisons[0],
            (&r.results[0], &r.results[1]),
            &p,
        );
        assert!(svg.contains(">A<") && svg.contains(">B<"));
        assert!(svg.contains("+50.0% ± 0.6%"), "{svg}");
        assert!(svg.contains(super::super::palette::BETTER));
        assert!(svg.contains("B − A, % of A"));
    }
}
