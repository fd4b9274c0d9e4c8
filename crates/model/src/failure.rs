//! The engine's failure: one line saying what went wrong, where, and how to fix it, and whether
//! the input was wrong, the run failed, or a signal stopped it. The binary maps the kind to an
//! exit code (2, 3, 130); libraries never exit or print.

use std::fmt;

/// Why an engine step stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureKind {
    /// The input was wrong (a flag, a suite file, a target): found before any work (exit 2).
    Input,
    /// The run failed: an I/O error, a full disk, a lab that could not be built (exit 3).
    Run,
    /// SIGINT or SIGTERM stopped it (exit 130).
    Interrupted,
}

/// A failure of an engine step: `WHAT (WHERE) — HOW TO FIX`, and its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Input, run or interruption.
    pub kind: FailureKind,
    /// One line: what, where, how to fix.
    pub message: String,
}

impl Failure {
    /// A wrong input (exit 2).
    pub fn input(message: impl Into<String>) -> Self {
        Self {
            kind: FailureKind::Input,
            message: message.into(),
        }
    }

    /// A failed run (exit 3).
    pub fn run(message: impl Into<String>) -> Self {
        Self {
            kind: FailureKind::Run,
            message: message.into(),
        }
    }

    /// Stopped by a signal (exit 130).
    pub fn interrupted() -> Self {
        Self {
            kind: FailureKind::Interrupted,
            message: "interrupted; scratch removed".into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The result of an engine step.
pub type EngineResult<T = ()> = Result<T, Failure>;
