//! Axes in natural units: tick positions a person would choose (1, 2, 5 × 10ⁿ on linear axes;
//! decades, or 1-2-5 within them, on log axes) and labels in the unit the values need (`20k`
//! IOPS, `1.5` ms on an axis titled in ms, `100 µs` on a log latency axis), never `5000.0`.

use fsbench_model::catalogue::{Unit, unit_kind};

/// How the values of an axis are measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// Nanoseconds, shown in ns, µs, ms or s.
    Duration,
    /// Bytes, shown in B, KiB, MiB or GiB.
    Bytes,
    /// A plain quantity with its unit label (`MiB/s`, `IOPS`, `%`, or none).
    Plain(&'static str),
}

/// The axis kind of a metric.
pub fn kind_of(metric: &str) -> Kind {
    match unit_kind(metric) {
        Unit::Ns => Kind::Duration,
        Unit::Bytes => Kind::Bytes,
        Unit::PerS("/s") => Kind::Plain("/s"),
        u => Kind::Plain(u.label()),
    }
}

/// A linear axis: its range, ticks with labels, and the unit to put in its title.
#[derive(Debug, Clone)]
pub struct Linear {
    /// Lower end of the drawn range.
    pub lo: f64,
    /// Upper end of the drawn range.
    pub hi: f64,
    /// Tick values and their labels.
    pub ticks: Vec<(f64, String)>,
    /// The unit the labels are in (`ms`, `MiB/s`, `k IOPS`), for the axis title.
    pub unit: String,
}

/// A step of 1, 2 or 5 × 10ⁿ giving about `n` intervals over `span`.
pub fn nice_step(span: f64, n: usize) -> f64 {
    let raw = (span / n.max(1) as f64).abs().max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let m = raw / mag;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * mag
}

/// Divisor and unit name for values up to `max` of this kind.
fn scale(kind: Kind, max: f64) -> (f64, String) {
    let a = max.abs();
    match kind {
        Kind::Duration => {
            let (d, u) = if a >= 1e9 {
                (1e9, "s")
            } else if a >= 1e6 {
                (1e6, "ms")
            } else if a >= 1e3 {
                (1e3, "µs")
            } else {
                (1.0, "ns")
            };
            (d, u.to_string())
        }
        Kind::Bytes => {
            let mut d = 1.0;
            let mut i = 0;
            let units = ["B", "KiB", "MiB", "GiB", "TiB"];
            while a / d >= 1024.0 && i < units.len() - 1 {
                d *= 1024.0;
                i += 1;
            }
            (d, units[i].to_string())
        }
        Kind::Plain(unit) => {
            let (d, p) = if a >= 1e10 {
                (1e9, "G")
            } else if a >= 1e7 {
                (1e6, "M")
            } else if a >= 1e4 {
                (1e3, "k")
            } else {
                (1.0, "")
            };
            let unit = match (p, unit) {
                ("", u) => u.to_string(),
                (p, "") => format!(
                    "×{}",
                    &[("k", "1000"), ("M", "10⁶"), ("G", "10⁹")]
                        .iter()
                        .find(|x| x.0 == p)
                        .map_or("", |x| x.1)
                ),
                (p, "/s") => format!("{p}/s"),
                (p, u) => format!("{p} {u}"),
            };
            (d, unit)
        }
    }
}

/// A number with as many decimals as `step` needs and no trailing zeros (`0.5`, `20`, `2.25`,
/// `1` beside `1.5`), a true minus sign, never `-0`.
pub fn number(v: f64, step: f64) -> String {
    let decimals = if step >= 1.0 || step <= 0.0 {
        0
    } else {
        (-step.log10().floor()).clamp(0.0, 4.0) as usize
    };
    let s = format!("{v:.decimals$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s.trim_start_matches('-')
        .chars()
        .all(|c| c == '0' || c == '.')
    {
        "0".to_string()
    } else {
        s.replace('-', "−")
    }
}

/// A linear axis over data from `lo` to `hi`: widened to take in zero when `zero` is true (or
/// when the data come within a third of it), padded a little, ticks at a nice step.
pub fn linear(lo: f64, hi: f64, kind: Kind, zero: bool) -> Linear {
    let (mut lo, mut hi) = if lo.is_finite() && hi.is_finite() && lo <= hi {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    if zero || (lo >= 0.0 && lo <= hi / 3.0) {
        lo = lo.min(0.0);
    }
    if hi - lo <= f64::EPSILON * hi.abs().max(1.0) {
        let pad = if hi == 0.0 { 1.0 } else { hi.abs() * 0.1 };
        lo = if lo >= 0.0 && lo - pad < 0.0 {
            0.0
        } else {
            lo - pad
        };
        hi += pad;
    } else {
        let pad = (hi - lo) * 0.06;
        if lo != 0.0 {
            lo -= pad;
            if lo < 0.0 && hi > 0.0 && lo + pad >= 0.0 {
                lo = 0.0;
            }
        }
        hi += pad;
    }
    let (div, unit) = scale(kind, hi.abs().max(lo.abs()));
    let step = nice_step((hi - lo) / div, 5);
    let first = ((lo / div) / step).ceil() as i64;
    let last = ((hi / div) / step).floor() as i64;
    let ticks = (first..=last)
        .map(|k| {
            let v = k as f64 * step;
            (v * div, number(v, step))
        })
        .collect();
    Linear {
        lo,
        hi,
        ticks,
        unit,
    }
}

/// A duration for a log-axis tick, in its own unit: `200 ns`, `1 µs`, `1.5 ms`, `2 s`.
pub fn duration_tick(ns: f64) -> String {
    let (v, u) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} {u}")
}

/// Tick values for a log axis from `lo` to `hi` (both > 0): decades when the range is wide,
/// 1-2-5 or finer within them when it is narrow, and plain linear steps when even that gives
/// fewer than three.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi > lo) {
        return vec![lo.max(f64::MIN_POSITIVE)];
    }
    let sets: [&[f64]; 3] = [&[1.0], &[1.0, 2.0, 5.0], &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0]];
    for set in sets {
        let mut v = Vec::new();
        let mut k = lo.log10().floor() as i32 - 1;
        while 10f64.powi(k) <= hi * 1.000_001 {
            for m in set {
                let t = m * 10f64.powi(k);
                if t >= lo * 0.999_999 && t <= hi * 1.000_001 {
                    v.push(t);
                }
            }
            k += 1;
        }
        if v.len() >= 4 || (set.len() > 3 && v.len() >= 3) {
            return thin(v, 9);
        }
    }
    let step = nice_step(hi - lo, 4);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Keeps at most `max` ticks, evenly taken.
fn thin(v: Vec<f64>, max: usize) -> Vec<f64> {
    if v.len() <= max {
        return v;
    }
    let every = v.len().div_ceil(max);
    v.into_iter().step_by(every).collect()
}

/// A ratio for a log-axis tick: `0.5×`, `1×`, `1.25×`, `20×`.
pub fn ratio_tick(r: f64) -> String {
    let s = if r >= 10.0 {
        format!("{r:.0}")
    } else {
        let s = format!("{r:.3}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    format!("{s}×")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(a: &Linear) -> Vec<&str> {
        a.ticks.iter().map(|t| t.1.as_str()).collect()
    }

    #[test]
    fn linear_ticks_are_round_numbers_in_the_values_unit() {
        let a = linear(1450.0, 2080.0, Kind::Plain("MiB/s"), false);
        assert_eq!(labels(&a), ["1600", "1800", "2000"]);
        assert_eq!(a.unit, "MiB/s");
        let b = linear(0.0, 20_000.0, Kind::Plain("MiB/s"), true);
        assert_eq!(labels(&b), ["0", "5", "10", "15", "20"]);
        assert_eq!(b.unit, "k MiB/s");
        let t = linear(37_000.0, 47_000.0, Kind::Duration, false);
        assert_eq!(t.unit, "µs");
        assert!(labels(&t).contains(&"40"), "{:?}", labels(&t));
        let small = linear(0.2, 0.9, Kind::Plain(""), true);
        assert_eq!(labels(&small)[..3], ["0", "0.2", "0.4"]);
        assert!(!labels(&small).iter().any(|l| l.ends_with(".0")));
    }

    #[test]
    fn zero_comes_in_when_the_data_are_near_it_and_never_below() {
        let a = linear(100.0, 1000.0, Kind::Plain("IOPS"), false);
        assert_eq!(a.lo, 0.0);
        let b = linear(900.0, 1000.0, Kind::Plain("IOPS"), false);
        assert!(b.lo > 800.0);
    }

    #[test]
    fn log_ticks_are_decades_or_1_2_5() {
        assert_eq!(log_ticks(1e3, 1e7), [1e3, 1e4, 1e5, 1e6, 1e7]);
        let t = log_ticks(1.2e3, 9e3);
        assert_eq!(t, [1.5e3, 2e3, 3e3, 5e3, 7e3]);
        assert_eq!(duration_tick(1500.0), "1.5 µs");
        assert_eq!(duration_tick(1e6), "1 ms");
        assert_eq!(ratio_tick(0.5), "0.5×");
        assert_eq!(ratio_tick(1.0), "1×");
        let narrow = log_ticks(0.95, 1.06);
        assert!(narrow.len() >= 3, "{narrow:?}");
    }
}
