//! Comparing two stored runs (`fsbench compare A B`, `fsbench run --baseline A`): cells are
//! matched by target label, workload, resolved parameters and cache state; each pair gets
//! ministat's test on the headline metric and the comparability check; the environments'
//! differences (kernel, mount options, device chain, encryption, fsbench version) come first,
//! because they are what the difference is about — or what makes it meaningless. The regression
//! gate (`--fail-if-slower PCT`) fails when a headline metric is proven worse by more than PCT.

use crate::cli::ExportArgs;
use crate::error::{CliError, CliResult, ExitKind};
use fsbench_analysis::runs::{compare_records, environment_differences, merged, regressions};
use fsbench_model::{Comparison, RunRecord};
use fsbench_report::terminal::TerminalOptions;

/// Prints the comparison of `b` against `a` and applies the gate.
pub fn print_and_gate(
    a: &RunRecord,
    b: &RunRecord,
    confidence: f64,
    fail_if_slower: Option<f64>,
    plot: bool,
    export: Option<&ExportArgs>,
) -> CliResult<()> {
    let comparisons = compare_records(a, b, confidence);
    let mut text = format!(
        "A = run {} ({})\nB = run {} ({})\n",
        a.run.id, a.run.started_at, b.run.id, b.run.started_at
    );
    let env = environment_differences(a, b);
    if env.is_empty() {
        text.push_str("environment: no differences recorded\n");
    } else {
        text.push_str("environment differences:\n");
        for d in &env {
            text.push_str(&format!("  {}\n", crate::escape_controls(d)));
        }
    }
    let matched = comparisons.len();
    let merged = merged(a, b, comparisons);
    if matched == 0 {
        text.push_str(
            "no cells in common (same target label, workload, parameters and cache state)\n",
        );
    }
    let opts = TerminalOptions { width: None, plot };
    fsbench_report::terminal::comparisons(&merged, opts, &mut text);
    if let Some(args) = export {
        let mut ex = crate::exports::Exports::check(args, &[], &[])?;
        ex.write(&merged, true);
        if let Some(e) = ex.error {
            return Err(CliError::run(e));
        }
    }
    crate::out::stdout(&fsbench_report::format::terminal_safe(&text))?;
    gate(&merged.comparisons, fail_if_slower)
}

fn gate(comparisons: &[Comparison], fail_if_slower: Option<f64>) -> CliResult<()> {
    let Some(pct) = fail_if_slower else {
        return Ok(());
    };
    let worse = regressions(comparisons, pct);
    if worse.is_empty() {
        return Ok(());
    }
    Err(CliError {
        kind: ExitKind::Regression,
        message: format!(
            "proven slower than the baseline by more than {pct}%: {}",
            worse.join("; ")
        ),
    })
}
