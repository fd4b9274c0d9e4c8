//! Human formatting of numbers with their units: sizes in powers of 1024, durations scaled to
//! ns/µs/ms/s, rates with k/M suffixes. One place so every report agrees.

use fsbench_model::catalogue::{Unit, unit_kind};

/// `1.5 GiB`, `512 B`.
pub fn bytes(n: u64) -> String {
    fsbench_model::units::format_bytes(n)
}

/// A duration given in ns, scaled: `850 ns`, `12.3 µs`, `4.56 ms`, `1.234 s`.
pub fn duration_ns(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    let a = ns.abs();
    if a < 1e3 {
        format!("{ns:.0} ns")
    } else if a < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if a < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.3} s", ns / 1e9)
    }
}

/// A count or rate with k/M/G suffix: `812`, `12.3k`, `1.20M`.
pub fn count(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.2}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.2}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// A metric's value with its unit, chosen from its name (`throughput_mib_s` → `812.3 MiB/s`).
pub fn metric_value(name: &str, v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    match unit_kind(name) {
        Unit::Ns => duration_ns(v),
        Unit::MibPerS => format!("{v:.1} MiB/s"),
        Unit::Iops => format!("{} IOPS", count(v)),
        Unit::PerS("/s") => format!("{}/s", count(v)),
        Unit::PerS(what) => format!("{} {what}", count(v)),
        Unit::Pct => format!("{v:.1}%"),
        Unit::Bytes => bytes(v.max(0.0) as u64),
        Unit::Flag => {
            if v >= 1.0 {
                "yes".into()
            } else if v <= 0.0 {
                "no".into()
            } else {
                format!("{:.0}%", v * 100.0)
            }
        }
        Unit::Count => count(v),
    }
}

/// The value alone, without the unit (for table cells under a unit header).
pub fn metric_number(name: &str, v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    match unit_kind(name) {
        Unit::Ns => duration_ns(v),
        Unit::MibPerS | Unit::Pct => format!("{v:.1}"),
        Unit::Bytes => bytes(v.max(0.0) as u64),
        _ => count(v),
    }
}

/// Text for a terminal (the one escaping helper, in `fsbench_model::text`).
pub use fsbench_model::text::terminal_safe;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(bytes(512), "512 B");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
        assert_eq!(duration_ns(850.0), "850 ns");
        assert_eq!(duration_ns(12_345.0), "12.3 µs");
        assert_eq!(duration_ns(4_560_000.0), "4.56 ms");
        assert_eq!(count(12_345.0), "12.3k");
        assert_eq!(
            metric_value(fsbench_model::metric::THROUGHPUT_MIB_S, 812.34),
            "812.3 MiB/s"
        );
        assert_eq!(
            metric_value(fsbench_model::metric::IOPS, 250_000.0),
            "250.0k IOPS"
        );
        assert_eq!(
            metric_value(fsbench_model::metric::LAT_P50_NS, f64::NAN),
            "-"
        );
    }
}
