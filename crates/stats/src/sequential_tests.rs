use super::*;

fn plan() -> Plan {
    Plan::new(0.95, 0.03, 3, 30)
}

/// A small deterministic generator (SplitMix64) for simulated samples: the crate takes no
/// randomness, its tests take a fixed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.next().max(1e-300), self.next());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    /// A skewed, heavy-tailed positive sample around `level`: log-normal body with a Pareto
    /// tail in 5% of draws (a stalled sample), as cold reads and busy machines give.
    fn heavy(&mut self, level: f64, cv: f64) -> f64 {
        let body = level * (cv * self.normal()).exp();
        if self.next() < 0.05 {
            body / (1.0 - self.next()).powf(0.5)
        } else {
            body
        }
    }
}

/// Runs one simulated comparison the way the runner does: a sample a side per round, stopping
/// when the comparison is no longer open. Returns the decision and the samples a side.
fn run(plan: &Plan, rng: &mut Rng, base: f64, other: f64, cv: f64) -> Decision {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    loop {
        a.push(rng.heavy(base, cv));
        b.push(rng.heavy(other, cv));
        if !open(plan, &a, &b) {
            return decide(plan, &a, &b).expect("positive samples");
        }
    }
}

#[test]
fn looks_grow_by_half_and_end_at_the_maximum() {
    let p = plan();
    assert_eq!(p.looks(), vec![3, 5, 8, 12, 18, 27, 30]);
    let one = Plan::new(0.95, 0.03, 5, 5);
    assert_eq!(one.looks(), vec![5]);
    assert!(
        (one.look_confidence() - 0.95).abs() < 1e-12,
        "one look: no spending"
    );
    let two = Plan::new(0.95, 0.03, 2, 4);
    assert_eq!(two.looks(), vec![2, 3, 4]);
    assert!((p.look_confidence() - (1.0 - 0.05 / 7.0)).abs() < 1e-12);
    assert!(p.method().contains("7 looks (n = 3, 5, 8, 12, 18, 27, 30)"));
    assert!(p.method().contains("margin ±3%"), "{}", p.method());
}

#[test]
fn a_large_difference_is_decided_at_the_first_look() {
    let p = plan();
    let tmpfs = [2100.0, 2230.0, 2180.0];
    let disk = [410.0, 380.0, 455.0];
    let d = decide(&p, &tmpfs, &disk).unwrap();
    assert_eq!(d.verdict, Verdict::Different);
    assert_eq!((d.looks, d.n_base, d.n_other), (1, 3, 3));
    assert!(d.effect_pct < -75.0 && d.high_pct < 0.0 && d.low_pct < d.effect_pct);
    assert!(!open(&p, &tmpfs, &disk));
}

#[test]
fn a_steady_pair_with_no_difference_is_equivalent() {
    let p = plan();
    let a = [100.0, 100.2, 99.9, 100.1, 100.0];
    let b = [100.1, 99.9, 100.0, 100.2, 99.8];
    let d = decide(&p, &a, &b).unwrap();
    assert_eq!(d.verdict, Verdict::Equivalent);
    assert_eq!(d.looks, 1, "{d:?}");
    assert!(d.low_pct >= -3.0 && d.high_pct <= 3.0);
}

#[test]
fn a_small_proven_difference_is_different_within_the_margin() {
    let p = plan();
    let a = [100.0, 100.05, 99.95, 100.0];
    let b = [101.0, 101.05, 100.95, 101.0];
    let d = decide(&p, &a, &b).unwrap();
    assert_eq!(d.verdict, Verdict::Different);
    assert!(d.within_margin);
    assert!((d.effect_pct - 1.0).abs() < 0.05, "{d:?}");
}

#[test]
fn a_noisy_pair_stays_open_then_ends_undecided_with_how_many_more() {
    let p = plan();
    let mut rng = Rng(7);
    let a: Vec<f64> = (0..30).map(|_| rng.heavy(100.0, 0.25)).collect();
    let b: Vec<f64> = (0..30).map(|_| rng.heavy(104.0, 0.25)).collect();
    assert!(open(&p, &a[..12], &b[..12]));
    let d = decide(&p, &a, &b).unwrap();
    assert_eq!(d.verdict, Verdict::Undecided, "{d:?}");
    assert_eq!((d.looks, d.n_base), (7, 30));
    assert!(d.more.is_some_and(|m| m > 0), "{d:?}");
    assert!(!open(&p, &a, &b), "nothing is ahead at the maximum");
}

#[test]
fn samples_after_a_decision_do_not_change_it() {
    let p = plan();
    let mut rng = Rng(11);
    let a: Vec<f64> = (0..30).map(|_| rng.heavy(100.0, 0.05)).collect();
    let b: Vec<f64> = (0..30).map(|_| rng.heavy(130.0, 0.05)).collect();
    let first = decide(&p, &a[..3], &b[..3]).unwrap();
    assert_eq!(first.verdict, Verdict::Different);
    // The baseline went on for another comparison; the other side stopped.
    assert_eq!(decide(&p, &a, &b[..3]).unwrap(), first);
    assert_eq!(decide(&p, &a, &b).unwrap(), first);
}

#[test]
fn values_the_method_cannot_take_give_none_and_stay_open_until_the_maximum() {
    let p = plan();
    assert!(decide(&p, &[1.0, 0.0, 2.0], &[1.0, 2.0, 3.0]).is_none());
    assert!(decide(&p, &[1.0], &[1.0, 2.0]).is_none());
    assert!(decide(&p, &[1.0, f64::NAN], &[1.0, 2.0]).is_none());
    assert!(open(&p, &[1.0, 0.0, 2.0], &[1.0, 2.0, 3.0]));
    let zeros = vec![0.0; 30];
    assert!(!open(&p, &zeros, &zeros));
}

#[test]
fn constant_sides_are_decided_exactly() {
    let p = plan();
    let d = decide(&p, &[5.0; 3], &[5.0; 3]).unwrap();
    assert_eq!(d.verdict, Verdict::Equivalent);
    let d = decide(&p, &[5.0; 3], &[6.0; 3]).unwrap();
    assert_eq!(d.verdict, Verdict::Different);
}

/// The guarantee: with no difference, stopping at the first deciding look calls `different` in
/// at most 5% of comparisons, on skewed, heavy-tailed samples and at every spread. A look at
/// 95% each (no spending) would fail this: optional stopping over 7 looks roughly triples it.
#[test]
fn a_a_false_positives_stay_under_five_percent_under_optional_stopping() {
    let p = plan();
    let mut rng = Rng(2026);
    let trials = 2000;
    for cv in [0.02, 0.1, 0.3] {
        let wrong = (0..trials)
            .filter(|_| run(&p, &mut rng, 100.0, 100.0, cv).verdict == Verdict::Different)
            .count();
        let rate = wrong as f64 / trials as f64;
        assert!(
            rate <= 0.05,
            "cv {cv}: {wrong} of {trials} A/A pairs called different"
        );
    }
    // Without spending (each look at 95%), the same test fails: this is what it guards.
    let naive = p.with_look_confidence(0.95);
    assert!((naive.look_confidence() - 0.95).abs() < 1e-12);
    let wrong = (0..trials)
        .filter(|_| run(&naive, &mut rng, 100.0, 100.0, 0.1).verdict == Verdict::Different)
        .count();
    assert!(wrong as f64 / trials as f64 > 0.05, "{wrong} of {trials}");
}

/// The same guarantee seen from the other side: at a true change of 10%, the interval a
/// decision ends with holds the true change in at least 95% of comparisons.
#[test]
fn the_deciding_interval_covers_the_true_change() {
    let p = plan();
    let mut rng = Rng(99);
    let trials = 1500;
    // Both sides share the heavy tail's shape, so the ratio of their geometric means is 1.10.
    let truth = 10.0;
    let missed = (0..trials)
        .filter(|_| {
            let d = run(&p, &mut rng, 100.0, 110.0, 0.1);
            !(d.low_pct <= truth && truth <= d.high_pct)
        })
        .count();
    assert!(
        missed as f64 / trials as f64 <= 0.05,
        "{missed} of {trials} intervals missed"
    );
}

/// Sequential decisions save samples where the difference is clear, and decide it right.
#[test]
fn a_clear_difference_takes_few_samples() {
    let p = plan();
    let mut rng = Rng(5);
    let trials = 500;
    let (mut samples, mut decided) = (0, 0);
    for _ in 0..trials {
        let d = run(&p, &mut rng, 100.0, 130.0, 0.05);
        assert!(
            d.verdict != Verdict::Equivalent && d.low_pct > -30.0,
            "{d:?}"
        );
        decided += usize::from(d.verdict == Verdict::Different);
        samples += d.n_other;
    }
    // A stalled sample (the heavy tail) can hold one comparison open to the maximum.
    assert!(
        decided * 100 >= trials * 98,
        "{decided} of {trials} decided"
    );
    let mean = samples as f64 / trials as f64;
    // 6.3 with this seed (3 when no stall falls in the first look), against 30 fixed.
    assert!(
        mean <= 8.0,
        "mean {mean} samples a side for a 30% change at 5% spread"
    );
}

/// Against a stored run, the baseline is all there: every look uses all of it, and the looks
/// count the new side's samples.
#[test]
fn against_a_stored_baseline_the_looks_count_the_new_side() {
    let p = plan();
    let stored = [100.0, 101.0, 99.0, 100.5, 99.5, 100.0, 100.2, 99.8];
    let q = Question {
        fixed_base: true,
        gate_pct: None,
    };
    let new = [70.0, 71.0, 69.5];
    let d = decide_as(&p, q, &stored, &new).unwrap();
    assert_eq!(d.verdict, Verdict::Different);
    assert_eq!((d.looks, d.n_base, d.n_other), (1, 8, 3));
    assert!(!open_as(&p, q, &stored, &new));
    assert!(open_as(&p, q, &stored, &new[..2]), "before the first look");
}

/// A gate at −5%: settled as soon as the interval lies wholly above it (pass) or below it
/// (slower), even when it still contains no change.
#[test]
fn a_gate_is_settled_when_its_threshold_is_outside_the_interval() {
    let p = plan();
    let gate = Question {
        fixed_base: true,
        gate_pct: Some(-5.0),
    };
    let stored = [100.0, 100.4, 99.6, 100.1, 99.9, 100.3, 99.7, 100.0];
    // 1% slower, measured tightly: the interval holds no change and lies above −5%: a pass.
    let new = [99.0, 99.2, 98.8];
    let d = decide_as(&p, gate, &stored, &new).unwrap();
    assert!(d.low_pct > -5.0, "{d:?}");
    assert!(!open_as(&p, gate, &stored, &new));
    // 20% slower: wholly below −5%.
    let slow = [80.0, 80.3, 79.8];
    let d = decide_as(&p, gate, &stored, &slow).unwrap();
    assert!(d.high_pct < -5.0, "{d:?}");
    // Straddling −5% (noisy, about 5% slower): still open.
    let noisy = [90.0, 101.0, 95.0];
    assert!(open_as(&p, gate, &stored, &noisy));
}
