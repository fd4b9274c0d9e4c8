//! A cheap, shareable flag that asks a running workload to stop (Ctrl-C, SIGTERM, time limits).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cloneable cancellation flag; all clones share one state.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that is not cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every holder to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// True once `cancel` was called on any clone.
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// The shared flag, for signal handlers that set it directly.
    pub fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.0)
    }

    /// `Err(Interrupted)` once cancelled, for `?` in workload loops.
    #[inline]
    pub fn check(&self) -> Result<(), crate::WorkloadError> {
        if self.is_cancelled() {
            Err(crate::WorkloadError::Interrupted)
        } else {
            Ok(())
        }
    }
}
