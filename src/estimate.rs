//! The time estimate of `fsbench run`, printed before the first sample: from the stored history
//! of the same cells where there is one, else from a probe of each target's speed (see
//! `fsbench_runner::estimate`). A suite states how long it takes (`time = "about 85 s per
//! target"`); a suite the user named (`--suite`) estimated at more than [`SEVERAL`] times that,
//! and over a minute, runs only with `--yes` or a "y" typed at the prompt on a terminal — unless
//! the estimate rests on a probe taken while other processes kept the CPUs busy, which is said
//! and run. The default plan (`quick`, no `--suite`) is never refused. After the run, the real
//! duration is printed beside the estimate.

use crate::error::{CliError, CliResult};
use fsbench_model::RunRecord;
use fsbench_runner::estimate::{self, Estimate};
use fsbench_spec::plan::Plan;
use fsbench_spec::suite::file::Suite;

/// How many times a suite's stated time an estimate may reach before `--yes` is needed.
pub const SEVERAL: f64 = 3.0;
/// Below this, an estimate never asks (a few seconds over is not worth a question).
const ASK_ABOVE_S: f64 = 60.0;

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
/// output, then stops) and refuses a suite estimated far above what it says (`suite`: the one
/// the user named, `None` for the default plan).
pub fn before_run(
    session: &fsbench_spec::Session,
    team: &fsbench_runner::Team,
    plan: &Plan,
    record: &RunRecord,
    suite: Option<&Suite>,
) -> CliResult<Next> {
    if team.parallel() {
        return Ok(Next::Run(None));
    }
    let db = crate::storage::db_path(session.db.as_deref());
    let history = match (db, session.no_store) {
        (Ok(p), false) => fsbench_store::Store::open_existing(&p).map_err(CliError::from)?,
        (Ok(p), true) => fsbench_store::Store::open_existing(&p).ok().flatten(),
        (Err(e), false) => return Err(e),
        (Err(_), true) => None,
    };
    let targets = &record.environment.targets;
    let cleanup = crate::signals::cleanup();
    let e = estimate::from_history(plan, targets, history.as_ref(), &record.run.id, cleanup);
    if session.estimate_only {
        crate::out::stdout(&format!("{}\n", e.line(plan)))?;
        return Ok(Next::Stop);
    }
    // Nothing known (no history, no size known in advance): no line to print.
    if !session.quiet && e.unknown() < e.cells.len() {
        crate::errln!("{}", e.line(plan));
    }
    // `suite` is the one the user named (`--suite`): the default plan prints its estimate and
    // runs.
    check(&e, suite, plan.targets.len(), session.yes)?;
    Ok(Next::Run(Some(e)))
}

/// After the run: how long it took beside the estimate (when the estimate knew anything).
pub fn after_run(e: Option<&Estimate>, started: std::time::Instant, quiet: bool) {
    let known = e.filter(|e| e.unknown() < e.cells.len());
    if let (Some(e), false) = (known, quiet) {
        crate::errln!(
            "took {} (estimated {})",
            fsbench_model::units::format_seconds(started.elapsed().as_secs_f64()),
            fsbench_model::units::format_seconds(e.seconds())
        );
    }
}

/// Refuses (or asks, on a terminal) when `e` is over [`SEVERAL`] times what `suite` says; when
/// the estimate rests on a probe taken on a busy machine, says so in one line and runs instead.
pub fn check(e: &Estimate, suite: Option<&Suite>, targets: usize, yes: bool) -> CliResult<()> {
    let (Some(s), false) = (suite, yes) else {
        return Ok(());
    };
    let Some(time) = &s.time else {
        return Ok(());
    };
    let Some(limit) = time.for_targets(targets) else {
        return Ok(());
    };
    let said = &time.text;
    let est = e.seconds();
    if est <= SEVERAL * limit || est <= ASK_ABOVE_S {
        return Ok(());
    }
    let why = format!(
        "estimated {} is {:.0}x what suite '{}' says ('{said}', {} here)",
        fsbench_model::units::format_seconds(est),
        est / limit,
        s.name,
        fsbench_model::units::format_seconds(limit)
    );
    if let Some(pct) = e.probe_load() {
        crate::errln!(
            "fsbench: {why}, but the probe ran while other processes took {pct:.0}% of the CPUs — running it; `run --estimate` on a quieter machine gives a better estimate"
        );
        return Ok(());
    }
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
