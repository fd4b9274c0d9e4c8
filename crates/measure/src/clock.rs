//! Clocks behind one trait, so tests can substitute a deterministic `FakeClock`.

use std::cell::Cell;

/// A monotonic clock in integer nanoseconds from an arbitrary origin.
pub trait Clock {
    /// Nanoseconds since this clock's origin; never decreases.
    fn now_ns(&self) -> u64;
}

/// The real monotonic clock. Reads the CPU's invariant time-stamp counter through `quanta`
/// (calibrated against CLOCK_MONOTONIC; about a third of the cost of a vDSO clock_gettime, which
/// matters when every 700 ns page-cache read is timed), and falls back to CLOCK_MONOTONIC where
/// the TSC is not invariant.
#[derive(Debug, Clone)]
pub struct MonotonicClock {
    clock: quanta::Clock,
    origin: u64,
}

impl MonotonicClock {
    /// A clock whose origin is now. The `quanta` clock is made once per process and cloned:
    /// making one asks CPUID whether the TSC is invariant each time, which cost several µs per
    /// sample (outside the timed region, but a quarter of a 100 µs sample's run time).
    pub fn new() -> Self {
        static SHARED: std::sync::OnceLock<quanta::Clock> = std::sync::OnceLock::new();
        let clock = SHARED.get_or_init(quanta::Clock::new).clone();
        let origin = clock.raw();
        Self { clock, origin }
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
        self.clock.delta_as_nanos(self.origin, self.clock.raw())
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
    fn monotonic_clock_never_goes_back_and_tracks_real_time() {
        let c = MonotonicClock::new();
        let a = c.now_ns();
        let b = c.now_ns();
        assert!(b >= a);
        // `Instant`'s readings enclose ours: a preemption anywhere lengthens both spans alike or
        // only the outer one, so ours lies between the sleep and `Instant`'s span.
        let t = std::time::Instant::now();
        let start = c.now_ns();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let ours = (c.now_ns() - start) as f64;
        let real = t.elapsed().as_nanos() as f64;
        assert!(
            ours >= 20e6 * 0.999 && ours <= real * 1.001 + 1_000.0,
            "ours {ours} real {real}"
        );
    }

    #[test]
    fn every_clock_starts_at_its_own_origin_and_agrees_with_the_others() {
        let a = MonotonicClock::new();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let b = MonotonicClock::new();
        // b read first: the time between the readings only adds to a's lead.
        let tb = b.now_ns();
        let ta = a.now_ns();
        // b's origin is 5 ms or more after a's: the shared clock does not share the origin.
        assert!(ta >= tb + 4_990_000, "a {ta} b {tb}");
    }
}
