//! One module per subcommand; `dispatch` routes to them and returns the exit code.

use crate::cli::Command;
use crate::error::{CliError, CliResult};

/// Runs a subcommand; `Ok(code)` for commands that choose their own exit status (ministat).
pub fn dispatch(command: Command) -> CliResult<i32> {
    match command {
        Command::Ministat { .. } => unavailable("ministat", 4),
        Command::Postmark { .. } => unavailable("postmark", 6),
        Command::History => unavailable("history", 0),
        Command::Show { .. } => unavailable("show", 0),
        Command::Compare { .. } => unavailable("compare", 0),
        Command::Report { .. } => unavailable("report", 0),
        Command::Suite { .. } => unavailable("suite", 0),
        Command::Run(_)
        | Command::Env { .. }
        | Command::Clean { .. }
        | Command::Workloads { .. } => unavailable("this command", 3),
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
