//! Simulates sequential comparisons (`fsbench_stats::sequential`) on recorded sample sets and on
//! synthetic heavy-tailed draws, for `bench/sequential.sh`: the A/A false-positive rate under
//! optional stopping (with its 95% Wilson interval), and for true changes of 2, 5, 10 and 30%
//! the share decided `different` and the mean samples a side, beside the fixed-N Welch test
//! that has the same power.
//!
//! Usage: `sequential_sim [--pairs N] [--min N] [--max N] [--margin PCT] [--look-level L]
//! NAME=FILE...` (`--look-level` replaces the plan's level of each look, to compare rules). where each FILE
//! holds one positive sample value per line (a cell's headline values).

use fsbench_stats::sequential::{self, Plan, Verdict};
use fsbench_stats::{Method, compare};

/// SplitMix64: a small, seeded generator (the simulation must be repeatable).
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit().max(1e-300), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

/// Where a simulated side's samples come from.
enum Source {
    /// Resampled with replacement from a recorded cell.
    Recorded(Vec<f64>),
    /// Log-normal (CV 10%) with a Pareto tail (α = 2) in 5% of draws: stalled samples.
    Heavy,
    /// Log-normal (CV 20%) with a Pareto tail (α = 1.2) in 10%: very heavy.
    Heavier,
}

impl Source {
    fn draw(&self, rng: &mut Rng) -> f64 {
        match self {
            Source::Recorded(v) => v[(rng.unit() * v.len() as f64) as usize % v.len()],
            Source::Heavy => {
                let x = (0.1 * rng.normal()).exp();
                match rng.unit() < 0.05 {
                    true => x / (1.0 - rng.unit()).powf(0.5),
                    false => x,
                }
            }
            Source::Heavier => {
                let x = (0.2 * rng.normal()).exp();
                match rng.unit() < 0.10 {
                    true => x / (1.0 - rng.unit()).powf(1.0 / 1.2),
                    false => x,
                }
            }
        }
    }
}

/// One sequential comparison, a sample a side per round, the other side scaled by `1 + delta`.
fn sequential_run(plan: &Plan, src: &Source, delta: f64, rng: &mut Rng) -> (Verdict, usize, f64) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    loop {
        a.push(src.draw(rng));
        b.push(src.draw(rng) * (1.0 + delta));
        if !sequential::open(plan, &a, &b) {
            let d = sequential::decide(plan, &a, &b).expect("positive samples");
            return (d.verdict, d.n_other, d.effect_pct);
        }
    }
}

/// The fixed-N Welch test at the plan's confidence: calls `different` (and the right sign)?
fn fixed_run(plan: &Plan, src: &Source, delta: f64, n: usize, rng: &mut Rng) -> bool {
    let a: Vec<f64> = (0..n).map(|_| src.draw(rng).ln()).collect();
    let b: Vec<f64> = (0..n)
        .map(|_| (src.draw(rng) * (1.0 + delta)).ln())
        .collect();
    compare(&a, &b, plan.confidence, Method::Welch)
        .is_some_and(|d| d.proven && (d.difference > 0.0) == (delta > 0.0))
}

/// Wilson's 95% interval of a proportion, %.
fn wilson(k: usize, n: usize) -> (f64, f64) {
    let (p, n, z) = (k as f64 / n as f64, n as f64, 1.96f64);
    let c = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let h = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    (100.0 * (c - h).max(0.0), 100.0 * (c + h).min(1.0))
}

fn read_values(path: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("sequential_sim: cannot read {path}: {e}");
        std::process::exit(2)
    });
    let v: Vec<f64> = text
        .lines()
        .filter_map(|l| l.trim().parse::<f64>().ok())
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    if v.len() < 3 {
        eprintln!("sequential_sim: {path} holds fewer than 3 positive values");
        std::process::exit(2)
    }
    v
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut pairs, mut min, mut max, mut margin) = (10_000usize, 3usize, 30usize, 3.0f64);
    let mut level: Option<f64> = None;
    let mut sources: Vec<(String, Source)> = Vec::new();
    while let Some(a) = args.next() {
        let mut value = |what: &str| -> String {
            args.next().unwrap_or_else(|| {
                eprintln!("sequential_sim: {what} needs a value");
                std::process::exit(2)
            })
        };
        match a.as_str() {
            "--pairs" => pairs = value("--pairs").parse().expect("--pairs N"),
            "--look-level" => level = Some(value("--look-level").parse().expect("--look-level L")),
            "--min" => min = value("--min").parse().expect("--min N"),
            "--max" => max = value("--max").parse().expect("--max N"),
            "--margin" => margin = value("--margin").parse().expect("--margin PCT"),
            spec => match spec.split_once('=') {
                Some((name, path)) => {
                    sources.push((name.to_string(), Source::Recorded(read_values(path))))
                }
                None => {
                    eprintln!("sequential_sim: expected NAME=FILE, got '{spec}'");
                    std::process::exit(2)
                }
            },
        }
    }
    sources.push(("synthetic heavy tail".into(), Source::Heavy));
    sources.push(("synthetic heavier tail".into(), Source::Heavier));
    let mut plan = Plan::new(0.95, margin / 100.0, min, max);
    if let Some(l) = level {
        plan = plan.with_look_confidence(l);
    }
    println!("{}", plan.method());
    let naive = plan.with_look_confidence(0.95);
    let mut rng = Rng(20261204);
    let (mut all_wrong, mut all) = (0, 0);
    for (name, src) in &sources {
        let mut wrong = 0;
        let mut equivalent = 0;
        let mut samples = 0;
        for _ in 0..pairs {
            let (v, n, _) = sequential_run(&plan, src, 0.0, &mut rng);
            wrong += usize::from(v == Verdict::Different);
            equivalent += usize::from(v == Verdict::Equivalent);
            samples += n;
        }
        let naive_wrong = (0..pairs / 4)
            .filter(|_| sequential_run(&naive, src, 0.0, &mut rng).0 == Verdict::Different)
            .count();
        all_wrong += wrong;
        all += pairs;
        let (lo, hi) = wilson(wrong, pairs);
        println!(
            "A/A {name}: false positives {:.2}% (95% interval {lo:.2}–{hi:.2}%), equivalent {:.1}%, mean {:.1} samples a side; each look at 95% instead: {:.1}%",
            100.0 * wrong as f64 / pairs as f64,
            100.0 * equivalent as f64 / pairs as f64,
            samples as f64 / pairs as f64,
            400.0 * naive_wrong as f64 / pairs as f64,
        );
    }
    let (lo, hi) = wilson(all_wrong, all);
    println!(
        "A/A false positives: {:.2}% (95% interval {lo:.2}–{hi:.2}%) over {all} pairs",
        100.0 * all_wrong as f64 / all as f64
    );
    let trials = (pairs / 10).max(200);
    for (name, src) in &sources {
        for delta in [0.02, 0.05, 0.10, 0.30] {
            let (mut decided, mut samples) = (0, 0);
            for _ in 0..trials {
                let (v, n, effect) = sequential_run(&plan, src, delta, &mut rng);
                decided += usize::from(v == Verdict::Different && effect > 0.0);
                samples += n;
            }
            let power = decided as f64 / trials as f64;
            // The smallest fixed N a side whose Welch test has at least this power.
            let fixed = (2..=max * 4).find(|&n| {
                let hits = (0..trials)
                    .filter(|_| fixed_run(&plan, src, delta, n, &mut rng))
                    .count();
                hits as f64 / trials as f64 >= power
            });
            println!(
                "power {name} +{:.0}%: decided different {:.1}%, mean {:.1} samples a side; fixed-N test of the same power: {}",
                delta * 100.0,
                power * 100.0,
                samples as f64 / trials as f64,
                fixed.map_or("more than 4x --max".to_string(), |n| format!("{n} a side")),
            );
        }
    }
}
