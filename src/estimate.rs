//! The time estimate of `fsbench run`, printed before the first sample: from the stored history
//! of the same cells where there is one, else from a probe of each target's speed (see
//! `fsbench_runner::estimate`). A suite states how long it takes (`time = "about 85 s per
//! target"`); a plan estimated at more than [`SEVERAL`] times that, and over a minute, runs only
//! with `--yes` or a "y" typed at the prompt on a terminal. After the run, the real duration is
//! printed beside the estimate.

use crate::cli::RunArgs;
use crate::error::{CliError, CliResult};
use fsbench_model::{CacheState, RunRecord, TargetInfo};
use fsbench_runner::estimate::{self, Estimate, PastCell};
use fsbench_spec::plan::Plan;
use fsbench_spec::suite::file::Suite;
use fsbench_store::timing::CellKey;

/// How many times a suite's stated time an estimate may reach before `--yes` is needed.
pub const SEVERAL: f64 = 3.0;
/// Below this, an estimate never asks (a few seconds over is not worth a question).
const ASK_ABOVE_S: f64 = 60.0;

/// Estimates `plan` on `targets` (the record's environment, in plan order) from the runs in
/// `store` and a probe of the targets its history does not cover.
pub fn plan(
    plan: &Plan,
    targets: &[TargetInfo],
    store: Option<&fsbench_store::Store>,
    run_id: &str,
) -> Estimate {
    let past = |ti: usize, wi: usize, cache: CacheState| -> Option<PastCell> {
        let (store, t, w) = (store?, targets.get(ti)?, plan.workloads.get(wi)?);
        let key = CellKey {
            workload: w.info.name,
            params: &w.params,
            sweep: &w.sweep,
            cache_state: cache.name(),
            label: &t.label,
            path: &t.path,
            fs_type: &t.fs_type,
        };
        let c = store.cell_timing(&key).ok()??;
        Some(PastCell {
            run_id: c.run_id,
            mean_wall_ns: c.mean_wall_ns,
            overhead_factor: c.overhead_factor,
        })
    };
    let probe = estimate::needs_probe(plan, &past);
    let speeds = plan
        .targets
        .iter()
        .zip(probe)
        .map(|(t, p)| {
            p.then(|| estimate::probe(&t.path, run_id, crate::signals::cleanup()))
                .flatten()
        })
        .collect();
    estimate::estimate(plan, &past, speeds)
}

/// What `fsbench run` does after the estimate.
pub enum Next {
    /// Nothing more: `--estimate` printed it.
    Stop,
    /// Measure, with this estimate (none under MPI: each rank would probe).
    Run(Option<Estimate>),
}

/// The estimate step of `fsbench run`: checks the results database (the first thing that reads
/// it, before the probe; with `--no-store` it is only read for history, and one that cannot be
/// read is not an error), estimates, prints the estimate (`--estimate`: alone, on standard
/// output, then stops) and refuses a suite estimated far above what it says.
pub fn before_run(
    args: &RunArgs,
    team: &fsbench_runner::Team,
    plan: &Plan,
    record: &RunRecord,
    suite: Option<&Suite>,
) -> CliResult<Next> {
    if team.parallel() {
        return Ok(Next::Run(None));
    }
    let db = crate::storage::db_path(args.db.db.as_deref());
    let history = match (db, args.no_store) {
        (Ok(p), false) => {
            fsbench_store::Store::open_existing(&p).map_err(|e| CliError::usage(e.to_string()))?
        }
        (Ok(p), true) => fsbench_store::Store::open_existing(&p).ok().flatten(),
        (Err(e), false) => return Err(e),
        (Err(_), true) => None,
    };
    let e = self::plan(
        plan,
        &record.environment.targets,
        history.as_ref(),
        &record.run.id,
    );
    if args.estimate {
        crate::out::stdout(&format!("{}\n", line(&e, plan)))?;
        return Ok(Next::Stop);
    }
    // Nothing known (no history, no size known in advance): no line to print.
    if !args.quiet && e.unknown() < e.cells.len() {
        crate::errln!("{}", line(&e, plan));
    }
    check(&e, suite, plan.targets.len(), args.yes)?;
    Ok(Next::Run(Some(e)))
}

/// After the run: how long it took beside the estimate (when the estimate knew anything).
pub fn after_run(e: Option<&Estimate>, started: std::time::Instant, quiet: bool) {
    let known = e.filter(|e| e.unknown() < e.cells.len());
    if let (Some(e), false) = (known, quiet) {
        crate::errln!(
            "took {} (estimated {})",
            human(started.elapsed().as_secs_f64()),
            human(e.seconds())
        );
    }
}

/// A duration for people: `0.8 s`, `45 s`, `3 min 20 s`, `1 h 05 min`.
pub fn human(seconds: f64) -> String {
    if seconds < 9.95 {
        return format!("{seconds:.1} s");
    }
    let s = seconds.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600) / 60),
    }
}

/// The one line printed before the run.
pub fn line(e: &Estimate, plan: &Plan) -> String {
    let total = e.cells.len();
    let mut from = Vec::new();
    if e.from_history() > 0 {
        from.push(format!(
            "{} of {total} cells from earlier runs",
            e.from_history()
        ));
    }
    let probed: Vec<String> = plan
        .targets
        .iter()
        .zip(&e.speeds)
        .filter_map(|(t, s)| {
            s.map(|s| {
                format!(
                    "{} {:.0} MiB/s, {:.0} files/s",
                    t.label,
                    s.write_bytes_per_s / (1 << 20) as f64,
                    s.files_per_s
                )
            })
        })
        .collect();
    if !probed.is_empty() {
        from.push(format!("probe: {}", probed.join("; ")));
    }
    if e.unknown() > 0 {
        from.push(format!("{} cells of unknown size not counted", e.unknown()));
    }
    format!(
        "estimated time: {}{} ({})",
        if e.at_least || e.unknown() > 0 {
            "at least "
        } else {
            "about "
        },
        human(e.seconds()),
        from.join("; ")
    )
}

/// Seconds a suite says it takes for `targets` targets, from its `time` text
/// (`about 85 s per target`, `about 10 min, 3 lab targets`); `None` when it gives no number.
pub fn suite_seconds(time: &str, targets: usize) -> Option<f64> {
    let words: Vec<&str> = time
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let (i, n) = words
        .iter()
        .enumerate()
        .find_map(|(i, w)| w.parse::<f64>().ok().map(|n| (i, n)))?;
    let unit = match words.get(i + 1).copied().unwrap_or("s") {
        "s" | "sec" | "seconds" => 1.0,
        "min" | "minutes" => 60.0,
        "h" | "hour" | "hours" => 3600.0,
        _ => return None,
    };
    let per_target = time.contains("per target");
    Some(
        n * unit
            * if per_target {
                targets.max(1) as f64
            } else {
                1.0
            },
    )
}

/// Refuses (or asks, on a terminal) when `e` is over [`SEVERAL`] times what `suite` says.
pub fn check(e: &Estimate, suite: Option<&Suite>, targets: usize, yes: bool) -> CliResult<()> {
    let (Some(s), false) = (suite, yes) else {
        return Ok(());
    };
    let Some(said) = s.time.as_deref() else {
        return Ok(());
    };
    let Some(limit) = suite_seconds(said, targets) else {
        return Ok(());
    };
    let est = e.seconds();
    if est <= SEVERAL * limit || est <= ASK_ABOVE_S {
        return Ok(());
    }
    let why = format!(
        "estimated {} is {:.0}x what suite '{}' says ('{said}', {} here)",
        human(est),
        est / limit,
        s.name,
        human(limit)
    );
    use std::io::IsTerminal;
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        crate::errln!("fsbench: {why}. Run it? [y/N]");
        let mut answer = String::new();
        let _ = std::io::stdin().read_line(&mut answer);
        if matches!(answer.trim(), "y" | "Y" | "yes") {
            return Ok(());
        }
        return Err(CliError::usage(
            "not run — add --yes to run it, or --scale 0.1 for a smaller run",
        ));
    }
    Err(CliError::usage(format!(
        "{why} — add --yes to run it anyway, or --scale 0.1 for a smaller run"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suite_times_are_read_per_target_or_whole() {
        assert_eq!(suite_seconds("about 85 s per target", 3), Some(255.0));
        assert_eq!(
            suite_seconds("about 10 min, 3 lab targets (est.)", 3),
            Some(600.0)
        );
        assert_eq!(suite_seconds("about 1 min", 2), Some(60.0));
        assert_eq!(suite_seconds("quick", 1), None);
        assert_eq!(suite_seconds("about 2 h per target", 1), Some(7200.0));
    }

    #[test]
    fn durations_read_like_a_person_writes_them() {
        assert_eq!(human(12.4), "12 s");
        assert_eq!(human(0.84), "0.8 s");
        assert_eq!(human(1264.0), "21 min 04 s");
        assert_eq!(human(3.0 * 3600.0 + 300.0), "3 h 05 min");
    }
}
