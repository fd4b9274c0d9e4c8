//! `fsbench compare A B`: two stored runs, cell by cell, environment differences first; with
//! `--fail-if-slower PCT`, exit 1 when a headline metric is proven worse by more than PCT.

use crate::cli::CompareArgs;
use crate::error::{CliError, CliResult};

/// Compares two stored runs.
pub fn run(args: CompareArgs) -> CliResult<i32> {
    if !(args.confidence > 0.0 && args.confidence < 100.0) {
        return Err(CliError::usage(format!(
            "invalid --confidence {} — give a percentage between 0 and 100, e.g. 95",
            args.confidence
        )));
    }
    if let Some(p) = args
        .fail_if_slower
        .filter(|p| !(*p >= 0.0 && p.is_finite()))
    {
        return Err(CliError::usage(format!(
            "invalid --fail-if-slower {p} — give a percentage of 0 or more, e.g. 5"
        )));
    }
    let protected = crate::storage::protected_db(args.db.db.as_deref());
    fsbench_output::exports::Exports::check(&args.export.paths(), &protected, &[])?;
    let a = super::show::load(args.db.db.as_deref(), &args.a)?;
    let b = super::show::load(args.db.db.as_deref(), &args.b)?;
    crate::compare_runs::print_and_gate(
        &a,
        &b,
        args.confidence,
        args.fail_if_slower.map(|pct| crate::compare_runs::Gate {
            pct,
            allow_incomparable: args.allow_incomparable,
        }),
        args.plot,
        Some(&args.export),
        None,
    )?;
    Ok(0)
}
