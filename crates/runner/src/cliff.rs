//! Cliffs inside samples: a sustained fall of throughput within one sample's time series (the
//! page cache's dirty limit reached by buffered writes, an SSD's write cache filled, a cache
//! above the device run out), found by the change-point test of `fsbench_stats::changepoint`
//! and reported as a typed warning that names the likely cause where fsbench can see it.

use fsbench_model::metric as k;
use fsbench_model::{ResultEntry, Sample, SeriesPoint, Warning, WarningKind};
use fsbench_stats::changepoint::{LevelShift, level_shift};
use fsbench_sys::vm::DirtyLimits;
use fsbench_workload::Flow;

/// Least intervals a series needs to be judged.
const MIN_POINTS: usize = 12;

/// A cliff found in one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cliff {
    /// The level change, in MiB/s (or operations/s when the workload moves no bytes).
    pub shift: LevelShift,
    /// Bytes moved before it.
    pub bytes_before: u64,
    /// Time into the sample when it happened, ns.
    pub at_ns: u64,
    /// True when the rates are of bytes (MiB/s), false of operations.
    pub of_bytes: bool,
}

/// Each interval's rate: MiB/s, or operations/s when no interval moved a byte. The last
/// interval is left out when it is under half an interval long (its rate is noise).
fn rates(series: &[SeriesPoint], interval_ns: u64) -> (Vec<f64>, bool) {
    let of_bytes = fsbench_model::series::of_bytes(series);
    let out = fsbench_model::series::spans(series)
        .filter(|s| s.len_ns > 0 && s.len_ns >= interval_ns / 2)
        .map(|s| s.rate(of_bytes))
        .collect();
    (out, of_bytes)
}

/// The fall of throughput inside `s`, if its series has one.
pub fn find(s: &Sample) -> Option<Cliff> {
    let interval = s.series_interval_ns?;
    if s.series.len() < MIN_POINTS {
        return None;
    }
    let (r, of_bytes) = rates(&s.series, interval);
    let shift = level_shift(&r).filter(|c| c.after < c.before)?;
    // `at` counts judged intervals; the skipped short one can only be the last.
    let before = &s.series[..shift.at];
    Some(Cliff {
        shift,
        bytes_before: before.iter().map(|p| p.bytes).sum(),
        at_ns: before.last().map_or(0, |p| p.t_ns),
        of_bytes,
    })
}

/// What a sample measured beside its series that can name a cliff's cause.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Evidence {
    /// With `--profile`: the share of the sample's wall time fsbench's threads spent throttled
    /// by dirty-page writeback (`balance_dirty_pages`), %.
    pub throttled_pct: Option<f64>,
    /// The FUSE daemon's CPU during the sample, % of one CPU (FUSE targets).
    pub daemon_cpu_pct: Option<f64>,
}

impl Evidence {
    /// What sample `s` measured.
    pub fn of(s: &Sample) -> Self {
        let throttled = s.off_cpu.get(fsbench_model::profile::REASON_THROTTLE);
        Self {
            throttled_pct: throttled.map(|&ns| ns as f64 * 100.0 / s.wall_ns.max(1) as f64),
            daemon_cpu_pct: s.metrics.get(k::DAEMON_CPU_PCT).copied(),
        }
    }
}

/// A FUSE daemon at this share of one CPU or more is saturated (single-threaded daemons are
/// common; a multi-threaded one shows as more than 100%).
const DAEMON_SATURATED_PCT: f64 = 90.0;
/// Time throttled by the dirty limit, % of the sample, above which it is named as the cause.
const THROTTLED_PCT: f64 = 20.0;

/// What most likely made throughput fall, from what the workload did, the machine's settings and
/// what the sample measured.
pub fn cause(
    c: &Cliff,
    flow: Flow,
    direct: bool,
    dirty: Option<DirtyLimits>,
    seen: Evidence,
) -> String {
    let written = matches!(flow, Flow::Write { .. } | Flow::WriteThenRead);
    if let Some(pct) = seen.daemon_cpu_pct.filter(|&p| p >= DAEMON_SATURATED_PCT) {
        return format!(
            "the FUSE daemon saturating: it used {pct:.0}% of a CPU, so every request queued behind it"
        );
    }
    if let (true, false, Some(pct)) = (written, direct, seen.throttled_pct) {
        if pct >= THROTTLED_PCT {
            let limit = dirty.map_or(String::new(), |d| format!(" ({})", d.describe()));
            return format!(
                "the kernel's dirty-page limit{limit}: the writer spent {pct:.0}% of the sample throttled in balance_dirty_pages (measured by --profile)"
            );
        }
    }
    match (written, direct, dirty) {
        (true, false, Some(d))
            if c.bytes_before >= d.background() / 2 && c.bytes_before <= d.limit() * 3 / 2 =>
        {
            format!(
                "the kernel's dirty-page limit ({}): buffered writes ran at memory speed until it, then at the speed of writeback to the storage below",
                d.describe()
            )
        }
        (true, false, Some(d)) => format!(
            "not the dirty-page limit ({}): likely a write cache below the page cache (the device's, an SSD's SLC cache, or the hypervisor's) filling",
            d.describe()
        ),
        (true, true, _) => "direct writes bypass the page cache: likely the device's own write cache (an SSD's SLC cache, a controller's or the hypervisor's) filling".into(),
        (false, _, _) => "a cache above the device ran out (the page cache, read-ahead, or the hypervisor's cache)".into(),
        (true, false, None) => "the dirty-page limit could not be read".into(),
    }
}

/// Share of sample `s`, %, that the thread running it waited for a CPU while runnable
/// ([`CPU_WAIT_PCT`](k::CPU_WAIT_PCT)), when the workload was starved: it ran or waited to run
/// for most of the sample ([`BUSY_PCT`]) and waited for a fifth of it or more ([`STARVED_PCT`]).
/// A fall of throughput inside such a sample is the workload's lost CPU time, not a cache or a
/// device running out. The machine's load alone cannot tell: a buffered writer's own writeback
/// (kernel workers encrypting or flushing its pages) is other processes' CPU to `/proc/stat`,
/// and a writer throttled by writeback sleeps, neither running nor waiting to.
fn starved(s: &Sample) -> Option<f64> {
    let wait = s.metrics.get(k::CPU_WAIT_PCT).copied()?;
    let ran = s.metrics.get(k::CPU_PCT).copied().unwrap_or(0.0);
    (wait >= STARVED_PCT && ran + wait >= BUSY_PCT).then_some(wait)
}

/// Waiting for a CPU for this share of a sample or more, % of wall, may explain its fall.
const STARVED_PCT: f64 = 20.0;
/// Running or waiting to run for this share of a sample or more, % of wall: CPU-bound.
const BUSY_PCT: f64 = 75.0;

/// Looks for cliffs in every sample of `entry` and warns once, with the first one's figures.
/// Falls inside samples whose threads waited long for a CPU are not called cliffs (a workload
/// starved of CPU falls as much, a buffered writer most of all): when every fall was in such a
/// sample, the warning says so instead.
pub fn check(entry: &mut ResultEntry, flow: Flow, dirty: Option<DirtyLimits>) {
    let found: Vec<(usize, Cliff)> = entry
        .samples
        .iter()
        .enumerate()
        .filter_map(|(i, s)| find(s).map(|c| (i, c)))
        .collect();
    // The first fall in a sample that was not starved; else the first, with its thread's wait.
    let quiet = found
        .iter()
        .find(|(i, _)| starved(&entry.samples[*i]).is_none());
    let (&(i, c), waited) = match (quiet, found.first()) {
        (Some(q), _) => (q, None),
        (None, Some(first)) => (first, starved(&entry.samples[first.0])),
        (None, None) => {
            throttled(entry, flow);
            return;
        }
    };
    let direct = entry.samples[i].metrics.get(k::DIRECT_USED) == Some(&1.0);
    let unit = if c.of_bytes { "MiB/s" } else { "operations/s" };
    let after = if c.of_bytes {
        format!("{:.1} MiB", c.bytes_before as f64 / 1_048_576.0)
    } else {
        "the start".into()
    };
    let fell = format!(
        "throughput fell from {:.0} to {:.0} {unit} after {after} / {:.2} s in sample {} ({} of {} samples fell)",
        c.shift.before,
        c.shift.after,
        c.at_ns as f64 / 1e9,
        i + 1,
        found.len(),
        entry.samples.len(),
    );
    if let Some(waited) = waited {
        entry.warnings.push(Warning::new(
            WarningKind::Load,
            format!(
                "{fell}, while the workload's thread waited for a CPU for {waited:.0}% of the sample — a workload that loses its CPU to other processes falls as much, so this is not called a cliff of the storage: rerun on a quiet machine to tell"
            ),
        ));
        return;
    }
    entry.warnings.push(Warning::new(
        WarningKind::Cliff,
        format!(
            "{fell} — {}",
            cause(&c, flow, direct, dirty, Evidence::of(&entry.samples[i]))
        ),
    ));
}

/// Buffered writes held back by the dirty limit without a cliff (a seesaw between memory speed
/// and writeback's, or writeback's from the start): said when `--profile` measured the writer
/// throttled for [`THROTTLED_PCT`] of the median sample or more.
fn throttled(entry: &mut ResultEntry, flow: Flow) {
    let buffered = |s: &Sample| s.metrics.get(k::DIRECT_USED) != Some(&1.0);
    let mut pcts: Vec<f64> = entry
        .samples
        .iter()
        .filter(|s| buffered(s))
        .filter_map(|s| Evidence::of(s).throttled_pct)
        .collect();
    if !matches!(flow, Flow::Write { .. } | Flow::WriteThenRead) || pcts.is_empty() {
        return;
    }
    pcts.sort_by(f64::total_cmp);
    let median = pcts[pcts.len() / 2];
    if median >= THROTTLED_PCT {
        entry.warnings.push(Warning::new(
            WarningKind::Stack,
            format!(
                "buffered writes were throttled by the kernel's dirty-page limit: the writer spent {median:.0}% of the median sample in balance_dirty_pages (measured by --profile) — this is the speed of writeback to the storage below, not of the page cache"
            ),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recorded on this VM: a 2 GiB buffered write with vm.dirty_bytes = 512 MiB and
    /// vm.dirty_background_bytes = 256 MiB, 10 ms intervals: ~4000 MiB/s for 70 ms, then ~300.
    fn recorded() -> Sample {
        let mib: [u64; 24] = [
            37, 45, 30, 34, 38, 50, 49, 20, 4, 4, 4, 2, 9, 7, 0, 0, 7, 5, 2, 3, 2, 4, 2, 3,
        ];
        let mut s: Sample = serde_json::from_value(serde_json::json!({
            "wall_ns": 240_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 0, "bytes": 0, "metrics": {}
        }))
        .unwrap();
        s.series = mib
            .iter()
            .cycle()
            .take(24)
            .chain(mib[8..].iter().cycle().take(76))
            .enumerate()
            .map(|(k, &m)| SeriesPoint {
                t_ns: (k as u64 + 1) * 10_000_000,
                ops: m,
                bytes: m << 20,
                ..SeriesPoint::default()
            })
            .collect();
        s.series_interval_ns = Some(10_000_000);
        s
    }

    #[test]
    fn the_recorded_dirty_limit_cliff_is_found_where_the_writes_fell() {
        let c = find(&recorded()).expect("a cliff");
        assert_eq!(c.shift.at, 7, "{c:?}");
        assert_eq!(c.bytes_before, 283 << 20);
        assert_eq!(c.at_ns, 70_000_000);
        assert!(c.shift.before > 3500.0 && c.shift.after < 600.0, "{c:?}");
    }

    #[test]
    fn the_cause_follows_what_was_written_and_the_dirty_limit() {
        let c = find(&recorded()).unwrap();
        let write = Flow::Write { durable: true };
        let dirty = DirtyLimits {
            dirty_bytes: 512 << 20,
            background_bytes: 256 << 20,
            ..DirtyLimits::default()
        };
        let none = Evidence::default();
        assert!(cause(&c, write, false, Some(dirty), none).starts_with("the kernel's dirty-page limit (vm.dirty_background_bytes = 256 MiB, vm.dirty_bytes = 512 MiB)"));
        let far = DirtyLimits {
            dirty_bytes: 8 << 30,
            background_bytes: 4 << 30,
            ..dirty
        };
        assert!(cause(&c, write, false, Some(far), none).starts_with("not the dirty-page limit"));
        assert!(cause(&c, write, true, Some(dirty), none).contains("device's own write cache"));
        assert!(cause(&c, Flow::Read, false, None, none).contains("a cache above the device"));
        // Measured throttling names the dirty limit even where the bytes alone would not.
        let throttled = Evidence {
            throttled_pct: Some(64.0),
            ..none
        };
        let said = cause(&c, write, false, Some(far), throttled);
        assert!(
            said.contains("64% of the sample throttled in balance_dirty_pages"),
            "{said}"
        );
        let saturated = Evidence {
            daemon_cpu_pct: Some(99.0),
            ..none
        };
        assert!(
            cause(&c, Flow::Read, false, None, saturated)
                .starts_with("the FUSE daemon saturating: it used 99%")
        );
    }

    #[test]
    fn a_steady_series_or_a_rise_warns_nothing() {
        let mut s = recorded();
        s.series.reverse();
        let mut t = 0;
        for p in &mut s.series {
            t += 10_000_000;
            p.t_ns = t;
        }
        assert_eq!(find(&s), None, "a rise is not a cliff");
        let mut e = entry("warm", "none", "iops");
        e.samples.push(s);
        check(&mut e, Flow::Read, None);
        assert!(e.warnings.is_empty());
        e.samples.push(recorded());
        check(&mut e, Flow::Read, None);
        assert_eq!(e.warnings.len(), 1);
        assert!(
            e.warnings[0].message.starts_with("throughput fell from"),
            "{:?}",
            e.warnings
        );
        assert!(
            e.warnings[0]
                .message
                .contains("after 283.0 MiB / 0.07 s in sample 2 (1 of 2 samples fell)")
        );
    }

    /// A cell with no samples yet, `state` and `method` its cache's, `headline` its headline.
    fn entry(state: &str, method: &str, headline: &str) -> ResultEntry {
        serde_json::from_value(serde_json::json!({
            "target": "t", "workload": "w", "params": {}, "cache": {"state": state, "method": method},
            "headline": headline, "samples": [], "summary": {}
        }))
        .unwrap()
    }

    /// `s` as if its thread had run for `ran_pct` of it and waited for a CPU for `wait_pct`.
    fn waiting(mut s: Sample, ran_pct: f64, wait_pct: f64) -> Sample {
        s.metrics.insert(k::CPU_PCT.into(), ran_pct);
        s.metrics.insert(k::CPU_WAIT_PCT.into(), wait_pct);
        s
    }

    #[test]
    fn a_fall_in_a_sample_starved_of_cpu_is_not_called_a_cliff_and_a_quiet_one_still_is() {
        let mut e = entry("warm", "none", "mib_s");
        // The writer ran for 40% of the only sample that fell and waited for a CPU for 60%.
        e.samples.push(waiting(recorded(), 40.0, 60.0));
        check(&mut e, Flow::Write { durable: false }, None);
        assert_eq!(e.warnings.len(), 1, "{:?}", e.warnings);
        assert_eq!(e.warnings[0].kind, WarningKind::Load);
        let said = &e.warnings[0].message;
        assert!(said.starts_with("throughput fell from"), "{said}");
        assert!(said.contains("not called a cliff"), "{said}");
        // A second sample whose writer waited as long but mostly slept (throttled by
        // writeback: ran 10%, waited 25%) fell for its storage: a cliff, with its own figures.
        e.warnings.clear();
        e.samples.push(waiting(recorded(), 10.0, 25.0));
        check(&mut e, Flow::Write { durable: false }, None);
        assert_eq!(e.warnings.len(), 1, "{:?}", e.warnings);
        assert_eq!(e.warnings[0].kind, WarningKind::Cliff);
        assert!(
            e.warnings[0]
                .message
                .contains("in sample 2 (2 of 2 samples fell)"),
            "{}",
            e.warnings[0].message
        );
    }

    #[test]
    fn writes_throttled_without_a_cliff_are_said_when_the_profile_measured_it() {
        let mut e = entry("cold", "drop_caches", "mib_s");
        let mut s = recorded();
        s.series.truncate(5);
        s.off_cpu
            .insert(fsbench_model::profile::REASON_THROTTLE.into(), 120_000_000);
        e.samples.push(s);
        check(&mut e, Flow::Read, None);
        assert!(e.warnings.is_empty(), "reads are never dirty-throttled");
        check(&mut e, Flow::Write { durable: false }, None);
        assert_eq!(e.warnings.len(), 1, "{:?}", e.warnings);
        assert!(
            e.warnings[0]
                .message
                .contains("spent 50% of the median sample in balance_dirty_pages")
        );
    }
}
