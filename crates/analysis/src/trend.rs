//! Trends across runs (`fsbench trend`): each cell's headline per run (median and the 95%
//! interval of the mean), the lasting steps in it (`fsbench_stats::steps`, as ratios: headlines
//! are rates and times, whose run-to-run noise scales with their level), each named by what
//! changed in the environment between the run before it and the run at it, and whether the
//! newest run is on the worse side of a step (the `--fail-on-step` gate).

use fsbench_model::names::CellNames;
use fsbench_model::trend::{CellHistory, Trend, TrendCell, TrendRun, TrendStep};
use fsbench_model::{Better, CacheInfo, ResultEntry, RunRecord};

/// The stored run of an id, without its cells (`None` when it cannot be read): the caller
/// reads only the runs either side of a step.
pub type RunOf<'a> = dyn FnMut(&str) -> Option<RunRecord> + 'a;

/// The trend of every cell in `histories` at `confidence` (percent), over each cell's newest
/// `last` runs when given.
pub fn trend(
    histories: Vec<CellHistory>,
    confidence: f64,
    last: Option<usize>,
    run_of: &mut RunOf<'_>,
) -> Trend {
    let mut environment = |a: &str, b: &str, label: &str| match (run_of(a), run_of(b)) {
        (Some(a), Some(b)) => crate::runs::target_environment_differences(&a, &b, label),
        _ => vec!["the environment could not be read".into()],
    };
    let entries: Vec<ResultEntry> = histories.iter().map(entry).collect();
    let names = CellNames::new(&entries);
    let cells = histories
        .into_iter()
        .enumerate()
        .map(|(i, mut h)| {
            if let Some(n) = last {
                h.runs.drain(..h.runs.len().saturating_sub(n));
            }
            cell(h, names.label(&entries, i), confidence, &mut environment)
        })
        .filter(|c| !c.runs.is_empty())
        .collect();
    Trend { confidence, cells }
}

/// A result entry with only what names a cell, for [`CellNames`].
fn entry(h: &CellHistory) -> ResultEntry {
    ResultEntry {
        target: h.target.clone(),
        workload: h.workload.clone(),
        params: h.params.clone(),
        sweep: h.sweep.clone(),
        cache: CacheInfo {
            state: h.cache,
            method: String::new(),
            resident_pct: None,
        },
        headline: h.metric.clone(),
        also_shown: Vec::new(),
        samples: Vec::new(),
        summary: Default::default(),
        precision_reached: None,
        steady: None,
        warnings: Vec::new(),
        error: None,
        bound: None,
        profile: None,
    }
}

/// What differs between the runs `before` and `at` (ids) for the target `label`, in words.
type EnvironmentOf<'a> = dyn FnMut(&str, &str, &str) -> Vec<String> + 'a;

fn cell(h: CellHistory, name: String, confidence: f64, env: &mut EnvironmentOf<'_>) -> TrendCell {
    let (unit, better) = fsbench_model::unit_of(&h.metric);
    let runs: Vec<TrendRun> = h
        .runs
        .iter()
        .filter_map(|r| {
            let s = fsbench_stats::summarize(&r.values)?;
            Some(TrendRun {
                run_id: r.run_id.clone(),
                started_at: r.started_at.clone(),
                n: s.n,
                median: s.median,
                mean: s.mean,
                ci95_low: s.ci95_half.map(|h| s.mean - h),
                ci95_high: s.ci95_half.map(|h| s.mean + h),
            })
        })
        .collect();
    let values: Vec<Vec<f64>> = h
        .runs
        .into_iter()
        .map(|r| r.values)
        .filter(|v| fsbench_stats::summarize(v).is_some())
        .collect();
    let found = fsbench_stats::steps::run_steps_ratio(&values, confidence / 100.0);
    let worse = |before: f64, after: f64| match better {
        Better::Higher => after < before,
        Better::Lower => after > before,
    };
    let mut steps: Vec<TrendStep> = found
        .steps
        .iter()
        .map(|s| TrendStep {
            index: s.at,
            run_id: runs[s.at].run_id.clone(),
            started_at: runs[s.at].started_at.clone(),
            previous_run_id: runs[s.at - 1].run_id.clone(),
            before: s.before,
            after: s.after,
            change_pct: if s.before != 0.0 {
                (s.after - s.before) / s.before.abs() * 100.0
            } else {
                0.0
            },
            worse: worse(s.before, s.after),
            environment: env(&runs[s.at - 1].run_id, &runs[s.at].run_id, &h.target),
        })
        .collect();
    steps.reverse();
    let newest = runs.last().map_or(f64::NAN, |r| r.median);
    // On the worse side of a step: past its midpoint towards the worse level. A step across a
    // change of the machine's load is shown (its differences name the load) but held back
    // from the gate: the load, not what was measured, may have made it.
    let newest_on_worse_side = steps
        .iter()
        .any(|s| s.worse && !across_load_change(s) && worse((s.before + s.after) / 2.0, newest));
    TrendCell {
        name,
        target: h.target,
        workload: h.workload,
        params: h.params,
        sweep: h.sweep,
        cache: h.cache,
        metric: h.metric,
        unit: unit.to_string(),
        better,
        runs,
        steps,
        newest_differs_from: found.newest_differs,
        newest_on_worse_side,
    }
}

/// Whether the machine's load changed across step `s` (one of its environment differences).
fn across_load_change(s: &TrendStep) -> bool {
    s.environment
        .iter()
        .any(|e| e.starts_with(crate::load::DIFFERENCE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::CacheState;
    use fsbench_model::trend::RunValues;

    /// A stored run with the target `same` on `fs`, and another, `other`, on xfs.
    fn record(fs: &str) -> RunRecord {
        let target = |label: &str, fs: &str| fsbench_model::TargetInfo {
            label: label.into(),
            fs_type: fs.into(),
            ..Default::default()
        };
        RunRecord {
            schema_version: fsbench_model::SCHEMA_VERSION,
            run: Default::default(),
            environment: fsbench_model::Environment {
                targets: vec![target("same", fs), target("other", "xfs")],
                ..Default::default()
            },
            overhead: Default::default(),
            results: Vec::new(),
            comparisons: Vec::new(),
            scaling: Vec::new(),
            cards: Vec::new(),
        }
    }

    fn history(levels: &[f64]) -> CellHistory {
        CellHistory {
            target: "same".into(),
            workload: "seq-write".into(),
            params: Default::default(),
            sweep: Default::default(),
            cache: CacheState::Warm,
            metric: fsbench_model::metric::THROUGHPUT_MIB_S.into(),
            runs: levels
                .iter()
                .enumerate()
                .map(|(i, &l)| RunValues {
                    run_id: format!("r{i}"),
                    started_at: format!("2026-01-0{}T00:00:00Z", i + 1),
                    values: vec![l * 0.99, l, l * 1.01],
                })
                .collect(),
        }
    }

    #[test]
    fn a_step_down_in_throughput_is_worse_and_named_by_its_environment() {
        let mut asked = Vec::new();
        let mut env = |id: &str| {
            asked.push(id.to_string());
            Some(record(if id == "r4" { "ext4" } else { "tmpfs" }))
        };
        let h = history(&[900.0, 905.0, 898.0, 902.0, 300.0, 301.0, 299.0, 300.0]);
        let t = trend(vec![h], 95.0, None, &mut env);
        let c = &t.cells[0];
        assert_eq!(c.name, "same/seq-write/warm");
        assert_eq!(c.runs.len(), 8);
        assert_eq!(c.steps.len(), 1);
        let s = &c.steps[0];
        assert_eq!((s.index, s.run_id.as_str()), (4, "r4"));
        assert!(s.worse && (s.change_pct + 66.7).abs() < 1.0, "{s:?}");
        assert_eq!(s.environment, ["same filesystem: tmpfs → ext4"]);
        assert!(c.newest_on_worse_side);
        assert_eq!(asked, ["r3", "r4"]);
    }

    /// [`record`] with one cell of one-second samples during which other processes took
    /// `others` % of the machine's two CPUs.
    fn loaded(fs: &str, others: f64) -> RunRecord {
        let mut r = record(fs);
        r.environment.cpus = 2;
        let sample = serde_json::json!({
            "wall_ns": 1_000_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 1, "bytes": 0,
            "metrics": {"machine_user_pct": others, "machine_sys_pct": 0.0, "cpu_pct": 0.0}
        });
        r.results = vec![
            serde_json::from_value(serde_json::json!({
                "target": "same", "workload": "seq-write", "params": {},
                "cache": {"state": "warm", "method": "none"}, "headline": "throughput_mib_s",
                "samples": [sample.clone(), sample], "summary": {}
            }))
            .unwrap(),
        ];
        r
    }

    #[test]
    fn a_step_across_a_change_of_load_is_named_but_held_back_from_the_gate() {
        let levels = [900.0, 905.0, 898.0, 902.0, 300.0, 301.0, 299.0, 300.0];
        // The same filesystem throughout; from r4 on, other processes kept the machine busy.
        let mut env = |id: &str| Some(loaded("ext4", if id == "r4" { 90.0 } else { 0.0 }));
        let t = trend(vec![history(&levels)], 95.0, None, &mut env);
        let c = &t.cells[0];
        assert_eq!(c.steps.len(), 1);
        let named = &c.steps[0].environment;
        assert!(named.iter().any(|e| e.starts_with("load: ")), "{named:?}");
        assert!(
            !c.newest_on_worse_side,
            "a load change is no proof against the target"
        );
        // Under the same load on both sides, the step counts.
        let mut same = |_: &str| Some(loaded("ext4", 90.0));
        let t = trend(vec![history(&levels)], 95.0, None, &mut same);
        assert!(t.cells[0].newest_on_worse_side);
    }

    #[test]
    fn a_recovery_leaves_the_newest_run_on_the_better_side() {
        let mut env = |_: &str| None;
        let levels = [
            100.0, 101.0, 99.0, 100.0, 50.0, 51.0, 49.0, 50.0, 100.0, 99.0, 101.0,
        ];
        let t = trend(vec![history(&levels)], 95.0, None, &mut env);
        let c = &t.cells[0];
        assert_eq!(c.steps.len(), 2, "{:?}", c.steps);
        assert_eq!(c.steps[0].index, 8, "newest first");
        assert!(!c.steps[0].worse && c.steps[1].worse);
        assert!(!c.newest_on_worse_side);
        let last = trend(vec![history(&levels)], 95.0, Some(3), &mut env);
        assert_eq!(last.cells[0].runs.len(), 3);
        assert!(last.cells[0].steps.is_empty());
    }
}
