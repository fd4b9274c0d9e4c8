//! Steps across runs: the lasting changes in a cell's headline over a sequence of runs, found by
//! binary segmentation of the runs' medians and accepted only when proven.
//!
//! Each run is one set of samples; its median is its level. A segment of runs is split where the
//! pooled (equal-variance) t between the mean levels on either side is largest, among the splits
//! whose level change *lasts*: the last run before the split sits on the old side of the
//! midpoint between the two levels, and the first [`MIN_RUNS`] runs from it on the new side. The
//! split is accepted only when the difference is proven twice:
//!
//! - between runs: the pooled t on the runs' medians exceeds Student's critical value at the
//!   confidence asked for, Bonferroni-corrected for the number of splits that were tried (the
//!   position was chosen to fit, so an uncorrected test would find steps in noise), with the
//!   run-to-run variance at least the whole history's (a few runs that happen to agree closely
//!   are not taken as quieter than the rest);
//! - between samples: Welch's t on the pooled samples of the runs on either side proves a
//!   difference of the same sign at the confidence asked for.
//!
//! When no single split passes, two are tried (runs `i..j` against the others of the segment: a
//! change that came back, which no single split of the whole separates), counted against the
//! confidence the same way. An accepted split divides the segment, and every part is searched
//! again. A single odd run
//! is never a step (the new level has to hold for [`MIN_RUNS`] runs); the newest run alone may
//! still differ from the runs since the last step, which [`RunSteps::newest_differs`] says.

use crate::compare::{Method, compare};
use crate::segments::{Prefix, median};
use crate::summary::t_critical;

/// Least runs on each side of a step: the new level has to hold this long to count as lasting.
pub const MIN_RUNS: usize = 2;

/// One lasting change: runs `..at` were about `before`, runs `at..` (up to the next step) are
/// about `after` (each the median of the segment's run medians).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunStep {
    /// Index of the first run at the new level.
    pub at: usize,
    /// Level before the step.
    pub before: f64,
    /// Level after the step.
    pub after: f64,
}

/// The steps of a sequence of runs, oldest first, and whether the newest run alone differs.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunSteps {
    /// Lasting steps, oldest first.
    pub steps: Vec<RunStep>,
    /// The level of the runs since the last step when the newest run differs from it (proven
    /// as a step is, but by one run: not lasting, perhaps the start of one).
    pub newest_differs: Option<f64>,
}

/// The run-to-run variance of the whole history, robustly: from the median absolute difference
/// of successive run medians (a step is one large difference among many small ones, so it
/// barely moves it). A segment of few runs that happen to agree closely is not believed to be
/// quieter than the history it is part of.
fn noise_floor(m: &[f64]) -> f64 {
    if m.len() < 3 {
        return 0.0;
    }
    let d: Vec<f64> = m.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    // For normal noise, median |x_{i+1} − x_i| = 0.6745 · √2 · σ.
    (median(&d) / (0.6745 * std::f64::consts::SQRT_2)).powi(2)
}

/// Whether the pooled samples of `left` and `right` differ at `confidence`, with `right` on the
/// side of `sign` (two exact sides of different values differ).
fn samples_differ(left: &[&[f64]], right: &[&[f64]], confidence: f64, sign: f64) -> bool {
    let l: Vec<f64> = left.iter().flat_map(|r| r.iter().copied()).collect();
    let r: Vec<f64> = right.iter().flat_map(|r| r.iter().copied()).collect();
    match compare(&l, &r, confidence, Method::Welch) {
        Some(d) => d.proven && d.difference * sign > 0.0,
        None => {
            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
            let exact = |v: &[f64]| v.len() >= 2 && v.iter().all(|x| *x == v[0]);
            exact(&l) && exact(&r) && (mean(&r) - mean(&l)) * sign > 0.0
        }
    }
}

/// How many ways `a..b` (`len` runs) can be split once, and twice, with [`MIN_RUNS`] runs in
/// each part: every one was tried, so each counts against the confidence.
fn tries(len: usize) -> usize {
    let once = (len + 1).saturating_sub(2 * MIN_RUNS);
    let twice = (len + 2).saturating_sub(3 * MIN_RUNS);
    once + twice * twice.saturating_sub(1) / 2
}

/// Searches `a..b` for steps (see the module's documentation), adding their indices to `out`:
/// first one split (runs `k..b` against `a..k`), else two (runs `i..j` against the others: a
/// change that came back, which no single split of the whole separates).
fn segment(
    runs: &[&[f64]],
    m: &[f64],
    p: &Prefix,
    (a, b): (usize, usize),
    (c, floor): (f64, f64),
    out: &mut Vec<usize>,
) {
    if b - a < 2 * MIN_RUNS {
        return;
    }
    let corrected = 1.0 - (1.0 - c) / tries(b - a) as f64;
    let Some(crit) = t_critical(corrected, (b - a - 2) as f64) else {
        return;
    };
    let tiny = p.mean(a, b).abs().max(f64::MIN_POSITIVE) * 1e-12;
    let split = Split {
        runs,
        m,
        p,
        a,
        b,
        floor,
        c,
        crit,
        tiny,
    };
    let once = (a + MIN_RUNS..=b - MIN_RUNS).map(|k| (k, b));
    let twice = (a + MIN_RUNS..b)
        .flat_map(|i| (i + MIN_RUNS..=b.saturating_sub(MIN_RUNS)).map(move |j| (i, j)));
    let Some((i, j)) = split.best(once).or_else(|| split.best(twice)) else {
        return;
    };
    for k in [i, j].into_iter().filter(|&k| k < b) {
        out.push(k);
    }
    segment(runs, m, p, (a, i), (c, floor), out);
    segment(runs, m, p, (i, j), (c, floor), out);
    segment(runs, m, p, (j, b), (c, floor), out);
}

/// The segment `a..b` being split, and what a split has to pass.
struct Split<'a> {
    runs: &'a [&'a [f64]],
    m: &'a [f64],
    p: &'a Prefix,
    a: usize,
    b: usize,
    floor: f64,
    c: f64,
    crit: f64,
    /// What rounding leaves of nothing, at the segment's level.
    tiny: f64,
}

impl Split<'_> {
    /// Mean, squared error and count of the runs of `a..b` outside `i..j`.
    fn outside(&self, i: usize, j: usize) -> (f64, f64, f64) {
        let (p, a, b) = (self.p, self.a, self.b);
        let n = (i - a + b - j) as f64;
        let sum = p.s[i] - p.s[a] + p.s[b] - p.s[j];
        let sq = p.q[i] - p.q[a] + p.q[b] - p.q[j];
        (sum / n, (sq - sum * sum / n).max(0.0), n)
    }

    /// Pooled t between runs `i..j` and the others of `a..b`, the variance at least the floor.
    fn t(&self, i: usize, j: usize) -> f64 {
        let (out_mean, out_sse, n1) = self.outside(i, j);
        let n2 = (j - i) as f64;
        let diff = (self.p.mean(i, j) - out_mean).abs();
        let var = ((out_sse + self.p.sse(i, j)) / (n1 + n2 - 2.0)).max(self.floor);
        let se = (var * (1.0 / n1 + 1.0 / n2)).sqrt();
        // Rounding leaves a tiny variance on identical levels: relative to the levels, none.
        let tiny = self.tiny;
        match (se > tiny, diff > tiny) {
            (true, _) => diff / se,
            (false, true) => f64::INFINITY,
            (false, false) => 0.0,
        }
    }

    /// Whether the change at `i` (and back at `j`, inside the segment) lasts: the run before
    /// each edge on its old side of the midpoint, the [`MIN_RUNS`] from it on the new side.
    fn lasts(&self, i: usize, j: usize) -> bool {
        let (p, a, b) = (self.p, self.a, self.b);
        let old = (p.s[i] - p.s[a] + p.s[b] - p.s[j]) / (i - a + b - j) as f64;
        let new = p.mean(i, j);
        let mid = (old + new) / 2.0;
        let inside = |x: f64| (x - mid) * (new - old) > 0.0;
        let outside = |x: f64| (x - mid) * (new - old) < 0.0;
        let m = self.m;
        let edge_in = outside(m[i - 1]) && (i..i + MIN_RUNS).all(|k| inside(m[k]));
        let edge_out =
            j == self.b || (inside(m[j - 1]) && (j..j + MIN_RUNS).all(|k| outside(m[k])));
        edge_in && edge_out
    }

    /// The best of `candidates` (`i..j` against the rest) that lasts, when it is proven both
    /// between runs and between samples. The lasting check comes first: it rules out most
    /// splits of a quiet history after a comparison or two.
    fn best(&self, candidates: impl Iterator<Item = (usize, usize)>) -> Option<(usize, usize)> {
        let mut best: Option<((usize, usize), f64)> = None;
        for (i, j) in candidates.filter(|&(i, j)| self.lasts(i, j)) {
            let t = self.t(i, j);
            if t > self.crit && best.is_none_or(|(_, b)| t > b) {
                best = Some(((i, j), t));
            }
        }
        let ((i, j), _) = best?;
        let sign = self.p.mean(i, j) - self.outside(i, j).0;
        let runs = self.runs;
        let others: Vec<&[f64]> = runs[self.a..i]
            .iter()
            .chain(&runs[j..self.b])
            .copied()
            .collect();
        samples_differ(&others, &runs[i..j], self.c, sign).then_some((i, j))
    }
}

/// The steps in `runs` (each run's samples, oldest first) at `confidence` (0..1, e.g. 0.95).
/// Runs without a finite sample are not judged: give only runs with samples. Fewer than
/// `2 × MIN_RUNS` runs have no step.
pub fn run_steps(runs: &[Vec<f64>], confidence: f64) -> RunSteps {
    let runs: Vec<&[f64]> = runs.iter().map(Vec::as_slice).collect();
    let valid = |r: &&[f64]| !r.is_empty() && r.iter().all(|x| x.is_finite());
    if runs.is_empty() || !runs.iter().all(valid) || !(0.0..1.0).contains(&confidence) {
        return RunSteps::default();
    }
    let m: Vec<f64> = runs.iter().map(|r| median(r)).collect();
    let p = Prefix::new(&m);
    let mut at = Vec::new();
    let floor = noise_floor(&m);
    segment(&runs, &m, &p, (0, m.len()), (confidence, floor), &mut at);
    at.sort_unstable();
    let mut bounds = vec![0];
    bounds.extend(&at);
    bounds.push(m.len());
    let levels: Vec<f64> = bounds.windows(2).map(|w| median(&m[w[0]..w[1]])).collect();
    let steps = at
        .iter()
        .enumerate()
        .map(|(i, &k)| RunStep {
            at: k,
            before: levels[i],
            after: levels[i + 1],
        })
        .collect();
    let since = *bounds[bounds.len() - 2..].first().unwrap_or(&0);
    RunSteps {
        steps,
        newest_differs: newest_differs(&runs, &m, since, (confidence, floor)),
    }
}

/// The level of runs `since..n-1` when the newest run lies outside their prediction interval
/// (with the variance at least `floor`) and its samples differ from theirs.
/// [`run_steps`] of a ratio-scale quantity (a rate or a time: every value positive), searched on
/// the logarithms of the samples, with the levels in the quantity's own units (medians of the run
/// medians, as there). A rate's run-to-run noise scales with its level — a run that gets half the
/// CPUs of a busy machine goes half as fast, whatever its speed — so a step from a fast, noisy
/// level to a slow, steady one is a ratio: on the raw scale the fast side's noise would be
/// charged to both sides and hide it. Falls back to [`run_steps`] when a value is not positive.
pub fn run_steps_ratio(runs: &[Vec<f64>], confidence: f64) -> RunSteps {
    if !runs.iter().flatten().all(|x| x.is_finite() && *x > 0.0) {
        return run_steps(runs, confidence);
    }
    let logs: Vec<Vec<f64>> = runs
        .iter()
        .map(|r| r.iter().map(|x| x.ln()).collect())
        .collect();
    let found = run_steps(&logs, confidence);
    if found.steps.is_empty() && found.newest_differs.is_none() {
        return found;
    }
    let m: Vec<f64> = runs.iter().map(|r| median(r)).collect();
    let mut bounds = vec![0];
    bounds.extend(found.steps.iter().map(|s| s.at));
    bounds.push(m.len());
    let levels: Vec<f64> = bounds.windows(2).map(|w| median(&m[w[0]..w[1]])).collect();
    let steps = found
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| RunStep {
            at: s.at,
            before: levels[i],
            after: levels[i + 1],
        })
        .collect();
    let since = bounds[bounds.len() - 2];
    let newest_differs = found.newest_differs.map(|_| median(&m[since..m.len() - 1]));
    RunSteps {
        steps,
        newest_differs,
    }
}

fn newest_differs(runs: &[&[f64]], m: &[f64], since: usize, (c, floor): (f64, f64)) -> Option<f64> {
    let n = m.len();
    let len = n.checked_sub(1 + since).filter(|&l| l >= MIN_RUNS)?;
    let seg = &m[since..n - 1];
    let mean = seg.iter().sum::<f64>() / len as f64;
    let var = seg.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (len - 1) as f64;
    let sd = var.max(floor).sqrt();
    let crit = t_critical(c, (len - 1) as f64)?;
    let off = (m[n - 1] - mean).abs();
    let outside = off > crit * sd * (1.0 + 1.0 / len as f64).sqrt() && off > mean.abs() * 1e-12;
    let sign = m[n - 1] - mean;
    (outside && samples_differ(&runs[since..n - 1], &runs[n - 1..], c, sign)).then(|| median(seg))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic jitter of ±`amp` (no randomness in this crate).
    fn jitter(i: usize, amp: f64) -> f64 {
        ((i * 7919 % 97) as f64 / 96.0 - 0.5) * 2.0 * amp
    }

    /// `levels[i]` as run i's level: three samples around it, and each run off its level by
    /// up to `between` (runs differ more than samples do, as on a real machine).
    fn history(levels: &[f64], between: f64, within: f64) -> Vec<Vec<f64>> {
        levels
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                let run = l + jitter(i * 31 + 5, between);
                (0..3).map(|j| run + jitter(i * 3 + j, within)).collect()
            })
            .collect()
    }

    fn at(s: &RunSteps) -> Vec<usize> {
        s.steps.iter().map(|x| x.at).collect()
    }

    #[test]
    fn a_flat_noisy_history_has_no_step() {
        for n in [4, 8, 30, 200] {
            let h = history(&vec![100.0; n], 4.0, 2.0);
            let s = run_steps(&h, 0.95);
            assert_eq!(s, RunSteps::default(), "{n} runs");
            assert_eq!(run_steps_ratio(&h, 0.95), RunSteps::default(), "{n} runs");
        }
        let h = history(&vec![100.0; 50], 10.0, 0.5);
        assert!(at(&run_steps(&h, 0.95)).is_empty(), "noise between runs");
    }

    #[test]
    fn flat_histories_of_other_noise_have_no_step_either() {
        for seed in 0..40 {
            let h: Vec<Vec<f64>> = (0..25)
                .map(|i| {
                    let run = 500.0 + jitter(i * 53 + seed * 11 + 1, 15.0);
                    (0..5)
                        .map(|j| run + jitter(i * 5 + j + seed, 5.0))
                        .collect()
                })
                .collect();
            let s = run_steps(&h, 0.95);
            assert!(s.steps.is_empty(), "seed {seed}: {s:?}");
            let s = run_steps_ratio(&h, 0.95);
            assert!(s.steps.is_empty(), "as ratios, seed {seed}: {s:?}");
        }
    }

    #[test]
    fn one_step_is_found_at_the_first_run_of_the_new_level() {
        let mut levels = vec![100.0; 12];
        levels.extend(vec![70.0; 9]);
        let s = run_steps(&history(&levels, 3.0, 2.0), 0.95);
        assert_eq!(at(&s), vec![12]);
        let step = s.steps[0];
        assert!((step.before - 100.0).abs() < 4.0 && (step.after - 70.0).abs() < 4.0);
        // tmpfs then ext4 in the done-when case: 4 runs then 4.
        let levels = [900.0, 900.0, 900.0, 900.0, 300.0, 300.0, 300.0, 300.0];
        assert_eq!(at(&run_steps(&history(&levels, 20.0, 10.0), 0.95)), vec![4]);
    }

    #[test]
    fn two_steps_are_both_found() {
        let mut levels = vec![100.0; 10];
        levels.extend(vec![60.0; 8]);
        levels.extend(vec![130.0; 10]);
        let s = run_steps(&history(&levels, 3.0, 2.0), 0.95);
        assert_eq!(at(&s), vec![10, 18]);
        assert!(s.steps[1].after > s.steps[1].before);
        let mut down = vec![100.0; 10];
        down.extend(vec![80.0; 6]);
        down.extend(vec![60.0; 6]);
        assert_eq!(
            at(&run_steps(&history(&down, 2.0, 1.0), 0.95)),
            vec![10, 16]
        );
    }

    #[test]
    fn a_change_that_came_back_is_two_steps() {
        let mut levels = vec![100.0; 6];
        levels.extend(vec![50.0; 4]);
        levels.extend(vec![100.0; 6]);
        let s = run_steps(&history(&levels, 2.0, 1.0), 0.95);
        assert_eq!(at(&s), vec![6, 10]);
        assert!(s.steps[0].after < s.steps[0].before && s.steps[1].after > s.steps[1].before);
    }

    #[test]
    fn a_single_odd_run_is_not_a_step() {
        let mut levels = vec![100.0; 20];
        levels[9] = 40.0;
        let s = run_steps(&history(&levels, 3.0, 2.0), 0.95);
        assert!(at(&s).is_empty(), "{s:?}");
        assert_eq!(s.newest_differs, None);
    }

    #[test]
    fn the_newest_run_alone_differs_but_is_no_step() {
        let mut levels = vec![100.0; 10];
        levels.push(50.0);
        let s = run_steps(&history(&levels, 3.0, 2.0), 0.95);
        assert!(at(&s).is_empty());
        let level = s.newest_differs.expect("newest differs");
        assert!((level - 100.0).abs() < 4.0);
        // Two runs at the new level make it a step.
        levels.push(50.0);
        assert_eq!(at(&run_steps(&history(&levels, 3.0, 2.0), 0.95)), vec![10]);
    }

    #[test]
    fn exact_levels_and_broken_input() {
        let exact = vec![vec![5.0, 5.0]; 3]
            .into_iter()
            .chain(vec![vec![9.0, 9.0]; 3])
            .collect::<Vec<_>>();
        assert_eq!(at(&run_steps(&exact, 0.95)), vec![3]);
        assert_eq!(run_steps(&vec![vec![1.0; 2]; 8], 0.95), RunSteps::default());
        assert_eq!(run_steps(&[vec![1.0], vec![]], 0.95), RunSteps::default());
        assert_eq!(
            run_steps(&vec![vec![f64::NAN]; 6], 0.95),
            RunSteps::default()
        );
        assert_eq!(run_steps(&[], 0.95), RunSteps::default());
    }

    #[test]
    fn a_step_from_a_fast_noisy_level_to_a_slow_steady_one_is_found_as_a_ratio() {
        // Measured beside six busy loops on two CPUs (issue 45): fsync'd 256 KiB writes, four runs on tmpfs
        // (CPU-bound, so as fast as the hogs leave it), then four on ext4 (device-bound), MiB/s.
        let levels = [257.0, 347.0, 283.0, 644.0, 34.0, 37.0, 33.0, 30.0];
        let runs: Vec<Vec<f64>> = levels.iter().map(|&l| vec![l * 0.9, l, l * 1.1]).collect();
        // On the raw scale the one fast tmpfs run is noise enough to hide a tenfold step.
        assert!(run_steps(&runs, 0.95).steps.is_empty());
        let found = run_steps_ratio(&runs, 0.95);
        assert_eq!(found.steps.len(), 1, "{found:?}");
        let s = found.steps[0];
        assert_eq!(s.at, 4);
        assert_eq!(
            (s.before, s.after),
            (315.0, 33.5),
            "medians of the run medians"
        );
        // A value that is not positive: the raw scale.
        let mut zero = runs.clone();
        zero[0][0] = 0.0;
        assert_eq!(run_steps_ratio(&zero, 0.95), run_steps(&zero, 0.95));
        assert_eq!(run_steps_ratio(&[], 0.95), RunSteps::default());
    }
}
