//! Reading a sample's time series: each point is stored with its interval's end only, so its
//! start and length come from the point before it. Every reader (cliffs, the gauge, the report's
//! charts, the series CSV) goes through [`spans`].

use crate::SeriesPoint;

/// One interval of a series, with where it starts and how long it lasted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span<'a> {
    /// Start of the interval, ns since the sample's start (the previous point's end).
    pub start_ns: u64,
    /// Its length, ns (whole intervals are `series_interval_ns`; the last may be shorter).
    pub len_ns: u64,
    /// The point.
    pub point: &'a SeriesPoint,
}

impl Span<'_> {
    /// MiB per second over the interval when `of_bytes`, else operations per second; 0 for an
    /// interval of no length.
    pub fn rate(&self, of_bytes: bool) -> f64 {
        if self.len_ns == 0 {
            return 0.0;
        }
        let amount = if of_bytes {
            self.point.bytes as f64 / 1_048_576.0
        } else {
            self.point.ops as f64
        };
        amount / (self.len_ns as f64 / 1e9)
    }
}

/// The intervals of `series` with their starts and lengths, in order.
pub fn spans(series: &[SeriesPoint]) -> impl Iterator<Item = Span<'_>> {
    let mut prev = 0;
    series.iter().map(move |p| {
        let start_ns = prev;
        prev = p.t_ns;
        Span {
            start_ns,
            len_ns: p.t_ns.saturating_sub(start_ns),
            point: p,
        }
    })
}

/// True when the series moved bytes: its rates are MiB/s, else operations/s.
pub fn of_bytes(series: &[SeriesPoint]) -> bool {
    series.iter().any(|p| p.bytes > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_start_where_the_previous_point_ended() {
        let s = [
            SeriesPoint {
                t_ns: 10_000_000,
                bytes: 10 << 20,
                ops: 10,
                ..SeriesPoint::default()
            },
            SeriesPoint {
                t_ns: 15_000_000,
                ops: 5,
                ..SeriesPoint::default()
            },
        ];
        let v: Vec<Span<'_>> = spans(&s).collect();
        assert_eq!((v[0].start_ns, v[0].len_ns), (0, 10_000_000));
        assert_eq!((v[1].start_ns, v[1].len_ns), (10_000_000, 5_000_000));
        assert!((v[0].rate(true) - 1000.0).abs() < 1e-9);
        assert!((v[1].rate(false) - 1000.0).abs() < 1e-9);
        assert!(of_bytes(&s));
    }
}
