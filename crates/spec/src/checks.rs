//! Checks of a plan against how it is run, made before any work: what MPI ranks cannot do, the
//! percentages of the comparison and the gate, and the inputs that no output may replace.

use crate::RunSpec;
use crate::plan::{Plan, TargetKind};
use crate::suite::file::Suite;
use fsbench_model::{EngineResult, Failure};
use fsbench_output::protect::Protected;

/// How the run is spread: several MPI ranks, and whether they share one directory
/// (`--layout shared`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Spread {
    /// More than one rank.
    pub parallel: bool,
    /// The ranks share one directory.
    pub shared: bool,
}

/// What MPI ranks cannot do: build a lab (loop devices per rank), write to a device, or share a
/// directory with a workload that does not know how to split its work.
pub fn team(spread: Spread, spec: &RunSpec, plan: &Plan) -> EngineResult<()> {
    if !spread.parallel {
        return Ok(());
    }
    if !spec.lab.kinds.is_empty() {
        return Err(Failure::input(
            "--lab cannot be used under mpirun — build the filesystems first, then give them as --target",
        ));
    }
    if let Some(t) = plan.targets.iter().find(|t| t.kind != TargetKind::Dir) {
        return Err(Failure::input(format!(
            "target {} is a device: under mpirun every target must be a directory",
            t.path.display()
        )));
    }
    if spread.shared {
        if let Some(w) = plan.workloads.iter().find(|w| !w.info.shared) {
            return Err(Failure::input(format!(
                "workload {} cannot run with --layout shared (it cannot split one file or directory among ranks) — use --layout per-rank, or one of: {}",
                w.info.name,
                shared_able().join(", ")
            )));
        }
    }
    Ok(())
}

/// Workloads that split their work among ranks in one directory.
pub fn shared_able() -> Vec<&'static str> {
    fsbench_workload::names()
        .into_iter()
        .filter(|n| fsbench_workload::find(n).is_some_and(|info| info.shared))
        .collect()
}

/// The confidence of comparisons (a percentage strictly between 0 and 100) and the gate's
/// `--fail-if-slower` (0 or more, and only against a `--baseline`).
pub fn percentages(
    confidence: f64,
    fail_if_slower: Option<f64>,
    has_baseline: bool,
) -> EngineResult<()> {
    if !(confidence > 0.0 && confidence < 100.0) {
        return Err(Failure::input(format!(
            "invalid --confidence {confidence} — give a percentage between 0 and 100, e.g. 95"
        )));
    }
    if fail_if_slower.is_some() && !has_baseline {
        return Err(Failure::input(
            "--fail-if-slower needs --baseline RUN (the run to compare with) — add it, or use 'fsbench compare'",
        ));
    }
    if let Some(p) = fail_if_slower.filter(|p| !(*p >= 0.0 && p.is_finite())) {
        return Err(Failure::input(format!(
            "invalid --fail-if-slower {p} — give a percentage of 0 or more, e.g. 5"
        )));
    }
    Ok(())
}

/// The files no output of this run may replace: every workload's inputs (as the workload says
/// which of its parameters are inputs) and the suite file.
pub fn protected_inputs(plan: &Plan, suite: Option<&Suite>) -> Vec<Protected> {
    let mut out: Vec<Protected> = plan
        .workloads
        .iter()
        .flat_map(|w| {
            w.inputs.iter().map(|i| Protected {
                what: format!("the input {}= of {}", i.key, w.info.name),
                path: i.path.clone(),
            })
        })
        .collect();
    if let Some(file) = suite
        .map(|s| s.file.as_str())
        .filter(|f| !f.starts_with("builtin:"))
    {
        out.push(Protected {
            what: "the suite file".into(),
            path: file.into(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_layout_is_for_the_workloads_that_split_their_work() {
        let able = shared_able();
        for w in [
            "seq-read",
            "seq-write",
            "rand-read",
            "rand-write",
            "tree-create",
        ] {
            assert!(able.contains(&w), "{w}: {able:?}");
        }
        for w in ["walk", "postmark", "command", "null"] {
            assert!(!able.contains(&w), "{w}: {able:?}");
        }
    }

    #[test]
    fn percentages_out_of_range_are_refused() {
        assert!(percentages(95.0, None, false).is_ok());
        assert!(percentages(100.0, None, false).is_err());
        assert!(percentages(0.0, None, false).is_err());
        assert!(percentages(95.0, Some(5.0), false).is_err());
        assert!(percentages(95.0, Some(5.0), true).is_ok());
        assert!(percentages(95.0, Some(f64::NAN), true).is_err());
    }
}
