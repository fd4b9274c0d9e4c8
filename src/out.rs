//! Standard output and error that never panic. `println!` panics when stdout is a closed pipe
//! (`fsbench workloads | true`) or a full disk (`> /dev/full`); these helpers turn the first into
//! a quiet exit, as other Unix tools do, and the second into one error line with exit 3. Writing
//! to stderr ignores errors: if stderr is gone there is nobody left to tell.

use crate::error::{CliError, CliResult, ExitKind};
use std::io::Write;

/// Writes `text` to stdout and flushes it.
pub fn stdout(text: &str) -> CliResult<()> {
    if silenced() {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| stdout_error(&e))
}

/// [`stdout`] with the error as its one-line message (for the exports' writer).
// A String error, by design: the exports keep the first failure's line to report and never
// match on it; the binary's own error type (with its exit kind) cannot cross into `output`.
pub fn stdout_text(text: &str) -> Result<(), String> {
    stdout(text).map_err(|e| e.message)
}

/// The error for a failed write to stdout: a broken pipe ends quietly.
pub fn stdout_error(e: &std::io::Error) -> CliError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        CliError {
            kind: ExitKind::BrokenPipe,
            message: String::new(),
        }
    } else {
        CliError::run(format!(
            "cannot write to standard output: {e} — check where the output goes (a full disk?)"
        ))
    }
}

/// Writes one line to stderr, ignoring failures.
pub fn stderr_line(text: &str) {
    if silenced() {
        return;
    }
    let mut err = std::io::stderr().lock();
    // Text from files and the environment reaches stderr too (notes, run ids): never raw
    // control characters.
    let _ = writeln!(err, "{}", fsbench_report::format::terminal_safe(text));
}

/// `println!` that returns a [`CliResult`] instead of panicking.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::out::stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

/// `eprintln!` that never panics.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::out::stderr_line(&format!($($arg)*))
    };
}

/// Set on MPI ranks other than 0: rank 0 speaks for the run (every rank knows every rank's
/// errors, which name the rank), so the others print nothing.
static SILENT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes this process print nothing from now on (MPI ranks other than 0).
pub fn silence() {
    SILENT.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn silenced() -> bool {
    SILENT.load(std::sync::atomic::Ordering::Relaxed)
}
