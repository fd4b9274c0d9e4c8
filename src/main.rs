//! fsbench: the binary. Parses the command line, dispatches to `cmd/*`, and turns every failure
//! into one line on stderr and the exit code of DESIGN.md.

mod cache;
mod cli;
mod cmd;
mod compare;
mod envinfo;
mod error;
mod metrics;
mod overhead;
mod plan;
mod runner;
pub mod scratch;
mod signals;
mod sweeps;

/// Number formatting shared with the reports.
mod format {
    pub use fsbench_report::format::*;
}

use clap::Parser;
use error::{CliError, ExitKind};

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str)
        == Some(fsbench_workload::engines::walk_procs::WORKER_COMMAND)
    {
        std::process::exit(fsbench_workload::engines::walk_procs::worker_main(
            &argv[2..],
        ));
    }
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    std::process::exit(0);
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
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
            err.kind.code()
        }
    };
    std::process::exit(code);
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

fn report(err: &CliError) {
    let line = err.message.replace('\n', " ");
    eprintln!("fsbench: error: {line}");
}
