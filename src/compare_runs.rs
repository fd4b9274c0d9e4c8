//! Comparing two stored runs (`fsbench compare A B`, `fsbench run --baseline A`): cells are
//! matched by target label, workload, resolved parameters and cache state; each pair gets
//! ministat's test on the headline metric and the comparability check; the environments'
//! differences (kernel, mount options, device chain, encryption, fsbench version) come first,
//! because they are what the difference is about — or what makes it meaningless. The regression
//! gate (`--fail-if-slower PCT`, `fsbench_analysis::gate`) decides every cell under a stated rule
//! and never passes what it could not judge.

use crate::cli::ExportArgs;
use crate::error::{CliError, CliResult, ExitKind};
use fsbench_analysis::runs::{environment_differences, merged};
use fsbench_model::RunRecord;
use fsbench_report::terminal::TerminalOptions;

/// The regression gate asked for: the threshold, and whether cells that cannot be judged (not
/// comparable, missing on one side) may pass.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    /// `--fail-if-slower PCT`.
    pub pct: f64,
    /// `--allow-incomparable`.
    pub allow_incomparable: bool,
}

/// Prints the comparison of `b` against `a` and applies the gate.
pub fn print_and_gate(
    a: &RunRecord,
    b: &RunRecord,
    confidence: f64,
    gate: Option<Gate>,
    plot: bool,
    export: Option<&ExportArgs>,
    sequential: Option<&fsbench_stats::sequential::Plan>,
) -> CliResult<()> {
    let pct = gate.as_ref().map(|g| g.pct);
    let comparisons =
        fsbench_analysis::runs::compare_records_as(a, b, confidence, sequential.map(|p| (p, pct)));
    let env = environment_differences(a, b);
    let mut text = fsbench_report::terminal::compare_head(a, b, &env);
    let matched = comparisons.len();
    let merged = merged(a, b, comparisons);
    if matched == 0 {
        text.push_str(
            "no cells in common (same target label, workload, parameters and cache state)\n",
        );
    }
    let opts: TerminalOptions = crate::cmd::show::terminal_options(plot, None);
    fsbench_report::terminal::comparisons(&merged, opts, &mut text);
    // Two runs of one trace: which of the program's calls make each difference.
    for t in fsbench_report::tables::calls::attribution_tables(&merged) {
        text.push_str(&fsbench_report::table::terminal::render(&t, opts.style()));
    }
    if let Some(args) = export {
        let mut ex = fsbench_output::exports::Exports::check(&args.paths(), &[], &[])?;
        ex.write(&merged, true, None, &mut crate::out::stdout_text);
        if let Some(e) = ex.error {
            return Err(CliError::run(e));
        }
    }
    let decision = gate.map(|g| {
        let report = fsbench_analysis::gate::judge(a, b, &merged.comparisons, g.pct, confidence);
        text.push_str(&report.text());
        (g, report)
    });
    crate::out::stdout(&fsbench_report::format::terminal_safe(&text))?;
    match decision {
        Some((g, report)) => verdict(&report, g),
        None => Ok(()),
    }
}

/// The gate's exit: 1 when a cell is proven slower (or, unless allowed, could not be judged),
/// 4 when a cell is inconclusive, else 0.
fn verdict(r: &fsbench_analysis::gate::GateReport, g: Gate) -> CliResult<()> {
    use fsbench_analysis::gate::Verdict;
    match r.verdict(g.pct, g.allow_incomparable) {
        Verdict::Pass => Ok(()),
        Verdict::Failed(message) => Err(CliError {
            kind: ExitKind::Regression,
            message,
        }),
        Verdict::Undecided(message) => Err(CliError {
            kind: ExitKind::Inconclusive,
            message,
        }),
    }
}
