//! `dist=`: which blocks (or files) are chosen, as fio's `random_distribution`: `uniform`,
//! `zipf:THETA`, `pareto:H` (0 < H < 1) or `normal:SIGMA` (the standard deviation, percent of
//! the range, around its middle). Skewed choices are drawn as popularity ranks (rank 0 the
//! hottest), then scattered over the range by a fixed bijection, so hot blocks are not all at
//! the start of the file. For information, the share of requests a cache holding the hottest
//! 1%, 5%, 10%, 25% or 50% of the range would serve is estimated from the same draws.

use crate::file::Rng;
use rand_distr::Distribution;

/// A distribution of choices over a range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Dist {
    /// Every item equally likely.
    Uniform,
    /// Rank r chosen with probability ∝ 1/r^theta.
    Zipf(f64),
    /// fio's Pareto: rank `(n−1)·u^(ln h / ln(1−h))`.
    Pareto(f64),
    /// Around the middle, standard deviation this % of the range.
    Normal(f64),
}

/// Parses a `dist` value (`uniform`, `zipf:THETA`, `pareto:H`, `normal:PCT%`); the error says
/// what to give instead.
pub fn parse_dist(text: &str) -> Result<Dist, crate::error::BadValue> {
    let t = text.trim().to_ascii_lowercase();
    let (name, value) = t.split_once(':').unwrap_or((&t, ""));
    let v = value.trim().trim_end_matches('%').parse::<f64>().ok();
    let bad = |hint: &'static str| {
        Err(crate::error::BadValue {
            value: text.to_string(),
            hint,
        })
    };
    match (name, v) {
        ("uniform", _) if value.is_empty() => Ok(Dist::Uniform),
        ("zipf", Some(th)) if th > 0.0 && th.is_finite() && th <= 100.0 => Ok(Dist::Zipf(th)),
        ("zipf", _) => bad(": give zipf:THETA with THETA above 0, e.g. zipf:1.2"),
        ("pareto", Some(h)) if h > 0.0 && h < 1.0 => Ok(Dist::Pareto(h)),
        ("pareto", _) => bad(": give pareto:H with 0 < H < 1, e.g. pareto:0.2"),
        ("normal", Some(s)) if s > 0.0 && s <= 100.0 => Ok(Dist::Normal(s)),
        ("normal", _) => {
            bad(": give normal:SIGMA, the stddev in % of the range (0 to 100], e.g. normal:10")
        }
        _ => bad(": use uniform, zipf:THETA, pareto:H or normal:SIGMA"),
    }
}

/// Draws items of `0..n` from a distribution.
#[derive(Debug, Clone)]
pub struct Picker {
    dist: Dist,
    n: u64,
    zipf: Option<rand_distr::Zipf<f64>>,
    /// `pareto:H`'s exponent, `ln H / ln(1 − H)` (computed once, not per draw).
    pareto_pow: f64,
    /// Rank → item: `(rank · mul + add) mod n`, `mul` coprime with `n` (a bijection).
    mul: u64,
    add: u64,
}

impl Picker {
    /// A picker over `n` items (at least one).
    pub fn new(dist: Dist, n: u64, seed: u64) -> Self {
        let n = n.max(1);
        let zipf = match dist {
            Dist::Zipf(theta) => rand_distr::Zipf::new(n, theta).ok(),
            _ => None,
        };
        let mut rng = Rng::new(seed ^ 0x05CA_77E2);
        let mut mul = (rng.next_u64() % n) | 1;
        while gcd(mul, n) != 1 {
            mul += 2;
        }
        let pareto_pow = match dist {
            Dist::Pareto(h) => h.ln() / (1.0 - h).ln(),
            _ => 1.0,
        };
        Self {
            dist,
            n,
            zipf,
            pareto_pow,
            mul: mul % n.max(2),
            add: rng.next_u64() % n,
        }
    }

    /// The next item's popularity rank (0 the hottest).
    pub fn rank(&self, rng: &mut Rng) -> u64 {
        match self.dist {
            Dist::Uniform => rng.below(self.n),
            Dist::Zipf(_) => match &self.zipf {
                Some(z) => (z.sample(&mut RngAdapter(rng)) as u64).clamp(1, self.n) - 1,
                None => rng.below(self.n),
            },
            Dist::Pareto(_) => ((self.n - 1) as f64 * unit(rng).powf(self.pareto_pow)) as u64,
            Dist::Normal(sigma) => {
                let z: f64 = rand_distr::StandardNormal.sample(&mut RngAdapter(rng));
                // Distance from the middle, both sides folded: 2·|z|·σ·n, within the range.
                ((2.0 * z.abs() * sigma / 100.0 * self.n as f64) as u64).min(self.n - 1)
            }
        }
    }

    /// The next item.
    #[inline]
    pub fn pick(&self, rng: &mut Rng) -> u64 {
        if self.dist == Dist::Uniform {
            return rng.below(self.n);
        }
        let r = self.rank(rng);
        ((u128::from(r) * u128::from(self.mul) + u128::from(self.add)) % u128::from(self.n)) as u64
    }

    /// The share of requests a cache of the hottest `share` of the items would serve, for
    /// each share of [`CACHE_SHARES`], estimated from 200,000 seeded draws.
    pub fn hit_ratios(&self) -> Vec<(f64, f64)> {
        const DRAWS: u64 = 200_000;
        let mut rng = Rng::new(0x417);
        let mut ranks: Vec<u64> = (0..DRAWS).map(|_| self.rank(&mut rng)).collect();
        ranks.sort_unstable();
        CACHE_SHARES
            .iter()
            .map(|&s| {
                let k = ((self.n as f64 * s).ceil() as u64).max(1);
                let hits = ranks.partition_point(|&r| r < k);
                (s, hits as f64 / DRAWS as f64)
            })
            .collect()
    }

    /// One line for the run's notes: what share of requests a cache of part of the range
    /// would serve under this distribution.
    pub fn note(&self, what: &str) -> Option<String> {
        if self.dist == Dist::Uniform {
            return None;
        }
        let parts: Vec<String> = self
            .hit_ratios()
            .iter()
            .map(|(s, h)| format!("{:.0}% → {:.0}%", s * 100.0, h * 100.0))
            .collect();
        Some(format!(
            "{} over {} {what}: a cache of the hottest share of them would serve (share → requests) {}",
            label(self.dist),
            self.n,
            parts.join(", ")
        ))
    }
}

/// Cache sizes, as shares of the range, that [`Picker::hit_ratios`] reports.
pub const CACHE_SHARES: [f64; 5] = [0.01, 0.05, 0.10, 0.25, 0.50];

fn label(d: Dist) -> String {
    match d {
        Dist::Uniform => "uniform".into(),
        Dist::Zipf(t) => format!("dist=zipf:{t}"),
        Dist::Pareto(h) => format!("dist=pareto:{h}"),
        Dist::Normal(s) => format!("dist=normal:{s}"),
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Uniform in (0, 1].
fn unit(rng: &mut Rng) -> f64 {
    ((rng.next_u64() >> 11) as f64 + 1.0) / (1u64 << 53) as f64
}

/// fsbench's generator as `rand`'s, for `rand_distr`'s samplers.
struct RngAdapter<'a>(&'a mut Rng);

impl rand_core::RngCore for RngAdapter<'_> {
    fn next_u32(&mut self) -> u32 {
        (self.0.next_u64() >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let v = self.0.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distributions_parse_and_refuse_with_the_fix() {
        assert_eq!(parse_dist("zipf:1.2"), Ok(Dist::Zipf(1.2)));
        assert_eq!(parse_dist("pareto:0.2"), Ok(Dist::Pareto(0.2)));
        assert_eq!(parse_dist("normal:10%"), Ok(Dist::Normal(10.0)));
        assert_eq!(parse_dist("uniform"), Ok(Dist::Uniform));
        assert!(
            parse_dist("pareto:1.5")
                .unwrap_err()
                .to_string()
                .contains("0 < H < 1")
        );
        assert!(
            parse_dist("zipf")
                .unwrap_err()
                .to_string()
                .contains("zipf:1.2")
        );
        assert!(parse_dist("gauss:3").is_err());
    }

    #[test]
    fn skew_concentrates_requests_and_every_pick_is_in_range() {
        let n = 10_000;
        for d in [Dist::Zipf(1.2), Dist::Pareto(0.2), Dist::Normal(5.0)] {
            let p = Picker::new(d, n, 9);
            let mut rng = Rng::new(1);
            assert!((0..10_000).all(|_| p.pick(&mut rng) < n));
            let hits = p.hit_ratios();
            // A cache of 10% of the range serves far more than 10% of the requests.
            assert!(hits[2].1 > 0.5, "{d:?}: {hits:?}");
            assert!(hits.windows(2).all(|w| w[0].1 <= w[1].1));
        }
        let u = Picker::new(Dist::Uniform, n, 9).hit_ratios();
        assert!((u[2].1 - 0.10).abs() < 0.01, "{u:?}");
    }

    #[test]
    fn the_scatter_is_a_bijection() {
        let p = Picker::new(Dist::Zipf(1.1), 1000, 3);
        let mut seen = vec![false; 1000];
        for r in 0..1000u64 {
            let i = ((u128::from(r) * u128::from(p.mul) + u128::from(p.add)) % 1000) as usize;
            assert!(!seen[i]);
            seen[i] = true;
        }
    }
}
