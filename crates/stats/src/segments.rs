//! Segments of a sequence in O(1) each: prefix sums of the values and of their squares give any
//! segment's mean, squared error and variance (the change-point searches over a sample's
//! series and over a cell's runs), and the median of an unsorted slice.

/// Prefix sums of a sequence and of its squares.
pub(crate) struct Prefix {
    /// `s[i]`: the sum of the first `i` values.
    pub(crate) s: Vec<f64>,
    /// `q[i]`: the sum of the squares of the first `i` values.
    pub(crate) q: Vec<f64>,
}

impl Prefix {
    pub(crate) fn new(values: &[f64]) -> Self {
        let n = values.len();
        let (mut s, mut q) = (vec![0.0; n + 1], vec![0.0; n + 1]);
        for (i, &v) in values.iter().enumerate() {
            s[i + 1] = s[i] + v;
            q[i + 1] = q[i] + v * v;
        }
        Self { s, q }
    }

    /// Mean of `values[a..b]`.
    pub(crate) fn mean(&self, a: usize, b: usize) -> f64 {
        (self.s[b] - self.s[a]) / (b - a) as f64
    }

    /// Squared error of `values[a..b]` around its mean (never below zero from rounding).
    pub(crate) fn sse(&self, a: usize, b: usize) -> f64 {
        let sum = self.s[b] - self.s[a];
        ((self.q[b] - self.q[a]) - sum * sum / (b - a) as f64).max(0.0)
    }

    /// Sample variance of `values[a..b]`.
    pub(crate) fn var(&self, a: usize, b: usize) -> f64 {
        self.sse(a, b) / ((b - a) as f64 - 1.0)
    }
}

/// The median of `values` (not empty), in any order.
pub(crate) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    crate::outliers::median(&v)
}
