//! Descriptive summary of one set of samples (n, min, max, median, mean, stddev, CI95 half-width).

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Descriptive statistics of one set of samples, all in the samples' own unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// Number of samples (at least 1).
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Median (mean of the two middle samples for even n).
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator); 0 when n = 1.
    pub stddev: f64,
    /// Half-width of the two-sided 95% confidence interval of the mean (Student's t);
    /// `None` when n < 2.
    pub ci95_half: Option<f64>,
}

/// Summarises `samples`; `None` when empty or when any sample is not finite.
pub fn summarize(samples: &[f64]) -> Option<Summary> {
    if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    let mean = sorted.iter().sum::<f64>() / n as f64;
    let median = if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    };
    let stddev = if n > 1 {
        (sorted.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
    } else {
        0.0
    };
    let ci95_half = (n > 1)
        .then(|| t_critical(0.95, (n - 1) as f64))
        .flatten()
        .map(|t| t * stddev / (n as f64).sqrt());
    Some(Summary {
        n,
        min: sorted[0],
        max: sorted[n - 1],
        median,
        mean,
        stddev,
        ci95_half,
    })
}

/// Two-sided critical value of Student's t for `confidence` (0..1) and `df` degrees of freedom.
pub(crate) fn t_critical(confidence: f64, df: f64) -> Option<f64> {
    if !(0.0..1.0).contains(&confidence) || df.is_nan() || df <= 0.0 {
        return None;
    }
    let dist = StudentsT::new(0.0, 1.0, df).ok()?;
    Some(dist.inverse_cdf(1.0 - (1.0 - confidence) / 2.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_has_no_summary() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(summarize(&[1.0, f64::NAN]), None);
    }

    #[test]
    fn known_values_match_r() {
        // R: x <- c(2,4,4,4,5,5,7,9); mean 5, sd 2.13809, t.test CI half-width 1.787482
        let s = summarize(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert!((s.mean - 5.0).abs() < 1e-12);
        assert!((s.median - 4.5).abs() < 1e-12);
        assert!((s.stddev - 2.138_089_935).abs() < 1e-6);
        assert!((s.ci95_half.unwrap() - 1.787_482).abs() < 1e-5);
    }

    #[test]
    fn single_sample_has_zero_spread_and_no_interval() {
        let s = summarize(&[3.0]).unwrap();
        assert_eq!(s.stddev, 0.0);
        assert_eq!(s.ci95_half, None);
    }
}
