//! User and system CPU time, major faults and context switches from `getrusage`, for this
//! process and its waited-for children.

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

    /// CPU time of the calling thread so far (a background workload's own share).
    pub fn thread() -> Self {
        rusage(libc::RUSAGE_THREAD)
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

/// Page faults of the calling thread so far: (minor, major). A memory-mapped workload's I/O
/// happens in these faults.
pub fn thread_faults() -> (u64, u64) {
    let r = raw(libc::RUSAGE_THREAD);
    let n = |x: libc::c_long| u64::try_from(x).unwrap_or(0);
    (n(r.ru_minflt), n(r.ru_majflt))
}

/// fsbench's own page faults and context switches (counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProcessCounters {
    /// Major page faults (a page had to be read from storage).
    pub major_faults: u64,
    /// Voluntary context switches (the process waited: I/O, a lock, a sleep).
    pub voluntary_switches: u64,
    /// Involuntary context switches (preempted: another task needed the CPU).
    pub involuntary_switches: u64,
}

impl ProcessCounters {
    /// This process plus its waited-for children, so far.
    pub fn self_and_children() -> Self {
        let (a, b) = (raw(libc::RUSAGE_SELF), raw(libc::RUSAGE_CHILDREN));
        let n = |x: libc::c_long| u64::try_from(x).unwrap_or(0);
        Self {
            major_faults: n(a.ru_majflt) + n(b.ru_majflt),
            voluntary_switches: n(a.ru_nvcsw) + n(b.ru_nvcsw),
            involuntary_switches: n(a.ru_nivcsw) + n(b.ru_nivcsw),
        }
    }

    /// Component-wise difference `self - earlier`, saturating at 0.
    pub fn since(self, earlier: Self) -> Self {
        Self {
            major_faults: self.major_faults.saturating_sub(earlier.major_faults),
            voluntary_switches: self
                .voluntary_switches
                .saturating_sub(earlier.voluntary_switches),
            involuntary_switches: self
                .involuntary_switches
                .saturating_sub(earlier.involuntary_switches),
        }
    }
}

fn raw(who: libc::c_int) -> libc::rusage {
    // rustix does not expose getrusage(RUSAGE_CHILDREN); libc is the thin, exact binding.
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `ru` is a valid, writable rusage; getrusage only writes into it and cannot fail
    // for RUSAGE_SELF / RUSAGE_CHILDREN.
    #[allow(unsafe_code)]
    unsafe {
        libc::getrusage(who, ru.as_mut_ptr());
        ru.assume_init()
    }
}

fn rusage(who: libc::c_int) -> CpuTimes {
    let ru = raw(who);
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
    fn own_counters_never_go_backwards() {
        let a = ProcessCounters::self_and_children();
        let _ = std::fs::read_to_string("/proc/self/stat");
        let b = ProcessCounters::self_and_children();
        let d = b.since(a);
        assert!(b.voluntary_switches >= a.voluntary_switches, "{a:?} {b:?}");
        assert_eq!(a.since(b).major_faults, 0, "{d:?}");
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
