//! fsbench: the binary. Parses the command line, dispatches to `cmd/*`, and turns every failure
//! into one line on stderr and the exit code of DESIGN.md.

mod cache;
mod cli;
mod cmd;
mod envinfo;
mod error;
mod metrics;
mod overhead;
mod plan;
mod runner;
pub mod scratch;
mod signals;

/// Number formatting shared with the reports.
mod format {
    pub use fsbench_report::format::*;
}

use clap::Parser;
use error::{CliError, ExitKind};

fn main() {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                _ => ExitKind::Usage.code(),
            };
            let _ = e.print();
            std::process::exit(code);
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

fn report(err: &CliError) {
    let line = err.message.replace('\n', " ");
    eprintln!("fsbench: error: {line}");
}
