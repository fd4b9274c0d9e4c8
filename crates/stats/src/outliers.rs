//! Outlier flags by the modified z-score of Iglewicz and Hoaglin (1993):
//! z = 0.6745 (x - median) / MAD, flagged when |z| > 3.5. Samples are flagged, never dropped.

/// Threshold on |modified z| above which a sample is flagged.
pub const THRESHOLD: f64 = 3.5;

/// The median of `sorted` (not empty, in increasing order).
pub(crate) fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// Fewest samples for which outliers are judged: with fewer, the MAD of a handful of values is
/// too unstable to single one out (three samples almost always "have" an outlier).
pub const MIN_SAMPLES: usize = 5;

/// One flag per sample. With MAD = 0 (more than half the samples equal), any sample that differs
/// from the median is flagged; with fewer than [`MIN_SAMPLES`] samples nothing is. Non-finite
/// samples are flagged.
pub fn modified_z_outliers(x: &[f64]) -> Vec<bool> {
    if x.len() < MIN_SAMPLES {
        return vec![false; x.len()];
    }
    let mut s: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    if s.is_empty() {
        return vec![true; x.len()];
    }
    s.sort_by(f64::total_cmp);
    let med = median(&s);
    let mut dev: Vec<f64> = s.iter().map(|v| (v - med).abs()).collect();
    dev.sort_by(f64::total_cmp);
    let mad = median(&dev);
    x.iter()
        .map(|&v| {
            if !v.is_finite() {
                true
            } else if mad == 0.0 {
                v != med
            } else {
                (0.6745 * (v - med) / mad).abs() > THRESHOLD
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_the_far_sample_only() {
        let f = modified_z_outliers(&[10.0, 10.2, 9.9, 10.1, 10.0, 25.0]);
        assert_eq!(f, [false, false, false, false, false, true]);
    }

    #[test]
    fn mad_zero_and_small_inputs() {
        let f = modified_z_outliers(&[5.0, 5.0, 5.0, 5.0, 6.0]);
        assert_eq!(f, [false, false, false, false, true]);
        assert_eq!(modified_z_outliers(&[5.0; 5]), [false; 5]);
        assert_eq!(modified_z_outliers(&[1.0, 100.0, 1.0]), [false; 3]);
        let f = modified_z_outliers(&[1.0, 2.0, 1.5, 1.2, f64::NAN]);
        assert_eq!(f, [false, false, false, false, true]);
    }
}
