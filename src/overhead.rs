//! fsbench's own cost, measured at the start of every run: one recorded operation (clock read +
//! histogram insert) against the latency of a 4 KiB read from the page cache (a memfd, so no
//! disk is touched), which is the cheapest operation any workload measures.

use fsbench_measure::measure_overhead;
use fsbench_model::OverheadInfo;
use std::os::unix::fs::FileExt;

/// Measures both and their ratio.
pub fn measure() -> OverheadInfo {
    let per_op_ns = measure_overhead(200_000).per_op_ns;
    let reference_read_ns = cached_read_ns().unwrap_or(0.0);
    let pct = if reference_read_ns > 0.0 {
        per_op_ns * 100.0 / reference_read_ns
    } else {
        0.0
    };
    OverheadInfo {
        per_op_ns,
        reference_read_ns,
        pct_of_4k_cached_read: pct,
    }
}

/// Median time of one 4 KiB pread from a 1 MiB memfd, over 64 rounds of 256 reads.
fn cached_read_ns() -> Option<f64> {
    let fd = rustix::fs::memfd_create("fsbench-overhead", rustix::fs::MemfdFlags::CLOEXEC).ok()?;
    let file = std::fs::File::from(fd);
    file.write_all_at(&vec![7u8; 1 << 20], 0).ok()?;
    let mut buf = vec![0u8; 4096];
    let mut rounds = Vec::with_capacity(64);
    for _ in 0..64 {
        let t = std::time::Instant::now();
        for i in 0..256u64 {
            file.read_at(&mut buf, (i % 256) * 4096).ok()?;
        }
        rounds.push(t.elapsed().as_nanos() as f64 / 256.0);
    }
    rounds.sort_by(f64::total_cmp);
    Some(rounds[rounds.len() / 2])
}
