//! Clocks behind one trait, so tests can substitute a deterministic `FakeClock`.

use std::cell::Cell;
use std::time::Instant;

/// A monotonic clock in integer nanoseconds from an arbitrary origin.
pub trait Clock {
    /// Nanoseconds since this clock's origin; never decreases.
    fn now_ns(&self) -> u64;
}

/// The real monotonic clock (`CLOCK_MONOTONIC` through `Instant`, a vDSO call on Linux).
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    /// A clock whose origin is now.
    pub fn new() -> Self {
        Self {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    #[inline]
    fn now_ns(&self) -> u64 {
        // u64 nanoseconds cover 584 years; the truncation cannot happen in practice.
        self.origin.elapsed().as_nanos() as u64
    }
}

/// A deterministic clock for tests: every reading advances by a fixed step.
#[derive(Debug)]
pub struct FakeClock {
    now: Cell<u64>,
    step_ns: u64,
}

impl FakeClock {
    /// A clock that starts at 0 and advances `step_ns` on each reading.
    pub fn new(step_ns: u64) -> Self {
        Self {
            now: Cell::new(0),
            step_ns,
        }
    }
}

impl Clock for FakeClock {
    fn now_ns(&self) -> u64 {
        let t = self.now.get();
        self.now.set(t + self.step_ns);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fake_clock_steps_deterministically() {
        let c = FakeClock::new(10);
        assert_eq!([c.now_ns(), c.now_ns(), c.now_ns()], [0, 10, 20]);
    }

    #[test]
    fn monotonic_clock_never_goes_back() {
        let c = MonotonicClock::new();
        let a = c.now_ns();
        let b = c.now_ns();
        assert!(b >= a);
    }
}
