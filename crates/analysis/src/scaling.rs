//! Scaling of a workload swept over its worker count J: speedup, parallel efficiency, and sys
//! time per entry against J, read into a plain verdict: it scales, it saturates at some J, sys
//! time per unit of work grows with J — the signature of a contended kernel lock (the APFS
//! readdir study) — or a FUSE daemon sits at about one CPU while the speedup stalls: the daemon
//! serialises the requests (single-threaded, or a lock in user space).
//!
//! The growth of sys time per unit is judged from fsbench's own sys time, never the machine's:
//! machine-wide counters include every other process on the host, so they only colour the
//! explanation (the share of the machine spent in the kernel, as in the study's "~75%").

/// One point of a sweep: J workers did `work` units (entries) in `wall_ns`, using `sys_ns` of
/// kernel time (summed over workers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// Workers.
    pub workers: u32,
    /// Units of work done (entries walked).
    pub work: f64,
    /// Wall time, ns.
    pub wall_ns: f64,
    /// User CPU, ns.
    pub user_ns: f64,
    /// System CPU, ns.
    pub sys_ns: f64,
    /// The machine's kernel time in percent of its CPU capacity (wall × CPUs), when measured.
    pub machine_sys_pct: Option<f64>,
    /// The FUSE daemon's CPU (user + sys) in percent of one CPU, when there is a daemon.
    pub daemon_cpu_pct: Option<f64>,
}

/// Derived figures of one point against the smallest J.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// Workers.
    pub workers: u32,
    /// Work per second.
    pub rate: f64,
    /// rate / rate at the smallest J.
    pub speedup: f64,
    /// speedup / ideal speedup (ideal is limited by the CPUs).
    pub efficiency: f64,
    /// Kernel time per unit of work, ns.
    pub sys_per_unit_ns: f64,
    /// The machine's kernel time in percent of its CPU capacity, when measured.
    pub machine_sys_pct: Option<f64>,
    /// The FUSE daemon's CPU in percent of one CPU, when there is a daemon.
    pub daemon_cpu_pct: Option<f64>,
}

/// A daemon at or above this share of one CPU is taken as busy (percent).
pub const DAEMON_BUSY_PCT: f64 = 85.0;
/// Parallel efficiency above which the speedup is not CPU scaling but overlapped waiting.
pub const SUPERLINEAR: f64 = 1.5;
/// A daemon above this share of one CPU runs on several CPUs: not one serial bottleneck (percent).
pub const DAEMON_ONE_CPU_MAX_PCT: f64 = 150.0;

/// What the sweep shows.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Efficiency stays high up to the largest J.
    Scales {
        /// Largest J.
        workers: u32,
        /// Its speedup.
        speedup: f64,
        /// Its efficiency.
        efficiency: f64,
    },
    /// Throughput stops growing from this J on, without sys time per unit exploding.
    Saturates {
        /// First J past which adding workers gains under 10%.
        at: u32,
        /// Best speedup reached.
        speedup: f64,
        /// The machine's kernel share at the largest J, percent, when measured.
        machine_sys_pct: Option<f64>,
    },
    /// Sys time per unit grows with J while efficiency falls: a kernel lock is likely contended.
    LockContention {
        /// Factor by which sys time per unit grew from the smallest to the largest J.
        sys_growth: f64,
        /// Largest J.
        workers: u32,
        /// Efficiency at the largest J.
        efficiency: f64,
        /// The machine's kernel share at the largest J, percent, when measured.
        machine_sys_pct: Option<f64>,
    },
    /// Far more than linear speedup: one worker left the CPUs idle (waiting on the device or on a
    /// daemon's round trips) and more workers overlap the waits; not CPU scaling.
    LatencyBound {
        /// Largest J.
        workers: u32,
        /// Its speedup.
        speedup: f64,
        /// Its efficiency (above [`SUPERLINEAR`]).
        efficiency: f64,
    },
    /// A FUSE daemon uses about one CPU while the speedup stalls: the daemon serialises the
    /// requests (single-threaded, or a lock in user space), not the kernel.
    DaemonBound {
        /// The daemon's CPU at the largest J, percent of one CPU.
        daemon_cpu_pct: f64,
        /// Largest J.
        workers: u32,
        /// Its speedup.
        speedup: f64,
        /// Its efficiency.
        efficiency: f64,
    },
}

/// `; the machine spent N% of its CPU capacity in the kernel`, or nothing.
fn machine_note(machine_sys_pct: Option<f64>) -> String {
    machine_sys_pct
        .map(|p| format!("; the machine spent {p:.0}% of its CPU capacity in the kernel"))
        .unwrap_or_default()
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Scales {
                workers,
                speedup,
                efficiency,
            } => write!(
                f,
                "{speedup:.2}x at J={workers} ({:.0}% parallel efficiency)",
                efficiency * 100.0
            ),
            Self::Saturates {
                at,
                speedup,
                machine_sys_pct,
            } => write!(
                f,
                "at J={at} (best speedup {speedup:.2}x); more workers do not help{}",
                machine_note(*machine_sys_pct)
            ),
            Self::LockContention {
                sys_growth,
                workers,
                efficiency,
                machine_sys_pct,
            } => write!(
                f,
                "sys time per entry grows {sys_growth:.1}x by J={workers} while efficiency falls to {:.0}% — kernel lock contention likely{}",
                efficiency * 100.0,
                machine_note(*machine_sys_pct)
            ),
            Self::LatencyBound {
                workers,
                speedup,
                efficiency,
            } => write!(
                f,
                "{speedup:.2}x at J={workers} ({:.0}% parallel efficiency, far above linear) — one worker waits (on the device, or on a daemon's round trips) and leaves the CPUs idle; more workers overlap the waits, so this is not CPU scaling",
                efficiency * 100.0
            ),
            Self::DaemonBound {
                daemon_cpu_pct,
                workers,
                speedup,
                efficiency,
            } => write!(
                f,
                "the FUSE daemon is busy {daemon_cpu_pct:.0}% of one CPU at J={workers} while speedup stalls at {speedup:.2}x ({:.0}% efficiency) — the daemon serialises the requests (single-threaded, or a lock in user space), not the kernel",
                efficiency * 100.0
            ),
        }
    }
}

/// Rows and verdict of a sweep on a machine with `cpus` CPUs; `None` with fewer than two
/// distinct J or no work done.
pub fn analyse(points: &[Point], cpus: u32) -> Option<(Vec<Row>, Verdict)> {
    let mut pts: Vec<Point> = points
        .iter()
        .copied()
        .filter(|p| p.wall_ns > 0.0 && p.work > 0.0)
        .collect();
    pts.sort_by_key(|p| p.workers);
    pts.dedup_by_key(|p| p.workers);
    if pts.len() < 2 {
        return None;
    }
    let base = pts[0];
    let base_rate = base.work / base.wall_ns * 1e9;
    let cap = |j: u32| f64::from(j.min(cpus.max(1)).max(1));
    let rows: Vec<Row> = pts
        .iter()
        .map(|p| {
            let rate = p.work / p.wall_ns * 1e9;
            let speedup = rate / base_rate;
            Row {
                workers: p.workers,
                rate,
                speedup,
                efficiency: speedup / (cap(p.workers) / cap(base.workers)),
                sys_per_unit_ns: p.sys_ns / p.work,
                machine_sys_pct: p.machine_sys_pct,
                daemon_cpu_pct: p.daemon_cpu_pct,
            }
        })
        .collect();
    Some((rows.clone(), verdict(&rows)))
}

fn verdict(rows: &[Row]) -> Verdict {
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    let sys_growth = if first.sys_per_unit_ns > 0.0 {
        last.sys_per_unit_ns / first.sys_per_unit_ns
    } else {
        1.0
    };
    if last.efficiency > SUPERLINEAR {
        return Verdict::LatencyBound {
            workers: last.workers,
            speedup: last.speedup,
            efficiency: last.efficiency,
        };
    }
    if last.efficiency >= 0.75 {
        return Verdict::Scales {
            workers: last.workers,
            speedup: last.speedup,
            efficiency: last.efficiency,
        };
    }
    if let Some(d) = daemon_bound(last) {
        return d;
    }
    if sys_growth >= 2.0 {
        return Verdict::LockContention {
            sys_growth,
            workers: last.workers,
            efficiency: last.efficiency,
            machine_sys_pct: last.machine_sys_pct,
        };
    }
    let at = rows
        .windows(2)
        .find(|w| w[1].rate < w[0].rate * 1.1)
        .map(|w| w[0].workers)
        .unwrap_or(last.workers);
    let best = rows.iter().map(|r| r.speedup).fold(f64::MIN, f64::max);
    Verdict::Saturates {
        at,
        speedup: best,
        machine_sys_pct: last.machine_sys_pct,
    }
}

/// `DaemonBound` when the daemon is busy on about one CPU at the largest J (called once
/// efficiency has already fallen below the scaling threshold).
fn daemon_bound(last: Row) -> Option<Verdict> {
    let d = last.daemon_cpu_pct?;
    (DAEMON_BUSY_PCT..=DAEMON_ONE_CPU_MAX_PCT)
        .contains(&d)
        .then_some(Verdict::DaemonBound {
            daemon_cpu_pct: d,
            workers: last.workers,
            speedup: last.speedup,
            efficiency: last.efficiency,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRIES: f64 = 250_000.0;

    fn p(workers: u32, walks: f64, real_s: f64, user_s: f64, sys_s: f64) -> Point {
        Point {
            workers,
            work: walks * ENTRIES,
            wall_ns: real_s * 1e9,
            user_ns: user_s * 1e9,
            sys_ns: sys_s * 1e9,
            machine_sys_pct: None,
            daemon_cpu_pct: None,
        }
    }

    /// bindfs (single-threaded FUSE) on this 2-vCPU VM, 28,000-file tree, 8 walks, warm: one
    /// walker waits on every request's round trip, so J=4 and J=8 overlap the waits (real
    /// seconds from `fsbench run --suite readdir-locks --lab ext4,bindfs --scale 0.1`).
    #[test]
    fn superlinear_speedup_reads_as_latency_bound_not_scaling() {
        let e = 31_000.0 / ENTRIES;
        let pts = [
            p(1, 8.0 * e, 19.408, 0.406, 6.551),
            p(2, 8.0 * e, 8.049, 0.111, 3.654),
            p(4, 8.0 * e, 1.908, 0.073, 1.241),
            p(8, 8.0 * e, 1.621, 0.092, 1.374),
        ];
        let (rows, v) = analyse(&pts, 2).unwrap();
        assert!(rows[3].efficiency > SUPERLINEAR, "{}", rows[3].efficiency);
        assert!(matches!(v, Verdict::LatencyBound { workers: 8, .. }), "{v}");
        assert!(v.to_string().contains("not CPU scaling"));
    }

    /// The seed's macOS 10.13 figures (12-thread MacBook Pro): time ./slow-readdir.py.
    #[test]
    fn macos_10_13_reads_as_lock_contention() {
        let pts = [
            p(1, 12.0, 523.740, 73.397, 230.687),
            p(12, 12.0, 172.470, 114.053, 1422.808),
            p(18, 18.0, 210.731, 160.216, 2014.406),
        ];
        let (rows, v) = analyse(&pts, 12).unwrap();
        assert!(matches!(v, Verdict::LockContention { .. }), "{v}");
        assert!(rows[1].efficiency < 0.3);
        assert!(v.to_string().contains("kernel lock contention likely"));
    }

    /// The seed's macOS 10.14 figures: better, still contended.
    #[test]
    fn macos_10_14_reads_as_lock_contention() {
        let pts = [
            p(1, 12.0, 461.657, 65.830, 227.041),
            p(12, 12.0, 97.981, 100.272, 649.091),
            p(18, 18.0, 140.727, 181.048, 1076.228),
        ];
        let (_, v) = analyse(&pts, 12).unwrap();
        assert!(
            matches!(v, Verdict::LockContention { sys_growth, .. } if sys_growth > 2.5),
            "{v}"
        );
    }

    /// Measured here: walk of /usr (132k entries) on ext4, 2 CPUs, warm, J=1 and J=2.
    #[test]
    fn ext4_here_reads_as_scaling() {
        let pts = [
            Point {
                workers: 1,
                work: 132_300.0,
                wall_ns: 356.68e6,
                user_ns: 57.82e6,
                sys_ns: 298.77e6,
                machine_sys_pct: None,
                daemon_cpu_pct: None,
            },
            Point {
                workers: 2,
                work: 264_600.0,
                wall_ns: 377.73e6,
                user_ns: 112.52e6,
                sys_ns: 639.08e6,
                machine_sys_pct: None,
                daemon_cpu_pct: None,
            },
        ];
        let (rows, v) = analyse(&pts, 2).unwrap();
        assert!(matches!(v, Verdict::Scales { .. }), "{v}");
        assert!(rows[1].speedup > 1.8);
    }

    #[test]
    fn flat_rate_without_sys_growth_saturates() {
        let pts = [
            Point {
                workers: 1,
                work: 100.0,
                wall_ns: 1e9,
                user_ns: 1e8,
                sys_ns: 1e8,
                machine_sys_pct: None,
                daemon_cpu_pct: None,
            },
            Point {
                workers: 2,
                work: 200.0,
                wall_ns: 1.2e9,
                user_ns: 2e8,
                sys_ns: 2e8,
                machine_sys_pct: None,
                daemon_cpu_pct: None,
            },
            Point {
                workers: 4,
                work: 400.0,
                wall_ns: 2.3e9,
                user_ns: 4e8,
                sys_ns: 4e8,
                machine_sys_pct: None,
                daemon_cpu_pct: None,
            },
        ];
        let (_, v) = analyse(&pts, 8).unwrap();
        assert_eq!(
            v,
            Verdict::Saturates {
                at: 2,
                speedup: 400.0 / 2.3 / 100.0,
                machine_sys_pct: None,
            }
        );
    }

    /// A walk of a bindfs mount: J=1 and J=2 on 2 CPUs, the daemon's CPU per J.
    fn fuse(daemon_pct: [f64; 2], wall_s: [f64; 2], sys_s: [f64; 2]) -> [Point; 2] {
        let pt = |i: usize, workers: u32| Point {
            workers,
            work: 10_000.0 * f64::from(workers),
            wall_ns: wall_s[i] * 1e9,
            user_ns: 0.05e9 * f64::from(workers),
            sys_ns: sys_s[i] * 1e9,
            machine_sys_pct: Some(60.0),
            daemon_cpu_pct: Some(daemon_pct[i]),
        };
        [pt(0, 1), pt(1, 2)]
    }

    #[test]
    fn a_daemon_on_one_cpu_while_speedup_stalls_is_named() {
        let (rows, v) = analyse(&fuse([80.0, 99.0], [1.0, 1.9], [0.3, 0.6]), 2).unwrap();
        assert_eq!(rows[1].daemon_cpu_pct, Some(99.0));
        assert!(matches!(v, Verdict::DaemonBound { workers: 2, .. }), "{v}");
        let text = v.to_string();
        assert!(
            text.contains("FUSE daemon is busy 99% of one CPU at J=2"),
            "{text}"
        );
        assert!(text.contains("lock in user space"), "{text}");
    }

    #[test]
    fn the_daemon_verdict_wins_over_sys_growth_but_not_over_scaling() {
        // fsbench's sys per entry triples too: the daemon is still the serial part.
        let (_, v) = analyse(&fuse([90.0, 97.0], [1.0, 1.9], [0.2, 1.2]), 2).unwrap();
        assert!(matches!(v, Verdict::DaemonBound { .. }), "{v}");
        // A busy daemon that still lets the walk scale is not a bottleneck.
        let (_, v) = analyse(&fuse([50.0, 95.0], [1.0, 1.05], [0.3, 0.6]), 2).unwrap();
        assert!(matches!(v, Verdict::Scales { .. }), "{v}");
    }

    #[test]
    fn an_idle_or_multi_cpu_daemon_leaves_the_kernel_verdicts() {
        let (_, v) = analyse(&fuse([20.0, 30.0], [1.0, 1.9], [0.2, 1.2]), 2).unwrap();
        assert!(
            matches!(v, Verdict::LockContention { machine_sys_pct: Some(p), .. } if p == 60.0),
            "{v}"
        );
        assert!(
            v.to_string()
                .ends_with("60% of its CPU capacity in the kernel"),
            "{v}"
        );
        let (_, v) = analyse(&fuse([100.0, 190.0], [1.0, 1.9], [0.3, 0.6]), 2).unwrap();
        assert!(matches!(v, Verdict::Saturates { at: 1, .. }), "{v}");
        assert!(v.to_string().contains("machine spent 60%"), "{v}");
    }

    /// The seed's "~75% of overall CPU time inside the kernel", said beside its verdict.
    #[test]
    fn machine_sys_share_is_said_beside_the_seed_verdict() {
        let mut pts = [
            p(1, 12.0, 523.740, 73.397, 230.687),
            p(12, 12.0, 172.470, 114.053, 1422.808),
        ];
        pts[1].machine_sys_pct = Some(75.0);
        let (rows, v) = analyse(&pts, 12).unwrap();
        assert_eq!(rows[1].machine_sys_pct, Some(75.0));
        let text = v.to_string();
        assert!(text.contains("kernel lock contention likely"), "{text}");
        assert!(text.ends_with("the machine spent 75% of its CPU capacity in the kernel"));
    }

    #[test]
    fn degenerate_sweeps_have_no_verdict() {
        assert!(analyse(&[], 2).is_none());
        let one = Point {
            workers: 1,
            work: 1.0,
            wall_ns: 1.0,
            user_ns: 0.0,
            sys_ns: 0.0,
            machine_sys_pct: None,
            daemon_cpu_pct: None,
        };
        assert!(analyse(&[one, one], 2).is_none());
    }
}
