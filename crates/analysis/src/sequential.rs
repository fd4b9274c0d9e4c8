//! Sequential decisions in a run record: each comparison of cells sampled with `--runs auto`
//! gets the decision its looks reached (`fsbench_stats::sequential`), replayed from the cells'
//! samples in the order they were taken (the same function the runner stopped the cells on),
//! which becomes the comparison's verdict.

use fsbench_model::names::CellNames;
use fsbench_model::{ResultEntry, RunRecord, SequentialDecision};
use fsbench_stats::sequential::{self, Plan, Question};

use crate::cells::values;

/// The decision on `other` against `base` under `plan`, as recorded (`None` when the method
/// cannot judge the samples: fewer than 2 a side, or a value that is not positive).
pub fn decision(
    plan: &Plan,
    base: &ResultEntry,
    other: &ResultEntry,
) -> Option<SequentialDecision> {
    recorded(plan, Question::PAIR, base, other)
}

/// The decision on a new run's cell `other` sampled against the stored cell `base` (all its
/// samples at every look), settled at the gate's `gate_pct` when there is one.
pub fn decision_against(
    plan: &Plan,
    gate_pct: Option<f64>,
    base: &ResultEntry,
    other: &ResultEntry,
) -> Option<SequentialDecision> {
    let q = Question {
        fixed_base: true,
        gate_pct,
    };
    recorded(plan, q, base, other)
}

/// `--fail-if-slower PCT` as a change of `metric`: −PCT for a rate (higher is better), +PCT for
/// a time.
pub fn gate_pct(metric: &str, pct: f64) -> f64 {
    match fsbench_model::unit_of(metric).1 {
        fsbench_model::Better::Higher => -pct,
        fsbench_model::Better::Lower => pct,
    }
}

fn recorded(
    plan: &Plan,
    q: Question,
    base: &ResultEntry,
    other: &ResultEntry,
) -> Option<SequentialDecision> {
    let d = sequential::decide_as(plan, q, &values(base), &values(other))?;
    Some(SequentialDecision {
        verdict: d.verdict.name().into(),
        samples: (d.n_base + d.n_other) as u32,
        samples_each: [d.n_base as u32, d.n_other as u32],
        fixed_samples: 2 * plan.max as u32,
        looks: d.looks as u32,
        effect_pct: d.effect_pct,
        low_pct: d.low_pct,
        high_pct: d.high_pct,
        margin_pct: plan.margin * 100.0,
        within_margin: d.within_margin,
        more: d.more.map(|m| m.min(u32::MAX as usize) as u32),
        method: plan.method(),
    })
}

/// Gives every comparison of `record` whose two cells it holds its sequential decision, which
/// is then its verdict: `proven` only when decided `different` (ministat's fixed-sample
/// interval, still shown, is optimistic once sampling stopped on what it saw).
pub fn attach(record: &mut RunRecord, plan: &Plan) {
    let rs = &record.results;
    let names = CellNames::new(rs);
    for c in &mut record.comparisons {
        let (Some(b), Some(o)) = (names.find(rs, &c.baseline), names.find(rs, &c.other)) else {
            continue;
        };
        c.decision = decision(plan, &rs[b], &rs[o]);
        if let Some(d) = &c.decision {
            c.proven = c.comparable && d.verdict == "different";
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(target: &str, values: &[f64]) -> ResultEntry {
        let samples: Vec<serde_json::Value> = values
            .iter()
            .map(|v| {
                serde_json::json!({"wall_ns": 1_000_000_000u64, "user_ns": 0, "sys_ns": 0,
                    "ops": 1, "bytes": 0, "metrics": {"mib_per_s": v}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "target": target, "workload": "seq-write", "params": {"bs": "1m"},
            "cache": {"state": "warm", "method": "none", "resident_pct": null},
            "headline": "mib_per_s", "samples": samples, "summary": {}
        }))
        .expect("a valid cell")
    }

    #[test]
    fn comparisons_get_the_decision_of_their_cells_as_their_verdict() {
        let plan = Plan::new(0.95, 0.03, 3, 30);
        let mut record = RunRecord {
            schema_version: fsbench_model::SCHEMA_VERSION,
            run: Default::default(),
            environment: Default::default(),
            overhead: Default::default(),
            results: vec![
                entry("tmpfs", &[2100.0, 2230.0, 2180.0]),
                entry("disk", &[410.0, 380.0, 455.0]),
            ],
            comparisons: Vec::new(),
            scaling: Vec::new(),
            cards: Vec::new(),
        };
        crate::cells::attach(&mut record, 95.0);
        attach(&mut record, &plan);
        let d = record.comparisons[0].decision.as_ref().unwrap();
        assert_eq!(d.verdict, "different");
        assert_eq!(
            (d.samples, d.samples_each, d.fixed_samples),
            (6, [3, 3], 60)
        );
        assert!(d.method.starts_with("sequential: Welch t on log values"));
        assert!(record.comparisons[0].proven);
    }
}
