//! The calling thread's timer slack (`prctl(PR_SET_TIMERSLACK)`): how late the kernel may end a
//! sleep to batch wake-ups (50 µs by default). A paced workload lowers it while it sleeps to a
//! schedule, so it can sleep closer to each slot instead of spinning.

use std::num::NonZeroU64;

/// The thread's current timer slack in ns; `None` when it cannot be read.
pub fn slack() -> Option<NonZeroU64> {
    rustix::thread::current_timer_slack()
        .ok()
        .and_then(NonZeroU64::new)
}

/// Sets the thread's timer slack (`None`: back to the thread's default). Best effort: a kernel
/// that refuses leaves the slack as it was, which only makes waits spin a little longer.
pub fn set_slack(ns: Option<NonZeroU64>) {
    let _ = rustix::thread::set_current_timer_slack(ns);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slack_is_set_and_restored() {
        let before = slack();
        set_slack(NonZeroU64::new(1));
        assert_eq!(slack(), NonZeroU64::new(1));
        set_slack(before);
        assert_eq!(slack(), before);
    }
}
