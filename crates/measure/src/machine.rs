//! CPU time of the whole machine (`/proc/stat`) and of other processes (`/proc/PID/stat`), read
//! before and after a sample: where the time went besides fsbench itself (the kernel, a FUSE
//! daemon, interrupts, waiting for I/O). Both files count in clock ticks (`USER_HZ`, 100 per
//! second on Linux), so a part of a sample is known to ±1 tick (10 ms) per CPU.

use crate::cpu::{CpuTimes, ProcessCounters};

/// Machine-wide CPU time by kind, summed over all online CPUs, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineTicks {
    /// user + nice (guest time is already inside them).
    pub user: u64,
    /// system.
    pub system: u64,
    /// idle.
    pub idle: u64,
    /// iowait (idle with I/O outstanding).
    pub iowait: u64,
    /// irq + softirq.
    pub irq: u64,
    /// steal (taken by the hypervisor).
    pub steal: u64,
    /// Context switches since boot, all CPUs (`ctxt`).
    pub context_switches: u64,
    /// Online CPUs (`cpuN` lines).
    pub cpus: u32,
}

/// Parses the aggregate `cpu` line, the `cpuN` lines and `ctxt` of `/proc/stat`; `None` when the
/// `cpu` line is missing or malformed. Missing trailing columns (old kernels) count as 0.
pub fn parse_proc_stat(text: &str) -> Option<MachineTicks> {
    let mut out = None;
    let (mut cpus, mut ctxt) = (0u32, 0u64);
    for line in text.lines() {
        let mut words = line.split_ascii_whitespace();
        match words.next() {
            Some("cpu") => out = Some(cpu_line(words)?),
            Some(w) if w.starts_with("cpu") => cpus += 1,
            Some("ctxt") => ctxt = words.next().and_then(|w| w.parse().ok()).unwrap_or(0),
            _ => {}
        }
    }
    out.map(|t: MachineTicks| MachineTicks {
        context_switches: ctxt,
        cpus,
        ..t
    })
}

fn cpu_line<'a>(words: impl Iterator<Item = &'a str>) -> Option<MachineTicks> {
    let v: Vec<u64> = words.map(str::parse).collect::<Result<_, _>>().ok()?;
    if v.len() < 4 {
        return None;
    }
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(MachineTicks {
        user: at(0) + at(1),
        system: at(2),
        idle: at(3),
        iowait: at(4),
        irq: at(5) + at(6),
        steal: at(7),
        ..MachineTicks::default()
    })
}

/// utime and stime (fields 14 and 15, clock ticks) of a `/proc/PID/stat` line. The command name
/// (field 2) is in parentheses and may hold spaces and parentheses itself, so fields are counted
/// from the last `)`.
pub fn parse_pid_stat(text: &str) -> Option<(u64, u64)> {
    let (_, rest) = text.rsplit_once(')')?;
    let mut fields = rest.split_ascii_whitespace().skip(11); // field 3 is the first after ')'
    let utime = fields.next()?.parse().ok()?;
    let stime = fields.next()?.parse().ok()?;
    Some((utime, stime))
}

/// Clock ticks per second of `/proc` ([`fsbench_sys::proc::clock_ticks_per_s`]).
pub fn clock_ticks_per_s() -> u64 {
    fsbench_sys::proc::clock_ticks_per_s()
}

/// One reading of every counter a sample's CPU report needs. Take one right before the timed
/// region and one right after it; [`CpuSnapshot::since`] gives the difference.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CpuSnapshot {
    /// `/proc/stat`, when readable.
    pub machine: Option<MachineTicks>,
    /// (pid, utime, stime) of each watched process that could be read.
    pub processes: Vec<(i32, u64, u64)>,
    /// fsbench's own fault and context-switch counters (self + waited-for children).
    pub own: ProcessCounters,
    /// ns the reading thread has waited for a CPU while runnable, from its schedstat (the
    /// thread that runs a single-threaded workload); `None` when unreadable.
    pub thread_waited_ns: Option<u64>,
}

impl CpuSnapshot {
    /// Reads `/proc/stat`, `/proc/PID/stat` of each of `pids`, and fsbench's own rusage.
    /// Costs a few tens of microseconds; never fails (unreadable parts are left out).
    pub fn take(pids: &[i32]) -> Self {
        let machine = fsbench_sys::proc::machine_stat().and_then(|t| parse_proc_stat(&t));
        let processes = pids
            .iter()
            .filter_map(|&pid| {
                let t = fsbench_sys::proc::process_stat(pid)?;
                parse_pid_stat(&t).map(|(u, s)| (pid, u, s))
            })
            .collect();
        Self {
            machine,
            processes,
            own: ProcessCounters::self_and_children(),
            thread_waited_ns: fsbench_sys::proc::Schedstat::of_this_thread().map(|s| s.waited_ns),
        }
    }

    /// What happened between `earlier` and `self`, with ticks turned into ns at `ticks_per_s`.
    pub fn since(&self, earlier: &Self, ticks_per_s: u64) -> CpuDelta {
        let ns = |ticks: u64| ticks_to_ns(ticks, ticks_per_s);
        let machine = self
            .machine
            .zip(earlier.machine)
            .map(|(a, b)| machine_delta(a, b, ns));
        let both: Vec<(u64, u64)> = self
            .processes
            .iter()
            .filter_map(|&(pid, u, s)| {
                let &(_, u0, s0) = earlier.processes.iter().find(|p| p.0 == pid)?;
                Some((u.saturating_sub(u0), s.saturating_sub(s0)))
            })
            .collect();
        let processes = (!both.is_empty()).then(|| CpuTimes {
            user_ns: ns(both.iter().map(|p| p.0).sum()),
            sys_ns: ns(both.iter().map(|p| p.1).sum()),
        });
        CpuDelta {
            machine,
            processes,
            own: self.own.since(earlier.own),
            thread_wait_ns: self
                .thread_waited_ns
                .zip(earlier.thread_waited_ns)
                .map(|(a, b)| a.saturating_sub(b)),
        }
    }
}

fn ticks_to_ns(ticks: u64, ticks_per_s: u64) -> u64 {
    let per_s = u128::from(ticks_per_s.max(1));
    u64::try_from(u128::from(ticks) * 1_000_000_000 / per_s).unwrap_or(u64::MAX)
}

fn machine_delta(a: MachineTicks, b: MachineTicks, ns: impl Fn(u64) -> u64) -> MachineCpuNs {
    MachineCpuNs {
        user_ns: ns(a.user.saturating_sub(b.user)),
        sys_ns: ns(a.system.saturating_sub(b.system)),
        idle_ns: ns(a.idle.saturating_sub(b.idle)),
        iowait_ns: ns(a.iowait.saturating_sub(b.iowait)),
        irq_ns: ns(a.irq.saturating_sub(b.irq)),
        steal_ns: ns(a.steal.saturating_sub(b.steal)),
        context_switches: a.context_switches.saturating_sub(b.context_switches),
        cpus: a.cpus.max(b.cpus),
    }
}

/// Machine-wide CPU time over an interval, summed over all CPUs, ns (multiples of one tick).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MachineCpuNs {
    /// user + nice.
    pub user_ns: u64,
    /// system.
    pub sys_ns: u64,
    /// idle.
    pub idle_ns: u64,
    /// iowait.
    pub iowait_ns: u64,
    /// irq + softirq.
    pub irq_ns: u64,
    /// steal.
    pub steal_ns: u64,
    /// Context switches, all CPUs.
    pub context_switches: u64,
    /// Online CPUs.
    pub cpus: u32,
}

/// The difference of two snapshots.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuDelta {
    /// The whole machine; `None` when `/proc/stat` could not be read.
    pub machine: Option<MachineCpuNs>,
    /// The watched processes, summed; `None` when none was readable both times.
    pub processes: Option<CpuTimes>,
    /// fsbench's own counters.
    pub own: ProcessCounters,
    /// Time the reading thread waited for a CPU while runnable, ns (both readings must come from
    /// one thread); `None` when unreadable.
    pub thread_wait_ns: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  33749 7 42235 153850 1758 3 155 985 11 0\n\
        cpu0 15189 0 21418 78837 418 0 34 489 0 0\n\
        cpu1 18559 7 20817 75012 1340 3 120 495 11 0\n\
        intr 2279117 0 9 0 0 0\n\
        ctxt 1238106\n\
        btime 1700000000\n\
        processes 4242\n";

    #[test]
    fn proc_stat_aggregate_line_is_grouped() {
        let t = parse_proc_stat(STAT).unwrap();
        assert_eq!(
            t,
            MachineTicks {
                user: 33756,
                system: 42235,
                idle: 153850,
                iowait: 1758,
                irq: 158,
                steal: 985,
                context_switches: 1238106,
                cpus: 2,
            }
        );
    }

    #[test]
    fn proc_stat_short_or_broken_lines() {
        let old = parse_proc_stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n").unwrap();
        assert_eq!((old.user, old.idle, old.iowait, old.cpus), (3, 4, 0, 1));
        assert_eq!(parse_proc_stat("cpu 1 2\n"), None);
        assert_eq!(parse_proc_stat("cpu 1 x 3 4\n"), None);
        assert_eq!(parse_proc_stat("intr 5\nctxt 9\n"), None);
        assert_eq!(parse_proc_stat(""), None);
    }

    #[test]
    fn pid_stat_with_a_hostile_command_name() {
        let line = "7732 (my (evil) fs ) 1 2) S 1 7732 7732 0 -1 4194624 1520 0 0 0 \
            417 2931 0 0 20 0 3 0 12345 10000000 500 18446744073709551615\n";
        assert_eq!(parse_pid_stat(line), Some((417, 2931)));
        assert_eq!(parse_pid_stat("12 (bindfs) S 1 2 3"), None);
        assert_eq!(parse_pid_stat("no parenthesis at all"), None);
        assert_eq!(parse_pid_stat(""), None);
    }

    fn snap(user: u64, sys: u64, procs: Vec<(i32, u64, u64)>) -> CpuSnapshot {
        CpuSnapshot {
            machine: Some(MachineTicks {
                user,
                system: sys,
                idle: 100,
                cpus: 2,
                ..MachineTicks::default()
            }),
            processes: procs,
            own: ProcessCounters::default(),
            thread_waited_ns: None,
        }
    }

    #[test]
    fn this_thread_can_read_its_wait_for_a_cpu() {
        let a = CpuSnapshot::take(&[]);
        let mut b = a.clone();
        assert!(a.thread_waited_ns.is_some(), "schedstat unreadable here");
        b.thread_waited_ns = a.thread_waited_ns.map(|ns| ns + 5);
        assert_eq!(b.since(&a, 100).thread_wait_ns, Some(5));
        b.thread_waited_ns = None;
        assert_eq!(
            b.since(&a, 100).thread_wait_ns,
            None,
            "unread at either end"
        );
    }

    #[test]
    fn deltas_in_ns_and_only_over_pids_seen_twice() {
        let a = snap(10, 20, vec![(1, 5, 5), (2, 100, 100)]);
        let b = snap(13, 27, vec![(1, 6, 9), (3, 50, 50)]);
        let d = b.since(&a, 100);
        let m = d.machine.unwrap();
        assert_eq!(
            (m.user_ns, m.sys_ns, m.idle_ns),
            (30_000_000, 70_000_000, 0)
        );
        assert_eq!(
            d.processes,
            Some(CpuTimes {
                user_ns: 10_000_000,
                sys_ns: 40_000_000
            })
        );
        let gone = snap(13, 27, vec![(3, 50, 50)]).since(&a, 100);
        assert_eq!(gone.processes, None, "no pid read both times");
        let unreadable = CpuSnapshot::default().since(&a, 100);
        assert_eq!(unreadable.machine, None);
    }

    #[test]
    fn ticks_convert_at_any_rate() {
        assert_eq!(ticks_to_ns(3, 100), 30_000_000);
        assert_eq!(ticks_to_ns(1, 1000), 1_000_000);
        assert_eq!(
            ticks_to_ns(5, 0),
            5_000_000_000,
            "a zero rate is taken as 1/s"
        );
    }
}
