//! What bounded each cell: one verdict (`device`, `cache`, `cpu`, `crypto`, `daemon`, `lock`,
//! `latency`, `network`, `harness`, `unknown`) with the measurements behind it, judged from
//! what the samples recorded (the device counters, fsbench's and the machine's CPU, a FUSE
//! daemon's CPU, the scaling verdict of a worker sweep) and what the environment says (the
//! encryption layers and their kernel implementation, FUSE, network filesystems). The rules are
//! ordered; the first that holds wins. `docs/methodology.md` explains each.

use fsbench_model::metric as k;
use fsbench_model::{Bound, BoundBy, CacheState, ResultEntry, ScalingVerdict, TargetInfo};

/// A device with I/O in flight this share of the time is the limit.
pub const DEVICE_BUSY_PCT: f64 = 85.0;
/// A device that served under this share of the bytes read left the work to a cache.
pub const CACHE_SERVED_PCT: f64 = 5.0;
/// A FUSE daemon using this share of one CPU is the limit.
pub const DAEMON_CPU_PCT: f64 = 70.0;
/// fsbench's own thread at this share of one CPU is the limit (the rest of its time it waited,
/// on no single thing that reached its own threshold).
pub const CPU_PCT: f64 = 60.0;
/// Encryption dominates when the CPU spent on the sample reaches this share of one CPU while
/// the device is not the limit.
pub const CRYPTO_CPU_PCT: f64 = 60.0;
/// fsbench's own recording cost over this share of the sample's time is the limit.
pub const HARNESS_PCT: f64 = 20.0;

/// Everything the classifier reads about one cell.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// The cell.
    pub entry: &'a ResultEntry,
    /// Its target's environment, when known.
    pub target: Option<&'a TargetInfo>,
    /// CPUs of the machine.
    pub cpus: u32,
    /// fsbench's recording cost per operation, ns (the run's overhead measurement).
    pub overhead_per_op_ns: f64,
    /// The scaling verdict of the worker sweep this cell belongs to.
    pub scaling: Option<ScalingVerdict>,
    /// Why the result is above what its device can do (from [`crate::plausible`]), if it is.
    pub implausible: Option<&'a str>,
}

fn mean(e: &ResultEntry, name: &str) -> Option<f64> {
    e.summary.get(name).map(|s| s.mean)
}

/// The kernel encryption layers of `t` (fscrypt, dm-crypt; not a FUSE daemon's own) with the
/// implementation named when known.
fn kernel_crypto(t: &TargetInfo) -> Option<String> {
    let layers: Vec<String> = t
        .stack
        .encryption
        .iter()
        .filter(|l| l.kind.in_kernel())
        .map(|l| match &l.implementation {
            Some(i) => format!("{} with {}", l.kind, i.describe()),
            None => l.kind.to_string(),
        })
        .collect();
    (!layers.is_empty()).then(|| layers.join(", "))
}

fn is_network(t: &TargetInfo) -> bool {
    fsbench_model::fstype::is_network(&t.fs_type)
}

fn is_memory(t: &TargetInfo) -> bool {
    fsbench_model::fstype::is_memory(&t.fs_type)
}

/// The busiest device of the chain under the target (a loop device can be busy while the disk
/// below it is not), in percent of wall time, averaged over the samples; `None` without device
/// counters.
pub(crate) fn chain_busy(e: &ResultEntry) -> Option<f64> {
    let per: Vec<f64> = e
        .samples
        .iter()
        .filter(|s| s.wall_ns > 0 && !s.devices.is_empty())
        .map(|s| {
            let ticks = s.devices.iter().map(|d| d.io_ticks_ms).max().unwrap_or(0);
            (ticks as f64 * 1e6 / s.wall_ns as f64 * 100.0).min(100.0)
        })
        .collect();
    (!per.is_empty()).then(|| per.iter().sum::<f64>() / per.len() as f64)
}

/// The device is the limit when it was busy this much while fsbench waited on it.
pub const DEVICE_WAITED_BUSY_PCT: f64 = 50.0;
/// A round trip is the limit (not the device) when the busiest device is under this.
pub const IDLE_DEVICE_PCT: f64 = 30.0;

/// What the rules read, computed once per cell.
struct Seen<'a> {
    f: &'a Facts<'a>,
    busy: Option<f64>,
    served: Option<f64>,
    own_cpu: Option<f64>,
    daemon: Option<f64>,
    /// The machine's user + sys + irq time, in percent of one CPU.
    machine_busy: Option<f64>,
    fuse: Option<&'a fsbench_model::FuseInfo>,
}

impl Seen<'_> {
    fn m(&self, name: &str) -> Option<f64> {
        mean(self.f.entry, name)
    }
}

type Rule = fn(&Seen<'_>) -> Option<Bound>;

/// The rules in order: the first that holds is the verdict.
const RULES: &[Rule] = &[
    schedule,
    served,
    daemon_cpu,
    sweep_verdict,
    memory,
    network,
    implausible,
    crypto,
    cache,
    device,
    cpu,
    round_trips,
    harness,
    machine_cpu,
];

fn pct(v: Option<f64>) -> String {
    v.map_or("?".to_string(), |v| format!("{v:.0}%"))
}

fn say(by: BoundBy, evidence: String) -> Option<Bound> {
    Some(Bound { by, evidence })
}

/// The bound of one cell; `None` for a cell without samples.
pub fn classify(f: &Facts<'_>) -> Option<Bound> {
    let e = f.entry;
    if e.samples.is_empty() {
        return None;
    }
    let m = |n: &str| mean(e, n);
    let machine_busy = match (
        m(k::MACHINE_USER_PCT),
        m(k::MACHINE_SYS_PCT),
        m(k::MACHINE_IRQ_PCT),
    ) {
        (Some(u), Some(s), irq) => Some((u + s + irq.unwrap_or(0.0)) * f64::from(f.cpus.max(1))),
        _ => None,
    };
    let seen = Seen {
        f,
        busy: chain_busy(e),
        served: m(k::SERVED_BY_DEVICE_PCT),
        own_cpu: m(k::CPU_PCT),
        daemon: m(k::DAEMON_CPU_PCT),
        machine_busy,
        fuse: f.target.and_then(|t| t.stack.fuse.as_ref()),
    };
    let ev = crate::bound_checks::Evidence::of(e, f.target);
    let ctx = crate::bound_profile::Context {
        encrypted: ev.encrypted,
        workers: parallel(e),
    };
    crate::bound_checks::settle(&ev, |aside| {
        let judged = RULES
            .iter()
            .filter_map(|rule| rule(&seen))
            .find(|b| !aside.contains(&b.by))
            .or_else(|| unknown(&seen));
        match crate::bound_profile::refine(judged.clone(), e.profile.as_ref(), ctx) {
            Some(r) if aside.contains(&r.by) => judged,
            r => r,
        }
    })
}

/// Share of the asked rate a paced cell must reach for its schedule to be what set its pace.
const RATE_HELD_PCT: f64 = 95.0;

/// A paced cell that kept its schedule (or paused between requests) ran as slowly as it was
/// told: its IOPS are the schedule's, and its latency is the finding.
fn schedule(s: &Seen<'_>) -> Option<Bound> {
    let lat = |n: &str| s.m(n).map_or("?".into(), |v| format!("{:.1} µs", v / 1e3));
    if let Some(think) = s.m(k::THINK_NS) {
        return say(
            BoundBy::Rate,
            format!(
                "closed loop with {:.1} ms of think time after each request: the pauses set the pace; latency p99 {}",
                think / 1e6,
                lat(k::LAT_P99_NS)
            ),
        );
    }
    let (asked, achieved) = (s.m(k::RATE_IOPS)?, s.m(k::RATE_ACHIEVED_PCT)?);
    if achieved < RATE_HELD_PCT {
        return None;
    }
    say(
        BoundBy::Rate,
        format!(
            "open loop at the asked {asked:.0} requests/s (achieved {achieved:.0}%): the schedule set the pace — latency p99 {} from each request's scheduled start, service p99 {}",
            lat(k::LAT_P99_NS),
            lat(k::SERVICE_P99_NS)
        ),
    )
}

/// A target served from simulated hosts: `server` or `network` ([`crate::bound_server`]).
fn served(s: &Seen<'_>) -> Option<Bound> {
    crate::bound_server::judge(s.f.entry, s.own_cpu, s.daemon)
}

fn daemon_cpu(s: &Seen<'_>) -> Option<Bound> {
    let (d, fu) = (s.daemon?, s.fuse?);
    (d >= DAEMON_CPU_PCT).then_some(())?;
    say(
        BoundBy::Daemon,
        format!(
            "the {} daemon used {d:.0}% of a CPU (fsbench {}, device busy {})",
            fu.subtype,
            pct(s.own_cpu),
            pct(s.busy)
        ),
    )
}

fn sweep_verdict(s: &Seen<'_>) -> Option<Bound> {
    let v = s.f.scaling?;
    let by = match v {
        ScalingVerdict::LockContention => BoundBy::Lock,
        ScalingVerdict::DaemonBound => BoundBy::Daemon,
        ScalingVerdict::LatencyBound => BoundBy::Latency,
        _ => return None,
    };
    let sys = s
        .m(k::SYS_NS_PER_ENTRY)
        .map_or(String::new(), |v| format!(", sys {v:.0} ns per entry"));
    say(
        by,
        format!("the worker sweep's scaling verdict is {}{sys}", v.name()),
    )
}

fn memory(s: &Seen<'_>) -> Option<Bound> {
    let t = s.f.target.filter(|t| is_memory(t))?;
    say(
        BoundBy::Cache,
        format!(
            "{} keeps everything in memory: no device is under it",
            t.fs_type
        ),
    )
}

fn network(s: &Seen<'_>) -> Option<Bound> {
    let t = s.f.target.filter(|t| is_network(t))?;
    let rx = s
        .m(k::NETWORK_RX_BYTES)
        .map_or(String::new(), |b| format!(", {b:.0} bytes received"));
    say(
        BoundBy::Network,
        format!(
            "{} is a network filesystem: each uncached operation is a round trip{rx}",
            t.fs_type
        ),
    )
}

fn implausible(s: &Seen<'_>) -> Option<Bound> {
    say(BoundBy::Cache, s.f.implausible?.to_string())
}

fn crypto(s: &Seen<'_>) -> Option<Bound> {
    let layers = s.f.target.and_then(kernel_crypto)?;
    let c = s
        .own_cpu
        .into_iter()
        .chain(s.machine_busy)
        .reduce(f64::max)?;
    // io_ticks counts any time with a request in flight: encryption that trickles requests out
    // keeps a device "busy" that is far from its capacity, so heavy CPU wins over it.
    let device_first = s.busy.is_some_and(|b| b >= DEVICE_BUSY_PCT) && c < 90.0;
    let cached = s.served.is_some_and(|v| v < CACHE_SERVED_PCT);
    (c >= CRYPTO_CPU_PCT && !device_first && !cached).then_some(())?;
    say(
        BoundBy::Crypto,
        format!(
            "{layers}; {c:.0}% of a CPU spent while the device was busy {}",
            pct(s.busy)
        ),
    )
}

fn cache(s: &Seen<'_>) -> Option<Bound> {
    let v = s.served.filter(|&v| v < CACHE_SERVED_PCT)?;
    say(
        BoundBy::Cache,
        format!(
            "the device served {v:.1}% of the bytes read (busy {})",
            pct(s.busy)
        ),
    )
}

fn device(s: &Seen<'_>) -> Option<Bound> {
    let waited = s.own_cpu.is_some_and(|c| c < 50.0) && s.served.is_none_or(|v| v >= 50.0);
    let b = s
        .busy
        .filter(|&b| b >= DEVICE_BUSY_PCT || (waited && b >= DEVICE_WAITED_BUSY_PCT))?;
    let extra =
        device_rate(s.f.entry).map_or(String::new(), |mib| format!(" (it moved {mib:.1} MiB/s)"));
    let from = s.served.map_or(String::new(), served_words);
    say(
        BoundBy::Device,
        format!(
            "the device had I/O in flight {b:.0}% of the time{extra}; fsbench used {} of a CPU{from}",
            pct(s.own_cpu)
        ),
    )
}

/// What the device moved (read + written), MiB/s of wall time over the cell's samples; `None`
/// without device counters.
fn device_rate(e: &ResultEntry) -> Option<f64> {
    let (mut bytes, mut wall) = (0.0, 0.0);
    for x in e.samples.iter().filter(|x| !x.devices.is_empty()) {
        bytes += mean_of(x, k::DEVICE_READ_BYTES) + mean_of(x, k::DEVICE_WRITE_BYTES);
        wall += x.wall_ns as f64;
    }
    (wall > 0.0).then(|| bytes / wall * 1e9 / (1024.0 * 1024.0))
}

fn mean_of(x: &fsbench_model::Sample, name: &str) -> f64 {
    x.metrics.get(name).copied().unwrap_or(0.0)
}

/// The share of the workload's reads that the device served, in words: over 100% is the device
/// reading more than was asked for (read-ahead, or whole blocks for small reads).
fn served_words(v: f64) -> String {
    if v > 110.0 {
        format!(
            ", the device read {:.1}x the bytes the workload read (read-ahead or whole blocks for small reads)",
            v / 100.0
        )
    } else {
        format!(", the device served {:.0}% of the bytes read", v.min(100.0))
    }
}

/// fsbench's own threads or processes working at once (`workers=`, `jobs=`), at least 1.
fn parallel(e: &ResultEntry) -> u32 {
    [fsbench_model::param::WORKERS, fsbench_model::param::JOBS]
        .iter()
        .filter_map(|p| e.params.get(*p).and_then(|v| v.parse::<u32>().ok()))
        .max()
        .unwrap_or(1)
        .max(1)
}

fn cpu(s: &Seen<'_>) -> Option<Bound> {
    // The CPUs fsbench's workers can use at once: one per worker, at most the machine's.
    let n = parallel(s.f.entry).min(s.f.cpus.max(1));
    let capacity = f64::from(n) * 100.0;
    let c = s.own_cpu.filter(|&c| c >= CPU_PCT / 100.0 * capacity)?;
    let (u, sys) = (
        s.m(k::USER_NS).unwrap_or(0.0),
        s.m(k::SYS_NS).unwrap_or(0.0),
    );
    let side = if sys >= u { "system" } else { "user" };
    let who = match n {
        1 => format!("fsbench's thread used {c:.0}% of a CPU"),
        n => format!(
            "fsbench's {n} busy workers used {c:.0}% of a CPU of the {capacity:.0}% they can use"
        ),
    };
    say(
        BoundBy::Cpu,
        format!("{who}, mostly {side} time (device busy {})", pct(s.busy)),
    )
}

/// The whole machine's CPUs busy this share of the time (user, system, interrupts) is the
/// limit, whoever used them.
pub const MACHINE_BUSY_PCT: f64 = 85.0;

/// The machine's CPUs saturated though fsbench's own share was not: other processes (or the
/// kernel's own threads, a FUSE daemon below its threshold) took the rest.
fn machine_cpu(s: &Seen<'_>) -> Option<Bound> {
    let cpus = f64::from(s.f.cpus.max(1));
    let busy = s.machine_busy? / cpus;
    (busy >= MACHINE_BUSY_PCT).then_some(())?;
    say(
        BoundBy::Cpu,
        format!(
            "{} were busy, fsbench's share {} of a CPU: the CPUs were the limit, partly taken by other processes (device busy {})",
            crate::load::cpus_busy(busy, s.f.cpus),
            pct(s.own_cpu),
            pct(s.busy)
        ),
    )
}

/// A FUSE daemon busy this share of one CPU while the device idles is serving round trips.
pub const DAEMON_TRIPS_PCT: f64 = 30.0;

fn round_trips(s: &Seen<'_>) -> Option<Bound> {
    let e = s.f.entry;
    let b = s.busy.filter(|&b| b < IDLE_DEVICE_PCT)?;
    // Through FUSE every request the kernel does not answer itself is a round trip to the
    // daemon, cached or not, at any parallelism.
    if let (Some(fu), Some(d)) = (s.fuse, s.daemon.filter(|&d| d >= DAEMON_TRIPS_PCT)) {
        return say(
            BoundBy::Daemon,
            format!(
                "round trips to the {} daemon: the daemon at {d:.0}% of a CPU and the device mostly idle (busy {b:.0}%)",
                fu.subtype
            ),
        );
    }
    let qd1 = e
        .params
        .get(fsbench_model::param::IODEPTH)
        .is_none_or(|d| d == "1")
        && parallel(e) == 1;
    let waiting = e.cache.state == CacheState::Cold || s.served.is_some_and(|v| v >= 50.0);
    (qd1 && waiting).then_some(())?;
    let lat = s.m(k::LAT_P50_NS).map_or(String::new(), |l| {
        format!(", median {:.0} µs per operation", l / 1000.0)
    });
    if let Some(fu) = s.fuse {
        return say(
            BoundBy::Daemon,
            format!(
                "round trips to the {} daemon: one request at a time, the daemon at {} of a CPU and the device mostly idle (busy {b:.0}%){lat}",
                fu.subtype,
                pct(s.daemon)
            ),
        );
    }
    say(
        BoundBy::Latency,
        format!("one request at a time with the device mostly idle (busy {b:.0}%){lat}"),
    )
}

fn harness(s: &Seen<'_>) -> Option<Bound> {
    let e = s.f.entry;
    let n = e.samples.len() as f64;
    let ops = e.samples.iter().map(|x| x.ops as f64).sum::<f64>() / n;
    let wall = e.samples.iter().map(|x| x.wall_ns as f64).sum::<f64>() / n;
    (wall > 0.0 && s.f.overhead_per_op_ns > 0.0).then_some(())?;
    let share = ops * s.f.overhead_per_op_ns / wall * 100.0;
    (share >= HARNESS_PCT).then_some(())?;
    say(
        BoundBy::Harness,
        format!("recording {ops:.0} operations cost about {share:.0}% of the sample's time"),
    )
}

fn unknown(s: &Seen<'_>) -> Option<Bound> {
    let mut missing = Vec::new();
    if s.busy.is_none() {
        missing.push("device counters (no block device visible under the target)");
    }
    if s.own_cpu.is_none() {
        missing.push("fsbench's CPU");
    }
    let evidence = if missing.is_empty() {
        let mut parts = vec![
            format!("device busy {}", pct(s.busy)),
            format!("fsbench at {} of a CPU", pct(s.own_cpu)),
        ];
        if s.served.is_some() {
            parts.push(format!("{} of the reads from the device", pct(s.served)));
        }
        format!("no single limit reached: {}", parts.join(", "))
    } else {
        format!("not measured: {}", missing.join(", "))
    };
    say(BoundBy::Unknown, evidence)
}
