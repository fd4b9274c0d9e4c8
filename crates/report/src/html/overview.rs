//! The overview that opens a report: every comparison as a bar from the baseline (1×) to how the
//! other cell performed, on one log axis where right is always better (a throughput's ratio
//! other/baseline, a time's baseline/other), with the 95% CI as a whisker and the verdict's
//! colour (green better, red worse, grey no difference proven, amber not comparable); above them,
//! as openbenchmarking.org does, the geometric mean over every comparable result of each target.

use super::axis;
use super::palette::{GRID, INK, MUTED, Palette, Tone};
use super::svg::{Anchor, Svg, fit, text_width};
use crate::names::CellNames;
use fsbench_model::{Better, Comparison, RunRecord};

/// One bar.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Who is compared (`gocryptfs`, `warm vs cold`, `B vs A`).
    pub who: String,
    /// The target whose colour marks the row.
    pub target: String,
    /// Performance relative to the baseline, right (above 1) better.
    pub ratio: f64,
    /// The CI of `ratio` (may be unbounded on one side: infinite).
    pub lo: f64,
    /// Upper end of the CI.
    pub hi: f64,
    /// The verdict.
    pub tone: Tone,
    /// The change as the tables give it (`−12.3% ± 2.1%`).
    pub text: String,
}

/// Bars under one heading (a workload, cache state and metric).
#[derive(Debug, Clone)]
pub struct Group {
    /// `seq-read bs=1m · cold · MiB/s, higher is better · against ext4`.
    pub heading: String,
    /// Its bars.
    pub bars: Vec<Bar>,
}

/// Performance ratio and its CI from a comparison (its sequential decision's where it has one):
/// right is better whatever the direction.
pub fn ratio(c: &Comparison) -> Option<(f64, f64, f64)> {
    let (change, low, high) = c.change_pct();
    let raw = 1.0 + change / 100.0;
    let (raw_lo, raw_hi) = (1.0 + low / 100.0, 1.0 + high / 100.0);
    if !(raw > 0.0 && raw.is_finite() && raw_hi.is_finite()) {
        return None;
    }
    Some(match fsbench_model::unit_of(&c.metric).1 {
        Better::Higher => (raw, raw_lo.max(0.0), raw_hi),
        Better::Lower => (
            1.0 / raw,
            1.0 / raw_hi,
            if raw_lo > 0.0 {
                1.0 / raw_lo
            } else {
                f64::INFINITY
            },
        ),
    })
}

/// Who the other side of `c` is, and the target that colours it.
fn who(r: &RunRecord, names: &CellNames, c: &Comparison) -> (String, String) {
    let find = |l: &str| names.find(&r.results, l).map(|i| &r.results[i]);
    let (Some(b), Some(o)) = (find(&c.baseline), find(&c.other)) else {
        return (c.other.clone(), c.other.clone());
    };
    let (bt, ot) = (
        super::palette::bare_target(&b.target),
        super::palette::bare_target(&o.target),
    );
    if bt != ot {
        (o.target.clone(), o.target.clone())
    } else if b.target != o.target {
        (format!("{ot}: B vs A"), o.target.clone())
    } else if b.cache.state != o.cache.state {
        (
            format!("{ot}: {} vs {}", o.cache.state, b.cache.state),
            o.target.clone(),
        )
    } else {
        (o.target.clone(), o.target.clone())
    }
}

/// The heading of `c`'s group.
fn heading(r: &RunRecord, names: &CellNames, c: &Comparison) -> String {
    let find = |l: &str| names.find(&r.results, l);
    let metric = format!(
        "{}, {}",
        fsbench_model::label_of(&c.metric),
        super::strip::direction(&c.metric)
    );
    match (find(&c.baseline), find(&c.other)) {
        (Some(b), Some(o)) => {
            let (eb, eo) = (&r.results[b], &r.results[o]);
            let cache = if eb.cache.state == eo.cache.state {
                eo.cache.state.to_string()
            } else {
                format!("{} against {}", eo.cache.state, eb.cache.state)
            };
            let same_target =
                super::palette::bare_target(&eb.target) == super::palette::bare_target(&eo.target);
            let against = if same_target {
                String::new()
            } else {
                format!(" · against {}", eb.target)
            };
            format!("{} · {cache} · {metric}{against}", names.workload(o))
        }
        _ => format!("{} · {metric}", c.other),
    }
}

/// The groups of bars of `r`'s comparisons, in their order.
pub fn groups(r: &RunRecord, names: &CellNames) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for c in &r.comparisons {
        let Some((ratio, lo, hi)) = ratio(c) else {
            continue;
        };
        let (who, target) = who(r, names, c);
        let tone = Tone::of(c);
        let bar = Bar {
            who,
            target,
            ratio,
            lo,
            hi,
            tone,
            text: format!(
                "{}{}",
                crate::tables::comparisons::change_text(c),
                match tone {
                    Tone::Better => ", better",
                    Tone::Worse => ", worse",
                    Tone::Same => "",
                    Tone::NotComparable => ", not comparable",
                }
            )
            .replace('-', "−"),
        };
        let h = heading(r, names, c);
        match out.iter_mut().find(|g| g.heading == h) {
            Some(g) => g.bars.push(bar),
            None => out.push(Group {
                heading: h,
                bars: vec![bar],
            }),
        }
    }
    out
}

/// The geometric mean of each `who` over its comparable bars: (who, target, mean, better,
/// worse, same).
pub fn geomeans(groups: &[Group]) -> Vec<(String, String, f64, [usize; 3])> {
    let mut acc: Vec<(String, String, f64, usize, [usize; 3])> = Vec::new();
    for b in groups.iter().flat_map(|g| &g.bars) {
        if b.tone == Tone::NotComparable {
            continue;
        }
        let i = match acc.iter().position(|a| a.0 == b.who) {
            Some(i) => i,
            None => {
                acc.push((b.who.clone(), b.target.clone(), 0.0, 0, [0; 3]));
                acc.len() - 1
            }
        };
        acc[i].2 += b.ratio.ln();
        acc[i].3 += 1;
        let k = match b.tone {
            Tone::Better => 0,
            Tone::Worse => 1,
            _ => 2,
        };
        acc[i].4[k] += 1;
    }
    acc.into_iter()
        .filter(|a| a.3 > 0)
        .map(|(w, t, sum, n, counts)| (w, t, (sum / n as f64).exp(), counts))
        .collect()
}

const WIDTH: f64 = 880.0;
const ROW: f64 = 22.0;
const LABEL_W: f64 = 190.0;
const TEXT_W: f64 = 230.0;
const TOP: f64 = 50.0;

/// The log axis range over every bar (CIs cut to 4× beyond the bars).
fn range(groups: &[Group]) -> (f64, f64) {
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    for b in groups.iter().flat_map(|g| &g.bars) {
        lo = lo.min(b.ratio).min(b.lo.max(b.ratio / 4.0));
        hi = hi.max(b.ratio).max(b.hi.min(b.ratio * 4.0));
    }
    ((lo / 1.15).clamp(1e-4, 0.8), (hi * 1.15).clamp(1.25, 1e4))
}

/// Log ticks over the range, with one on each side of 1× when the range reaches there far
/// enough for its label (8% of the axis) to stand apart from 1×'s.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut t = axis::log_ticks(lo, hi);
    let apart = |v: f64| v.ln().abs() >= 0.08 * (hi / lo).ln();
    if !t.iter().any(|&v| v < 0.999) {
        let below = [0.5, 0.6, 0.7, 0.8, 0.9];
        t.extend(below.into_iter().find(|&v| v >= lo * 1.02 && apart(v)));
    }
    if !t.iter().any(|&v| v > 1.001) {
        let above = [2.0, 1.5, 1.25, 1.1];
        t.extend(above.into_iter().find(|&v| v <= hi / 1.02 && apart(v)));
    }
    t
}

/// What is drawn on each line of the chart, top to bottom.
enum Line<'a> {
    Heading(&'a str),
    Mean(Bar),
    Result(&'a Bar),
    Space,
}

fn lines(groups: &[Group]) -> Vec<Line<'_>> {
    let mut v = vec![Line::Heading("Geometric mean of all comparable results")];
    for (who, target, mean, c) in geomeans(groups) {
        v.push(Line::Mean(Bar {
            text: format!(
                "{} · {} better, {} worse, {} same",
                axis::ratio_tick((mean * 100.0).round() / 100.0),
                c[0],
                c[1],
                c[2]
            ),
            who,
            target,
            ratio: mean,
            lo: mean,
            hi: mean,
            tone: Tone::Same,
        }));
    }
    for g in groups {
        v.push(Line::Space);
        v.push(Line::Heading(&g.heading));
        v.extend(g.bars.iter().map(Line::Result));
    }
    v
}

/// The overview chart; `None` without comparisons.
pub fn draw(groups: &[Group], palette: &Palette) -> Option<String> {
    if groups.is_empty() {
        return None;
    }
    let lines = lines(groups);
    let height_of = |l: &Line<'_>| {
        if matches!(l, Line::Space) {
            ROW / 2.0
        } else {
            ROW
        }
    };
    let bottom = TOP + lines.iter().map(height_of).sum::<f64>();
    let title = "At a glance: each result against its baseline (log scale) — right of 1× is better";
    let mut svg = Svg::new(WIDTH, bottom + 44.0, title);
    svg.bold(8.0, 20.0, title, Anchor::Start, 14.0, INK);
    svg.text(
        8.0,
        38.0,
        "Throughputs are drawn as other ÷ baseline, times and latencies as baseline ÷ other; whiskers: 95% CI.",
        Anchor::Start,
        11.5,
        MUTED,
    );
    let (lo, hi) = range(groups);
    let (x0, w) = (LABEL_W, WIDTH - LABEL_W - TEXT_W - 16.0);
    let x = |v: f64| x0 + (v.clamp(lo, hi).ln() - lo.ln()) / (hi.ln() - lo.ln()) * w;
    for t in ticks(lo, hi) {
        svg.line(x(t), TOP, x(t), bottom, GRID, 1.0);
        svg.text(
            x(t),
            bottom + 15.0,
            &axis::ratio_tick(t),
            Anchor::Middle,
            11.0,
            MUTED,
        );
    }
    svg.line(x(1.0), TOP, x(1.0), bottom, INK, 1.5);
    svg.text(
        x0 + w / 2.0,
        bottom + 32.0,
        "← worse · relative to the baseline · better →",
        Anchor::Middle,
        12.0,
        MUTED,
    );
    let mut y = TOP;
    for l in &lines {
        match l {
            Line::Heading(h) => {
                let text = fit(h, 12.0, WIDTH - 16.0);
                svg.rect(
                    6.0,
                    y + 3.0,
                    text_width(&text, 12.0) + 6.0,
                    ROW - 4.0,
                    "#fff",
                    "",
                );
                svg.bold(8.0, y + 15.0, &text, Anchor::Start, 12.0, INK);
            }
            Line::Mean(b) => draw_bar(&mut svg, b, y, &x, Some(palette.of(&b.target)), palette),
            Line::Result(b) => draw_bar(&mut svg, b, y, &x, None, palette),
            Line::Space => {}
        }
        y += height_of(l);
    }
    Some(svg.finish())
}

/// One bar: filled with `fill`, or by its verdict (outlined when not comparable).
fn draw_bar(
    svg: &mut Svg,
    b: &Bar,
    y: f64,
    x: &dyn Fn(f64) -> f64,
    fill: Option<&str>,
    palette: &Palette,
) {
    let yc = y + ROW / 2.0;
    svg.group_with_tip(&format!("{}: {}", b.who, b.text));
    svg.rect(16.0, yc - 5.0, 10.0, 10.0, palette.of(&b.target), "");
    svg.text(
        32.0,
        yc + 4.0,
        &fit(&b.who, 12.0, LABEL_W - 40.0),
        Anchor::Start,
        12.0,
        INK,
    );
    let (a, c) = (x(1.0), x(b.ratio));
    let (left, width) = (a.min(c), (c - a).abs().max(1.5));
    match fill {
        Some(f) => svg.rect(left, yc - 6.0, width, 12.0, f, ""),
        None if b.tone == Tone::NotComparable => {
            svg.hollow_rect(left, yc - 6.0, width, 12.0, MUTED)
        }
        None => svg.rect(left, yc - 6.0, width, 12.0, b.tone.color(), ""),
    }
    if b.hi > b.lo {
        let (l, h) = (x(b.lo), x(b.hi));
        svg.line(l, yc, h, yc, INK, 1.5);
        svg.line(l, yc - 4.0, l, yc + 4.0, INK, 1.5);
        svg.line(h, yc - 4.0, h, yc + 4.0, INK, 1.5);
    }
    let color = match (fill, b.tone) {
        (None, Tone::Better) => super::palette::BETTER,
        (None, Tone::Worse) => super::palette::WORSE,
        (None, Tone::NotComparable) => super::palette::NOT_COMPARABLE,
        _ => INK,
    };
    svg.text(
        WIDTH - TEXT_W,
        yc + 4.0,
        &fit(&b.text, 12.0, TEXT_W - 8.0),
        Anchor::Start,
        12.0,
        color,
    );
    svg.end_group();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::tests::record;

    #[test]
    fn right_is_better_for_times_and_throughputs_and_the_geomean_summarises() {
        let r = record();
        let names = CellNames::new(&r.results);
        let g = groups(&r, &names);
        assert_eq!(g.len(), 1);
        let b = &g[0].bars[0];
        assert!(
            (b.ratio - 1.5).abs() < 1e-9 && b.tone == Tone::Better,
            "{b:?}"
        );
        assert_eq!(b.who, "x,y|z");
        let mut slower = r.comparisons[0].clone();
        slower.metric = fsbench_model::metric::WALL_NS.into();
        let (ratio, lo, hi) = ratio(&slower).unwrap();
        assert!(ratio < 1.0 && lo < ratio && ratio < hi);
        assert_eq!(Tone::of(&slower), Tone::Worse);
        let means = geomeans(&g);
        assert_eq!(means.len(), 1);
        assert!((means[0].2 - 1.5).abs() < 1e-9);
        let t = ticks(0.6, 40.0);
        assert!(t.contains(&0.7), "{t:?}");
        let crowded = ticks(0.84, 345.0);
        assert!(!crowded.contains(&0.9), "0.9× would sit on 1×: {crowded:?}");
        let svg = draw(&g, &Palette::default()).unwrap();
        assert!(svg.contains("Geometric mean") && svg.contains("1×"));
    }
}
