//! `fsbench postmark [CONFIG]`: the drop-in for Debian's `postmark` (the session is
//! `fsbench_postmark::session`), on this process's terminal.

use crate::error::{CliError, CliResult};
use fsbench_postmark::session::{self, Console, Stop};
use fsbench_workload::CancelToken;
use std::io::{BufRead, Read, Write};
use std::path::PathBuf;

/// Standard input, output and error, the shell and the current directory.
struct Terminal;

impl Console for Terminal {
    type Error = CliError;

    fn out(&mut self, text: &str) -> CliResult<()> {
        crate::out::stdout(text)
    }

    fn err_line(&mut self, line: &str) {
        crate::errln!("{line}");
    }

    fn read_line(&mut self, buf: &mut String, limit: u64) -> std::io::Result<usize> {
        std::io::stdin().lock().take(limit).read_line(buf)
    }

    fn progress(&mut self) -> Box<dyn Write + '_> {
        Box::new(std::io::stdout().lock())
    }

    /// `!CMD` runs CMD with `sh -c`; a bare `!` starts `$SHELL` (postmark's `system()`).
    fn shell(&mut self, cmd: Option<String>) {
        let _ = std::io::stdout().flush();
        let status = match cmd {
            Some(c) => std::process::Command::new("sh").arg("-c").arg(c).status(),
            None => match std::env::var_os("SHELL") {
                Some(sh) => std::process::Command::new(sh).status(),
                None => return,
            },
        };
        if let Err(e) = status {
            crate::errln!("Error: cannot run shell command: {e}");
        }
    }

    fn current_dir(&self) -> String {
        std::env::current_dir()
            .map(|d| d.display().to_string())
            .unwrap_or_default()
    }
}

/// Runs the drop-in; returns the exit code.
pub fn run(config: Option<PathBuf>) -> CliResult<i32> {
    let cancel = CancelToken::new();
    crate::signals::install(cancel.clone())
        .map_err(|e| CliError::run(format!("cannot install signal handlers: {e}")))?;
    let cleanup = crate::signals::cleanup().clone();
    let version = env!("CARGO_PKG_VERSION");
    match session::run(&mut Terminal, config.as_deref(), version, cancel, cleanup) {
        Ok(()) => Ok(0),
        Err(Stop::Failed(f)) => Err(f.into()),
        Err(Stop::Console(e)) => Err(e),
    }
}
