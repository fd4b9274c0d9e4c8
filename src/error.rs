//! The binary's error type: every failure carries its exit code and prints as one line.

use std::fmt;

/// Exit codes of DESIGN.md: 0 ok; 1 a requested check failed (the gate of `--fail-if-slower`,
/// or a trend step with `--fail-on-step`); 2 usage or input; 3 the run failed; 4 the gate could
/// not judge; 130 interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// A requested regression check failed (1).
    Regression,
    /// A requested regression check could not decide a cell: its interval straddles the
    /// threshold (4).
    Inconclusive,
    /// Usage or input error (2).
    Usage,
    /// The run failed: I/O error, full disk (3).
    RunFailed,
    /// Interrupted by SIGINT or SIGTERM (130).
    Interrupted,
    /// Standard output was closed by its reader (`| head`): exit quietly with 0, as `rg` does.
    BrokenPipe,
    /// A bug in fsbench (a panic), reported in one line (101).
    Internal,
}

impl ExitKind {
    /// The process exit code.
    pub fn code(self) -> i32 {
        match self {
            Self::Regression => 1,
            Self::Inconclusive => 4,
            Self::Usage => 2,
            Self::RunFailed => 3,
            Self::Interrupted => 130,
            Self::BrokenPipe => 0,
            Self::Internal => 101,
        }
    }

    /// The kind whose exit code is `code` (a run failure for a code no kind has).
    pub fn from_code(code: i32) -> Self {
        [
            Self::Regression,
            Self::Inconclusive,
            Self::Usage,
            Self::RunFailed,
            Self::Interrupted,
            Self::Internal,
        ]
        .into_iter()
        .find(|k| k.code() == code)
        .unwrap_or(Self::RunFailed)
    }
}

/// A failure of a subcommand: what, where and how to fix, with its exit code.
#[derive(Debug)]
pub struct CliError {
    /// Which exit code.
    pub kind: ExitKind,
    /// One line: `WHAT (WHERE) — HOW TO FIX`.
    pub message: String,
}

impl CliError {
    /// A usage or input error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: ExitKind::Usage,
            message: message.into(),
        }
    }

    /// A failed run (exit 3).
    pub fn run(message: impl Into<String>) -> Self {
        Self {
            kind: ExitKind::RunFailed,
            message: message.into(),
        }
    }

    /// Interrupted (exit 130).
    pub fn interrupted() -> Self {
        Self {
            kind: ExitKind::Interrupted,
            message: "interrupted; scratch removed".into(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CliError {}

impl From<fsbench_output::Refused> for CliError {
    /// An output path refused before any work: a usage error.
    fn from(r: fsbench_output::Refused) -> Self {
        Self::usage(r.0)
    }
}

impl From<fsbench_store::StoreError> for CliError {
    /// A full filesystem or an I/O error under the database fails the run (exit 3); a database
    /// that is refused (not ours, damaged, newer, unreadable, locked too long) is an input
    /// error (exit 2).
    fn from(e: fsbench_store::StoreError) -> Self {
        let kind = match e.is_io_failure() {
            true => ExitKind::RunFailed,
            false => ExitKind::Usage,
        };
        Self {
            kind,
            message: e.to_string(),
        }
    }
}

impl From<fsbench_model::Failure> for CliError {
    fn from(f: fsbench_model::Failure) -> Self {
        use fsbench_model::FailureKind;
        let kind = match f.kind {
            FailureKind::Input => ExitKind::Usage,
            FailureKind::Interrupted => ExitKind::Interrupted,
            _ => ExitKind::RunFailed,
        };
        Self {
            kind,
            message: f.message,
        }
    }
}

/// Result of a subcommand.
pub type CliResult<T = ()> = Result<T, CliError>;
