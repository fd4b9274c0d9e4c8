//! A sustained level change inside a series (a throughput cliff): the best split of the series
//! into two constant segments by least squares (the "at most one change" case of change-point
//! detection), accepted only when the two levels differ by more than the noise allows.
//!
//! The split that minimises the summed squared error is searched exhaustively in O(n) from
//! prefix sums. Because the position is chosen to fit, a plain t-test would find "changes" in
//! pure noise, so the acceptance is deliberately strict. The levels must be apart by at least
//! [`MIN_CHANGE`] of the higher, each segment at least [`MIN_SEGMENT`] points, and the change
//! still there at the end of the second segment (its last third on the same side), so a passing
//! stall is not a cliff. Then one of two tests must hold:
//! - **balanced segments**: Welch's t between them at least [`MIN_T`] once the variances are
//!   widened for the residuals' autocorrelation, and the medians apart as the means are;
//! - **a short segment** (at most a ninth of the series — the shape users hunt: memory speed
//!   for the first 190 MiB of a 1 GiB write, then the disk's for nine seconds): the short
//!   segment's median lies beyond that of *every* stretch of the same length in the long one
//!   but one echo, by [`MIN_CHANGE`]. Welch's t cannot see this shape — a few points carry too
//!   little weight against a bursty remainder — while no stretch of a steady, noisy or
//!   seesawing series is unlike all the others that way: a seesaw's bursts are stretches as
//!   fast as its head all along.

use crate::segments::{Prefix, median};

/// Least points in each segment.
pub const MIN_SEGMENT: usize = 4;
/// Least |t| (Welch) between balanced segments: far beyond what the choice of split gives noise.
pub const MIN_T: f64 = 8.0;
/// Least distance of a short segment's mean from the average of the longer segment's windows of
/// its length, in those windows' standard deviations.
pub const MIN_Z: f64 = 6.0;
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
    if n < 2 * MIN_SEGMENT || values.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let p = Prefix::new(values);
    let at = (MIN_SEGMENT..=n - MIN_SEGMENT)
        .min_by(|&i, &j| (p.sse(0, i) + p.sse(i, n)).total_cmp(&(p.sse(0, j) + p.sse(j, n))))?;
    let (before, after) = (p.mean(0, at), p.mean(at, n));
    let diff = (after - before).abs();
    let t = welch_t(&p, at, n);
    // The change still holds over the last third of the second segment.
    let held = (p.mean(at + (n - at) * 2 / 3, n) - before).abs() > diff / 2.0;
    let proven = match 9 * at.min(n - at) <= n {
        true => unlike_every_stretch(values, at),
        false => {
            t / inflation(values, &p, at).sqrt() >= MIN_T
                && apart(median(&values[..at]), median(&values[at..]))
        }
    };
    (apart(before, after) && held && proven).then_some(LevelShift {
        at,
        before,
        after,
        t,
    })
}

/// Welch's t between `values[..at]` and `values[at..n]`.
fn welch_t(p: &Prefix, at: usize, n: usize) -> f64 {
    let se = (p.var(0, at) / at as f64 + p.var(at, n) / (n - at) as f64).sqrt();
    let diff = (p.mean(at, n) - p.mean(0, at)).abs();
    if se > 0.0 { diff / se } else { f64::INFINITY }
}

/// How much the residuals' lag-1 autocorrelation ρ inflates the variance of a segment's mean,
/// (1 + ρ) / (1 − ρ): a series whose neighbours move together (bursts, a seesaw, a wander)
/// holds fewer independent points than it has.
fn inflation(values: &[f64], p: &Prefix, at: usize) -> f64 {
    let n = values.len();
    let level = |i: usize| if i < at { p.mean(0, at) } else { p.mean(at, n) };
    let r: Vec<f64> = (0..n).map(|i| values[i] - level(i)).collect();
    let var: f64 = r.iter().map(|x| x * x).sum();
    let cov: f64 = r.windows(2).map(|w| w[0] * w[1]).sum();
    let rho = if var > 0.0 {
        (cov / var).clamp(0.0, 0.95)
    } else {
        0.0
    };
    (1.0 + rho) / (1.0 - rho)
}

/// Two levels apart by at least [`MIN_CHANGE`] of the higher.
fn apart(a: f64, b: f64) -> bool {
    let high = a.abs().max(b.abs());
    high > 0.0 && (a - b).abs() / high >= MIN_CHANGE
}

/// The short-segment test: the shorter side of the split (at most a ninth of the points, so that
/// the longer holds at least eight windows of its length side by side) has a median and a mean
/// beyond those of every window of its length in the longer side but one echo, by
/// [`MIN_CHANGE`], and a mean [`MIN_Z`] standard deviations of those windows' means away from
/// their average. The median, because a throttled series' few bursts can lift a window's mean as
/// high as a real head's, never its median; the mean and its distance in the windows' own
/// spread, because chance can fill half of one short window with bursts (its median jumps) but
/// not carry its mean that far beyond all the others. The windows' spread is measured, not
/// assumed, so bursts, a seesaw or a wander widen it as they should.
///
/// The echo: the windows that are not beyond may all lie in one stretch no longer than the
/// short side ([`one_echo`]) — writeback catching up once after the dirty limit lets the writer
/// run at memory speed for a while (recorded beside two CPU hogs, which slow the cipher's
/// workers), where a seesaw repeats its bursts all along.
fn unlike_every_stretch(values: &[f64], at: usize) -> bool {
    let n = values.len();
    let (short, long) = match at <= n - at {
        true => (&values[..at], &values[at..]),
        false => (&values[at..], &values[..at]),
    };
    let high = median(short) > median(long);
    let beyond = |of: fn(&[f64]) -> f64| {
        let m = of(short);
        let unlike = long.windows(short.len()).map(|w| {
            let w = of(w);
            apart(m, w) && (m > w) == high
        });
        one_echo(unlike, short.len())
    };
    let means: Vec<f64> = long.windows(short.len()).map(mean).collect();
    let (centre, spread) = (mean(&means), sd(&means));
    let far = spread == 0.0 || (mean(short) - centre).abs() / spread >= MIN_Z;
    far && beyond(median) && beyond(mean)
}

/// True when the windows that are not unlike the short side (`false` in `unlike`, one per window
/// in order) all start within `2 * len` windows of the first of them: at most one stretch of the
/// series, of the short side's length `len`, looks like it (the windows that overlap one such
/// stretch start from `len - 1` windows before it to `len - 1` after).
fn one_echo(unlike: impl Iterator<Item = bool>, len: usize) -> bool {
    let mut like = unlike.enumerate().filter(|&(_, u)| !u).map(|(i, _)| i);
    match like.next() {
        None => true,
        Some(first) => like.all(|i| i < first + 2 * len),
    }
}

fn sd(values: &[f64]) -> f64 {
    let m = mean(values);
    (values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / values.len() as f64).sqrt()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
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

    /// A recorded series (`fixtures/series/NAME`: one interval per line, "length_ns bytes") as
    /// MiB/s per interval.
    fn recorded(name: &str) -> Vec<f64> {
        let path = format!("{}/fixtures/series/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("fixture");
        text.lines()
            .filter_map(|l| {
                let (ns, bytes) = l.split_once(' ')?;
                let (ns, bytes): (f64, f64) = (ns.parse().ok()?, bytes.parse().ok()?);
                (ns > 0.0).then(|| bytes / 1_048_576.0 / (ns / 1e9))
            })
            .collect()
    }

    #[test]
    fn a_short_fast_head_before_a_long_bursty_tail_is_a_cliff() {
        // lab ext4-fscrypt, vm.dirty_bytes 256 MiB, a 1 GiB buffered write, 20 ms intervals:
        // ~1000 MiB/s for 12 intervals (0.25 s of 17.5), then ~60 MiB/s in bursts.
        let v = recorded("fscrypt-1g-write-dirty256m.txt");
        let c = level_shift(&v).expect("a cliff");
        assert!((5..=20).contains(&c.at), "{c:?}");
        assert!(c.before > 500.0 && c.after < 100.0, "{c:?}");
        // lab ext4, the same limits, 2 GiB, 10 ms: ~1500 MiB/s for 26 intervals, then ~250.
        let v = recorded("ext4-2g-write-dirty256m.txt");
        let c = level_shift(&v).expect("a cliff");
        assert!((15..=35).contains(&c.at), "{c:?}");
    }

    #[test]
    fn a_late_cliff_and_a_head_of_five_percent_are_found() {
        let late: Vec<f64> = (0..400)
            .map(|i| if i < 370 { 800.0 } else { 200.0 } + jitter(i, 300.0))
            .collect();
        let c = level_shift(&late).expect("a late cliff");
        assert_eq!(c.at, 370);
        let head: Vec<f64> = (0..400)
            .map(|i| if i < 20 { 900.0 } else { 300.0 } + jitter(i, 280.0))
            .collect();
        assert_eq!(level_shift(&head).expect("a short head").at, 20);
    }

    #[test]
    fn a_head_with_one_echo_is_a_cliff_and_with_two_is_not() {
        // lab ext4-fscrypt beside two CPU hogs, vm.dirty_bytes 64 MiB, a 256 MiB buffered write,
        // 8 ms intervals: ~280 MiB/s for 24 intervals, then ~40 with one stretch of ~250 (CI).
        let v = recorded("fscrypt-256m-write-dirty64m-hogs.txt");
        let c = level_shift(&v).expect("a cliff");
        assert!((20..=30).contains(&c.at), "{c:?}");
        assert!(c.before > 200.0 && c.after < 60.0, "{c:?}");
        let echoes = |at: &[usize]| -> Vec<f64> {
            (0..600)
                .map(|i| {
                    let fast = i < 20 || at.iter().any(|&a| (a..a + 12).contains(&i));
                    (if fast { 900.0 } else { 100.0 }) + jitter(i, 60.0)
                })
                .collect()
        };
        assert_eq!(level_shift(&echoes(&[300])).map(|c| c.at), Some(20));
        assert_eq!(level_shift(&echoes(&[200, 400])), None, "a seesaw");
    }

    /// A small deterministic generator for noise (no dependency for tests of a stats crate).
    pub(super) struct Lcg(pub(super) u64);

    impl Lcg {
        pub(super) fn unit(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((self.0 >> 11) as f64 + 0.5) / (1u64 << 53) as f64
        }
    }

    #[test]
    fn no_false_cliff_in_steady_noisy_bursty_wandering_or_seesaw_series() {
        let mut g = Lcg(7);
        let mut found = Vec::new();
        for round in 0..1000 {
            let kind = round % 4;
            // A seesaw shows itself over a few of its 40-interval periods.
            let n = (20 + (round * 37) % 1000).max(if kind == 3 { 120 } else { 0 });
            let mut ar = 0.0;
            let v: Vec<f64> = (0..n)
                .map(|i| match kind {
                    // Exponential: a standard deviation as large as the mean.
                    0 => -1000.0 * g.unit().ln(),
                    // Bursts: mostly throttled, one interval in ten at memory speed.
                    1 => {
                        if g.unit() < 0.1 {
                            4000.0
                        } else {
                            300.0 * g.unit()
                        }
                    }
                    // A slow wander (AR(1), φ = 0.9) around 1000.
                    2 => {
                        ar = 0.9 * ar + 60.0 * (g.unit() - 0.5);
                        1000.0 + ar * 3.0
                    }
                    // Seesaw: memory-speed bursts of 8 intervals every 40, throttled between.
                    _ => (if (i + round) % 40 < 8 { 3000.0 } else { 400.0 }) + 200.0 * g.unit(),
                })
                .collect();
            if let Some(c) = level_shift(&v) {
                found.push(format!("round {round} (kind {kind}, n {n}): {c:?}"));
            }
        }
        assert!(found.is_empty(), "{}", found.join("\n"));
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
