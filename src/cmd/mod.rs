//! One module per subcommand; `dispatch` routes to them and returns the exit code.

pub mod clean;
pub mod compare;
pub mod env;
pub mod history;
pub mod import;
pub mod lab;
pub mod metrics;
pub mod ministat;
pub mod postmark;
pub mod run;
pub mod show;
pub mod suite;
pub mod workloads;

use crate::cli::Command;
use crate::error::{CliError, CliResult};

/// Runs a subcommand; `Ok(code)` for commands that choose their own exit status (ministat).
pub fn dispatch(command: Command) -> CliResult<i32> {
    match command {
        Command::Ministat { args } => Ok(ministat::run(args)),
        Command::Postmark { config } => postmark::run(config),
        Command::History(args) => history::run(args),
        Command::Show(args) => show::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Import { file, db } => import::run(&file, db.db.as_deref()),
        Command::Report { .. } => unavailable("report", 0),
        Command::Suite { command } => suite::run(command),
        Command::Run(args) => run::run(args),
        Command::Metrics => metrics::run(),
        Command::InternalPanic => panic!("deliberate panic to test the panic hook"),
        Command::Env { dir, json } => env::run(&dir, json),
        Command::Lab { command } => lab::run(command),
        Command::Clean { dir } => clean::run(&dir),
        Command::Workloads { name } => workloads::run(name.as_deref()),
    }
}

/// The error of a subcommand that another issue owns.
fn unavailable(what: &str, issue: u32) -> CliResult<i32> {
    let owner = if issue > 0 {
        format!(" (issue {issue})")
    } else {
        String::new()
    };
    Err(CliError::usage(format!(
        "'{what}' is not yet available in this version{owner} — use 'fsbench run' and --json for now"
    )))
}
