//! A sustained level change inside a series (a throughput cliff): the best split of the series
//! into two constant segments by least squares (the "at most one change" case of change-point
//! detection), accepted only when the two levels differ by more than the noise allows.
//!
//! The split that minimises the summed squared error is searched exhaustively in O(n) from
//! prefix sums. Because the position is chosen to fit, a plain t-test would find "changes" in
//! pure noise, so the acceptance is deliberately strict: Welch's t between the segments at least
//! [`MIN_T`], levels apart by at least [`MIN_CHANGE`] of the higher, each segment at least
//! [`MIN_SEGMENT`] points, and the change still there at the end of
//! the second segment (its last third on the same side), so a passing stall is not a cliff.

/// Least points in each segment.
pub const MIN_SEGMENT: usize = 5;
/// Least |t| (Welch) between the segments: far beyond what the choice of split gives noise.
pub const MIN_T: f64 = 8.0;
/// Least relative difference between the levels, of the higher one.
pub const MIN_CHANGE: f64 = 0.25;

/// A level change: the series is about `before` up to `at` (exclusive), then about `after`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LevelShift {
    /// Index of the first point of the second segment.
    pub at: usize,
    /// Mean of the first segment.
    pub before: f64,
    /// Mean of the second segment.
    pub after: f64,
    /// Welch's t between the segments.
    pub t: f64,
}

/// The series' one sustained level change, if it has one.
pub fn level_shift(values: &[f64]) -> Option<LevelShift> {
    let n = values.len();
    let min_seg = MIN_SEGMENT;
    if n < 2 * min_seg || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let (mut s, mut q) = (vec![0.0; n + 1], vec![0.0; n + 1]);
    for (i, &v) in values.iter().enumerate() {
        s[i + 1] = s[i] + v;
        q[i + 1] = q[i] + v * v;
    }
    // Squared error of values[a..b] around its mean.
    let sse = |a: usize, b: usize| {
        let (sum, len) = (s[b] - s[a], (b - a) as f64);
        (q[b] - q[a]) - sum * sum / len
    };
    let at = (min_seg..=n - min_seg)
        .min_by(|&i, &j| (sse(0, i) + sse(i, n)).total_cmp(&(sse(0, j) + sse(j, n))))?;
    let stats = |a: usize, b: usize| {
        let len = (b - a) as f64;
        let mean = (s[b] - s[a]) / len;
        (mean, sse(a, b).max(0.0) / (len - 1.0), len)
    };
    let (before, v1, n1) = stats(0, at);
    let (after, v2, n2) = stats(at, n);
    let se = (v1 / n1 + v2 / n2).sqrt();
    let diff = (after - before).abs();
    let t = if se > 0.0 { diff / se } else { f64::INFINITY };
    let high = before.abs().max(after.abs());
    // The change still holds over the last third of the second segment.
    let tail = at + (n - at) * 2 / 3;
    let (tail_mean, _, _) = stats(tail, n);
    let held = (tail_mean - before).abs() > diff / 2.0;
    (t >= MIN_T && high > 0.0 && diff / high >= MIN_CHANGE && held).then_some(LevelShift {
        at,
        before,
        after,
        t,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic jitter of ±`amp` (no randomness in this crate).
    fn jitter(i: usize, amp: f64) -> f64 {
        ((i * 7919 % 97) as f64 / 96.0 - 0.5) * 2.0 * amp
    }

    #[test]
    fn buffered_writes_falling_to_the_disks_speed_are_found_where_they_fell() {
        // Recorded shape: ~4000 MiB/s for 8 intervals, then ~300 MiB/s with 0..400 noise.
        let v: Vec<f64> = (0..200)
            .map(|i| {
                if i < 8 {
                    4000.0 + jitter(i, 800.0)
                } else {
                    300.0 + jitter(i, 200.0)
                }
            })
            .collect();
        let c = level_shift(&v).expect("a cliff");
        assert_eq!(c.at, 8);
        let v: Vec<f64> = (0..200)
            .map(|i| {
                if i < 60 {
                    4000.0 + jitter(i, 800.0)
                } else {
                    300.0 + jitter(i, 200.0)
                }
            })
            .collect();
        let c = level_shift(&v).expect("a cliff");
        assert_eq!(c.at, 60);
        assert!(
            (c.before - 4000.0).abs() < 150.0 && (c.after - 300.0).abs() < 30.0,
            "{c:?}"
        );
    }

    #[test]
    fn noise_a_passing_stall_and_a_small_step_are_not_cliffs() {
        let flat: Vec<f64> = (0..300).map(|i| 1000.0 + jitter(i, 400.0)).collect();
        assert_eq!(level_shift(&flat), None);
        let stall: Vec<f64> = (0..300)
            .map(|i| {
                if (100..140).contains(&i) {
                    50.0
                } else {
                    1000.0 + jitter(i, 100.0)
                }
            })
            .collect();
        assert_eq!(level_shift(&stall), None, "it came back");
        let step: Vec<f64> = (0..300)
            .map(|i| if i < 150 { 1000.0 } else { 900.0 } + jitter(i, 10.0))
            .collect();
        assert_eq!(level_shift(&step), None, "10% is not a cliff");
    }

    #[test]
    fn short_or_broken_series_are_not_judged() {
        assert_eq!(level_shift(&[1.0; 9]), None);
        assert_eq!(
            level_shift(&[1.0, f64::NAN, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            None
        );
    }
}
