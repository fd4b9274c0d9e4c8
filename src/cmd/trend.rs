//! `fsbench trend`: each cell's headline over the stored runs with its lasting steps and what
//! changed in the environment at each (`fsbench_analysis::trend`), as a table, JSON or HTML;
//! `--fail-on-step` exits 1 when a cell's newest run is on the worse side of a step.

use crate::cli::TrendArgs;
use crate::error::{CliError, CliResult, ExitKind};
use std::path::Path;

/// Shows the trends.
pub fn run(args: TrendArgs) -> CliResult<i32> {
    if !(args.confidence > 0.0 && args.confidence < 100.0) {
        let c = args.confidence;
        let fix = "give a percentage between 0 and 100, e.g. 95";
        return Err(CliError::usage(format!("invalid --confidence {c} — {fix}")));
    }
    if args.last == Some(0) {
        return Err(CliError::usage("invalid --last 0 — give 1 or more runs"));
    }
    let db = args.db.db.as_deref();
    let outputs: Vec<(&str, &Path)> =
        [("--export-json", &args.export_json), ("--html", &args.html)]
            .into_iter()
            .filter_map(|(flag, p)| Some((flag, p.as_deref()?)))
            .collect();
    fsbench_output::protect::check_files(&outputs, &crate::storage::protected_db(db))?;
    let store = crate::storage::open_existing(db)?;
    let filter = fsbench_store::TrendFilter {
        target: args.target.clone(),
        workload: args.workload.clone(),
        cache: args
            .cache
            .as_deref()
            .and_then(fsbench_model::CacheState::parse),
    };
    let histories = store.cell_histories(&filter)?;
    if histories.is_empty() {
        let path = store.path().display();
        if args.target.is_some() || args.workload.is_some() || args.cache.is_some() {
            let what = "no stored cell matches --target, --workload and --cache";
            let fix = "'fsbench history' lists what is stored";
            return Err(CliError::usage(format!("{what} in {path} — {fix}")));
        }
        crate::errln!("fsbench: no results stored in {path} yet — 'fsbench run' stores them");
        return Ok(0);
    }
    // Whole runs, read only at steps: the load on the machine is in their samples.
    let mut run_of = |id: &str| store.load(id).ok();
    let trend = fsbench_analysis::trend::trend(histories, args.confidence, args.last, &mut run_of);
    if let Some(path) = &args.export_json {
        super::history::write_output(path, "--export-json", &fsbench_report::trend::json(&trend))?;
    }
    if let Some(path) = &args.html {
        super::history::write_output(path, "--html", &fsbench_report::html::trend::page(&trend))?;
    }
    if outputs.iter().all(|(_, p)| p.as_os_str() != "-") {
        let style = super::show::terminal_options(false, None).style();
        let text = fsbench_report::trend::text(&trend, style);
        crate::out::stdout(&fsbench_report::format::terminal_safe(&text))?;
    }
    match trend.step_failure().filter(|_| args.fail_on_step) {
        Some(message) => Err(CliError {
            kind: ExitKind::Regression,
            message,
        }),
        None => Ok(0),
    }
}
