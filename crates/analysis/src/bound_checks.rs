//! Every verdict checked against its own evidence before it is shown: a table of rules, each
//! naming what a verdict needs (`network` needs bytes on the wire or a busy server, `device` a
//! device that was busy, `crypto` encryption on the stack or a cipher in the cell's own
//! threads, a wait's share at most 100% per thread that waited) or what must win (a warm read
//! served from the page cache is `cache`, whatever the filesystem). A contradicted verdict is
//! set aside and the next one judged; a cell whose evidence contradicts every verdict is
//! `unknown`, with the contradictions said. `docs/methodology.md` ("Every verdict checked")
//! lists them.

use fsbench_model::profile::{Profile, Role};
use fsbench_model::{Bound, BoundBy, CacheState, ResultEntry, TargetInfo};

/// What the checks read about one cell.
#[derive(Debug, Clone, Copy, Default)]
pub struct Evidence<'a> {
    /// The cell's profile, when it was profiled.
    pub profile: Option<&'a Profile>,
    /// Warm, with this share of the workload's pages cached before each sample (%).
    pub warm_cached_pct: Option<f64>,
    /// The busiest device under the target, % of the wall time; `None` without one.
    pub device_busy: Option<f64>,
    /// The device's share of the bytes the workload read (%), for reads.
    pub served_pct: Option<f64>,
    /// Mean bytes on the wire a sample (a served lab's links, or the machine's network); `None`
    /// when not measured.
    pub wire_bytes: Option<f64>,
    /// The busiest server host's processes, % of one CPU; `None` without server hosts.
    pub server_cpu: Option<f64>,
    /// The FUSE daemon's CPU, % of one CPU; `None` without one.
    pub daemon_cpu: Option<f64>,
    /// Encryption on the target's stack (kernel or a FUSE daemon's).
    pub encrypted: bool,
    /// True when the workload reads (its reads were measured, or its name says so).
    pub reads: bool,
}

impl<'a> Evidence<'a> {
    /// The evidence of `e` on `target`.
    pub fn of(e: &'a ResultEntry, target: Option<&TargetInfo>) -> Self {
        let mean = |n: &str| e.summary.get(n).map(|s| s.mean);
        let warm = e.cache.state == CacheState::Warm;
        let served = crate::bound_server::server_shares(e);
        let wire = match served.is_empty() {
            false => Some(crate::bound_server::wire(e).0),
            true => mean(fsbench_model::metric::NETWORK_RX_BYTES),
        };
        Self {
            profile: e.profile.as_ref(),
            warm_cached_pct: e.cache.resident_pct.filter(|_| warm),
            device_busy: crate::bound::chain_busy(e),
            served_pct: mean(fsbench_model::metric::SERVED_BY_DEVICE_PCT),
            wire_bytes: wire,
            server_cpu: served.iter().map(|s| s.1).reduce(f64::max),
            daemon_cpu: mean(fsbench_model::metric::DAEMON_CPU_PCT),
            encrypted: target.is_some_and(|t| !t.stack.encryption.is_empty()),
            reads: mean(fsbench_model::metric::SERVED_BY_DEVICE_PCT).is_some()
                || mean(fsbench_model::metric::BYTES_READ).is_some_and(|b| b > 0.0)
                || e.workload.ends_with("-read"), // seq-read, rand-read
        }
    }
}

/// What a rule found.
#[derive(Debug, Clone, PartialEq)]
pub enum Finding {
    /// The verdict contradicts its evidence, in words.
    Contradicts(String),
    /// Another verdict is what the evidence shows.
    Instead(Bound),
}

/// One rule: its name and what it finds about a verdict.
pub type Rule = (&'static str, fn(&Bound, &Evidence<'_>) -> Option<Finding>);

/// The rules, checked in order.
pub const RULES: &[Rule] = &[
    (
        "a warm read served from the page cache is cache",
        warm_cache,
    ),
    ("network needs bytes on the wire or a busy server", network),
    ("device needs a busy device", device),
    ("crypto needs encryption or the cell's own cipher", crypto),
    ("no wait above 100% per thread that waited", per_thread),
];

/// A device busy under this share of the time is idle.
pub const IDLE_DEVICE_PCT: f64 = 5.0;
/// A server host under this share of one CPU is idle.
pub const IDLE_SERVER_PCT: f64 = 5.0;
/// At most this many bytes a sample is "nothing on the wire" (a few keep-alives).
pub const NO_WIRE_BYTES: f64 = 64.0 * 1024.0;
/// A warm cell whose files were this cached was served by the page cache (with nothing else
/// busy).
pub const WARM_CACHED_PCT: f64 = 95.0;
/// A FUSE daemon under this share of one CPU answered no round trips to speak of.
pub const IDLE_DAEMON_PCT: f64 = 10.0;

/// The first finding of the rules about `b`.
pub fn first(b: &Bound, ev: &Evidence<'_>) -> Option<(&'static str, Finding)> {
    RULES
        .iter()
        .find_map(|(name, rule)| rule(b, ev).map(|f| (*name, f)))
}

fn pct(v: Option<f64>) -> String {
    v.map_or("?".into(), |v| format!("{v:.0}%"))
}

fn warm_cache(b: &Bound, ev: &Evidence<'_>) -> Option<Finding> {
    if matches!(
        b.by,
        BoundBy::Cache | BoundBy::Rate | BoundBy::Harness | BoundBy::Cpu
    ) {
        return None;
    }
    let cached = ev
        .warm_cached_pct
        .filter(|&c| c >= WARM_CACHED_PCT && ev.reads)?;
    let device_idle = ev
        .served_pct
        .is_none_or(|s| s < crate::bound::CACHE_SERVED_PCT)
        && ev.device_busy.is_none_or(|d| d < IDLE_DEVICE_PCT);
    let wire_idle = ev.wire_bytes.is_none_or(|w| w <= NO_WIRE_BYTES);
    let daemon_idle = ev.daemon_cpu.is_none_or(|d| d < IDLE_DAEMON_PCT);
    (device_idle && wire_idle && daemon_idle).then(|| {
        let wire = ev
            .wire_bytes
            .map_or(String::new(), |w| format!(", {w:.0} bytes on the wire a sample"));
        let device = ev.device_busy.map_or("no block device under it".into(), |d| {
            format!("the device busy {d:.0}%")
        });
        let daemon = ev
            .daemon_cpu
            .map_or(String::new(), |d| format!(", the daemon at {d:.0}% of a CPU"));
        Finding::Instead(Bound {
            by: BoundBy::Cache,
            evidence: format!(
                "a warm read served from the page cache: {cached:.0}% of its pages cached, {device}{wire}{daemon} (not {}: {})",
                b.by.as_str(),
                b.evidence
            ),
        })
    })
}

fn network(b: &Bound, ev: &Evidence<'_>) -> Option<Finding> {
    (b.by == BoundBy::Network).then_some(())?;
    let wire = ev.wire_bytes.filter(|&w| w <= NO_WIRE_BYTES)?;
    ev.server_cpu
        .is_none_or(|s| s < IDLE_SERVER_PCT)
        .then_some(())?;
    Some(Finding::Contradicts(format!(
        "not network: {wire:.0} bytes on the wire a sample and the server idle ({})",
        pct(ev.server_cpu)
    )))
}

fn device(b: &Bound, ev: &Evidence<'_>) -> Option<Finding> {
    (b.by == BoundBy::Device).then_some(())?;
    let busy = ev.device_busy.filter(|&d| d < IDLE_DEVICE_PCT)?;
    let requests = ev
        .profile
        .and_then(|p| p.device.as_ref())
        .map(|d| d.requests);
    requests.is_none_or(|r| r == 0).then_some(())?;
    Some(Finding::Contradicts(format!(
        "not device: the device had I/O in flight {busy:.0}% of the time"
    )))
}

fn crypto(b: &Bound, ev: &Evidence<'_>) -> Option<Finding> {
    (b.by == BoundBy::Crypto && !ev.encrypted).then_some(())?;
    let own = ev.profile.map_or(0, |p| p.cipher_samples_of(&[Role::Cell]));
    let cell = ev.profile.map_or(0, |p| p.samples_of(Role::Cell));
    let share = 100.0 * own as f64 / cell.max(1) as f64;
    (share < crate::bound_profile::CIPHER_LEAD_PCT).then(|| {
        Finding::Contradicts(format!(
            "not crypto: no encryption on the stack, and cipher functions ran in {share:.0}% of the cell's own samples"
        ))
    })
}

fn per_thread(_: &Bound, ev: &Evidence<'_>) -> Option<Finding> {
    let p = ev.profile?;
    let l = p
        .locks
        .iter()
        .find(|l| l.wait_ns > l.threads.max(1).saturating_mul(p.wall_ns))?;
    Some(Finding::Contradicts(format!(
        "the lock waits cannot be true: {} {} waited {:.0}% of the wall time with {} threads",
        l.kind,
        l.caller,
        100.0 * l.wait_ns as f64 / p.wall_ns.max(1) as f64,
        l.threads
    )))
}

/// The verdict `judge` gives once the verdicts in its argument are set aside, checked: a
/// contradicted verdict is set aside and judged again, a rule's own verdict taken instead; when
/// every verdict is contradicted, `unknown` with the contradictions.
pub fn settle(
    ev: &Evidence<'_>,
    mut judge: impl FnMut(&[BoundBy]) -> Option<Bound>,
) -> Option<Bound> {
    let mut aside: Vec<BoundBy> = Vec::new();
    let mut why: Vec<String> = Vec::new();
    loop {
        let b = judge(&aside)?;
        let finding = first(&b, ev);
        let done = |mut b: Bound, why: &[String]| {
            if !why.is_empty() {
                b.evidence = format!("{} ({})", b.evidence, why.join("; "));
            }
            Some(b)
        };
        match finding {
            None => return done(b, &why),
            Some((_, Finding::Instead(nb))) => return done(nb, &why),
            Some((_, Finding::Contradicts(w)))
                if b.by == BoundBy::Unknown || aside.contains(&b.by) =>
            {
                why.push(w);
                return Some(Bound {
                    by: BoundBy::Unknown,
                    evidence: format!("the evidence contradicts every verdict: {}", why.join("; ")),
                });
            }
            Some((_, Finding::Contradicts(w))) => {
                why.push(w);
                aside.push(b.by);
            }
        }
    }
}

#[cfg(test)]
#[path = "bound_checks_tests.rs"]
mod tests;
