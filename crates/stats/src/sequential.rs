//! Sequential decisions for a comparison of two cells: looked at as samples arrive, stopped as
//! soon as it is decided, and still right at the stated confidence however it stopped.
//!
//! The method (docs/methodology.md, "Comparisons that stop when decided"): a group-sequential
//! test with equal alpha spending. At a fixed schedule of looks (`n` = the minimum, then about
//! ×1.5 each time, and the maximum), Welch's t interval for the difference of the mean
//! *logarithms* of the two sides (the ratio of their geometric means, so effects are
//! percentages and skew is tamed), each look at confidence `1 − α/K` where `K` is the number of
//! looks the schedule holds up to `--max-runs`. By the union bound (Bonferroni's inequality)
//! every look's interval holds at once with probability at least `1 − α`, whatever the
//! dependence between the looks and however sampling stops, so stopping at the first look that
//! decides keeps the error at α (Jennison & Turnbull, *Group Sequential Methods with
//! Applications to Clinical Trials*, 2000, ch. 2 and 7). Pocock's boundary (which accounts for
//! the looks sharing their samples, and is narrower) was measured and not taken: its normal
//! approximation let 5.3% of A/A pairs through on a busy machine's two-mode samples
//! (`bench/sequential.sh`). Each look's interval is Student-t based, so it holds at the very
//! small sample counts (3, 5, 8…) where asymptotic confidence sequences undercover.
//!
//! A look decides **different** when its interval excludes no change, **equivalent** when it
//! lies within ±margin (a two-one-sided-tests rule at the same level); otherwise the comparison
//! stays open. A decision is a pure function of the two ordered sample lists, so the runner that
//! stops on it and the record that reports it (or a later `compare`) always agree: look `j`
//! uses the first `n_j` samples of each side.

/// The parameters of a sequential comparison (built with [`Plan::new`], which fixes the
/// looks' level).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Overall confidence, 0..1 (0.95): the chance that no look's interval misses the truth.
    pub confidence: f64,
    /// The equivalence margin as a fraction (0.03 for ±3%).
    pub margin: f64,
    /// Samples a side before the first look (`--min-runs`, at least 2).
    pub min: usize,
    /// Samples a side at the last look (`--max-runs`).
    pub max: usize,
    /// The confidence of every look's interval: `1 − α/K` for `K` looks.
    level: f64,
}

/// How a comparison ended (or stands).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The interval excludes no change: a difference is proven.
    Different,
    /// The interval lies within ±margin: no difference that matters.
    Equivalent,
    /// Neither yet (or ever, at the maximum).
    Undecided,
}

impl Verdict {
    /// The word used in every output.
    pub fn name(self) -> &'static str {
        match self {
            Self::Different => "different",
            Self::Equivalent => "equivalent",
            Self::Undecided => "undecided",
        }
    }
}

/// One comparison's decision, from the samples both sides had when it was taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// The verdict.
    pub verdict: Verdict,
    /// Looks taken (the deciding one included); 0 before the first.
    pub looks: usize,
    /// Samples of the baseline the last look used.
    pub n_base: usize,
    /// Samples of the other side the last look used.
    pub n_other: usize,
    /// The change of the other side against the baseline, % (ratio of geometric means − 1).
    pub effect_pct: f64,
    /// Lower end of the interval of the change, %.
    pub low_pct: f64,
    /// Upper end of the interval of the change, %.
    pub high_pct: f64,
    /// The difference is proven but smaller than the margin.
    pub within_margin: bool,
    /// Undecided: about how many more samples a side the current spread suggests a decision
    /// needs (`None` when it cannot tell: no spread, or no end in sight).
    pub more: Option<usize>,
}

impl Plan {
    /// The plan of `confidence` (0..1), `margin` (a fraction) and looks from `min` to `max`
    /// samples a side, with the level every look's interval takes.
    pub fn new(confidence: f64, margin: f64, min: usize, max: usize) -> Self {
        let mut plan = Self {
            confidence,
            margin,
            min,
            max,
            level: confidence,
        };
        plan.level = 1.0 - (1.0 - confidence) / plan.looks().len() as f64;
        plan
    }

    /// The sample counts (a side) at which the comparison is looked at: the minimum, then about
    /// ×1.5 each time, ending at the maximum.
    pub fn looks(&self) -> Vec<usize> {
        let min = self.min.max(2);
        let max = self.max.max(min);
        let mut out = vec![min];
        let mut n = min;
        while n < max {
            n = (n + 1).max((n * 3).div_ceil(2)).min(max);
            out.push(n);
        }
        out
    }

    /// The same plan with every look at `level` instead: for simulations of other rules (each
    /// look at 95% shows what spending nothing costs).
    pub fn with_look_confidence(mut self, level: f64) -> Self {
        self.level = level;
        self
    }

    /// The confidence of each look's interval: `1 − α/K` (the error split equally over the `K`
    /// looks).
    pub fn look_confidence(&self) -> f64 {
        self.level
    }

    /// The method in words, as recorded with each decision.
    pub fn method(&self) -> String {
        let looks = self.looks();
        let list: Vec<String> = looks.iter().map(|n| n.to_string()).collect();
        format!(
            "sequential: Welch t on log values at {} looks (n = {}), {:.2}% each (Bonferroni: {:.0}% overall), margin ±{}%",
            looks.len(),
            list.join(", "),
            self.look_confidence() * 100.0,
            self.confidence * 100.0,
            trim(self.margin * 100.0)
        )
    }
}

fn trim(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The interval of one look, on the log scale.
#[derive(Debug, Clone, Copy)]
struct Interval {
    diff: f64,
    half: f64,
    se: f64,
    t: f64,
}

/// Welch's interval of mean(ln other) − mean(ln base) at `confidence` ([`crate::compare`]),
/// or, when both sides are constant (Welch's test is then undefined), the exact difference.
fn interval(base: &[f64], other: &[f64], confidence: f64) -> Option<Interval> {
    if let Some(d) = crate::compare(base, other, confidence, crate::Method::Welch) {
        return Some(Interval {
            diff: d.difference,
            half: d.ci_half,
            se: d.s,
            t: d.t,
        });
    }
    let constant = |x: &[f64]| x.iter().all(|v| *v == x[0]);
    (constant(base) && constant(other)).then(|| Interval {
        diff: other[0] - base[0],
        half: 0.0,
        se: 0.0,
        t: 0.0,
    })
}

fn pct(log_ratio: f64) -> f64 {
    log_ratio.exp_m1() * 100.0
}

fn judged(plan: &Plan, iv: Interval) -> (Verdict, bool) {
    let (lo, hi) = (iv.diff - iv.half, iv.diff + iv.half);
    let m = plan.margin;
    let inside = lo.exp_m1() >= -m && hi.exp_m1() <= m;
    if lo > 0.0 || hi < 0.0 {
        (Verdict::Different, inside)
    } else if inside {
        (Verdict::Equivalent, false)
    } else {
        (Verdict::Undecided, false)
    }
}

/// About how many more samples a side the spread of `iv` (at `n` a side) suggests before the
/// interval, narrowing as 1/√n, excludes no change or fits the margin.
fn more_needed(plan: &Plan, iv: Interval, n: usize) -> Option<usize> {
    if iv.se == 0.0 || !iv.t.is_finite() {
        return None;
    }
    let d = iv.diff.abs();
    let to_differ = (d > 0.0).then(|| (iv.half / d).powi(2));
    let room = plan.margin.ln_1p() - d;
    let to_match = (room > 0.0).then(|| (iv.half / room).powi(2));
    let factor = match (to_differ, to_match) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    let total = (n as f64 * factor).ceil();
    (total.is_finite() && total < 1e9).then(|| (total as usize).saturating_sub(n).max(1))
}

/// What a sequential comparison asks, and of what samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Question {
    /// The baseline's samples are all there from the start (a stored run): every look uses all
    /// of them, and the looks count the other side's samples. Otherwise both sides grow
    /// together and look `j` uses the first `n_j` of each.
    pub fixed_base: bool,
    /// A regression gate: the comparison is decided when its interval lies wholly on one side
    /// of this change, % (−5 for "5% slower" of a rate; +5 for a time). `None`: decided when
    /// `different` or `equivalent`.
    pub gate_pct: Option<f64>,
}

impl Question {
    /// Two cells of one run, sampled round by round: different or equivalent.
    pub const PAIR: Self = Self {
        fixed_base: false,
        gate_pct: None,
    };

    fn settled(&self, d: &Decision) -> bool {
        match self.gate_pct {
            Some(g) => d.low_pct > g || d.high_pct < g,
            None => d.verdict != Verdict::Undecided,
        }
    }
}

/// The decision on `base` and `other` (each in sampling order) under `plan`: the first look that
/// decides, else the last look taken, undecided. `None` when either side has a value that is not
/// positive and finite (the method works on logarithms) or fewer than 2 samples.
pub fn decide(plan: &Plan, base: &[f64], other: &[f64]) -> Option<Decision> {
    decide_as(plan, Question::PAIR, base, other)
}

/// [`decide`] for question `q`: the first look that settles it, else the last look taken.
pub fn decide_as(plan: &Plan, q: Question, base: &[f64], other: &[f64]) -> Option<Decision> {
    if [base, other]
        .iter()
        .any(|x| x.len() < 2 || x.iter().any(|v| !(v.is_finite() && *v > 0.0)))
    {
        return None;
    }
    let lb: Vec<f64> = base.iter().map(|v| v.ln()).collect();
    let lo: Vec<f64> = other.iter().map(|v| v.ln()).collect();
    let level = plan.look_confidence();
    let have = match q.fixed_base {
        true => lo.len(),
        false => lb.len().min(lo.len()),
    };
    let base_at = |n: usize| match q.fixed_base {
        true => &lb[..],
        false => &lb[..n],
    };
    let mut last = None;
    for (j, &n) in plan.looks().iter().enumerate() {
        if n > have {
            break;
        }
        let iv = interval(base_at(n), &lo[..n], level)?;
        let (verdict, within_margin) = judged(plan, iv);
        let d = Decision {
            verdict,
            looks: j + 1,
            n_base: base_at(n).len(),
            n_other: n,
            effect_pct: pct(iv.diff),
            low_pct: pct(iv.diff - iv.half),
            high_pct: pct(iv.diff + iv.half),
            within_margin,
            more: None,
        };
        if q.settled(&d) {
            return Some(d);
        }
        last = Some((d, iv));
    }
    match last {
        Some((mut d, iv)) => {
            d.more = more_needed(plan, iv, d.n_other);
            Some(d)
        }
        // Before the first look: where the samples stand, at the looks' level.
        None => {
            let iv = interval(&lb, &lo, level)?;
            Some(Decision {
                verdict: Verdict::Undecided,
                looks: 0,
                n_base: lb.len(),
                n_other: lo.len(),
                effect_pct: pct(iv.diff),
                low_pct: pct(iv.diff - iv.half),
                high_pct: pct(iv.diff + iv.half),
                within_margin: false,
                more: None,
            })
        }
    }
}

/// Whether the comparison can still change: undecided, and a later look is still ahead of the
/// samples both sides have.
pub fn open(plan: &Plan, base: &[f64], other: &[f64]) -> bool {
    open_as(plan, Question::PAIR, base, other)
}

/// [`open`] for question `q`.
pub fn open_as(plan: &Plan, q: Question, base: &[f64], other: &[f64]) -> bool {
    let have = match q.fixed_base {
        true => other.len(),
        false => base.len().min(other.len()),
    };
    let ahead = plan.looks().iter().any(|&n| n > have);
    match decide_as(plan, q, base, other) {
        Some(d) => !q.settled(&d) && ahead,
        // Too few samples, or a value the method cannot take: undecided until the maximum.
        None => ahead,
    }
}

#[cfg(test)]
#[path = "sequential_tests.rs"]
mod tests;
