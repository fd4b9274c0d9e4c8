//! What the sequential decisions of a `--runs auto` run did: how many comparisons they decided,
//! the samples the compared cells took against the fixed plan's, the sampling time that saved,
//! and the note that ministat's intervals beside them are the optimistic, fixed-sample ones.

use crate::names::CellNames;
use fsbench_model::RunRecord;

/// The samples and time sequential decisions saved in a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Savings {
    /// Comparisons with a decision.
    pub comparisons: usize,
    /// Of them, decided (`different` or `equivalent`) and comparable.
    pub decided: usize,
    /// Samples the compared cells took.
    pub taken: usize,
    /// Samples they would have taken at `--max-runs` each.
    pub fixed: usize,
    /// Sampling time the samples not taken would have cost, at each cell's mean sample, ns.
    pub saved_ns: u64,
}

/// The savings of `record`'s sequential decisions; `None` when no comparison has one.
pub fn savings(record: &RunRecord) -> Option<Savings> {
    let rs = &record.results;
    let names = CellNames::new(rs);
    let mut cells: Vec<(usize, usize)> = Vec::new();
    let (mut comparisons, mut decided) = (0, 0);
    for c in &record.comparisons {
        let Some(d) = &c.decision else { continue };
        comparisons += 1;
        decided += usize::from(c.comparable && d.verdict != "undecided");
        let max = (d.fixed_samples / 2) as usize;
        for label in [&c.baseline, &c.other] {
            if let Some(i) = names
                .find(rs, label)
                .filter(|i| !cells.iter().any(|c| c.0 == *i))
            {
                cells.push((i, max));
            }
        }
    }
    if comparisons == 0 {
        return None;
    }
    let (mut taken, mut fixed, mut saved_ns) = (0, 0, 0u64);
    for &(i, max) in &cells {
        let n = rs[i].samples.len();
        taken += n;
        fixed += max.max(n);
        let wall: u64 = rs[i].samples.iter().map(|s| s.wall_ns).sum();
        if n > 0 && n < max {
            saved_ns += wall / n as u64 * (max - n) as u64;
        }
    }
    Some(Savings {
        comparisons,
        decided,
        taken,
        fixed,
        saved_ns,
    })
}

/// The lines that follow the comparisons table of a run with sequential decisions: what they
/// saved, the method, and how to read ministat's intervals beside them. Empty without any.
pub fn lines(record: &RunRecord) -> Vec<String> {
    let Some(s) = savings(record) else {
        return Vec::new();
    };
    let method = record
        .comparisons
        .iter()
        .find_map(|c| c.decision.as_ref().map(|d| d.method.clone()))
        .unwrap_or_default();
    let saved = match s.fixed > s.taken {
        true => format!(
            " ({} not taken, about {} of sampling saved)",
            s.fixed - s.taken,
            crate::format::duration_ns(s.saved_ns as f64)
        ),
        false => String::new(),
    };
    vec![
        format!(
            "sequential decisions: {} of {} comparisons decided; the compared cells took {} samples where the fixed plan takes {}{saved}",
            s.decided, s.comparisons, s.taken, s.fixed
        ),
        format!("method: {method}"),
        "the ± intervals in the table are ministat's, as if the number of samples had been fixed: optimistic once sampling stopped on what it saw; the verdicts use the sequential interval".into(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> RunRecord {
        let cell = |target: &str, values: &[f64]| {
            let samples: Vec<serde_json::Value> = values
                .iter()
                .map(|v| {
                    serde_json::json!({"wall_ns": 2_000_000_000u64, "user_ns": 0, "sys_ns": 0,
                        "ops": 1, "bytes": 0, "metrics": {"mib_per_s": v}})
                })
                .collect();
            serde_json::json!({
                "target": target, "workload": "seq-write", "params": {"bs": "1m"},
                "cache": {"state": "warm", "method": "none", "resident_pct": null},
                "headline": "mib_per_s", "samples": samples, "summary": {}
            })
        };
        let decision = serde_json::json!({
            "verdict": "different", "samples": 6, "samples_each": [3, 3], "fixed_samples": 60,
            "looks": 1, "effect_pct": -81.0, "low_pct": -84.0, "high_pct": -77.0,
            "margin_pct": 3.0, "method": "sequential: Welch t on log values at 7 looks"
        });
        let comparison = serde_json::json!({
            "metric": "mib_per_s", "baseline": "tmpfs/seq-write/warm",
            "other": "disk/seq-write/warm", "confidence": 95.0, "difference": -1755.0,
            "ci_half": 150.0, "difference_pct": -81.0, "ci_half_pct": 7.0, "proven": true,
            "method": "student-pooled (ministat table)", "decision": decision
        });
        RunRecord {
            schema_version: fsbench_model::SCHEMA_VERSION,
            run: Default::default(),
            environment: Default::default(),
            overhead: Default::default(),
            results: vec![
                serde_json::from_value(cell("tmpfs", &[2100.0, 2230.0, 2180.0])).unwrap(),
                serde_json::from_value(cell("disk", &[410.0, 380.0, 455.0])).unwrap(),
            ],
            comparisons: vec![serde_json::from_value(comparison).expect("a comparison")],
            scaling: Vec::new(),
            cards: Vec::new(),
        }
    }

    #[test]
    fn savings_count_the_compared_cells_against_the_fixed_plan() {
        let r = record();
        let s = savings(&r).unwrap();
        assert_eq!((s.comparisons, s.decided, s.taken, s.fixed), (1, 1, 6, 60));
        assert_eq!(s.saved_ns, 2 * 27 * 2_000_000_000);
        let text = lines(&r).join("\n");
        assert!(text.contains("1 of 1 comparisons decided"), "{text}");
        assert!(text.contains("took 6 samples where the fixed plan takes 60 (54 not taken"));
        assert!(text.contains("method: sequential: Welch t"));
    }

    #[test]
    fn the_verdict_and_the_bars_use_the_decision() {
        let mut r = record();
        let c = &r.comparisons[0];
        assert_eq!(
            crate::tables::comparisons::change_text(c),
            "-81.0% [-84.0%, -77.0%]"
        );
        let v = crate::tables::comparisons::verdict(c);
        assert!(
            v.starts_with("worse, decided at 95% after 3 + 3 samples"),
            "{v}"
        );
        r.comparisons[0].decision = None;
        let c = &r.comparisons[0];
        assert_eq!(crate::tables::comparisons::change_text(c), "-81.0% ± 7.0%");
        assert_eq!(c.change_pct(), (-81.0, -88.0, -74.0));
    }

    #[test]
    fn a_run_without_decisions_says_nothing() {
        let mut r = record();
        r.comparisons[0].decision = None;
        assert!(savings(&r).is_none());
        assert!(lines(&r).is_empty());
    }
}
