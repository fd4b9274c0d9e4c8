//! fsbench: the binary. Parses the command line, dispatches to `cmd/*`, and turns every failure
//! into one line on stderr and the exit code of DESIGN.md.

mod cli;
mod cmd;
mod compare_runs;
mod error;
mod estimate;
mod labns;
mod out;
mod signals;
mod spec_args;
mod storage;

use fsbench_envinfo as envinfo;
use fsbench_lab as lab;
use fsbench_runner as runner;
use fsbench_scratch as scratch;
use fsbench_scratch::guard;

/// Number formatting shared with the reports.
mod format {
    pub use fsbench_report::format::*;
}

use clap::Parser;
use error::{CliError, ExitKind};

fn main() {
    // `args_os`: `args` panics on an argument that is not UTF-8 (a path is any bytes). The
    // internal commands' arguments are fsbench's own, so a lossy view of them is exact.
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if argv.get(1).map(String::as_str) == Some(fsbench_tree::walk_procs::WORKER_COMMAND) {
        std::process::exit(fsbench_tree::walk_procs::worker_main(&argv[2..]));
    }
    if argv.get(1).map(String::as_str) == Some(fsbench_workload::fx::procs::WORKER_COMMAND) {
        std::process::exit(fsbench_workload::fx::procs::worker_main(&argv[2..]));
    }
    if argv.get(1).map(String::as_str) == Some(fsbench_trace::session::EXEC_COMMAND) {
        // The program and its arguments exactly as given (any bytes): not the lossy `argv`.
        let args: Vec<std::ffi::OsString> = std::env::args_os().skip(2).collect();
        std::process::exit(fsbench_trace::session::exec_main(&args));
    }
    if argv.get(1).map(String::as_str) == Some(fsbench_trace::session::CALIBRATE_COMMAND) {
        std::process::exit(fsbench_trace::session::calibrate_main(&argv[2..]));
    }
    if argv.get(1).map(String::as_str) == Some(guard::COMMAND) {
        std::process::exit(guard::main(&argv[2..]));
    }
    if argv.get(1).map(String::as_str) == Some(fsbench_lab::wire::COMMAND) {
        std::process::exit(fsbench_lab::wire::main(&argv[2..]));
    }
    install_panic_hook();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let code = match out::stdout(&e.render().to_string()) {
                        Err(err) if err.kind != ExitKind::BrokenPipe => {
                            report(&err);
                            err.kind.code()
                        }
                        _ => 0,
                    };
                    std::process::exit(code);
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    errln!("{}", e.render());
                    std::process::exit(ExitKind::Usage.code());
                }
                ErrorKind::InvalidUtf8 => {
                    report(&CliError::usage(not_utf8_message()));
                    std::process::exit(ExitKind::Usage.code());
                }
                _ => {
                    report(&CliError::usage(one_line_clap_error(
                        &e.render().to_string(),
                    )));
                    std::process::exit(ExitKind::Usage.code());
                }
            }
        }
    };
    let code = match cmd::dispatch(cli.command) {
        Ok(code) => code,
        Err(err) => {
            report(&err);
            // After a signal, an input refused because fsbench was stopping (no scratch made)
            // means interrupted; a failure (a scratch that could not be removed) stays one.
            match signals::interrupted() && err.kind == ExitKind::Usage {
                true => ExitKind::Interrupted.code(),
                false => err.kind.code(),
            }
        }
    };
    std::process::exit(code);
}

/// Which argument is not UTF-8 (clap does not say): paths may be any bytes, text may not.
fn not_utf8_message() -> String {
    let bad = std::env::args_os()
        .enumerate()
        .skip(1)
        .find(|(_, a)| a.to_str().is_none());
    match bad {
        Some((i, a)) => format!(
            "argument {i} ('{}') is not UTF-8 — only paths (targets, --db, --json, exports, clean DIR) may be any bytes; give text (labels, workloads, notes, commands) in UTF-8",
            a.to_string_lossy()
        ),
        None => "an argument is not UTF-8 — give text in UTF-8".into(),
    }
}

/// clap's multi-line usage error as one line: the reason and its hints, then where to look.
fn one_line_clap_error(text: &str) -> String {
    let parts: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| {
            !l.is_empty() && !l.starts_with("Usage:") && !l.starts_with("For more information")
        })
        .map(|l| l.strip_prefix("error: ").unwrap_or(l))
        .collect();
    format!(
        "{} — see 'fsbench --help' or 'fsbench COMMAND --help'",
        parts.join(" ")
    )
}

/// Prints a failure as one line (control characters escaped), unless there is nothing to say;
/// also called early (MPI rank 0, before MPI is finalised).
pub(crate) fn report(err: &CliError) {
    if err.kind == ExitKind::BrokenPipe || err.message.is_empty() {
        return;
    }
    errln!("fsbench: error: {}", escape_controls(&err.message));
}

pub(crate) use fsbench_model::text::escape_controls;

/// A panic becomes one line naming it as an internal error, live children and scratches are
/// cleaned up, and the process exits 101 (documented), never with a backtrace.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let what = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        errln!(
            "fsbench: internal error: {}{at} — this is a bug in fsbench; please report it with the command line",
            escape_controls(&what)
        );
        signals::release_all();
        std::process::exit(ExitKind::Internal.code());
    }));
}
