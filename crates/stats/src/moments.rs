//! Mergeable mean and variance (Welford's update; Chan et al.'s parallel merge, as fio's
//! `__sum_stat` does), so per-worker or per-host statistics combine exactly.

/// Count, mean and sum of squared deviations of a stream of values.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Moments {
    /// Number of values.
    pub n: u64,
    /// Mean of the values.
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
}

impl Moments {
    /// Adds one value.
    pub fn push(&mut self, x: f64) {
        self.n += 1;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Combines two partial results as if all values had been pushed into one.
    pub fn merge(self, o: Moments) -> Moments {
        if self.n == 0 {
            return o;
        }
        if o.n == 0 {
            return self;
        }
        let n = self.n + o.n;
        let d = o.mean - self.mean;
        Moments {
            n,
            mean: self.mean + d * o.n as f64 / n as f64,
            m2: self.m2 + o.m2 + d * d * self.n as f64 * o.n as f64 / n as f64,
        }
    }

    /// Sample variance (n - 1); `None` for n < 2.
    pub fn variance(&self) -> Option<f64> {
        (self.n >= 2).then(|| self.m2 / (self.n - 1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn of(xs: &[f64]) -> Moments {
        let mut m = Moments::default();
        xs.iter().for_each(|&x| m.push(x));
        m
    }

    proptest! {
        #[test]
        fn merging_parts_equals_the_whole(xs in prop::collection::vec(-1e6f64..1e6, 2..200), cut in 0usize..200) {
            let cut = cut.min(xs.len());
            let whole = of(&xs);
            let merged = of(&xs[..cut]).merge(of(&xs[cut..]));
            prop_assert_eq!(merged.n, whole.n);
            prop_assert!((merged.mean - whole.mean).abs() <= 1e-9 * (1.0 + whole.mean.abs()));
            let (a, b) = (merged.variance().unwrap(), whole.variance().unwrap());
            prop_assert!((a - b).abs() <= 1e-7 * (1.0 + b.abs()));
        }

        #[test]
        fn summary_and_moments_agree(xs in prop::collection::vec(-1e3f64..1e3, 2..100)) {
            let s = crate::summarize(&xs).unwrap();
            let m = of(&xs);
            prop_assert!((s.mean - m.mean).abs() < 1e-9);
            prop_assert!((s.stddev - m.variance().unwrap().sqrt()).abs() < 1e-7);
            prop_assert!(s.min <= s.median && s.median <= s.max);
        }
    }
}
