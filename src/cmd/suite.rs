//! `fsbench suite list` (every built-in suite: name, one line, how long the full run took where
//! it was measured and, from the results database, here)
//! and `fsbench suite show NAME|FILE` (its TOML, to copy and edit).

use crate::cli::SuiteCommand;
use crate::error::CliResult;
use fsbench_spec::suite::{builtin, load};

/// Runs `fsbench suite ...`.
pub fn run(command: SuiteCommand) -> CliResult<i32> {
    match command {
        SuiteCommand::List { db } => list(db.db.as_deref()),
        SuiteCommand::Show { name } => show(&name),
    }
}

fn list(db: Option<&std::path::Path>) -> CliResult<i32> {
    // Earlier runs measured here, when there is a readable database; none is not an error.
    let store = crate::storage::db_path(db)
        .ok()
        .and_then(|p| fsbench_store::Store::open_existing(&p).ok().flatten());
    let mut text = String::new();
    for name in builtin::names() {
        // As written: a listing does not build the suites' workloads (the tests validate them).
        let Some(s) = builtin::described(name) else {
            continue;
        };
        let s = s?;
        let first = first_sentence(&s.description);
        let time = s.time.as_ref().map_or("?", |t| t.text.as_str());
        text.push_str(&format!("{name:<14} {time:<36} {first}\n"));
        let runs = store
            .as_ref()
            .and_then(|st| st.suite_runs(name, 3).ok())
            .unwrap_or_default();
        if !runs.is_empty() {
            let here: Vec<String> = runs.iter().map(measured).collect();
            text.push_str(&format!("{:<14} here: {}\n", "", here.join("; ")));
        }
    }
    text.push_str("\nTimes are measured: where a suite was written (its 'time'), and here, from the results database (the last 3 runs).\n'fsbench suite show NAME' prints one; 'fsbench run --suite NAME --estimate' estimates it on your targets; 'fsbench run --suite NAME' runs it (--scale 0.1 for a smaller run).\n");
    crate::out::stdout(&text)?;
    Ok(0)
}

/// One earlier run of a suite: how long, on how many targets, at which scale, which run.
fn measured(r: &fsbench_store::timing::SuiteRun) -> String {
    let scale = r.scale;
    let scale = if scale == 1.0 {
        String::new()
    } else {
        format!(" at --scale {scale}")
    };
    let targets = if r.targets == 1 { "target" } else { "targets" };
    format!(
        "{} for {} {targets}{scale} ({})",
        fsbench_model::units::format_seconds(r.seconds),
        r.targets,
        crate::escape_controls(&r.id)
    )
}

/// The description up to its first full stop (or colon), on one line.
fn first_sentence(description: &str) -> String {
    let one_line = description.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.find(": ").or_else(|| one_line.find(". ")) {
        Some(i) => one_line[..i].to_string(),
        None => one_line.trim_end_matches('.').to_string(),
    }
}

fn show(name: &str) -> CliResult<i32> {
    let suite = load(name)?;
    crate::out::stdout(&suite.text)?;
    Ok(0)
}
