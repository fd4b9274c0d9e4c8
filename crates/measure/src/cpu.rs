//! User and system CPU time from `getrusage`, for this process and its waited-for children.

/// User and system CPU time in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// Time spent in user mode.
    pub user_ns: u64,
    /// Time spent in the kernel on the process's behalf.
    pub sys_ns: u64,
}

impl CpuTimes {
    /// CPU time of every thread of this process so far.
    pub fn process() -> Self {
        rusage(libc::RUSAGE_SELF)
    }

    /// CPU time of all children that have terminated and been waited for.
    pub fn children() -> Self {
        rusage(libc::RUSAGE_CHILDREN)
    }

    /// Process plus children: what a sample's CPU columns report.
    pub fn process_and_children() -> Self {
        Self::process().plus(Self::children())
    }

    /// Component-wise sum.
    pub fn plus(self, other: Self) -> Self {
        Self {
            user_ns: self.user_ns + other.user_ns,
            sys_ns: self.sys_ns + other.sys_ns,
        }
    }

    /// Component-wise difference `self - earlier`, saturating at 0.
    pub fn since(self, earlier: Self) -> Self {
        Self {
            user_ns: self.user_ns.saturating_sub(earlier.user_ns),
            sys_ns: self.sys_ns.saturating_sub(earlier.sys_ns),
        }
    }
}

fn rusage(who: libc::c_int) -> CpuTimes {
    // rustix does not expose getrusage(RUSAGE_CHILDREN); libc is the thin, exact binding.
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a valid, writable rusage; getrusage only writes into it and cannot fail
    // for RUSAGE_SELF / RUSAGE_CHILDREN.
    #[allow(unsafe_code)]
    let ru = unsafe {
        libc::getrusage(who, ru.as_mut_ptr());
        ru.assume_init()
    };
    let ns = |tv: libc::timeval| tv.tv_sec as u64 * 1_000_000_000 + tv.tv_usec as u64 * 1_000;
    CpuTimes {
        user_ns: ns(ru.ru_utime),
        sys_ns: ns(ru.ru_stime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_loop_consumes_user_time() {
        let before = CpuTimes::process();
        let mut x = 0u64;
        let start = std::time::Instant::now();
        while start.elapsed().as_millis() < 30 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = CpuTimes::process().since(before);
        assert!(used.user_ns > 0, "{used:?}");
    }

    #[test]
    fn since_saturates() {
        let a = CpuTimes {
            user_ns: 5,
            sys_ns: 1,
        };
        let b = CpuTimes {
            user_ns: 7,
            sys_ns: 0,
        };
        assert_eq!(
            a.since(b),
            CpuTimes {
                user_ns: 0,
                sys_ns: 1
            }
        );
    }
}
