//! Scaling over workers (the readdir-locks study): speedup against J with the ideal line (J, up
//! to the CPU count) on the left, and kernel time per entry on the right — the lock signal: flat
//! when the kernel work per entry stays the same, rising when walkers wait on each other. One line
//! per target in its colour; J ticks only at the worker counts measured.

use super::axis::{self, Kind};
use super::palette::{GRID, INK, MUTED, Palette};
use super::svg::{Anchor, Svg, fit, text_width};
use fsbench_model::Scaling;

const WIDTH: f64 = 880.0;
const HEIGHT: f64 = 300.0;
const TOP: f64 = 56.0;
const BOTTOM: f64 = 44.0;
const LEFT: f64 = 58.0;

/// The J values measured, ascending.
fn workers(sweeps: &[&Scaling]) -> Vec<u32> {
    let mut j: Vec<u32> = sweeps
        .iter()
        .flat_map(|s| s.rows.iter().map(|r| r.workers))
        .collect();
    j.sort_unstable();
    j.dedup();
    j
}

/// A J axis: log2 when it spans 8× or more, else linear from the first J.
struct JAxis {
    lo: f64,
    hi: f64,
    log: bool,
}

impl JAxis {
    fn new(js: &[u32]) -> Self {
        let lo = f64::from(js.first().copied().unwrap_or(1).max(1));
        let hi = f64::from(js.last().copied().unwrap_or(2)).max(lo + 1.0);
        Self {
            lo,
            hi,
            log: hi / lo >= 8.0,
        }
    }

    fn frac(&self, j: f64) -> f64 {
        if self.log {
            (j.log2() - self.lo.log2()) / (self.hi.log2() - self.lo.log2())
        } else {
            (j - self.lo) / (self.hi - self.lo)
        }
    }
}

/// The chart of the sweeps of one workload and cache state; `cpus` bounds the ideal line.
pub fn draw(title: &str, sweeps: &[&Scaling], cpus: u32, palette: &Palette) -> String {
    let labels: Vec<&str> = sweeps.iter().map(|s| s.target.as_str()).collect();
    let legend_w = labels
        .iter()
        .map(|l| text_width(l, 12.0) + 40.0)
        .chain([text_width("ideal (J, up to 99 CPUs)", 12.0) + 40.0])
        .fold(0.0, f64::max)
        .min(220.0);
    let full =
        format!("{title} — speedup (higher is better) and kernel time per entry (lower is better)");
    let mut svg = Svg::new(WIDTH, HEIGHT, &full);
    svg.title(&full, WIDTH);
    let js = workers(sweeps);
    let jx = JAxis::new(&js);
    let pw = (WIDTH - legend_w - 24.0 - 2.0 * (LEFT + 12.0)) / 2.0;
    let ideal: Vec<(f64, f64)> = js
        .iter()
        .map(|&j| {
            (
                f64::from(j),
                f64::from(j).min(f64::from(cpus.max(1))) / jx.lo.min(f64::from(cpus.max(1))),
            )
        })
        .collect();
    let speed: Vec<(String, Vec<(f64, f64)>)> = sweeps
        .iter()
        .map(|s| {
            let pts = s
                .rows
                .iter()
                .map(|r| (f64::from(r.workers), r.speedup))
                .collect();
            (s.target.clone(), pts)
        })
        .collect();
    let sys: Vec<(String, Vec<(f64, f64)>)> = sweeps
        .iter()
        .map(|s| {
            let pts = s
                .rows
                .iter()
                .map(|r| (f64::from(r.workers), r.sys_ns_per_entry))
                .collect();
            (s.target.clone(), pts)
        })
        .collect();
    let panels = [
        (
            "speedup over the first J",
            Kind::Plain("×"),
            speed,
            Some(ideal),
        ),
        ("kernel (sys) time per entry", Kind::Duration, sys, None),
    ];
    for (i, (name, kind, lines, ideal)) in panels.iter().enumerate() {
        let x0 = LEFT + i as f64 * (pw + LEFT + 12.0);
        panel(
            &mut svg,
            (x0, pw),
            (name, *kind),
            (lines, ideal.as_ref()),
            (&jx, &js),
            palette,
        );
    }
    let lx = WIDTH - legend_w;
    for (k, l) in labels.iter().enumerate() {
        let y = TOP + 22.0 * k as f64;
        svg.line(lx, y, lx + 24.0, y, palette.of(l), 2.5);
        svg.text(
            lx + 30.0,
            y + 4.0,
            &fit(l, 12.0, legend_w - 34.0),
            Anchor::Start,
            12.0,
            INK,
        );
    }
    let y = TOP + 22.0 * labels.len() as f64;
    svg.dashed(lx, y, lx + 24.0, y, MUTED, 1.5);
    svg.text(
        lx + 30.0,
        y + 4.0,
        &format!("ideal (J, up to {cpus} CPUs)"),
        Anchor::Start,
        12.0,
        INK,
    );
    svg.finish()
}

type Lines = Vec<(String, Vec<(f64, f64)>)>;

fn panel(
    svg: &mut Svg,
    (x0, w): (f64, f64),
    (name, kind): (&str, Kind),
    (lines, ideal): (&Lines, Option<&Vec<(f64, f64)>>),
    (jx, js): (&JAxis, &[u32]),
    palette: &Palette,
) {
    let bottom = HEIGHT - BOTTOM;
    let hi = lines
        .iter()
        .flat_map(|l| &l.1)
        .chain(ideal.into_iter().flatten())
        .map(|p| p.1)
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let ax = axis::linear(0.0, hi, kind, true);
    let x = |j: f64| x0 + jx.frac(j) * w;
    let y = |v: f64| bottom - (v - ax.lo) / (ax.hi - ax.lo) * (bottom - TOP);
    let unit = if ax.unit == "×" || ax.unit.is_empty() {
        String::new()
    } else {
        format!(" ({})", ax.unit)
    };
    svg.bold(
        x0,
        TOP - 12.0,
        &format!("{name}{unit}"),
        Anchor::Start,
        12.0,
        INK,
    );
    for (v, label) in &ax.ticks {
        svg.line(x0, y(*v), x0 + w, y(*v), GRID, 1.0);
        let label = if kind == Kind::Plain("×") {
            format!("{label}×")
        } else {
            label.clone()
        };
        svg.text(x0 - 6.0, y(*v) + 4.0, &label, Anchor::End, 11.0, MUTED);
    }
    for &j in js {
        let jx = x(f64::from(j));
        svg.line(jx, TOP, jx, bottom, GRID, 1.0);
        svg.text(
            jx,
            bottom + 15.0,
            &j.to_string(),
            Anchor::Middle,
            11.0,
            MUTED,
        );
    }
    svg.line(x0, bottom, x0 + w, bottom, MUTED, 1.0);
    svg.line(x0, TOP, x0, bottom, MUTED, 1.0);
    svg.text(
        x0 + w / 2.0,
        bottom + 32.0,
        "workers (J)",
        Anchor::Middle,
        12.0,
        MUTED,
    );
    if let Some(ideal) = ideal {
        let pts: Vec<(f64, f64)> = ideal.iter().map(|&(j, v)| (x(j), y(v))).collect();
        svg.polyline(&pts, MUTED, 1.5, true);
    }
    for (target, pts) in lines {
        let pts: Vec<(f64, f64)> = pts
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|&(j, v)| (x(j), y(v)))
            .collect();
        let c = palette.of(target);
        svg.polyline(&pts, c, 2.5, false);
        for &(px, py) in &pts {
            svg.circle(px, py, 3.5, c, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{ScalingRow, ScalingVerdict};

    #[test]
    fn j_ticks_are_the_measured_integers_and_there_is_an_ideal_line() {
        let row = |j: u32, s: f64| ScalingRow {
            workers: j,
            rate: 1000.0 * s,
            speedup: s,
            efficiency: s / f64::from(j),
            sys_ns_per_entry: 800.0 * f64::from(j),
            wall_ns: 1e9,
            user_ns: 1e8,
            sys_ns: 5e8,
            machine_sys_pct: None,
            daemon_cpu_pct: None,
        };
        let s = Scaling {
            target: "ext4".into(),
            workload: "walk".into(),
            cache: "warm".into(),
            rows: vec![row(1, 1.0), row(2, 1.7), row(4, 1.9)],
            verdict: ScalingVerdict::Saturates,
            explanation: String::new(),
        };
        let mut p = Palette::default();
        p.add("ext4");
        let svg = draw("walk", &[&s], 2, &p);
        for t in [
            ">1<",
            ">2<",
            ">4<",
            "ideal (J, up to 2 CPUs)",
            "kernel (sys) time per entry (µs)",
        ] {
            assert!(svg.contains(t), "{t}: {svg}");
        }
        assert!(!svg.contains("efficiency") && !svg.contains(">1.5<"));
    }
}
