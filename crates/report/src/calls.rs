//! Where a replay's time went, by call kind: each cell's kinds over its samples, and between two
//! cells of one trace (two targets, or cold against warm) which kinds make the difference, each
//! with its share and whether its own difference is proven (issue 58).

use fsbench_model::calls::SlowCall;
use fsbench_model::{ResultEntry, RunRecord};
use fsbench_stats::{Method, compare};

/// One kind of call over a cell's samples (means of the samples that have a breakdown).
#[derive(Debug, Clone, PartialEq)]
pub struct KindSummary {
    /// The call kind.
    pub kind: String,
    /// Calls per sample.
    pub count: f64,
    /// Time in these calls per sample, ns.
    pub total_ns: f64,
    /// The part of the wall time these calls held per sample, ns (each instant shared by the
    /// calls in flight then).
    pub wall_ns: f64,
    /// Mean time per call, ns.
    pub per_call_ns: f64,
    /// The median of the samples' median call, ns.
    pub p50_ns: f64,
    /// The median of the samples' 99th percentile call, ns.
    pub p99_ns: f64,
    /// Failed calls per sample.
    pub errors: f64,
    /// `wall_ns` in % of the mean wall time.
    pub share_pct: f64,
}

/// A cell's time by call kind, most time first.
#[derive(Debug, Clone, PartialEq)]
pub struct CellCalls {
    /// Per kind.
    pub kinds: Vec<KindSummary>,
    /// Mean wall time of the samples with a breakdown, ns.
    pub wall_ns: f64,
    /// Samples with a breakdown.
    pub samples: usize,
    /// The slowest calls over every sample, slowest first, each with its sample's index.
    pub slowest: Vec<(usize, SlowCall)>,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n % 2 {
        1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// Per sample with a breakdown: its wall time and the part of it `kind` held (0 where the
/// sample made no such call).
fn per_sample(r: &ResultEntry, kind: &str) -> Vec<(f64, f64)> {
    r.samples
        .iter()
        .filter_map(|s| {
            let c = s.calls.as_ref()?;
            Some((
                s.wall_ns as f64,
                c.kind(kind).map_or(0.0, |k| k.wall_ns as f64),
            ))
        })
        .collect()
}

/// Every kind any sample of `r` made, in first-seen order.
fn kinds_of(r: &ResultEntry) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in r.samples.iter().filter_map(|s| s.calls.as_ref()) {
        for k in &c.kinds {
            if !out.contains(&k.kind) {
                out.push(k.kind.clone());
            }
        }
    }
    out
}

/// Calls shown in [`CellCalls::slowest`].
const SLOWEST: usize = fsbench_model::calls::SLOWEST;

/// `r`'s time by call kind; `None` when no sample has a breakdown (not a replay, `calls=off`,
/// an older record).
pub fn of_cell(r: &ResultEntry) -> Option<CellCalls> {
    let with: Vec<&fsbench_model::Sample> =
        r.samples.iter().filter(|s| s.calls.is_some()).collect();
    if with.is_empty() {
        return None;
    }
    let wall_ns = mean(&with.iter().map(|s| s.wall_ns as f64).collect::<Vec<_>>());
    let mut kinds: Vec<KindSummary> = kinds_of(r)
        .into_iter()
        .map(|kind| {
            let of = |f: &dyn Fn(&fsbench_model::calls::KindTime) -> f64| -> Vec<f64> {
                with.iter()
                    .map(|s| s.calls.as_ref().and_then(|c| c.kind(&kind)).map_or(0.0, f))
                    .collect()
            };
            let count = mean(&of(&|k| k.count as f64));
            let total_ns = mean(&of(&|k| k.total_ns as f64));
            let kind_wall_ns = mean(&of(&|k| k.wall_ns as f64));
            let present = |f: &dyn Fn(&fsbench_model::calls::KindTime) -> f64| -> Vec<f64> {
                with.iter()
                    .filter_map(|s| s.calls.as_ref()?.kind(&kind).map(f))
                    .collect()
            };
            KindSummary {
                count,
                total_ns,
                per_call_ns: if count > 0.0 { total_ns / count } else { 0.0 },
                p50_ns: median(present(&|k| k.p50_ns as f64)),
                p99_ns: median(present(&|k| k.p99_ns as f64)),
                errors: mean(&of(&|k| k.errors as f64)),
                share_pct: 100.0 * kind_wall_ns / wall_ns.max(1.0),
                wall_ns: kind_wall_ns,
                kind,
            }
        })
        .collect();
    kinds.sort_by(|a, b| {
        (b.wall_ns, b.total_ns)
            .partial_cmp(&(a.wall_ns, a.total_ns))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let mut slowest: Vec<(usize, SlowCall)> = r
        .samples
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s.calls.as_ref()?)))
        .flat_map(|(i, c)| c.slowest.iter().map(move |x| (i, x.clone())))
        .collect();
    slowest.sort_by_key(|s| std::cmp::Reverse(s.1.ns));
    slowest.truncate(SLOWEST);
    Some(CellCalls {
        kinds,
        wall_ns,
        samples: with.len(),
        slowest,
    })
}

/// One kind's part in the difference between two cells.
#[derive(Debug, Clone, PartialEq)]
pub struct KindDiff {
    /// The call kind.
    pub kind: String,
    /// Calls per sample, baseline and other.
    pub count: (f64, f64),
    /// Mean time per call, ns, baseline and other (0 where a side made none).
    pub per_call_ns: (f64, f64),
    /// The part of the wall time these calls held per sample, ns, baseline and other.
    pub wall_ns: (f64, f64),
    /// Other's part minus the baseline's, ns.
    pub difference_ns: f64,
    /// `difference_ns` in % of the wall-time difference.
    pub share_pct: f64,
    /// The kind's own difference (its totals, sample by sample) proven at the confidence
    /// asked; `None` with fewer than two samples a side.
    pub proven: Option<bool>,
    /// The kernel's reason for the kind's time on each side ([`kernel_reason`]; `None` where a
    /// side was not profiled).
    pub kernel: (Option<String>, Option<String>),
}

/// Which kinds of call make the difference between two cells of one trace: each kind's part of
/// the wall time (each instant shared by the calls in flight then), on both sides.
#[derive(Debug, Clone, PartialEq)]
pub struct Attribution {
    /// The baseline cell's label.
    pub baseline: String,
    /// The other cell's label.
    pub other: String,
    /// Mean wall time, ns, baseline and other.
    pub wall_ns: (f64, f64),
    /// Other's mean wall time minus the baseline's, ns.
    pub difference_ns: f64,
    /// The wall-time difference proven (the run's comparison), when it was compared.
    pub proven: Option<bool>,
    /// Per kind, the largest part (either way) first.
    pub kinds: Vec<KindDiff>,
    /// What the kinds leave of the wall-time difference, ns: the difference in the time no call
    /// was in flight (the program's own time between its calls, paced; its threads waiting for
    /// each other).
    pub rest_ns: f64,
}

impl Attribution {
    /// In one line: `bindfs +142 ms over ext4: lstat ×4,847 +21 µs each = 72%, …` (the kinds
    /// that hold at least 5% of the difference, up to four).
    pub fn line(&self, fmt_ns: &dyn Fn(f64) -> String) -> String {
        let sign = |v: f64| if v >= 0.0 { "+" } else { "−" };
        let parts: Vec<String> = self
            .kinds
            .iter()
            .filter(|k| k.share_pct.abs() >= 5.0)
            .take(4)
            .map(|k| {
                let each = k.per_call_ns.1 - k.per_call_ns.0;
                format!(
                    "{} ×{:.0} {}{} each = {:.0}%",
                    k.kind,
                    k.count.1,
                    sign(each),
                    fmt_ns(each.abs()),
                    k.share_pct
                )
            })
            .collect();
        format!(
            "{} {}{} over {}: {}",
            self.other,
            sign(self.difference_ns),
            fmt_ns(self.difference_ns.abs()),
            self.baseline,
            if parts.is_empty() {
                "no call kind holds 5% of it".to_string()
            } else {
                parts.join(", ")
            }
        )
    }
}

/// Which kinds of call make `other`'s wall time differ from `base`'s, at `confidence` percent;
/// `None` unless both cells have breakdowns of one trace.
pub fn attribute(base: &ResultEntry, other: &ResultEntry, confidence: f64) -> Option<Attribution> {
    let trace = |e: &ResultEntry| e.params.get(fsbench_model::param::TRACE_ID).cloned();
    if trace(base) != trace(other) {
        // Replays of different traces: not one program's calls on two targets.
        return None;
    }
    let (a, b) = (of_cell(base)?, of_cell(other)?);
    let difference_ns = b.wall_ns - a.wall_ns;
    let mut names = kinds_of(base);
    for k in kinds_of(other) {
        if !names.contains(&k) {
            names.push(k);
        }
    }
    let find = |c: &CellCalls, k: &str| c.kinds.iter().find(|x| x.kind == k).cloned();
    let mut kinds: Vec<KindDiff> = names
        .into_iter()
        .map(|kind| {
            let (ka, kb) = (find(&a, &kind), find(&b, &kind));
            let get =
                |k: &Option<KindSummary>, f: fn(&KindSummary) -> f64| k.as_ref().map_or(0.0, f);
            let part = (get(&ka, |k| k.wall_ns), get(&kb, |k| k.wall_ns));
            let xs: Vec<f64> = per_sample(base, &kind).iter().map(|p| p.1).collect();
            let ys: Vec<f64> = per_sample(other, &kind).iter().map(|p| p.1).collect();
            KindDiff {
                count: (get(&ka, |k| k.count), get(&kb, |k| k.count)),
                per_call_ns: (get(&ka, |k| k.per_call_ns), get(&kb, |k| k.per_call_ns)),
                difference_ns: part.1 - part.0,
                share_pct: 100.0 * (part.1 - part.0) / nonzero(difference_ns),
                wall_ns: part,
                proven: compare(&xs, &ys, confidence / 100.0, Method::StudentPooled)
                    .map(|d| d.proven)
                    .or_else(|| same_everywhere(&xs, &ys)),
                kernel: (kernel_reason(base, &kind), kernel_reason(other, &kind)),
                kind,
            }
        })
        .collect();
    kinds.sort_by(|x, y| y.difference_ns.abs().total_cmp(&x.difference_ns.abs()));
    let explained: f64 = kinds.iter().map(|k| k.difference_ns).sum();
    Some(Attribution {
        baseline: fsbench_model::names::cell_label(base),
        other: fsbench_model::names::cell_label(other),
        wall_ns: (a.wall_ns, b.wall_ns),
        difference_ns,
        proven: None,
        kinds,
        rest_ns: difference_ns - explained,
    })
}

/// A divisor that is never zero (a difference of exactly 0 ns leaves every share at 0).
fn nonzero(v: f64) -> f64 {
    if v == 0.0 { f64::INFINITY } else { v }
}

/// Two sides of constant values (no variance: the t-test is undefined) differ exactly when their
/// values do; `None` with fewer than two samples a side.
fn same_everywhere(xs: &[f64], ys: &[f64]) -> Option<bool> {
    if xs.len() < 2 || ys.len() < 2 {
        return None;
    }
    let constant = |v: &[f64]| v.iter().all(|x| *x == v[0]);
    (constant(xs) && constant(ys)).then(|| xs[0] != ys[0])
}

/// The attributions of `record`: one per comparison whose two cells have breakdowns (each target
/// against the first, or warm against cold), labelled as the comparison labels its cells, with
/// the wall-time verdict of the comparison.
pub fn of_record(record: &RunRecord) -> Vec<Attribution> {
    let names = fsbench_model::names::CellNames::new(&record.results);
    let rs = &record.results;
    record
        .comparisons
        .iter()
        .filter_map(|c| {
            let b = names.find(rs, &c.baseline)?;
            let o = names.find(rs, &c.other)?;
            let mut a = attribute(&rs[b], &rs[o], c.confidence)?;
            a.baseline = c.baseline.clone();
            a.other = c.other.clone();
            a.proven = Some(c.proven);
            Some(a)
        })
        .collect()
}

/// A lock is named for a kind when its waits hold at least this share of the kind's time (the
/// card's rule).
const LOCK_SHARE_PCT: f64 = 5.0;

/// Off-CPU reasons named for a kind from this share of its time.
const REASON_SHARE_PCT: f64 = 1.0;

/// The kernel's reason for the time `r`'s replay spent in calls of `kind` (`--profile`): the
/// off-CPU time of its threads within those calls, by reason, and the lock waits that hold at
/// least 5% of it, each as a share of the kind's time in the profiled samples ("FUSE round trip
/// 88%, on CPU 12%"); `None` without a profile of the calls.
pub fn kernel_reason(r: &ResultEntry, kind: &str) -> Option<String> {
    let p = r.profile.as_ref()?;
    if p.by_call.is_empty() {
        return None;
    }
    let time: f64 = r
        .samples
        .iter()
        .filter_map(|s| s.calls.as_ref()?.kind(kind))
        .map(|k| k.total_ns as f64)
        .sum();
    if time <= 0.0 {
        return None;
    }
    let empty = fsbench_model::profile::CallEvidence::default();
    let evidence = p.by_call.get(kind).unwrap_or(&empty);
    let pct = |ns: u64| 100.0 * ns as f64 / time;
    let mut reasons: Vec<(&String, &u64)> = evidence.off_cpu.iter().collect();
    reasons.sort_by_key(|(_, ns)| std::cmp::Reverse(**ns));
    let off: u64 = evidence.off_cpu.values().sum();
    let mut parts: Vec<String> = reasons
        .into_iter()
        .filter(|(_, ns)| pct(**ns) >= REASON_SHARE_PCT)
        .map(|(why, ns)| format!("{why} {:.0}%", pct(*ns)))
        .collect();
    parts.push(format!(
        "on CPU {:.0}%",
        (100.0 - pct(off)).clamp(0.0, 100.0)
    ));
    // The scheduler's own run-queue locks (taken while switching or waking) are not the
    // filesystem's: their time is already the preemption's.
    let scheduler = fsbench_model::profile::is_scheduler_lock;
    let mut locks: Vec<(&String, &u64)> = evidence
        .locks
        .iter()
        .filter(|(lock, ns)| pct(**ns) >= LOCK_SHARE_PCT && !scheduler(lock))
        .collect();
    locks.sort_by_key(|(_, ns)| std::cmp::Reverse(**ns));
    let mut out = parts.join(", ");
    for (lock, ns) in locks.into_iter().take(2) {
        out.push_str(&format!("; lock {lock} {:.0}%", pct(*ns)));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::calls::{CallTimes, KindTime};
    use fsbench_model::{CacheInfo, CacheState, Sample};
    use std::collections::BTreeMap;

    /// A sample of `wall` ms whose calls are `kinds` (name, count, total µs).
    fn sample(wall_ms: f64, kinds: &[(&str, u64, f64)]) -> Sample {
        let mut s = Sample::new((wall_ms * 1e6) as u64, 0, 0, 0, 0);
        s.calls = Some(CallTimes {
            kinds: kinds
                .iter()
                .map(|(k, n, us)| KindTime {
                    kind: k.to_string(),
                    count: *n,
                    total_ns: (us * 1e3) as u64,
                    p50_ns: (us * 1e3 / *n as f64) as u64,
                    p99_ns: (us * 2e3 / *n as f64) as u64,
                    errors: 0,
                    wall_ns: (us * 1e3) as u64,
                })
                .collect(),
            slowest: Vec::new(),
        });
        s
    }

    fn cell(target: &str, samples: Vec<Sample>) -> ResultEntry {
        ResultEntry {
            target: target.into(),
            workload: "replay".into(),
            params: BTreeMap::new(),
            sweep: BTreeMap::new(),
            cache: CacheInfo {
                state: CacheState::Warm,
                method: "none".into(),
                resident_pct: None,
            },
            headline: fsbench_model::metric::WALL_NS.into(),
            also_shown: Vec::new(),
            samples,
            summary: BTreeMap::new(),
            precision_reached: None,
            steady: None,
            warnings: Vec::new(),
            error: None,
            bound: None,
            profile: None,
        }
    }

    #[test]
    fn a_cells_kinds_are_means_over_its_samples_with_their_share_of_the_wall() {
        let r = cell(
            "ext4",
            vec![
                sample(10.0, &[("lstat", 1000, 4000.0), ("read", 10, 1000.0)]),
                sample(12.0, &[("lstat", 1000, 6000.0)]),
            ],
        );
        let c = of_cell(&r).unwrap();
        assert_eq!(c.samples, 2);
        assert_eq!(c.kinds[0].kind, "lstat");
        assert_eq!(c.kinds[0].count, 1000.0);
        assert!((c.kinds[0].total_ns - 5e6).abs() < 1.0);
        assert!((c.kinds[0].per_call_ns - 5000.0).abs() < 1e-6);
        assert!((c.kinds[0].share_pct - 100.0 * 5.0 / 11.0).abs() < 1e-6);
        // A kind one sample lacks counts as none there.
        assert_eq!(c.kinds[1].count, 5.0);
        assert!(of_cell(&cell("x", vec![Sample::new(1, 0, 0, 0, 0)])).is_none());
    }

    #[test]
    fn a_kinds_kernel_reason_is_its_calls_off_cpu_time_and_the_locks_that_hold_5_percent() {
        let mut r = cell(
            "bindfs",
            vec![
                sample(120.0, &[("lstat", 4847, 100_000.0), ("open", 10, 1000.0)]),
                sample(120.0, &[("lstat", 4847, 100_000.0), ("open", 10, 1000.0)]),
            ],
        );
        assert_eq!(kernel_reason(&r, "lstat"), None, "not profiled");
        let mut p = fsbench_model::Profile::default();
        let e = p.by_call.entry("lstat".into()).or_default();
        e.off_cpu.insert("FUSE round trip".into(), 176_000_000);
        e.off_cpu.insert("preempted".into(), 1_000_000);
        e.locks.insert(
            "mutex: fuse_lock_inode <- fuse_do_getattr".into(),
            12_000_000,
        );
        e.locks.insert("spinlock: d_lookup".into(), 2_000_000);
        r.profile = Some(p);
        assert_eq!(
            kernel_reason(&r, "lstat").as_deref(),
            Some(
                "FUSE round trip 88%, on CPU 12%; lock mutex: fuse_lock_inode <- fuse_do_getattr 6%"
            )
        );
        // Profiled, but never off the CPU in an open.
        assert_eq!(kernel_reason(&r, "open").as_deref(), Some("on CPU 100%"));
    }

    /// bindfs slower on lstat only: the difference is put on lstat, the other kinds' parts are
    /// near zero and not proven, and the kinds plus the rest sum to the whole difference.
    #[test]
    fn the_difference_lands_on_the_kind_that_was_made_slower() {
        let base = cell(
            "ext4",
            (0..5usize)
                .map(|i| {
                    let j = i as f64;
                    let noise = [0.0, 20.0, -20.0, 10.0, -10.0][i];
                    sample(
                        20.0 + j * 0.1,
                        &[
                            ("lstat", 4847, 9000.0 + j * 50.0),
                            ("getdents", 620, 3000.0 + noise),
                        ],
                    )
                })
                .collect(),
        );
        let other = cell(
            "bindfs",
            (0..5usize)
                .map(|i| {
                    let j = i as f64;
                    let noise = [-10.0, 20.0, 0.0, -20.0, 10.0][i];
                    sample(
                        121.0 + j * 0.1,
                        &[
                            ("lstat", 4847, 110_000.0 + j * 60.0),
                            ("getdents", 620, 3000.0 + noise),
                        ],
                    )
                })
                .collect(),
        );
        let a = attribute(&base, &other, 95.0).unwrap();
        assert!((a.difference_ns - 101e6).abs() < 1e3, "{a:?}");
        let top = &a.kinds[0];
        assert_eq!(top.kind, "lstat");
        assert!(top.share_pct > 99.0 && top.share_pct < 101.0, "{top:?}");
        assert_eq!(top.proven, Some(true));
        let getdents = a.kinds.iter().find(|k| k.kind == "getdents").unwrap();
        assert_eq!(getdents.proven, Some(false));
        let sum: f64 = a.kinds.iter().map(|k| k.difference_ns).sum::<f64>() + a.rest_ns;
        assert!((sum - a.difference_ns).abs() < 1.0);
        let line = a.line(&|ns| format!("{:.0} µs", ns / 1e3));
        assert!(
            line.starts_with("bindfs/replay/warm +101000 µs over ext4/replay/warm: lstat ×4847 +"),
            "{line}"
        );
    }
}
