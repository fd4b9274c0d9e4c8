//! ministat's report: legend, plot, the vitals table and the Student's t comparison of every
//! dataset against the first.

use super::plot::Plot;
use super::{Dataset, student_t};
use crate::cfmt;

const SYMBOLS: [char; 8] = [' ', 'x', '+', '*', '%', '#', '@', 'O'];

/// What to print.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Options {
    /// Plot width in columns.
    pub width: usize,
    /// Index into the confidence table (0 = 80% ... 5 = 99.5%).
    pub confidence_index: usize,
    /// `-A`: no plot (statistics and comparisons stay).
    pub no_plot: bool,
    /// `-n`: statistics only (no plot, no comparison).
    pub stats_only: bool,
    /// `-s`: each dataset's bar on its own line.
    pub separate_bars: bool,
    /// `-q`: no legend and no table header (current FreeBSD).
    pub quiet: bool,
    /// Current FreeBSD formulas: true median, two-pass variance, Percival's % interval.
    pub modern: bool,
}

/// Renders the whole report for `sets` (the first is the baseline).
pub fn render(sets: &[Dataset], o: &Options) -> String {
    let mut out = String::new();
    if !o.quiet {
        for (i, d) in sets.iter().enumerate() {
            out.push_str(&format!("{} {}\n", SYMBOLS[i + 1], d.name));
        }
    }
    if !o.stats_only && !o.no_plot {
        let refs: Vec<&Dataset> = sets.iter().collect();
        let mut plot = Plot::new(o.width, o.separate_bars, &refs, o.modern);
        for (i, d) in sets.iter().enumerate() {
            plot.add(d, i as u8 + 1, o.modern);
        }
        plot.render(&mut out);
    }
    if !o.quiet {
        out.push_str(
            "    N           Min           Max        Median           Avg        Stddev\n",
        );
    }
    for (i, d) in sets.iter().enumerate() {
        vitals(&mut out, d, i + 1, o.modern);
        if i > 0 && !o.stats_only {
            relative(&mut out, d, &sets[0], o);
        }
    }
    out
}

fn vitals(out: &mut String, d: &Dataset, k: usize, modern: bool) {
    let g = |v: f64| cfmt::g_width(v, 13, 8);
    out.push_str(&format!(
        "{} {:>3} {} {} {} {} {}\n",
        SYMBOLS[k],
        d.n(),
        g(d.min()),
        g(d.max()),
        g(d.median(modern)),
        g(d.avg()),
        g(d.stddev(modern))
    ));
}

fn relative(out: &mut String, ds: &Dataset, rs: &Dataset, o: &Options) {
    let (n1, n2) = (ds.n() as f64, rs.n() as f64);
    let df = ds.n() + rs.n() - 2;
    let t = student_t(df, o.confidence_index).expect("invariant: df >= 4 and a valid level");
    let (v1, v2) = (ds.var(o.modern), rs.var(o.modern));
    let spool = (((n1 - 1.0) * v1 + (n2 - 1.0) * v2) / (n1 + n2 - 2.0)).sqrt();
    let s = spool * (1.0 / n1 + 1.0 / n2).sqrt();
    let d = ds.avg() - rs.avg();
    let e = t * s;
    let level = cfmt::f(super::CONFIDENCE_LEVELS[o.confidence_index], 1);
    if d.abs() > e {
        let re = if o.modern {
            let ratio = ds.avg() * ds.avg() / (rs.avg() * rs.avg());
            t * (((n1 - 1.0) * v1 + (n2 - 1.0) * v2 * ratio) * (n1 + n2)
                / (n1 * n2 * (n1 + n2 - 2.0)))
                .sqrt()
        } else {
            e
        };
        out.push_str(&format!("Difference at {level}% confidence\n"));
        out.push_str(&format!("\t{} +/- {}\n", cfmt::g(d, 6), cfmt::g(e, 6)));
        out.push_str(&format!(
            "\t{}% +/- {}%\n",
            cfmt::g(d * 100.0 / rs.avg(), 6),
            cfmt::g(re * 100.0 / rs.avg(), 6)
        ));
        out.push_str(&format!(
            "\t(Student's t, pooled s = {})\n",
            cfmt::g(spool, 6)
        ));
    } else {
        out.push_str(&format!("No difference proven at {level}% confidence\n"));
    }
}
