//! Two-sample comparison of means: the difference, its confidence interval (absolute and in % of
//! the baseline mean) and whether it excludes zero. Pooled Student's t is ministat's test;
//! Welch's t does not assume equal variances.

use crate::summary::t_critical;

/// Which test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Student's t with pooled variance, df = n1 + n2 - 2 (ministat).
    StudentPooled,
    /// Welch's t with Welch–Satterthwaite degrees of freedom.
    Welch,
}

impl Method {
    /// Name recorded in results.
    pub fn name(self) -> &'static str {
        match self {
            Self::StudentPooled => "student-pooled",
            Self::Welch => "welch",
        }
    }
}

/// The outcome of a comparison of `other` against `baseline`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// mean(other) - mean(baseline).
    pub difference: f64,
    /// Half-width of the confidence interval of the difference.
    pub ci_half: f64,
    /// `difference` in % of the baseline mean.
    pub difference_pct: f64,
    /// `ci_half` in % of the baseline mean.
    pub ci_half_pct: f64,
    /// Pooled standard deviation (Student) or the standard error (Welch).
    pub s: f64,
    /// Degrees of freedom.
    pub df: f64,
    /// Critical value of t used.
    pub t: f64,
    /// The interval excludes zero: a difference is proven at this confidence.
    pub proven: bool,
}

fn mean_var(x: &[f64]) -> Option<(f64, f64)> {
    if x.len() < 2 || x.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    Some((
        m,
        x.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - 1.0),
    ))
}

/// Compares the means of `other` and `baseline` at `confidence` (0..1, e.g. 0.95). `None` when a
/// side has fewer than 2 samples, a sample is not finite, or the test is undefined (zero
/// variance on both sides for Welch).
pub fn compare(
    baseline: &[f64],
    other: &[f64],
    confidence: f64,
    method: Method,
) -> Option<Difference> {
    compare_with(baseline, other, method, |df| t_critical(confidence, df))
}

/// Pooled Student's t exactly as ministat decides it: the critical value comes from ministat's
/// own table (`level_index` 0..6 for 80, 90, 95, 98, 99, 99.5), so the verdict always agrees with
/// `ministat -c LEVEL` on the same samples.
pub fn compare_ministat(baseline: &[f64], other: &[f64], level_index: usize) -> Option<Difference> {
    compare_with(baseline, other, Method::StudentPooled, |df| {
        crate::ministat::student_t(df as usize, level_index)
    })
}

fn compare_with(
    baseline: &[f64],
    other: &[f64],
    method: Method,
    critical: impl Fn(f64) -> Option<f64>,
) -> Option<Difference> {
    let (m1, v1) = mean_var(baseline)?;
    let (m2, v2) = mean_var(other)?;
    let (n1, n2) = (baseline.len() as f64, other.len() as f64);
    let (s, se, df) = match method {
        Method::StudentPooled => {
            let df = n1 + n2 - 2.0;
            let sp = (((n1 - 1.0) * v1 + (n2 - 1.0) * v2) / df).sqrt();
            (sp, sp * (1.0 / n1 + 1.0 / n2).sqrt(), df)
        }
        Method::Welch => {
            let (a, b) = (v1 / n1, v2 / n2);
            let se = (a + b).sqrt();
            let df = (a + b).powi(2) / (a * a / (n1 - 1.0) + b * b / (n2 - 1.0));
            (se, se, df)
        }
    };
    if !df.is_finite() {
        return None;
    }
    let t = critical(df)?;
    let d = m2 - m1;
    let e = t * se;
    let pct = |x: f64| if m1 != 0.0 { x * 100.0 / m1 } else { f64::NAN };
    Some(Difference {
        difference: d,
        ci_half: e,
        difference_pct: pct(d),
        ci_half_pct: pct(e),
        s,
        df,
        t,
        proven: d.abs() > e,
    })
}

/// Relative precision of a mean: CI95 half-width over |mean|; `None` for n < 2 or mean 0.
pub fn relative_precision(samples: &[f64]) -> Option<f64> {
    let s = crate::summarize(samples)?;
    let h = s.ci95_half?;
    (s.mean != 0.0).then(|| h / s.mean.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [f64; 6] = [53.3, 53.2, 53.7, 52.9, 53.5, 53.4];
    const B: [f64; 6] = [44.9, 45.2, 44.8, 45.6, 45.0, 45.3];

    #[test]
    fn pooled_matches_ministat() {
        // ministat (fixture 03-seed-afs-nfs): Difference at 95.0% confidence
        //   -8.2 +/- 0.365344 ; -15.375% +/- 0.685019% ; pooled s = 0.284019
        let d = compare(&A, &B, 0.95, Method::StudentPooled).unwrap();
        assert!((d.difference + 8.2).abs() < 1e-9);
        assert!((d.s - 0.284019).abs() < 1e-6);
        // statrs t(10, .975) = 2.2281 vs ministat's table 2.228: same to 4 digits.
        assert!((d.ci_half - 0.365344).abs() < 1e-4);
        assert!((d.ci_half_pct - 0.685019).abs() < 1e-3);
        assert!((d.difference_pct + 15.375).abs() < 1e-3);
        assert!(d.proven);
    }

    #[test]
    fn welch_matches_scipy() {
        // Welch–Satterthwaite df computed independently (Python, statistics.variance): 9.944980.
        let d = compare(&A, &B, 0.95, Method::Welch).unwrap();
        assert!((d.df - 9.944980).abs() < 1e-5, "{}", d.df);
        // Equal n: Welch's standard error equals the pooled one (0.163978).
        assert!((d.s - 0.163978).abs() < 1e-6);
        assert!(d.proven);
    }

    #[test]
    fn ministat_table_gives_ministat_interval() {
        let d = compare_ministat(&A, &B, 2).unwrap();
        assert_eq!(format!("{:.6}", d.ci_half), "0.365344");
        assert_eq!(d.t, 2.228);
    }

    #[test]
    fn identical_samples_prove_nothing() {
        let d = compare(&A, &A, 0.95, Method::StudentPooled).unwrap();
        assert_eq!(d.difference, 0.0);
        assert!(!d.proven);
    }

    #[test]
    fn degenerate_inputs_give_none() {
        assert!(compare(&[1.0], &A, 0.95, Method::StudentPooled).is_none());
        assert!(compare(&A, &[1.0, f64::NAN], 0.95, Method::Welch).is_none());
        assert!(compare(&[2.0, 2.0], &[3.0, 3.0], 0.95, Method::Welch).is_none());
        assert!(compare(&A, &B, 1.5, Method::StudentPooled).is_none());
    }

    #[test]
    fn precision_of_a_mean() {
        assert!(relative_precision(&[10.0, 10.0, 10.0]).unwrap() == 0.0);
        assert!(relative_precision(&[1.0]).is_none());
        let p = relative_precision(&A).unwrap();
        assert!(p > 0.0 && p < 0.01);
    }
}
