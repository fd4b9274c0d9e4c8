//! Steady state as the SNIA Solid State Storage Performance Test Specification (PTS 2.0.2,
//! section 2.1) defines it: over a measurement window of the last rounds (5 by default), the
//! range of the values (max − min) is within 20% of their average, and the excursion of their
//! least-squares line (its rise or fall across the window) is within 10% of that average.

/// Rounds in the SNIA measurement window.
pub const WINDOW: usize = 5;
/// Largest allowed range of the window, in percent of its average.
pub const MAX_RANGE_PCT: f64 = 20.0;
/// Largest allowed excursion of the window's least-squares line, in percent of its average.
pub const MAX_SLOPE_EXCURSION_PCT: f64 = 10.0;

/// The window's figures and whether they meet both criteria.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steadiness {
    /// Both criteria hold.
    pub steady: bool,
    /// Index of the window's first round in the values given.
    pub first: usize,
    /// Rounds in the window.
    pub len: usize,
    /// Average of the window.
    pub mean: f64,
    /// max − min of the window, percent of the average.
    pub range_pct: f64,
    /// |slope| × (len − 1) of the least-squares line, percent of the average.
    pub slope_excursion_pct: f64,
}

/// Judges the last `window` of `values` (one per round); `None` with fewer values than the
/// window, a window under 2, a non-finite value or a zero average.
pub fn judge(values: &[f64], window: usize) -> Option<Steadiness> {
    if window < 2 || values.len() < window || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let first = values.len() - window;
    let w = &values[first..];
    let n = window as f64;
    let mean = w.iter().sum::<f64>() / n;
    if mean == 0.0 {
        return None;
    }
    let (lo, hi) = w
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    // Least squares over x = 0..n-1: slope = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)².
    let xbar = (n - 1.0) / 2.0;
    let (sxy, sxx) = w
        .iter()
        .enumerate()
        .fold((0.0, 0.0), |(sxy, sxx), (i, &y)| {
            let dx = i as f64 - xbar;
            (sxy + dx * (y - mean), sxx + dx * dx)
        });
    let slope = sxy / sxx;
    let range_pct = (hi - lo) / mean.abs() * 100.0;
    let slope_excursion_pct = (slope * (n - 1.0)).abs() / mean.abs() * 100.0;
    Some(Steadiness {
        steady: range_pct <= MAX_RANGE_PCT && slope_excursion_pct <= MAX_SLOPE_EXCURSION_PCT,
        first,
        len: window,
        mean,
        range_pct,
        slope_excursion_pct,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_window_after_a_warm_up_is_steady() {
        // The first rounds fill a cache; the last five hover within ±4%.
        let v = [400.0, 900.0, 1000.0, 1040.0, 980.0, 1010.0, 995.0];
        let s = judge(&v, WINDOW).unwrap();
        assert!(s.steady, "{s:?}");
        assert_eq!((s.first, s.len), (2, 5));
        assert!((s.mean - 1005.0).abs() < 1e-9);
        assert!((s.range_pct - 60.0 / 1005.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_steady_drift_fails_on_the_slope_though_its_range_is_small() {
        // +4% per round: range 16% (under 20%) but the line rises 16% (over 10%).
        let v = [100.0, 104.0, 108.0, 112.0, 116.0];
        let s = judge(&v, WINDOW).unwrap();
        assert!(!s.steady);
        assert!(s.range_pct < MAX_RANGE_PCT, "{s:?}");
        assert!((s.slope_excursion_pct - 16.0 / 108.0 * 100.0).abs() < 1e-9);
    }

    #[test]
    fn a_wide_but_flat_window_fails_on_the_range() {
        let v = [100.0, 130.0, 100.0, 130.0, 100.0];
        let s = judge(&v, WINDOW).unwrap();
        assert!(!s.steady);
        assert!(s.slope_excursion_pct < MAX_SLOPE_EXCURSION_PCT, "{s:?}");
    }

    #[test]
    fn too_few_rounds_or_degenerate_values_are_not_judged() {
        assert_eq!(judge(&[1.0, 2.0, 3.0], WINDOW), None);
        assert_eq!(judge(&[0.0; 5], WINDOW), None);
        assert_eq!(judge(&[1.0, 1.0, f64::NAN, 1.0, 1.0], WINDOW), None);
        assert_eq!(judge(&[1.0; 5], 1), None);
    }
}
