//! The Disk Speed Test's gauge, from a sample's time series: the peak (the best stretch of 5
//! intervals) and the sustained rate (the second half of the active intervals) of the whole
//! sample, and of
//! large-file's write and read phases apart — a drive that bursts into a cache and then slows
//! shows both numbers, where the sample's mean hides the fall.

use fsbench_model::metric as k;
use fsbench_model::{Sample, SeriesPoint};

/// Intervals a stretch needs for a peak (one interval alone is noise).
const PEAK_SPAN: usize = 5;

/// (peak, sustained) MiB/s of the whole intervals of `series` that end within `from..=to` ns;
/// `None` with fewer than [`PEAK_SPAN`] of them or no bytes.
pub fn rates(series: &[SeriesPoint], interval_ns: u64, from: u64, to: u64) -> Option<(f64, f64)> {
    // Whole intervals only, and only those entirely inside the phase.
    let r: Vec<f64> = fsbench_model::series::spans(series)
        .filter(|s| s.len_ns >= interval_ns && s.start_ns >= from && s.point.t_ns <= to)
        .map(|s| s.rate(true))
        .collect();
    // Idle intervals before the first byte (an open, a truncation) and after the last (the
    // final flush of buffered writes) are not where the gauge settles: they are left out.
    let first = r.iter().position(|&v| v > 0.0)?;
    let last = r.iter().rposition(|&v| v > 0.0)?;
    let active = &r[first..=last];
    if active.len() < PEAK_SPAN {
        return None;
    }
    let peak = active
        .windows(PEAK_SPAN)
        .map(|w| w.iter().sum::<f64>() / PEAK_SPAN as f64)
        .fold(0.0, f64::max);
    // Where it settles: the mean over the second half of the active intervals (a throttled
    // writer's pauses inside it count: they are part of its rate).
    let tail = &active[active.len() / 2..];
    let sustained = tail.iter().sum::<f64>() / tail.len() as f64;
    Some((peak, sustained))
}

/// Adds `peak_mib_s` and `sustained_mib_s` to a sample with a series, and per phase for a
/// sample that wrote then read (large-file's `write` and `read` phases, in that order).
pub fn add(s: &mut Sample) {
    let Some(iv) = s.series_interval_ns else {
        return;
    };
    let put = |s: &mut Sample, peak: &str, sustained: &str, from: u64, to: u64| {
        if let Some((p, m)) = rates(&s.series, iv, from, to) {
            s.metrics.insert(peak.into(), p);
            s.metrics.insert(sustained.into(), m);
        }
    };
    put(s, k::PEAK_MIB_S, k::SUSTAINED_MIB_S, 0, u64::MAX);
    if let (Some(&w), Some(&r)) = (
        s.phases.get(fsbench_model::param::PHASE_WRITE),
        s.phases.get(fsbench_model::param::PHASE_READ),
    ) {
        // The write phase starts the sample; the read phase ends it.
        let end = s.wall_ns;
        put(s, k::WRITE_PEAK_MIB_S, k::WRITE_SUSTAINED_MIB_S, 0, w);
        put(
            s,
            k::READ_PEAK_MIB_S,
            k::READ_SUSTAINED_MIB_S,
            end.saturating_sub(r),
            end,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(mib: &[u64]) -> Vec<SeriesPoint> {
        mib.iter()
            .enumerate()
            .map(|(i, &m)| SeriesPoint {
                t_ns: (i as u64 + 1) * 10_000_000,
                bytes: m << 20,
                ..SeriesPoint::default()
            })
            .collect()
    }

    #[test]
    fn a_burst_into_a_cache_then_the_drive_shows_peak_and_sustained() {
        // 40 MiB per 10 ms (4000 MiB/s) for 6 intervals, then 3 MiB (300 MiB/s) for 20.
        let mut mib = vec![40; 6];
        mib.extend([3; 20]);
        let (peak, sustained) = rates(&series(&mib), 10_000_000, 0, u64::MAX).unwrap();
        assert!((peak - 4000.0).abs() < 1e-6, "{peak}");
        assert!((sustained - 300.0).abs() < 1e-6, "{sustained}");
        assert_eq!(rates(&series(&[5, 5, 5]), 10_000_000, 0, u64::MAX), None);
        // Buffered writes absorbed at memory speed, then a flush: the flush is not the gauge.
        let mut mib = vec![0, 48, 48, 48, 48, 48, 48];
        mib.extend([0; 30]);
        let (peak, sustained) = rates(&series(&mib), 10_000_000, 0, u64::MAX).unwrap();
        assert!((peak - 4800.0).abs() < 1e-6 && (sustained - 4800.0).abs() < 1e-6);
        // A throttled writer's pauses are part of its rate.
        let saw: Vec<u64> = (0..20)
            .map(|i| if i % 2 == 0 { 24 } else { 0 })
            .chain([24])
            .collect();
        let (_, sustained) = rates(&series(&saw), 10_000_000, 0, u64::MAX).unwrap();
        assert!((sustained - 1200.0).abs() < 120.0, "{sustained}");
    }

    #[test]
    fn large_files_phases_are_judged_apart() {
        // 10 intervals writing at 1000 MiB/s, then 10 reading at 2000 MiB/s.
        let mut mib = vec![10; 10];
        mib.extend([20; 10]);
        let mut s: Sample = serde_json::from_value(serde_json::json!({
            "wall_ns": 200_000_000u64, "user_ns": 0, "sys_ns": 0, "ops": 0, "bytes": 0,
            "metrics": {}, "phases": {"write": 100_000_000u64, "read": 100_000_000u64}
        }))
        .unwrap();
        s.series = series(&mib);
        s.series_interval_ns = Some(10_000_000);
        add(&mut s);
        let m = |k: &str| s.metrics[k];
        assert!((m(k::WRITE_SUSTAINED_MIB_S) - 1000.0).abs() < 1e-6);
        assert!((m(k::READ_SUSTAINED_MIB_S) - 2000.0).abs() < 1e-6);
        assert!((m(k::PEAK_MIB_S) - 2000.0).abs() < 1e-6);
    }
}
