//! `fsbench completions SHELL` and `fsbench man`: generated from the clap definition, so they
//! always list the flags this binary has.

use crate::cli::Cli;
use crate::error::{CliError, CliResult};
use clap::CommandFactory;

/// Prints the completion script of `shell`.
pub fn completions(shell: clap_complete::Shell) -> CliResult<i32> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "fsbench", &mut out);
    print(&out)
}

/// Prints the manual page (roff).
pub fn man() -> CliResult<i32> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| CliError::run(format!("cannot render the manual page: {e}")))?;
    print(&out)
}

fn print(bytes: &[u8]) -> CliResult<i32> {
    crate::out::stdout(&String::from_utf8_lossy(bytes))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency checks of the whole definition (hyperfine's `verify_app`).
    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
