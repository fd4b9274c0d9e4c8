//! Which part of each sample's series its cliffs are judged on: the whole series, or for a
//! workload whose samples run other operations after the one that starts them
//! (`Caps::cliff_phase`: `tree-create` creates, then stats and deletes, all in one series) only
//! the intervals of that first phase. The next phase's different rate (a removal moves no bytes)
//! is another operation, not a fall of the first one's. The final flush of a durable write
//! (phase `fsync`: `fsync=end`'s one fdatasync, timed at the end of the sample) is its own phase
//! too, left out of every judgement: its intervals move no bytes because the data already moved,
//! not because a cache ran out.

use fsbench_model::ResultEntry;
use fsbench_sys::vm::DirtyLimits;
use fsbench_workload::Flow;

/// The phase of a write sample's final flush (`fsync=end`), at its end.
pub const FLUSH_PHASE: &str = "fsync";

/// [`crate::cliff::check`] over the whole series, or with `phase` over the whole intervals that
/// ended within that phase (which starts the sample) of each sample that reports it.
pub fn check(entry: &mut ResultEntry, phase: Option<&str>, flow: Flow, dirty: Option<DirtyLimits>) {
    let flushed = entry
        .samples
        .iter()
        .any(|s| s.phases.contains_key(FLUSH_PHASE));
    if phase.is_none() && !flushed {
        return crate::cliff::check(entry, flow, dirty);
    }
    let mut view = entry.clone();
    for s in &mut view.samples {
        if let Some(&end_ns) = phase.and_then(|name| s.phases.get(name)) {
            s.series.retain(|p| p.t_ns <= end_ns);
        }
        // The intervals that ended before the flush began.
        if let Some(&flush_ns) = s.phases.get(FLUSH_PHASE) {
            let start = s.wall_ns.saturating_sub(flush_ns);
            s.series.retain(|p| p.t_ns <= start);
        }
    }
    let before = view.warnings.len();
    crate::cliff::check(&mut view, flow, dirty);
    entry.warnings.extend(view.warnings.drain(before..));
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsbench_model::{Sample, SeriesPoint, WarningKind};

    /// A 400 ms sample: 40 intervals of 10 MiB written in its `create` phase (300 ms), then 10
    /// intervals that moved no bytes (a removal).
    fn created_then_deleted() -> ResultEntry {
        let mut s: Sample = serde_json::from_value(serde_json::json!({
            "wall_ns": 400_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 0, "bytes": 0,
            "metrics": {}, "phases": {"create": 300_000_000u64, "delete": 100_000_000u64}
        }))
        .unwrap();
        s.series_interval_ns = Some(10_000_000);
        s.series = (1..=40u64)
            .map(|k| SeriesPoint {
                t_ns: k * 10_000_000,
                ops: 100,
                bytes: if k <= 30 { 10 << 20 } else { 0 },
                ..SeriesPoint::default()
            })
            .collect();
        let mut e: ResultEntry = serde_json::from_value(serde_json::json!({
            "target": "t", "workload": "tree-create", "params": {},
            "cache": {"state": "warm", "method": "none"},
            "headline": "files_per_s", "samples": [], "summary": {}
        }))
        .unwrap();
        e.samples = vec![s];
        e
    }

    /// The default run's rand-write: 16 MiB written in its first 20 ms, then `fsync=end`'s
    /// fdatasync for the remaining 480 ms, in which no interval moves a byte.
    fn written_then_flushed(flush_phase: bool) -> ResultEntry {
        let mut e = created_then_deleted();
        let s = &mut e.samples[0];
        s.wall_ns = 500_000_000;
        s.phases.clear();
        if flush_phase {
            s.phases.insert(FLUSH_PHASE.into(), 480_000_000);
        }
        s.series = (1..=50u64)
            .map(|k| SeriesPoint {
                t_ns: k * 10_000_000,
                ops: if k <= 2 { 2048 } else { 0 },
                bytes: if k <= 2 { 8 << 20 } else { 0 },
                ..SeriesPoint::default()
            })
            .collect();
        e.workload = "rand-write".into();
        e
    }

    #[test]
    fn the_final_flush_is_its_own_phase_never_a_cliff() {
        let write = Flow::Write { durable: true };
        let mut flushed = written_then_flushed(true);
        check(&mut flushed, None, write, None);
        assert!(flushed.warnings.is_empty(), "{:?}", flushed.warnings);
        // The same series without the phase would read the flush as a cliff.
        let mut unmarked = written_then_flushed(false);
        check(&mut unmarked, None, write, None);
        assert!(
            unmarked
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::Cliff),
            "{:?}",
            unmarked.warnings
        );
    }

    #[test]
    fn a_phase_after_the_judged_one_is_no_cliff_but_the_whole_series_would_be() {
        let mut whole = created_then_deleted();
        check(&mut whole, None, Flow::Other, None);
        assert!(whole.warnings.iter().any(|w| w.kind == WarningKind::Cliff));
        let mut judged = created_then_deleted();
        check(&mut judged, Some("create"), Flow::Other, None);
        assert!(judged.warnings.is_empty(), "{:?}", judged.warnings);
        assert_eq!(
            judged.samples[0].series.len(),
            40,
            "the stored series is whole"
        );
    }
}
