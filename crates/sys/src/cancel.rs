//! A cheap, shareable flag that asks a running workload to stop (Ctrl-C, SIGTERM, time limits).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The error of [`CancelToken::check`]: the token was cancelled. Callers' error types convert
/// it (`?`) into their own "interrupted".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// Cloneable cancellation flag; all clones share one state. A child token (`child`) is also
/// cancelled when its parent is, but cancelling the child leaves the parent alone (one MPI sample
/// ended because another rank failed, while the run goes on).
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>, Option<Arc<AtomicBool>>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new token cancelled by its own `cancel` or by this token's.
    pub fn child(&self) -> Self {
        Self(Arc::new(AtomicBool::new(false)), Some(Arc::clone(&self.0)))
    }

    /// Asks every holder to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once `cancel` was called on any clone (or on the parent of a child token).
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed) || self.1.as_ref().is_some_and(|p| p.load(Ordering::Relaxed))
    }

    /// The shared flag, for signal handlers that set it directly.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }

    /// `Err(Interrupted)` once cancelled, for `?` in workload loops.
    #[inline]
    pub fn check(&self) -> Result<(), Interrupted> {
        if self.is_cancelled() {
            Err(Interrupted)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod child_tests {
    use super::*;

    #[test]
    fn child_follows_parent_but_not_the_other_way() {
        let parent = CancelToken::new();
        let child = parent.child();
        child.cancel();
        assert!(child.is_cancelled() && !parent.is_cancelled());
        let other = parent.child();
        parent.cancel();
        assert!(other.is_cancelled());
    }
}
